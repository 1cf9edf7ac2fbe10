//! Correlates: `CROSS JOIN UNNEST(arr) AS t(x)`, `, UNNEST(arr)`, `[LEFT] JOIN LATERAL
//! TABLE(udtf(args)) AS t(a, b) ON TRUE`. Flink plans them as a stateless Correlate: each row of
//! the left input is expanded by the function of its own columns, so the function's columns are
//! lineage over the left input's, and the left input's columns (time attributes too) flow on.

use super::builder::Builder;
use super::expr::CExpr;
use super::scope::{Column, Relation};
use crate::error::{Error, Result};
use crate::source::ByteSpan;
use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, JoinConstraint, JoinOperator,
    TableAlias, TableFactor,
};

/// The window table functions, which are FROM items of their own, not correlates.
const WINDOW_FUNCTIONS: [&str; 4] = ["TUMBLE", "HOP", "CUMULATE", "SESSION"];

/// Whether a FROM item expands each row of the input before it (UNNEST, LATERAL TABLE, a
/// table function other than a window TVF).
pub fn is_correlate(factor: &TableFactor) -> bool {
    match factor {
        TableFactor::UNNEST { .. } => true,
        TableFactor::Function { lateral, .. } => *lateral,
        TableFactor::TableFunction {
            expr: Expr::Function(f),
            ..
        } => !WINDOW_FUNCTIONS.contains(&f.name.to_string().to_uppercase().as_str()),
        _ => false,
    }
}

/// `left` expanded by the correlate `factor`, joined as `operator` says (CROSS, INNER or LEFT
/// with `ON TRUE`; another inner condition is a filter of the result).
pub fn correlate(
    b: &mut Builder,
    left: Relation,
    factor: &TableFactor,
    operator: Option<&JoinOperator>,
    span: ByteSpan,
) -> Result<Relation> {
    let (function, alias) = match factor {
        TableFactor::UNNEST {
            alias,
            array_exprs,
            with_offset,
            with_ordinality,
            ..
        } => {
            let mut args = Vec::new();
            for e in array_exprs {
                args.push(b.converter().expr(&left, e)?);
            }
            let name = if *with_ordinality || *with_offset {
                "UNNEST WITH ORDINALITY"
            } else {
                "UNNEST"
            };
            (CExpr::call(name, args), alias.as_ref())
        }
        TableFactor::Function { args, alias, .. } => {
            let call = match args.as_slice() {
                [FunctionArg::Unnamed(FunctionArgExpr::Expr(e))] => e,
                _ => {
                    return Err(Error::sql(
                        b.file,
                        span,
                        "LATERAL TABLE needs one table function call: LATERAL TABLE(f(...))",
                    ))
                }
            };
            (udtf_call(b, &left, call, span)?, alias.as_ref())
        }
        TableFactor::TableFunction { expr, alias } => {
            (udtf_call(b, &left, expr, span)?, alias.as_ref())
        }
        _ => return Err(Error::sql(b.file, span, "not a correlate")),
    };
    // A LEFT correlate pads the rows the function expands to nothing: its columns are another
    // computation (NULL there), and what reads them sees the change.
    let function = if operator.is_some_and(is_left) {
        CExpr::call("OUTER", vec![function])
    } else {
        function
    };
    let mut out = left;
    out.scan_only = false;
    out.unique_key = None;
    out.removal_key = None;
    if let Some(window) = &mut out.window {
        window.correlated = true;
    }
    // Each row of the input becomes as many rows as the function returns for it (none, one or
    // many; LEFT: at least one): to the operators after it that changes which rows they get,
    // whichever columns they read, as a filter does. `expanded-by[...]` is not a filter that
    // `ignore-filter` covers (rules/vvr/input_filter.yaml): it also multiplies rows.
    out.filters.push(CExpr::Derived(format!(
        "expanded-by[{}]",
        function.canonical()
    )));
    let qualifier = alias.map(|a| a.name.value.clone());
    let names = alias_columns(alias);
    if names.is_empty() {
        // The function's columns are named by its result type, unknown here: taken from use.
        out.open_tables.push((qualifier, function.canonical()));
    } else {
        for (i, name) in names.into_iter().enumerate() {
            out.columns.push(Column {
                name,
                qualifier: qualifier.clone(),
                expr: CExpr::call(
                    "FIELD",
                    vec![function.clone(), CExpr::Literal(i.to_string())],
                ),
                time: None,
                span,
            });
        }
    }
    if let Some(operator) = operator {
        condition(b, &mut out, operator, span)?;
    }
    Ok(out)
}

/// The call inside `TABLE(...)`: a table function of the left input's columns.
fn udtf_call(b: &mut Builder, left: &Relation, call: &Expr, span: ByteSpan) -> Result<CExpr> {
    let Expr::Function(function) = call else {
        return Err(Error::sql(
            b.file,
            span,
            "TABLE(...) must call a table function",
        ));
    };
    let name = function.name.to_string();
    let unmodelled = |b: &Builder| {
        Error::unmodelled(
            b.file,
            span,
            format!("the arguments of table function {name} (not columns of its input)"),
        )
    };
    if !matches!(
        function.args,
        FunctionArguments::List(_) | FunctionArguments::None
    ) {
        return Err(unmodelled(b));
    }
    // An argument that is no column of the left input (a table name, a DESCRIPTOR of a
    // table-valued function) is the function's own business: the query is compared whole.
    let (args, _) = b
        .converter()
        .function_args(left, function)
        .map_err(|_| unmodelled(b))?;
    Ok(CExpr::call(&name, args))
}

fn alias_columns(alias: Option<&TableAlias>) -> Vec<String> {
    alias
        .map(|a| a.columns.iter().map(|c| c.name.value.clone()).collect())
        .unwrap_or_default()
}

fn is_left(operator: &JoinOperator) -> bool {
    matches!(operator, JoinOperator::Left(_) | JoinOperator::LeftOuter(_))
}

/// `ON TRUE` joins every expanded row; LEFT keeps rows the function expands to nothing. An
/// inner join's other condition filters the result; a LEFT one is Flink's error.
fn condition(
    b: &mut Builder,
    out: &mut Relation,
    operator: &JoinOperator,
    span: ByteSpan,
) -> Result<()> {
    let (constraint, left) = match operator {
        JoinOperator::CrossJoin(c) => (c, false),
        JoinOperator::Join(c) | JoinOperator::Inner(c) => (c, false),
        JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => (c, true),
        _ => {
            return Err(Error::sql(
                b.file,
                span,
                "a table function or UNNEST can only be joined with CROSS, INNER or LEFT JOIN",
            ))
        }
    };
    let on = match constraint {
        JoinConstraint::On(on) => on,
        JoinConstraint::None | JoinConstraint::Natural => return Ok(()),
        JoinConstraint::Using(_) | JoinConstraint::UsingAlias(..) => {
            return Err(Error::sql(
                b.file,
                span,
                "a table function or UNNEST is joined ON TRUE, not USING",
            ))
        }
    };
    let is_true = matches!(on, Expr::Value(v) if v.value.to_string().eq_ignore_ascii_case("TRUE"));
    if is_true {
        return Ok(());
    }
    if left {
        return Err(Error::sql(
            b.file,
            b.span(on),
            "a LEFT JOIN of a table function or UNNEST must be ON TRUE (Flink rejects other conditions)",
        ));
    }
    let filter = b.converter().condition(out, on)?;
    out.filters.extend(
        filter
            .conjuncts()
            .into_iter()
            .map(|c| CExpr::Literal(c.canonical())),
    );
    Ok(())
}
