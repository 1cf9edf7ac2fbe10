//! Conditions Flink's optimizer pushes beneath operators already planned: a WHERE of a query
//! reading a subquery, CTE or view (or a HAVING) reaches the group aggregate beneath it when
//! it reads only its keys (it filters the aggregate's input), and the joins beneath it; above a
//! UNION ALL, it reaches those of every input (read as that input's columns).

use super::expr::CExpr;
use super::join_nulls::PlannedJoin;
use super::join_side::Side;
use super::rank::RankBelow;
use super::reachable::ReachableInputs;
use super::scope::Relation;
use super::{Operator, OperatorKind};
use crate::facts::operators::OpaqueFacts;
use crate::facts::Filters;
use crate::source::ByteSpan;
use std::collections::BTreeSet;

/// A group aggregate already planned, and the values it computes (what is not a key).
#[derive(Debug, Clone)]
pub struct PlannedAggregate {
    pub operator: usize,
    pub computed: BTreeSet<String>,
    /// Output columns that read as a key beneath (a key of every grouping set): (the column's
    /// value above, the key).
    pub keys_out: Vec<(CExpr, CExpr)>,
}

impl PlannedAggregate {
    fn read(&self, term: &CExpr) -> CExpr {
        self.keys_out
            .iter()
            .fold(term.clone(), |t, (above, key)| t.replaced(above, key))
    }

    fn reads_only_keys(&self, term: &CExpr) -> bool {
        // A group window's property (TUMBLE_START, ...) is computed by the aggregate, also
        // where a HAVING reads it without selecting it (plan lab: the filter stays above).
        if matches!(term, CExpr::Call { name, .. } if super::functions::window_property(name).is_some())
        {
            return false;
        }
        !self.computed.contains(&term.canonical())
            && term.children().iter().all(|c| self.reads_only_keys(c))
    }
}

/// The name of the call marking a grouping key as the Expand of grouping sets outputs it
/// (NULL in the sets without it).
const EXPANDED: &str = "EXPANDED";

/// A grouping key some grouping set leaves out, as the Expand beneath the aggregate outputs it.
pub fn expanded(key: &CExpr) -> CExpr {
    CExpr::Call {
        name: EXPANDED.to_string(),
        args: vec![key.clone()],
    }
}

fn reads_expanded(term: &CExpr) -> bool {
    matches!(term, CExpr::Call { name, .. } if name == EXPANDED)
        || term.children().iter().any(|c| reads_expanded(c))
}

/// Pushes the `terms` of a WHERE (or HAVING) above into the operators beneath: the aggregate
/// takes the terms on its keys as filters of its input; the joins take what reaches them (not
/// a term on a key some grouping set leaves out: Flink keeps it above the Expand).
pub fn push_down(
    operators: &mut [Operator],
    aggregate: Option<&PlannedAggregate>,
    joins: &mut [PlannedJoin],
    terms: &[CExpr],
    span: ByteSpan,
) -> Vec<CExpr> {
    let reaching: Vec<CExpr> = match aggregate {
        Some(aggregate) => terms
            .iter()
            .map(|t| aggregate.read(t))
            .filter(|t| aggregate.reads_only_keys(t))
            .collect(),
        None => terms.to_vec(),
    };
    if let Some(op) = aggregate.and_then(|a| operators.get_mut(a.operator)) {
        if !reaching.is_empty() && op.kind == OperatorKind::Opaque {
            // An operator compared as a whole (INTERSECT, EXCEPT): the terms are part of what
            // it computes.
            let mut texts: Vec<String> = reaching.iter().map(CExpr::canonical).collect();
            texts.sort();
            op.update(|facts: &mut OpaqueFacts| {
                facts.fingerprint = format!("{} WHERE {}", facts.fingerprint, texts.join(" AND "))
            });
        } else if !reaching.is_empty() {
            op.update(|facts: &mut Filters| {
                for term in &reaching {
                    let canonical = term.canonical();
                    if !facts.filters.contains(&canonical) {
                        facts.filters.push(canonical);
                    }
                }
            });
            let at = op
                .fact_spans
                .get(&Filters::filters)
                .copied()
                .unwrap_or_default();
            op.fact_spans.insert(Filters::filters, at.union(span));
        }
    }
    let through: Vec<CExpr> = reaching
        .iter()
        .filter(|t| !reads_expanded(t))
        .cloned()
        .collect();
    for join in joins {
        if let Some(op) = operators.get_mut(join.operator) {
            join.push_down(op, &through, span);
        }
    }
    reaching
}

