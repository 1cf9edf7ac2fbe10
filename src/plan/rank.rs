//! `ROW_NUMBER() OVER (PARTITION BY ... ORDER BY ...) AS rk` filtered on `rk` by the enclosing
//! query: a deduplication when it keeps the first row by a time attribute, else a Top-N.

use super::builder::{referenced_columns, Builder};
use super::expr::CExpr;
use super::scope::{looks_like_time, Column, PendingRank, Relation};
use super::{Operator, OperatorKind};
use crate::catalog::TimeKind;
use crate::error::{Error, Result};
use crate::source::ByteSpan;
use serde_json::json;
use sqlparser::ast::{BinaryOperator, Expr, OrderByExpr, OrderBySort, Select, Value, WindowType};

/// The bounds a filter term puts on the rank column, `(lowest, highest)` kept, inclusive.
type Bounds = (Option<i64>, Option<i64>);

fn rank_bounds(expr: &Expr, column: &str) -> Option<Bounds> {
    let is_rank = |e: &Expr| match e {
        Expr::Identifier(i) => i.value == column,
        Expr::CompoundIdentifier(p) => p.last().is_some_and(|i| i.value == column),
        _ => false,
    };
    let number = |e: &Expr| match e {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n.parse::<i64>().ok(),
            _ => None,
        },
        _ => None,
    };
    if let Expr::Between {
        expr,
        negated: false,
        low,
        high,
    } = expr
    {
        return is_rank(expr).then_some((Some(number(low)?), Some(number(high)?)));
    }
    if let Expr::Nested(inner) = expr {
        return rank_bounds(inner, column);
    }
    let Expr::BinaryOp { left, op, right } = expr else {
        return None;
    };
    let (op, n) = if is_rank(left) {
        (op.clone(), number(right)?)
    } else if is_rank(right) {
        let flipped = match op {
            BinaryOperator::Lt => BinaryOperator::Gt,
            BinaryOperator::LtEq => BinaryOperator::GtEq,
            BinaryOperator::Gt => BinaryOperator::Lt,
            BinaryOperator::GtEq => BinaryOperator::LtEq,
            other => other.clone(),
        };
        (flipped, number(left)?)
    } else {
        return None;
    };
    match op {
        BinaryOperator::Eq => Some((Some(n), Some(n))),
        BinaryOperator::LtEq => Some((None, Some(n))),
        BinaryOperator::Lt => Some((None, Some(n - 1))),
        BinaryOperator::GtEq => Some((Some(n), None)),
        BinaryOperator::Gt => Some((Some(n + 1), None)),
        _ => None,
    }
}

fn conjuncts(expr: &Expr) -> Vec<&Expr> {
    match expr {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            let mut out = conjuncts(left);
            out.extend(conjuncts(right));
            out
        }
        Expr::Nested(inner) => conjuncts(inner),
        other => vec![other],
    }
}

/// Records a ranking function found in a SELECT list, for the enclosing query to decide on.
pub fn pending(
    b: &mut Builder,
    input: &Relation,
    function: &sqlparser::ast::Function,
    column: String,
    named: &[sqlparser::ast::NamedWindowDefinition],
) -> Result<PendingRank> {
    let span = b.span(function);
    let spec = match &function.over {
        Some(WindowType::WindowSpec(spec)) => spec.clone(),
        Some(WindowType::NamedWindow(name)) => super::over::named_spec(b, named, name, span)?,
        None => {
            return Err(Error::sql(
                b.file,
                span,
                "a ranking function needs OVER (...)",
            ))
        }
    };
    let mut partition = Vec::new();
    for expr in &spec.partition_by {
        partition.push((b.converter().expr(input, expr)?, b.span(expr)));
    }
    let mut order = Vec::new();
    for OrderByExpr { expr, options, .. } in &spec.order_by {
        let value = b.converter().expr(input, expr)?;
        let time = order_time(b, input, expr, &value);
        let descending = matches!(options.sort, Some(OrderBySort::Desc));
        order.push((value, descending, time, b.span(expr)));
    }
    Ok(PendingRank {
        column,
        function: function.name.to_string().to_uppercase(),
        partition,
        order,
        span,
        input: Vec::new(),
        input_open_tables: Vec::new(),
    })
}

