//! Aggregates whose results the query never reads: Flink's optimizer prunes them (a projection
//! above the aggregate that does not read a call removes the call), so they keep no state.

use super::{Operator, OperatorKind};
use crate::facts::aggregate::Aggregates;

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
                haystack.extend(other.searchable_text());
            }
        }
        let op = &mut operators[i];
        let Ok(calls) = op.read::<Aggregates>() else {
            continue;
        };
        let kept_anyway = [
            calls.python_udafs.clone(),
            calls.undeclared_aggregates.clone(),
        ]
        .concat();
        let unread: Vec<String> = calls
            .aggregates
            .iter()
            .filter(|a| {
                !kept_anyway.contains(a) && !haystack.iter().any(|h| h.contains(a.as_str()))
            })
            .cloned()
            .collect();
        if unread.is_empty() {
            continue;
        }
        op.update(|calls: &mut Aggregates| {
            for list in [
                &mut calls.aggregates,
                &mut calls.plain_aggregates,
                &mut calls.distinct_aggregates,
                &mut calls.python_udafs,
                &mut calls.undeclared_aggregates,
                &mut calls.udafs,
            ] {
                list.retain(|a| !unread.contains(a));
            }
        });
        op.state_items.retain(|a| !unread.contains(a));
    }
}
