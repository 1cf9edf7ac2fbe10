//! flink-compat.toml, suppressions and the options CI uses, through the binary: discovery upward
//! from the working directory, `--config`, `--isolated`, per-path overrides, unknown keys as
//! located errors, inline and configured allows (shown, marked, not counted), allows that match
//! nothing, `--stdin-filename`, `--output-file`, `--rules` files and directories.

#[allow(dead_code)]
mod support;

use support::repo::write;

use serde_json::Value;
use std::path::{Path, PathBuf};
use support::cli::run_in;

const KEYED_OLD: &str = "SELECT a, COUNT(*) AS c FROM src GROUP BY a;\n";
const KEYED_NEW: &str = "SELECT a, b, COUNT(*) AS c FROM src GROUP BY a, b;\n";
const ALLOWED_NEW: &str =
    "-- flink-compat: allow ga-key-changed -- the state is rebuilt from the topic\nSELECT a, b, COUNT(*) AS c FROM src GROUP BY a, b;\n";

fn dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("config-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    dir
}

fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// Two trees `old/` and `new/` with an incompatible job at `jobs/<name>` for each name.
fn trees(dir: &Path, names: &[&str], new_text: &str) {
    for name in names {
        write(dir, &format!("old/{name}"), KEYED_OLD);
        write(dir, &format!("new/{name}"), new_text);
    }
}

