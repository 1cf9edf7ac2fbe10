//! Group aggregates Flink's planner may push beneath the inner join they read
//! (FlinkAggregateJoinTransposeRule, cost-based): when an input of the join is a table unique on
//! the join's keys (its primary key), the aggregate can be computed on the other input first,
//! and the join then stores the aggregate's rows, so a changed aggregate changes the join's
//! state. Whether Flink does so depends on its cost model (plan lab, Flink 2.3: it does with a
//! filter on the other input, not without), which the tool does not model: such an aggregate
//! is marked (`beneath_unique_join`), for the rules to judge.

use super::Operator;
use crate::facts::aggregate::GroupAggregateFacts;
use crate::facts::join::JoinBase;
use std::collections::BTreeSet;

/// A group aggregate just planned (its operator) and the regular joins its input reaches
/// through projections and filters (their operators), by position in the query's operators.
pub struct AggregateOverJoins {
    pub aggregate: usize,
    pub joins: Vec<usize>,
}

/// Marks each group aggregate reading an inner join with an input unique on the join's keys.
pub fn mark(operators: &mut [Operator], candidates: &[AggregateOverJoins], sources: &[Operator]) {
    let unique_keys: Vec<BTreeSet<String>> = sources
        .iter()
        .filter_map(Operator::source_facts)
        .filter_map(|s| {
            let key = s.primary_key?;
            (!key.is_empty()).then(|| key.iter().map(|c| format!("{}.{c}", s.name)).collect())
        })
        .collect();
    if unique_keys.is_empty() {
        return;
    }
    for candidate in candidates {
        let over_unique_join = candidate.joins.iter().any(|&at| {
            operators
                .get(at)
                .is_some_and(|join| inner_on_unique_input(join, &unique_keys))
        });
        if over_unique_join {
            if let Some(aggregate) = operators.get_mut(candidate.aggregate) {
                aggregate.update(|facts: &mut GroupAggregateFacts| {
                    facts.beneath_unique_join = true;
                });
            }
        }
    }
}

/// Whether a join is inner, and its equality keys cover a table's whole primary key.
fn inner_on_unique_input(join: &Operator, unique_keys: &[BTreeSet<String>]) -> bool {
    let Ok(facts) = join.read::<JoinBase>() else {
        return true;
    };
    if facts.join_type != "INNER" {
        return false;
    }
    let columns = facts.key_columns();
    unique_keys
        .iter()
        .any(|key| key.iter().all(|c| columns.contains(&c.as_str())))
}
