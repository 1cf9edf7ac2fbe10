//! A window function in an aggregating SELECT (`SELECT k, COUNT(*) AS c, ROW_NUMBER() OVER
//! (PARTITION BY k ORDER BY COUNT(*) DESC) AS rk FROM t GROUP BY k`) runs over the groups: SQL
//! evaluates it after the GROUP BY and HAVING. Calcite plans it so, as an OVER over the
//! aggregate's output, and Flink builds the same operators as for the query written with the
//! aggregate in a subquery (plan lab: cases/top_n/rank-over-inline-aggregate-*). That form is
//! written out once, after parsing, so that the planner sees one spelling: the aggregate in a
//! derived table projecting its keys and calls, and the window functions over it.
//!
//! The rewrite is left out (the SELECT stays as written, compared as a whole) where its meaning
//! is not plain: grouping sets, group windows, a WINDOW clause, a query ORDER BY, a subquery or
//! `*` in the SELECT list, or a column the groups do not carry.

use crate::sql::aggregate_names::{BUILTIN_AGGREGATES, VARIANCE_AGGREGATES};
use sqlparser::ast::{
    Expr, GroupByExpr, Ident, Query, Select, SelectItem, SetExpr, TableAlias, TableFactor,
    TableWithJoins, Values, Visit, VisitMut, Visitor, VisitorMut,
};
use std::ops::ControlFlow;

/// The alias of the derived table holding the groups.
const GROUPS: &str = "$groups";

/// Writes every aggregating SELECT of `query` that calls a window function as an OVER over a
/// derived table of its groups.
pub fn nest(query: &mut Query) {
    struct Queries;
    impl VisitorMut for Queries {
        type Break = ();
        fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
            if query.order_by.is_none() {
                let template = shell(query);
                nest_set(&mut query.body, &template);
            }
            ControlFlow::Continue(())
        }
    }
    let _ = query.visit(&mut Queries);
}

/// `query` without its WITH and its body, to hold a derived table's SELECT: copied without
/// them, so that a deeply nested query is not copied once per level.
fn shell(query: &mut Query) -> Query {
    let empty = SetExpr::Values(Values {
        explicit_row: false,
        value_keyword: false,
        rows: Vec::new(),
    });
    let body = std::mem::replace(&mut *query.body, empty);
    let with = query.with.take();
    let shell = query.clone();
    *query.body = body;
    query.with = with;
    shell
}

fn nest_set(body: &mut SetExpr, template: &Query) {
    match body {
        SetExpr::Select(select) => {
            if let Some(nested) = nested(select, template) {
                **select = nested;
            }
        }
        SetExpr::SetOperation { left, right, .. } => {
            nest_set(left, template);
            nest_set(right, template);
        }
        _ => {}
    }
}

fn is_aggregate_call(expr: &Expr) -> bool {
    match expr {
        Expr::Function(f) if f.over.is_none() => {
            let name = f.name.to_string().to_uppercase();
            BUILTIN_AGGREGATES.contains(&name.as_str())
                || VARIANCE_AGGREGATES.contains(&name.as_str())
        }
        _ => false,
    }
}

/// A legacy group window key (`TUMBLE(ts, INTERVAL ...)`): not a value the groups can project.
fn is_group_window(expr: &Expr) -> bool {
    matches!(expr, Expr::Function(f) if ["TUMBLE", "HOP", "SESSION"]
        .iter()
        .any(|w| f.name.to_string().eq_ignore_ascii_case(w)))
}

fn is_window_call(expr: &Expr) -> bool {
    matches!(expr, Expr::Function(f) if f.over.is_some())
}

/// Whether `exprs` hold an expression `found` accepts, outside subqueries.
fn holds<'e>(exprs: impl IntoIterator<Item = &'e Expr>, found: fn(&Expr) -> bool) -> bool {
    struct Finder(fn(&Expr) -> bool);
    impl Visitor for Finder {
        type Break = ();
        fn pre_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
            ControlFlow::Break(())
        }
        fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
            if (self.0)(expr) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        }
    }
    exprs
        .into_iter()
        .any(|e| e.visit(&mut Finder(found)).is_break())
}

fn has_subquery(expr: &Expr) -> bool {
    // `holds` stops at a subquery: finding one is all it needs to answer.
    holds([expr], |_| false)
}

/// The last part of a column reference.
fn column_name(expr: &Expr) -> Option<&Ident> {
    match expr {
        Expr::Identifier(ident) => Some(ident),
        Expr::CompoundIdentifier(parts) => parts.last(),
        _ => None,
    }
}

/// The table part of a qualified column reference (`t` of `t.k`).
fn qualifier(expr: &Expr) -> Option<&[Ident]> {
    match expr {
        Expr::CompoundIdentifier(parts) => parts.split_last().map(|(_, table)| table),
        _ => None,
    }
}

/// A grouping key or an aggregate call the derived table projects, with its column name there.
struct Projected {
    expr: Expr,
    name: Ident,
}

