//! Top-N (`ROW_NUMBER() | RANK() | DENSE_RANK() ... WHERE rk <= N` that is not a deduplication)
//! and window Top-N (the same, partitioned by `window_start, window_end` of a window TVF).

use super::expr::CExpr;
use super::scope::{PendingRank, Relation};
use super::{Operator, OperatorKind};
use crate::facts::aggregate::Aggregates;
use crate::facts::ranking::{RankOutputs, RankWindow, Ranking, WindowOutputs};
use crate::plan::builder::Builder;
use crate::source::ByteSpan;

/// What the enclosing query's filter and the ranking function decide.
pub struct Shape<'a> {
    pub pending: &'a PendingRank,
    pub start: i64,
    pub end: i64,
    pub filter_span: ByteSpan,
    /// The columns flowing into the rank other than its partition and order keys.
    pub values: &'a [String],
    /// The columns flowing into the rank, canonical.
    pub schema: &'a [String],
    /// `ROW_NUMBER` keeping the first row by one time attribute (a deduplication).
    pub first_by_time: bool,
}

const WINDOW_COLUMNS: [(&str, &str); 3] = [
    ("WINDOW_START(", "window_start"),
    ("WINDOW_END(", "window_end"),
    ("WINDOW_TIME(", "window_time"),
];

/// `window_start` / `window_end` / `window_time` when the expression is that column of a window
/// TVF (read directly or through a window aggregate), with the window's description.
pub fn window_column(expr: &CExpr) -> Option<(&'static str, String)> {
    let CExpr::Derived(text) = expr else {
        return None;
    };
    WINDOW_COLUMNS.iter().find_map(|(marker, name)| {
        let at = text.find(marker)?;
        let prefixed_by_operator = at == 0 || text[..at].ends_with(':');
        let inner = text[at + marker.len()..].strip_suffix(')')?;
        prefixed_by_operator.then(|| (*name, inner.to_string()))
    })
}

/// The window TVF whose `window_start` and `window_end` are both among the partition keys:
/// Flink then ranks (or deduplicates) per window, not over the whole stream.
pub fn partition_window<'a>(partition: impl IntoIterator<Item = &'a CExpr>) -> Option<String> {
    let window_keys: Vec<(&str, String)> =
        partition.into_iter().filter_map(window_column).collect();
    window_keys
        .iter()
        .find(|(n, _)| *n == "window_start")
        .filter(|(_, w)| window_keys.contains(&("window_end", w.clone())))
        .map(|(_, w)| w.clone())
}

/// The window a ranking is partitioned by (both its `window_start` and `window_end`), if any.
pub fn window_of(pending: &PendingRank) -> Option<String> {
    partition_window(pending.partition.iter().map(|(p, _)| p))
}

/// The Top-N operator (or window Top-N when partitioned by both window bounds; Flink plans a
/// window deduplication for the first row by time, judged by the same rules).
pub fn operator(b: &Builder, shape: &Shape) -> Operator {
    let pending = shape.pending;
    let window = window_of(pending);
    let span = pending.span.union(shape.filter_span);
    let mut op = match &window {
        Some(window) => {
            let node = if shape.first_by_time {
                "stream-exec-window-deduplicate"
            } else {
                "stream-exec-window-rank"
            };
            let mut op = Operator::new(OperatorKind::WindowTopN, node, span);
            op.fact_spans.insert(RankWindow::window, pending.span);
            let from_aggregate = pending
                .partition
                .iter()
                .any(|(p, _)| p.canonical().starts_with("window_aggregate["));
            let inner_aggregates = if from_aggregate {
                b.operators
                    .iter()
                    .rev()
                    .find(|o| o.kind == OperatorKind::WindowAggregate)
                    .map(|o| o.read::<Aggregates>().unwrap_or_default().aggregates)
                    .unwrap_or_default()
            } else {
                Vec::new()
            };
            op.put(&RankWindow {
                window: window.clone(),
                inner_aggregates,
            });
            op
        }
        None => Operator::new(OperatorKind::TopN, "stream-exec-rank", span),
    };
    let partition: Vec<String> = pending
        .partition
        .iter()
        .filter(|(p, _)| window.is_none() || window_column(p).is_none())
        .map(|(p, _)| p.canonical())
        .collect();
    let order: Vec<String> = pending
        .order
        .iter()
        .map(|(o, descending, ..)| {
            format!(
                "{} {}",
                o.canonical(),
                if *descending { "DESC" } else { "ASC" }
            )
        })
        .collect();
    // The window bounds of a window Top-N are its `window` fact, wherever they are written.
    let not_window = |c: &&String| {
        window.is_none()
            || !pending
                .partition
                .iter()
                .any(|(p, _)| window_column(p).is_some() && p.canonical() == **c)
    };
    let input_schema: Vec<String> = shape.schema.iter().filter(not_window).cloned().collect();
    let keys: Vec<String> = pending
        .partition
        .iter()
        .map(|(p, _)| p.canonical())
        .chain(pending.order.iter().map(|(o, ..)| o.canonical()))
        .filter(|k| not_window(&k))
        .collect();
    op.put(&Ranking {
        function: pending.function.clone(),
        partition_keys: partition,
        order,
        rank_start: shape.start,
        rank_end: shape.end,
        value_fields: shape.values.to_vec(),
        input_schema,
        key_fields: keys,
    });
    op.fact_spans.insert(Ranking::function, pending.span);
    for fact in [Ranking::rank_start, Ranking::rank_end] {
        op.fact_spans.insert(fact, shape.filter_span);
    }
    op
}

/// What the enclosing query selects: the rank number, the window bounds, the other fields.
pub fn set_outputs(op: &mut Operator, pending: &PendingRank, output: &Relation, qualify: bool) {
    let rank = pending.placeholder();
    let windowed = op.kind == OperatorKind::WindowTopN;
    let mut outputs = Vec::new();
    let mut window_outputs = Vec::new();
    for column in &output.columns {
        // The rank number is its own fact; a constant is computed after the rank (Flink's
        // Calc above it), so neither is a field of the rows the rank keeps.
        if column.expr == rank || column.expr.is_row_free() {
            continue;
        }
        match window_column(&column.expr) {
            Some((name, _)) if windowed => window_outputs.push(name.to_string()),
            _ => {
                let value = pending.output_value(&column.expr);
                let canonical = value.canonical();
                op.display
                    .entry(canonical.clone())
                    .or_insert_with(|| value.display(qualify));
                outputs.push(canonical);
            }
        }
    }
    op.put(&RankOutputs {
        rank_output: output.columns.iter().any(|c| c.expr == rank),
        outputs,
    });
    if windowed {
        op.put(&WindowOutputs { window_outputs });
    }
}
