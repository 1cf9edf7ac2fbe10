//! Where a finding points: the clauses behind the facts a fired rule read, narrowed to the
//! items added and removed.

use crate::facts::pair;
use crate::plan::Operator;
use crate::rules::lookup;
use crate::source::ByteSpan;
use serde_json::Value;

/// Spans in old and new of what a finding is about: the clauses behind the facts it read,
/// narrowed to the items added (new) and removed (old) where the rule read such a relation.
pub(super) fn spans_for(
    paths: &[String],
    facts: &Value,
    old: Option<&Operator>,
    new: Option<&Operator>,
) -> (ByteSpan, ByteSpan) {
    let mut old_span = ByteSpan::default();
    let mut new_span = ByteSpan::default();
    // The items added (new) or removed (old) are the exact clause; the whole fact is a fallback.
    let mut old_items = ByteSpan::default();
    let mut new_items = ByteSpan::default();
    for path in paths {
        let parts: Vec<&str> = path.split('.').collect();
        let (key, relation) = match parts.as_slice() {
            [side, key, ..] if [pair::OLD, pair::NEW, pair::CONFIG].contains(side) => (*key, None),
            [key, relation, ..] => (*key, Some(*relation)),
            [key] => (*key, None),
            [] => continue,
        };
        let items = |side: &str| -> Vec<String> {
            lookup(facts, &format!("{key}.{side}"))
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        let narrow = |op: Option<&Operator>, wanted: &[String]| -> ByteSpan {
            let Some(op) = op else {
                return ByteSpan::default();
            };
            let spans: Vec<ByteSpan> = wanted
                .iter()
                .filter_map(|i| op.item_spans.get(i).copied())
                .collect();
            if spans.is_empty() {
                op.fact_spans.get(key).copied().unwrap_or(op.span)
            } else {
                spans.into_iter().fold(ByteSpan::default(), ByteSpan::union)
            }
        };
        match relation {
            Some("added") => new_items = new_items.union(narrow(new, &items("added"))),
            Some("removed") => old_items = old_items.union(narrow(old, &items("removed"))),
            // A whole-list relation (equal_as_set, ...) is about the items that differ.
            Some(_) => {
                old_items = old_items.union(narrow(old, &items("removed")));
                new_items = new_items.union(narrow(new, &items("added")));
            }
            // A pair-level list of items (e.g. the names of changed columns).
            None if parts.len() == 1 && lookup(facts, key).is_some_and(Value::is_array) => {
                let items: Vec<String> = lookup(facts, key)
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default();
                old_items = old_items.union(narrow(old, &items));
                new_items = new_items.union(narrow(new, &items));
            }
            // A pair-level value (e.g. `feeds_state`) has no clause of its own.
            None if parts.len() == 1 => {}
            None => {
                if let Some(op) = old {
                    old_span = old_span.union(op.fact_spans.get(key).copied().unwrap_or(op.span));
                }
                if let Some(op) = new {
                    new_span = new_span.union(op.fact_spans.get(key).copied().unwrap_or(op.span));
                }
            }
        }
    }
    let exact = |items: ByteSpan, whole: ByteSpan, op: Option<&Operator>| {
        if !(items.is_empty() && items.start == 0) {
            items
        } else if !(whole.is_empty() && whole.start == 0) {
            whole
        } else {
            op.map(|o| o.span).unwrap_or(whole)
        }
    };
    (
        exact(old_items, old_span, old),
        exact(new_items, new_span, new),
    )
}
