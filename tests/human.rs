//! The human report, snapshot-tested in its plain form (what a pipe or `NO_COLOR` gets): the
//! verdict line, findings with labelled snippets, the state table, warnings and assumptions.
//! Run with `UPDATE_SNAPSHOTS=1` to rewrite a snapshot after an intended change.

use flink_compat::cases;
use flink_compat::check::check;
use flink_compat::report::human::{self, Style};
use flink_compat::rules::RuleSet;
use flink_compat::source::SourceFile;
use std::process::Command;

fn rules() -> RuleSet {
    RuleSet::load(&[] as &[&str]).expect("the built-in rules load")
}

fn render(old: SourceFile, new: SourceFile, style: Style) -> String {
    let report = check(old.clone(), new.clone(), &[], &rules()).expect("the pair checks");
    human::render(&report, &[&old, &new], style)
}

fn read(path: &str) -> SourceFile {
    SourceFile::new(path, std::fs::read_to_string(path).expect("readable"))
}

/// The old and new scripts of a case file, named `old.sql` and `new.sql`.
fn case_pair(path: &str) -> (SourceFile, SourceFile) {
    let case = cases::load(&read(path)).expect("the case loads");
    (
        SourceFile::new("old.sql", case.old),
        SourceFile::new("new.sql", case.new),
    )
}

fn assert_snapshot(name: &str, actual: &str) {
    let path = format!("tests/snapshots/{name}.txt");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, actual).expect("write the snapshot");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        expected == actual,
        "{path} differs (UPDATE_SNAPSHOTS=1 to accept):\n--- expected\n{expected}\n--- actual\n{actual}"
    );
}

#[test]
fn an_added_aggregate_is_shown_in_both_scripts_with_the_state_table() {
    let text = render(
        read("examples/old.sql"),
        read("examples/new.sql"),
        Style::PLAIN,
    );
    assert!(text.starts_with("PARTIALLY COMPATIBLE:"), "{text}");
    assert_snapshot("example", &text);
}

#[test]
fn warnings_point_at_the_sql_and_assumptions_are_listed() {
    let (old, new) = case_pair("cases/group_window_aggregate/seed003-max-substring-argument.yaml");
    assert_snapshot("warning-and-assumptions", &render(old, new, Style::PLAIN));
}

#[test]
fn an_incompatible_change_names_its_rule_at_the_changed_clause() {
    let (old, new) = case_pair("cases/deduplicate/seed004-add-partition-key.yaml");
    let text = render(old, new, Style::PLAIN);
    assert!(text.starts_with("INCOMPATIBLE:"), "{text}");
    assert_snapshot("incompatible", &text);
}

#[test]
fn a_mistyped_configuration_key_is_a_warning_with_a_suggestion() {
    let (old, new) = case_pair("cases/group_window_aggregate/seed003-late-fire-added.yaml");
    let text = render(old, new, Style::PLAIN);
    assert!(text.contains("did you mean"), "{text}");
    assert_snapshot("configuration", &text);
}

#[test]
fn colour_only_when_asked_and_plain_output_is_free_of_escapes() {
    let colour = Style {
        colour: true,
        width: 100,
    };
    let text = render(read("examples/old.sql"), read("examples/new.sql"), colour);
    assert!(text.contains('\u{1b}'), "colour has escapes");
    let output = Command::new(env!("CARGO_BIN_EXE_flink-compat"))
        .args(["check", "examples/old.sql", "examples/new.sql"])
        .output()
        .expect("runs");
    let piped = String::from_utf8_lossy(&output.stdout);
    assert!(!piped.contains('\u{1b}'), "not a terminal: no colour");
    assert_eq!(
        piped,
        render(
            read("examples/old.sql"),
            read("examples/new.sql"),
            Style::PLAIN
        )
    );
}
