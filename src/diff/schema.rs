//! The facts a rule may use, per operator kind: the type of each fact of the old and new
//! operator, the relations derived from every list fact, and the job configuration.

use crate::plan::OperatorKind;
use crate::rules::dsl::{FactSchema, FactType};
use std::collections::BTreeMap;

pub fn object(fields: &[(&str, FactType)]) -> FactType {
    FactType::Object(
        fields
            .iter()
            .map(|(k, t)| (k.to_string(), t.clone()))
            .collect(),
    )
}

pub fn strings() -> FactType {
    FactType::List(Box::new(FactType::String))
}

/// The facts of one side (old or new) of an operator of this kind, with a line of meaning each.
pub fn operator_facts(kind: OperatorKind) -> Vec<(&'static str, FactType, &'static str)> {
    use FactType::*;
    let aggregates = vec![
        (
            "aggregates",
            strings(),
            "every aggregate call, canonical (e.g. SUM(b), COUNT(DISTINCT c)), in order",
        ),
        (
            "plain_aggregates",
            strings(),
            "the aggregates without DISTINCT",
        ),
        (
            "distinct_aggregates",
            strings(),
            "the aggregates with DISTINCT",
        ),
        (
            "python_udafs",
            strings(),
            "aggregates whose function is declared LANGUAGE PYTHON",
        ),
        (
            "undeclared_aggregates",
            strings(),
            "aggregates whose function is neither built in nor declared",
        ),
        (
            "udafs",
            strings(),
            "aggregates whose function is declared with CREATE FUNCTION",
        ),
        (
            "filters",
            strings(),
            "filter terms applied upstream of the operator (WHERE), canonical",
        ),
    ];
    let group_window = object(&[
        ("kind", String),
        ("size_ms", Number),
        ("slide_ms", Number),
        ("gap_ms", Number),
        ("time_attribute", String),
        ("time_kind", String),
    ]);
    let order = object(&[
        ("key", String),
        ("direction", String),
        ("time_kind", String),
    ]);
    match kind {
        OperatorKind::GroupWindowAggregate => {
            let mut facts = vec![
                ("window", group_window, "the group window: kind (tumble|hop|session), size_ms, slide_ms, gap_ms, time_attribute, time_kind (rowtime|proctime)"),
                ("keys", strings(), "the GROUP BY keys other than the window, canonical, in order"),
                ("window_key_position", Number, "the position of the window function among the GROUP BY items"),
                ("window_properties", strings(), "the window properties selected: start, end, rowtime, proctime"),
                (
                    "emit",
                    object(&[("early_fire", Bool), ("early_fire_delay", String), ("late_fire", Bool), ("late_fire_delay", String), ("allow_lateness", String)]),
                    "early/late-fire configuration in force",
                ),
            ];
            facts.extend(aggregates);
            facts
        }
        OperatorKind::WindowAggregate => {
            let mut facts = vec![
                (
                    "window",
                    object(&[
                        ("kind", String),
                        ("size_ms", Number),
                        ("slide_ms", Number),
                        ("step_ms", Number),
                        ("gap_ms", Number),
                        ("offset_ms", Number),
                        ("time_attribute", String),
                        ("time_kind", String),
                        ("partition", strings()),
                    ]),
                    "the window TVF: kind (tumble|hop|cumulate|session), its sizes in ms, time_attribute, time_kind, partition (the keys of `TABLE t PARTITION BY k`)",
                ),
                ("keys", strings(), "the GROUP BY keys other than window_start / window_end / window_time, in order"),
                ("window_keys", strings(), "which of window_end, window_start, window_time are GROUP BY keys (sorted)"),
                ("window_key_positions", FactType::List(Box::new(Number)), "positions of the window columns among the GROUP BY items"),
                ("steps_after_window", Number, "projections between the window TVF and the GROUP BY"),
                (
                    "emit",
                    object(&[("early_fire", Bool), ("early_fire_delay", String), ("late_fire", Bool), ("late_fire_delay", String), ("allow_lateness", String)]),
                    "early/late-fire configuration in force",
                ),
            ];
            facts.extend(aggregates);
            facts
        }
        OperatorKind::GroupAggregate => {
            let mut facts = vec![("keys", strings(), "the GROUP BY keys, canonical, in order")];
            facts.extend(aggregates);
            facts
        }
        OperatorKind::OverAggregate => {
            let mut facts = vec![
                ("partition_keys", strings(), "PARTITION BY expressions, canonical, in order"),
                ("order", order, "ORDER BY: key, direction (asc), time_kind"),
                ("frame", object(&[("units", String), ("preceding", Any)]), "the frame: units (rows|range) and preceding bound (\"unbounded\", a row count, or milliseconds)"),
                ("input_schema", strings(), "the columns flowing into the operator (it stores and outputs its input rows)"),
            ];
            facts.extend(aggregates);
            facts
        }
        OperatorKind::Deduplicate => vec![
            (
                "mode",
                String,
                "proctime_asc (keep first), proctime_desc (keep last) or rowtime",
            ),
            (
                "order",
                order,
                "ORDER BY: key, direction (asc|desc), time_kind",
            ),
            ("keep", String, "first or last"),
            (
                "partition_keys",
                strings(),
                "PARTITION BY expressions, canonical, in order",
            ),
            (
                "input_schema",
                strings(),
                "the columns flowing into the deduplication, as Flink prunes them",
            ),
            (
                "value_fields",
                strings(),
                "input_schema without the partition keys and the order key",
            ),
            (
                "outputs",
                strings(),
                "what the enclosing query selects, canonical, in order",
            ),
            (
                "filters",
                strings(),
                "filter terms applied upstream of the operator, canonical",
            ),
            (
                "filters_after",
                strings(),
                "the other terms of the WHERE bounding the rank (`rk = 1 AND x > 0`), canonical, sorted: they run after the deduplication",
            ),
        ],
        OperatorKind::Source => vec![
            ("name", String, "the table's name as the query reads it"),
            (
                "declared",
                Bool,
                "whether the script declares it with CREATE TABLE",
            ),
            (
                "connector",
                String,
                "the 'connector' option (the only WITH option checked)",
            ),
            (
                "changelog",
                String,
                "insert-only, upsert, changelog:<format> or changelog-mode:<mode>",
            ),
            ("primary_key", strings(), "PRIMARY KEY columns, in order"),
            (
                "sharding",
                strings(),
                "WITH options about sharding, key=value",
            ),
            (
                "options",
                strings(),
                "every WITH option, key=value, sorted (each one that differs is judged by a table_option rule)",
            ),
            (
                "columns",
                strings(),
                "every column as declared (`b BIGINT`, `c AS a + 1`, `m INT METADATA`)",
            ),
            (
                "watermark_column",
                String,
                "the column of the WATERMARK (the rowtime attribute)",
            ),
            ("watermark", String, "the WATERMARK expression"),
        ],
        OperatorKind::TopN | OperatorKind::WindowTopN => super::ranking_facts::facts(kind),
        OperatorKind::Join
        | OperatorKind::IntervalJoin
        | OperatorKind::TemporalJoin
        | OperatorKind::LookupJoin => super::join_facts::facts(kind),
        OperatorKind::MatchRecognize | OperatorKind::TemporalSort | OperatorKind::Limit => {
            super::other_facts::facts(kind)
        }
        OperatorKind::Opaque => vec![
            (
                "flink_kind",
                String,
                "what Flink plans (join, rank, match_recognize, ...)",
            ),
            (
                "fingerprint",
                String,
                "the operator's whole canonical lineage (what it computes over the rows it reads, views, CTEs, subqueries, filters and source tables beneath inlined): any change changes it",
            ),
            ("reason", String, "why the tool does not model it in detail"),
        ],
    }
}

