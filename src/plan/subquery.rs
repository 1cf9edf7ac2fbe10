//! Subqueries inside expressions (`x IN (SELECT ...)`, `EXISTS (...)`, `NOT IN`, `NOT EXISTS`,
//! scalar subqueries): Flink plans each as a semi, anti or single-row join, which keeps state.
//! The subquery is planned like any query (its views, filters and stateful operators are
//! inlined and recorded, correlated columns resolve to the enclosing query's), and the join is
//! an opaque operator compared by its whole lineage: the enclosing rows and the subquery's.

use super::builder::{projection_exprs, Builder};
use super::decorrelate;
use super::scope::Relation;
use crate::error::Result;
use crate::source::ByteSpan;
use sqlparser::ast::{Expr, GroupByExpr, InTarget, Query, Select, Visit, Visitor};
use std::ops::ControlFlow;

/// A subquery found in an expression, waiting for the enclosing SELECT's WHERE.
pub struct FoundSubquery {
    /// `semi join`, `anti join`, `null-aware anti join`, `scalar subquery`, or an IN / EXISTS
    /// written as a value (`IN value join`, `NOT EXISTS value join`, ...).
    pub kind: &'static str,
    pub span: ByteSpan,
    pub lineage: String,
    /// The enclosing query's join keys (`x` of `x IN (...)`, the correlated columns of an
    /// EXISTS), canonical; empty when not known.
    pub keys: Vec<String>,
    /// Whether the subquery reads a window TVF (with a windowed enclosing query: a window join).
    pub windowed: bool,
}

/// The key under which a subquery's lineage is stored: where it is written.
pub fn key(span: ByteSpan) -> (usize, usize) {
    (span.start, span.end)
}

/// Plans the subqueries written directly in `values` (SELECT items) and `predicates` (WHERE,
/// HAVING) — not those nested inside them: each subquery plans its own —, with `outer` as the
/// scope of correlated columns.
pub fn plan_all<'e>(
    b: &mut Builder,
    values: impl IntoIterator<Item = &'e Expr>,
    predicates: impl IntoIterator<Item = &'e Expr>,
    outer: &Relation,
) -> Result<Vec<FoundSubquery>> {
    let predicates: Vec<&Expr> = predicates.into_iter().collect();
    let mut conjuncts = Vec::new();
    for predicate in &predicates {
        conjunct_terms(predicate, &mut conjuncts);
    }
    let mut finder = Finder {
        depth: 0,
        found: Vec::new(),
        conjuncts,
    };
    for expr in values.into_iter().chain(predicates) {
        let _ = expr.visit(&mut finder);
    }
    let mut out = Vec::new();
    for (kind, query, in_keys) in finder.found {
        // Where the subquery is written, before any rewrite: the key the WHERE finds it by.
        let span = b.span(&query);
        let (query, outer_keys) = match (in_keys, kind) {
            // Correlated besides its key, IN is decorrelated as EXISTS is (a semi or anti join
            // of a WHERE; NOT IN stays null-aware, another join).
            (Some(keys), "semi join") => {
                match decorrelate::correlated_in(&query, outer, &keys[0]) {
                    Some(form) => (form.query, form.outer_keys),
                    None => (query, keys),
                }
            }
            (Some(keys), _) => (query, keys),
            (None, "semi join" | "anti join") => match decorrelate::exists_as_in(&query, outer) {
                Some(form) => (form.query, form.outer_keys),
                None => (query, Vec::new()),
            },
            (None, _) => (query, Vec::new()),
        };
        let mut keys = Vec::new();
        for key in &outer_keys {
            keys.push(b.converter().expr(outer, key)?.canonical());
        }
        b.outer.push(outer.clone());
        let relation = b.query(&query);
        b.outer.pop();
        let relation = b.finish_rank(relation?, span)?;
        // What the subquery outputs is read: the join's keys and stored rows (red team round
        // 29: a type change of the key an IN reads changes the semi join's input).
        for column in relation.columns.iter() {
            b.reads.record(column);
        }
        let lineage = relation.lineage();
        // A semi / anti join is read by the WHERE as the join it is (however it is written:
        // IN or EXISTS); a scalar subquery as the value it computes.
        let read_as = if kind == "scalar subquery" {
            lineage.clone()
        } else {
            format!("{kind} on [{}] with ({lineage})", keys.join(", "))
        };
        b.subqueries.insert(key(span), read_as);
        out.push(FoundSubquery {
            kind,
            span,
            lineage,
            keys,
            windowed: relation.window.is_some(),
        });
    }
    Ok(out)
}

