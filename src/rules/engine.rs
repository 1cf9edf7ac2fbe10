//! Decides, on the facts of every matched pair, which change kinds happened and which rules
//! fire, and the fail-safe: the changes no fired rule explains (judged `unknown`). The report
//! (`crate::report::assemble`) turns these decisions into findings, spans and state fates.

use super::{Rule, RuleSet};
use crate::facts::pair;
use serde_json::Value;

/// Id of the built-in finding for a change that no rule explains.
pub const UNEXPLAINED: &str = "unexplained-change";

/// Why an unexplained change is `unknown`.
pub const FAIL_SAFE: &str =
    "fail-safe: a change the rules do not explain is never called compatible";

/// Which rules fire on these facts, with the paths each fired rule looked at.
pub fn fire<'r>(
    rules: &'r RuleSet,
    operator: &'r str,
    facts: &Value,
) -> Vec<(&'r Rule, Vec<String>)> {
    debug_assert!(
        rules.has_kind(operator),
        "the rules of {operator} were not loaded"
    );
    let changes = rules
        .changes
        .get(operator)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let detected: Vec<&(String, super::dsl::Predicate)> =
        changes.iter().filter(|(_, p)| p.eval(facts)).collect();
    let mut fired = Vec::new();
    for rule in rules.for_operator(operator) {
        let change = if rule.change == "any" {
            None
        } else {
            detected.iter().find(|(n, _)| *n == rule.change)
        };
        if rule.change != "any" && change.is_none() {
            continue;
        }
        if rule.when.eval(facts) {
            let mut paths = rule.when.paths();
            if let Some((_, p)) = change {
                paths.extend(p.paths());
            }
            fired.push((rule, paths));
        }
    }
    fired
}

/// The top-level facts that differ between the two sides.
fn differing(facts: &Value) -> Vec<String> {
    let empty = serde_json::Map::new();
    let (old, new) = crate::facts::pair::sides(facts);
    let (old, new) = (old.unwrap_or(&empty), new.unwrap_or(&empty));
    let mut keys: Vec<String> = old
        .keys()
        .chain(new.keys())
        .filter(|k| old.get(*k) != new.get(*k))
        .cloned()
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

/// Whether a fired rule that read `paths` explains a change of the fact `key`.
fn explains(paths: &[String], key: &str) -> bool {
    let group = crate::diff::schema::coverage_group(key);
    paths.iter().any(|p| {
        let parts: Vec<&str> = p.split('.').collect();
        let read = match parts.as_slice() {
            [side, k, ..] if [pair::OLD, pair::NEW].contains(side) => *k,
            [k, ..] => *k,
            [] => return false,
        };
        crate::diff::schema::coverage_group(read) == group
    })
}

/// The fail-safe: the top-level facts that differ between the two sides and that no fired
/// rule (which read `explained`) explains, leaving out the facts in `ignored`.
pub fn unexplained(facts: &Value, explained: &[String], ignored: &[&str]) -> Vec<String> {
    differing(facts)
        .into_iter()
        .filter(|k| !ignored.contains(&k.as_str()) && !explains(explained, k))
        .collect()
}
