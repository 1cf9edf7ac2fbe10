//! Where each rule's findings point: for every built-in rule (and the fail-safe
//! `unexplained-change`), the case that shows it (its `example:`, or the first case that
//! expects it) is run, and each finding of the rule is recorded with its place in the old and
//! the new script (line:column and the text there).
//! Spans are tested, not only rule ids. Run with `UPDATE_SNAPSHOTS=1` to rewrite the snapshot
//! after an intended change.

#[allow(dead_code)]
mod support;
use flink_compat::report::Location;
use flink_compat::rules::engine::UNEXPLAINED;
use flink_compat::rules::{profile, RuleSet};
use flink_compat::source::SourceFile;
use std::fmt::Write;

const SNAPSHOT: &str = "tests/snapshots/rule-locations.txt";

fn place(side: &str, location: &Option<Location>) -> String {
    match location {
        None => format!("{side} -"),
        Some(l) => {
            let text: String = l
                .text
                .lines()
                .next()
                .unwrap_or("")
                .chars()
                .take(70)
                .collect();
            let more = if l.text.lines().count() > 1
                || text.len() < l.text.lines().next().unwrap_or("").len()
            {
                " …"
            } else {
                ""
            };
            format!("{side} {}:{} `{text}`{more}", l.line, l.column)
        }
    }
}

/// The case file showing `rule`: its `example:` when that names a case, else the first case
/// of the engine that expects it.
fn case_of(rule: &flink_compat::rules::Rule, engine: &str) -> Option<String> {
    match rule.example.as_deref() {
        Some(example) if example.starts_with("cases/") => Some(example.to_string()),
        _ => flink_compat::cases::example_of(&rule.id, engine, &[]).map(|(path, _)| path),
    }
}

#[test]
fn every_rule_points_where_its_example_case_says() {
    let mut out = String::new();
    let mut missing = Vec::new();
    for engine in profile::builtin().expect("profiles").keys() {
        let set = RuleSet::load_engine(engine, &[] as &[&str]).expect("built-in rules");
        let _ = writeln!(out, "# engine {engine}\n");
        // Each rule of the profile, then the built-in fail-safe finding.
        let ids = set
            .rules
            .iter()
            .filter(|r| r.profile == *engine)
            .map(|r| (r.id.as_str(), case_of(r, engine)))
            .chain([(
                UNEXPLAINED,
                flink_compat::cases::example_of(UNEXPLAINED, engine, &[]).map(|(path, _)| path),
            )]);
        for (id, path) in ids {
            let Some(path) = path else {
                missing.push(format!("{engine} {id}: no case"));
                continue;
            };
            let text = std::fs::read_to_string(&path).expect("the case file");
            let outcome =
                flink_compat::cases::run(&SourceFile::new(path.clone(), text), &set).expect("runs");
            let Some(report) = outcome.report else {
                missing.push(format!("{engine} {id}: {path} did not run"));
                continue;
            };
            let _ = writeln!(out, "{id} ({path})");
            let mut found = 0;
            for finding in report.findings().filter(|f| f.rule == id) {
                found += 1;
                let _ = writeln!(
                    out,
                    "  {}\n  {}",
                    place("old", &finding.old),
                    place("new", &finding.new)
                );
            }
            if found == 0 {
                missing.push(format!("{engine} {id}: {path} does not fire it"));
            }
        }
        out.push('\n');
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(SNAPSHOT, &out).expect("write the snapshot");
        return;
    }
    let expected = std::fs::read_to_string(SNAPSHOT).unwrap_or_default();
    if expected != out {
        let first = expected
            .lines()
            .zip(out.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(expected.lines().count().min(out.lines().count()));
        let context = |text: &str| {
            text.lines()
                .skip(first.saturating_sub(3))
                .take(6)
                .collect::<Vec<_>>()
                .join("\n")
        };
        panic!(
            "{SNAPSHOT} differs from line {} (rerun with UPDATE_SNAPSHOTS=1 after an intended change):\n--- expected\n{}\n--- actual\n{}",
            first + 1,
            context(&expected),
            context(&out)
        );
    }
}