/// Records each subquery's join as an operator compared by its whole lineage: the rows of the
/// enclosing query (with its WHERE) and the subquery's.
pub fn record_joins(b: &mut Builder, found: Vec<FoundSubquery>, outer: &Relation, select: &Select) {
    if found.is_empty() {
        return;
    }
    // The enclosing rows as the join keeps them: the columns the SELECT reads (Flink prunes
    // the others), with the filters beneath and its own WHERE.
    let (mut exprs, wildcard) = projection_exprs(select);
    exprs.extend(select.selection.iter());
    exprs.extend(select.having.iter());
    if let GroupByExpr::Expressions(keys, _) = &select.group_by {
        exprs.extend(keys.iter());
    }
    let referenced: Vec<String> = outer
        .referenced_columns(exprs, wildcard)
        .iter()
        .map(|c| c.expr.canonical())
        .collect();
    // In the order of the enclosing rows (a table's DDL, a view's SELECT list): the join stores
    // them in that order, pruned (plan lab: the semi / anti join's row type after a DDL column
    // reorder, and beneath a view listing the columns in another order). What is not one of
    // its columns (a table without DDL) follows, sorted.
    let mut read: Vec<String> = Vec::new();
    for column in outer.columns.iter() {
        let canonical = column.expr.canonical();
        if referenced.contains(&canonical) && !read.contains(&canonical) {
            read.push(canonical);
        }
    }
    let mut rest: Vec<String> = referenced
        .into_iter()
        .filter(|c| !read.contains(c))
        .collect();
    rest.sort();
    rest.dedup();
    read.extend(rest);
    let rows = format!("[{}]{}", read.join(", "), outer.rows_lineage());
    for subquery in found {
        let description = format!(
            "{} on [{}] of ({rows}) with ({})",
            subquery.kind,
            subquery.keys.join(", "),
            subquery.lineage
        );
        // A semi / anti join of two windowed inputs is Flink's window join.
        let (kind, node) = if subquery.windowed && outer.window.is_some() {
            ("window_join", "stream-exec-window-join")
        } else {
            ("join", "stream-exec-join")
        };
        b.opaque(
            kind,
            node,
            subquery.span,
            description,
            "a semi/anti join (IN / EXISTS subquery) or a scalar subquery is not modelled in detail: compared by its whole lineage",
        );
    }
}

/// The terms of a predicate's AND (through parentheses and a NOT): where an IN or EXISTS is a
/// semi or anti join. Anywhere else (under OR, in a CASE, a SELECT item) Flink keeps SQL's
/// three-valued logic: EXISTS is a left join on the distinct keys, `x IN (...)` that and a join
/// with the subquery's counts (plan lab, red team round 18 FS6): not the same operators.
fn conjunct_terms(expr: &Expr, out: &mut Vec<*const Expr>) {
    match expr {
        Expr::BinaryOp {
            left,
            op: sqlparser::ast::BinaryOperator::And,
            right,
        } => {
            conjunct_terms(left, out);
            conjunct_terms(right, out);
        }
        Expr::Nested(inner)
        | Expr::UnaryOp {
            op: sqlparser::ast::UnaryOperator::Not,
            expr: inner,
        } => conjunct_terms(inner, out),
        other => out.push(other as *const Expr),
    }
}

struct Finder {
    depth: usize,
    /// Each subquery with its kind and, for `x IN (...)`, the enclosing query's key `x`.
    found: Vec<(&'static str, Query, Option<Vec<Expr>>)>,
    /// The terms of the WHERE's and HAVING's AND ([`conjunct_terms`]), by address.
    conjuncts: Vec<*const Expr>,
}

impl Visitor for Finder {
    type Break = ();

    fn pre_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
        self.depth += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        if self.depth > 0 {
            return ControlFlow::Continue(());
        }
        // NOT IN is null-aware (a NULL on either side matches nothing), planned with another
        // join condition than NOT EXISTS: not the same anti join.
        let conjunct = self.conjuncts.contains(&(expr as *const Expr));
        let found = match expr {
            Expr::In {
                target: InTarget::Subquery(query),
                negated,
                expr: key,
                ..
            } => Some((
                match (conjunct, *negated) {
                    (true, true) => "null-aware anti join",
                    (true, false) => "semi join",
                    (false, true) => "NOT IN value join",
                    (false, false) => "IN value join",
                },
                query,
                Some(vec![key.as_ref().clone()]),
            )),
            Expr::Exists { subquery, negated } => Some((
                match (conjunct, *negated) {
                    (true, true) => "anti join",
                    (true, false) => "semi join",
                    (false, true) => "NOT EXISTS value join",
                    (false, false) => "EXISTS value join",
                },
                subquery,
                None,
            )),
            Expr::Subquery(query) => Some(("scalar subquery", query, None)),
            _ => None,
        };
        if let Some((kind, query, keys)) = found {
            self.found.push((kind, query.as_ref().clone(), keys));
        }
        ControlFlow::Continue(())
    }
}
