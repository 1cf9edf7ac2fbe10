//! `EXISTS (SELECT ... FROM s WHERE s.k = t.k AND ...)` as Flink decorrelates it: the same
//! semi (or anti) join as `t.k IN (SELECT s.k FROM s WHERE ...)`. The correlated equalities become
//! the join keys, the rest of the WHERE stays beneath the join's right input, and what the
//! subquery selects is not read. A subquery correlated in any other way is left as written.

use super::scope::Relation;
use sqlparser::ast::{
    BinaryOperator, Expr, Query, SelectItem, SetExpr, TableFactor, TableWithJoins, Visit, Visitor,
};
use std::ops::ControlFlow;

/// An EXISTS subquery in IN form: the enclosing query's key expressions and the subquery
/// selecting the matching keys, without the correlated equalities.
pub struct InForm {
    pub outer_keys: Vec<Expr>,
    pub query: Query,
}

/// The IN form of an EXISTS subquery whose only correlation is equalities between an
/// enclosing-query column and an expression of the subquery's own tables.
pub fn exists_as_in(query: &Query, outer: &Relation) -> Option<InForm> {
    if query.with.is_some()
        || query.order_by.is_some()
        || query.limit_clause.is_some()
        || query.fetch.is_some()
    {
        return None;
    }
    let SetExpr::Select(select) = query.body.as_ref() else {
        return None;
    };
    let no_group_by = match &select.group_by {
        sqlparser::ast::GroupByExpr::Expressions(keys, modifiers) => {
            keys.is_empty() && modifiers.is_empty()
        }
        sqlparser::ast::GroupByExpr::All(_) => false,
    };
    if !no_group_by || select.having.is_some() || select.qualify.is_some() {
        return None;
    }
    let inner = inner_names(&select.from)?;
    let is_outer = |q: &str| !inner.iter().any(|n| n == q) && outer.has_qualifier(q);
    let mut terms = Vec::new();
    if let Some(selection) = &select.selection {
        terms.extend(super::rank::conjuncts(selection));
    }
    let mut outer_keys = Vec::new();
    let mut inner_keys = Vec::new();
    let mut rest: Vec<Expr> = Vec::new();
    for term in terms {
        if let Expr::BinaryOp {
            left,
            op: BinaryOperator::Eq,
            right,
        } = term
        {
            let pair = if outer_column(left, &is_outer) && !reads_outer(right, &is_outer) {
                Some((left, right))
            } else if outer_column(right, &is_outer) && !reads_outer(left, &is_outer) {
                Some((right, left))
            } else {
                None
            };
            if let Some((o, i)) = pair {
                outer_keys.push(o.as_ref().clone());
                inner_keys.push(i.as_ref().clone());
                continue;
            }
        }
        if reads_outer(term, &is_outer) {
            return None;
        }
        rest.push(term.clone());
    }
    // What an EXISTS selects is not read, but a column it names must still exist: only a
    // subquery selecting constants or `*` is rewritten (the rewrite drops the SELECT list, and
    // with it the check that `SELECT v.no_such_column` is a mistake).
    if outer_keys.is_empty()
        || !select.projection.iter().all(|item| match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                matches!(e, Expr::Value(_))
            }
            SelectItem::Wildcard(_) => true,
            _ => false,
        })
    {
        return None;
    }
    let mut select = select.as_ref().clone();
    select.projection = inner_keys
        .into_iter()
        .map(SelectItem::UnnamedExpr)
        .collect();
    select.distinct = None;
    select.selection = rest.into_iter().reduce(|a, b| Expr::BinaryOp {
        left: Box::new(a),
        op: BinaryOperator::And,
        right: Box::new(b),
    });
    let mut query = query.clone();
    query.body = Box::new(SetExpr::Select(Box::new(select)));
    Some(InForm { outer_keys, query })
}

/// The names the subquery's FROM gives its tables (aliases, else the table's last name part);
/// None when it reads anything but tables and derived tables (then nothing is rewritten).
fn inner_names(from: &[TableWithJoins]) -> Option<Vec<String>> {
    let mut names = Vec::new();
    for table in from {
        for factor in
            std::iter::once(&table.relation).chain(table.joins.iter().map(|j| &j.relation))
        {
            match factor {
                TableFactor::Table { name, alias, .. } => {
                    if let Some(alias) = alias {
                        names.push(alias.name.value.clone());
                    } else {
                        names.extend(
                            name.0
                                .iter()
                                .filter_map(|p| p.as_ident())
                                .map(|i| i.value.clone()),
                        );
                    }
                }
                TableFactor::Derived {
                    alias: Some(alias), ..
                } => names.push(alias.name.value.clone()),
                _ => return None,
            }
        }
    }
    Some(names)
}

/// `q.c` where `q` names a table of the enclosing query and none of the subquery's.
fn outer_column(expr: &Expr, is_outer: &impl Fn(&str) -> bool) -> bool {
    matches!(expr, Expr::CompoundIdentifier(parts) if parts.len() == 2 && is_outer(&parts[0].value))
}

/// Whether the expression names a column of the enclosing query (qualified by its table).
fn reads_outer(expr: &Expr, is_outer: &impl Fn(&str) -> bool) -> bool {
    struct Finder<'f, F: Fn(&str) -> bool> {
        is_outer: &'f F,
    }
    impl<F: Fn(&str) -> bool> Visitor for Finder<'_, F> {
        type Break = ();
        fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
            match expr {
                Expr::CompoundIdentifier(parts)
                    if parts.len() >= 2 && (self.is_outer)(&parts[0].value) =>
                {
                    ControlFlow::Break(())
                }
                _ => ControlFlow::Continue(()),
            }
        }
    }
    expr.visit(&mut Finder { is_outer }).is_break()
}
