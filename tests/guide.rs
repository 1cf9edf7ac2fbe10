//! The user guide's own rule and case work as written: a user who copies them gets a rule that
//! loads and a case that passes (docs/guide.md, "Writing a rule" and "Writing cases").

use flink_compat::cases;
use flink_compat::rules::RuleSet;
use flink_compat::source::SourceFile;

/// The fenced YAML block of the guide that starts with `first_line`.
fn yaml_block(guide: &str, first_line: &str) -> String {
    let start = guide
        .find(&format!("```yaml\n{first_line}"))
        .unwrap_or_else(|| panic!("the guide has a block starting with {first_line:?}"))
        + "```yaml\n".len();
    let end = guide[start..].find("```").expect("the block ends") + start;
    guide[start..end].to_string()
}

#[test]
fn the_guides_rule_loads_and_its_case_passes() {
    let guide = std::fs::read_to_string("docs/guide.md").expect("docs/guide.md");
    let rule = yaml_block(&guide, "# yaml-language-server");
    let case = yaml_block(&guide, "title: Three aggregates");
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("guide-rules-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("group_aggregate.yaml"), rule).expect("write");
    let rules = RuleSet::load(&[&dir]);
    let _ = std::fs::remove_dir_all(&dir);
    let rules = rules.expect("the guide's rule loads");
    assert!(rules.get("team-many-aggregates-added").is_some());
    let outcome = cases::run(&SourceFile::new("guide-case.yaml", case), &rules)
        .expect("the guide's case loads");
    assert!(outcome.passed(), "{:?}", outcome.problems);
}

#[test]
fn the_guides_rule_with_variants_loads_as_one_rule_per_variant() {
    let guide = std::fs::read_to_string("docs/guide.md").expect("docs/guide.md");
    let rule = yaml_block(&guide, "operator: query\nrules:\n  - change: sink_options");
    let mut rules = RuleSet::load(&[] as &[&str]).expect("built-in rules");
    flink_compat::rules::load::load_file(&SourceFile::new("guide-variants.yaml", rule), &mut rules)
        .expect("the guide's rule with variants loads");
    let last = rules
        .get("team-sink-options-changed-stateful")
        .expect("the second variant");
    assert_eq!(last.when.source(), "not config.ignore_sink");
    assert!(rules.get("team-sink-options-changed").is_some());
}

#[test]
fn the_guides_tour_shows_the_current_report() {
    let guide = std::fs::read_to_string("docs/guide.md").expect("docs/guide.md");
    let report = std::fs::read_to_string("tests/snapshots/example.txt").expect("snapshot");
    assert!(
        guide.contains(&report),
        "docs/guide.md's tour differs from tests/snapshots/example.txt: copy it over"
    );
}
