//! Window TVF aggregates: `GROUP BY window_start, window_end, ...` over
//! `TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), ...))` (and HOP, CUMULATE, SESSION).

use super::super::builder::Builder;
use super::super::dialect_names::{WINDOW_END, WINDOW_START, WINDOW_TIME};
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
    // The window columns by name, each with its GROUP BY position (`window_keys` and
    // `window_key_positions` list them in the same order).
    let mut by_name = window_keys.to_vec();
    by_name.sort();
    let names: Vec<String> = by_name.iter().map(|(n, _)| n.clone()).collect();
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
        window_key_positions: by_name.iter().map(|(_, p)| *p).collect(),
        steps_after_window,
        // Told once the query is planned: `mark_attached`.
        window_attached: false,
        // Told once the query is planned: `phases::mark_two_phase`.
        two_phase: false,
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

/// Marks the window TVF aggregates (`window_aggregates`: operator, window read) of a planned
/// query for which Flink keeps the window TVF a node of its own beneath the aggregate
/// (windowing strategy `WindowAttached`: the aggregate keeps its state per window, read from
/// the rows' window_start / window_end) rather than merging it into the aggregate
/// (`TimeAttribute`, or `SliceAttached` for a two-phase one: state per slice of the time
/// attribute, which HOP and CUMULATE windows share). Flink merges them only when nothing
/// between reads the window columns but as plain keys: no correlate, no filter term (one pushed
/// from above too), computed key or aggregate argument on window_start, window_end or
/// window_time, an unread call pruned (plan lab: `MAX(window_time)`, a WHERE on window_start, a
/// key `DATE_FORMAT(window_start, ...)` or a CROSS JOIN UNNEST each plan the
/// WindowTableFunction apart; `COUNT(window_start)` does not, and is read as `COUNT(*)`, the
/// window columns being NOT NULL).
pub fn mark_attached(operators: &mut [Operator], window_aggregates: &[(usize, WindowTvf)]) {
    for (index, window) in window_aggregates {
        let Some(op) = operators.get_mut(*index) else {
            continue;
        };
        let Ok(facts) = op.read::<WindowAggregateFacts>() else {
            continue;
        };
        let reads_window = |text: &str| reads_window_columns(window, text);
        let attached = window.correlated
            || window.inherited
            || facts.keys.iter().any(|k| reads_window(k))
            || facts.filters.filters.iter().any(|f| reads_window(f))
            || facts.aggregates.aggregates.iter().any(|a| reads_window(a));
        if attached {
            op.update(|facts: &mut WindowAggregateFacts| facts.window_attached = true);
        }
    }
}

/// The window's window_start, window_end and window_time as canonical text reads them.
fn window_columns(window: &WindowTvf) -> [String; 3] {
    let describe = window.describe();
    [WINDOW_START, WINDOW_END, WINDOW_TIME].map(|c| format!("{}({describe})", c.to_uppercase()))
}

/// Whether canonical text (a filter term, a key, an aggregate call) reads the window's
/// window_start, window_end or window_time.
fn reads_window_columns(window: &WindowTvf, text: &str) -> bool {
    window_columns(window)
        .iter()
        .any(|c| text.contains(c.as_str()))
}

/// Whether canonical text is the window's window_start, window_end or window_time itself.
pub fn is_window_column(window: &WindowTvf, text: &str) -> bool {
    window_columns(window).iter().any(|c| c == text)
}
