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
            partition: window.partition.iter().map(CExpr::canonical).collect(),
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
