//! The facts of a matched pair: an operator pair (both sides, the relations between their
//! lists, the configuration) and a query pair (its operators, sources, output and sink).

use super::matching::{operator_key, operator_kinds, OperatorPair, QueryPair};
use super::relations::{self, ListRelation};
use super::{hint_options, source_renames, union_lineage, Job};
use crate::facts::aggregate::Aggregates;
use crate::facts::job::{QueryFacts, QueryPairFacts, SourcePairFacts};
use crate::facts::operators::ColumnDefinition;
use crate::facts::{self, Filters};
use crate::plan::{Operator, OperatorKind, Plan, QueryPlan};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// A query pair's facts, typed: each side's, and the pair's as a whole. The JSON the rules
/// read ([`QueryPairSides::json`]) is assembled only for a query that changed.
pub struct QueryPairSides {
    pub old: QueryFacts,
    pub new: QueryFacts,
    pub whole: QueryPairFacts,
}

impl QueryPairSides {
    /// Whether the two sides' facts differ (as [`facts::pair::sides_differ`] of the JSON).
    pub fn sides_differ(&self) -> bool {
        self.old != self.new
    }

    /// The facts the rules read: `old`, `new`, a relation object per list fact, `config`, and
    /// the pair's as a whole.
    pub fn json(&self, job: &Job) -> Value {
        let (old, new) = (facts::to_map(&self.old), facts::to_map(&self.new));
        let relations = relations_of(&old, &new);
        facts::pair::pair_value(&old, &new, &relations, &job.config, &self.whole)
    }
}

/// An operator pair's facts: the JSON the rules read, the facts of a source table pair as a
/// whole, and the aggregates of both sides.
pub struct OperatorPairFacts {
    pub json: Value,
    /// A source table pair's facts as a whole.
    pub source: Option<SourcePairFacts>,
    pub aggregates: AggregatesPair,
}

/// The aggregates of an operator pair as the rules compare them (aligned like the pair's `old`
/// and `new`), and how they relate (the pair's `aggregates` relation). Empty for operators
/// whose kind keeps no aggregates.
#[derive(Debug, Default)]
pub struct AggregatesPair {
    pub old: Vec<String>,
    pub new: Vec<String>,
    pub relation: ListRelation<String>,
}

impl AggregatesPair {
    fn of(pair: &OperatorPair, old: &Map<String, Value>, new: &Map<String, Value>) -> Self {
        let sides = [pair.old, pair.new];
        if !sides.iter().flatten().any(|op| op.has_aggregates()) {
            return AggregatesPair::default();
        }
        // Facts that do not read as their type show as `fact_error` (the pair is `unknown`).
        let aggregates = |facts| {
            facts::from_map::<Aggregates>(facts)
                .unwrap_or_default()
                .aggregates
        };
        let (old, new) = (aggregates(old), aggregates(new));
        AggregatesPair {
            relation: relations::text_relations(&old, &new),
            old,
            new,
        }
    }
}

/// The aggregates of an operator pair whose two sides have the same facts, as compared without
/// aligning anything (a source table, or no source renamed): such a pair is unchanged and no
/// rule needs its facts assembled. None otherwise.
pub fn unchanged_operator(
    pair: &OperatorPair,
    renames: &[(String, String)],
) -> Option<AggregatesPair> {
    let (old, new) = (pair.old?, pair.new?);
    // A source table's facts are not aligned with renamed sources (see `operator_facts`).
    let comparable = pair.kind() == OperatorKind::Source || renames.is_empty();
    (comparable && old.same_facts(new))
        .then(|| AggregatesPair::of(pair, old.rule_facts(), new.rule_facts()))
}

/// The facts of an operator pair: `old`, `new`, a relation object per list fact, `config`,
/// and a source table pair's facts as a whole. `renames`: the query's sources paired under
/// another name, whose columns keep their identity.
pub fn operator_facts(
    pair: &OperatorPair,
    renames: &[(String, String)],
    job: &Job,
) -> OperatorPairFacts {
    let empty = Map::new();
    let old = pair.old.map(Operator::rule_facts).unwrap_or(&empty);
    let old = match pair.kind() {
        OperatorKind::Source => old.clone(),
        _ => source_renames::align(old, renames),
    };
    let (old, new) =
        union_lineage::align(&old, pair.new.map(Operator::rule_facts).unwrap_or(&empty));
    let relations = relations_of(&old, &new);
    let aggregates = AggregatesPair::of(pair, &old, &new);
    if pair.kind() == OperatorKind::Source {
        let whole = source_pair_facts(pair);
        return OperatorPairFacts {
            json: facts::pair::pair_value(&old, &new, &relations, &job.config, &whole),
            source: Some(whole),
            aggregates,
        };
    }
    OperatorPairFacts {
        json: facts::pair::pair_value(&old, &new, &relations, &job.config, &Map::new()),
        source: None,
        aggregates,
    }
}