/// Configuration facts every rule may read.
pub fn config_facts() -> Vec<(&'static str, FactType, &'static str)> {
    vec![
        (
            "ignore_filter",
            FactType::Bool,
            "table.optimizer.state-compatibility.ignore-filter",
        ),
        (
            "ignore_sink",
            FactType::Bool,
            "table.optimizer.state-compatibility.ignore-sink",
        ),
        (
            "ignore_unclaimed_state",
            FactType::Bool,
            "execution.state-recovery.ignore-unclaimed-state (open-source Flink: restore without the state no operator claims)",
        ),
        (
            "uid_generation",
            FactType::String,
            "table.exec.uid.generation of the new job, upper case (PLAN_ONLY by default; open-source Flink: ALWAYS sets operator uids from the plan)",
        ),
        (
            "engine_version_changed",
            FactType::Bool,
            "engine.version differs between old and new",
        ),
        (
            "changed_keys",
            FactType::List(Box::new(FactType::String)),
            "configuration keys whose value in force differs, except those that cannot change state",
        ),
        (
            "unmodelled_statements_changed",
            FactType::Bool,
            "the statements the tool reads past (DROP, USE, ALTER, ...) differ",
        ),
        (
            "changed_functions",
            FactType::List(Box::new(FactType::String)),
            "functions of the old job removed or declared again with another class, language or resources (USING JAR)",
        ),
        (
            "unused_tables_changed",
            FactType::List(Box::new(FactType::String)),
            "tables no query of either job reads or writes, and views no query reads, that were added, removed or declared otherwise",
        ),
        (
            "warnings_added",
            FactType::List(Box::new(FactType::String)),
            "warnings of the new script the old one does not have: mistakes Flink's planner rejects (a column its subquery does not select, an unknown table alias), resolved as the author evidently meant",
        ),
        (
            "added_functions",
            FactType::List(Box::new(FactType::String)),
            "functions the new job declares and the old one did not",
        ),
    ]
}

