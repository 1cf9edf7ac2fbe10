//! A source table renamed (paired with the new table in order by `matching`) is, for the
//! operators reading it, the same input: Flink's generated operator ids hash the stream graph's
//! shape and a state's layout follows the column types, neither of them the table's name. So
//! before an operator pair is compared, the old side's lineage `Old.x` is written `New.x`; the
//! rename itself is the source's own change, judged by the source rules (`source-renamed`).

use super::matching::OperatorPair;
use serde_json::{Map, Value};

/// (old name, new name) of each source table paired with a table of another name that both
/// scripts declare with the same columns: a table with other columns (or undeclared, whose
/// columns are unseen) read in its place is another input, and its columns stay its own.
pub fn of(sources: &[OperatorPair]) -> Vec<(String, String)> {
    sources
        .iter()
        .filter_map(|pair| {
            // Most sources keep their name: their facts need not be read.
            if pair.old?.source_name() == pair.new?.source_name() {
                return None;
            }
            let old = pair.old?.source_facts()?;
            let new = pair.new?.source_facts()?;
            let same_table = old.declared && new.declared && old.columns == new.columns;
            (same_table && !old.name.is_empty() && !new.name.is_empty() && old.name != new.name)
                .then_some((old.name, new.name))
        })
        .collect()
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '`' | '$')
}

/// `text` with every column reference `old.` (at a name boundary, outside quotes) as `new.`.
fn rename_in(text: &str, old: &str, new: &str) -> String {
    let prefix = format!("{old}.");
    let mut out = String::with_capacity(text.len());
    let mut quote: Option<char> = None;
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        let Some(c) = rest.chars().next() else { break };
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' => quote = Some(c),
            None => {
                let boundary = !text[..at].chars().next_back().is_some_and(is_name_char);
                if boundary && rest.starts_with(&prefix) {
                    out.push_str(new);
                    out.push('.');
                    at += prefix.len();
                    continue;
                }
            }
        }
        out.push(c);
        at += c.len_utf8();
    }
    out
}

fn rewrite(value: &Value, renames: &[(String, String)]) -> Value {
    match value {
        Value::String(s) => Value::String(rename_text(s, renames)),
        Value::Array(items) => Value::Array(items.iter().map(|v| rewrite(v, renames)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), rewrite(v, renames)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The facts that are sets of canonical terms, kept sorted: renamed, they are sorted again.
const SETS: [crate::facts::FactName; 3] = [
    crate::facts::Filters::filters,
    crate::facts::join::JoinBase::conditions,
    crate::facts::ranking::FiltersAfter::filters_after,
];

/// The old side's facts with the lineage of each renamed source written with its new name.
pub fn align(old: &Map<String, Value>, renames: &[(String, String)]) -> Map<String, Value> {
    if renames.is_empty() {
        return old.clone();
    }
    old.iter()
        .map(|(k, v)| {
            let mut value = rewrite(v, renames);
            if let (Value::Array(items), true) = (&mut value, SETS.iter().any(|s| s.name() == k)) {
                items.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
            }
            (k.clone(), value)
        })
        .collect()
}

/// `text` with the renames applied in order.
pub fn rename_text(text: &str, renames: &[(String, String)]) -> String {
    renames.iter().fold(text.to_string(), |text, (old, new)| {
        rename_in(&text, old, new)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_of_the_renamed_table_takes_the_new_name_and_nothing_else_does() {
        assert_eq!(
            rename_in(
                "SUM(MyTable.b) + XMyTable.c + 'MyTable.d'",
                "MyTable",
                "Events"
            ),
            "SUM(Events.b) + XMyTable.c + 'MyTable.d'"
        );
        assert_eq!(
            rename_in("cat.MyTable.b", "MyTable", "Events"),
            "cat.MyTable.b"
        );
    }
}