/// How the columns of a source table changed, split by whether the query reads them.
fn source_pair_facts(pair: &OperatorPair) -> SourcePairFacts {
    let sides = [pair.old, pair.new];
    let feeds_state = sides.iter().flatten().any(|op| op.context.feeds_state);
    let event_time_used = sides
        .iter()
        .any(|op| op.is_none_or(|op| !op.context.no_event_time));
    let empty = BTreeMap::new();
    let (old_defs, new_defs) = (
        pair.old.map_or(&empty, |o| &o.context.columns),
        pair.new.map_or(&empty, |o| &o.context.columns),
    );
    let read: Vec<&String> = sides
        .iter()
        .flatten()
        .flat_map(|op| &op.context.read)
        .collect();
    let mut names: Vec<&String> = old_defs.keys().chain(new_defs.keys()).collect();
    names.sort();
    names.dedup();
    let (mut type_changed, mut redefined, mut unread) = (Vec::new(), Vec::new(), Vec::new());
    for name in names {
        let (o, n) = (old_defs.get(name), new_defs.get(name));
        if o == n {
            continue;
        }
        let stored = |d: Option<&ColumnDefinition>| d.is_some_and(|d| d.stored);
        if !read.contains(&name) {
            unread.push(name.clone());
        } else if stored(o) && stored(n) {
            type_changed.push(name.clone());
        } else {
            redefined.push(name.clone());
        }
    }
    let declared = |op: Option<&Operator>| {
        op.and_then(Operator::source_facts)
            .is_some_and(|s| s.declared)
    };
    SourcePairFacts {
        both_declared: declared(pair.old) && declared(pair.new),
        feeds_state,
        event_time_used,
        read_column_types_changed: type_changed,
        read_columns_redefined: redefined,
        unread_columns_changed: unread,
    }
}

/// A relation object per list fact of either side (`keys.added`, ...).
fn relations_of(old: &Map<String, Value>, new: &Map<String, Value>) -> Map<String, Value> {
    // Each key once: a key on both sides would otherwise be related twice.
    let keys: std::collections::BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    let mut relations = Map::new();
    for key in keys {
        let list = |side: &Map<String, Value>| side.get(key).and_then(Value::as_array).cloned();
        let (o, n) = (list(old), list(new));
        if o.is_some() || n.is_some() {
            relations.insert(
                key.clone(),
                serde_json::to_value(relations::relations(
                    &o.unwrap_or_default(),
                    &n.unwrap_or_default(),
                ))
                .unwrap_or(Value::Null),
            );
        }
    }
    relations
}

/// The source tables of a query that Flink normalizes (a ChangelogNormalize, whose state the
/// query keeps): those whose `normalized_read` is set.
fn normalized_sources(query: &QueryPlan) -> Vec<String> {
    query
        .source_tables
        .iter()
        .filter(|s| s.has_list(crate::facts::operators::SourceFacts::normalized_read))
        .filter_map(|s| s.read::<crate::facts::operators::SourceFacts>().ok())
        .map(|s| s.name)
        .collect()
}

