//! A table read more than once has one scan instance per read, numbered in reading order (`t`,
//! `` `t#2` ``, ...). The numbers name reads, not inputs: the branches of a UNION ALL written in
//! another order (operators.md: reordering a UNION ALL's inputs is F) number the same reads the
//! other way round. Before a query's operators are compared, the old side's instances of each
//! table are renumbered by the permutation under which the most operator pairs read the same;
//! the identity unless another one does strictly better. A renaming applied to the whole query
//! at once relabels its reads and nothing else: which rows each operator keeps stays told apart.

use super::matching::OperatorPair;
use super::{source_renames, union_lineage};
use crate::plan::instance_names::two_phase;
use serde_json::Value;
use std::collections::BTreeMap;

/// At most this many renumberings are tried (a query reading one table six times has 720).
const MAX_PERMUTATIONS: usize = 720;

/// The renames (old name, new name), applied in order, that renumber the old side's scan
/// instances: each instance first takes a placeholder, then its new name. Empty when the
/// identity does best. `renames`: the source renames already applied.
pub fn renames(operators: &[OperatorPair], renames: &[(String, String)]) -> Vec<(String, String)> {
    let tables = instances(operators);
    let candidates = permutations(&tables);
    if candidates.len() <= 1 || candidates.len() > MAX_PERMUTATIONS {
        return Vec::new();
    }
    let score = |perm: &[(String, String)]| {
        let mut all = renames.to_vec();
        all.extend(two_phase(perm));
        operators
            .iter()
            .filter(|p| {
                let (Some(old), Some(new)) = (p.old, p.new) else {
                    return false;
                };
                let old = source_renames::align(old.rule_facts(), &all);
                let (old, new) = union_lineage::align(&old, new.rule_facts());
                old == new
            })
            .count()
    };
    let mut best = (score(&[]), Vec::new());
    for perm in candidates {
        let moved: Vec<(String, String)> = perm.into_iter().filter(|(a, b)| a != b).collect();
        if moved.is_empty() {
            continue;
        }
        let s = score(&moved);
        if s > best.0 {
            best = (s, moved);
        }
    }
    two_phase(&best.1)
}

/// Per table read more than once, its instances as written in the facts (`t`, `` `t#2` ``, ...).
fn instances(operators: &[OperatorPair]) -> BTreeMap<String, Vec<String>> {
    let mut numbered: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut texts = Vec::new();
    for op in operators.iter().flat_map(|p| [p.old, p.new]).flatten() {
        for value in op.rule_facts().values() {
            strings(value, &mut texts);
        }
    }
    for text in &texts {
        let mut rest = text.as_str();
        while let Some(at) = rest.find('`') {
            let after = &rest[at + 1..];
            let Some(end) = after.find('`') else { break };
            let name = &after[..end];
            if let Some((table, n)) = name.rsplit_once('#') {
                if !table.is_empty() && n.parse::<u32>().is_ok_and(|n| n >= 2) {
                    let list = numbered.entry(table.to_string()).or_default();
                    let instance = format!("`{name}`");
                    if !list.contains(&instance) {
                        list.push(instance);
                    }
                }
            }
            rest = &after[end + 1..];
        }
    }
    for (table, list) in numbered.iter_mut() {
        list.sort();
        list.insert(0, table.clone());
    }
    numbered
}

fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// Every renumbering: per table a permutation of its instances, as (old name, new name) pairs;
/// more than the limit gives an empty list beyond it.
fn permutations(tables: &BTreeMap<String, Vec<String>>) -> Vec<Vec<(String, String)>> {
    let mut all: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for list in tables.values() {
        let mut next = Vec::new();
        for perm in orderings(list) {
            for prefix in &all {
                if next.len() > MAX_PERMUTATIONS {
                    return next;
                }
                let mut p = prefix.clone();
                p.extend(list.iter().cloned().zip(perm.iter().cloned()));
                next.push(p);
            }
        }
        all = next;
    }
    all
}

/// Every ordering of `items` (at most MAX_PERMUTATIONS + 1 of them).
fn orderings(items: &[String]) -> Vec<Vec<String>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for (i, first) in items.iter().enumerate() {
        // Checked before the recursion too: a full list asking each position again would
        // recurse twice per level (2^n calls for a table read n times).
        if out.len() > MAX_PERMUTATIONS {
            return out;
        }
        let mut rest = items.to_vec();
        rest.remove(i);
        for mut tail in orderings(&rest) {
            if out.len() > MAX_PERMUTATIONS {
                return out;
            }
            tail.insert(0, first.clone());
            out.push(tail);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_orderings_of_many_reads_stop_at_the_limit() {
        let items: Vec<String> = (1..=40).map(|i| format!("`t#{i}`")).collect();
        assert_eq!(orderings(&items).len(), MAX_PERMUTATIONS + 1);
    }

    #[test]
    fn a_swap_goes_through_placeholders() {
        let perm = vec![
            ("t".to_string(), "`t#2`".to_string()),
            ("`t#2`".to_string(), "t".to_string()),
        ];
        let renames = two_phase(&perm);
        let text = serde_json::json!({"f": ["t.a = 1", "`t#2`.b = 2"]});
        let map = text.as_object().cloned().unwrap_or_default();
        let out = source_renames::align(&map, &renames);
        assert_eq!(out["f"], serde_json::json!(["`t#2`.a = 1", "t.b = 2"]));
    }

    #[test]
    fn orderings_of_three_are_six() {
        let items: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        assert_eq!(orderings(&items).len(), 6);
    }
}
