//! What the tool says about mistakes and names: misspelt verdicts and rule ids in case files,
//! `rules show` with a misspelt id, diagnostics free of Rust module paths, query titles, one
//! warning for one mistyped `--set` key, an option finding pointing at the option, a mistyped
//! statement keyword as a located error.

#[allow(dead_code)]
mod support;

use support::cli::run;

fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("flink-compat-messages-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path
}

const CASE: &str = "title: t\nold: |\n  SELECT a, COUNT(*) FROM T GROUP BY a;\nnew: |\n  SELECT a, COUNT(*), SUM(b) FROM T GROUP BY a;\nexpect:\n  verdict: VERDICT\n  findings: [FINDING]\n";

fn case_errors(verdict: &str, finding: &str) -> (i32, String) {
    let text = CASE.replace("VERDICT", verdict).replace("FINDING", finding);
    let path = temp_file(&format!("{verdict}-{finding}.yaml"), &text);
    let (code, out, err) = run(&["test", path.to_str().expect("utf-8")]);
    (code, format!("{out}{err}"))
}

#[test]
fn a_case_with_an_abbreviated_verdict_is_an_error_with_a_suggestion() {
    let (code, text) = case_errors("partial", "agg-added-output-aggregate");
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("`partial` is not a verdict"), "{text}");
    assert!(
        text.contains("did you mean `partially_compatible`?"),
        "{text}"
    );
}

#[test]
fn a_case_with_a_misspelt_rule_id_is_an_error_with_a_suggestion() {
    let (code, text) = case_errors("partially_compatible", "dedup-input-filter-chnged");
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("`dedup-input-filter-chnged` is not the id of a loaded"),
        "{text}"
    );
    assert!(
        text.contains("did you mean `dedup-input-filter-changed`?"),
        "{text}"
    );
}

#[test]
fn rules_show_with_a_misspelt_id_suggests_the_nearest() {
    let (code, _, err) = run(&["rules", "show", "dedup-input-filter-chnged"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("did you mean `dedup-input-filter-changed`?"),
        "{err}"
    );
}

#[test]
fn diagnostics_carry_no_rust_module_path() {
    let (_, _, usage) = run(&["rules", "show", "no-such-rule"]);
    let (_, located) = case_errors("partial", "x");
    let bad = temp_file("bad.sql", "SELECT a FROM t WHERE;\n");
    let (_, _, sql) = run(&[
        "check",
        bad.to_str().expect("utf-8"),
        bad.to_str().expect("utf-8"),
    ]);
    for text in [usage, located, sql] {
        assert!(!text.contains("flink_compat::"), "{text}");
    }
}

#[test]
fn a_bare_query_is_titled_once() {
    let old = temp_file("bare-old.sql", "SELECT a, COUNT(*) FROM T GROUP BY a;\n");
    let (_, out, err) = run(&[
        "check",
        old.to_str().expect("utf-8"),
        old.to_str().expect("utf-8"),
    ]);
    assert!(out.contains("query #1"), "{out}{err}");
    assert!(!out.contains("query query"), "{out}");
}

#[test]
fn two_inserts_into_one_sink_have_distinct_names() {
    let script = "CREATE TABLE t (a INT, b INT) WITH ('connector'='kafka');\n\
                  CREATE TABLE s (a INT, c BIGINT) WITH ('connector'='kafka');\n\
                  INSERT INTO s SELECT a, COUNT(*) FROM t GROUP BY a;\n\
                  INSERT INTO s SELECT b, COUNT(*) FROM t GROUP BY b;\n";
    let path = temp_file("shared-sink.sql", script);
    let path = path.to_str().expect("utf-8");
    let (_, out, err) = run(&["check", "--format", "json", path, path]);
    let report: serde_json::Value = serde_json::from_str(&out).expect(&err);
    let names: Vec<&str> = report["queries"]
        .as_array()
        .expect("queries")
        .iter()
        .filter_map(|q| q["name"].as_str())
        .collect();
    assert_eq!(names, ["s #1", "s #2"]);
}

#[test]
fn a_mistyped_set_key_is_warned_about_once() {
    let path = temp_file("set.sql", "SELECT a, COUNT(*) FROM T GROUP BY a;\n");
    let path = path.to_str().expect("utf-8");
    let (_, out, err) = run(&["check", "--set", "table.exec.state.tl=1h", path, path]);
    let text = format!("{out}{err}");
    assert_eq!(text.matches("table.exec.state.tl'").count(), 1, "{text}");
    assert!(text.contains("both scripts"), "{text}");
}

/// Every finding object in a JSON report, wherever it sits (queries, operators, sources).
fn findings_in(value: &serde_json::Value, out: &mut Vec<serde_json::Value>) {
    match value {
        serde_json::Value::Object(map) => {
            if map.contains_key("rule") && map.contains_key("verdict") {
                out.push(value.clone());
            }
            map.values().for_each(|v| findings_in(v, out));
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| findings_in(v, out)),
        _ => {}
    }
}

#[test]
fn an_option_finding_points_at_the_option_in_both_scripts() {
    let script = |topic: &str| {
        format!(
            "CREATE TABLE orders (id BIGINT, amount DOUBLE) WITH (\n  'connector' = 'kafka',\n  'topic' = '{topic}',\n  'format' = 'json');\nCREATE TABLE totals (id BIGINT, total DOUBLE) WITH ('connector' = 'jdbc');\nINSERT INTO totals SELECT id, SUM(amount) FROM orders GROUP BY id;\n"
        )
    };
    let old = temp_file("option-old.sql", &script("orders"));
    let new = temp_file("option-new.sql", &script("payments"));
    let (_, out, err) = run(&[
        "check",
        old.to_str().expect("utf-8"),
        new.to_str().expect("utf-8"),
        "--format",
        "json",
    ]);
    let report: serde_json::Value = serde_json::from_str(&out).expect(&err);
    let mut findings = Vec::new();
    findings_in(&report, &mut findings);
    let option = findings
        .iter()
        .find(|f| f["rule"] == "source-option-identity-changed")
        .unwrap_or_else(|| panic!("no option finding in {out}"));
    assert_eq!(option["old"]["text"], "'topic' = 'orders'", "{option}");
    assert_eq!(option["new"]["text"], "'topic' = 'payments'", "{option}");
    assert_eq!(option["old"]["line"], 3, "{option}");
}

#[test]
fn a_mistyped_statement_keyword_is_a_located_error_not_a_dropped_query() {
    let old = temp_file(
        "typo-old.sql",
        "CREATE TABLE s (a INT) WITH ('connector' = 'datagen');\nCREATE TABLE k (a INT) WITH ('connector' = 'blackhole');\ninsert into k select a from s;\n",
    );
    let new = temp_file(
        "typo-new.sql",
        "CREATE TABLE s (a INT) WITH ('connector' = 'datagen');\nCREATE TABLE k (a INT) WITH ('connector' = 'blackhole');\ninset into k select a from s;\n",
    );
    let (code, out, err) = run(&[
        "check",
        old.to_str().expect("utf-8"),
        new.to_str().expect("utf-8"),
    ]);
    let text = format!("{out}{err}");
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("`INSET` does not start a Flink SQL statement"),
        "{text}"
    );
    assert!(text.contains("typo-new.sql:3:1"), "{text}");
    assert!(text.contains("did you mean `INSERT`?"), "{text}");
}
