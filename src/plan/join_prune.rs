//! Columns a join carries that nothing above it reads. A join is planned in the SELECT that
//! holds it, and carries what that SELECT reads; a view or CTE holding the join may select more
//! than the query reading it does. Flink pushes the whole query's projection into the join's
//! inputs (plan oracle: a view joining `orders` and `payments` and selecting `pay_method` and
//! `pay_amount`, read by a GROUP BY that counts `pay_method` only, plans a join whose right
//! input has no `pay_amount`). This pass removes, per query, the columns of a regular,
//! interval, temporal or window join that neither the query's output and filters, nor the
//! join's own condition, keys, bounds and input filters, nor an operator above it reads.

use super::prune::QueryReads;
use super::read_names::ReadNames;
use super::{Operator, OperatorKind};
use crate::facts::join::{JoinBase, JoinFacts};
use crate::facts::Filters;

const JOINS: [OperatorKind; 4] = [
    OperatorKind::Join,
    OperatorKind::IntervalJoin,
    OperatorKind::TemporalJoin,
    OperatorKind::WindowJoin,
];

/// Operators above a join through which the query's projection reaches the join as Flink
/// pushes it: aggregates read only their keys and arguments, joins only what they carry and
/// their condition. Beneath a ranking, an OVER aggregate or anything else nothing is pruned
/// here (`join_finish::carry_all_beneath_ranking`).
fn passes_projection(kind: OperatorKind) -> bool {
    JOINS.contains(&kind)
        || matches!(
            kind,
            OperatorKind::GroupAggregate
                | OperatorKind::WindowAggregate
                | OperatorKind::GroupWindowAggregate
                | OperatorKind::LookupJoin
        )
}

/// Removes from each join of one query the input columns nothing reads (see the module).
/// Joins are visited from the last (the upstream-most is first), so a join above is pruned
/// before the ones beneath it read its facts. Only where the tool sees everything the query
/// reads (no operator compared as a whole).
/// `unread_calls`: per operator, the aggregate calls dropped because nothing reads them; the
/// columns they read still flow through the joins beneath (red team round 22, plan lab: an
/// unread `SUM(amount)` above a join adds `amount` to the join's stored row).
pub fn unread_join_columns(
    operators: &mut Vec<Operator>,
    reads: &QueryReads,
    unread_calls: &[Vec<String>],
) -> Vec<PaddedSide> {
    let mut removed = Vec::new();
    // An operator compared as a whole hides what it reads: nothing is pruned then, but a join
    // whose padded input holds every such operator may still go, with them (red team round 29:
    // a LEFT JOIN of an INTERSECT, or of a keyed table filtered by an IN subquery).
    let opaque: Vec<Vec<usize>> = operators
        .iter()
        .filter(|op| op.kind == OperatorKind::Opaque)
        .map(|op| {
            op.join_inputs
                .iter()
                .chain(&op.cte_read_by)
                .copied()
                .collect()
        })
        .collect();
    if opaque.iter().any(Vec::is_empty) || !operators.iter().any(|op| JOINS.contains(&op.kind)) {
        return removed;
    }
    // What the query and the operators above the one visited read, grown as the visit goes
    // down (each operator's text is added once, after it was pruned).
    let mut above = ReadNames::of_query(reads);
    let mut all_pass = true;
    for i in (0..operators.len()).rev() {
        if let Some(next) = operators.get(i + 1) {
            next.read_texts(&mut above, &[], |_| false);
            for call in unread_calls.get(i + 1).into_iter().flatten() {
                above.add(call);
            }
            all_pass &= passes_projection(next.kind);
        }
        if !all_pass || !JOINS.contains(&operators[i].kind) {
            continue;
        }
        let (Ok(base), Ok(facts)) = (
            operators[i].read::<JoinBase>(),
            operators[i].read::<JoinFacts>(),
        ) else {
            continue;
        };
        let calls_above = unread_calls.get(i + 1..).unwrap_or_default();
        if let Some(padded) = removable_outer_join(
            &operators[i],
            &base,
            &facts,
            &operators[i + 1..],
            reads,
            calls_above,
        )
        .filter(|p| opaque.iter().all(|inputs| inputs.contains(&p.input)))
        {
            operators.remove(i);
            drop_padded_filters(&mut operators[i..], &padded.instances);
            removed.push(padded);
            continue;
        }
        if !opaque.is_empty() {
            continue;
        }
        // The join's own facts without what it carries: its condition, keys, bounds, filters.
        let mut own_reads = ReadNames::default();
        operators[i].read_texts(
            &mut own_reads,
            &[JoinBase::left_input, JoinFacts::right_input],
            |_| true,
        );
        let read = |column: &String| above.reads(column) || own_reads.reads(column);
        let left: Vec<String> = base
            .left_input
            .iter()
            .filter(|c| read(c))
            .cloned()
            .collect();
        let right: Vec<String> = facts
            .right_input
            .iter()
            .filter(|c| read(c))
            .cloned()
            .collect();
        if left.len() == base.left_input.len() && right.len() == facts.right_input.len() {
            continue;
        }
        let op = &mut operators[i];
        op.update(|f: &mut JoinBase| f.left_input = left);
        op.update(|f: &mut JoinFacts| f.right_input = right);
    }
    // The operators of a removed join's padded input go with it.
    let dropped: Vec<usize> = removed.iter().map(|r| r.input).collect();
    operators.retain(|op| !op.join_inputs.iter().any(|id| dropped.contains(id)));
    removed
}

