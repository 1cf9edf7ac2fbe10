//! Window table-valued functions in FROM.

use super::builder::Builder;
use super::dialect_names::*;
use super::expr::CExpr;
use super::interval::interval_value;
use super::scope::{Column, Relation, WindowTvf};
use crate::catalog::TimeKind;
use crate::error::{Error, Result};
use crate::source::ByteSpan;
use sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr, FunctionArguments};

/// `TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), size))` and its HOP, CUMULATE and SESSION siblings.
pub fn table_function(b: &mut Builder, expr: &Expr, span: ByteSpan) -> Result<Relation> {
    let Expr::Function(function) = expr else {
        return Err(Error::sql(
            b.file,
            span,
            "TABLE(...) must call a table function",
        ));
    };
    let kind = function.name.to_string().to_uppercase();
    if !matches!(kind.as_str(), "TUMBLE" | "HOP" | "CUMULATE" | "SESSION") {
        return Err(Error::unmodelled(
            b.file,
            span,
            format!("the table function {kind}"),
        ));
    }
    let FunctionArguments::List(list) = &function.args else {
        return Err(Error::sql(b.file, span, format!("{kind} needs arguments")));
    };
    let mut positional: Vec<&Expr> = Vec::new();
    let mut named: Vec<(String, &Expr)> = Vec::new();
    for arg in &list.args {
        match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => positional.push(e),
            FunctionArg::Named {
                name,
                arg: FunctionArgExpr::Expr(e),
                ..
            } => named.push((name.value.to_uppercase(), e)),
            _ => {
                return Err(Error::unmodelled(
                    b.file,
                    span,
                    format!("this argument form of {kind}"),
                ))
            }
        }
    }
    let order: &[&str] = match kind.as_str() {
        "TUMBLE" => &["DATA", "TIMECOL", "SIZE", "OFFSET"],
        "HOP" => &["DATA", "TIMECOL", "SLIDE", "SIZE", "OFFSET"],
        "CUMULATE" => &["DATA", "TIMECOL", "STEP", "SIZE", "OFFSET"],
        _ => &["DATA", "TIMECOL", "GAP"],
    };
    let mut args: Vec<(String, &Expr)> = positional
        .iter()
        .zip(order)
        .map(|(e, n)| (n.to_string(), *e))
        .collect();
    args.extend(named);
    let get = |n: &str| args.iter().find(|(k, _)| k == n).map(|(_, e)| *e);
    let Some(data) = get("DATA") else {
        return Err(Error::sql(
            b.file,
            span,
            format!("{kind} needs `TABLE t` as its first argument"),
        ));
    };
    // `TUMBLE((SELECT ... FROM t WHERE ...), DESCRIPTOR(ts), ...)`: Flink accepts a query as the
    // window's input (plan oracle: its filter is planned beneath the window aggregate).
    let subquery = match data {
        Expr::Subquery(q) => Some(q),
        Expr::Nested(inner) => match inner.as_ref() {
            Expr::Subquery(q) => Some(q),
            _ => None,
        },
        _ => None,
    };
    let (table, input, partition_exprs) = match subquery {
        Some(query) => (String::new(), b.query(query)?, Vec::new()),
        None => {
            let (table_parts, partition_exprs) = table_argument(data).ok_or_else(|| {
                Error::sql(
                    b.file,
                    span,
                    format!("{kind} needs `TABLE t` or a query as its first argument"),
                )
            })?;
            let table = table_parts.last().cloned().unwrap_or_default();
            let input = b.named_relation(&table_parts, span)?.requalify(&table);
            (table, input, partition_exprs)
        }
    };
    let descriptor_call = get("TIMECOL").filter(
        |e| matches!(e, Expr::Function(f) if f.name.to_string().eq_ignore_ascii_case("DESCRIPTOR")),
    );
    let Some(Expr::Function(descriptor)) = descriptor_call else {
        return Err(Error::sql(
            b.file,
            span,
            format!("{kind} needs DESCRIPTOR(time column) as its second argument"),
        ));
    };
    // DESCRIPTOR names a column of the input as written (it may be the window_time of a
    // window aggregate beneath: cascading windows).
    let time_name = match &descriptor.args {
        FunctionArguments::List(list) => match list.args.first() {
            Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Identifier(i)))) => {
                i.value.clone()
            }
            Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::CompoundIdentifier(p)))) => {
                p.last().map(|i| i.value.clone()).unwrap_or_default()
            }
            // `$rowtime` unquoted is read as a placeholder: its text is the name.
            Some(other) => other.to_string(),
            None => String::new(),
        },
        _ => String::new(),
    };
    let time_column = input
        .resolve(None, &time_name)
        .into_column()
        .ok_or_else(|| {
            Error::sql(
                b.file,
                b.span(descriptor),
                format!("unknown time column `{time_name}`"),
            )
        })?;
    // The window reads its time column: a changed definition of it (a computed rowtime) is a
    // changed column read by the query.
    b.reads.record(&time_column);
    let time_kind = time_column.time.or_else(|| {
        b.notes.assume(
            format!("`{time_name}` of `{table}` is taken as an event-time (rowtime) attribute"),
            Some(b.span(descriptor)),
        );
        Some(TimeKind::Rowtime)
    });
    let mut params = Vec::new();
    for name in order.iter().skip(2) {
        if let Some(Expr::Interval(interval)) = get(name) {
            let (millis, _) = interval_value(interval).map_err(|m| Error::sql(b.file, span, m))?;
            // An offset of zero is no offset: the same windows (red team round 22).
            if name.eq_ignore_ascii_case("offset") && millis == 0 {
                continue;
            }
            params.push((name.to_lowercase(), millis));
        }
    }
    let mut partition = Vec::new();
    for key in &partition_exprs {
        partition.push(b.converter().window_key(&input, key)?);
    }
    let window = WindowTvf {
        kind: kind.to_lowercase(),
        time: time_column.expr.clone(),
        time_kind,
        params,
        partition,
        span,
        correlated: false,
        inherited: false,
    };
    if window.kind == "session" {
        let partition: Vec<String> = window.partition.iter().map(CExpr::canonical).collect();
        b.session_windows.push(SessionWindow {
            window: window.describe(),
            span,
            heading: format!(
                "{} PARTITION BY [{}]",
                window.describe(),
                partition.join(", ")
            ),
            columns: input.columns.iter().map(|c| c.expr.clone()).collect(),
            rows: input.rows_lineage(),
        });
    }
    let mut relation = input;
    // HOP and CUMULATE give a row per window it falls in.
    relation.unique_key = None;
    relation.removal_key = None;
    let describe = window.describe();
    for (name, time) in [
        (WINDOW_START, None),
        (WINDOW_END, None),
        (WINDOW_TIME, time_kind),
    ] {
        relation.columns.push(Column {
            name: name.to_string(),
            qualifier: (!table.is_empty()).then(|| table.clone()),
            expr: CExpr::Derived(format!("{}({describe})", name.to_uppercase())),
            time,
            span,
        });
    }
    relation.window = Some(window);
    Ok(relation)
}

