//! Window TVF aggregates: `GROUP BY window_start, window_end, ...` over
//! `TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), ...))` (and HOP, CUMULATE, SESSION).

use super::super::builder::Builder;
use super::super::expr::CExpr;
use super::super::scope::WindowTvf;
use super::super::Operator;
use super::Grouped;
use crate::facts::aggregate::{WindowAggregateFacts, WindowTvf as WindowFacts};

/// The facts of a window aggregate: its window, which window columns it groups by and where.
pub fn put_facts(
    b: &Builder,
    op: &mut Operator,
    window: &WindowTvf,
    window_keys: &[(String, usize)],
    steps_after_window: usize,
    grouped: Grouped,
) {
    let param = |name: &str| {
        window
            .params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    };
    let mut names: Vec<String> = window_keys.iter().map(|(n, _)| n.clone()).collect();
    names.sort();
    // A SESSION window's partition keys as a set: the aggregate keys its state by the GROUP BY
    // keys, which hold them, and Flink's session spec keeps no order of its own (plan oracle:
    // PARTITION BY (a, b) and (b, a) plan the same window aggregate, row types included).
    let mut partition: Vec<String> = window.partition.iter().map(CExpr::canonical).collect();
    partition.sort();
    partition.dedup();
    let facts = WindowAggregateFacts {
        window: WindowFacts {
            kind: window.kind.clone(),
            size_ms: param("size"),
            slide_ms: param("slide"),
            step_ms: param("step"),
            gap_ms: param("gap"),
            offset_ms: param("offset"),
            time_attribute: window.time.canonical(),
            time_kind: window.time_kind.map(|t| t.name().to_string()),
            partition,
        },
        keys: grouped.keys,
        window_keys: names,
        window_key_positions: window_keys.iter().map(|(_, p)| *p).collect(),
        steps_after_window,
        emit: super::emit_facts(b, op),
        aggregates: grouped.aggregates,
        filters: grouped.filters,
    };
    op.put(&facts);
    op.fact_spans.insert(
        crate::facts::aggregate::WindowAggregateFacts::window,
        window.span,
    );
}
