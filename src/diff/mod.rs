//! Matches the queries and operators of the old and new plans, and assembles the facts of each
//! pair: both sides' facts, the relations between their lists, the configuration.

pub mod relations;
pub mod schema;

use crate::plan::{Operator, OperatorKind, Plan, QueryPlan};
use serde_json::{json, Map, Value};
use std::collections::{HashMap, VecDeque};

pub struct QueryPair<'a> {
    pub old: Option<&'a QueryPlan>,
    pub new: Option<&'a QueryPlan>,
    pub operators: Vec<OperatorPair<'a>>,
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
    // By sink first, through an index: a deployment of thousands of INSERTs matches in linear
    // time (each old query takes the first new query with its sink, as `take` would).
    let mut by_sink: HashMap<&str, VecDeque<usize>> = HashMap::new();
    for (i, query) in new.queries.iter().enumerate() {
        if let Some(sink) = &query.sink {
            by_sink.entry(sink).or_default().push_back(i);
        }
    }
    for o in old_left.iter_mut() {
        let Some(sink) = o.and_then(|q| q.sink.as_deref()) else {
            continue;
        };
        if let Some(i) = by_sink.get_mut(sink).and_then(VecDeque::pop_front) {
            pairs.push((o.take(), new_left[i].take()));
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
    take(&|o, n| {
        o.output == n.output && o.sources == n.sources && operator_kinds(o) == operator_kinds(n)
    });
    take(&|o, n| o.sources.iter().any(|s| n.sources.contains(s)));
    pairs.extend(old_left.into_iter().flatten().map(|o| (Some(o), None)));
    pairs.extend(new_left.into_iter().flatten().map(|n| (None, Some(n))));
    pairs
        .into_iter()
        .map(|(old, new)| QueryPair {
            old,
            new,
            operators: match_operators(old, new),
        })
        .collect()
}

fn operator_key(op: &Operator) -> String {
    match op.facts.get("flink_kind").and_then(Value::as_str) {
        Some(kind) => format!("{}:{kind}", op.kind.name()),
        None => op.kind.name().to_string(),
    }
}

pub fn operator_kinds(query: &QueryPlan) -> Vec<String> {
    query.operators.iter().map(operator_key).collect()
}

/// Operators match in order within their kind.
fn match_operators<'a>(
    old: Option<&'a QueryPlan>,
    new: Option<&'a QueryPlan>,
) -> Vec<OperatorPair<'a>> {
    let old_ops: Vec<&Operator> = old
        .map(|q| q.operators.iter().collect())
        .unwrap_or_default();
    let mut new_ops: Vec<Option<&Operator>> = new
        .map(|q| q.operators.iter().map(Some).collect())
        .unwrap_or_default();
    let mut pairs = Vec::new();
    for op in old_ops {
        let key = operator_key(op);
        let matched = new_ops
            .iter_mut()
            .find(|n| n.is_some_and(|n| operator_key(n) == key))
            .and_then(Option::take);
        pairs.push(OperatorPair {
            old: Some(op),
            new: matched,
        });
    }
    pairs.extend(new_ops.into_iter().flatten().map(|n| OperatorPair {
        old: None,
        new: Some(n),
    }));
    pairs
}

fn config_facts(old: &Plan, new: &Plan) -> Value {
    let config = &new.catalog.config;
    json!({
        "ignore_filter": config.is_true("table.optimizer.state-compatibility.ignore-filter"),
        "ignore_sink": config.is_true("table.optimizer.state-compatibility.ignore-sink"),
        "engine_version_changed": old.catalog.config.get("engine.version") != config.get("engine.version"),
        "changed_keys": crate::catalog::config::changed_keys(&old.catalog.config, config),
        "unmodelled_statements_changed": unmodelled_statements(old) != unmodelled_statements(new),
        "changed_functions": changed_functions(old, new),
    })
}

/// The statements read past (DROP, USE, ...), whitespace-normalized.
fn unmodelled_statements(plan: &Plan) -> Vec<String> {
    let text = |span| {
        plan.file
            .slice(span)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    plan.catalog
        .ignored
        .iter()
        .map(|(_, span)| text(*span))
        .collect()
}

/// Functions declared in the old job and removed, or declared again with another class or language.
fn changed_functions(old: &Plan, new: &Plan) -> Vec<String> {
    old.catalog
        .functions
        .iter()
        .filter(|(name, f)| {
            new.catalog
                .functions
                .get(*name)
                .is_none_or(|g| g.def.class != f.def.class || g.def.language != f.def.language)
        })
        .map(|(_, f)| f.def.name.last().to_string())
        .collect()
}

/// The facts of an operator pair: `old`, `new`, a relation object per list fact, `config`.
pub fn operator_facts(pair: &OperatorPair, old_plan: &Plan, new_plan: &Plan) -> Value {
    let empty = Map::new();
    let old = pair.old.map(|o| &o.facts).unwrap_or(&empty);
    let new = pair.new.map(|o| &o.facts).unwrap_or(&empty);
    let mut facts = Map::new();
    facts.insert("old".into(), Value::Object(old.clone()));
    facts.insert("new".into(), Value::Object(new.clone()));
    add_relations(&mut facts, old, new);
    facts.insert("config".into(), config_facts(old_plan, new_plan));
    Value::Object(facts)
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
pub fn query_facts(pair: &QueryPair, old_plan: &Plan, new_plan: &Plan) -> Value {
    let side = |q: Option<&QueryPlan>| -> Map<String, Value> {
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
        m
    };
    let (old, new) = (side(pair.old), side(pair.new));
    let mut facts = Map::new();
    facts.insert("old".into(), Value::Object(old.clone()));
    facts.insert("new".into(), Value::Object(new.clone()));
    add_relations(&mut facts, &old, &new);
    facts.insert("config".into(), config_facts(old_plan, new_plan));
    Value::Object(facts)
}
