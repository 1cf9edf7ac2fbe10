//! Legacy group window aggregates: `GROUP BY ..., TUMBLE(time, size)` (and HOP, SESSION).

use super::super::builder::Builder;
use super::super::functions::{window_property, GroupWindowKind};
use super::super::interval::interval_value;
use super::super::scope::{Column, Relation};
use super::super::Operator;
use super::Grouped;
use crate::catalog::TimeKind;
use crate::error::{Error, Result};
use crate::facts::aggregate::{GroupWindow as WindowFacts, GroupWindowAggregateFacts};
use crate::source::ByteSpan;
use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Select, Visit, Visitor,
};
use std::ops::ControlFlow;

/// The legacy group window of `GROUP BY ..., TUMBLE(time, size)`.
pub struct GroupWindow {
    pub kind: GroupWindowKind,
    pub time: Column,
    pub params: Vec<(&'static str, i128)>,
    pub span: ByteSpan,
    pub position: usize,
}

/// The facts of a group window aggregate.
pub fn put_facts(
    b: &Builder,
    op: &mut Operator,
    window: &GroupWindow,
    properties: &[(String, ByteSpan)],
    grouped: Grouped,
) {
    let param = |name: &str| {
        window
            .params
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
    };
    let facts = GroupWindowAggregateFacts {
        window: WindowFacts {
            kind: window.kind.name().to_string(),
            size_ms: param("size"),
            slide_ms: param("slide"),
            gap_ms: param("gap"),
            time_attribute: window.time.expr.canonical(),
            time_kind: window.time.time.map(|t| t.name().to_string()),
        },
        keys: grouped.keys,
        window_key_position: window.position,
        window_properties: properties.iter().map(|(p, _)| p.clone()).collect(),
        emit: super::emit_facts(b, op),
        aggregates: grouped.aggregates,
        filters: grouped.filters,
    };
    op.put(&facts);
    op.fact_spans
        .insert(GroupWindowAggregateFacts::window, window.span);
    op.fact_spans
        .insert(GroupWindowAggregateFacts::window_key_position, window.span);
    let props_span = properties
        .iter()
        .fold(ByteSpan::default(), |acc, (_, s)| acc.union(*s));
    op.fact_spans.insert(
        GroupWindowAggregateFacts::window_properties,
        if props_span.is_empty() {
            grouped.projection_span
        } else {
            props_span
        },
    );
}

/// The group window of a GROUP BY item `TUMBLE(time, size)` (HOP, SESSION).
pub fn group_window(
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
            .is_some_and(|(t, _)| b.table(super::super::scope::base_table(t)).is_some());
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
pub fn window_properties(
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
