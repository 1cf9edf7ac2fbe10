//! Rule authoring: the facts reference in docs/ is the CLI's output, every rule file follows
//! docs/rule-file.schema.json, every mistake of a broken rule file is reported at its place,
//! and `rules show` gives a case that fires the rule.

#[allow(dead_code)]
mod support;
use flink_compat::error::Error;
use flink_compat::rules::{facts_doc, RuleSet};
use serde_json::Value;

use support::cli::run as cli;

#[test]
fn docs_facts_md_is_the_output_of_rules_facts() {
    let committed = std::fs::read_to_string("docs/facts.md").expect("docs/facts.md");
    let (code, printed, _) = cli(&["rules", "facts"]);
    assert_eq!(code, 0);
    assert!(
        committed == printed,
        "docs/facts.md is stale: run `cargo run -- rules facts > docs/facts.md`"
    );
    assert_eq!(printed, facts_doc::reference(None).expect("reference"));
}

#[test]
fn the_facts_of_one_kind_name_type_and_meaning() {
    let text = facts_doc::reference(Some("deduplicate")).expect("a known kind");
    assert!(text.contains("## deduplicate"));
    assert!(!text.contains("## group_aggregate"));
    assert!(text.contains("| `old.mode` / `new.mode` | `string` | proctime_asc"));
    assert!(facts_doc::reference(Some("dedup")).is_err());
}

#[test]
fn every_connector_table_follows_the_connector_file_schema() {
    let validator = support::schema::validator("docs/connector-file.schema.json");
    let mut checked = 0;
    for entry in std::fs::read_dir("rules/connectors").expect("rules/connectors/") {
        let path = entry.expect("entry").path();
        let text = std::fs::read_to_string(&path).expect("readable");
        let value: Value = serde_saphyr::from_str(&text).expect("YAML");
        support::schema::assert_follows(&validator, &value, &path.display().to_string());
        checked += 1;
    }
    assert!(checked >= 9, "a table per documented connector");
}

fn rule_file_schema() -> jsonschema::Validator {
    support::schema::validator("docs/rule-file.schema.json")
}

#[test]
fn every_rule_file_follows_the_rule_file_schema() {
    let validator = rule_file_schema();
    let mut checked = 0;
    let files = std::fs::read_dir("rules")
        .expect("rules/")
        .flat_map(|profile| {
            std::fs::read_dir(profile.expect("entry").path()).expect("a profile folder")
        })
        .map(|entry| entry.expect("entry").path())
        .filter(|path| path.file_name().is_some_and(|n| n != "profile.yaml"))
        .filter(|path| !path.starts_with("rules/connectors"))
        // The configuration key table (checked by its unit test in src/catalog/config.rs).
        .filter(|path| !path.starts_with("rules/config"));
    for path in files {
        let text = std::fs::read_to_string(&path).expect("readable");
        let value: Value = serde_saphyr::from_str(&text).expect("YAML");
        support::schema::assert_follows(&validator, &value, &path.display().to_string());
        checked += 1;
    }
    assert!(checked >= 7);
    let mistaken: Value = serde_saphyr::from_str(
        "operator: group_aggregate\nrules:\n  - id: Bad_Id\n    change: any\n    whn: 'true'\n    verdict: maybe\n    message: m\n",
    )
    .expect("YAML");
    assert_eq!(
        validator.iter_errors(&mistaken).count(),
        3,
        "id, whn, verdict (`when` may be left out by a rule adjusting a base rule)"
    );
}

const BROKEN: &str = "operator: group_window_aggregate
rules:
  - id: my-rule
    change: aggregates
    when: count(plain_aggregates.addded) > 0
    verdict: partially_compatible
    message: x
  - id: my-other-rule
    change: agregates
    when: count(aggregates.added) > 0
    verdict: maybe
    message: x
";

