//! Rules judged once per changed item rather than per operator: each configuration key whose
//! value in force differs (`config_key` rules), each WITH option of a source table that differs
//! (`table_option` rules). Every item ends in a finding (`crate::report::assemble`): the rules
//! that fire on it, or the fail-safe `unexplained-change` (unknown) when none does. What is
//! neutral is therefore data: a rule saying why a key or an option changes nothing.

use super::engine::fire;
use super::{Rule, RuleSet};
use crate::diff::item_facts::Item;

/// The rules that fire on each item, in order (none: the fail-safe `unexplained-change`).
pub fn decide<'r>(rules: &'r RuleSet, operator: &'r str, items: &[Item]) -> Vec<Vec<&'r Rule>> {
    items
        .iter()
        .map(|item| {
            fire(rules, operator, &item.facts)
                .into_iter()
                .map(|(rule, _)| rule)
                .collect()
        })
        .collect()
}
