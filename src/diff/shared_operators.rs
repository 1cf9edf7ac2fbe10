//! Stateful operators one job computes once for several queries. Flink plans the INSERTs of a
//! statement set together and, with `table.optimizer.reuse-sub-plan-enabled` (the default),
//! plans a sub-plan several of them compute alike once: one operator, one state, feeding each
//! of them. When a change makes two queries compute it differently, the one operator becomes
//! two and only one of them can take the old state; when two operators become alike, they
//! become one, which restores only one of the two old states.
//!
//! An operator is computed alike by two queries when it and every stateful operator the query
//! plans before it have the same facts (the facts name the columns, filters and sources they
//! read: a stateful operator beneath another one is part of its sub-plan) and an aggregate's
//! fields have the same names (Flink names its keys and calls by their aliases) and its filter
//! terms and their operands are written in the same order (Flink's Calc keeps it: red team
//! round 24), however the clauses are written (one view read by both, the same text inline,
//! other table aliases: plan lab, job compiles). Where Flink's sub-plans differ in something
//! the tool does not hold, the tool claims a sharing Flink does not plan, the safe side as long
//! as both jobs are alike in it.

use super::matching::QueryPair;
use crate::facts::operators::SourceFacts;
use crate::plan::{Operator, Plan, QueryPlan};
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeSet, HashMap};
use std::hash::{Hash, Hasher};

/// How the sharing of one query's operators changed between the two jobs.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SharingChange {
    /// Operators the query shared with other queries in the old job and no longer shares with
    /// some of them: `kind shared with a, b -> with c` (`-> with none`).
    pub split: Vec<String>,
    /// Operators the query shares in the new job with queries it did not share them with.
    pub merged: Vec<String>,
    /// For a query only the new job has: its operators the new job computes once with queries
    /// both jobs have, which computed them alike in the old job. The state is in the savepoint;
    /// the added query reads the operator that holds it (red team round 24, plan lab: the job
    /// gains no stateful node). As `kind computed with a, b`.
    pub already_computed: Vec<String>,
    /// Those operators, by their index in the query's operators.
    pub already_computed_operators: Vec<usize>,
}

/// Per query pair (in order), how the sharing of its operators changed. Only queries both jobs
/// have count: a query added or removed is judged as such.
pub fn sharing_changes(pairs: &[QueryPair], old: &Plan, new: &Plan) -> Vec<SharingChange> {
    // A query is named by its pair, so that partners compare across the two scripts.
    let index = |old_side: bool| -> HashMap<*const QueryPlan, usize> {
        pairs
            .iter()
            .enumerate()
            .filter_map(|(i, p)| match (p.old, p.new) {
                (Some(o), Some(n)) => Some(((if old_side { o } else { n }) as *const QueryPlan, i)),
                _ => None,
            })
            .collect()
    };
    let (old_keys, new_keys) = (sub_plan_keys(old), sub_plan_keys(new));
    let old_partners = partners_by_keys(old, &index(true), &old_keys);
    let new_partners = partners_by_keys(new, &index(false), &new_keys);
    pairs
        .iter()
        .enumerate()
        .map(|(i, pair)| {
            let mut change = SharingChange::default();
            if let (None, Some(added)) = (pair.old, pair.new) {
                already_computed(pairs, added, (&old_keys, &new_keys), &mut change);
                return change;
            }
            if pair.old.is_none() || pair.new.is_none() {
                return change;
            }
            for op in pair.operators.iter().chain(&pair.sources) {
                let of = |side: Option<&Operator>, partners: &'_ Partners| {
                    side.and_then(|o| partners.get(&(i, o as *const Operator)))
                        .cloned()
                        .unwrap_or_default()
                };
                let (before, after) = (of(op.old, &old_partners), of(op.new, &new_partners));
                if before == after {
                    continue;
                }
                let names = |set: &BTreeSet<usize>| {
                    let names: Vec<&str> = set
                        .iter()
                        .filter_map(|&p| pairs[p].new.map(|q| q.name.as_str()))
                        .collect();
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                };
                let kind = match op.old.or(op.new) {
                    Some(source) if source.kind == crate::plan::OperatorKind::Source => format!(
                        "changelog_normalize of {}",
                        source
                            .read::<SourceFacts>()
                            .map(|f| f.name)
                            .unwrap_or_default()
                    ),
                    _ => op.kind().name().to_string(),
                };
                let text = format!(
                    "{kind} shared with {} -> with {}",
                    names(&before),
                    names(&after)
                );
                if before.is_subset(&after) && !after.is_empty() {
                    change.merged.push(text);
                } else {
                    change.split.push(text);
                }
            }
            change
        })
        .collect()
}

