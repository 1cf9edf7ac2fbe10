//! The facts of a matched pair: an operator pair (both sides, the relations between their
//! lists, the configuration) and a query pair (its operators, sources, output and sink).

use super::matching::{operator_key, operator_kinds, OperatorPair, QueryPair};
use super::{hint_options, relations, source_renames, union_lineage, Job};
use crate::plan::{Operator, OperatorKind, Plan, QueryPlan};
use serde_json::{json, Map, Value};

/// The facts of an operator pair: `old`, `new`, a relation object per list fact, `config`.
/// `renames`: the query's sources paired under another name, whose columns keep their identity.
pub fn operator_facts(pair: &OperatorPair, renames: &[(String, String)], job: &Job) -> Value {
    let empty = Map::new();
    let old = pair.old.map(|o| &o.facts).unwrap_or(&empty);
    let old = match pair.kind() {
        OperatorKind::Source => old.clone(),
        _ => source_renames::align(old, renames),
    };
    let (old, new) = union_lineage::align(&old, pair.new.map(|o| &o.facts).unwrap_or(&empty));
    let mut facts = Map::new();
    add_relations(&mut facts, &old, &new);
    facts.insert("old".into(), Value::Object(old));
    facts.insert("new".into(), Value::Object(new));
    facts.insert("config".into(), job.config.clone());
    if pair.kind() == OperatorKind::Source {
        source_pair_facts(&mut facts, pair);
    }
    Value::Object(facts)
}