/// The aggregating SELECT `select` written as a SELECT of its window functions over a derived
/// table of its groups; none where the rewrite does not apply (see the module's comment).
fn nested(select: &Select, template: &Query) -> Option<Select> {
    let items: Vec<&Expr> = select
        .projection
        .iter()
        .filter_map(crate::sql::item_expr)
        .collect();
    if items.len() != select.projection.len()
        || !holds(items.iter().copied(), is_window_call)
        || items.iter().any(|e| has_subquery(e))
        || !select.named_window.is_empty()
        || select.qualify.is_some()
        || !select.sort_by.is_empty()
    {
        return None;
    }
    let keys = match &select.group_by {
        GroupByExpr::Expressions(keys, modifiers) if modifiers.is_empty() => keys.clone(),
        _ => return None,
    };
    let aggregating = !keys.is_empty()
        || select.having.is_some()
        || holds(items.iter().copied(), is_aggregate_call);
    if !aggregating
        || keys.iter().any(|k| {
            matches!(k, Expr::GroupingSets(_) | Expr::Rollup(_) | Expr::Cube(_))
                || is_group_window(k)
                || has_subquery(k)
        })
    {
        return None;
    }
    let mut projected: Vec<Projected> = Vec::new();
    let taken = |wanted: Option<&Ident>, projected: &[Projected]| -> Ident {
        let free = |name: &str| {
            !projected
                .iter()
                .any(|p| p.name.value.eq_ignore_ascii_case(name))
        };
        match wanted {
            Some(ident) if free(&ident.value) => ident.clone(),
            _ => Ident::with_quote('`', format!("$expr{}", projected.len())),
        }
    };
    // The aggregate calls and keys computed by an expression, named after the SELECT item
    // they are written as, if any.
    let alias_of = |e: &Expr| {
        select.projection.iter().find_map(|item| match item {
            SelectItem::ExprWithAlias { expr, alias } if expr == e => Some(alias),
            _ => None,
        })
    };
    for key in &keys {
        let name = taken(column_name(key).or_else(|| alias_of(key)), &projected);
        projected.push(Projected {
            expr: key.clone(),
            name,
        });
    }
    let mut calls: Vec<Expr> = Vec::new();
    collect_calls(&items, &mut calls);
    for call in calls {
        let name = taken(alias_of(&call), &projected);
        projected.push(Projected { expr: call, name });
    }
    let mut outer_items = Vec::with_capacity(select.projection.len());
    for item in &select.projection {
        let (expr, alias) = match item {
            SelectItem::UnnamedExpr(e) => (e, None),
            SelectItem::ExprWithAlias { expr, alias } => (expr, Some(alias.clone())),
            _ => return None,
        };
        let mut rewritten = expr.clone();
        if !over_groups(&mut rewritten, &projected) {
            return None;
        }
        // A column keeps its name: `k` read from the groups is `k`, whatever it is called there.
        let alias = alias.or_else(|| {
            column_name(expr)
                .filter(|name| column_name(&rewritten) != Some(*name))
                .cloned()
        });
        let same_name = |alias: &Ident| matches!(&rewritten, Expr::Identifier(name) if name.value == alias.value);
        outer_items.push(match alias {
            Some(alias) if !same_name(&alias) => SelectItem::ExprWithAlias {
                expr: rewritten,
                alias,
            },
            _ => SelectItem::UnnamedExpr(rewritten),
        });
    }
    let mut inner = select.clone();
    inner.distinct = None;
    inner.projection = projected
        .iter()
        .map(|p| SelectItem::ExprWithAlias {
            expr: p.expr.clone(),
            alias: p.name.clone(),
        })
        .collect();
    let mut groups = template.clone();
    groups.limit_clause = None;
    groups.fetch = None;
    groups.body = Box::new(SetExpr::Select(Box::new(inner)));
    let mut outer = select.clone();
    outer.projection = outer_items;
    outer.from = vec![TableWithJoins {
        relation: TableFactor::Derived {
            lateral: false,
            subquery: Box::new(groups),
            alias: Some(TableAlias {
                explicit: true,
                name: Ident::with_quote('`', GROUPS),
                columns: vec![],
                at: None,
            }),
            sample: None,
        },
        joins: vec![],
    }];
    outer.selection = None;
    outer.group_by = GroupByExpr::Expressions(vec![], vec![]);
    outer.having = None;
    outer.lateral_views = vec![];
    outer.prewhere = None;
    Some(outer)
}

/// The aggregate calls of `items`, each once. A window call's own function is not one of them
/// (`SUM(SUM(x)) OVER (...)` sums, over the window, the groups' `SUM(x)`).
fn collect_calls(items: &[&Expr], calls: &mut Vec<Expr>) {
    struct Calls<'c>(&'c mut Vec<Expr>);
    impl Visitor for Calls<'_> {
        type Break = ();
        fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
            if is_aggregate_call(expr) && !self.0.contains(expr) {
                self.0.push(expr.clone());
            }
            ControlFlow::Continue(())
        }
    }
    for item in items {
        let _ = item.visit(&mut Calls(calls));
    }
}

