//! Invariants over the whole case corpus and the rule files.

use flink_compat::cases;
use flink_compat::check::check;
use flink_compat::rules::{RuleSet, BUILTIN};
use flink_compat::source::SourceFile;
use flink_compat::verdict::Verdict;
use std::collections::BTreeSet;

fn case_files() -> Vec<std::path::PathBuf> {
    cases::collect(&["cases".into()]).expect("cases/ is readable")
}

fn builtin() -> RuleSet {
    RuleSet::load(&[] as &[&str]).expect("the built-in rules load")
}

#[test]
fn every_rule_file_is_built_in() {
    let registered: BTreeSet<&str> = BUILTIN.iter().map(|(name, _)| *name).collect();
    for entry in std::fs::read_dir("rules").expect("rules/ exists") {
        let path = entry.expect("entry").path();
        let name = format!(
            "rules/{}",
            path.file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
        );
        assert!(
            registered.contains(name.as_str()),
            "{name} is not listed in rules::BUILTIN"
        );
    }
}

#[test]
fn no_rule_fires_when_a_script_is_compared_with_itself() {
    let rules = builtin();
    for path in case_files() {
        let text = std::fs::read_to_string(&path).expect("readable");
        let case =
            cases::load(&SourceFile::new(path.display().to_string(), text)).expect("valid case");
        let overrides: Vec<(String, String)> = case.set.clone().into_iter().collect();
        for (side, sql) in [("old", &case.old), ("new", &case.new)] {
            let file = || SourceFile::new(format!("{}#{side}", path.display()), sql.clone());
            let report = check(file(), file(), &overrides, &rules).expect("the case's SQL checks");
            let fired: Vec<String> = report.findings().map(|f| f.rule.clone()).collect();
            assert_eq!(
                report.verdict,
                Verdict::FullyCompatible,
                "{} {side} vs itself",
                path.display()
            );
            assert!(
                fired.is_empty(),
                "{} {side} vs itself fired {fired:?}",
                path.display()
            );
        }
    }
}

#[test]
fn every_rule_is_fired_by_some_case() {
    let rules = builtin();
    let mut fired = BTreeSet::new();
    for path in case_files() {
        let text = std::fs::read_to_string(&path).expect("readable");
        let case =
            cases::load(&SourceFile::new(path.display().to_string(), text)).expect("valid case");
        fired.extend(case.expect.findings);
    }
    let missing: Vec<&str> = rules
        .rules
        .iter()
        .map(|r| r.id.as_str())
        .filter(|id| !fired.contains(*id))
        .collect();
    assert!(missing.is_empty(), "rules no case fires: {missing:?}");
}