/// How the columns of a source table changed, split by whether the query reads them.
fn source_pair_facts(facts: &mut Map<String, Value>, pair: &OperatorPair) {
    let context = |op: Option<&Operator>, key: &str| -> Value {
        op.and_then(|o| o.context.get(key))
            .cloned()
            .unwrap_or(Value::Null)
    };
    let feeds_state = [pair.old, pair.new]
        .iter()
        .any(|op| context(*op, "feeds_state") == Value::Bool(true));
    let definitions = |op: Option<&Operator>| -> Map<String, Value> {
        match context(op, "columns") {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    };
    let (old_defs, new_defs) = (definitions(pair.old), definitions(pair.new));
    let read: Vec<Value> = [pair.old, pair.new]
        .iter()
        .filter_map(|op| context(*op, "read").as_array().cloned())
        .flatten()
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
        let stored =
            |d: Option<&Value>| d.and_then(|d| d.get("stored")) == Some(&Value::Bool(true));
        if !read.iter().any(|r| r.as_str() == Some(name)) {
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
    facts.insert(
        "both_declared".into(),
        json!(declared(pair.old) && declared(pair.new)),
    );
    facts.insert("feeds_state".into(), json!(feeds_state));
    facts.insert("read_column_types_changed".into(), json!(type_changed));
    facts.insert("read_columns_redefined".into(), json!(redefined));
    facts.insert("unread_columns_changed".into(), json!(unread));
}

fn add_relations(
    facts: &mut Map<String, Value>,
    old: &Map<String, Value>,
    new: &Map<String, Value>,
) {
    // Each key once: a key on both sides would otherwise be related twice.
    let keys: std::collections::BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    for key in keys {
        let list = |side: &Map<String, Value>| side.get(key).and_then(Value::as_array).cloned();
        let (o, n) = (list(old), list(new));
        if o.is_some() || n.is_some() {
            facts.insert(
                key.clone(),
                relations::relations(&o.unwrap_or_default(), &n.unwrap_or_default()),
            );
        }
    }
}

/// The facts of a query pair, for `rules/query.yaml`.
pub fn query_facts(pair: &QueryPair, job: &Job) -> Value {
    let (old_plan, new_plan) = (job.old, job.new);
    let side = |q: Option<&QueryPlan>, this: &Plan, other: &Plan| -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("exists".into(), json!(q.is_some()));
        m.insert(
            "sink".into(),
            q.and_then(|q| q.sink.clone())
                .map(Value::String)
                .unwrap_or(Value::Null),
        );
        m.insert(
            "operators".into(),
            json!(q.map(operator_kinds).unwrap_or_default()),
        );
        m.insert(
            "lookup_joins".into(),
            json!(q.map(lookup_tables).unwrap_or_default()),
        );
        m.insert(
            "hints".into(),
            json!(q.map(|q| q.hints.clone()).unwrap_or_default()),
        );
        m.insert(
            "sources".into(),
            json!(q.map(|q| q.sources.clone()).unwrap_or_default()),
        );
        let mut union_inputs: Vec<String> = q
            .map(|q| q.unions.iter().flatten().cloned().collect())
            .unwrap_or_default();
        union_inputs.sort();
        m.insert("union_inputs".into(), json!(union_inputs));
        m.insert(
            "sink_options".into(),
            json!(q.and_then(|q| q.sink_options.clone())),
        );
        m.insert(
            "insert_columns".into(),
            json!(q.map(|q| q.insert_columns.clone()).unwrap_or_default()),
        );
        m.insert(
            "sink_columns".into(),
            json!(q.and_then(|q| q.sink_columns.clone()).unwrap_or_default()),
        );
        let sink_deleted = q.and_then(|q| q.sink.as_ref()).is_some_and(|s| {
            this.catalog.tables.contains_key(s) && !other.catalog.tables.contains_key(s)
        });
        m.insert("sink_deleted".into(), json!(sink_deleted));
        m
    };
    let old = side(pair.old, old_plan, new_plan);
    let mut new = side(pair.new, new_plan, new_plan);
    new.insert("sink_deleted".into(), json!(false));
    let mut facts = Map::new();
    facts.insert("old".into(), Value::Object(old.clone()));
    facts.insert("new".into(), Value::Object(new.clone()));
    add_relations(&mut facts, &old, &new);
    facts.insert("config".into(), job.config.clone());
    let own_items = changed_items(pair);
    // The deployment's items matter to a query that changed one of them.
    let deployment_items = if own_items.is_empty() {
        Vec::new()
    } else {
        job.deployment_items.clone()
    };
    facts.insert("changed_items".into(), json!(own_items));
    output_facts(&mut facts, pair);
    facts.insert("deployment_changed_items".into(), json!(deployment_items));
    // Only a query whose sink table was deleted needs them (and a job may change thousands).
    let sink_deleted = old.get("sink_deleted") == Some(&Value::Bool(true));
    let deleted_sink = pair.old.and_then(|q| q.sink.as_deref());
    let others: Vec<&String> = if sink_deleted {
        job.temporary_tables_changed
            .iter()
            .filter(|t| Some(t.as_str()) != deleted_sink)
            .collect()
    } else {
        Vec::new()
    };
    facts.insert("other_temporary_tables_changed".into(), json!(others));
    facts.insert(
        "topology_changed_elsewhere".into(),
        json!(pair.topology_changed_elsewhere),
    );
    facts.insert(
        "topology_changed_before".into(),
        json!(pair.topology_changed_before),
    );
    facts.insert(
        "moved_among_queries".into(),
        json!(pair.moved_among_queries),
    );
    let hints = |q: Option<&QueryPlan>| q.map(|q| q.hints.clone()).unwrap_or_default();
    facts.insert(
        "hints_changed".into(),
        json!(hint_options::changed(&hints(pair.old), &hints(pair.new))),
    );
    Value::Object(facts)
}

/// How the query's output changed where its stateful operators and source tables did not:
/// `projection_changed` (what it writes, computed after its stateful operators),
/// `rows_changed` (which rows it writes: a filter after them) and `renamed_outputs`
/// (`old -> new`: the same column under another alias).
fn output_facts(facts: &mut Map<String, Value>, pair: &QueryPair) {
    let (mut projection_changed, mut rows_changed, mut renamed) = (false, false, Vec::new());
    if let (Some(old), Some(new)) = (pair.old, pair.new) {
        let unchanged = |pairs: &[OperatorPair]| {
            pairs
                .iter()
                .all(|p| matches!((p.old, p.new), (Some(o), Some(n)) if o.facts == n.facts))
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
    facts.insert("projection_changed".into(), json!(projection_changed));
    facts.insert("rows_changed".into(), json!(rows_changed));
    facts.insert("renamed_outputs".into(), json!(renamed));
}

/// The items of the query changed at once: the aggregates of a stateful operator, the filter
/// beneath one, the sink (another table, or its options; its columns follow the query).
pub(super) fn changed_items(pair: &QueryPair) -> Vec<String> {
    let as_set = |facts: &Map<String, Value>, key: &str| -> Vec<String> {
        let mut items: Vec<String> = facts
            .get(key)
            .and_then(Value::as_array)
            .map(|a| a.iter().map(Value::to_string).collect())
            .unwrap_or_default();
        items.sort();
        items.dedup();
        items
    };
    let mut items = Vec::new();
    // A filter seen by several operators (beneath a join and the aggregate above it) is one item:
    // operators whose changed filter terms overlap share it.
    let mut filter_changes: Vec<(String, Vec<String>)> = Vec::new();
    for op in &pair.operators {
        let (Some(old), Some(new)) = (op.old, op.new) else {
            continue;
        };
        let kind = operator_key(old);
        let old = source_renames::align(&old.facts, &pair.source_renames);
        let (old, new) = union_lineage::align(&old, &new.facts);
        let (old, new) = (&old, &new);
        if as_set(old, "aggregates") != as_set(new, "aggregates") {
            items.push(format!("the aggregates of {kind}"));
        }
        let (old_filters, new_filters) = (as_set(old, "filters"), as_set(new, "filters"));
        if old_filters != new_filters {
            let changed: Vec<String> = old_filters
                .iter()
                .filter(|f| !new_filters.contains(f))
                .chain(new_filters.iter().filter(|f| !old_filters.contains(f)))
                .cloned()
                .collect();
            match filter_changes
                .iter_mut()
                .find(|(_, terms)| terms.iter().any(|t| changed.contains(t)))
            {
                Some((_, terms)) => terms.extend(changed),
                None => filter_changes.push((kind, changed)),
            }
        }
    }
    items.extend(
        filter_changes
            .into_iter()
            .map(|(kind, _)| format!("the filter beneath {kind}")),
    );
    if let (Some(old), Some(new)) = (pair.old, pair.new) {
        if old.sink != new.sink
            || (old.sink_options.is_some()
                && new.sink_options.is_some()
                && old.sink_options != new.sink_options)
        {
            items.push("the sink".into());
        }
    }
    items
}

/// The lookup tables of the query's lookup joins, synchronous or async, upstream first: a
/// synchronous one keeps no state but is a node of the stream graph.
fn lookup_tables(query: &QueryPlan) -> Vec<String> {
    query
        .operators
        .iter()
        .filter(|o| o.kind == crate::plan::OperatorKind::LookupJoin)
        .map(|o| o.read::<crate::facts::join::Lookup>().lookup_table)
        .collect()
}
