//! Aggregating queries: legacy group windows (`GROUP BY TUMBLE(...)`), window TVF aggregates,
//! non-windowed GROUP BY and SELECT DISTINCT.

use super::builder::{default_name, Builder};
use super::convert::{AggCall, FunctionOrigin};
use super::dialect_names::{WINDOW_END, WINDOW_START, WINDOW_TIME};
use super::expr::CExpr;
use super::functions::{is_builtin_aggregate, window_property, GroupWindowKind};
use super::grouping_sets;
use super::interval::interval_value;
use super::scope::{Column, Relation};
use super::{Operator, OperatorKind};
use crate::catalog::config::Origin;
use crate::catalog::TimeKind;
use crate::error::{Error, Result};
use crate::source::ByteSpan;
use crate::sql::Language;
use serde_json::{json, Value};
use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr, Select, SelectItem, Visit,
    Visitor,
};
use std::ops::ControlFlow;

/// Whether the SELECT list or HAVING calls a built-in aggregate (without OVER).
pub fn has_aggregates(select: &Select) -> bool {
    struct Finder(bool);
    impl Visitor for Finder {
        type Break = ();
        fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
            if let Expr::Function(f) = expr {
                if f.over.is_none() && is_builtin_aggregate(&f.name.to_string()) {
                    self.0 = true;
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        }
    }
    let mut finder = Finder(false);
    for item in &select.projection {
        let _ = item.visit(&mut finder);
    }
    if let Some(having) = &select.having {
        let _ = having.visit(&mut finder);
    }
    finder.0
}

/// The legacy group window of `GROUP BY ..., TUMBLE(time, size)`.
struct GroupWindow {
    kind: GroupWindowKind,
    time: Column,
    params: Vec<(&'static str, i128)>,
    span: ByteSpan,
    position: usize,
}

pub fn build(b: &mut Builder, select: &Select, input: Relation) -> Result<Relation> {
    let span = b.span(select);
    let group_exprs: Vec<&Expr> = match &select.group_by {
        GroupByExpr::Expressions(exprs, modifiers) => {
            if !modifiers.is_empty() {
                return Err(Error::sql(
                    b.file,
                    span,
                    "GROUP BY modifiers (WITH ROLLUP, ...) are not supported",
                ));
            }
            exprs.iter().collect()
        }
        GroupByExpr::All(_) => {
            return Err(Error::sql(
                b.file,
                span,
                "GROUP BY ALL is not supported by Flink",
            ))
        }
    };
    let mut window: Option<GroupWindow> = None;
    let mut keys: Vec<(CExpr, ByteSpan)> = Vec::new();
    let mut window_keys: Vec<(String, usize)> = Vec::new();
    for (position, expr) in group_exprs.iter().enumerate() {
        if let Expr::GroupingSets(_) | Expr::Rollup(_) | Expr::Cube(_) = expr {
            return opaque_select(
                b,
                select,
                &input,
                &group_exprs,
                "GROUPING SETS, ROLLUP and CUBE are not modelled in detail: compared by their whole lineage",
            );
        }
        if let Expr::Function(f) = expr {
            if let Some(kind) = GroupWindowKind::from_name(&f.name.to_string()) {
                if window.is_some() {
                    return Err(Error::sql(
                        b.file,
                        b.span(*expr),
                        "a GROUP BY may have only one group window",
                    ));
                }
                window = Some(group_window(b, &input, f, kind, position, b.span(*expr))?);
                continue;
            }
        }
        let key = b.converter().expr(&input, expr)?;
        if input.window.is_some() {
            if let Some(name) = [WINDOW_START, WINDOW_END, WINDOW_TIME]
                .into_iter()
                .find(|n| {
                    key.canonical()
                        .starts_with(&format!("{}(", n.to_uppercase()))
                })
            {
                window_keys.push((name.to_string(), position));
                continue;
            }
        }
        keys.push((key, b.span(*expr)));
    }
    let tvf = if window_keys.is_empty() {
        None
    } else {
        input.window.clone()
    };
    let (kind, node) = match (&window, &tvf) {
        (Some(_), _) => (
            OperatorKind::GroupWindowAggregate,
            "stream-exec-group-window-aggregate",
        ),
        (None, Some(_)) => (
            OperatorKind::WindowAggregate,
            "stream-exec-window-aggregate",
        ),
        (None, None) => (OperatorKind::GroupAggregate, "stream-exec-group-aggregate"),
    };
    let qualify = input.base_tables.len() > 1;
    let key_texts: Vec<String> = keys.iter().map(|(k, _)| k.canonical()).collect();
    let properties = window
        .as_ref()
        .map(|w| window_properties(b, select, w))
        .unwrap_or_default();

    let mut output = Relation {
        base_tables: input.base_tables.clone(),
        ..Default::default()
    };
    let mut conv = b.converter();
    conv.aggregates = Some(Vec::new());
    conv.group_keys = key_texts.clone();
    conv.qualify_display = qualify;
    let mut projection_span = ByteSpan::default();
    for (index, item) in select.projection.iter().enumerate() {
        let (expr, name) = match item {
            SelectItem::UnnamedExpr(e) => (e, default_name(e, index)),
            SelectItem::ExprWithAlias { expr, alias } => (expr, alias.value.clone()),
            other => {
                return Err(Error::sql(
                    conv.file,
                    conv.span(other),
                    "`*` cannot be selected in an aggregating query",
                ))
            }
        };
        let item_span = conv.span(expr);
        projection_span = projection_span.union(item_span);
        let value = conv.expr(&input, expr)?;
        let time = property_time(&value);
        output.columns.push(Column {
            name,
            qualifier: None,
            expr: value,
            time,
            span: item_span,
        });
    }
    if let Some(having) = &select.having {
        let filter = conv.expr(&input, having)?;
        output.filters.extend(filter.conjuncts());
    }
    let aggregates = conv.aggregates.take().unwrap_or_default();

    let mut op = Operator::new(kind, node, span);
    op.set("keys", json!(key_texts));
    let keys_span = keys
        .iter()
        .fold(ByteSpan::default(), |acc, (_, s)| acc.union(*s));
    op.fact_spans.insert("keys".into(), keys_span);
    for (key, key_span) in &keys {
        op.item_spans.insert(key.canonical(), *key_span);
        op.display.insert(key.canonical(), key.display(qualify));
    }
    set_aggregate_facts(&mut op, &aggregates, projection_span);
    op.set_filters(&input.filters, select.selection.as_ref().map(|w| b.span(w)));
    if let Some(w) = &window {
        let mut facts = serde_json::Map::new();
        facts.insert("kind".into(), json!(w.kind.name()));
        for (name, value) in &w.params {
            facts.insert(format!("{name}_ms"), json!(value));
        }
        for name in ["size_ms", "slide_ms", "gap_ms"] {
            facts.entry(name.to_string()).or_insert(Value::Null);
        }
        facts.insert("time_attribute".into(), json!(w.time.expr.canonical()));
        facts.insert("time_kind".into(), json!(w.time.time.map(TimeKind::name)));
        op.set("window", Value::Object(facts));
        op.set("window_key_position", json!(w.position));
        op.fact_spans.insert("window".into(), w.span);
        op.fact_spans.insert("window_key_position".into(), w.span);
        op.set(
            "window_properties",
            json!(properties
                .iter()
                .map(|(p, _)| p.clone())
                .collect::<Vec<_>>()),
        );
        let props_span = properties
            .iter()
            .fold(ByteSpan::default(), |acc, (_, s)| acc.union(*s));
        op.fact_spans.insert(
            "window_properties".into(),
            if props_span.is_empty() {
                projection_span
            } else {
                props_span
            },
        );
        set_emit_facts(b, &mut op);
    }
    if let Some(t) = &tvf {
        let mut facts = serde_json::Map::new();
        facts.insert("kind".into(), json!(t.kind));
        for name in ["size", "slide", "step", "gap", "offset"] {
            let value = t
                .params
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| json!(v))
                .unwrap_or(Value::Null);
            facts.insert(format!("{name}_ms"), value);
        }
        facts.insert("time_attribute".into(), json!(t.time.canonical()));
        facts.insert("time_kind".into(), json!(t.time_kind.map(TimeKind::name)));
        let partition: Vec<String> = t.partition.iter().map(CExpr::canonical).collect();
        facts.insert("partition".into(), json!(partition));
        op.set("window", Value::Object(facts));
        op.fact_spans.insert("window".into(), t.span);
        let mut names: Vec<String> = window_keys.iter().map(|(n, _)| n.clone()).collect();
        names.sort();
        op.set("window_keys", json!(names));
        op.set(
            "window_key_positions",
            json!(window_keys.iter().map(|(_, p)| p).collect::<Vec<_>>()),
        );
        op.set("steps_after_window", json!(input.window_steps));
        set_emit_facts(b, &mut op);
    }
    output.columns.iter_mut().for_each(|c| {
        if let CExpr::Derived(text) = &c.expr {
            c.expr = CExpr::Derived(format!("{}[{}]:{text}", kind.name(), key_texts.join(", ")));
        }
    });
    b.operators.push(op);
    Ok(output)
}

fn property_time(expr: &CExpr) -> Option<TimeKind> {
    match expr {
        CExpr::Call { name, .. } => match window_property(name) {
            Some((_, "rowtime")) => Some(TimeKind::Rowtime),
            Some((_, "proctime")) => Some(TimeKind::Proctime),
            _ => None,
        },
        _ => None,
    }
}

/// Facts every aggregating operator shares: its aggregates and where their functions come from.
pub fn set_aggregate_facts(op: &mut Operator, aggregates: &[AggCall], span: ByteSpan) {
    let texts = |f: &dyn Fn(&AggCall) -> bool| -> Vec<String> {
        aggregates
            .iter()
            .filter(|a| f(a))
            .map(|a| a.canonical.clone())
            .collect()
    };
    op.set("aggregates", json!(texts(&|_| true)));
    op.set("plain_aggregates", json!(texts(&|a| !a.distinct)));
    op.set("distinct_aggregates", json!(texts(&|a| a.distinct)));
    op.set(
        "python_udafs",
        json!(texts(
            &|a| a.origin == FunctionOrigin::Declared(Language::Python)
        )),
    );
    op.set(
        "undeclared_aggregates",
        json!(texts(&|a| a.origin == FunctionOrigin::Undeclared)),
    );
    op.set(
        "udafs",
        json!(texts(&|a| matches!(a.origin, FunctionOrigin::Declared(_)))),
    );
    for key in super::prune::AGGREGATE_LISTS {
        op.fact_spans.insert(key.into(), span);
    }
    for agg in aggregates {
        op.item_spans.insert(agg.canonical.clone(), agg.span);
        op.display
            .insert(agg.canonical.clone(), agg.display.clone());
        op.state_items.push(agg.canonical.clone());
    }
}

fn set_emit_facts(b: &Builder, op: &mut Operator) {
    let config = &b.catalog.config;
    let value = |key: &str| config.get(key).map(|v| json!(v)).unwrap_or(Value::Null);
    op.set(
        "emit",
        json!({
            "early_fire": config.is_true("table.exec.emit.early-fire.enabled"),
            "early_fire_delay": value("table.exec.emit.early-fire.delay"),
            "late_fire": config.is_true("table.exec.emit.late-fire.enabled"),
            "late_fire_delay": value("table.exec.emit.late-fire.delay"),
            "allow_lateness": value("table.exec.emit.allow-lateness"),
        }),
    );
    let keys = [
        "table.exec.emit.early-fire.enabled",
        "table.exec.emit.early-fire.delay",
        "table.exec.emit.late-fire.enabled",
        "table.exec.emit.late-fire.delay",
        "table.exec.emit.allow-lateness",
    ];
    let span = keys.iter().filter_map(|k| match config.origin(k) {
        Some(Origin::Script(span)) => Some(*span),
        _ => None,
    });
    let span = span.fold(ByteSpan::default(), ByteSpan::union);
    op.fact_spans.insert("emit".into(), span);
}

fn group_window(
    b: &mut Builder,
    input: &Relation,
    f: &sqlparser::ast::Function,
    kind: GroupWindowKind,
    position: usize,
    span: ByteSpan,
) -> Result<GroupWindow> {
    let FunctionArguments::List(list) = &f.args else {
        return Err(Error::sql(
            b.file,
            span,
            format!(
                "{} needs a time attribute and an interval",
                kind.name().to_uppercase()
            ),
        ));
    };
    let args: Vec<&Expr> = list
        .args
        .iter()
        .filter_map(|a| match a {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
            _ => None,
        })
        .collect();
    let expected = if kind == GroupWindowKind::Hop { 3 } else { 2 };
    if args.len() != expected {
        return Err(Error::sql(
            b.file,
            span,
            format!("{} takes {expected} arguments", kind.name().to_uppercase()),
        ));
    }
    let time_span = b.span(args[0]);
    let mut time = match args[0] {
        Expr::Identifier(i) => b
            .converter()
            .column(input, std::slice::from_ref(i), time_span)?,
        Expr::CompoundIdentifier(parts) => b.converter().column(input, parts, time_span)?,
        other => {
            return Err(Error::sql(
                b.file,
                b.span(other),
                "the window's first argument must be a time attribute column",
            ))
        }
    };
    if time.time.is_none() {
        let declared = time
            .expr
            .as_column()
            .is_some_and(|(t, _)| b.catalog.tables.contains_key(super::scope::base_table(t)));
        if declared {
            b.notes.warn(format!("`{}` is not a time attribute (no WATERMARK or PROCTIME()); Flink rejects this window", time.name), Some(b.span(args[0])));
        } else {
            b.notes.assume(
                format!(
                    "`{}` is taken as an event-time (rowtime) attribute",
                    time.name
                ),
                Some(b.span(args[0])),
            );
        }
        time.time = Some(TimeKind::Rowtime);
    }
    let mut params = Vec::new();
    let names: &[&'static str] = match kind {
        GroupWindowKind::Tumble => &["size"],
        GroupWindowKind::Hop => &["slide", "size"],
        GroupWindowKind::Session => &["gap"],
    };
    for (arg, name) in args[1..].iter().zip(names) {
        let Expr::Interval(interval) = arg else {
            return Err(Error::sql(
                b.file,
                b.span(*arg),
                "the window size must be an INTERVAL literal",
            ));
        };
        let (millis, months) =
            interval_value(interval).map_err(|m| Error::sql(b.file, b.span(*arg), m))?;
        if months != 0 {
            return Err(Error::sql(
                b.file,
                b.span(*arg),
                "group windows take day-time intervals, not months or years",
            ));
        }
        params.push((*name, millis));
    }
    Ok(GroupWindow {
        kind,
        time,
        params,
        span,
        position,
    })
}

/// The window properties the SELECT list uses (`TUMBLE_START` → `start`), with their spans;
/// a property written for another window than the GROUP BY's is a mistake Flink rejects.
fn window_properties(
    b: &mut Builder,
    select: &Select,
    window: &GroupWindow,
) -> Vec<(String, ByteSpan)> {
    struct Finder(Vec<sqlparser::ast::Function>);
    impl Visitor for Finder {
        type Break = ();
        fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
            if let Expr::Function(f) = expr {
                if window_property(&f.name.to_string()).is_some() {
                    self.0.push(f.clone());
                }
            }
            ControlFlow::Continue(())
        }
    }
    let mut finder = Finder(Vec::new());
    for item in &select.projection {
        let _ = item.visit(&mut finder);
    }
    let mut out: Vec<(String, ByteSpan)> = Vec::new();
    for f in finder.0 {
        let Some((kind, property)) = window_property(&f.name.to_string()) else {
            continue;
        };
        let span = b.span(&f);
        let time_arg = match &f.args {
            FunctionArguments::List(list) => list.args.first().map(|a| a.to_string()),
            _ => None,
        };
        let mismatch = kind != window.kind
            || time_arg.is_some_and(|t| t.trim_matches('`') != window.time.name);
        if mismatch {
            b.notes.warn(
                format!("`{}` does not match the GROUP BY window; Flink rejects this. Read as the {property} of the GROUP BY window", f),
                Some(span),
            );
        }
        if !out.iter().any(|(p, _)| p == property) {
            out.push((property.to_string(), span));
        }
    }
    out
}

