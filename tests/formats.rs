//! The machine-readable outputs of real checks validate against their schemas: the JSON report
//! against docs/report.schema.json, SARIF against the official SARIF 2.1.0 schema
//! (tests/schemas/sarif-schema-2.1.0.json, from the OASIS sarif-spec repository), and
//! GitHub annotations point at the clause in the new script.

#[allow(dead_code)]
mod support;
use flink_compat::cases;
use flink_compat::check::check;
use flink_compat::report::{github, json, sarif, Report};
use flink_compat::rules::RuleSet;
use flink_compat::source::SourceFile;
use serde_json::Value;
use std::sync::OnceLock;

fn rules() -> &'static RuleSet {
    static RULES: OnceLock<RuleSet> = OnceLock::new();
    RULES.get_or_init(|| RuleSet::load(&[] as &[&str]).expect("the built-in rules load"))
}

use support::schema::{assert_follows, validator};

fn report_schema() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| validator("docs/report.schema.json"))
}

fn sarif_schema() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| validator("tests/schemas/sarif-schema-2.1.0.json"))
}

fn assert_valid(validator: &jsonschema::Validator, text: &str, what: &str) -> Value {
    let value: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_follows(validator, &value, what);
    value
}

fn example_report() -> Report {
    let read = |p: &str| SourceFile::new(p, std::fs::read_to_string(p).expect("example"));
    check(
        read("examples/old.sql"),
        read("examples/new.sql"),
        &[],
        rules(),
    )
    .expect("the example checks")
}

fn case_reports() -> Vec<(String, Report)> {
    let files = cases::collect(&["cases".into()]).expect("cases");
    assert!(files.len() > 100, "the cases are found");
    files
        .iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(path).expect("case");
            let file = SourceFile::new(path.display().to_string(), text);
            let outcome = cases::run(&file, rules()).expect("case file loads");
            outcome.report.map(|r| (outcome.name, r))
        })
        .collect()
}

#[test]
fn json_reports_of_every_case_follow_the_documented_schema() {
    for (name, report) in case_reports() {
        assert_valid(report_schema(), &json::render(&report), &name);
    }
}

#[test]
fn sarif_of_every_case_is_valid_sarif_2_1_0() {
    for (name, report) in case_reports() {
        let log = assert_valid(sarif_schema(), &sarif::render(&report, rules()), &name);
        let results = log["runs"][0]["results"].as_array().expect("results");
        let findings = report.findings().count();
        assert_eq!(
            results
                .iter()
                .filter(|r| !r["ruleId"].as_str().unwrap_or("").starts_with("script-"))
                .count(),
            findings,
            "{name}: one result per finding"
        );
    }
}

#[test]
fn sarif_points_at_the_added_aggregate_in_the_new_script() {
    let log = assert_valid(
        sarif_schema(),
        &sarif::render(&example_report(), rules()),
        "example",
    );
    let results = log["runs"][0]["results"].as_array().expect("results");
    let result = results
        .iter()
        .find(|r| r["ruleId"] == "gwa-aggregate-added")
        .expect("the added aggregate is a result");
    assert_eq!(result["level"], "warning");
    let location = &result["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "examples/new.sql");
    assert_eq!(location["region"]["startLine"], 23);
    assert_eq!(location["region"]["startColumn"], 8);
    assert_eq!(location["region"]["endColumn"], 18);
    assert_eq!(location["region"]["snippet"]["text"], "MAX(bytes)");
    let related = &result["relatedLocations"][0]["physicalLocation"];
    assert_eq!(related["artifactLocation"]["uri"], "examples/old.sql");
    let rule = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["id"] == "gwa-aggregate-added")
        .expect("the rule is described");
    assert!(rule["help"]["text"]
        .as_str()
        .unwrap_or("")
        .contains("Source:"));
}