/// The time attribute kind of an ORDER BY expression (inferred by name on bare tables).
pub fn order_time(
    b: &mut Builder,
    input: &Relation,
    expr: &Expr,
    value: &CExpr,
) -> Option<TimeKind> {
    let column = match expr {
        Expr::Identifier(i) => input.resolve(None, &i.value).into_column(),
        Expr::CompoundIdentifier(p) if p.len() >= 2 => input
            .resolve(Some(&p[p.len() - 2].value), &p[p.len() - 1].value)
            .into_column(),
        _ => None,
    };
    if let Some(time) = column.and_then(|c| c.time) {
        return Some(time);
    }
    let (table, name) = value.as_column()?;
    if let Some(declared) = b.catalog.tables.get(super::scope::base_table(table)) {
        return declared.time_kind(name);
    }
    if name.eq_ignore_ascii_case("proctime") {
        return Some(TimeKind::Proctime);
    }
    if !looks_like_time(name) {
        return None;
    }
    b.notes.assume(
        format!("`{name}` of `{table}` (no DDL) is taken as an event-time (rowtime) attribute"),
        Some(b.span(expr)),
    );
    Some(TimeKind::Rowtime)
}

/// The enclosing SELECT of a ranking subquery: its WHERE decides the operator.
pub fn build(
    b: &mut Builder,
    select: &Select,
    mut input: Relation,
    pending: PendingRank,
) -> Result<Relation> {
    let span = b.span(select);
    // The terms on the rank column together keep a range of ranks; Flink needs its end.
    let mut bounds: Bounds = (None, None);
    let mut bound_terms: Vec<&Expr> = Vec::new();
    let mut rest: Vec<&Expr> = Vec::new();
    if let Some(selection) = &select.selection {
        for term in conjuncts(selection) {
            match rank_bounds(term, &pending.column) {
                Some((low, high)) => {
                    bounds.0 = bounds.0.max(low);
                    bounds.1 = match (bounds.1, high) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        (a, b) => a.or(b),
                    };
                    bound_terms.push(term);
                }
                None => rest.push(term),
            }
        }
    }
    let range = match bounds {
        (low, Some(high)) => Some((
            (low.unwrap_or(1), high),
            bound_terms
                .iter()
                .fold(ByteSpan::default(), |acc, t| acc.union(b.span(*t))),
        )),
        _ => {
            rest.extend(bound_terms);
            None
        }
    };
    for term in &rest {
        let filter = b.converter().expr(&input, term)?;
        input.filters.extend(
            filter
                .conjuncts()
                .into_iter()
                .map(|c| CExpr::Literal(c.canonical())),
        );
    }
    let Some(((min, max), filter_span)) = range else {
        input.rank = Some(pending);
        return b.finish_rank(input, span);
    };
    let single_time_order = pending.order.len() == 1 && pending.order[0].2.is_some();
    let is_dedup = pending.function == "ROW_NUMBER" && min == 1 && max == 1 && single_time_order;

    // What flows into the operator: the columns the enclosing query uses, plus its keys.
    let (mut exprs, wildcard) = super::builder::projection_exprs(select);
    exprs.extend(rest.iter().copied());
    let inner = Relation {
        columns: pending
            .input
            .iter()
            .filter(|c| c.name != pending.column)
            .cloned()
            .collect(),
        open_tables: pending
            .input_open_tables
            .iter()
            .map(|t| (None, t.clone()))
            .collect(),
        ..Default::default()
    };
    let mut schema: Vec<String> = referenced_columns(&inner, exprs, wildcard)
        .iter()
        .map(|c| c.expr.canonical())
        .collect();
    let partition: Vec<String> = pending
        .partition
        .iter()
        .map(|(p, _)| p.canonical())
        .collect();
    let order_keys: Vec<String> = pending.order.iter().map(|(o, ..)| o.canonical()).collect();
    for key in partition.iter().chain(&order_keys) {
        if !schema.contains(key) {
            schema.push(key.clone());
        }
    }
    let values: Vec<String> = schema
        .iter()
        .filter(|c| !partition.contains(c) && !order_keys.contains(c))
        .cloned()
        .collect();
    let qualify = input.base_tables.len() > 1;

    let mut op = if is_dedup {
        let (key, descending, time, _) = &pending.order[0];
        let mode = match (time, descending) {
            (Some(TimeKind::Proctime), false) => "proctime_asc",
            (Some(TimeKind::Proctime), true) => "proctime_desc",
            _ => "rowtime",
        };
        // Partitioned by both bounds of a window TVF, Flink deduplicates per window.
        let node = match super::top_n::partition_window(pending.partition.iter().map(|(p, _)| p)) {
            Some(_) => "stream-exec-window-deduplicate",
            None => "stream-exec-deduplicate",
        };
        let mut op = Operator::new(
            OperatorKind::Deduplicate,
            node,
            pending.span.union(filter_span),
        );
        op.set("mode", json!(mode));
        op.set("order", json!({"key": key.canonical(), "direction": if *descending { "desc" } else { "asc" }, "time_kind": time.map(TimeKind::name)}));
        op.set("keep", json!(if *descending { "last" } else { "first" }));
        op.set("partition_keys", json!(partition));
        op.set("value_fields", json!(values));
        op.set("input_schema", json!(schema));
        op
    } else {
        let shape = super::top_n::Shape {
            pending: &pending,
            start: min,
            end: max,
            filter_span,
            values: &values,
            schema: &schema,
        };
        super::top_n::operator(b, &shape)
    };
    op.set_filters(&input.filters, select.selection.as_ref().map(|w| b.span(w)));
    let partition_span = pending
        .partition
        .iter()
        .fold(ByteSpan::default(), |acc, (_, s)| acc.union(*s));
    op.fact_spans.insert(
        "partition_keys".into(),
        if partition_span.is_empty() {
            pending.span
        } else {
            partition_span
        },
    );
    let order_span = pending
        .order
        .iter()
        .fold(ByteSpan::default(), |acc, o| acc.union(o.3));
    for fact in ["order", "mode", "keep"] {
        op.fact_spans.insert(fact.into(), order_span);
    }
    for (p, s) in &pending.partition {
        op.item_spans.insert(p.canonical(), *s);
        op.display.insert(p.canonical(), p.display(qualify));
    }
    for column in &pending.input {
        op.display
            .entry(column.expr.canonical())
            .or_insert_with(|| column.expr.display(qualify));
    }
    let output = b.project(select, &input)?;
    let projection_span = b.projection_span(select);
    if op.kind == OperatorKind::Deduplicate {
        let outputs: Vec<String> = output.columns.iter().map(|c| c.expr.canonical()).collect();
        op.set("outputs", json!(outputs));
    } else {
        super::top_n::set_outputs(&mut op, &pending, &output, qualify);
    }
    for fact in [
        "outputs",
        "rank_output",
        "window_outputs",
        "input_schema",
        "value_fields",
    ] {
        op.fact_spans.insert(fact.into(), projection_span);
    }
    op.fact_spans
        .insert("input_schema".into(), projection_span.union(pending.span));
    op.fact_spans
        .insert("value_fields".into(), projection_span.union(pending.span));
    b.operators.push(op);
    input.rank = None;
    Ok(input)
}

pub fn rank_column(function: &sqlparser::ast::Function) -> bool {
    matches!(
        function.name.to_string().to_uppercase().as_str(),
        "ROW_NUMBER" | "RANK" | "DENSE_RANK"
    )
}

pub fn placeholder_column(name: String, span: ByteSpan, function: &str) -> Column {
    Column {
        name,
        qualifier: None,
        expr: CExpr::Derived(format!("{function}()")),
        time: None,
        span,
    }
}