/// For each query of one plan (by its index in `queries`), its operators that other queries of
/// its job plan alike, each with those queries' indices: what the tool believes Flink computes
/// once for several INSERTs (the plan oracle holds it to Flink's job plans).
pub fn shared_operators(plan: &Plan) -> Vec<Vec<(&Operator, BTreeSet<usize>)>> {
    let own_index: HashMap<*const QueryPlan, usize> = plan
        .queries
        .iter()
        .enumerate()
        .map(|(i, q)| (q as *const QueryPlan, i))
        .collect();
    let partners = partners(plan, &own_index);
    plan.queries
        .iter()
        .enumerate()
        .map(|(i, query)| {
            query
                .operators
                .iter()
                .filter_map(|op| {
                    let with = partners.get(&(i, op as *const Operator))?;
                    (!with.is_empty()).then(|| (op, with.clone()))
                })
                .collect()
        })
        .collect()
}

/// For each query both jobs have (its pair's index) and each of its operators, the other such
/// queries of its job that plan the same operator (its sub-plan alike), when sub-plans are
/// reused.
type Partners = HashMap<OperatorAt, BTreeSet<usize>>;

/// An operator of the query of a pair (the pair's index).
type OperatorAt = (usize, *const Operator);

/// The job and the hashes of the facts of an operator and of the operators planned before it.
type SubPlan = (usize, Vec<u64>);

/// Per query of a plan that reuses sub-plans, the sub-plan of each of its operators (as in
/// [`partners`]).
type SubPlanKeys = HashMap<*const QueryPlan, Vec<SubPlan>>;

fn sub_plan_keys(plan: &Plan) -> SubPlanKeys {
    plan.queries
        .iter()
        .filter(|query| reuses_sub_plans(plan, query))
        .map(|query| {
            let sources = source_options(query);
            let mut prefix: Vec<u64> = Vec::with_capacity(query.operators.len());
            let keys = query
                .operators
                .iter()
                .map(|op| {
                    let mut hasher = DefaultHasher::new();
                    sub_plan_hash(op).hash(&mut hasher);
                    // A STATE_TTL hint as written: `'1d'` against `'24h'` in one INSERT splits
                    // what two INSERTs share (red team round 29, plan lab job compiles).
                    // Its name's case and the quotes of its table do not count.
                    for hint in query
                        .hints
                        .iter()
                        .filter_map(|text| crate::plan::options_hint::hint_list(text))
                        .flatten()
                        .filter(|hint| hint.name == "STATE_TTL")
                    {
                        hint.options.hash(&mut hasher);
                    }
                    // The options of the tables it reads (those named in its facts).
                    let facts = op.facts_text();
                    for (name, options) in &sources {
                        if facts.contains(&format!("{name}.")) {
                            (name, options).hash(&mut hasher);
                        }
                    }
                    prefix.push(hasher.finish());
                    (query.job, prefix.clone())
                })
                .chain(normalized_sources(query).map(|source| {
                    // A ChangelogNormalize: its table as read (options, columns, filter as
                    // written), with nothing beneath it.
                    let mut hasher = DefaultHasher::new();
                    "changelog-normalize".hash(&mut hasher);
                    source.facts_text().hash(&mut hasher);
                    source.written_digest.hash(&mut hasher);
                    source.context.options_hint.hash(&mut hasher);
                    (query.job, vec![hasher.finish()])
                }))
                .collect();
            (query as *const QueryPlan, keys)
        })
        .collect()
}

