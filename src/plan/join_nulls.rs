//! Outer-join simplification, as Flink's optimizer (Calcite's `FilterJoinRule` with `Strong`)
//! does it: a WHERE term above an outer join that can never be true when every column of the
//! side padded with nulls is null drops the padded rows, so the join is planned as an inner
//! join (a FULL join rejecting one side's nulls as a LEFT or RIGHT join).
//!
//! What counts is what Flink 2.3 plans (checked with its planner): comparisons, LIKE, NOT,
//! arithmetic, CAST, IS NOT NULL and IS TRUE of such terms reject nulls; functions, CASE,
//! COALESCE, IS NULL, IS DISTINCT FROM do not; neither do ranges and lists on one column
//! (`BETWEEN`, `IN`, `NOT IN`, `x >= 1 AND x <= 5`, `x = 1 OR x = 2`), which the optimizer
//! turns into a search it does not look into.

use super::expr::CExpr;
use super::join_finish::canonical_terms;
use super::Operator;
use crate::facts::join::JoinBase;
use crate::facts::Filters;
use crate::source::ByteSpan;
use std::collections::{BTreeMap, BTreeSet};

/// A regular join already planned, which a WHERE of a query above it (through subqueries, CTEs
/// and views that only project and filter) still reaches: Flink pushes the WHERE down to it.
#[derive(Debug, Clone)]
pub struct PlannedJoin {
    /// Its operator, by position in the query's operators.
    pub operator: usize,
    /// The equalities of its condition between a column of each input, both ways round.
    pub equal_keys: Vec<(CExpr, CExpr)>,
    pub join_type: &'static str,
    /// The table instances and upstream values each input is made of.
    pub left: super::join::Side,
    pub right: super::join::Side,
}

impl PlannedJoin {
    fn reads_only(&self, expr: &CExpr, side: &super::join::Side) -> bool {
        let mut atoms = BTreeSet::new();
        super::join::collect_atoms(expr, &mut atoms);
        !atoms.is_empty() && atoms.iter().all(|a| side.contains_atom(a))
    }

    /// Applies the WHERE `terms` of a query above the join to its operator: the join type
    /// Flink plans, and the terms it pushes into an input.
    pub fn push_down(&mut self, op: &mut Operator, terms: &[CExpr], where_span: ByteSpan) {
        let left_rejected = !rejecting(terms, &|e| self.reads_only(e, &self.left)).is_empty();
        let right_rejected = !rejecting(terms, &|e| self.reads_only(e, &self.right)).is_empty();
        let simplified = simplified(self.join_type, left_rejected, right_rejected);
        if simplified != self.join_type {
            self.join_type = simplified;
            op.update(|facts: &mut JoinBase| facts.join_type = simplified.to_string());
            let span = op
                .fact_spans
                .get(&JoinBase::join_type)
                .copied()
                .unwrap_or_default();
            op.fact_spans
                .insert(JoinBase::join_type, span.union(where_span));
        }
        // A term reading one side the join preserves is pushed into that input.
        let mut pushed: Vec<CExpr> = terms
            .iter()
            .filter(|t| {
                let (left, right) = (
                    self.reads_only(t, &self.left),
                    self.reads_only(t, &self.right),
                );
                match self.join_type {
                    "INNER" => left || right,
                    "LEFT" => left,
                    "RIGHT" => right,
                    _ => false,
                }
            })
            .cloned()
            .collect();
        if pushed.is_empty() {
            return;
        }
        // An inner join's filter on a key column filters the other input's too (as in
        // `join_finish::transitive_filters`).
        if self.join_type == "INNER" {
            let written: Vec<&CExpr> = pushed.iter().collect();
            let inferred = super::join_finish::inferred_terms(&written, &self.equal_keys);
            pushed.extend(inferred);
        }
        op.update(|facts: &mut Filters| {
            facts.filters.extend(canonical_terms(&pushed));
            facts.filters.sort();
            facts.filters.dedup();
        });
        let span = op
            .fact_spans
            .get(&Filters::filters)
            .copied()
            .unwrap_or_default();
        op.fact_spans
            .insert(Filters::filters, span.union(where_span));
    }
}

/// Whether `expr` is null whenever the columns `padded` recognizes are null.
fn is_null(expr: &CExpr, padded: &dyn Fn(&CExpr) -> bool) -> bool {
    match expr {
        CExpr::Column { .. } | CExpr::AllColumns { .. } | CExpr::Derived(_) => padded(expr),
        CExpr::Literal(text) => text.eq_ignore_ascii_case("NULL"),
        CExpr::Interval { .. } | CExpr::Opaque { .. } => false,
        CExpr::Binary { op, left, right } => match op.as_str() {
            "AND" | "OR" => is_null(left, padded) && is_null(right, padded),
            "=" | "<>" | "<" | "<=" | ">" | ">=" | "+" | "-" | "*" | "/" | "LIKE" | "NOT LIKE" => {
                is_null(left, padded) || is_null(right, padded)
            }
            _ => false,
        },
        CExpr::Unary { op, operand } => {
            matches!(op.as_str(), "NOT" | "-") && is_null(operand, padded)
        }
        CExpr::Call { name, args } => match name.as_str() {
            "CAST" => args.first().is_some_and(|a| is_null(a, padded)),
            _ => false,
        },
    }
}

