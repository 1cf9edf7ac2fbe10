//! The facts a rule may use, per operator kind: the type of each fact of the old and new
//! operator, the relations derived from every list fact, and the job configuration.

use crate::diff::relations::ListRelation;
use crate::fact_schema::{FactSchema, FactType};
use crate::facts::job::{
    ConfigFacts, ConfigKeyItem, QueryFacts, QueryPairFacts, SourcePairFacts, TableOptionItem,
};
use crate::facts::{self, facts_of, pair, Fact};
use crate::plan::OperatorKind;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::OnceLock;

type Rows = Vec<(&'static str, FactType, &'static str)>;

fn rows(facts: Vec<Fact>) -> Rows {
    facts.iter().map(Fact::row).collect()
}

/// The facts of one side (old or new) of an operator of this kind, with a line of meaning each
/// (from the kind's facts type, `crate::facts`).
pub fn operator_facts(kind: OperatorKind) -> Rows {
    rows(facts::operator_facts(kind))
}

/// Configuration facts every rule may read.
pub fn config_facts() -> Rows {
    rows(facts_of::<ConfigFacts>())
}

/// Facts of a query (one INSERT or bare SELECT) pair.
pub fn query_facts() -> Rows {
    rows(facts_of::<QueryFacts>())
}

/// Facts of a pair as a whole, beside `old`, `new`, the relations and `config`.
pub fn pair_facts(operator: &str) -> Rows {
    match operator {
        "query" => rows(facts_of::<QueryPairFacts>()),
        "source" => rows(facts_of::<SourcePairFacts>()),
        _ => Vec::new(),
    }
}

/// The schema a rule file for `operator` (an operator kind, or `query`) is checked against.
pub fn schema_for(operator: &str) -> Option<FactSchema> {
    if let Some(facts) = item_facts(operator) {
        let mut root: BTreeMap<String, FactType> = facts
            .into_iter()
            .map(|(k, t, _)| (k.to_string(), t))
            .collect();
        root.insert(pair::CONFIG.into(), config_object());
        return Some(FactSchema { root });
    }
    let side = if operator == "query" {
        query_facts()
    } else {
        operator_facts(OperatorKind::from_name(operator)?)
    };
    let mut schema = schema(&side);
    for (name, fact_type, _) in pair_facts(operator) {
        schema.root.insert(name.to_string(), fact_type);
    }
    Some(schema)
}

/// The whole schema a predicate of this rule file is checked against.
pub fn schema(side: &[(&'static str, FactType, &'static str)]) -> FactSchema {
    let side_type = FactType::Object(
        side.iter()
            .map(|(k, t, _)| (k.to_string(), t.clone()))
            .collect(),
    );
    let mut root: BTreeMap<String, FactType> = BTreeMap::new();
    root.insert(pair::OLD.into(), side_type.clone());
    root.insert(pair::NEW.into(), side_type);
    for (name, fact_type, _) in side {
        if let FactType::List(inner) = fact_type {
            root.insert(name.to_string(), ListRelation::<Value>::fact_type(inner));
        }
    }
    root.insert(pair::CONFIG.into(), config_object());
    FactSchema { root }
}

fn config_object() -> FactType {
    FactType::Object(
        config_facts()
            .into_iter()
            .map(|(k, t, _)| (k.to_string(), t))
            .collect(),
    )
}

/// The rule kinds judged once per changed item, beside the operator kinds and `query`.
pub const ITEM_KINDS: [&str; 2] = ["config_key", "table_option"];

/// Facts of one changed item: a configuration key (`config_key`) or a source table's WITH
/// option (`table_option`).
pub fn item_facts(kind: &str) -> Option<Rows> {
    match kind {
        "config_key" => Some(rows(facts_of::<ConfigKeyItem>())),
        "table_option" => Some(rows(facts_of::<TableOptionItem>())),
        _ => None,
    }
}

/// Facts that are views of one another share a group: a rule that reads one of them explains a
/// change in the others (e.g. `plain_aggregates` is a view of `aggregates`). The groups are
/// declared on the facts types (`#[group = ...]`).
pub fn coverage_group(key: &str) -> &str {
    static GROUPS: OnceLock<BTreeMap<&'static str, &'static str>> = OnceLock::new();
    let groups = GROUPS.get_or_init(|| {
        OperatorKind::ALL
            .into_iter()
            .flat_map(facts::operator_facts)
            .chain(facts_of::<QueryFacts>())
            .filter_map(|f| Some((f.name, f.group?)))
            .collect()
    });
    groups.get(key).copied().unwrap_or(key)
}

/// The facts of the rule files for `operator` that other pairs judge (`#[judged_by]` on the
/// facts types), with those pairs: its fail-safe does not count a change of them.
pub fn judged_by(operator: &str) -> Vec<(&'static str, &'static str)> {
    let facts = if operator == "query" {
        facts_of::<QueryFacts>()
    } else {
        OperatorKind::from_name(operator)
            .map(facts::operator_facts)
            .unwrap_or_default()
    };
    facts
        .into_iter()
        .filter_map(|f| Some((f.name, f.judged_by?)))
        .collect()
}

/// The names of the facts `judged_by` lists.
pub fn judged_elsewhere(operator: &str) -> Vec<&'static str> {
    judged_by(operator)
        .into_iter()
        .map(|(name, _)| name)
        .collect()
}
