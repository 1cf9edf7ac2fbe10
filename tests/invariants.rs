//! Invariants over the whole case corpus and the rule files.

use flink_compat::cases;
use flink_compat::check::check;
use flink_compat::rules::{profile, RuleSet, BUILTIN};
use flink_compat::source::SourceFile;
use flink_compat::verdict::Verdict;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, OnceLock};

fn case_files() -> Vec<std::path::PathBuf> {
    cases::collect(&["cases".into()]).expect("cases/ is readable")
}

fn engine_rules(engine: Option<&str>) -> &'static RuleSet {
    static LOADED: OnceLock<Mutex<BTreeMap<String, &'static RuleSet>>> = OnceLock::new();
    let engine = engine.unwrap_or(profile::DEFAULT_ENGINE).to_string();
    let mut loaded = LOADED
        .get_or_init(Default::default)
        .lock()
        .expect("not poisoned");
    loaded.entry(engine.clone()).or_insert_with(|| {
        Box::leak(Box::new(
            RuleSet::load_engine(&engine, &[] as &[&str]).expect("the built-in rules load"),
        ))
    })
}

#[test]
fn every_rule_folder_is_a_profile_that_loads() {
    // rules/connectors/ holds the connector tables every profile reads.
    let profiles = profile::builtin().expect("profiles load");
    assert!(profiles.contains_key(profile::DEFAULT_ENGINE));
    for entry in std::fs::read_dir("rules").expect("rules/ exists") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        if name == "connectors" || name == "config" {
            // Connector tables and the configuration key table, not profiles: checked by the
            // connector-file schema test and the key table's unit test.
            continue;
        }
        assert!(path.is_dir(), "rules/{name} is not a profile folder");
        assert!(
            profiles.contains_key(&name),
            "rules/{name} has no profile.yaml naming it"
        );
        let rules = RuleSet::load_engine(&name, &[] as &[&str]).expect("the profile loads");
        assert!(!rules.rules.is_empty(), "profile {name} has no rules");
    }
    let shipped: BTreeSet<&str> = BUILTIN.iter().map(|(name, _)| *name).collect();
    assert!(shipped.contains("rules/vvr/query.yaml"));
}

#[test]
fn no_rule_fires_when_a_script_is_compared_with_itself() {
    for path in case_files() {
        let text = std::fs::read_to_string(&path).expect("readable");
        let case =
            cases::load(&SourceFile::new(path.display().to_string(), text)).expect("valid case");
        let rules = engine_rules(case.engine.as_deref());
        let overrides: Vec<(String, String)> = case.set.clone().into_iter().collect();
        for (side, sql) in [("old", &case.old), ("new", &case.new)] {
            let file = || SourceFile::new(format!("{}#{side}", path.display()), sql.clone());
            let report = check(file(), file(), &overrides, rules).expect("the case's SQL checks");
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
fn every_rule_is_fired_by_some_case_of_its_profile() {
    let mut fired: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in case_files() {
        let text = std::fs::read_to_string(&path).expect("readable");
        let case =
            cases::load(&SourceFile::new(path.display().to_string(), text)).expect("valid case");
        let engine = case
            .engine
            .unwrap_or_else(|| profile::DEFAULT_ENGINE.to_string());
        fired
            .entry(engine)
            .or_default()
            .extend(case.expect.findings);
    }
    for name in profile::builtin().expect("profiles load").keys() {
        let rules = engine_rules(Some(name));
        let by_profile = fired.get(name).cloned().unwrap_or_default();
        let missing: Vec<&str> = rules
            .rules
            .iter()
            .filter(|r| r.profile == *name)
            .map(|r| r.id.as_str())
            .filter(|id| !by_profile.contains(*id))
            .collect();
        assert!(
            missing.is_empty(),
            "rules of profile {name} no case of that engine fires: {missing:?}"
        );
    }
}
