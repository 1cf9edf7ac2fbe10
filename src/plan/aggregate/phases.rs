//! Whether Flink splits an aggregate into a local and a global phase (LocalWindowAggregate and
//! GlobalWindowAggregate; LocalGroupAggregate and GlobalGroupAggregate under mini-batch): the
//! global half is another exec node than the one-phase aggregate, so the split coming or going
//! replaces the stateful operator (red team round 18, FS2).
//!
//! Flink splits (TwoStageOptimizedWindowAggregateRule, TwoStageOptimizedAggregateRule) unless
//! `table.optimizer.agg-phase-strategy` is ONE_PHASE or a call cannot merge partial results
//! ([`UNMERGEABLE_AGGREGATES`], and a user-defined function, which may not); a window aggregate
//! only over an event-time TUMBLE, HOP or CUMULATE window, a group aggregate only with
//! mini-batch on.

use super::super::functions::UNMERGEABLE_AGGREGATES;
use super::super::{Operator, OperatorKind};
use crate::catalog::config::Config;
use crate::facts::aggregate::{Aggregates, GroupAggregateFacts, WindowAggregateFacts};

/// Sets `two_phase` on the group and window TVF aggregates of a planned query (after unread
/// calls are pruned and variances reduced: Flink splits the calls it keeps).
pub fn mark_two_phase(operators: &mut [Operator], config: &Config) {
    let one_phase = config
        .get("table.optimizer.agg-phase-strategy")
        .is_some_and(|s| s.trim().eq_ignore_ascii_case("ONE_PHASE"));
    let mini_batch = config.is_true("table.exec.mini-batch.enabled");
    for op in operators.iter_mut() {
        let splittable = match op.kind {
            OperatorKind::WindowAggregate => op.read::<WindowAggregateFacts>().is_ok_and(|f| {
                f.window.time_kind.as_deref() == Some("rowtime")
                    && ["tumble", "hop", "cumulate"].contains(&f.window.kind.as_str())
            }),
            OperatorKind::GroupAggregate => mini_batch,
            _ => continue,
        };
        let two_phase = !one_phase && splittable && op.read::<Aggregates>().is_ok_and(mergeable);
        match op.kind {
            OperatorKind::WindowAggregate => {
                op.update(|f: &mut WindowAggregateFacts| f.two_phase = two_phase)
            }
            _ => op.update(|f: &mut GroupAggregateFacts| f.two_phase = two_phase),
        }
    }
}

/// Whether every call can merge partial results: a built-in one Flink can merge.
fn mergeable(calls: Aggregates) -> bool {
    let name_of = |call: &str| call.split('(').next().unwrap_or_default().to_uppercase();
    calls.aggregates.iter().all(|call| {
        !calls.udafs.contains(call)
            && !calls.undeclared_aggregates.contains(call)
            && !UNMERGEABLE_AGGREGATES.contains(&name_of(call).as_str())
    })
}
