//! Calcite's AggregateReduceFunctionsRule as Flink applies it to a group, group window or
//! window TVF aggregate: when one of its calls is a variance (STDDEV_POP, VAR_SAMP, ...), every
//! SUM, AVG and variance call of that aggregate is rewritten into the calls it is computed
//! from, and the same call computed twice is computed once (plan lab: `SUM(x), STDDEV_POP(x)`
//! plans `$SUM0(x), COUNT(x), $WELFORD_M2(x)`; `VAR_POP(x), STDDEV_SAMP(x)` plans
//! `$WELFORD_M2(x), COUNT(x)`; `SUM(x)` alone stays `SUM(x)`). The state holds the rewritten
//! calls' accumulators: a SUM written beside a variance is not the SUM written alone.

use super::super::functions::VARIANCE_AGGREGATES;
use super::super::{Operator, OperatorKind};
use crate::facts::aggregate::Aggregates;

/// Rewrites the calls of every aggregate of a planned query that has a variance call.
pub fn reduce_variances(operators: &mut [Operator]) {
    for op in operators.iter_mut() {
        if !matches!(
            op.kind,
            OperatorKind::GroupAggregate
                | OperatorKind::GroupWindowAggregate
                | OperatorKind::WindowAggregate
        ) {
            continue;
        }
        let Ok(calls) = op.read::<Aggregates>() else {
            continue;
        };
        let builtin = |call: &str| {
            !calls.udafs.iter().any(|c| c == call)
                && !calls.undeclared_aggregates.iter().any(|c| c == call)
        };
        let name_of = |call: &str| call.split('(').next().unwrap_or_default().to_string();
        if !calls
            .aggregates
            .iter()
            .any(|c| builtin(c) && VARIANCE_AGGREGATES.contains(&name_of(c).as_str()))
        {
            continue;
        }
        // Each new call, with the written call it comes from first.
        let mut reduced: Vec<(String, String)> = Vec::new();
        for call in &calls.aggregates {
            let name = name_of(call);
            let rest = &call[name.len()..];
            let parts = match name.as_str() {
                "SUM" | "AVG" if builtin(call) => vec!["$SUM0", "COUNT"],
                v if builtin(call) && VARIANCE_AGGREGATES.contains(&v) => {
                    vec!["$WELFORD_M2", "COUNT"]
                }
                _ => vec![name.as_str()],
            };
            for part in parts {
                let new = format!("{part}{rest}");
                if !reduced.iter().any(|(n, _)| *n == new) {
                    reduced.push((new, call.clone()));
                }
            }
        }
        let texts: Vec<String> = reduced.iter().map(|(n, _)| n.clone()).collect();
        let distinct = |call: &String| call[name_of(call).len()..].starts_with("(DISTINCT ");
        op.update(|facts: &mut Aggregates| {
            facts.plain_aggregates = texts.iter().filter(|c| !distinct(c)).cloned().collect();
            facts.distinct_aggregates = texts.iter().filter(|c| distinct(c)).cloned().collect();
            facts.aggregates = texts.clone();
        });
        for (new, from) in &reduced {
            if let Some(span) = op.item_spans.get(from).copied() {
                op.item_spans.insert(new.clone(), span);
            }
            if let Some(display) = op.display.get(from).cloned() {
                let name = name_of(from);
                let shown = match display.strip_prefix(name.as_str()) {
                    Some(rest) => format!("{}{rest}", name_of(new)),
                    None => new.clone(),
                };
                op.display.insert(new.clone(), shown);
            }
        }
        op.state_items
            .retain(|item| !calls.aggregates.contains(item));
        op.state_items.extend(texts);
    }
}
