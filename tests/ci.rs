//! `check --against REV` end to end, as CI runs it: a temporary git repository with several job
//! files, a commit that changes, renames, deletes and adds some, and the check of `HEAD~1`
//! against the work tree in every format — exit status, each job's verdict, one SARIF run that
//! follows the SARIF schema, JSON that follows docs/report.schema.json, paths relative to the
//! repository (also when run from a subdirectory). Also: directories paired by relative path.

#[allow(dead_code)]
mod support;

use support::repo::{git, write};

use serde_json::Value;
use std::path::{Path, PathBuf};
use support::cli::run_in;
use support::schema::{assert_follows, validator};

const REPORT_OLD: &str = include_str!("../examples/old.sql");
const REPORT_NEW: &str = include_str!("../examples/new.sql");
const KEYED_OLD: &str = "SELECT a, COUNT(*) AS c FROM src GROUP BY a;\n";
const KEYED_NEW: &str = "SELECT a, b, COUNT(*) AS c FROM src GROUP BY a, b;\n";
const MOVED_OLD: &str = "-- the dedup job\nINSERT INTO latest\nSELECT id, v\nFROM (\n  SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY proctime DESC) AS rn\n  FROM events\n)\nWHERE rn = 1;\n";
const SAME: &str = "SELECT x, MAX(y) AS m FROM src GROUP BY x;\n";

/// A repository whose last commit changes two jobs, renames one (with an edit), deletes one,
/// adds one and leaves one alone; `name` keeps parallel tests apart.
fn repository(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ci-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    git(&dir, &["init", "-q"]);
    write(&dir, "jobs/report.sql", REPORT_OLD);
    write(&dir, "jobs/keyed.sql", KEYED_OLD);
    write(&dir, "jobs/team a/moved.sql", MOVED_OLD);
    write(&dir, "jobs/gone.sql", KEYED_OLD);
    write(&dir, "jobs/same.sql", SAME);
    write(&dir, "README.txt", "not a job\n");
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "jobs"]);
    write(&dir, "jobs/report.sql", REPORT_NEW);
    write(&dir, "jobs/keyed.sql", KEYED_NEW);
    git(
        &dir,
        &["mv", "jobs/team a/moved.sql", "jobs/team a/moved now.sql"],
    );
    write(
        &dir,
        "jobs/team a/moved now.sql",
        &MOVED_OLD.replace("-- the dedup job", "-- the dedup job, renamed"),
    );
    git(&dir, &["rm", "-q", "jobs/gone.sql"]);
    write(&dir, "jobs/added.sql", SAME);
    write(&dir, "README.txt", "still not a job\n");
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "change the jobs"]);
    dir
}

fn check(dir: &Path, format: &str) -> (i32, String, String) {
    run_in(dir, &["check", "--against", "HEAD~1", "--format", format])
}

const JOBS: [(&str, &str, Option<&str>); 5] = [
    ("jobs/added.sql", "added", None),
    ("jobs/gone.sql", "removed", None),
    ("jobs/keyed.sql", "changed", Some("incompatible")),
    ("jobs/report.sql", "changed", Some("partially_compatible")),
    (
        "jobs/team a/moved now.sql",
        "renamed",
        Some("fully_compatible"),
    ),
];

