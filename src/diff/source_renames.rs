//! A source table renamed (paired with the new table in order by `matching`) is, for the
//! operators reading it, the same input: Flink's generated operator ids hash the stream graph's
//! shape and a state's layout follows the column types, neither of them the table's name. So
//! before an operator pair is compared, the old side's lineage `Old.x` is written `New.x`; the
//! rename itself is the source's own change, judged by the source rules (`source-renamed`).

use super::matching::OperatorPair;
use crate::plan::instance_names::rename_text;
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