/// Rewrites `expr` to read the derived table of groups: a grouping key or an aggregate call is
/// its column there. False when a column the groups do not carry is left.
fn over_groups(expr: &mut Expr, projected: &[Projected]) -> bool {
    struct Rewrite<'p> {
        projected: &'p [Projected],
        ungrouped: bool,
    }
    impl VisitorMut for Rewrite<'_> {
        type Break = ();
        fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
            if let Some(p) = self.projected.iter().find(|p| p.expr == *expr) {
                *expr = Expr::Identifier(p.name.clone());
                return ControlFlow::Continue(());
            }
            if let Some(name) = column_name(expr) {
                // `t.k` where the key is written `k` (or the reverse): the same column, unless
                // two keys share the name or both name their table and the tables differ.
                let mut same = self.projected.iter().filter(|p| {
                    column_name(&p.expr).is_some_and(|k| k.value == name.value)
                        && match (qualifier(&p.expr), qualifier(expr)) {
                            (Some(a), Some(b)) => a == b,
                            _ => true,
                        }
                });
                match (same.next(), same.next()) {
                    (Some(p), None) => *expr = Expr::Identifier(p.name.clone()),
                    _ => self.ungrouped = true,
                }
            } else if is_aggregate_call(expr) {
                self.ungrouped = true;
            }
            ControlFlow::Continue(())
        }
    }
    let mut rewrite = Rewrite {
        projected,
        ungrouped: false,
    };
    let _ = expr.visit(&mut rewrite);
    !rewrite.ungrouped
}

#[cfg(test)]
mod tests {
    use crate::sql::dialect::FlinkDialect;
    use sqlparser::parser::Parser;

    fn nested(sql: &str) -> String {
        let mut query = Parser::new(&FlinkDialect)
            .try_with_sql(sql)
            .and_then(|mut p| p.parse_query())
            .expect("parses");
        super::nest(&mut query);
        query.to_string()
    }

    #[test]
    fn window_functions_run_over_the_groups() {
        assert_eq!(
            nested(
                "SELECT product, status, COUNT(*) AS c, ROW_NUMBER() OVER (PARTITION BY status \
                 ORDER BY COUNT(*) DESC) AS rk FROM orders WHERE qty > 0 GROUP BY product, status"
            ),
            "SELECT product, status, c, ROW_NUMBER() OVER (PARTITION BY status ORDER BY c DESC) \
             AS rk FROM (SELECT product AS product, status AS status, COUNT(*) AS c FROM orders \
             WHERE qty > 0 GROUP BY product, status) AS `$groups`"
        );
    }

    #[test]
    fn an_aggregate_inside_a_window_call_is_a_column_of_the_groups() {
        assert_eq!(
            nested("SELECT k, SUM(SUM(x)) OVER (ORDER BY k) FROM t GROUP BY t.k"),
            "SELECT k, SUM(`$expr1`) OVER (ORDER BY k) FROM (SELECT t.k AS k, SUM(x) AS \
             `$expr1` FROM t GROUP BY t.k) AS `$groups`"
        );
    }

    #[test]
    fn an_expression_key_is_a_column_of_the_groups() {
        assert_eq!(
            nested(
                "SELECT UPPER(p) AS k, COUNT(*) AS c, ROW_NUMBER() OVER (ORDER BY COUNT(*) DESC) \
                 AS rk FROM t GROUP BY UPPER(p)"
            ),
            "SELECT k, c, ROW_NUMBER() OVER (ORDER BY c DESC) AS rk FROM (SELECT UPPER(p) AS k, \
             COUNT(*) AS c FROM t GROUP BY UPPER(p)) AS `$groups`"
        );
    }

    #[test]
    fn what_is_not_plain_stays_as_written() {
        for sql in [
            // A column the groups do not carry: Flink rejects it; the planner says so.
            "SELECT k, v, ROW_NUMBER() OVER (ORDER BY k) FROM t GROUP BY k",
            // Another table's column of the same name is not the key.
            "SELECT a.k, ROW_NUMBER() OVER (ORDER BY b.k) FROM a, b GROUP BY a.k",
            "SELECT k, COUNT(*), ROW_NUMBER() OVER (ORDER BY k) FROM t GROUP BY ROLLUP (k)",
            "SELECT COUNT(*), ROW_NUMBER() OVER (ORDER BY COUNT(*)) FROM t \
             GROUP BY TUMBLE(ts, INTERVAL '1' MINUTE)",
            "SELECT k, COUNT(*) FROM t GROUP BY k",
            "SELECT k, ROW_NUMBER() OVER (ORDER BY k) FROM t",
            "SELECT k, (SELECT 1), ROW_NUMBER() OVER (ORDER BY k) FROM t GROUP BY k",
        ] {
            assert_eq!(nested(sql), sql);
        }
    }
}
