//! Matches the queries and operators of the old and new plans, and assembles the facts of each
//! pair: both sides' facts, the relations between their lists, the configuration.

pub mod item_facts;
pub mod join_facts;
pub mod other_facts;
pub mod ranking_facts;
pub mod relations;
pub mod schema;
pub mod script_facts;
pub mod topology;
pub mod union_lineage;

use crate::plan::{Operator, OperatorKind, Plan, QueryPlan};
use serde_json::{json, Map, Value};
use std::collections::HashMap;

pub struct QueryPair<'a> {
    pub old: Option<&'a QueryPlan>,
    pub new: Option<&'a QueryPlan>,
    pub operators: Vec<OperatorPair<'a>>,
    pub sources: Vec<OperatorPair<'a>>,
    /// The other queries whose part of the job's stream graph changed (see [`topology`]).
    pub topology_changed_elsewhere: Vec<String>,
    /// Those of them translated before this query.
    pub topology_changed_before: Vec<String>,
    /// Its place among the queries both jobs have changed (the INSERTs were reordered).
    pub moved_among_queries: bool,
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
        o.output == n.output && o.sources == n.sources && operator_kinds(o) == operator_kinds(n)
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
        .map(|(old, new)| QueryPair {
            old,
            new,
            operators: match_operators(old, new),
            sources: match_sources(old, new),
            topology_changed_elsewhere: Vec::new(),
            topology_changed_before: Vec::new(),
            moved_among_queries: false,
        })
        .collect();
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

fn operator_key(op: &Operator) -> String {
    match op.facts.get("flink_kind").and_then(Value::as_str) {
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
    let name = |op: &Operator| {
        op.facts
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
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

/// The two plans being compared, with the job-level facts (configuration, functions,
/// statements) computed once for every pair.
pub struct Job<'a> {
    pub old: &'a Plan,
    pub new: &'a Plan,
    pub config: Value,
    /// TEMPORARY TABLEs of the old script removed or declared otherwise in the new one.
    pub temporary_tables_changed: Vec<String>,
    /// Each configuration key whose value in force differs, for the `config_key` rules.
    pub config_items: Vec<crate::rules::items::Item>,
    /// The items changed in the whole deployment (`query: item`): VVR counts "more than one
    /// item changed" per deployment, not per query.
    pub deployment_items: Vec<String>,
}

impl<'a> Job<'a> {
    pub fn new(old: &'a Plan, new: &'a Plan) -> Job<'a> {
        let config = config_facts(old, new);
        Job {
            old,
            new,
            config_items: item_facts::config_items(old, new, &config),
            config,
            temporary_tables_changed: temporary_tables_changed(old, new),
            deployment_items: Vec::new(),
        }
    }

    /// The job of these query pairs, with the items changed across all of them.
    pub fn of_pairs(old: &'a Plan, new: &'a Plan, pairs: &[QueryPair]) -> Job<'a> {
        let mut job = Job::new(old, new);
        job.deployment_items = pairs
            .iter()
            .flat_map(|pair| {
                let name = pair
                    .new
                    .or(pair.old)
                    .map(|q| q.name.clone())
                    .unwrap_or_default();
                changed_items(pair)
                    .into_iter()
                    .map(move |item| format!("{name}: {item}"))
            })
            .collect();
        job
    }
}

fn config_facts(old: &Plan, new: &Plan) -> Value {
    let config = &new.catalog.config;
    json!({
        "ignore_filter": config.is_true("table.optimizer.state-compatibility.ignore-filter"),
        "ignore_sink": config.is_true("table.optimizer.state-compatibility.ignore-sink"),
        "ignore_unclaimed_state": config.is_true("execution.state-recovery.ignore-unclaimed-state")
            || config.is_true("execution.savepoint.ignore-unclaimed-state"),
        "uid_generation": config.get("table.exec.uid.generation").unwrap_or("PLAN_ONLY").trim().to_uppercase(),
        "engine_version_changed": old.catalog.config.get("engine.version") != config.get("engine.version"),
        "changed_keys": crate::catalog::config::changed_keys(&old.catalog.config, config),
        "unmodelled_statements_changed": unmodelled_statements(old) != unmodelled_statements(new),
        "changed_functions": changed_functions(old, new),
        "added_functions": added_functions(old, new),
        "unused_tables_changed": unused_tables_changed(old, new),
        "warnings_added": warnings_added(old, new),
    })
}

/// The statements read past (DROP, USE, ...), in canonical spelling.
fn unmodelled_statements(plan: &Plan) -> Vec<String> {
    let text = |span| crate::sql::canonical_text(plan.file.slice(span));
    plan.catalog
        .ignored
        .iter()
        .map(|(_, span)| text(*span))
        .collect()
}

/// TEMPORARY TABLEs of the old script removed or declared otherwise in the new one.
fn temporary_tables_changed(old: &Plan, new: &Plan) -> Vec<String> {
    use crate::plan::source_table::table_signature;
    old.catalog
        .tables
        .iter()
        .filter(|(_, t)| t.def.temporary)
        .filter(|(name, t)| {
            new.catalog
                .tables
                .get(*name)
                .is_none_or(|n| table_signature(n) != table_signature(t))
        })
        .map(|(name, _)| name.clone())
        .collect()
}

