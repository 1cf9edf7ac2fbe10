//! The facts of each changed item judged by per-item rules (`rules::items`): configuration keys
//! whose value in force differs, and WITH options of a source table that differ.

use crate::catalog::config::{self, Origin};
use crate::catalog::connectors::Connectors;
use crate::facts::job::{ConfigKeyItem, TableOptionItem};
use crate::facts::FactTyped;
use crate::plan::{Operator, Plan};
use crate::source::ByteSpan;
use serde::Serialize;
use serde_json::{Map, Value};

/// An item's facts as the rules read them: its own, and the job's beside them (`config.*`).
fn with_config<T: FactTyped + Serialize>(item: &T, config_facts: &Value) -> Value {
    let mut facts = crate::facts::to_map(item);
    facts.insert("config".into(), config_facts.clone());
    Value::Object(facts)
}

/// A WITH option's value (a string), as an item fact.
fn text(value: Option<&Value>) -> Option<String> {
    value.and_then(Value::as_str).map(str::to_string)
}

/// One changed item: its facts, and where it is written in the old and the new script.
pub struct Item {
    pub facts: Value,
    pub old_span: Option<ByteSpan>,
    pub new_span: Option<ByteSpan>,
    /// How the fail-safe names the item (e.g. `configuration key 'x'`).
    pub label: String,
}

/// One item per configuration key whose value in force differs between the two jobs.
pub fn config_items(old: &Plan, new: &Plan, config_facts: &Value) -> Vec<Item> {
    let span = |plan: &Plan, key: &str| match plan.catalog.config.origin(key) {
        Some(Origin::Script(span)) => Some(*span),
        _ => None,
    };
    config::changes(&old.catalog.config, &new.catalog.config)
        .into_iter()
        .map(|change| Item {
            facts: with_config(
                &ConfigKeyItem {
                    known: config::is_known(&change.key),
                    key: change.key,
                    written: change.written.clone(),
                    old_value: change.old,
                    new_value: change.new,
                },
                config_facts,
            ),
            old_span: span(old, &change.written),
            new_span: span(new, &change.written),
            label: format!("configuration key '{}'", change.written),
        })
        .collect()
}

/// A source table's WITH options, from its operator's context (key → value).
pub fn options_of(op: Option<&Operator>) -> Map<String, Value> {
    match op.and_then(|o| o.context.get("options")) {
        Some(Value::Object(map)) => map.clone(),
        _ => Map::new(),
    }
}

/// One item per WITH option of a source table declared on both sides whose value differs
/// (the connector itself is a fact of the table, judged by the source rules).
pub fn option_items(
    old: &Operator,
    new: &Operator,
    feeds_state: bool,
    connectors: &Connectors,
    config_facts: &Value,
) -> Vec<Item> {
    let (old_options, new_options) = (options_of(Some(old)), options_of(Some(new)));
    let connector = |options: &Map<String, Value>| {
        options
            .get("connector")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let connector_name = match connector(&new_options) {
        c if c.is_empty() => connector(&old_options),
        c => c,
    };
    let table = new.source_facts().map(|s| s.name);
    let mut keys: Vec<&String> = old_options.keys().chain(new_options.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| k.as_str() != "connector" && old_options.get(*k) != new_options.get(*k))
        .map(|key| {
            let role = connectors.role(&connector_name, key);
            // The option `'key' = 'value'` where it is written, else the whole declaration.
            let span = |op: &Operator, value: Option<&Value>| -> Option<ByteSpan> {
                let written = value
                    .and_then(Value::as_str)
                    .and_then(|v| op.item_spans.get(&format!("{key}={v}")));
                Some(written.copied().unwrap_or(op.span))
            };
            Item {
                facts: with_config(
                    &TableOptionItem {
                        table: table.clone(),
                        connector: connector_name.clone(),
                        key: key.clone(),
                        old_value: text(old_options.get(key)),
                        new_value: text(new_options.get(key)),
                        role: role.as_ref().map(|r| r.role.clone()),
                        reason: role.as_ref().map(|r| r.why.clone()),
                        documented: connectors.table(&connector_name).is_some(),
                        feeds_state,
                    },
                    config_facts,
                ),
                old_span: span(old, old_options.get(key)),
                new_span: span(new, new_options.get(key)),
                label: format!(
                    "option '{key}' of table {}",
                    table.as_deref().unwrap_or_default()
                ),
            }
        })
        .collect()
}
