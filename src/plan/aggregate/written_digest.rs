//! What Flink's digest of an aggregate's sub-plan holds beyond the aggregate's facts, for
//! deciding which INSERTs of a job compute the aggregate once (`diff::shared_operators`):
//! Flink reuses a sub-plan only under the same digest, which keeps the filter terms, the
//! operands and the field names as written (red team rounds 24 and 27, plan lab job compiles).

use super::super::builder::Builder;
use super::super::expr::CExpr;
use super::super::scope::Relation;
use sqlparser::ast::{
    visit_expressions, visit_expressions_mut, Expr, GroupByExpr, Ident, InTarget, ObjectName,
    Select,
};
use std::collections::HashSet;
use std::ops::ControlFlow;

/// The written digest of the aggregate `select` plans over `input`: its filter terms as
/// written, then `input:` the names of the input fields its calls and keys read (a
/// subquery's `amount AS a` is another field than `amount` to Flink's digest). Its calls and
/// keys as written are in its field names ([`written_expr`]).
pub fn written_digest(b: &mut Builder, select: &Select, input: &Relation) -> Vec<String> {
    let mut digest = written_filters(b, select, input);
    let mut read: Vec<String> = Vec::new();
    let mut note = |e: &Expr| {
        let _ = visit_expressions(e, |e| {
            if let Expr::Identifier(_) | Expr::CompoundIdentifier(_) = e {
                let text = e.to_string();
                let field = text.rsplit('.').next().unwrap_or(&text).to_string();
                if !read.contains(&field) {
                    read.push(field);
                }
            }
            ControlFlow::<()>::Continue(())
        });
    };
    // What flows into the aggregate; a field only its WHERE reads does not (plan lab: `status
    // AS st` filtered on shares the aggregate).
    for item in &select.projection {
        if let Some(expr) = crate::sql::item_expr(item) {
            note(expr);
        }
    }
    if let GroupByExpr::Expressions(exprs, _) = &select.group_by {
        exprs.iter().for_each(&mut note);
    }
    read.sort();
    digest.push(format!("input:{}", read.join(", ")));
    digest
}

/// `expr` over `input` as written, its columns canonical and its function names uppercase:
/// `SUM(o.amount + 0)` is `SUM(orders.amount + 0)`, not `SUM(orders.amount)` as its facts say.
pub fn written_expr(b: &mut Builder, input: &Relation, expr: &Expr) -> String {
    let mut conv = b.converter();
    let mut names: Vec<(String, String)> = Vec::new();
    let _ = visit_expressions(expr, |e| {
        if let Expr::Identifier(_) | Expr::CompoundIdentifier(_) = e {
            if let Ok(value) = conv.expr(input, e) {
                names.push((e.to_string(), value.canonical()));
            }
        }
        ControlFlow::<()>::Continue(())
    });
    let mut rendered = expr.clone();
    let _ = visit_expressions_mut(&mut rendered, |e| {
        match e {
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) => {
                let text = e.to_string();
                if let Some((_, canonical)) = names.iter().find(|(w, _)| *w == text) {
                    *e = Expr::Identifier(Ident::new(canonical.clone()));
                }
            }
            Expr::Function(f) => {
                f.name = ObjectName::from(vec![Ident::new(f.name.to_string().to_uppercase())]);
            }
            _ => {}
        }
        ControlFlow::<()>::Continue(())
    });
    // Parentheses are no part of the digest, and COUNT(1) is COUNT(*) (plan lab).
    let mut text = rendered.to_string();
    while let Some(at) = text.find("((") {
        let Some(close) = matching_close(&text, at + 1) else {
            break;
        };
        if text[close + 1..].starts_with(')') {
            text.replace_range(close..=close, "");
            text.replace_range(at + 1..at + 2, "");
        } else {
            break;
        }
    }
    text.replace("COUNT(1)", "COUNT(*)")
}

/// The index of the `)` closing the `(` at `open`.
fn matching_close(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The filter terms beneath an aggregate: those of the views and subqueries beneath
/// (canonical, sorted: the tool does not keep their order), then the aggregating SELECT's own
/// WHERE terms in the order written, each with its columns and literals in the order written.
/// Flink reuses a sub-plan only under the same digest: `a AND b` against `b AND a` (red team
/// round 24), `amount > 10` against `10 < amount`, `a = b` against `b = a` and `x OR y`
/// against `y OR x` are two aggregates (plan lab probes); an IN list is a sorted search.
fn written_filters(b: &mut Builder, select: &Select, input: &Relation) -> Vec<String> {
    let mut beneath: Vec<String> = input.filters.iter().map(CExpr::canonical).collect();
    beneath.sort();
    let own = select
        .selection
        .as_ref()
        .map(crate::plan::rank::conjuncts)
        .unwrap_or_default();
    let mut conv = b.converter();
    let mut own_conditions = Vec::with_capacity(own.len());
    let mut written = Vec::with_capacity(own.len());
    for term in own {
        // The WHERE converted as a whole already; a term that does not convert on its own
        // leaves the terms as a set (sharing is then claimed by them).
        let (Ok(condition), Ok(value)) = (conv.condition(input, term), conv.expr(input, term))
        else {
            return beneath;
        };
        own_conditions.extend(condition.conjuncts().iter().map(CExpr::canonical));
        let mut text = value.canonical();
        for leaf in &leaves_in_written_order(term) {
            text.push_str(" | ");
            match conv.expr(input, leaf) {
                Ok(leaf) => leaf.write_canonical(&mut text),
                Err(_) => text.push_str(&leaf.to_string()),
            }
        }
        written.push(text);
    }
    beneath.retain(|f| !own_conditions.contains(f));
    beneath.extend(written);
    beneath
}

/// The columns and literals of `term` in the order written, but for the values of an IN list,
/// which Flink sorts into a search argument.
fn leaves_in_written_order(term: &Expr) -> Vec<Expr> {
    let mut in_list_values: HashSet<*const Expr> = HashSet::new();
    let mut leaves = Vec::new();
    let _ = visit_expressions(term, |e| {
        match e {
            Expr::In {
                target: InTarget::List(list),
                ..
            } => {
                for value in list {
                    let _ = visit_expressions(value, |v| {
                        in_list_values.insert(v as *const Expr);
                        ControlFlow::<()>::Continue(())
                    });
                }
            }
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) | Expr::Value(_)
                if !in_list_values.contains(&(e as *const Expr)) =>
            {
                leaves.push(e.clone());
            }
            _ => {}
        }
        ControlFlow::<()>::Continue(())
    });
    leaves
}