#[test]
fn a_rule_file_with_three_mistakes_gives_three_located_errors() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("broken-rules-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("broken.yaml"), BROKEN).expect("write");
    let result = RuleSet::load(&[&dir]);
    let (code, _, stderr) = cli(&["rules", "list", "--rules", dir.to_str().expect("utf-8")]);
    let _ = std::fs::remove_dir_all(&dir);
    let Err(Error::Many(many)) = result else {
        panic!("three errors expected");
    };
    let places: Vec<(usize, usize)> = many.errors.iter().map(|e| (e.line, e.column)).collect();
    assert_eq!(places, vec![(5, 17), (9, 13), (11, 14)]);
    assert!(many.errors[0]
        .help
        .as_deref()
        .unwrap_or("")
        .contains("plain_aggregates.added"));
    assert_eq!(code, 2);
    assert!(stderr.contains("3 errors"), "{stderr}");
    assert!(stderr.contains("unknown verdict `maybe`"), "{stderr}");
}

#[test]
fn rules_show_gives_a_case_that_fires_the_rule() {
    let (code, out, _) = cli(&["rules", "show", "gwa-aggregate-added"]);
    assert_eq!(code, 0);
    assert!(out.contains("rationale:"), "{out}");
    assert!(out.contains("case:     cases/"), "{out}");
    assert!(out.contains("old:\n      SELECT"), "{out}");
    assert!(
        out.contains("expect: partially_compatible [gwa-aggregate-added"),
        "{out}"
    );
}

#[test]
fn every_built_in_rule_has_an_example_case() {
    for engine in flink_compat::rules::profile::builtin()
        .expect("profiles")
        .keys()
    {
        let rules = RuleSet::load_engine(engine, &[] as &[&str]).expect("built-in rules");
        let without: Vec<&str> = rules
            .rules
            .iter()
            .filter(|r| r.profile == *engine)
            .filter(|r| flink_compat::cases::example_of(&r.id, engine, &[]).is_none())
            .map(|r| r.id.as_str())
            .collect();
        assert!(without.is_empty(), "{engine}: no case expects: {without:?}");
    }
}

const MISSHAPEN: &str = "operator: group_window_aggregate
rules:
  - id: my-rule
    change: aggregates
    whn: count(plain_aggregates.added) > 0
    verdict: partially_compatible
    message: x
  - id: my-other-rule
    change: aggregates
    when: count(aggregates.added) > 0
    verdict: [unknown]
    message: x
";

#[test]
fn unknown_and_missing_keys_of_every_rule_are_reported_together() {
    let file = flink_compat::source::SourceFile::new("misshapen.yaml", MISSHAPEN);
    let mut set = RuleSet::default();
    let Err(Error::Many(many)) = flink_compat::rules::load::load_file(&file, &mut set) else {
        panic!("several errors expected");
    };
    let found: Vec<(usize, &str)> = many
        .errors
        .iter()
        .map(|e| (e.line, e.message.as_str()))
        .collect();
    // `when` may be left out (the rule fires whenever its change kind happened).
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0], (5, "unknown key `whn`"));
    assert_eq!(many.errors[0].help.as_deref(), Some("did you mean `when`?"));
    assert_eq!(found[1].0, 11);
    assert!(
        found[1].1.starts_with("`verdict` must be a verdict"),
        "{found:?}"
    );
}

const MISSHAPEN_CASE: &str = "title: broken
olds: |
  SELECT 1;
new: [x]
expect:
  verdict: maybe
  findngs: [a]
";

#[test]
fn every_mistake_of_a_case_file_is_reported_at_its_place() {
    let file = flink_compat::source::SourceFile::new("misshapen-case.yaml", MISSHAPEN_CASE);
    let Err(Error::Many(many)) = flink_compat::cases::load(&file) else {
        panic!("several errors expected");
    };
    let found: Vec<(usize, &str)> = many
        .errors
        .iter()
        .map(|e| (e.line, e.message.as_str()))
        .collect();
    assert_eq!(
        found,
        vec![
            (1, "the case has no `old`"),
            (3, "unknown key `olds`"),
            (4, "`new` must be text, not [\"x\"]"),
            (6, "`expect` has no `findings`"),
            (6, "`verdict` must be a verdict, not \"maybe\""),
            (7, "unknown key `findngs`"),
        ]
    );
    assert_eq!(many.errors[1].help.as_deref(), Some("did you mean `old`?"));
}
