//! Flink's sub-plan reuse inside one query (`table.optimizer.reuse-sub-plan-enabled`, true by
//! default): a view or a table read twice and planned alike is computed once, one operator
//! (one state) feeding both reads. The tool plans each read of a view apart, its tables
//! numbered as other instances (`orders`, `` `orders#2` ``); operators that are alike but for
//! that numbering are one. Where a read prunes the view otherwise (one input of a UNION ALL
//! stops reading an aggregate), the copies differ and Flink plans two operators, the second
//! one new (red team round 34 Q, plan lab: one GroupAggregate for two UNION ALL inputs reading
//! a view alike, two when one of them reads `'single'` for its `MAX(name)`).

use super::instance_names::{rename_text, renumbered_by_appearance};
use super::Operator;
use crate::notes::Notes;
use foldhash::HashSet;
use serde_json::Value;

pub const REUSE_KEY: &str = "table.optimizer.reuse-sub-plan-enabled";

/// Whether the configuration lets Flink reuse sub-plans.
pub fn reuses_sub_plans(config: &crate::catalog::config::Config) -> bool {
    config
        .get(REUSE_KEY)
        .is_none_or(|v| !v.trim().eq_ignore_ascii_case("false"))
}

/// Removes each operator planned alike with one planned before it (see the module).
pub fn merge_alike(operators: &mut Vec<Operator>, notes: &mut Notes) {
    let mut seen: HashSet<String> = HashSet::default();
    let mut kept = Vec::with_capacity(operators.len());
    for op in std::mem::take(operators) {
        if seen.insert(alike_key(&op)) {
            kept.push(op);
            continue;
        }
        notes.assume(
            format!(
                "this {} is planned alike for another read of the same tables: Flink computes it once (sub-plan reuse)",
                op.kind.name()
            ),
            Some(op.span),
        );
    }
    *operators = kept;
}

/// What must be alike for two operators of one query to be one: their kind, facts, field
/// names and written digest (as for two queries of a statement set: `shared_operators`), the
/// tables' instances numbered by where they first appear. The lists are compared as sets: the
/// tool lists the columns of a copy in the order its read resolves them (a computed column
/// such as `PROCTIME()` first or last), which Flink's digest does not hold; claiming a reuse
/// Flink does not plan is the safe side (a copy that splits off is a new operator).
fn alike_key(op: &Operator) -> String {
    let (field_names, digest) = (
        format!("{:?}", op.field_names),
        format!("{:?}", op.written_digest),
    );
    let renames = renumbered_by_appearance(&format!(
        "{}\u{0}{field_names}\u{0}{digest}",
        op.facts_text()
    ));
    let renamed = |text: &str| rename_text(text, &renames);
    let mut key = format!(
        "{}\u{0}{}\u{0}{}",
        op.kind.name(),
        renamed(&field_names),
        renamed(&digest)
    );
    for (name, value) in op.rule_facts() {
        let value = match value {
            Value::Array(items) => {
                let mut texts: Vec<String> = items
                    .iter()
                    .map(|item| renamed(&item.to_string()))
                    .collect();
                texts.sort();
                texts.join("\u{1}")
            }
            other => renamed(&other.to_string()),
        };
        key.push_str(&format!("\u{0}{name}={value}"));
    }
    key
}
