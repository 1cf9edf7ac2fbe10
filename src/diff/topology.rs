//! How the job's stream graph changed, query by query: what open-source Flink's generated
//! operator ids depend on. Without uids in the plan (`table.exec.uid.generation` PLAN_ONLY, the
//! default, or DISABLED) an operator's id hashes its position in the whole job's stream graph, so
//! a query added or removed elsewhere in the job moves it; with ALWAYS the ids number the plan's
//! nodes in the order the queries are translated, so only a change before it moves it.

use super::matching::same_operator_kinds;
use super::QueryPair;
use crate::plan::{Plan, QueryPlan};
use std::collections::HashMap;

/// Per query pair, the other queries whose part of the stream graph changed: all of them, and
/// those translated before it.
pub struct TopologyChanges {
    pub elsewhere: Vec<Vec<String>>,
    pub before: Vec<Vec<String>>,
    /// Per query pair: its place among the queries both jobs have changed (INSERTs reordered).
    pub moved: Vec<bool>,
}

/// How one query's own part of the stream graph changed, if it did.
fn own_change(pair: &QueryPair) -> Option<String> {
    match (pair.old, pair.new) {
        (Some(old), None) => Some(format!("query {} removed", old.name)),
        (None, Some(new)) => Some(format!("query {} added", new.name)),
        (Some(old), Some(new)) => {
            let what = if old.unions != new.unions {
                "its UNION ALL inputs"
            } else if !same_operator_kinds(old, new) {
                "its stateful operators"
            } else if old.sources != new.sources {
                "its source tables"
            } else {
                return None;
            };
            Some(format!("query {}: {what} changed", new.name))
        }
        (None, None) => None,
    }
}

/// A query's position in the old and in the new script.
type Positions = (Option<usize>, Option<usize>);

/// Each query's position in its plan, by address: a scan per pair would make matching a job of
/// thousands of queries quadratic.
fn positions_of(plan: &Plan) -> HashMap<*const QueryPlan, usize> {
    plan.queries
        .iter()
        .enumerate()
        .map(|(i, q)| (q as *const QueryPlan, i))
        .collect()
}

fn position(index: &HashMap<*const QueryPlan, usize>, query: Option<&QueryPlan>) -> Option<usize> {
    index.get(&(query? as *const QueryPlan)).copied()
}

/// At most this many other queries' changes are listed per query: a rule needs to know whether
/// there are any, a reader the first few (a job may add thousands of queries).
const LISTED: usize = 10;

pub fn topology_changes(pairs: &[QueryPair], old: &Plan, new: &Plan) -> TopologyChanges {
    let changes: Vec<(usize, String)> = pairs
        .iter()
        .enumerate()
        .filter_map(|(i, p)| own_change(p).map(|c| (i, c)))
        .collect();
    let (old_index, new_index) = (positions_of(old), positions_of(new));
    let positions: Vec<Positions> = pairs
        .iter()
        .map(|p| (position(&old_index, p.old), position(&new_index, p.new)))
        .collect();
    // The changed queries in each job's translation order.
    let in_order = |side: fn(&Positions) -> Option<usize>| {
        let mut order: Vec<(usize, usize)> = changes
            .iter()
            .enumerate()
            .filter_map(|(c, (i, _))| side(&positions[*i]).map(|at| (at, c)))
            .collect();
        order.sort_unstable();
        order
    };
    let (old_order, new_order) = (in_order(|p| p.0), in_order(|p| p.1));
    let mut elsewhere = Vec::with_capacity(pairs.len());
    let mut before = Vec::with_capacity(pairs.len());
    for (i, at) in positions.iter().enumerate() {
        let others = |c: &&(usize, String)| c.0 != i;
        elsewhere.push(
            changes
                .iter()
                .filter(others)
                .take(LISTED)
                .map(|c| c.1.clone())
                .collect(),
        );
        // Translated before this query in the old job or in the new one.
        let earlier = |order: &[(usize, usize)], here: Option<usize>| -> Vec<usize> {
            let Some(here) = here else { return Vec::new() };
            order
                .iter()
                .take_while(|(pos, _)| *pos < here)
                .map(|(_, c)| *c)
                .take(LISTED)
                .collect()
        };
        let mut found = earlier(&old_order, at.0);
        found.extend(earlier(&new_order, at.1));
        found.sort_unstable();
        found.dedup();
        before.push(
            found
                .into_iter()
                .take(LISTED)
                .map(|c| changes[c].1.clone())
                .collect(),
        );
    }
    TopologyChanges {
        elsewhere,
        before,
        moved: moved_among_kept(&positions),
    }
}

/// Whether each query's rank among the queries both jobs have differs between the two jobs.
fn moved_among_kept(positions: &[Positions]) -> Vec<bool> {
    let kept: Vec<(usize, usize, usize)> = positions
        .iter()
        .enumerate()
        .filter_map(|(i, p)| Some((i, p.0?, p.1?)))
        .collect();
    let rank = |key: fn(&(usize, usize, usize)) -> usize| {
        let mut order = kept.clone();
        order.sort_by_key(key);
        let mut ranks = vec![None; positions.len()];
        for (r, k) in order.iter().enumerate() {
            ranks[k.0] = Some(r);
        }
        ranks
    };
    let (old_rank, new_rank) = (rank(|k| k.1), rank(|k| k.2));
    old_rank
        .iter()
        .zip(&new_rank)
        .map(|(o, n)| o.is_some() && o != n)
        .collect()
}