/// The facts of a query pair, for `rules/query.yaml`.
pub fn query_facts(pair: &QueryPair, job: &Job) -> QueryPairSides {
    let (old_plan, new_plan) = (job.old, job.new);
    // `renames`: the old side is read with the new side's names (`source_renames`, and
    // `instances` for a table read more than once).
    let side = |q: Option<&QueryPlan>,
                this: &Plan,
                other: &Plan,
                renames: &[(String, String)]|
     -> QueryFacts {
        let union_order: Vec<String> = q
            .map(|q| {
                q.union_order
                    .iter()
                    .flatten()
                    .map(|i| crate::plan::instance_names::rename_text(i, renames))
                    .collect()
            })
            .unwrap_or_default();
        let mut union_inputs = union_order.clone();
        union_inputs.sort();
        QueryFacts {
            exists: q.is_some(),
            sink: q.and_then(|q| q.sink.clone()),
            operators: q.map(operator_kinds).unwrap_or_default(),
            lookup_joins: q.map(lookup_tables).unwrap_or_default(),
            hints: q.map(|q| q.hints.clone()).unwrap_or_default(),
            sources: q.map(|q| q.sources.clone()).unwrap_or_default(),
            normalized_sources: q.map(normalized_sources).unwrap_or_default(),
            union_inputs,
            union_order,
            union_read_by_state: q.is_some_and(|q| q.union_read_by_state),
            removed_joins: q.map(|q| q.removed_joins.clone()).unwrap_or_default(),
            sink_options: q.and_then(|q| q.sink_options.clone()),
            insert_columns: q.map(|q| q.insert_columns.clone()).unwrap_or_default(),
            sink_columns: q.and_then(|q| q.sink_columns.clone()).unwrap_or_default(),
            sink_deleted: q.and_then(|q| q.sink.as_ref()).is_some_and(|s| {
                this.catalog.tables.contains_key(s) && !other.catalog.tables.contains_key(s)
            }),
        }
    };
    let old = side(pair.old, old_plan, new_plan, &pair.source_renames);
    let new = QueryFacts {
        sink_deleted: false,
        ..side(pair.new, new_plan, new_plan, &[])
    };
    let own_items = changed_items(pair);
    // The deployment's items matter to a query that changed one of them.
    let deployment_changed_items = if own_items.is_empty() {
        Vec::new()
    } else {
        job.deployment_items.clone()
    };
    // Only a query whose sink table was deleted needs them (and a job may change thousands).
    let deleted_sink = pair.old.and_then(|q| q.sink.as_deref());
    let other_temporary_tables_changed: Vec<String> = if old.sink_deleted {
        job.temporary_tables_changed
            .iter()
            .filter(|t| Some(t.as_str()) != deleted_sink)
            .cloned()
            .collect()
    } else {
        Vec::new()
    };
    let hints = |q: Option<&QueryPlan>| q.map(|q| q.hints.clone()).unwrap_or_default();
    let (projection_changed, rows_changed, renamed_outputs) = output_facts(pair);
    let (state_ttl_changed, state_ttl_old_min_millis, state_ttl_new_min_millis) =
        hint_options::state_ttl(
            &hints(pair.old),
            &hints(pair.new),
            global_state_ttl(pair.old, old_plan),
            global_state_ttl(pair.new, new_plan),
        );
    let whole = QueryPairFacts {
        changed_items: own_items,
        projection_changed,
        rows_changed,
        renamed_outputs,
        deployment_changed_items,
        other_temporary_tables_changed,
        topology_changed_elsewhere: pair.topology_changed_elsewhere.clone(),
        topology_changed_before: pair.topology_changed_before.clone(),
        moved_among_queries: pair.moved_among_queries,
        regrouped: pair.regrouped,
        shared_operators_split: pair.sharing.split.clone(),
        shared_operators_merged: pair.sharing.merged.clone(),
        operators_already_computed: pair.sharing.already_computed.clone(),
        hints_changed: hint_options::changed(&hints(pair.old), &hints(pair.new)),
        hint_names_changed: hint_options::names_changed(&hints(pair.old), &hints(pair.new)),
        state_ttl_changed,
        state_ttl_old_min_millis,
        state_ttl_new_min_millis,
    };
    QueryPairSides { old, new, whole }
}

/// The `table.exec.state.ttl` in force at a query, in milliseconds (0: off, unset, or not a
/// duration).
fn global_state_ttl(query: Option<&QueryPlan>, plan: &Plan) -> u64 {
    query
        .and_then(|q| plan.catalog.config_versions.get(q.config_version))
        .and_then(|config| config.get("table.exec.state.ttl"))
        .and_then(crate::catalog::duration::millis)
        .unwrap_or(0)
}

/// How the query's output changed where its stateful operators and source tables did not:
/// `projection_changed` (what it writes, computed after its stateful operators),
/// `rows_changed` (which rows it writes: a filter after them) and `renamed_outputs`
/// (`old -> new`: the same column under another alias).
fn output_facts(pair: &QueryPair) -> (bool, bool, Vec<String>) {
    let (mut projection_changed, mut rows_changed, mut renamed) = (false, false, Vec::new());
    if let (Some(old), Some(new)) = (pair.old, pair.new) {
        let unchanged = |pairs: &[OperatorPair]| {
            pairs
                .iter()
                .all(|p| matches!((p.old, p.new), (Some(o), Some(n)) if o.same_facts(n)))
        };
        if unchanged(&pair.operators) && unchanged(&pair.sources) {
            projection_changed = old.output != new.output;
            rows_changed = old.rows != new.rows;
        }
        if old.output == new.output {
            renamed = old
                .output_names
                .iter()
                .zip(&new.output_names)
                .filter(|(o, n)| o != n)
                .map(|(o, n)| format!("{o} -> {n}"))
                .collect();
        }
    }
    (projection_changed, rows_changed, renamed)
}