/// The input of an outer join Flink removes, by the tables it scans.
pub struct PaddedSide {
    /// The table instances scanned (`t`, or `t#2` for its second scan in the query).
    pub instances: Vec<String>,
    /// Where the join is written.
    pub span: crate::source::ByteSpan,
    /// The id its operators carry (`Operator::join_inputs`).
    pub input: usize,
    /// The join as Flink would have planned it: `LEFT JOIN instance ON terms`, canonical.
    pub join: String,
}

/// Whether Flink removes an outer join (Calcite's ProjectJoinRemoveRule): a LEFT join whose
/// right input is unique on the right-hand columns of its equalities (a RIGHT join, the
/// mirror), when nothing above reads a column of that input. Each row of the preserved input
/// then meets at most one row, and is written once whether or not it does, so the join changes
/// nothing (plan lab: the right input's primary key, with or without other ON terms, gives no
/// join, and no ChangelogNormalize of the right table; reading its key keeps the join).
fn removable_outer_join(
    join: &Operator,
    base: &JoinBase,
    facts: &JoinFacts,
    operators_above: &[Operator],
    reads: &QueryReads,
    calls_above: &[Vec<String>],
) -> Option<PaddedSide> {
    let padded_input = join.padded_input.as_ref()?;
    // Without an equality between its inputs Flink keeps it, even over a one-row input (plan
    // lab: a LEFT JOIN of a global aggregate ON TRUE, or on a non-equi term, stays).
    if join.kind != OperatorKind::Join || base.join_keys.is_empty() {
        return None;
    }
    let padded = match base.join_type.as_str() {
        "LEFT" => &facts.right_input,
        "RIGHT" => &base.left_input,
        _ => return None,
    };
    let key_columns = base.key_columns();
    let unique = padded_input
        .key
        .iter()
        .all(|c| key_columns.contains(&c.as_str()));
    if !unique {
        return None;
    }
    // The WHERE terms written inside the padded input filter that input, not the join's output
    // (a subquery's `WHERE user_id IN (...)` or `WHERE user_id > 5`: red team round 29).
    // Each reaches the query's filters and the filters of the operators above as it does from
    // a WHERE above the join; a term written outside too is read there.
    let outside = |place: &crate::source::ByteSpan| {
        padded_input
            .span
            .is_none_or(|input| place.start < input.start || place.end > input.end)
    };
    let (mut inside, mut outside_texts) = (Vec::new(), Vec::new());
    let mut outside_terms = ReadNames::default();
    for (text, place) in reads.filter_texts.iter().zip(&reads.filter_places) {
        if outside(place) {
            outside_terms.add(text);
            outside_texts.push(*text);
        } else {
            inside.push(*text);
        }
    }
    let written_inside = |text: &str| inside.contains(&text) && !outside_texts.contains(&text);
    let mut above = ReadNames::default();
    let mut text = String::new();
    for expr in &reads.exprs {
        text.clear();
        expr.write_canonical(&mut text);
        if !written_inside(&text) {
            above.add(&text);
        }
    }
    for op in operators_above {
        op.read_texts(&mut above, &[Filters::filters], written_inside);
    }
    calls_above
        .iter()
        .flatten()
        .for_each(|call| above.add(call));
    if padded
        .iter()
        .any(|c| above.reads(c) || outside_terms.reads(c))
    {
        return None;
    }
    let mut terms: Vec<&str> = base
        .conditions
        .iter()
        .chain(&base.filters)
        .map(String::as_str)
        .collect();
    terms.sort_unstable();
    terms.dedup();
    let instances = padded_input.instances.join(", ");
    Some(PaddedSide {
        join: format!(
            "{} JOIN {instances} ON {}",
            base.join_type,
            terms.join(" AND ")
        ),
        instances: padded_input.instances.clone(),
        span: join.span,
        input: padded_input.id,
    })
}

/// Removes from the filters beneath the operators above a removed outer join the terms that
/// read only its padded input (an ON term of a LEFT join on its right input): with the join,
/// they filter nothing the operators read.
fn drop_padded_filters(above: &mut [Operator], instances: &[String]) {
    let prefixes: Vec<String> = instances.iter().map(|i| format!("{i}.")).collect();
    let reads_only_padded = |term: &String| super::read_names::reads_only(term, &prefixes);
    for op in above {
        let Ok(facts) = op.read::<Filters>() else {
            continue;
        };
        if !facts.filters.iter().any(reads_only_padded) {
            continue;
        }
        let kept: Vec<String> = facts
            .filters
            .into_iter()
            .filter(|t| !reads_only_padded(t))
            .collect();
        op.update(|f: &mut Filters| f.filters = kept);
    }
}