fn table_argument(expr: &Expr) -> Option<(Vec<String>, Vec<Expr>)> {
    let Expr::Function(f) = expr else { return None };
    if f.name.to_string() != crate::sql::dialect::TABLE_ARGUMENT {
        return None;
    }
    let FunctionArguments::List(list) = &f.args else {
        return None;
    };
    let partition = list.args[1..]
        .iter()
        .filter_map(|arg| match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e.clone()),
            _ => None,
        })
        .collect();
    match list.args.first() {
        Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::CompoundIdentifier(parts)))) => {
            Some((parts.iter().map(|p| p.value.clone()).collect(), partition))
        }
        _ => None,
    }
}

/// The filters of `relation` as the input of an operator that does not aggregate, rank or join
/// per window: a window TVF beneath it assigns each row to its windows (HOP and CUMULATE to
/// several, each a row of their own), so the window is part of which rows that operator gets,
/// whichever columns it reads (`expanded-by[HOP(...)]`, as a correlate is).
pub fn with_expansion(relation: &Relation) -> Vec<CExpr> {
    let mut filters = relation.filters.clone();
    if let Some(window) = &relation.window {
        filters.push(expansion(&window.describe()));
    }
    filters
}

/// The filter term a window TVF described as `window` is beneath an operator that does not
/// consume its windows.
pub fn expansion(window: &str) -> CExpr {
    CExpr::Derived(format!("expanded-by[{window}]"))
}

/// A SESSION window table function of the query: unless a window aggregate computes its
/// sessions (and Flink merges the two), Flink runs it as an operator of its own that keeps each
/// session's rows until the session closes (UnalignedWindowTableFunctionOperator; red team
/// round 18, FS7). TUMBLE, HOP and CUMULATE assign windows row by row, without state.
pub struct SessionWindow {
    /// The window, as [`WindowTvf::describe`] names it.
    pub window: String,
    pub span: ByteSpan,
    /// The window and its partition keys.
    pub heading: String,
    /// The columns of its input, and which rows they are.
    pub columns: Vec<CExpr>,
    pub rows: String,
}

/// Records each SESSION window table function no window aggregate consumed as an operator
/// compared by its whole lineage: the rows it keeps hold the input columns the query uses
/// (Flink prunes the others), once the query is planned.
pub fn record_session_windows(b: &mut Builder) {
    for session in std::mem::take(&mut b.session_windows) {
        let used = |c: &CExpr| {
            let mut read = Vec::new();
            c.source_columns(&mut read);
            read.iter().all(|(instance, column)| {
                let table = super::scope::base_table(instance).to_string();
                b.reads.columns.contains(&(table, column.clone()))
            })
        };
        let kept: Vec<String> = session
            .columns
            .iter()
            .filter(|c| used(c))
            .map(CExpr::canonical)
            .collect();
        b.opaque(
            "window_table_function",
            "stream-exec-window-table-function",
            session.span,
            format!("{} over ([{}]{})", session.heading, kept.join(", "), session.rows),
            "a SESSION window table function that no window aggregate consumes keeps each session's rows until it closes: compared by its whole lineage",
        );
    }
}

/// Tells that a window aggregate computes the sessions of `window` itself.
pub fn session_consumed(b: &mut Builder, window: &WindowTvf) {
    let described = window.describe();
    b.session_windows.retain(|s| s.window != described);
}