/// SELECT DISTINCT: Flink plans a group aggregate keyed by every selected column.
pub fn select_distinct(b: &mut Builder, select: &Select, relation: Relation) -> Result<Relation> {
    let mut op = Operator::new(
        OperatorKind::GroupAggregate,
        "stream-exec-group-aggregate",
        b.span(select),
    );
    let keys: Vec<String> = relation
        .columns
        .iter()
        .map(|c| c.expr.canonical())
        .collect();
    op.set("keys", json!(keys));
    set_aggregate_facts(&mut op, &[], ByteSpan::default());
    op.set_filters(
        &relation.filters,
        select.selection.as_ref().map(|w| b.span(w)),
    );
    b.operators.push(op);
    Ok(relation)
}

/// A query the tool cannot describe in detail (GROUPING SETS, ROLLUP, CUBE): compared by its
/// whole lineage: its grouping, SELECT list and HAVING, canonical, over its input's lineage.
fn opaque_select(
    b: &mut Builder,
    select: &Select,
    input: &Relation,
    group_exprs: &[&Expr],
    reason: &str,
) -> Result<Relation> {
    let span = b.span(select);
    let mut conv = b.converter();
    let mut grouping = Vec::new();
    let mut keys = Vec::new();
    let mut elements = Vec::new();
    for expr in group_exprs {
        let (name, sets) = match expr {
            Expr::GroupingSets(sets) => ("GROUPING SETS", sets),
            Expr::Rollup(sets) => ("ROLLUP", sets),
            Expr::Cube(sets) => ("CUBE", sets),
            other => {
                let key = conv.expr(input, other)?.canonical();
                keys.push(key.clone());
                grouping.push(key.clone());
                elements.push(grouping_sets::Element::Key(key));
                continue;
            }
        };
        let mut texts = Vec::new();
        let mut listed = Vec::new();
        for set in sets {
            let mut items = Vec::new();
            for item in set {
                let key = conv.expr(input, item)?.canonical();
                keys.push(key.clone());
                items.push(key);
            }
            texts.push(format!("({})", items.join(", ")));
            listed.push(items);
        }
        grouping.push(format!("{name} ({})", texts.join(", ")));
        elements.push(match name {
            "ROLLUP" => grouping_sets::Element::Rollup(listed),
            "CUBE" => grouping_sets::Element::Cube(listed),
            _ => grouping_sets::Element::GroupingSets(listed),
        });
    }
    // The grouping sets Flink plans, however they are spelled.
    let grouping = grouping_sets::canonical(&elements).unwrap_or_else(|| grouping.join(", "));
    conv.aggregates = Some(Vec::new());
    conv.group_keys = keys;
    let mut output = Relation::default();
    let mut items = Vec::new();
    for (i, item) in select.projection.iter().enumerate() {
        let (expr, name) = match item {
            SelectItem::ExprWithAlias { expr, alias } => (expr, alias.value.clone()),
            SelectItem::UnnamedExpr(e) => (e, default_name(e, i)),
            other => {
                return Err(Error::sql(
                    conv.file,
                    conv.span(other),
                    "`*` cannot be selected in an aggregating query",
                ))
            }
        };
        let value = conv.expr(input, expr)?.canonical();
        output.columns.push(Column {
            name,
            qualifier: None,
            expr: CExpr::Derived(format!("{value} BY {grouping}")),
            time: None,
            span: conv.span(expr),
        });
        items.push(value);
    }
    let having = match &select.having {
        Some(h) => format!(" HAVING {}", conv.expr(input, h)?.canonical()),
        None => String::new(),
    };
    let description = format!(
        "GROUP BY {grouping} SELECT {}{having} over ({})",
        items.join(", "),
        input.rows_lineage().trim_start()
    );
    b.opaque(
        "group_aggregate",
        "stream-exec-group-aggregate",
        span,
        description,
        reason,
    );
    Ok(output)
}
