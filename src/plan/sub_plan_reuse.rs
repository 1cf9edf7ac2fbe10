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
use foldhash::HashMap;
use serde_json::Value;
use std::collections::BTreeSet;

pub const REUSE_KEY: &str = "table.optimizer.reuse-sub-plan-enabled";

/// Whether the configuration lets Flink reuse sub-plans.
pub fn reuses_sub_plans(config: &crate::catalog::config::Config) -> bool {
    config
        .get(REUSE_KEY)
        .is_none_or(|v| !v.trim().eq_ignore_ascii_case("false"))
}

/// Removes each operator planned alike with one planned before it (see the module). Copies
/// of one view read twice read other instances of its tables; two operators alike but reading
/// one instance are no copies of each other: joins of a CTE self-joined at two depths of a
/// chain read the same first copy, and Flink plans each.
pub fn merge_alike(operators: &mut Vec<Operator>, notes: &mut Notes) {
    let mut seen: HashMap<String, Vec<BTreeSet<String>>> = HashMap::default();
    let mut kept = Vec::with_capacity(operators.len());
    for op in std::mem::take(operators) {
        let read = instances_read(&op);
        let alike = seen.entry(alike_key(&op)).or_default();
        if !alike.iter().any(|other| other.is_disjoint(&read)) {
            alike.push(read);
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

/// The table instances an operator's facts name (`orders`, `` `orders#2` ``).
fn instances_read(op: &Operator) -> BTreeSet<String> {
    let text = op.facts_text();
    super::read_names::column_references(&text)
        .filter_map(|column| {
            column
                .rsplit_once('.')
                .map(|(instance, _)| instance.to_string())
        })
        .collect()
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

#[cfg(test)]
mod tests {
    use super::merge_alike;
    use crate::facts::Filters;
    use crate::notes::Notes;
    use crate::plan::{Operator, OperatorKind};

    fn join_on(term: &str) -> Operator {
        let mut op = Operator::new(
            OperatorKind::Join,
            "stream-exec-join",
            crate::source::ByteSpan::default(),
        );
        op.put(&Filters {
            filters: vec![term.to_string()],
        });
        op
    }

    #[test]
    fn copies_reading_other_instances_are_one_and_operators_sharing_one_are_not() {
        let mut operators = vec![
            join_on("t.k = `t#2`.k"),
            // Alike once renumbered, but it reads `t` too: a join above the first, not a copy.
            join_on("t.k = `t#3`.k"),
            // A copy of the first over other reads.
            join_on("`t#4`.k = `t#5`.k"),
        ];
        merge_alike(&mut operators, &mut Notes::default());
        let left: Vec<String> = operators
            .iter()
            .map(|op| {
                op.read::<Filters>()
                    .map(|f| f.filters.join(""))
                    .unwrap_or_default()
            })
            .collect();
        assert_eq!(left, ["t.k = `t#2`.k", "t.k = `t#3`.k"]);
    }
}