#[test]
fn github_annotations_carry_file_line_and_column_of_the_new_script() {
    let text = github::render(&example_report());
    let lines: Vec<&str> = text.lines().collect();
    let report = example_report();
    assert_eq!(lines.len(), report.findings().count() + 1, "{text}");
    let added = lines
        .iter()
        .find(|l| l.contains("title=gwa-aggregate-added"))
        .expect("an annotation for the added aggregate");
    assert!(
        added.starts_with(
            "::warning file=examples/new.sql,line=23,endLine=23,col=8,endColumn=18,title=gwa-aggregate-added"
        ),
        "{text}"
    );
    assert!(added.contains("::aggregate MAX(bytes) added"), "{text}");
    assert!(
        lines[lines.len() - 1]
            .starts_with("::warning title=flink-compat verdict::PARTIALLY COMPATIBLE"),
        "{text}"
    );
}

use support::cli::run as run_cli;

fn broken_sql() -> tempfile_path::TempPath {
    tempfile_path::write(
        "broken.sql",
        "SELECT a, SUM(b) FROM MyTable GROUP BY a;\nSELECT FROM WHERE;\n",
    )
}

/// A file in the target directory, removed when dropped.
mod tempfile_path {
    use std::path::PathBuf;

    pub struct TempPath(pub PathBuf);

    impl Drop for TempPath {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    pub fn write(name: &str, text: &str) -> TempPath {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        let path = dir.join(format!("{}-{name}", std::process::id()));
        std::fs::write(&path, text).expect("write a temporary file");
        TempPath(path)
    }
}

#[test]
fn errors_are_reported_inside_each_machine_format() {
    let bad = broken_sql();
    let bad = bad.0.to_str().expect("utf-8 path");
    let (code, out, _) = run_cli(&["check", "examples/old.sql", bad, "--format", "json"]);
    assert_eq!(code, 2);
    let value = assert_valid(report_schema(), &out, "json error");
    assert_eq!(value["error"]["kind"], "sql");
    assert_eq!(value["error"]["line"], 2);
    assert!(value.get("verdict").is_none());

    let (code, out, _) = run_cli(&["check", "examples/old.sql", bad, "--format", "sarif"]);
    assert_eq!(code, 2);
    let log = assert_valid(sarif_schema(), &out, "sarif error");
    let invocation = &log["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    let region =
        &invocation["toolExecutionNotifications"][0]["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startLine"], 2);

    let (code, out, _) = run_cli(&["check", "examples/old.sql", bad, "--format", "github"]);
    assert_eq!(code, 2);
    assert!(out.starts_with("::error file="), "{out}");
    assert!(out.contains(",line=2,col="), "{out}");
}

#[test]
fn every_format_of_the_example_exits_by_the_verdict() {
    for format in ["human", "json", "sarif", "github"] {
        let args = [
            "check",
            "examples/old.sql",
            "examples/new.sql",
            "--format",
            format,
        ];
        assert_eq!(run_cli(&args).0, 0, "{format}: partially compatible passes");
        let mut strict = args.to_vec();
        strict.extend(["--fail-on", "partial"]);
        assert_eq!(run_cli(&strict).0, 1, "{format}: --fail-on partial");
    }
}

#[test]
fn the_schemas_reject_what_breaks_their_contract() {
    let mut report: Value = serde_json::from_str(&json::render(&example_report())).expect("json");
    assert!(report_schema().is_valid(&report));
    report["verdict"] = "maybe".into();
    assert!(!report_schema().is_valid(&report), "an unknown verdict");
    report["verdict"] = "unknown".into();
    report["queries"][0]["surprise"] = true.into();
    assert!(!report_schema().is_valid(&report), "an undocumented field");

    let mut log: Value =
        serde_json::from_str(&sarif::render(&example_report(), rules())).expect("sarif");
    assert!(sarif_schema().is_valid(&log));
    log["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(
        !sarif_schema().is_valid(&log),
        "a level SARIF does not know"
    );
}