/// The items of the query changed at once: the aggregates of a stateful operator, the filter
/// beneath one, the sink (another table, or its options; its columns follow the query).
pub(super) fn changed_items(pair: &QueryPair) -> Vec<String> {
    keyed_changed_items(pair)
        .into_iter()
        .map(|(item, _)| item)
        .collect()
}

/// Where a changed filter term is written: the side (false: old, true: new) and its WHERE
/// clause. Two queries whose changed filter terms are written in one clause (a view's WHERE)
/// changed one item, not two.
pub(super) type ClauseKey = (bool, usize, usize);

/// [`changed_items`], each with the clauses its changed filter terms are written in (empty
/// for an item that is no filter, or a term whose clause is not known).
pub(super) fn keyed_changed_items(pair: &QueryPair) -> Vec<(String, Vec<ClauseKey>)> {
    let as_set = |mut items: Vec<String>| -> Vec<String> {
        items.sort();
        items.dedup();
        items
    };
    let mut items = Vec::new();
    // A filter seen by several operators (beneath a join and the aggregate above it) is one item:
    // operators whose changed filter terms overlap share it.
    let mut filter_changes: Vec<(String, Vec<String>, Vec<ClauseKey>)> = Vec::new();
    for op in &pair.operators {
        let (Some(old), Some(new)) = (op.old, op.new) else {
            continue;
        };
        let (old_op, new_op) = (old, new);
        // The same facts, aligned alike: neither aggregates nor filters changed.
        if pair.source_renames.is_empty() && old.same_facts(new) {
            continue;
        }
        let kind = operator_key(old);
        let old = source_renames::align(old.rule_facts(), &pair.source_renames);
        let (old, new) = union_lineage::align(&old, new.rule_facts());
        // Aligning rewrites texts only: the facts read as they did before it (`fact_error`).
        let aggregates = |facts| {
            as_set(
                facts::from_map::<Aggregates>(facts)
                    .unwrap_or_default()
                    .aggregates,
            )
        };
        if aggregates(&old) != aggregates(&new) {
            items.push(format!("the aggregates of {kind}"));
        }
        let filters = |facts| {
            as_set(
                facts::from_map::<Filters>(facts)
                    .unwrap_or_default()
                    .filters,
            )
        };
        let (old_filters, new_filters) = (filters(&old), filters(&new));
        if old_filters != new_filters {
            let changed: Vec<String> = old_filters
                .iter()
                .filter(|f| !new_filters.contains(f))
                .chain(new_filters.iter().filter(|f| !old_filters.contains(f)))
                .cloned()
                .collect();
            let clause = |side: bool, op: &crate::plan::Operator, term: &String| {
                op.item_spans
                    .get(term)
                    .map(|span| (side, span.start, span.end))
            };
            let clauses: Vec<ClauseKey> = old_filters
                .iter()
                .filter(|f| !new_filters.contains(f))
                .filter_map(|t| clause(false, old_op, t))
                .chain(
                    new_filters
                        .iter()
                        .filter(|f| !old_filters.contains(f))
                        .filter_map(|t| clause(true, new_op, t)),
                )
                .collect();
            match filter_changes
                .iter_mut()
                .find(|(_, terms, _)| terms.iter().any(|t| changed.contains(t)))
            {
                Some((_, terms, keys)) => {
                    terms.extend(changed);
                    keys.extend(clauses);
                }
                None => filter_changes.push((kind, changed, clauses)),
            }
        }
    }
    let mut keyed: Vec<(String, Vec<ClauseKey>)> =
        items.into_iter().map(|item| (item, Vec::new())).collect();
    keyed.extend(filter_changes.into_iter().map(|(kind, _, mut clauses)| {
        clauses.sort();
        clauses.dedup();
        (format!("the filter beneath {kind}"), clauses)
    }));
    if let (Some(old), Some(new)) = (pair.old, pair.new) {
        if old.sink != new.sink
            || (old.sink_options.is_some()
                && new.sink_options.is_some()
                && old.sink_options != new.sink_options)
        {
            keyed.push(("the sink".into(), Vec::new()));
        }
    }
    keyed
}

/// The lookup tables of the query's lookup joins, synchronous or async, upstream first: a
/// synchronous one keeps no state but is a node of the stream graph.
fn lookup_tables(query: &QueryPlan) -> Vec<String> {
    query
        .operators
        .iter()
        .filter(|o| o.kind == crate::plan::OperatorKind::LookupJoin)
        .map(|o| {
            o.read::<crate::facts::join::Lookup>()
                .unwrap_or_default()
                .lookup_table
        })
        .collect()
}
