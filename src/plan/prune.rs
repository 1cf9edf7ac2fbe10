//! Aggregates whose results the query never reads: Flink's optimizer prunes them (a projection
//! above the aggregate that does not read a call removes the call), so they keep no state.

use super::{Operator, OperatorKind};

/// The facts of an aggregate that list its calls.
pub const AGGREGATE_LISTS: [&str; 6] = [
    "aggregates",
    "plain_aggregates",
    "distinct_aggregates",
    "python_udafs",
    "undeclared_aggregates",
    "udafs",
];

/// Removes from each group aggregate of one query the calls nothing above it reads: not the
/// query's output (`read`: its columns and every filter above the sources), nor a fact of another
/// operator. Only where the tool sees everything the query reads: not with an operator compared
/// as a whole (its fingerprint hides what it reads), and not in a script of several queries (Flink
/// may share one aggregate between them). Python and undeclared functions are kept (their rules
/// speak of them whether or not they are read).
pub fn unread_aggregates(operators: &mut [Operator], read: &[String], one_query: bool) {
    if !one_query || operators.iter().any(|op| op.kind == OperatorKind::Opaque) {
        return;
    }
    for i in 0..operators.len() {
        if operators[i].kind != OperatorKind::GroupAggregate {
            continue;
        }
        let mut haystack: Vec<String> = read.to_vec();
        for (j, other) in operators.iter().enumerate() {
            if j != i {
                haystack.push(serde_json::Value::Object(other.facts.clone()).to_string());
                haystack.push(serde_json::Value::Object(other.context.clone()).to_string());
            }
        }
        let op = &mut operators[i];
        let kept_anyway = [
            op.strings("python_udafs"),
            op.strings("undeclared_aggregates"),
        ]
        .concat();
        let unread: Vec<String> = op
            .strings("aggregates")
            .into_iter()
            .filter(|a| {
                !kept_anyway.contains(a) && !haystack.iter().any(|h| h.contains(a.as_str()))
            })
            .collect();
        if unread.is_empty() {
            continue;
        }
        for key in AGGREGATE_LISTS {
            if op.facts.contains_key(key) {
                let kept: Vec<String> = op
                    .strings(key)
                    .into_iter()
                    .filter(|a| !unread.contains(a))
                    .collect();
                op.set(key, serde_json::json!(kept));
            }
        }
        op.state_items.retain(|a| !unread.contains(a));
    }
}
