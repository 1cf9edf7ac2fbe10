//! The facts the rules read, of one script: what `flink-compat plan` shows a rule author. Each
//! query's own facts (the `query` rules' `old.*` / `new.*`), its source tables' (the `source`
//! rules'), its operators', and the job's (`config.*`, the configuration in force, the
//! statements read past), as one side of a comparison sees them. The script is compared with
//! itself, so facts about a change (relations such as `keys.added`, `config.changed_keys`)
//! are empty: `flink-compat rules facts` documents them.

use super::{match_queries, operator_facts, query_facts, Job};
use crate::plan::Plan;
use serde_json::{json, Map, Value};

/// One side's facts of a pair's facts (`new`), with the facts of the pair (`feeds_state`,
/// `changed_items`, ...) the rules of `operator` read, though not the relations.
fn one_side(facts: &Value, operator: &str) -> Value {
    let keep: Vec<&str> = super::schema::pair_facts(operator)
        .into_iter()
        .map(|(name, _, _)| name)
        .collect();
    let mut side = facts
        .get("new")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    for key in keep {
        if let Some(value) = facts.get(key) {
            side.insert(key.to_string(), value.clone());
        }
    }
    Value::Object(side)
}

/// Every fact the rules read of this script, as JSON: `job` and `queries`, each query with its
/// `facts`, `source_tables` and `operators`.
pub fn script_facts(plan: &Plan) -> Value {
    let pairs = match_queries(plan, plan);
    let job = Job::of_pairs(plan, plan, &pairs);
    let queries: Vec<Value> = pairs
        .iter()
        .filter_map(|pair| {
            let query = pair.new?;
            let sources: Vec<Value> = pair
                .sources
                .iter()
                .map(|s| one_side(&operator_facts(s, &[], &job).json, "source"))
                .collect();
            let operators: Vec<Value> = query
                .operators
                .iter()
                .map(|o| {
                    json!({
                        "kind": o.kind.name(),
                        "flink_node": o.flink_node,
                        "facts": o.rule_facts(),
                    })
                })
                .collect();
            Some(json!({
                "name": query.name,
                "sink": query.sink,
                "sources": query.sources,
                "facts": one_side(&query_facts(pair, &job).json, "query"),
                "source_tables": sources,
                "operators": operators,
            }))
        })
        .collect();
    let configuration: Map<String, Value> = plan
        .catalog
        .config
        .entries()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    let read_past = plan.catalog.read_past_texts(&plan.file);
    json!({
        "job": {
            "config": job.config,
            "configuration": configuration,
            "statements_read_past": read_past,
        },
        "queries": queries,
    })
}
