//! The facts of each changed item judged by per-item rules (`rules::items`): configuration keys
//! whose value in force differs, and WITH options of a source table that differ.

use crate::catalog::config::{self, Origin};
use crate::catalog::connectors::Connectors;
use crate::catalog::duration;
use crate::facts::aggregate::Aggregates;
use crate::facts::job::{ConfigFacts, ConfigKeyItem, TableOptionItem};
use crate::facts::pair::item_value;
use crate::plan::{source_table, Operator, OperatorKind, Plan, QueryPlan};
use crate::source::ByteSpan;
use serde_json::Value;
use std::collections::BTreeMap;

/// One changed item: its facts, and where it is written in the old and the new script.
#[derive(Clone)]
pub struct Item {
    pub facts: Value,
    pub old_span: Option<ByteSpan>,
    pub new_span: Option<ByteSpan>,
    /// How the fail-safe names the item (e.g. `configuration key 'x'`).
    pub label: String,
}

/// One item per configuration key whose value in force differs between the two jobs.
pub fn config_items(
    old: &Plan,
    new: &Plan,
    changes: Vec<config::KeyChange>,
    config_facts: &ConfigFacts,
) -> Vec<Item> {
    let span = |plan: &Plan, key: &str| match plan.catalog.config.origin(key) {
        Some(Origin::Script(span)) => Some(*span),
        _ => None,
    };
    changes
        .into_iter()
        .map(|change| Item {
            facts: item_value(
                &ConfigKeyItem {
                    known: config::is_known(&change.key),
                    at_query: change.at_query,
                    query_distinct_aggregates: true,
                    query_cdc_sources: true,
                    query_operators: stateful_kinds(old.queries.iter().chain(&new.queries)),
                    key: change.key,
                    written: change.written.clone(),
                    old_millis: change.old.as_deref().and_then(duration::millis),
                    new_millis: change.new.as_deref().and_then(duration::millis),
                    old_number: change.old.as_deref().and_then(whole_number),
                    new_number: change.new.as_deref().and_then(whole_number),
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

/// A configuration value read as a whole number (`1000`, ` 5000 `).
fn whole_number(value: &str) -> Option<i64> {
    value.trim().parse().ok()
}

/// The configuration items as one query's rules read them: with whether the query has a
/// DISTINCT aggregate on either side (`query_distinct_aggregates`), and whether it reads a
/// source normalized only under `table.exec.source.cdc-events-duplicate` (`query_cdc_sources`).
pub fn config_items_for_query(items: &[Item], sides: [Option<&QueryPlan>; 2]) -> Vec<Item> {
    let queries = || sides.into_iter().flatten();
    let distinct = queries().any(has_distinct_aggregate);
    let cdc_sources = queries()
        .flat_map(|query| &query.source_tables)
        .any(source_table::normalized_by_cdc_duplicate);
    let operators = stateful_kinds(queries());
    items
        .iter()
        .map(|item| {
            let mut item = item.clone();
            if let Value::Object(facts) = &mut item.facts {
                facts.insert(
                    ConfigKeyItem::query_operators.name().to_string(),
                    Value::from(operators.clone()),
                );
                facts.insert(
                    ConfigKeyItem::query_distinct_aggregates.name().to_string(),
                    Value::Bool(distinct),
                );
                facts.insert(
                    ConfigKeyItem::query_cdc_sources.name().to_string(),
                    Value::Bool(cdc_sources),
                );
            }
            item
        })
        .collect()
}

/// The kinds of the stateful operators of the queries, sorted, once each: a source Flink
/// normalizes counts as `changelog_normalize`.
fn stateful_kinds<'q>(queries: impl Iterator<Item = &'q QueryPlan>) -> Vec<String> {
    let mut kinds = std::collections::BTreeSet::new();
    for query in queries {
        for op in query.operators.iter().filter(|op| op.keeps_state()) {
            kinds.insert(op.kind.name());
        }
        if query
            .source_tables
            .iter()
            .any(|s| s.has_list(crate::facts::operators::SourceFacts::normalized_read))
        {
            kinds.insert("changelog_normalize");
        }
    }
    kinds.into_iter().map(str::to_string).collect()
}

/// Whether a query has an aggregate call with DISTINCT, or an operator compared as a whole
/// (which may hide one); a fact that does not read counts as one.
fn has_distinct_aggregate(query: &QueryPlan) -> bool {
    query.operators.iter().any(|op| match op.kind {
        OperatorKind::Opaque => true,
        _ if op.has_list(Aggregates::distinct_aggregates) => op
            .read::<Aggregates>()
            .map_or(true, |a| !a.distinct_aggregates.is_empty()),
        _ => false,
    })
}

/// One item per WITH option of a source table declared on both sides whose value differs
/// (the connector itself is a fact of the table, judged by the source rules).
pub fn option_items(
    old: &Operator,
    new: &Operator,
    feeds_state: bool,
    connectors: &Connectors,
    config_facts: &ConfigFacts,
) -> Vec<Item> {
    let (old_options, new_options) = (&old.context.options, &new.context.options);
    let connector =
        |options: &BTreeMap<String, String>| options.get("connector").cloned().unwrap_or_default();
    let connector_name = match connector(new_options) {
        c if c.is_empty() => connector(old_options),
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
            let span = |op: &Operator, value: Option<&String>| -> Option<ByteSpan> {
                let written = value.and_then(|v| op.item_spans.get(&format!("{key}={v}")));
                Some(written.copied().unwrap_or(op.span))
            };
            Item {
                facts: item_value(
                    &TableOptionItem {
                        table: table.clone(),
                        connector: connector_name.clone(),
                        key: key.clone(),
                        old_value: old_options.get(key).cloned(),
                        new_value: new_options.get(key).cloned(),
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