/// Facts of a query (one INSERT or bare SELECT) pair.
pub fn query_facts() -> Vec<(&'static str, FactType, &'static str)> {
    vec![
        (
            "exists",
            FactType::Bool,
            "whether the query exists on this side",
        ),
        (
            "sink",
            FactType::String,
            "the sink table's name (null for a bare query)",
        ),
        (
            "operators",
            strings(),
            "the kinds of its stateful operators, upstream first",
        ),
        ("sources", strings(), "the source tables it reads"),
        (
            "union_inputs",
            strings(),
            "the inputs of its UNION ALLs, canonical, sorted (their order does not matter)",
        ),
        (
            "sink_options",
            FactType::String,
            "the sink table's primary key and WITH options (null when undeclared)",
        ),
        (
            "sink_columns",
            strings(),
            "the sink table's columns as declared",
        ),
        (
            "insert_columns",
            strings(),
            "the column list of INSERT INTO sink (a, b), empty without one",
        ),
        (
            "sink_deleted",
            FactType::Bool,
            "the sink's CREATE TABLE is in the old script and not in the new one",
        ),
        (
            "hints",
            strings(),
            "optimizer hints (/*+ ... */) of the query and the views it reads",
        ),
    ]
}

/// Facts of a pair as a whole, beside `old`, `new`, the relations and `config`.
pub fn pair_facts(operator: &str) -> Vec<(&'static str, FactType, &'static str)> {
    match operator {
        "query" => vec![
            (
                "changed_items",
                strings(),
                "the items of this query changed at once: the aggregates, the filter (WHERE) of each stateful operator, the sink",
            ),
            (
                "projection_changed",
                FactType::Bool,
                "what the query writes changed while its stateful operators and source tables did not (a projection after them)",
            ),
            (
                "rows_changed",
                FactType::Bool,
                "which rows the query writes changed while its stateful operators and source tables did not (a filter after them: a HAVING, a WHERE over their output)",
            ),
            (
                "renamed_outputs",
                strings(),
                "output columns computing the same thing under another name, `old -> new`",
            ),
            (
                "deployment_changed_items",
                strings(),
                "when this query changed an item: the items changed in the whole deployment, `query: item` (VVR counts them per deployment)",
            ),
            (
                "other_temporary_tables_changed",
                strings(),
                "when the query's sink table was deleted: the other TEMPORARY TABLEs removed or declared otherwise",
            ),
            (
                "topology_changed_elsewhere",
                strings(),
                "the other queries of the job added, removed, or with other UNION ALL inputs, stateful operators or source tables (the first 10): the job's stream graph changed around this query",
            ),
            (
                "topology_changed_before",
                strings(),
                "those of topology_changed_elsewhere translated before this query (earlier in the old or the new script)",
            ),
            (
                "moved_among_queries",
                FactType::Bool,
                "the query's place among the queries both jobs have changed: the INSERTs were reordered",
            ),
        ],
        "source" => vec![
            (
                "both_declared",
                FactType::Bool,
                "whether both scripts declare the table with CREATE TABLE",
            ),
            (
                "feeds_state",
                FactType::Bool,
                "whether the query reading the table has stateful operators",
            ),
            (
                "read_column_types_changed",
                strings(),
                "columns the query reads, stored on both sides, whose type changed",
            ),
            (
                "read_columns_redefined",
                strings(),
                "columns the query reads that were added, removed, or redefined (computed on one side, or another computation)",
            ),
            (
                "unread_columns_changed",
                strings(),
                "columns the query does not read that were added, removed or changed",
            ),
        ],
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
        root.insert("config".into(), config_object());
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
    root.insert("old".into(), side_type.clone());
    root.insert("new".into(), side_type);
    for (name, fact_type, _) in side {
        if let FactType::List(inner) = fact_type {
            root.insert(name.to_string(), relation_type(inner));
        }
    }
    root.insert("config".into(), config_object());
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
pub fn item_facts(kind: &str) -> Option<Vec<(&'static str, FactType, &'static str)>> {
    use FactType::*;
    match kind {
        "config_key" => Some(vec![
            ("key", String, "the key (a mistyped key: the known key it evidently means)"),
            ("written", String, "the key as written in the script or --set"),
            ("old_value", String, "its value in force in the old job (null: unset, no default)"),
            ("new_value", String, "its value in force in the new job (null: unset, no default)"),
            ("known", Bool, "whether the tool knows the key"),
        ]),
        "table_option" => Some(vec![
            ("table", String, "the source (or dimension) table"),
            ("connector", String, "its 'connector' option (the new one when it changed)"),
            ("key", String, "the WITH option"),
            ("old_value", String, "its value in the old script (null: absent)"),
            ("new_value", String, "its value in the new script (null: absent)"),
            ("role", String, "the option's role in the connector's table (rules/connectors/*.yaml): identity, consumer, startup, split, emits, lookup_async, lookup_cache, tuning, sink; null when the table does not list it"),
            ("reason", String, "why the option has this role, from the connector's table"),
            ("documented", Bool, "whether a connector table describes the connector"),
            ("feeds_state", Bool, "whether the query reading the table has stateful operators"),
        ]),
        _ => None,
    }
}

fn relation_type(item: &FactType) -> FactType {
    let list = FactType::List(Box::new(item.clone()));
    object(&[
        ("kept", list.clone()),
        ("added", list.clone()),
        ("removed", list),
        ("equal_as_list", FactType::Bool),
        ("equal_as_set", FactType::Bool),
        ("reordered", FactType::Bool),
    ])
}

/// Facts that are views of one another share a group: a rule that reads one of them explains a
/// change in the others (e.g. `plain_aggregates` is a view of `aggregates`).
pub fn coverage_group(key: &str) -> &str {
    match key {
        "aggregates"
        | "plain_aggregates"
        | "distinct_aggregates"
        | "python_udafs"
        | "undeclared_aggregates"
        | "udafs" => "aggregates",
        "keys" | "window_key_position" | "window_key_positions" | "window_keys" => "keys",
        // An interval join's bounds, as text and as numbers.
        "time_bounds" | "lower_bound_ms" | "upper_bound_ms" => "time_bounds",
        // A join's keys are terms of its condition; a pattern's body and WITHIN, parts of it.
        "join_keys" => "conditions",
        "pattern_body" | "within_ms" => "pattern",
        // A deduplication's input schema is its value fields, partition keys and order key.
        // Which sort keys a temporal sort selects, and so which selected columns are its other
        // fields, follows from its sort keys.
        "sort_keys" | "sort_keys_selected" | "fields" => "sort_keys",
        // So is a Top-N's (key_fields: its partition and order keys).
        "input_schema" | "value_fields" | "outputs" | "partition_keys" | "order" | "keep"
        | "mode" | "key_fields" => "row",
        other => other,
    }
}