#[test]
fn the_nearest_configuration_upward_is_used_unless_isolated() {
    let dir = dir("discovery");
    trees(&dir, &["a.sql"], KEYED_NEW);
    write(&dir, "flink-compat.toml", "fail-on = \"never\"\n");
    let sub = dir.join("new");
    let (code, _, stderr) = run_in(&sub, &["check", "../old/a.sql", "a.sql", "-q"]);
    assert_eq!(code, 0, "fail-on = never from the parent's file: {stderr}");
    let (code, _, _) = run_in(
        &sub,
        &["check", "../old/a.sql", "a.sql", "-q", "--isolated"],
    );
    assert_eq!(code, 1, "--isolated ignores it");
    write(
        &dir,
        "strict.toml",
        "fail-on = \"incompatible\"\nengine = \"apache-flink-2\"\n",
    );
    let (code, stdout, _) = run_in(
        &sub,
        &[
            "check",
            "../old/a.sql",
            "a.sql",
            "--config",
            "../strict.toml",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 1);
    assert_eq!(json(&stdout)["engine"], "apache-flink-2");
    // The command line wins over the file.
    let (code, _, _) = run_in(
        &sub,
        &[
            "check",
            "../old/a.sql",
            "a.sql",
            "-q",
            "--fail-on",
            "incompatible",
        ],
    );
    assert_eq!(code, 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_override_gives_some_jobs_another_engine_and_configuration() {
    let dir = dir("overrides");
    trees(&dir, &["vvr.sql", "oss/job.sql"], KEYED_NEW);
    write(
        &dir,
        "flink-compat.toml",
        "[set]\n\"pipeline.name\" = \"x\"\n[[overrides]]\npaths = [\"new/oss\"]\nengine = \"apache-flink-2\"\nset = { \"table.exec.mini-batch.enabled\" = true }\n",
    );
    let (code, stdout, stderr) = run_in(&dir, &["check", "old", "new", "--format", "json"]);
    assert_eq!(code, 1, "{stderr}");
    let report = json(&stdout);
    let engines: Vec<(&str, &str)> = report["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .map(|j| {
            (
                j["path"].as_str().unwrap_or_default(),
                j["engine"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        engines,
        vec![("oss/job.sql", "apache-flink-2"), ("vvr.sql", "vvr")]
    );
    // --engine on the command line wins over every override.
    let (_, stdout, _) = run_in(
        &dir,
        &["check", "old", "new", "--format", "json", "--engine", "vvr"],
    );
    assert!(json(&stdout)["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .all(|j| j["engine"] == "vvr"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unknown_or_wrong_keys_are_located_errors_with_a_suggestion() {
    let dir = dir("unknown");
    trees(&dir, &["a.sql"], KEYED_NEW);
    write(
        &dir,
        "flink-compat.toml",
        "engine = \"vvr\"\nfail_on = \"never\"\n[[overrides]]\npath = [\"x\"]\n",
    );
    let (code, stdout, stderr) = run_in(
        &dir,
        &["check", "old/a.sql", "new/a.sql", "--format", "json"],
    );
    assert_eq!(code, 2);
    assert!(
        stderr.contains("unknown key `fail_on`") && stderr.contains("did you mean `fail-on`?"),
        "{stderr}"
    );
    assert!(stderr.contains("did you mean `paths`?"), "{stderr}");
    let error = json(&stdout);
    let errors = error["error"]["errors"].as_array().expect("both errors");
    assert_eq!(
        (errors[0]["line"].as_u64(), errors[0]["column"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(errors[0]["kind"], "config");
    write(&dir, "flink-compat.toml", "engine = \"apache-flink\"\n");
    let (code, _, stderr) = run_in(&dir, &["check", "old/a.sql", "new/a.sql"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("did you mean `apache-flink-2`?"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_inline_allow_marks_the_finding_and_no_longer_counts() {
    let dir = dir("inline");
    trees(&dir, &["a.sql"], ALLOWED_NEW);
    let (code, stdout, stderr) = run_in(
        &dir,
        &[
            "check",
            "old/a.sql",
            "new/a.sql",
            "--format",
            "json",
            "--isolated",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let report = json(&stdout);
    support::schema::assert_follows(
        &support::schema::validator("docs/report.schema.json"),
        &report,
        "a report with a suppressed finding",
    );
    assert_eq!(report["verdict"], "incompatible", "the judgement stays");
    assert_eq!(report["effective_verdict"], "fully_compatible");
    let finding = &report["queries"][0]["operators"][0]["findings"][0];
    assert_eq!(finding["rule"], "ga-key-changed");
    assert_eq!(finding["suppressed"]["kind"], "inline");
    assert_eq!(
        finding["suppressed"]["reason"],
        "the state is rebuilt from the topic"
    );
    assert_eq!(finding["suppressed"]["origin"], "new/a.sql:1:1");

    let (_, stdout, _) = run_in(
        &dir,
        &[
            "check",
            "old/a.sql",
            "new/a.sql",
            "--format",
            "sarif",
            "--isolated",
        ],
    );
    let sarif = json(&stdout);
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(result["suppressions"][0]["kind"], "inSource");
    assert_eq!(
        result["suppressions"][0]["justification"],
        "the state is rebuilt from the topic"
    );

    let (_, stdout, _) = run_in(&dir, &["check", "old/a.sql", "new/a.sql", "--isolated"]);
    assert!(
        stdout.contains("suppressed (the state is rebuilt from the topic"),
        "{stdout}"
    );
    let (_, stdout, _) = run_in(
        &dir,
        &[
            "check",
            "old/a.sql",
            "new/a.sql",
            "--format",
            "concise",
            "--isolated",
        ],
    );
    assert!(!stdout.contains("ga-key-changed"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_allow_that_matches_nothing_is_a_warning() {
    let dir = dir("unused");
    let new = "-- flink-compat: allow gwa-aggregate-added -- not this one\nSELECT a, b, COUNT(*) AS c FROM src GROUP BY a, b;\n";
    trees(&dir, &["a.sql"], new);
    write(
        &dir,
        "flink-compat.toml",
        "[[allow]]\nrule = \"ga-key-changed\"\npaths = [\"new/other.sql\"]\nreason = \"elsewhere\"\n",
    );
    let (code, stdout, _) = run_in(&dir, &["check", "old", "new", "--format", "json"]);
    assert_eq!(code, 1, "neither allow applies");
    let report = json(&stdout);
    let warnings = report["warnings"].as_array().expect("warnings");
    assert!(
        warnings[0]
            .as_str()
            .unwrap_or_default()
            .contains("flink-compat.toml:2:8: `allow ga-key-changed` matched no finding"),
        "{warnings:?}"
    );
    let notes = report["jobs"][0]["report"]["notes"]
        .as_array()
        .expect("notes");
    assert!(notes.iter().any(|n| n["kind"] == "warning"
        && n["message"]
            .as_str()
            .unwrap_or_default()
            .contains("`allow gwa-aggregate-added` matches no finding")
        && n["location"]["line"] == 1));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_configured_allow_applies_to_its_paths_only() {
    let dir = dir("configured");
    trees(&dir, &["a.sql", "b.sql"], KEYED_NEW);
    write(
        &dir,
        "flink-compat.toml",
        "[[allow]]\nrule = \"ga-key-changed\"\npaths = [\"new/a.sql\"]\nreason = \"a is replayed\"\n",
    );
    let (code, stdout, _) = run_in(&dir, &["check", "old", "new", "--format", "json"]);
    assert_eq!(code, 1, "b still counts");
    let report = json(&stdout);
    let jobs = report["jobs"].as_array().expect("jobs");
    assert_eq!(jobs[0]["effective_verdict"], "fully_compatible");
    assert_eq!(
        jobs[0]["report"]["queries"][0]["operators"][0]["findings"][0]["suppressed"]["kind"],
        "config"
    );
    assert_eq!(jobs[1]["effective_verdict"], "incompatible");
    let (_, stdout, _) = run_in(&dir, &["check", "old", "new", "--format", "sarif"]);
    let sarif = json(&stdout);
    let kinds: Vec<&Value> = sarif["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| &r["suppressions"][0]["kind"])
        .collect();
    assert!(kinds.contains(&&Value::from("external")) && kinds.contains(&&Value::Null));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn standard_input_takes_its_name_and_the_report_can_go_to_a_file() {
    let dir = dir("stdin");
    trees(&dir, &["a.sql"], KEYED_NEW);
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_flink-compat"))
        .args([
            "check",
            "old/a.sql",
            "-",
            "--stdin-filename",
            "jobs/a.sql",
            "--format",
            "github",
            "--isolated",
        ])
        .current_dir(&dir)
        .stdin(std::fs::File::open(dir.join("new/a.sql")).expect("new"))
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("::error file=jobs/a.sql,line=1"),
        "{stdout}"
    );
    let (code, stdout, _) = run_in(
        &dir,
        &[
            "check",
            "old/a.sql",
            "new/a.sql",
            "--format",
            "sarif",
            "--output-file",
            "out.sarif",
            "--isolated",
        ],
    );
    assert_eq!((code, stdout.as_str()), (1, ""));
    let sarif = json(&std::fs::read_to_string(dir.join("out.sarif")).expect("written"));
    assert_eq!(sarif["version"], "2.1.0");
    let (_, stdout, _) = run_in(
        &dir,
        &[
            "check",
            "old/a.sql",
            "new/a.sql",
            "--color",
            "always",
            "-q",
            "--isolated",
        ],
    );
    assert!(stdout.starts_with("\u{1b}["), "{stdout:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rules_come_from_files_and_directories_searched_recursively() {
    let dir = dir("rules");
    let rule = "operator: group_aggregate\nrules:\n  - id: team-keys\n    change: any\n    when: \"true\"\n    verdict: unknown\n    message: \"looked at\"\n    derived: a test rule\n";
    write(&dir, "rules/nested/team.yaml", rule);
    std::fs::create_dir_all(dir.join("empty")).expect("dir");
    let (code, _, stderr) = run_in(&dir, &["rules", "list", "--rules", "rules"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("1 rules loaded from rules"), "{stderr}");
    let (code, stdout, _) = run_in(
        &dir,
        &[
            "rules",
            "list",
            "--rules",
            "rules/nested/team.yaml",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0);
    let list = json(&stdout);
    assert!(list["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .any(|r| r["id"] == "team-keys" && r["profile"] == "user"));
    let (code, _, stderr) = run_in(&dir, &["rules", "list", "--rules", "empty"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no rule files"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
