//! Rules judged once per changed item rather than per operator: each configuration key whose
//! value in force differs (`config_key` rules), each WITH option of a source table that differs
//! (`table_option` rules). Every item ends in a finding: the rules that fire on it, or the
//! fail-safe `unexplained-change` (unknown) when none does. What is neutral is therefore data:
//! a rule saying why a key or an option changes nothing.

use super::engine::{fire, location, UNEXPLAINED};
use super::RuleSet;
use crate::report::Finding;
use crate::source::{ByteSpan, SourceFile};
use crate::verdict::Verdict;
use serde_json::Value;

/// One changed item: its facts, and where it is written in the old and the new script.
pub struct Item {
    pub facts: Value,
    pub old_span: Option<ByteSpan>,
    pub new_span: Option<ByteSpan>,
    /// How the fail-safe names the item (e.g. `configuration key 'x'`).
    pub label: String,
}

/// The findings of every item, in order: one per fired rule, or one `unexplained-change`.
pub fn evaluate(
    rules: &RuleSet,
    operator: &str,
    items: &[Item],
    old_file: &SourceFile,
    new_file: &SourceFile,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    for item in items {
        let at = |file: &SourceFile, span: Option<ByteSpan>| span.and_then(|s| location(file, s));
        let fired = fire(rules, operator, &item.facts);
        if fired.is_empty() {
            findings.push(Finding {
                rule: UNEXPLAINED.into(),
                verdict: Verdict::Unknown,
                message: format!("{} changed and no rule covers this change", item.label),
                derived: Some(
                    "fail-safe: a change the rules do not explain is never called compatible"
                        .into(),
                ),
                failure_mode: None,
                old: at(old_file, item.old_span),
                new: at(new_file, item.new_span),
                suppressed: None,
            });
        }
        for (rule, _) in fired {
            findings.push(Finding {
                rule: rule.id.clone(),
                verdict: rule.verdict_for(&item.facts),
                message: rule.message.render(&item.facts),
                derived: rule.derived.clone(),
                failure_mode: rule.failure_mode_for(&item.facts),
                old: at(old_file, item.old_span),
                new: at(new_file, item.new_span),
                suppressed: None,
            });
        }
    }
    findings
}
