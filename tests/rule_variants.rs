//! Rules with `variants:`: one definition whose id, verdict and message follow the facts. Each
//! variant loads as a rule of its own id (cases, suppressions and overrides name it); a malformed
//! variant is reported at its place in the YAML.

#[allow(dead_code)]
mod support;
use flink_compat::error::Error;
use flink_compat::rules::RuleSet;
use flink_compat::source::SourceFile;
use flink_compat::verdict::Verdict;
use serde_json::json;

use support::cli::run as cli;

const VARIANTS: &str = "operator: query
rules:
  - change: sink_options
    reference: \"https://example.com/sink\"
    when: new.exists
    variants:
      - id: my-sink-options-ignored
        when: config.ignore_sink
        verdict: fully_compatible
        message: \"ignored: {new.sink}\"
      - id: my-sink-options-kept
        verdict: unknown
        message: \"kept: {new.sink}\"
";

/// The built-in rules (the query's change kinds), then the file.
fn load(text: &str) -> Result<RuleSet, Error> {
    let mut set = RuleSet::load(&[] as &[&str]).expect("built-in rules");
    flink_compat::rules::load::load_file(&SourceFile::new("variants.yaml", text), &mut set)
        .map(|()| set)
}

/// (line, message) of every error of a rule file that does not load.
fn errors(text: &str) -> Vec<(usize, String)> {
    match load(text) {
        Err(error) => {
            let located = error.located_errors();
            assert!(!located.is_empty(), "located errors expected: {error:?}");
            located
                .iter()
                .map(|e| (e.line, e.message.clone()))
                .collect()
        }
        Ok(_) => panic!("the file should not load"),
    }
}

#[test]
fn each_variant_is_a_rule_of_its_own_id_tried_in_order() {
    let set = load(VARIANTS).expect("the variants load");
    let ids: Vec<&str> = set
        .rules
        .iter()
        .map(|r| r.id.as_str())
        .filter(|id| id.starts_with("my-"))
        .collect();
    assert_eq!(ids, ["my-sink-options-ignored", "my-sink-options-kept"]);
    let first = set.get("my-sink-options-ignored").expect("first");
    let last = set.get("my-sink-options-kept").expect("last");
    assert_eq!(first.when.source(), "new.exists and config.ignore_sink");
    assert_eq!(last.when.source(), "new.exists and not config.ignore_sink");
    // Shared fields are given once.
    assert_eq!(first.reference, last.reference);
    assert_eq!(first.change, "sink_options");
    let facts = |ignore: bool| json!({"new": {"exists": true}, "config": {"ignore_sink": ignore}});
    assert!(first.when.eval(&facts(true)) && !last.when.eval(&facts(true)));
    assert!(!first.when.eval(&facts(false)) && last.when.eval(&facts(false)));
    assert_eq!(first.verdict_for(&facts(true)), Verdict::FullyCompatible);
    assert_eq!(last.verdict_for(&facts(false)), Verdict::Unknown);
    let variants = last.variant_of.as_ref().expect("a variant");
    assert_eq!(
        variants.ids,
        ["my-sink-options-ignored", "my-sink-options-kept"]
    );
    assert_eq!(variants.when, None);
}

#[test]
fn a_built_in_pair_written_once_keeps_both_ids_and_complementary_whens() {
    let set = RuleSet::load(&[] as &[&str]).expect("built-in rules");
    let kept = set
        .get("query-sink-options-changed")
        .expect("the first variant");
    let stateful = set
        .get("query-sink-options-changed-stateful")
        .expect("the second variant keeps its id");
    assert_eq!(kept.when.source(), "config.ignore_sink");
    assert_eq!(stateful.when.source(), "not config.ignore_sink");
    assert_eq!(kept.file, stateful.file);
    assert_eq!(stateful.verdict_text(), "unknown");
    let (code, out, _) = cli(&["rules", "show", "query-sink-options-changed-stateful"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("variants: query-sink-options-changed, query-sink-options-changed-stateful (this one); tried in order, this one applies when no earlier one does"),
        "{out}"
    );
}

#[test]
fn a_variant_id_is_adjusted_by_a_rule_of_that_id() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("variant-override-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(
        dir.join("override.yaml"),
        "operator: query\nrules:\n  - id: query-sink-options-changed-stateful\n    verdict: incompatible\n",
    )
    .expect("write");
    let set = RuleSet::load(&[&dir]);
    let _ = std::fs::remove_dir_all(&dir);
    let set = set.expect("the override loads");
    let rule = set
        .get("query-sink-options-changed-stateful")
        .expect("rule");
    assert_eq!(rule.verdict_text(), "incompatible");
    assert_eq!(rule.when.source(), "not config.ignore_sink", "kept");
    assert!(rule.variant_of.is_some());
}

