//! The filter terms beneath an aggregate as Flink's sub-plan digest holds them, for deciding
//! which INSERTs of a job compute the aggregate once (`diff::shared_operators`).

use super::super::builder::Builder;
use super::super::expr::CExpr;
use super::super::scope::Relation;
use sqlparser::ast::{visit_expressions, Expr, InTarget, Select};
use std::collections::HashSet;
use std::ops::ControlFlow;

/// The filter terms beneath an aggregate: those of the views and subqueries beneath
/// (canonical, sorted: the tool does not keep their order), then the aggregating SELECT's own
/// WHERE terms in the order written, each with its columns and literals in the order written.
/// Flink reuses a sub-plan only under the same digest: `a AND b` against `b AND a` (red team
/// round 24), `amount > 10` against `10 < amount`, `a = b` against `b = a` and `x OR y`
/// against `y OR x` are two aggregates (plan lab probes); an IN list is a sorted search.
pub fn written_filters(b: &mut Builder, select: &Select, input: &Relation) -> Vec<String> {
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