/// An input of a UNION ALL beneath, as a WHERE above the union reaches it: Flink pushes the
/// WHERE into every input, each reading the union's columns as its own.
#[derive(Debug, Clone)]
pub struct UnionInputBelow {
    /// (a union's column, the input's column at its position), the outermost union first.
    pub columns: Vec<(CExpr, CExpr)>,
    pub aggregate: Option<PlannedAggregate>,
    pub joins: Vec<PlannedJoin>,
    /// The Top-N planned beneath the input whose rank number the WHERE still bounds.
    pub rank: Option<RankBelow>,
    /// Rankings of the input no query beneath filtered, compared as a whole (their operator
    /// and rank number): a bound on the rank above the union is part of what they compute, as
    /// Flink pushes it into the input and plans a Top-N of it.
    pub opaque_ranks: Vec<(usize, CExpr)>,
}

impl UnionInputBelow {
    fn read(&self, term: &CExpr) -> CExpr {
        self.columns
            .iter()
            .fold(term.clone(), |t, (union, input)| t.replaced(union, input))
    }
}

/// Pushes the `terms` of a WHERE above a UNION ALL into each of its inputs.
pub fn push_down_unions(
    operators: &mut [Operator],
    inputs: &mut [UnionInputBelow],
    terms: &[CExpr],
    span: ByteSpan,
) {
    for input in inputs {
        let mut read: Vec<CExpr> = terms.iter().map(|t| input.read(t)).collect();
        push_down(
            operators,
            input.aggregate.as_ref(),
            &mut input.joins,
            &read,
            span,
        );
        if let Some(rank) = &input.rank {
            super::rank::narrow_below(operators, rank, &mut read, span);
        }
        for (at, rank) in &input.opaque_ranks {
            let mut bounds: Vec<String> = read
                .iter()
                .filter(|t| super::rank::term_bounds(t, rank).is_some())
                .map(CExpr::canonical)
                .collect();
            bounds.sort();
            if let (Some(op), false) = (operators.get_mut(*at), bounds.is_empty()) {
                op.update(|facts: &mut OpaqueFacts| {
                    facts.fingerprint =
                        format!("{} WHERE {}", facts.fingerprint, bounds.join(" AND "));
                });
                let at = op
                    .fact_spans
                    .get(&OpaqueFacts::fingerprint)
                    .copied()
                    .unwrap_or_default();
                op.fact_spans
                    .insert(OpaqueFacts::fingerprint, at.union(span));
            }
        }
    }
}

/// An input of a join beneath whose rows the join does not pad with NULLs (either input of an
/// inner join, the left of a LEFT or lookup join, ...): a WHERE above the join whose term reads
/// only this input's columns reaches the operators planned beneath the input, as Flink pushes
/// the term into it (through a stateless lookup join too: `WHERE r.rk <= 3` above a lookup join
/// narrows the Top-N beneath; plan oracle).
#[derive(Debug, Clone)]
pub struct JoinInputBelow {
    /// The input (the other inputs of the joins it is beneath are its `ReachableInputs`').
    pub own: Side,
    pub aggregate: Option<PlannedAggregate>,
    pub joins: Vec<PlannedJoin>,
    pub rank: Option<RankBelow>,
    pub unions: Vec<UnionInputBelow>,
}

impl JoinInputBelow {
    /// The input `relation` is, taking what a WHERE above it still reaches.
    pub fn take(relation: &mut Relation, own: Side) -> JoinInputBelow {
        JoinInputBelow {
            own,
            aggregate: relation.aggregate_below.take(),
            joins: std::mem::take(&mut relation.joins_below),
            rank: relation.rank_below.take(),
            unions: std::mem::take(&mut relation.union_below),
        }
    }

    /// Whether nothing is planned beneath the input that a term could reach.
    pub fn holds_nothing(&self) -> bool {
        self.aggregate.is_none()
            && self.joins.is_empty()
            && self.rank.is_none()
            && self.unions.is_empty()
    }
}

/// Pushes the `terms` of a WHERE above joins into the inputs beneath them that they reach.
pub fn push_down_join_inputs(
    operators: &mut [Operator],
    inputs: &mut ReachableInputs,
    terms: &[CExpr],
    span: ByteSpan,
) {
    for (input, mut reaching) in inputs.reached_by(terms) {
        push_down(
            operators,
            input.aggregate.as_ref(),
            &mut input.joins,
            &reaching,
            span,
        );
        push_down_unions(operators, &mut input.unions, &reaching, span);
        if let Some(rank) = &input.rank {
            super::rank::narrow_below(operators, rank, &mut reaching, span);
        }
    }
}
