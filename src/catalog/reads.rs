//! The catalog lookups one query's planning makes, recorded: a query of the new script whose
//! text is the old one's plans as the old one did when every lookup finds the same definition
//! in both catalogs (`crate::plan::reuse`). Recorded per thread: a script is planned on one.

use std::cell::RefCell;

/// What kind of definition a lookup asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadKind {
    Table,
    View,
    Function,
}

/// One name the planner looked up, found or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Read {
    pub kind: ReadKind,
    pub name: String,
}

thread_local! {
    static LOG: RefCell<Option<Vec<Read>>> = const { RefCell::new(None) };
}

/// Runs `work`, returning what it returns with every lookup it made (each once, in order).
pub fn recording<T>(work: impl FnOnce() -> T) -> (T, Vec<Read>) {
    let outer = LOG.with(|log| log.borrow_mut().replace(Vec::new()));
    let result = work();
    let reads = LOG.with(|log| std::mem::replace(&mut *log.borrow_mut(), outer));
    (result, reads.unwrap_or_default())
}

/// Records a lookup of `name`, when recording.
pub(super) fn note(kind: ReadKind, name: &str) {
    LOG.with(|log| {
        let Ok(mut log) = log.try_borrow_mut() else {
            return;
        };
        let Some(reads) = log.as_mut() else { return };
        if !reads
            .iter()
            .any(|read| read.kind == kind && read.name == name)
        {
            reads.push(Read {
                kind,
                name: name.to_string(),
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_each_lookup_once_and_only_while_recording() {
        note(ReadKind::Table, "t");
        let ((), reads) = recording(|| {
            note(ReadKind::Table, "t");
            note(ReadKind::View, "t");
            note(ReadKind::Table, "t");
            note(ReadKind::Function, "f");
        });
        let read = |kind, name: &str| Read {
            kind,
            name: name.into(),
        };
        assert_eq!(
            reads,
            vec![
                read(ReadKind::Table, "t"),
                read(ReadKind::View, "t"),
                read(ReadKind::Function, "f")
            ]
        );
        let ((), after) = recording(|| {});
        assert!(after.is_empty());
    }
}