/// Whether a term is never true when the padded columns are null.
fn never_true(term: &CExpr, padded: &dyn Fn(&CExpr) -> bool) -> bool {
    match term {
        CExpr::Call { name, args } if name == "IS NOT NULL" || name == "IS TRUE" => {
            args.first().is_some_and(|a| is_null(a, padded))
        }
        CExpr::Unary { op, operand } if op == "NOT" => match operand.as_ref() {
            CExpr::Call { name, args } if name == "IS NULL" => {
                args.first().is_some_and(|a| is_null(a, padded))
            }
            _ => is_null(term, padded),
        },
        _ => is_null(term, padded),
    }
}

/// `x op literal`: the expression a range term bounds, canonical.
fn ranged(term: &CExpr) -> Option<String> {
    let CExpr::Binary { op, left, right } = term else {
        return None;
    };
    if !matches!(op.as_str(), "=" | "<>" | "<" | "<=" | ">" | ">=") {
        return None;
    }
    let constant = |e: &CExpr| matches!(e, CExpr::Literal(_) | CExpr::Interval { .. });
    match (constant(left), constant(right)) {
        (false, true) => Some(left.canonical()),
        (true, false) => Some(right.canonical()),
        _ => None,
    }
}

/// Whether an OR of terms on one expression (`x = 1 OR x = 2`), which becomes a search.
fn is_search(term: &CExpr) -> bool {
    fn branches<'a>(e: &'a CExpr, out: &mut Vec<&'a CExpr>) {
        match e {
            CExpr::Binary { op, left, right } if op == "OR" => {
                branches(left, out);
                branches(right, out);
            }
            other => out.push(other),
        }
    }
    let mut out = Vec::new();
    branches(term, &mut out);
    let mut seen: Vec<String> = Vec::new();
    for branch in out {
        if let Some(x) = ranged(branch) {
            if seen.contains(&x) {
                return true;
            }
            seen.push(x);
        }
    }
    false
}

/// The WHERE terms that reject the nulls of a side (`padded` recognizes its columns).
pub fn rejecting<'t>(terms: &'t [CExpr], padded: &dyn Fn(&CExpr) -> bool) -> Vec<&'t CExpr> {
    // Range terms on one expression are merged into one search, which rejects nothing.
    let mut ranges: BTreeMap<String, usize> = BTreeMap::new();
    for term in terms {
        if let Some(x) = ranged(term) {
            *ranges.entry(x).or_default() += 1;
        }
    }
    terms
        .iter()
        .filter(|t| ranged(t).is_none_or(|x| ranges.get(&x).copied().unwrap_or(0) < 2))
        .filter(|t| !is_search(t))
        .filter(|t| never_true(t, padded))
        .collect()
}

/// The join type once the nulls of the left and/or right side are rejected above it.
pub fn simplified(
    join_type: &'static str,
    left_rejected: bool,
    right_rejected: bool,
) -> &'static str {
    match (join_type, left_rejected, right_rejected) {
        ("LEFT", _, true) | ("RIGHT", true, _) | ("FULL", true, true) => "INNER",
        ("FULL", true, false) => "LEFT",
        ("FULL", false, true) => "RIGHT",
        (other, ..) => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(t: &str, c: &str) -> CExpr {
        CExpr::column(t, c)
    }
    fn lit(v: &str) -> CExpr {
        CExpr::Literal(v.into())
    }
    fn bin(op: &str, l: CExpr, r: CExpr) -> CExpr {
        CExpr::Binary {
            op: op.into(),
            left: Box::new(l),
            right: Box::new(r),
        }
    }
    fn of_d(e: &CExpr) -> bool {
        matches!(e, CExpr::Column { table, .. } if table == "d")
    }

    #[test]
    fn comparisons_reject_and_functions_do_not() {
        let eq = bin("=", col("d", "x"), lit("5"));
        let upper = bin(
            "=",
            CExpr::call("UPPER", vec![col("d", "name")]),
            lit("'A'"),
        );
        let left_only = bin(">", col("c", "amount"), lit("1"));
        let terms = [eq.clone(), upper, left_only];
        assert_eq!(rejecting(&terms, &of_d), vec![&eq]);
    }

    #[test]
    fn a_range_on_one_column_is_a_search() {
        let terms = [
            bin(">=", col("d", "x"), lit("1")),
            bin("<=", col("d", "x"), lit("5")),
        ];
        assert!(rejecting(&terms, &of_d).is_empty());
        let or = bin(
            "OR",
            bin("=", col("d", "x"), lit("1")),
            bin("=", col("d", "x"), lit("2")),
        );
        assert!(rejecting(&[or], &of_d).is_empty());
        let mixed = bin(
            "OR",
            bin("=", col("d", "x"), lit("1")),
            bin("=", col("d", "name"), lit("'a'")),
        );
        assert_eq!(rejecting(std::slice::from_ref(&mixed), &of_d).len(), 1);
    }

    #[test]
    fn full_joins_keep_the_side_not_rejected() {
        assert_eq!(simplified("FULL", false, true), "RIGHT");
        assert_eq!(simplified("FULL", true, false), "LEFT");
        assert_eq!(simplified("LEFT", true, false), "LEFT");
        assert_eq!(simplified("LEFT", false, true), "INNER");
    }
}
