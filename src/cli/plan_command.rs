//! `flink-compat plan`: every fact the rules read of one script (the job's, each query's, its
//! source tables' and its operators'), as JSON or as text.

use crate::diff::script_facts::ScriptFacts;
use crate::facts::operators::SourceFacts;
use crate::facts::{pair, to_map};
use crate::plan::Plan;
use serde_json::{Map, Value};
use std::fmt::Write;

/// The facts of the script and the notes made reading it.
pub fn facts(plan: &Plan) -> ScriptFacts {
    let mut facts = crate::diff::script_facts::script_facts(plan);
    facts.notes = plan.notes.items.iter().map(|n| n.message.clone()).collect();
    facts
}

/// The facts as one JSON object (its keys sorted, as every JSON output of the tool).
pub fn json(facts: &ScriptFacts) -> Value {
    serde_json::to_value(facts).unwrap_or(Value::Null)
}

/// Each fact on a line as `{indent}{prefix}name: value`.
fn lines(out: &mut String, prefix: &str, facts: &Map<String, Value>, indent: &str) {
    for (k, v) in facts {
        let _ = writeln!(out, "{indent}{prefix}{k}: {v}");
    }
}

/// `flink-compat plan` for a person: the job's facts, then per query its own facts, its source
/// tables' and its operators', each fact on a line as `name: value` (values as JSON, as a
/// predicate compares them).
pub fn text(facts: &ScriptFacts) -> String {
    let mut out = String::new();
    let job = &facts.job;
    let _ = writeln!(out, "job (every rule reads {}.*)", pair::CONFIG);
    lines(
        &mut out,
        &format!("{}.", pair::CONFIG),
        &to_map(&job.config),
        "  ",
    );
    let _ = writeln!(out, "  configuration in force");
    for (k, v) in &job.configuration {
        let _ = writeln!(out, "    {k} = {v}");
    }
    let read_past = serde_json::to_string(&job.statements_read_past).unwrap_or_default();
    let _ = writeln!(out, "  statements read past: {read_past}");
    for q in &facts.queries {
        let _ = writeln!(
            out,
            "\nquery {} (sources: {})",
            q.name,
            q.sources.join(", ")
        );
        let _ = writeln!(out, "  query facts (rules of `query`: old.* / new.*)");
        lines(&mut out, "", &q.facts, "    ");
        for s in &q.source_tables {
            let name = s
                .get(SourceFacts::name.name())
                .and_then(Value::as_str)
                .unwrap_or_default();
            let _ = writeln!(out, "  source {name} (rules of `source`)");
            lines(&mut out, "", s, "    ");
        }
        for o in &q.operators {
            let _ = writeln!(out, "  {} [{}]", o.kind, o.flink_node);
            if !o.shared_with.is_empty() {
                let _ = writeln!(
                    out,
                    "    (computed once with: {})",
                    o.shared_with.join(", ")
                );
            }
            lines(&mut out, "", &o.facts, "    ");
        }
    }
    for n in &facts.notes {
        let _ = writeln!(out, "note: {n}");
    }
    out
}
