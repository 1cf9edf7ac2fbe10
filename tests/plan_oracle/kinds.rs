//! Per node kind, the attributes the oracle compares, read from Flink's recorded node and from
//! the tool's operator facts into the same normalized text (see `normal.rs`). An attribute is
//! compared only when both sides produce it: an opaque operator has its kind and no attribute.

use super::normal::{self, Normal};
use flink_compat::plan::{Operator, OperatorKind};
use serde_json::Value;
use std::collections::BTreeMap;

fn strs(v: Option<&Value>) -> Vec<&str> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

const WINDOW_BOUNDS: [&str; 2] = ["window_start", "window_end"];

/// A recorded Flink node, normalized.
pub fn from_flink(node: &Value) -> Normal {
    let raw = node.get("node").and_then(Value::as_str).unwrap_or("?");
    let kind = normal::flink_kind(raw);
    let mut attrs = BTreeMap::new();
    let get = |k: &str| node.get(k);
    match kind.as_str() {
        "group-aggregate" | "group-window-aggregate" | "window-aggregate" => {
            if kind != "group-window-aggregate" {
                // The global half of a local/global split, or one aggregate.
                let split = raw.starts_with("global-") || raw.starts_with("incremental-");
                attrs.insert("two_phase", split.to_string());
            }
            attrs.insert("keys", normal::fields(strs(get("keys"))));
            attrs.insert("aggregates", aggregates(strs(get("aggregates"))));
            if let Some(w) = get("window").filter(|w| !w.is_null()) {
                attrs.insert("window", normal::flink_window(w));
                // A window TVF aggregate's windowing strategy: the TVF kept apart
                // (WindowAttached: state per window) or merged (per slice).
                if let Some(strategy) = w.get("strategy").and_then(Value::as_str) {
                    attrs.insert(
                        "window_strategy",
                        window_strategy(strategy == "WindowAttached"),
                    );
                }
            }
        }
        "over-aggregate" => {
            // The row it stores (recorded since red team round 19).
            if get("row").is_some() {
                attrs.insert("row", normal::fields(strs(get("row"))));
            }
            attrs.insert("partition", normal::field_set(strs(get("partition"))));
            attrs.insert("order", normal::order(strs(get("order"))));
            attrs.insert("aggregates", aggregates(strs(get("aggregates"))));
        }
        "deduplicate" => {
            attrs.insert("partition", normal::field_set(strs(get("partition"))));
            if let Some(k) = text(get("keep")) {
                attrs.insert("keep", k);
            }
            if let Some(t) = text(get("time")) {
                attrs.insert("time", t);
            }
        }
        "rank" | "window-rank" => {
            let partition = strs(get("partition"))
                .into_iter()
                .filter(|p| !WINDOW_BOUNDS.contains(p));
            attrs.insert("partition", normal::field_set(partition));
            attrs.insert("order", normal::order(strs(get("order"))));
            if let Some(f) = text(get("function")) {
                attrs.insert("function", f);
            }
            if let Some(r) = get("range").and_then(Value::as_array) {
                let r: Vec<String> = r.iter().map(|x| x.to_string()).collect();
                attrs.insert("range", r.join(".."));
            }
            // Whether a Top-N outputs its rank number (a window Top-N's, the tool lists it among
            // its outputs).
            if let (Some(output), "rank") =
                (get("rank_output").and_then(Value::as_bool), kind.as_str())
            {
                attrs.insert("rank_output", output.to_string());
            }
        }
        "join" | "interval-join" | "temporal-join" | "window-join" => {
            if let Some(t) = text(get("join_type")) {
                attrs.insert("join_type", t);
            }
            attrs.insert("keys", key_pairs(strs(get("keys"))));
        }
        "lookup-join" => {
            if let Some(t) = text(get("join_type")) {
                attrs.insert("join_type", t);
            }
            if let Some(t) = text(get("table")) {
                attrs.insert("table", t.to_lowercase());
            }
        }
        "match" => {
            attrs.insert("partition", normal::fields(strs(get("partition"))));
        }
        _ => {}
    }
    attrs.insert(
        "filter_columns",
        normal::filter_columns(strs(get("filters"))),
    );
    Normal { kind, attrs }
}

