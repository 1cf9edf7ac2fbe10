//! The columns of a relation, indexed by name and by qualifier: a column reference resolves by
//! a lookup, not a scan, so a SELECT of n columns and a chain of n joins cost O(n), not O(n²).
//!
//! The index is built on the first lookup and kept up to date by appends (a chain of joins
//! extends one relation); any other change drops it, to be rebuilt on the next lookup. Clones
//! share it until one of them changes. A relation of a few columns (most of them) is scanned
//! instead: that costs less than building its index.

use super::scope::Column;
use foldhash::HashMap;
use std::cell::OnceCell;
use std::rc::Rc;

/// Relations of up to this many columns are scanned, not indexed.
const SCANNED_UP_TO: usize = 16;

/// The positions of the columns, ascending, by name and by qualifier and name.
#[derive(Debug, Default)]
struct Index {
    by_name: HashMap<String, Vec<usize>>,
    by_qualifier: HashMap<String, HashMap<String, Vec<usize>>>,
}

impl Index {
    fn add(&mut self, at: usize, column: &Column) {
        self.by_name
            .entry(column.name.clone())
            .or_default()
            .push(at);
        if let Some(qualifier) = &column.qualifier {
            self.by_qualifier
                .entry(qualifier.clone())
                .or_default()
                .entry(column.name.clone())
                .or_default()
                .push(at);
        }
    }
}

/// A relation's columns in order (a slice to read), with their index.
#[derive(Clone, Default)]
pub struct Columns {
    list: Vec<Column>,
    index: OnceCell<Rc<Index>>,
}

impl Columns {
    fn index(&self) -> &Index {
        self.index.get_or_init(|| {
            let mut index = Index::default();
            for (at, column) in self.list.iter().enumerate() {
                index.add(at, column);
            }
            Rc::new(index)
        })
    }

    fn is_scanned(&self) -> bool {
        self.list.len() <= SCANNED_UP_TO
    }

    /// The columns named `name` (qualified by `qualifier`, when given), in order.
    pub fn named<'a>(
        &'a self,
        qualifier: Option<&'a str>,
        name: &'a str,
    ) -> impl Iterator<Item = &'a Column> {
        let scanned = self.is_scanned().then(|| {
            self.list.iter().filter(move |c| {
                c.name == name && qualifier.is_none_or(|q| c.qualifier.as_deref() == Some(q))
            })
        });
        let indexed = (!self.is_scanned()).then(|| {
            let index = self.index();
            let positions = match qualifier {
                None => index.by_name.get(name),
                Some(q) => index.by_qualifier.get(q).and_then(|names| names.get(name)),
            };
            positions
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .map(|&at| &self.list[at])
        });
        scanned
            .into_iter()
            .flatten()
            .chain(indexed.into_iter().flatten())
    }

    /// Whether a column is qualified by `qualifier`.
    pub fn has_qualifier(&self, qualifier: &str) -> bool {
        if self.is_scanned() {
            return self
                .list
                .iter()
                .any(|c| c.qualifier.as_deref() == Some(qualifier));
        }
        self.index().by_qualifier.contains_key(qualifier)
    }

    /// Appends a column, keeping the index when this relation alone holds it.
    pub fn push(&mut self, column: Column) {
        let at = self.list.len();
        if let Some(shared) = self.index.get_mut() {
            match Rc::get_mut(shared) {
                Some(index) => index.add(at, &column),
                None => {
                    self.index.take();
                }
            }
        }
        self.list.push(column);
    }

    pub fn retain(&mut self, keep: impl FnMut(&Column) -> bool) {
        self.index.take();
        self.list.retain(keep);
    }
}

impl std::ops::Deref for Columns {
    type Target = [Column];

    fn deref(&self) -> &[Column] {
        &self.list
    }
}

/// Any change through a mutable slice (a column renamed, requalified, rewritten) drops the index.
impl std::ops::DerefMut for Columns {
    fn deref_mut(&mut self) -> &mut [Column] {
        self.index.take();
        &mut self.list
    }
}

impl std::fmt::Debug for Columns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.list.fmt(f)
    }
}

impl From<Vec<Column>> for Columns {
    fn from(list: Vec<Column>) -> Self {
        Columns {
            list,
            index: OnceCell::new(),
        }
    }
}

impl FromIterator<Column> for Columns {
    fn from_iter<I: IntoIterator<Item = Column>>(iter: I) -> Self {
        Columns::from(iter.into_iter().collect::<Vec<_>>())
    }
}

impl Extend<Column> for Columns {
    fn extend<I: IntoIterator<Item = Column>>(&mut self, iter: I) {
        for column in iter {
            self.push(column);
        }
    }
}

impl IntoIterator for Columns {
    type Item = Column;
    type IntoIter = std::vec::IntoIter<Column>;

    fn into_iter(self) -> Self::IntoIter {
        self.list.into_iter()
    }
}

impl<'a> IntoIterator for &'a Columns {
    type Item = &'a Column;
    type IntoIter = std::slice::Iter<'a, Column>;

    fn into_iter(self) -> Self::IntoIter {
        self.list.iter()
    }
}

impl<'a> IntoIterator for &'a mut Columns {
    type Item = &'a mut Column;
    type IntoIter = std::slice::IterMut<'a, Column>;

    fn into_iter(self) -> Self::IntoIter {
        self.index.take();
        self.list.iter_mut()
    }
}