#[test]
fn malformed_variants_are_reported_at_their_place() {
    let text = "operator: query
rules:
  - id: my-idea
    change: sink_options
    variants:
      - id: my-a
        verdict: unknown
        message: a
      - id: my-b
        when: config.ignore_sink
        verdict: unknown
        message: b
  - change: sink_options
    variants:
      - id: my-c
        when: config.ignore_snk
        verdict: unknown
        message: c
      - id: my-c
        verdict: unknown
        message: c
  - change: sink_options
    variants:
      - id: my-only
        verdict: unknown
        message: d
";
    let found = errors(text);
    let expected = [
        (
            3,
            "a rule with `variants:` has no `id` of its own (`my-idea`): each variant names its id",
        ),
        (
            6,
            "variant `my-a` has no `when`, and is not the last variant",
        ),
        (19, "variant id `my-c` is given twice"),
        (24, "`variants:` lists at least two variants"),
    ];
    for (line, message) in expected {
        assert!(
            found.iter().any(|(l, m)| *l == line && m == message),
            "{line}: {message} in {found:?}"
        );
    }
    assert_eq!(found.len(), expected.len(), "{found:?}");
    // A variant's `when` is compiled on its own: a misspelt fact is located in it.
    let misspelt = "operator: query
rules:
  - change: sink_options
    variants:
      - id: my-c
        when: config.ignore_snk
        verdict: unknown
        message: c
      - id: my-d
        verdict: unknown
        message: d
";
    let found = errors(misspelt);
    assert!(!found.is_empty());
    assert!(found.iter().all(|(line, _)| *line == 6), "{found:?}");
    assert!(found[0].1.contains("ignore_snk"), "{found:?}");
}

#[test]
fn unknown_keys_of_a_variant_and_a_rule_without_id_are_located() {
    let text = "operator: query
rules:
  - change: sink_options
    variants:
      - id: my-a
        when: config.ignore_sink
        change: sink
        verdict: unknown
        message: a
      - id: my-b
        verdict: unknown
        message: b
  - change: sink_options
    verdict: unknown
    message: c
";
    let found = errors(text);
    assert!(
        found
            .iter()
            .any(|(l, m)| *l == 7 && m == "unknown key `change`"),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|(l, m)| *l == 13 && m.contains("has no `id`")),
        "{found:?}"
    );
}

#[test]
fn a_family_field_whose_variables_are_empty_for_a_kind_keeps_the_base_rules() {
    let none: &[&str] = &[];
    let vvr = RuleSet::load_engine("vvr", none).expect("vvr");
    let flink = RuleSet::load_engine("apache-flink-2", none).expect("apache-flink-2");
    let rule = |set: &RuleSet, id: &str| set.get(id).cloned().expect("the rule");
    // rules/apache-flink-2/aggregates.yaml: `message` is a variable, empty for wa.
    let wa = rule(&flink, "wa-aggregate-added");
    assert!(
        wa.file.ends_with("apache-flink-2/aggregates.yaml"),
        "{}",
        wa.file
    );
    assert_eq!(wa.profile, "apache-flink-2");
    assert_eq!(
        wa.message.source(),
        rule(&vvr, "wa-aggregate-added").message.source()
    );
    assert_eq!(
        wa.failure_mode_for(&json!({})),
        Some(flink_compat::rules::FailureMode::RestoreFails)
    );
    let ga = rule(&flink, "ga-aggregate-added");
    assert!(
        ga.message.source().contains("accumulator row"),
        "{}",
        ga.message.source()
    );
    // A field given for one kind only: measured (source) for gwa, derived for wa.
    let gwa = rule(&flink, "gwa-aggregate-removed");
    assert!(gwa.source.is_some() && gwa.derived.is_none());
    let wa = rule(&flink, "wa-aggregate-removed");
    assert!(wa.source.is_none() && wa.derived.is_some());
    // rules/apache-flink-2/windows.yaml: the verdict is a variable, empty for wa (whose
    // early/late-fire does not plan: the base verdict, with a failure mode of its own).
    let gwa = rule(&flink, "gwa-emit-config-changed");
    assert_eq!(gwa.verdict_text(), "fully_compatible");
    let wa = rule(&flink, "wa-emit-config-changed");
    assert_eq!(
        wa.verdict_text(),
        rule(&vvr, "wa-emit-config-changed").verdict_text()
    );
    assert_eq!(
        wa.failure_mode_for(&json!({})),
        Some(flink_compat::rules::FailureMode::RestoreFails)
    );
}

#[test]
fn a_variant_without_id_is_located() {
    let text = "operator: query
rules:
  - change: sink_options
    variants:
      - when: config.ignore_sink
        verdict: unknown
        message: a
      - id: my-b
        verdict: unknown
        message: b
";
    let found = errors(text);
    assert!(
        found
            .iter()
            .any(|(l, m)| *l == 5 && m.contains("variant 1 has no `id`")),
        "{found:?}"
    );
}
