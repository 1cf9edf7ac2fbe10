//! Which old query pairs with which new one, and within a pair, which old operator and source
//! table with which new one.

use super::{instances, shared_operators, source_renames, topology};
use crate::plan::{Operator, OperatorKind, Plan, QueryPlan};
use std::collections::HashMap;

pub struct QueryPair<'a> {
    pub old: Option<&'a QueryPlan>,
    pub new: Option<&'a QueryPlan>,
    pub operators: Vec<OperatorPair<'a>>,
    pub sources: Vec<OperatorPair<'a>>,
    /// (old name, new name) of the sources paired under another name (see [`source_renames`]).
    pub source_renames: Vec<(String, String)>,
    /// The other queries whose part of the job's stream graph changed (see [`topology`]).
    pub topology_changed_elsewhere: Vec<String>,
    /// Those of them translated before this query.
    pub topology_changed_before: Vec<String>,
    /// Its place among the queries both jobs have changed (the INSERTs were reordered).
    pub moved_among_queries: bool,
    /// It shares its job (a statement set) with another query both scripts have in one
    /// script and not in the other (see [`regrouped`]).
    pub regrouped: bool,
    /// How the sharing of its operators with other queries of the job changed (see
    /// [`shared_operators`]).
    pub sharing: shared_operators::SharingChange,
}

pub struct OperatorPair<'a> {
    pub old: Option<&'a Operator>,
    pub new: Option<&'a Operator>,
}

impl OperatorPair<'_> {
    pub fn kind(&self) -> OperatorKind {
        self.old
            .or(self.new)
            .map(|o| o.kind)
            .unwrap_or(OperatorKind::Opaque)
    }
}

/// Queries match by sink, then by what they compute (a renamed sink), then in order when they
/// read the same sources (bare documentation queries).
pub fn match_queries<'a>(old: &'a Plan, new: &'a Plan) -> Vec<QueryPair<'a>> {
    let mut old_left: Vec<Option<&QueryPlan>> = old.queries.iter().map(Some).collect();
    let mut new_left: Vec<Option<&QueryPlan>> = new.queries.iter().map(Some).collect();
    let mut pairs: Vec<(Option<&QueryPlan>, Option<&QueryPlan>)> = Vec::new();
    let same_computation = |o: &QueryPlan, n: &QueryPlan| {
        o.output == n.output && o.sources == n.sources && same_operator_kinds(o, n)
    };
    // By sink first, through an index: a deployment of thousands of INSERTs matches in linear
    // time. Several queries may write to one sink: those computing the same thing pair first.
    let mut by_sink: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, query) in new.queries.iter().enumerate() {
        if let Some(sink) = &query.sink {
            by_sink.entry(sink).or_default().push(i);
        }
    }
    for computing_the_same in [true, false] {
        for o in old_left.iter_mut() {
            let Some(old_query) = *o else { continue };
            let Some(bucket) = old_query.sink.as_deref().and_then(|s| by_sink.get_mut(s)) else {
                continue;
            };
            let position = bucket
                .iter()
                .position(|&i| !computing_the_same || same_computation(old_query, &new.queries[i]));
            if let Some(position) = position {
                let i = bucket.remove(position);
                pairs.push((o.take(), new_left[i].take()));
            }
        }
    }
    let mut take = |same: &dyn Fn(&QueryPlan, &QueryPlan) -> bool| {
        for o in old_left.iter_mut() {
            let Some(old_query) = *o else { continue };
            if let Some(n) = new_left
                .iter_mut()
                .find(|n| n.is_some_and(|n| same(old_query, n)))
            {
                pairs.push((Some(old_query), n.take()));
                *o = None;
            }
        }
    };
    take(&same_computation);
    take(&|o, n| o.sources.iter().any(|s| n.sources.contains(s)));
    pairs.extend(old_left.into_iter().flatten().map(|o| (Some(o), None)));
    pairs.extend(new_left.into_iter().flatten().map(|n| (None, Some(n))));
    let mut pairs: Vec<QueryPair> = pairs
        .into_iter()
        .map(|(old, new)| {
            let sources = match_sources(old, new);
            let operators = match_operators(old, new);
            let mut renames = source_renames::of(&sources);
            renames.extend(instances::renames(&operators, &renames));
            QueryPair {
                old,
                new,
                operators,
                source_renames: renames,
                sources,
                topology_changed_elsewhere: Vec::new(),
                topology_changed_before: Vec::new(),
                moved_among_queries: false,
                regrouped: false,
                sharing: Default::default(),
            }
        })
        .collect();
    let regrouped = regrouped(&pairs);
    for (pair, regrouped) in pairs.iter_mut().zip(regrouped) {
        pair.regrouped = regrouped;
    }
    let sharing = shared_operators::sharing_changes(&pairs, old, new);
    for (pair, sharing) in pairs.iter_mut().zip(sharing) {
        pair.sharing = sharing;
    }
    let changes = topology::topology_changes(&pairs, old, new);
    for (((pair, elsewhere), before), moved) in pairs
        .iter_mut()
        .zip(changes.elsewhere)
        .zip(changes.before)
        .zip(changes.moved)
    {
        pair.topology_changed_elsewhere = elsewhere;
        pair.topology_changed_before = before;
        pair.moved_among_queries = moved;
    }
    pairs
}

