//! `flink-compat plan` shows every fact the rules read (docs/guide.md sends rule authors there):
//! the job's (`config.*`), each query's, its source tables' and its operators', in JSON and as
//! text.

use flink_compat::diff::schema;
use flink_compat::plan::OperatorKind;
use serde_json::Value;
use std::process::Command;

fn plan(format: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_flink-compat"))
        .args(["plan", "examples/new.sql", "--format", format])
        .output()
        .expect("runs");
    assert!(output.status.success(), "{output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn the_plan_shows_the_job_query_source_and_operator_facts() {
    let json: Value = serde_json::from_str(&plan("json")).expect("one JSON object");
    for (name, _, _) in schema::config_facts() {
        assert!(json["job"]["config"].get(name).is_some(), "config.{name}");
    }
    let query = &json["queries"][0];
    for (name, _, _) in schema::query_facts()
        .into_iter()
        .chain(schema::pair_facts("query"))
    {
        assert!(query["facts"].get(name).is_some(), "query fact {name}");
    }
    let source = &query["source_tables"][0];
    assert_eq!(source["name"], "page_views", "{source}");
    for (name, _, _) in schema::operator_facts(OperatorKind::Source)
        .into_iter()
        .chain(schema::pair_facts("source"))
    {
        assert!(source.get(name).is_some(), "source fact {name}: {source}");
    }
    assert_eq!(query["operators"][0]["kind"], "group_window_aggregate");
    assert!(query["operators"][0]["facts"]["window"].is_object());

    let text = plan("human");
    for line in [
        "job (every rule reads config.*)",
        "  config.ignore_filter: false",
        "query views_per_minute (sources: page_views)",
        "  query facts (rules of `query`: old.* / new.*)",
        "    sink: \"views_per_minute\"",
        "  source page_views (rules of `source`)",
        "  group_window_aggregate [stream-exec-group-window-aggregate]",
    ] {
        assert!(text.lines().any(|l| l == line), "{line:?} in:\n{text}");
    }
}