/// One of the tool's operators, normalized; none for a source table (a scan keeps no state).
pub fn from_tool(op: &Operator) -> Option<Normal> {
    if op.kind == OperatorKind::Source {
        return None;
    }
    let kind = op
        .flink_node
        .strip_prefix("stream-exec-")
        .unwrap_or(op.flink_node)
        .to_string();
    let f = op.rule_facts();
    let get = |k: &str| f.get(k);
    let mut attrs = BTreeMap::new();
    if let Some(split) = get("two_phase").and_then(Value::as_bool) {
        attrs.insert("two_phase", split.to_string());
    }
    match op.kind {
        OperatorKind::GroupAggregate
        | OperatorKind::GroupWindowAggregate
        | OperatorKind::WindowAggregate
            if grouping_sets(op) =>
        {
            // Flink reads a grouping-sets aggregate's fields through its Expand (the lab names
            // them `expand_output`): its keys, then the grouping set's id `$e`.
            let keys = strs(get("keys"));
            attrs.insert("keys", vec!["expr"; keys.len() + 1].join(", "));
            let calls = strs(get("aggregates")).into_iter().map(expanded_aggregate);
            attrs.insert("aggregates", calls.collect::<Vec<_>>().join(", "));
        }
        OperatorKind::GroupAggregate
        | OperatorKind::GroupWindowAggregate
        | OperatorKind::WindowAggregate => {
            attrs.insert("keys", normal::fields(strs(get("keys"))));
            attrs.insert("aggregates", aggregates(strs(get("aggregates"))));
            if let Some(w) = get("window").filter(|w| w.is_object()) {
                attrs.insert("window", normal::tool_window(w));
            }
            if let Some(attached) = get("window_attached").and_then(Value::as_bool) {
                attrs.insert("window_strategy", window_strategy(attached));
            }
        }
        OperatorKind::OverAggregate => {
            attrs.insert("row", normal::fields(strs(get("input_schema"))));
            attrs.insert("partition", normal::field_set(strs(get("partition_keys"))));
            if let Some(o) = get("order") {
                let key = o.get("key").and_then(Value::as_str).unwrap_or("?");
                let dir = o.get("direction").and_then(Value::as_str).unwrap_or("asc");
                attrs.insert("order", normal::order_item(&format!("{key} {dir}")));
            }
            attrs.insert("aggregates", aggregates(strs(get("aggregates"))));
        }
        OperatorKind::Deduplicate => {
            attrs.insert("partition", normal::field_set(strs(get("partition_keys"))));
            if let Some(k) = text(get("keep")) {
                attrs.insert("keep", k);
            }
            if let Some(t) = get("order").and_then(|o| text(o.get("time_kind"))) {
                attrs.insert("time", t);
            }
        }
        OperatorKind::TopN | OperatorKind::WindowTopN => {
            let partition = strs(get("partition_keys"))
                .into_iter()
                .filter(|p| !WINDOW_BOUNDS.contains(p));
            attrs.insert("partition", normal::field_set(partition));
            attrs.insert("order", normal::order(strs(get("order"))));
            if let Some(t) = text(get("function")) {
                attrs.insert("function", t);
            }
            if let (Some(s), Some(e)) = (text(get("rank_start")), text(get("rank_end"))) {
                attrs.insert("range", format!("{s}..{e}"));
            }
            if let (Some(output), OperatorKind::TopN) =
                (get("rank_output").and_then(Value::as_bool), op.kind)
            {
                attrs.insert("rank_output", output.to_string());
            }
        }
        OperatorKind::Join
        | OperatorKind::IntervalJoin
        | OperatorKind::TemporalJoin
        | OperatorKind::WindowJoin => {
            if let Some(t) = text(get("join_type")) {
                attrs.insert("join_type", t);
            }
            attrs.insert("keys", key_pairs(strs(get("join_keys"))));
        }
        OperatorKind::LookupJoin => {
            if let Some(t) = text(get("join_type")) {
                attrs.insert("join_type", t);
            }
            if let Some(t) = text(get("lookup_table")) {
                let last = t.rsplit('.').next().unwrap_or(&t).trim_matches('`');
                attrs.insert("table", last.to_lowercase());
            }
        }
        OperatorKind::MatchRecognize => {
            attrs.insert("partition", normal::fields(strs(get("partition_keys"))));
        }
        _ => {}
    }
    if let Some(filters) = get("filters") {
        // A correlate beneath the operator (`expanded-by[UNNEST(...)]`) is one of the tool's
        // filters of its input; Flink's record has it as a Correlate node, not a Calc condition.
        let terms = strs(Some(filters))
            .into_iter()
            .filter(|t| !t.starts_with("expanded-by["));
        attrs.insert("filter_columns", normal::filter_columns(terms));
    }
    Some(Normal { kind, attrs })
}

/// Whether the operator is a group aggregate with grouping sets (an Expand beneath it).
fn grouping_sets(op: &Operator) -> bool {
    op.rule_facts()
        .get("grouping_sets")
        .and_then(Value::as_str)
        .is_some_and(|s| !s.is_empty())
}

/// An aggregate call as Flink computes it above an Expand: each argument read through it.
fn expanded_aggregate(item: &str) -> String {
    let call = normal::aggregate(item);
    let Some((name, rest)) = call.split_once('(') else {
        return call;
    };
    let inner = rest.strip_suffix(')').unwrap_or(rest);
    let (distinct, args) = match inner.strip_prefix("DISTINCT ") {
        Some(args) => ("DISTINCT ", args),
        None => ("", inner),
    };
    if args == "*" || args.is_empty() {
        return call;
    }
    let count = args.split(", ").count();
    format!("{name}({distinct}{})", vec!["expr"; count].join(", "))
}

fn aggregates<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    items
        .into_iter()
        .map(normal::aggregate)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Join key pairs `a = b` in order (Flink keys a join's state by its keys in the order its
/// condition writes them: the plan's `leftKeys`), each pair's sides sorted; a pair written
/// twice counts once, where it is first written.
fn key_pairs<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    let mut pairs: Vec<String> = Vec::new();
    for p in items.into_iter().filter_map(pair) {
        if !pairs.contains(&p) {
            pairs.push(p);
        }
    }
    pairs.join(", ")
}

fn pair(term: &str) -> Option<String> {
    let (a, b) = normal::split_equality(term)?;
    let mut sides = [normal::field(a), normal::field(b)];
    sides.sort();
    Some(format!("{} = {}", sides[0], sides[1]))
}

/// A window TVF aggregate's windowing strategy, as both sides name it.
fn window_strategy(attached: bool) -> String {
    if attached { "window-attached" } else { "slice" }.to_string()
}
