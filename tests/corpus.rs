//! The Flink planner test corpus (`../shared/corpus/flink-tests`): every script is read (or
//! rejected with a located error), is fully compatible with itself, and yields the stateful
//! operators Flink planned for the kinds the tool models.

use flink_compat::check::{check, plan_script};
use flink_compat::error::Error;
use flink_compat::rules::RuleSet;
use flink_compat::source::SourceFile;
use flink_compat::verdict::Verdict;
use std::path::PathBuf;

fn corpus() -> Option<Vec<PathBuf>> {
    let root = PathBuf::from("../shared/corpus/flink-tests");
    if !root.is_dir() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run with ../shared beside the checkout"
        );
        eprintln!("skipping: {} is not here", root.display());
        return None;
    }
    let mut files = Vec::new();
    for family in std::fs::read_dir(&root).expect("readable").flatten() {
        if family.path().is_dir() {
            files.extend(
                family
                    .path()
                    .read_dir()
                    .expect("readable")
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "sql")),
            );
        }
    }
    files.sort();
    Some(files)
}

#[test]
fn every_script_is_read_and_fully_compatible_with_itself() {
    let Some(files) = corpus() else { return };
    let rules = RuleSet::load(&[] as &[&str]).expect("rules load");
    let mut read = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable");
        let file = || SourceFile::new(path.display().to_string(), text.clone());
        match check(file(), file(), &[], &rules) {
            Ok(report) => {
                read += 1;
                assert_eq!(
                    report.verdict,
                    Verdict::FullyCompatible,
                    "{} vs itself",
                    path.display()
                );
                assert_eq!(report.findings().count(), 0, "{} vs itself", path.display());
            }
            Err(Error::Located(e)) => assert!(
                e.line > 0 && !e.message.is_empty(),
                "{}: {}",
                path.display(),
                e.message
            ),
            Err(other) => panic!("{}: not a located error: {other}", path.display()),
        }
    }
    assert_eq!(
        read,
        files.len(),
        "only {read} of {} scripts were read",
        files.len()
    );
}

/// The stateful nodes of `-- plan-nodes:` that the tool models, versus what it plans.
#[test]
fn modelled_operators_match_flinks_plans() {
    let Some(files) = corpus() else { return };
    let modelled = [
        "stream-exec-group-window-aggregate",
        "stream-exec-deduplicate",
        "stream-exec-over-aggregate",
        "stream-exec-window-aggregate",
        "stream-exec-rank",
        "stream-exec-window-rank",
        "stream-exec-join",
        "stream-exec-interval-join",
        "stream-exec-temporal-join",
        "stream-exec-match",
        "stream-exec-temporal-sort",
        "stream-exec-limit",
        "stream-exec-sort-limit",
    ];
    let mut compared = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable");
        let Some(line) = text.lines().find_map(|l| l.strip_prefix("-- plan-nodes: ")) else {
            continue;
        };
        let expected: Vec<String> = line
            .split(',')
            .map(|n| {
                n.trim()
                    .rsplit_once('_')
                    .map(|(name, _)| name)
                    .unwrap_or(n.trim())
                    .replace("-global-", "-")
            })
            .filter(|n| modelled.contains(&n.as_str()))
            .collect();
        let Ok(plan) = plan_script(
            SourceFile::new(path.display().to_string(), text.clone()),
            &[],
        ) else {
            continue;
        };
        let found: Vec<String> = plan
            .queries
            .iter()
            .flat_map(|q| q.operators.iter().map(|o| o.flink_node.to_string()))
            .filter(|n| modelled.contains(&n.as_str()))
            .collect();
        assert_eq!(found, expected, "{}", path.display());
        compared += 1;
    }
    assert!(compared > 10, "only {compared} plans compared");
}
