//! The `apache-flink-2` profile against the restore lab's recorded observations
//! (`lab/restore/observations/*.yaml`): for every pair the lab ran on open-source Flink, the
//! profile's verdict and failure modes must agree with what Flink did.

use flink_compat::check::check;
use flink_compat::rules::RuleSet;
use flink_compat::source::SourceFile;
use flink_compat::verdict::Verdict;
use serde::Deserialize;
use std::path::Path;

#[derive(Deserialize)]
struct Observations {
    flink_version: String,
    observations: Vec<Observation>,
}

#[derive(Deserialize)]
struct Observation {
    id: String,
    outcome: String,
    #[serde(default)]
    detail: Option<String>,
}

#[derive(Deserialize)]
struct Pair {
    rule: String,
    #[serde(default)]
    old: Option<String>,
    #[serde(default)]
    new: Option<String>,
    /// Why the lab could not run the pair (e.g. a Python UDAF): its rule must say `unknown`.
    #[serde(default)]
    skipped: Option<String>,
}

/// What the profile must say for an observed outcome: the verdict, and the failure modes of
/// which at least one must be named (none for a compatible restore).
fn expected(outcome: &str) -> (Verdict, &'static [&'static str]) {
    match outcome {
        "state_reused" => (Verdict::FullyCompatible, &[]),
        // Claiming a silent corruption where the restore fails is the more severe claim of the
        // two outcomes that depend on the state's types (e.g. reordered aggregates).
        "restore_fails" => (Verdict::Incompatible, &["restore_fails", "silently_wrong"]),
        "silently_wrong" => (Verdict::Incompatible, &["silently_wrong"]),
        "state_dropped" => (Verdict::Incompatible, &["state_dropped", "silently_wrong"]),
        "cannot_tell" => (Verdict::Unknown, &[]),
        other => panic!("unknown outcome `{other}`"),
    }
}

#[test]
fn the_open_source_profile_agrees_with_every_recorded_restore() {
    let rules = RuleSet::load_engine("apache-flink-2", &[] as &[&str]).expect("the profile loads");
    let dir = Path::new("lab/restore/observations");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("lab/restore/observations exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no recorded observations");
    let mut disagreements = Vec::new();
    let mut checked = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable");
        let recorded: Observations = serde_saphyr::from_str(&text).expect("observations parse");
        for obs in &recorded.observations {
            let path = Path::new("lab/restore/pairs").join(format!("{}.yaml", obs.id));
            let pair: Pair = serde_saphyr::from_str(
                &std::fs::read_to_string(&path).expect("the observed pair exists"),
            )
            .expect("pair parses");
            let (Some(old), Some(new), None) = (pair.old, pair.new, &pair.skipped) else {
                let rule = rules.get(&pair.rule).expect("a skipped pair names a rule");
                if obs.outcome != "cannot_tell" || rule.verdict_text() != "unknown" {
                    disagreements.push(format!(
                        "{}: skipped ({}), observed {}; the profile's {} says {}",
                        obs.id,
                        pair.skipped.as_deref().unwrap_or("no SQL"),
                        obs.outcome,
                        rule.id,
                        rule.verdict_text()
                    ));
                }
                checked += 1;
                continue;
            };
            let report = check(
                SourceFile::new(format!("{}#old", path.display()), old),
                SourceFile::new(format!("{}#new", path.display()), new),
                &[],
                &rules,
            )
            .expect("the pair checks");
            let modes: Vec<&str> = report
                .findings()
                .filter_map(|f| f.failure_mode.map(|m| m.name()))
                .collect();
            let (verdict, wanted) = expected(&obs.outcome);
            let modes_agree = wanted.is_empty() || wanted.iter().any(|m| modes.contains(m));
            if report.verdict != verdict || !modes_agree {
                disagreements.push(format!(
                    "{} (Flink {}): observed {} ({}); the profile says {} {modes:?}",
                    obs.id,
                    recorded.flink_version,
                    obs.outcome,
                    obs.detail.as_deref().unwrap_or(""),
                    report.verdict,
                ));
            }
            checked += 1;
        }
    }
    assert!(checked >= 8, "only {checked} observations");
    assert!(
        disagreements.is_empty(),
        "{} disagreement(s):\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

/// A family the lab measured keeps no assumption of the profile it extends: the rule a pair
/// that ran measures is the open-source profile's own (its verdict and failure mode follow the lab), and
/// every pair of the lab has an observation in the newest recording.
#[test]
fn every_measured_rule_is_the_open_source_profiles_own_and_every_pair_was_run() {
    let rules = RuleSet::load_engine("apache-flink-2", &[] as &[&str]).expect("the profile loads");
    let dir = Path::new("lab/restore/observations");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("lab/restore/observations exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    let newest = files.last().expect("recorded observations");
    let recorded: Observations =
        serde_saphyr::from_str(&std::fs::read_to_string(newest).expect("readable"))
            .expect("observations parse");
    let observed: Vec<&str> = recorded
        .observations
        .iter()
        .map(|o| o.id.as_str())
        .collect();
    let mut problems = Vec::new();
    let mut pairs: Vec<_> = std::fs::read_dir("lab/restore/pairs")
        .expect("lab/restore/pairs exists")
        .map(|e| e.expect("entry").path())
        .collect();
    pairs.sort();
    for path in pairs {
        let id = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        if !observed.contains(&id.as_str()) {
            problems.push(format!("{id}: no observation in {}", newest.display()));
        }
        let pair: Pair = serde_saphyr::from_str(&std::fs::read_to_string(&path).expect("readable"))
            .expect("pair parses");
        // Pairs about a row of the documentation's table name it in prose; the others a rule.
        // A pair the lab cannot run (`skipped`) measures nothing.
        if let (Some(rule), None) = (rules.get(&pair.rule), &pair.skipped) {
            if rule.profile != "apache-flink-2" {
                problems.push(format!(
                    "{id}: measures {}, which apache-flink-2 still inherits from {}",
                    rule.id, rule.profile
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
