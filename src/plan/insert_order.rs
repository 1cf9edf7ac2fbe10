//! `INSERT INTO sink (b, a) SELECT ...`: Flink rewrites the SELECT list into the sink's column
//! order before it plans the query (its `PreValidateReWriter`), so the aggregate calls of the
//! SELECT are planned in the sink's order, not in the order written (checked with Flink 2.3's
//! planner: `(k, b, a) SELECT k, COUNT(DISTINCT x), COUNT(DISTINCT y)` plans the distinct
//! aggregates swapped).

use crate::catalog::Table;
use crate::sql::statement::ColumnKind;
use sqlparser::ast::{Query, SelectItem, SetExpr};

/// The query with its SELECT list in the sink's column order, when it has a column list, a plain
/// SELECT of one item per listed column, and a declared sink holding every listed column; the
/// sink columns not listed (Flink fills them with NULL) hold no state and are left out.
pub fn in_sink_order(query: &Query, columns: &[String], sink: Option<&Table>) -> Option<Query> {
    let sink = sink.filter(|t| !t.open && !columns.is_empty())?;
    let SetExpr::Select(select) = query.body.as_ref() else {
        return None;
    };
    if select.projection.len() != columns.len()
        || select.projection.iter().any(|i| {
            !matches!(
                i,
                SelectItem::UnnamedExpr(_) | SelectItem::ExprWithAlias { .. }
            )
        })
    {
        return None;
    }
    let position = |name: &str| columns.iter().position(|c| c.eq_ignore_ascii_case(name));
    let order: Vec<usize> = sink
        .def
        .columns
        .iter()
        .filter(|c| !matches!(c.kind, ColumnKind::Computed { .. }))
        .filter_map(|c| position(&c.name))
        .collect();
    let mut sorted = order.clone();
    sorted.sort_unstable();
    sorted.dedup();
    if sorted.len() != columns.len() || order.iter().enumerate().all(|(i, &p)| i == p) {
        return None;
    }
    let mut reordered = select.as_ref().clone();
    reordered.projection = order
        .iter()
        .map(|&p| select.projection[p].clone())
        .collect();
    let mut query = query.clone();
    query.body = Box::new(SetExpr::Select(Box::new(reordered)));
    Some(query)
}