/// Records in `change` the operators of the `added` query that a query both jobs have computes
/// alike with it in the new job and computed alike in the old one.
fn already_computed(
    pairs: &[QueryPair],
    added: &QueryPlan,
    (old_keys, new_keys): (&SubPlanKeys, &SubPlanKeys),
    change: &mut SharingChange,
) {
    let Some(added_keys) = new_keys.get(&(added as *const QueryPlan)) else {
        return;
    };
    for (index, (op, (_, prefix))) in added.operators.iter().zip(added_keys).enumerate() {
        let at = prefix.len() - 1;
        let holders: Vec<&str> = pairs
            .iter()
            .filter_map(|p| {
                let (o, n) = (p.old?, p.new?);
                let alike = |keys: &SubPlanKeys, query: &QueryPlan, job: usize| {
                    keys.get(&(query as *const QueryPlan))
                        .and_then(|k| k.get(at))
                        .is_some_and(|key| key.0 == job && &key.1 == prefix)
                };
                (alike(new_keys, n, added.job) && alike(old_keys, o, o.job))
                    .then_some(n.name.as_str())
            })
            .collect();
        if !holders.is_empty() {
            change.already_computed.push(format!(
                "{} computed with {}",
                op.kind.name(),
                holders.join(", ")
            ));
            change.already_computed_operators.push(index);
        }
    }
}

/// The source tables of the query with their options (an OPTIONS hint's included, and its name
/// as written): Flink scans a table read under other options apart, and plans what reads the
/// scan apart (red team rounds 27-28, plan lab job compiles).
fn source_options(query: &QueryPlan) -> Vec<(String, Vec<String>)> {
    query
        .source_tables
        .iter()
        .filter_map(|table| {
            let facts = table.read::<SourceFacts>().ok()?;
            let mut options = facts.options.unwrap_or_default();
            options.extend(table.context.options_hint.clone());
            Some((facts.name, options))
        })
        .collect()
}

/// The hash of what makes an operator's sub-plan alike (with those of the operators before it).
fn sub_plan_hash(op: &Operator) -> u64 {
    let mut hasher = DefaultHasher::new();
    op.kind.name().hash(&mut hasher);
    op.facts_text().hash(&mut hasher);
    // Flink's sub-plans are alike only under the same field names (an aggregate call
    // is named by its alias). Where the tool does not know them, it claims the sharing:
    // an operator believed shared that is not gives a too severe verdict when it
    // splits, one believed apart that is shared a wrong "compatible".
    op.field_names.hash(&mut hasher);
    op.written_digest.hash(&mut hasher);
    hasher.finish()
}

fn partners(plan: &Plan, pair_of: &HashMap<*const QueryPlan, usize>) -> Partners {
    partners_by_keys(plan, pair_of, &sub_plan_keys(plan))
}

fn partners_by_keys(
    plan: &Plan,
    pair_of: &HashMap<*const QueryPlan, usize>,
    sub_plans: &SubPlanKeys,
) -> Partners {
    let mut groups: HashMap<&SubPlan, BTreeSet<usize>> = HashMap::new();
    let mut keys: Vec<(OperatorAt, &SubPlan)> = Vec::new();
    for query in &plan.queries {
        let at = query as *const QueryPlan;
        let (Some(&pair), Some(query_keys)) = (pair_of.get(&at), sub_plans.get(&at)) else {
            continue;
        };
        for (op, key) in query
            .operators
            .iter()
            .chain(normalized_sources(query))
            .zip(query_keys)
        {
            groups.entry(key).or_default().insert(pair);
            keys.push(((pair, op as *const Operator), key));
        }
    }
    keys.into_iter()
        .map(|(at, key)| {
            let mut others = groups.get(key).cloned().unwrap_or_default();
            others.remove(&at.0);
            (at, others)
        })
        .collect()
}

/// The source tables of the query Flink normalizes (a ChangelogNormalize, which several
/// INSERTs reading the table alike share).
fn normalized_sources(query: &QueryPlan) -> impl Iterator<Item = &Operator> {
    query
        .source_tables
        .iter()
        .filter(|s| s.has_list(SourceFacts::normalized_read))
}

fn reuses_sub_plans(plan: &Plan, query: &QueryPlan) -> bool {
    let config = plan
        .catalog
        .config_versions
        .get(query.config_version)
        .unwrap_or(&plan.catalog.config);
    crate::plan::sub_plan_reuse::reuses_sub_plans(config)
}
