//! The facts the rules read, of one script: what `flink-compat plan` shows a rule author. Each
//! query's own facts (the `query` rules' `old.*` / `new.*`), its source tables' (the `source`
//! rules'), its operators', and the job's (`config.*`, the configuration in force, the
//! statements read past), as one side of a comparison sees them. The script is compared with
//! itself, so facts about a change (relations such as `keys.added`, `config.changed_keys`)
//! are empty: `flink-compat rules facts` documents them.

use super::{match_queries, operator_facts, query_facts, Job};
use crate::facts::job::ConfigFacts;
use crate::facts::pair;
use crate::plan::{Operator, Plan};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};

/// Every fact the rules read of one script (`flink-compat plan`), typed: the job's and each
/// query's. Facts of a side are the generated layer's objects (`crate::facts`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ScriptFacts {
    pub job: JobView,
    pub queries: Vec<QueryView>,
    /// The notes made reading the script.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// The job as the rules see it: `config.*`, the configuration in force, the statements read past.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct JobView {
    pub config: ConfigFacts,
    /// Every configuration key in force, with its value.
    pub configuration: BTreeMap<String, String>,
    pub statements_read_past: Vec<String>,
}

/// One query: its own facts (`query` rules), its source tables' (`source` rules) and its
/// operators'.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct QueryView {
    pub name: String,
    pub sink: Option<String>,
    pub sources: Vec<String>,
    pub facts: Map<String, Value>,
    pub source_tables: Vec<Map<String, Value>>,
    pub operators: Vec<OperatorView>,
}

/// One operator: its kind, Flink's node, and the facts of its kind.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct OperatorView {
    pub kind: String,
    pub flink_node: String,
    pub facts: Map<String, Value>,
    /// The other queries of its job (a statement set) the tool believes Flink computes this
    /// operator once for, with this one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shared_with: Vec<String>,
}

/// One side's facts of a pair's facts (`new`), with the facts of the pair (`feeds_state`,
/// `changed_items`, ...) the rules of `operator` read, though not the relations.
fn one_side(facts: &Value, operator: &str) -> Map<String, Value> {
    let (_, new) = pair::sides(facts);
    let mut side = new.cloned().unwrap_or_default();
    // The pair's own facts, by the names their facts type declares.
    for (name, _, _) in super::schema::pair_facts(operator) {
        if let Some(value) = facts.get(name) {
            side.insert(name.to_string(), value.clone());
        }
    }
    side
}

/// Every fact the rules read of this script: the job and each query, with its facts, source
/// tables and operators (no notes: the caller adds them).
pub fn script_facts(plan: &Plan) -> ScriptFacts {
    let pairs = match_queries(plan, plan);
    let job = Job::of_pairs(plan, plan, &pairs);
    let shared: HashMap<*const Operator, Vec<String>> =
        super::shared_operators::shared_operators(plan)
            .into_iter()
            .flatten()
            .map(|(op, with)| {
                let names = with.iter().map(|&q| plan.queries[q].name.clone()).collect();
                (op as *const Operator, names)
            })
            .collect();
    let queries: Vec<QueryView> = pairs
        .iter()
        .filter_map(|pair| {
            let query = pair.new?;
            let source_tables = pair
                .sources
                .iter()
                .map(|s| one_side(&operator_facts(s, &[], &job).json, "source"))
                .collect();
            let operators = query
                .operators
                .iter()
                .map(|o| OperatorView {
                    kind: o.kind.name().to_string(),
                    flink_node: o.flink_node.to_string(),
                    facts: o.rule_facts().clone(),
                    shared_with: shared
                        .get(&(o as *const Operator))
                        .cloned()
                        .unwrap_or_default(),
                })
                .collect();
            Some(QueryView {
                name: query.name.clone(),
                sink: query.sink.clone(),
                sources: query.sources.clone(),
                facts: one_side(&query_facts(pair, &job).json(&job), "query"),
                source_tables,
                operators,
            })
        })
        .collect();
    let configuration = plan
        .catalog
        .config
        .entries()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    ScriptFacts {
        job: JobView {
            config: job.config,
            configuration,
            statements_read_past: plan.catalog.read_past_texts(&plan.file),
        },
        queries,
        notes: Vec::new(),
    }
}