/// For each pair, whether the queries both scripts have that share its job differ between the
/// scripts: an INSERT moved into or out of a statement set, or between two. Each pair's old
/// job groups the pairs sharing it in the old script, its new job in the new one; the pair kept
/// its companions exactly when the pairs in both of its jobs are the same ones, that is when
/// the three groups have the same size.
fn regrouped(pairs: &[QueryPair]) -> Vec<bool> {
    use std::collections::HashMap;
    let jobs = |pair: &QueryPair| Some((pair.old?.job, pair.new?.job));
    let mut old_jobs: HashMap<usize, usize> = HashMap::new();
    let mut new_jobs: HashMap<usize, usize> = HashMap::new();
    let mut both: HashMap<(usize, usize), usize> = HashMap::new();
    for (o, n) in pairs.iter().filter_map(jobs) {
        *old_jobs.entry(o).or_default() += 1;
        *new_jobs.entry(n).or_default() += 1;
        *both.entry((o, n)).or_default() += 1;
    }
    pairs
        .iter()
        .map(|pair| {
            jobs(pair).is_some_and(|(o, n)| {
                let shared = both.get(&(o, n));
                shared != old_jobs.get(&o) || shared != new_jobs.get(&n)
            })
        })
        .collect()
}

pub(super) fn operator_key(op: &Operator) -> String {
    match op.flink_kind() {
        Some(kind) => format!("{}:{kind}", op.kind.name()),
        None => op.kind.name().to_string(),
    }
}

/// The kinds of the query's operators that keep state (a synchronous lookup join keeps none).
pub fn operator_kinds(query: &QueryPlan) -> Vec<String> {
    query
        .operators
        .iter()
        .filter(|o| o.keeps_state())
        .map(operator_key)
        .collect()
}

/// Whether two queries have the same [`operator_kinds`], compared without writing them.
pub fn same_operator_kinds(old: &QueryPlan, new: &QueryPlan) -> bool {
    fn kinds(q: &QueryPlan) -> impl Iterator<Item = (OperatorKind, Option<String>)> + '_ {
        q.operators
            .iter()
            .filter(|o| o.keeps_state())
            .map(|o| (o.kind, o.flink_kind()))
    }
    kinds(old).eq(kinds(new))
}

/// Operators match in order within their kind.
fn match_operators<'a>(
    old: Option<&'a QueryPlan>,
    new: Option<&'a QueryPlan>,
) -> Vec<OperatorPair<'a>> {
    let of = |q: Option<&'a QueryPlan>| q.map(|q| q.operators.as_slice()).unwrap_or_default();
    pair_by(of(old), of(new), operator_key, false)
}

/// Source tables match by name; those left match in order (a renamed source).
fn match_sources<'a>(
    old: Option<&'a QueryPlan>,
    new: Option<&'a QueryPlan>,
) -> Vec<OperatorPair<'a>> {
    let of = |q: Option<&'a QueryPlan>| q.map(|q| q.source_tables.as_slice()).unwrap_or_default();
    let name = |op: &Operator| op.source_name().unwrap_or_default().to_string();
    pair_by(of(old), of(new), name, true)
}

/// Pairs each old operator with the first new one of the same key, in order. Old operators
/// left over pair in order with new ones left over when `rest_in_order`, else stand alone.
fn pair_by<'a>(
    old: &'a [Operator],
    new: &'a [Operator],
    key: impl Fn(&Operator) -> String,
    rest_in_order: bool,
) -> Vec<OperatorPair<'a>> {
    let mut new_left: Vec<Option<&Operator>> = new.iter().map(Some).collect();
    let mut pairs = Vec::new();
    let mut old_left = Vec::new();
    for op in old {
        let wanted = key(op);
        let matched = new_left
            .iter_mut()
            .find(|n| n.is_some_and(|n| key(n) == wanted))
            .and_then(Option::take);
        match matched {
            None if rest_in_order => old_left.push(op),
            new => pairs.push(OperatorPair { old: Some(op), new }),
        }
    }
    let mut new_left = new_left.into_iter().flatten();
    for op in old_left {
        pairs.push(OperatorPair {
            old: Some(op),
            new: new_left.next(),
        });
    }
    pairs.extend(new_left.map(|n| OperatorPair {
        old: None,
        new: Some(n),
    }));
    pairs
}
