//! `flink-compat plan`: every fact the rules read of one script (the job's, each query's, its
//! source tables' and its operators'), as JSON or as text.

use crate::plan::Plan;
use serde_json::Value;
use std::fmt::Write;

/// The facts of the script and the notes made reading it, as one JSON object.
pub fn facts(plan: &Plan) -> Value {
    let mut value = crate::diff::script_facts::script_facts(plan);
    let notes: Vec<&str> = plan
        .notes
        .items
        .iter()
        .map(|n| n.message.as_str())
        .collect();
    value["notes"] = serde_json::json!(notes);
    value
}

/// `flink-compat plan` for a person: the job's facts, then per query its own facts, its source
/// tables' and its operators', each fact on a line as `name: value` (values as JSON, as a
/// predicate compares them).
pub fn text(value: &Value) -> String {
    let mut out = String::new();
    let facts = |out: &mut String, prefix: &str, facts: &Value, indent: &str| {
        if let Some(map) = facts.as_object() {
            for (k, v) in map {
                let _ = writeln!(out, "{indent}{prefix}{k}: {v}");
            }
        }
    };
    let job = &value["job"];
    let _ = writeln!(out, "job (every rule reads config.*)");
    facts(&mut out, "config.", &job["config"], "  ");
    let _ = writeln!(out, "  configuration in force");
    if let Some(map) = job["configuration"].as_object() {
        for (k, v) in map {
            let _ = writeln!(out, "    {k} = {}", v.as_str().unwrap_or_default());
        }
    }
    let _ = writeln!(
        out,
        "  statements read past: {}",
        job["statements_read_past"]
    );
    for q in value["queries"].as_array().into_iter().flatten() {
        let sources: Vec<&str> = q["sources"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str())
            .collect();
        let _ = writeln!(
            out,
            "\nquery {} (sources: {})",
            q["name"].as_str().unwrap_or_default(),
            sources.join(", ")
        );
        let _ = writeln!(out, "  query facts (rules of `query`: old.* / new.*)");
        facts(&mut out, "", &q["facts"], "    ");
        for s in q["source_tables"].as_array().into_iter().flatten() {
            let _ = writeln!(
                out,
                "  source {} (rules of `source`)",
                s["name"].as_str().unwrap_or_default()
            );
            facts(&mut out, "", s, "    ");
        }
        for o in q["operators"].as_array().into_iter().flatten() {
            let _ = writeln!(
                out,
                "  {} [{}]",
                o["kind"].as_str().unwrap_or_default(),
                o["flink_node"].as_str().unwrap_or_default()
            );
            facts(&mut out, "", &o["facts"], "    ");
        }
    }
    for n in value["notes"].as_array().into_iter().flatten() {
        let _ = writeln!(out, "note: {}", n.as_str().unwrap_or_default());
    }
    out
}
