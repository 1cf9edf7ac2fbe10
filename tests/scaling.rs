//! One query of thousands of tables or columns, with and without DDL: the check answers
//! correctly (unoptimized, within the test harness's ordinary budget), and the plan it builds
//! grows linearly with the query. No time is asserted: the release figures are in the README
//! ("Performance") and `cargo bench`.

#[allow(dead_code)]
mod support;

use flink_compat::check::{check, compare, plan_script};
use flink_compat::plan::builder::build_plan;
use flink_compat::rules::RuleSet;
use flink_compat::source::SourceFile;
use flink_compat::sql::parse_script;
use support::deployment;

/// The size of the plan of one script (its queries' debug text): what building it writes, a
/// proxy for the memory it takes.
fn plan_size(sql: String) -> usize {
    let script = parse_script(SourceFile::new("query.sql", sql)).expect("the script parses");
    let plan = build_plan(script, &[]).expect("the script plans");
    format!("{:?}", plan.queries).len()
}

/// Twice the tables or columns make a plan about twice as large (four times, were it
/// quadratic).
fn assert_linear(shape: &str, script: impl Fn(usize) -> String, n: usize) {
    let (small, large) = (plan_size(script(n)), plan_size(script(2 * n)));
    let ratio = large as f64 / small as f64;
    assert!(
        (1.7..=2.4).contains(&ratio),
        "{shape}: a plan of {small} bytes for {n}, {large} for {} (×{ratio:.2})",
        2 * n
    );
}

#[test]
fn the_plan_of_a_join_chain_is_linear_in_its_tables() {
    assert_linear("declared tables", deployment::join_chain, 400);
    assert_linear("tables without DDL", deployment::open_join_chain, 400);
}

#[test]
fn the_plan_of_a_wide_select_is_linear_in_its_columns() {
    assert_linear(
        "declared columns",
        |n| deployment::wide_select(n, true),
        2_000,
    );
    assert_linear(
        "columns without DDL",
        |n| deployment::wide_select(n, false),
        2_000,
    );
}

/// A pair of scripts large enough to be planned side by side, on two threads.
fn large_pair() -> (SourceFile, SourceFile) {
    let (old, new) = deployment::pair(400);
    assert!(
        old.len().min(new.len()) >= 64 * 1024,
        "scripts of 64 KiB or more are planned side by side"
    );
    (
        SourceFile::new("old.sql", old),
        SourceFile::new("new.sql", new),
    )
}

#[test]
fn scripts_planned_side_by_side_report_as_planned_one_after_the_other() {
    let rules = RuleSet::load(&[] as &[&str]).expect("the built-in rules load");
    let (old, new) = large_pair();
    let side_by_side = check(old.clone(), new.clone(), &[], &rules).expect("the pair plans");
    let old_plan = plan_script(old, &[]).expect("the old script plans");
    let new_plan = plan_script(new, &[]).expect("the new script plans");
    let one_by_one = compare(&old_plan, &new_plan, &rules);
    assert_ne!(side_by_side.queries.len(), 0);
    assert_eq!(
        serde_json::to_value(&side_by_side).expect("the report serializes"),
        serde_json::to_value(&one_by_one).expect("the report serializes")
    );
}

#[test]
fn a_large_script_that_does_not_plan_is_reported_as_when_planned_alone() {
    let rules = RuleSet::load(&[] as &[&str]).expect("the built-in rules load");
    let (old, new) = large_pair();
    let broken = |file: &SourceFile, tail: &str| {
        SourceFile::new(file.name.clone(), format!("{}{tail}", file.text))
    };
    let (old_broken, new_broken) = (
        broken(&old, "INSERT INTO sink_0 SELECT FROM WHERE;\n"),
        broken(&new, "INSERT INTO sink_1 SELEC user_id;\n"),
    );
    let error_of = |old: &SourceFile, new: &SourceFile| {
        let error = check(old.clone(), new.clone(), &[], &rules).expect_err("a script is wrong");
        format!("{error:?}")
    };
    let alone = |file: &SourceFile| {
        let error = plan_script(file.clone(), &[]).expect_err("the script is wrong");
        format!("{error:?}")
    };
    // Both wrong: the old script's error, as when the old one is planned first.
    assert_eq!(error_of(&old_broken, &new_broken), alone(&old_broken));
    assert_eq!(error_of(&old, &new_broken), alone(&new_broken));
    assert_eq!(error_of(&old_broken, &new), alone(&old_broken));
}

/// `check OLD NEW --format json`: its verdict.
fn verdict(test: &str, old: &str, new: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("scaling")
        .join(test);
    std::fs::create_dir_all(&dir).expect("the scratch directory is writable");
    let (old_path, new_path) = (dir.join("old.sql"), dir.join("new.sql"));
    std::fs::write(&old_path, old).expect("the scratch file is writable");
    std::fs::write(&new_path, new).expect("the scratch file is writable");
    let (old_path, new_path) = (
        old_path.display().to_string(),
        new_path.display().to_string(),
    );
    let (code, stdout, stderr) =
        support::cli::run(&["check", &old_path, &new_path, "--format", "json"]);
    assert!(code == 0 || code == 1, "exit {code}: {stdout}{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("the report is JSON");
    report["verdict"].as_str().unwrap_or_default().to_string()
}

/// The last join of a chain of `tables` keyed by another column.
fn last_key_changed(chain: &str, tables: usize) -> String {
    let (before, last) = (tables - 2, tables - 1);
    chain.replace(
        &format!("ON t{before}.k = t{last}.k"),
        &format!("ON t{before}.k = t{last}.v{last}"),
    )
}

#[test]
fn a_join_of_4000_tables_gets_its_verdict() {
    const TABLES: usize = 4_000;
    for (test, chain) in [
        ("join", deployment::join_chain(TABLES)),
        ("open_join", deployment::open_join_chain(TABLES)),
    ] {
        assert_eq!(verdict(test, &chain, &chain), "fully_compatible", "{test}");
        let changed = last_key_changed(&chain, TABLES);
        assert_ne!(changed, chain);
        assert_eq!(verdict(test, &chain, &changed), "incompatible", "{test}");
    }
}

/// A SELECT of 20,000 columns, of a table declared by a CREATE TABLE of 20,000 columns and of
/// a table without DDL: the commas of a list do not count toward the limit of tokens per
/// statement (`MAX_STATEMENT_TOKENS`, which bounds the operator chains the planner recurses
/// into), so neither statement is refused.
#[test]
fn a_select_of_20000_columns_gets_its_verdict() {
    for (test, ddl, columns) in [("select", true, 20_000), ("open_select", false, 20_000)] {
        let select = deployment::wide_select(columns, ddl);
        assert_eq!(
            verdict(test, &select, &select),
            "fully_compatible",
            "{test}"
        );
    }
}