/// Functions declared in the old job and removed, or declared again with another class,
/// language or resources (`USING JAR`).
fn changed_functions(old: &Plan, new: &Plan) -> Vec<String> {
    old.catalog
        .functions
        .iter()
        .filter(|(name, f)| {
            new.catalog.functions.get(*name).is_none_or(|g| {
                g.def.class != f.def.class
                    || g.def.language != f.def.language
                    || g.def.resources != f.def.resources
            })
        })
        .map(|(_, f)| f.def.name.last().to_string())
        .collect()
}

/// Tables no query of either job reads or writes that were added, removed or declared
/// otherwise.
fn unused_tables_changed(old: &Plan, new: &Plan) -> Vec<String> {
    use crate::plan::source_table::table_signature;
    let used = |name: &str| {
        [old, new].iter().any(|plan| {
            plan.queries
                .iter()
                .any(|q| q.sink.as_deref() == Some(name) || q.sources.iter().any(|s| s == name))
        })
    };
    let mut names: Vec<&String> = old
        .catalog
        .tables
        .keys()
        .chain(new.catalog.tables.keys())
        .collect();
    names.sort();
    names.dedup();
    names
        .into_iter()
        .filter(|name| !used(name))
        .filter(|name| {
            old.catalog.tables.get(*name).map(table_signature)
                != new.catalog.tables.get(*name).map(table_signature)
        })
        .cloned()
        .chain(unused_views_changed(old, new))
        .collect()
}

/// Views no query of either job reads that were added, removed or defined otherwise.
fn unused_views_changed(old: &Plan, new: &Plan) -> Vec<String> {
    let used = |name: &str| {
        [old, new].iter().any(|plan| {
            plan.queries
                .iter()
                .any(|q| q.views.iter().any(|v| v == name))
        })
    };
    let definition = |plan: &Plan, name: &str| view_lineage(plan, name);
    let mut names: Vec<&String> = old
        .catalog
        .views
        .keys()
        .chain(new.catalog.views.keys())
        .collect();
    names.sort();
    names.dedup();
    names
        .into_iter()
        .filter(|name| !used(name) && definition(old, name) != definition(new, name))
        .cloned()
        .collect()
}

/// What a view is as the tool plans it: its output's lineage and the operators it would plan,
/// so that a view spelled otherwise (a predicate turned around, names qualified) is the same
/// view. A view the tool cannot plan on its own is its canonical text.
fn view_lineage(plan: &Plan, name: &str) -> Option<String> {
    let view = plan.catalog.views.get(name)?;
    let mut notes = crate::notes::Notes::default();
    let mut builder = crate::plan::builder::Builder::new(&plan.catalog, &plan.file, &mut notes);
    builder.path = view.path.clone();
    let planned = builder
        .query(&view.def.query)
        .and_then(|relation| builder.finish_rank(relation, view.span));
    Some(match planned {
        Ok(relation) => {
            let operators: Vec<String> = builder
                .operators
                .iter()
                .map(|op| {
                    format!(
                        "{:?} {}",
                        op.kind,
                        serde_json::Value::Object(op.facts.clone())
                    )
                })
                .collect();
            format!("{} {}", relation.lineage(), operators.join("; "))
        }
        Err(_) => crate::sql::canonical_text(plan.file.slice(view.span)),
    })
}

/// The warnings of the new script (mistakes Flink's planner rejects, resolved as the author
/// evidently meant) when it has more than the old one: the new script differs where the
/// resolved plans may not show it. Counted, not matched by text, so that a rewrite spelling
/// the same mistake otherwise (keyword case, operators) adds none; the ones the old script
/// does not have (ignoring case) are listed, else all of them.
fn warnings_added(old: &Plan, new: &Plan) -> Vec<String> {
    use crate::notes::NoteKind;
    let warnings = |plan: &'_ Plan| -> Vec<String> {
        let mut all: Vec<String> = plan
            .notes
            .items
            .iter()
            .chain(&plan.catalog.notes.items)
            .filter(|n| n.kind == NoteKind::Warning)
            .map(|n| n.message.clone())
            .collect();
        all.sort();
        all.dedup();
        all
    };
    let (before, after) = (warnings(old), warnings(new));
    if after.len() <= before.len() {
        return Vec::new();
    }
    let known: Vec<String> = before.iter().map(|w| w.to_lowercase()).collect();
    let added: Vec<String> = after
        .iter()
        .filter(|w| !known.contains(&w.to_lowercase()))
        .cloned()
        .collect();
    if added.is_empty() {
        after
    } else {
        added
    }
}

/// Functions the new job declares and the old one did not.
fn added_functions(old: &Plan, new: &Plan) -> Vec<String> {
    new.catalog
        .functions
        .iter()
        .filter(|(name, _)| !old.catalog.functions.contains_key(*name))
        .map(|(_, f)| f.def.name.last().to_string())
        .collect()
}

/// The facts of an operator pair: `old`, `new`, a relation object per list fact, `config`.
pub fn operator_facts(pair: &OperatorPair, job: &Job) -> Value {
    let empty = Map::new();
    let (old, new) = union_lineage::align(
        pair.old.map(|o| &o.facts).unwrap_or(&empty),
        pair.new.map(|o| &o.facts).unwrap_or(&empty),
    );
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
        op.and_then(|o| o.facts.get("declared")) == Some(&Value::Bool(true))
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
fn changed_items(pair: &QueryPair) -> Vec<String> {
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
        let (old, new) = union_lineage::align(&old.facts, &new.facts);
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