#[test]
fn against_a_revision_every_changed_job_is_reported_once_in_each_format() {
    let dir = repository("formats");

    let (code, stdout, stderr) = check(&dir, "json");
    assert_eq!(code, 1, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("one JSON document");
    assert_follows(
        &validator("docs/report.schema.json"),
        &report,
        "the batch report",
    );
    let jobs: Vec<(String, String, Option<String>)> = report["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .map(|j| {
            (
                j["path"].as_str().unwrap_or_default().to_string(),
                j["status"].as_str().unwrap_or_default().to_string(),
                j["verdict"].as_str().map(String::from),
            )
        })
        .collect();
    let expected: Vec<(String, String, Option<String>)> = JOBS
        .iter()
        .map(|(p, s, v)| (p.to_string(), s.to_string(), v.map(String::from)))
        .collect();
    assert_eq!(jobs, expected);
    assert_eq!(report["verdict"], "incompatible");
    assert_eq!(report["jobs"][4]["old_path"], "jobs/team a/moved.sql");

    let (code, stdout, _) = check(&dir, "sarif");
    assert_eq!(code, 1);
    let sarif: Value = serde_json::from_str(&stdout).expect("SARIF is JSON");
    assert_follows(
        &validator("tests/schemas/sarif-schema-2.1.0.json"),
        &sarif,
        "the SARIF log",
    );
    let runs = sarif["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1, "one run for every job");
    assert_eq!(runs[0]["automationDetails"]["id"], "flink-compat/");
    let uris: Vec<&str> = runs[0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap_or_default()
        })
        .collect();
    for uri in &uris {
        assert!(uri.starts_with("jobs/"), "repository-relative: {uri}");
    }
    for file in [
        "jobs/keyed.sql",
        "jobs/report.sql",
        "jobs/added.sql",
        "jobs/gone.sql",
    ] {
        assert!(uris.contains(&file), "{file} in {uris:?}");
    }

    let (code, stdout, _) = check(&dir, "github");
    assert_eq!(code, 1);
    assert!(
        stdout.contains("::error file=jobs/keyed.sql,line=1"),
        "{stdout}"
    );
    assert!(stdout.contains("file=jobs/report.sql,line=23"), "{stdout}");
    assert!(
        stdout.contains("::notice file=jobs/added.sql,line=1"),
        "{stdout}"
    );
    assert_eq!(
        stdout.matches("title=flink-compat verdict").count(),
        1,
        "{stdout}"
    );

    let (code, stdout, _) = check(&dir, "concise");
    assert_eq!(code, 1);
    assert!(stdout.contains("jobs/keyed.sql:1:"), "{stdout}");
    assert!(stdout.contains(": ga-key-changed: "), "{stdout}");
    assert!(
        stdout.contains("jobs/report.sql:23:8: gwa-aggregate-added: "),
        "{stdout}"
    );
    assert!(
        stdout.contains("jobs/gone.sql:1:1: job-removed: "),
        "{stdout}"
    );

    let (code, stdout, _) = check(&dir, "junit");
    assert_eq!(code, 1);
    assert!(
        stdout.contains("tests=\"5\" failures=\"1\" errors=\"0\""),
        "{stdout}"
    );
    assert!(
        stdout.contains("<failure type=\"incompatible\""),
        "{stdout}"
    );

    let (code, stdout, _) = check(&dir, "gitlab");
    assert_eq!(code, 1);
    let issues: Value = serde_json::from_str(&stdout).expect("Code Quality is JSON");
    let issues = issues.as_array().expect("an array");
    assert!(issues.iter().any(|i| i["check_name"] == "ga-key-changed"
        && i["location"]["path"] == "jobs/keyed.sql"
        && i["severity"] == "critical"));
    let fingerprints: std::collections::BTreeSet<&str> = issues
        .iter()
        .filter_map(|i| i["fingerprint"].as_str())
        .collect();
    assert_eq!(fingerprints.len(), issues.len(), "fingerprints are unique");

    let (code, stdout, _) = check(&dir, "human");
    assert_eq!(code, 1);
    for (path, status, _) in JOBS {
        assert!(
            stdout.contains(&format!("=== {path} ({status}")),
            "{path}: {stdout}"
        );
    }
    assert!(
        stdout.contains("INCOMPATIBLE: the state cannot be reused"),
        "{stdout}"
    );

    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn paths_select_jobs_and_stay_relative_to_the_repository_from_a_subdirectory() {
    let dir = repository("paths");
    let sub = dir.join("jobs");
    let (code, stdout, stderr) = run_in(
        &sub,
        &[
            "check",
            "--against",
            "HEAD~1",
            "report.sql",
            "same.sql",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("JSON");
    let jobs: Vec<(&str, &str)> = report["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .map(|j| {
            (
                j["path"].as_str().unwrap_or_default(),
                j["status"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        jobs,
        vec![
            ("jobs/report.sql", "changed"),
            ("jobs/same.sql", "unchanged")
        ]
    );

    // A renamed file named by its new path is compared with its old one.
    let (code, stdout, _) = run_in(
        &sub,
        &["check", "--against", "HEAD~1", "team a/moved now.sql", "-q"],
    );
    assert_eq!(code, 0);
    assert!(
        stdout.contains(
            "jobs/team a/moved now.sql (renamed from jobs/team a/moved.sql): fully compatible"
        ),
        "{stdout}"
    );

    // Untracked files (build output, scratch files) are not jobs, as for `git diff`.
    write(&dir, "jobs/scratch.sql", "SELECT FROM (;\n");
    let (code, stdout, _) = run_in(&dir, &["check", "--against", "HEAD~1", "-q"]);
    assert_eq!(code, 1);
    assert!(!stdout.contains("scratch"), "{stdout}");
    std::fs::remove_file(dir.join("jobs/scratch.sql")).expect("remove");

    // A directory selects the changed job files under it.
    let (code, stdout, _) = run_in(&dir, &["check", "--against", "HEAD~1", "jobs/team a", "-q"]);
    assert_eq!(code, 0);
    assert!(
        stdout.starts_with("1 jobs:\n  jobs/team a/moved now.sql (renamed"),
        "{stdout}"
    );

    // The configuration's job globs (relative to its directory) choose the job files.
    write(&dir, "flink-compat.toml", "jobs = [\"jobs/team a/**\"]\n");
    let (code, stdout, _) = run_in(&sub, &["check", "--against", "HEAD~1", "-q"]);
    assert_eq!(code, 0);
    assert!(
        stdout.starts_with("1 jobs:\n  jobs/team a/moved now.sql (renamed"),
        "{stdout}"
    );
    std::fs::remove_file(dir.join("flink-compat.toml")).expect("remove");

    // A job that cannot be parsed is an error of that job: the others are still reported.
    write(&dir, "jobs/report.sql", "SELECT FROM WHERE (;\n");
    let (code, stdout, _) = run_in(&dir, &["check", "--against", "HEAD~1", "--format", "json"]);
    assert_eq!(code, 2);
    let report: Value = serde_json::from_str(&stdout).expect("JSON");
    assert_follows(
        &validator("docs/report.schema.json"),
        &report,
        "a batch with an error",
    );
    let broken = report["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .find(|j| j["path"] == "jobs/report.sql")
        .expect("the broken job");
    assert_eq!(broken["error"]["kind"], "sql");
    assert_eq!(broken["error"]["file"], "jobs/report.sql");
    assert_eq!(report["jobs"].as_array().map(Vec::len), Some(5));
    let (code, stdout, _) = run_in(&dir, &["check", "--against", "HEAD~1", "--format", "sarif"]);
    assert_eq!(code, 2);
    let sarif: Value = serde_json::from_str(&stdout).expect("SARIF");
    assert_eq!(
        sarif["runs"][0]["invocations"][0]["executionSuccessful"],
        false
    );

    // So is a new (staged) job that cannot be parsed: nothing to restore, but not valid either.
    write(&dir, "jobs/new broken.sql", "SELECT FROM WHERE (;\n");
    git(&dir, &["add", "jobs/new broken.sql"]);
    let (code, stdout, _) = run_in(
        &dir,
        &["check", "--against", "HEAD~1", "--format", "concise"],
    );
    assert_eq!(code, 2);
    assert!(stdout.contains("jobs/new broken.sql:1:"), "{stdout}");

    // A revision that does not exist is a usage error.
    let (code, _, stderr) = run_in(&dir, &["check", "--against", "no-such-branch"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no-such-branch"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_directories_pair_their_jobs_by_relative_path() {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("ci-dirs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    write(&dir, "old/a/report.sql", REPORT_OLD);
    write(&dir, "old/keyed.sql", KEYED_OLD);
    write(&dir, "new/a/report.sql", REPORT_NEW);
    write(&dir, "new/keyed.sql", KEYED_OLD);
    write(&dir, "new/extra.sql", SAME);
    let (code, stdout, stderr) = run_in(
        &dir,
        &["check", "old", "new", "--format", "json", "--isolated"],
    );
    assert_eq!(code, 0, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("JSON");
    let jobs: Vec<(&str, &str)> = report["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .map(|j| {
            (
                j["path"].as_str().unwrap_or_default(),
                j["status"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        jobs,
        vec![
            ("a/report.sql", "changed"),
            ("extra.sql", "added"),
            ("keyed.sql", "unchanged")
        ]
    );
    // Globs pair the same way, by the path below their literal directory.
    let (code, stdout, _) = run_in(
        &dir,
        &["check", "old/*.sql", "new/*.sql", "-q", "--isolated"],
    );
    assert_eq!(code, 0);
    assert!(
        stdout.contains("keyed.sql (unchanged)") && !stdout.contains("report.sql"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
