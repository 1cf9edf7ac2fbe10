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
use super::set_inputs::InputView;
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

/// Operators above an outer join through which Flink still removes it when nothing above
/// reads its padded input: those passing the projection, and an OVER aggregate (Calcite pushes
/// the projection through it; plan lab, red team round 27: a bounded OVER ordered by `o.ts`
/// over `orders o LEFT JOIN users u` reading nothing of `u` plans no join). Not a ranking:
/// Flink keeps the join beneath a Rank (plan lab).
fn passes_removal(kind: OperatorKind) -> bool {
    passes_projection(kind) || kind == OperatorKind::OverAggregate
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
    let opaque = opaque_inputs(operators.iter());
    if !operators.iter().any(|op| JOINS.contains(&op.kind)) {
        return removed;
    }
    // What the query and the operators above the one visited read, grown as the visit goes
    // down (each operator's text is added once, after it was pruned).
    let mut above = ReadNames::of_query(reads);
    let (mut all_pass, mut all_pass_removal) = (true, true);
    // Kept beside the operators as joins are removed.
    let mut unread_calls = unread_calls.to_vec();
    for i in (0..operators.len()).rev() {
        if let Some(next) = operators.get(i + 1) {
            next.read_texts(&mut above, &[], |_| false);
            for call in unread_calls.get(i + 1).into_iter().flatten() {
                above.add(call);
            }
            all_pass &= passes_projection(next.kind);
            all_pass_removal &= passes_removal(next.kind);
        }
        if !JOINS.contains(&operators[i].kind) {
            continue;
        }
        let calls_above = unread_calls.get(i + 1..).unwrap_or_default();
        // A join in a set operation's input is read through that input alone.
        let view = InputView::of(&operators[i], reads.set_operations);
        let (opaque, input_above, passes, passes_removal) = match &view {
            Some(view) => {
                let seen = |op: &&Operator| view.sees(op);
                let opaque: Vec<Vec<usize>> = opaque_inputs(operators.iter().filter(seen));
                let above = read_from_input(view, reads, &operators[i + 1..], calls_above);
                let all = |pass: fn(OperatorKind) -> bool| {
                    operators[i + 1..]
                        .iter()
                        .filter(seen)
                        .all(|op| pass(op.kind))
                };
                let passes = (all(passes_projection), all(passes_removal));
                (opaque, Some(above), passes.0, passes.1)
            }
            None => (opaque.clone(), None, all_pass, all_pass_removal),
        };
        if !passes_removal || opaque.iter().any(Vec::is_empty) {
            continue;
        }
        let (Ok(base), Ok(facts)) = (
            operators[i].read::<JoinBase>(),
            operators[i].read::<JoinFacts>(),
        ) else {
            continue;
        };
        if let Some(padded) = removable_outer_join(
            &operators[i],
            (&base, &facts),
            &operators[i + 1..],
            (reads, view.as_ref()),
            calls_above,
        )
        .filter(|p| opaque.iter().all(|inputs| inputs.contains(&p.input)))
        {
            operators.remove(i);
            if i < unread_calls.len() {
                unread_calls.remove(i);
            }
            drop_padded_filters(&mut operators[i..], &padded.instances);
            removed.push(padded);
            continue;
        }
        if !passes || !opaque.is_empty() {
            continue;
        }
        let above = input_above.as_ref().unwrap_or(&above);
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

/// Per operator compared as a whole, the join inputs it is planned in (none: outside any).
fn opaque_inputs<'o>(operators: impl Iterator<Item = &'o Operator>) -> Vec<Vec<usize>> {
    operators
        .filter(|op| op.kind == OperatorKind::Opaque)
        .map(|op| {
            op.join_inputs
                .iter()
                .chain(&op.cte_read_by)
                .copied()
                .collect()
        })
        .collect()
}

/// What the query and the operators above read, seen from inside a set operation's input:
/// not its other inputs, and its output columns as this input's.
fn read_from_input(
    view: &InputView,
    reads: &QueryReads,
    operators_above: &[Operator],
    calls_above: &[Vec<String>],
) -> ReadNames {
    let mut read = ReadNames::rewriting(view.rewrites());
    let mut text = String::new();
    for expr in &reads.exprs {
        text.clear();
        expr.write_canonical(&mut text);
        if view.sees_term(&text, reads) {
            read.add(&text);
        }
    }
    for (text, place) in reads.filter_texts.iter().zip(&reads.filter_places) {
        if view.sees_place(*place) {
            read.add(text);
        }
    }
    for (k, op) in operators_above.iter().enumerate() {
        if view.sees(op) {
            op.read_texts(&mut read, &[], |_| false);
            calls_above
                .get(k)
                .into_iter()
                .flatten()
                .for_each(|call| read.add(call));
        }
    }
    read
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
/// In a set operation's input (`view`), only what is read through that input counts.
fn removable_outer_join(
    join: &Operator,
    (base, facts): (&JoinBase, &JoinFacts),
    operators_above: &[Operator],
    (reads, view): (&QueryReads, Option<&InputView>),
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
    let names = || view.map_or_else(ReadNames::default, |v| ReadNames::rewriting(v.rewrites()));
    let (mut inside, mut outside_texts) = (Vec::new(), Vec::new());
    let mut outside_terms = names();
    for (text, place) in reads.filter_texts.iter().zip(&reads.filter_places) {
        if view.is_some_and(|v| !v.sees_place(*place)) {
            continue;
        }
        if outside(place) {
            outside_terms.add(text);
            outside_texts.push(*text);
        } else {
            inside.push(*text);
        }
    }
    let written_inside = |text: &str| inside.contains(&text) && !outside_texts.contains(&text);
    let mut above = names();
    let mut text = String::new();
    for expr in &reads.exprs {
        text.clear();
        expr.write_canonical(&mut text);
        if !written_inside(&text) && view.is_none_or(|v| v.sees_term(&text, reads)) {
            above.add(&text);
        }
    }
    for (k, op) in operators_above.iter().enumerate() {
        if view.is_some_and(|v| !v.sees(op)) {
            continue;
        }
        op.read_texts(&mut above, &[Filters::filters], written_inside);
        calls_above
            .get(k)
            .into_iter()
            .flatten()
            .for_each(|call| above.add(call));
    }
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
