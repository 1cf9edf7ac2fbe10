//! The CI recipes of docs/guide.md ("Using it in CI") work as written: every `flink-compat`
//! command in their YAML blocks (`run:` steps, GitLab `script:` lines, pre-commit `entry:`s, and
//! the hook of `.pre-commit-hooks.yaml` and the step of `action.yml`) runs through `sh` on a
//! clone of a temporary repository whose branch changes jobs, with the CI's variables set as
//! GitHub and GitLab set them; each must finish with the status its options promise and write
//! the reports it names.

#[allow(dead_code)]
mod support;

use support::repo::{git, write};

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `origin` with jobs on `main`, and a clone on a branch that changes them (one incompatibly).
fn clone_with_changes(root: &Path) -> (PathBuf, String) {
    let origin = root.join("origin");
    std::fs::create_dir_all(&origin).expect("dir");
    git(&origin, &["init", "-q"]);
    write(
        &origin,
        "jobs/report.sql",
        include_str!("../examples/old.sql"),
    );
    write(
        &origin,
        "jobs/keyed job.sql",
        "SELECT a, COUNT(*) AS c FROM src GROUP BY a;\n",
    );
    git(&origin, &["add", "-A"]);
    git(&origin, &["commit", "-q", "-m", "jobs"]);
    let base = git(&origin, &["rev-parse", "HEAD"]);
    let work = root.join("work");
    git(root, &["clone", "-q", "origin", "work"]);
    git(&work, &["checkout", "-q", "-b", "change"]);
    write(
        &work,
        "jobs/report.sql",
        include_str!("../examples/new.sql"),
    );
    write(
        &work,
        "jobs/keyed job.sql",
        "SELECT a, b, COUNT(*) AS c FROM src GROUP BY a, b;\n",
    );
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-q", "-m", "change"]);
    (work, base)
}

/// The `flink-compat check` commands of the CI section's YAML blocks, with the files a
/// pre-commit `entry:` is given appended.
fn guide_commands() -> Vec<String> {
    let guide = std::fs::read_to_string("docs/guide.md").expect("guide");
    let section = &guide[guide.find("## Using it in CI").expect("the CI section")..];
    let mut commands = Vec::new();
    for block in section.split("```yaml\n").skip(1) {
        let block = &block[..block.find("```").expect("the block ends")];
        commands.extend(yaml_commands(block));
    }
    commands
}

fn yaml_commands(yaml: &str) -> Vec<String> {
    yaml.lines()
        .filter_map(|line| {
            let line = line.trim_start().trim_start_matches("- ");
            let (key, command) = match line.split_once(": ") {
                Some((key @ ("run" | "entry"), rest)) => (key, rest),
                _ => ("script", line),
            };
            if !command.starts_with("flink-compat check") {
                return None;
            }
            Some(match key {
                "entry" => format!("{command} 'jobs/keyed job.sql' jobs/report.sql"),
                _ => command.to_string(),
            })
        })
        .collect()
}

fn sh(dir: &Path, command: &str, base: &str) -> i32 {
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_flink-compat"));
    let path = format!(
        "{}:{}",
        binary.parent().expect("bin dir").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = Command::new("sh")
        .args(["-c", command])
        .current_dir(dir)
        .env("PATH", path)
        .env("GITHUB_BASE_REF", "main")
        .env("CI_MERGE_REQUEST_DIFF_BASE_SHA", base)
        .output()
        .expect("sh runs");
    let code = output.status.code().unwrap_or(-1);
    assert_ne!(
        code,
        2,
        "{command}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    code
}

#[test]
fn the_guides_ci_recipes_run_as_written() {
    let root =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("recipes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).expect("dir");
    let (work, base) = clone_with_changes(&root);
    let commands = guide_commands();
    assert!(
        commands.len() >= 6,
        "the recipes' commands are found: {commands:?}"
    );
    // CI runs on the committed branch; a pre-commit hook on staged, uncommitted files.
    let (hooks, ci): (Vec<&String>, Vec<&String>) =
        commands.iter().partition(|c| c.contains("--against HEAD "));
    for command in ci {
        let code = sh(&work, command, &base);
        let expected = if command.contains("--fail-on never") {
            0
        } else {
            1
        };
        assert_eq!(code, expected, "{command}");
    }
    let sarif: Value = serde_json::from_str(
        &std::fs::read_to_string(work.join("flink-compat.sarif")).expect("SARIF written"),
    )
    .expect("SARIF");
    assert_eq!(sarif["runs"].as_array().map(Vec::len), Some(1));
    let junit = std::fs::read_to_string(work.join("flink-compat.xml")).expect("JUnit written");
    assert!(junit.contains("name=\"jobs/keyed job.sql\""), "{junit}");
    let quality: Value = serde_json::from_str(
        &std::fs::read_to_string(work.join("gl-code-quality-report.json"))
            .expect("Code Quality written"),
    )
    .expect("JSON");
    assert!(quality.as_array().is_some_and(|issues| !issues.is_empty()));
    git(&work, &["reset", "-q", "--soft", "HEAD~1"]);
    assert!(!hooks.is_empty());
    for command in hooks {
        assert_eq!(sh(&work, command, &base), 1, "{command}");
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn the_shipped_hook_and_action_run_as_written() {
    let root =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("hooks-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).expect("dir");
    let (work, base) = clone_with_changes(&root);
    let hooks = std::fs::read_to_string(".pre-commit-hooks.yaml").expect("hook manifest");
    let entries = yaml_commands(&hooks);
    assert_eq!(entries.len(), 1, "{hooks}");
    // The hook sees the staged files, not yet committed: compare them with HEAD.
    git(&work, &["reset", "-q", "--soft", "HEAD~1"]);
    assert_eq!(sh(&work, &entries[0], &base), 1, "{}", entries[0]);

    let action = std::fs::read_to_string("action.yml").expect("action");
    assert!(action.contains("using: composite") && action.contains("upload-sarif"));
    let step = action
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("\"$bin\" check"))
        .map(|l| l.replace("\"$bin\"", "flink-compat").replace("$ARGS", ""))
        .collect::<Vec<_>>();
    assert_eq!(step.len(), 2, "{action}");
    for command in &step {
        let command = command
            .replace("\"$AGAINST\"", &base)
            .replace("\"$SARIF\"", "action.sarif")
            .replace(" || status=$?", "")
            .replace(" || true", "");
        let expected = if command.contains("--fail-on never") {
            0
        } else {
            1
        };
        assert_eq!(sh(&work, &command, &base), expected, "{command}");
    }
    assert!(work.join("action.sarif").is_file());
    let _ = std::fs::remove_dir_all(&root);
}
