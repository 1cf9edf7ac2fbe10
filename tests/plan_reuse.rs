//! A query of the new script planned by reusing the old script's plan of the same statement
//! (`flink_compat::plan::reuse`) must be exactly the query planned from scratch: operators,
//! facts, every place in the new script, notes. Checked on both sides of every case file (both
//! ways round), and on every corpus script against itself moved down the file.

use flink_compat::plan::builder::{build_plan, plan_prepared, prepare, Reuse};
use flink_compat::plan::Plan;
use flink_compat::source::SourceFile;
use flink_compat::sql::parse_script;
use std::path::Path;

#[allow(dead_code)]
#[path = "support/deployment.rs"]
mod deployment;

fn parsed(name: &str, text: &str) -> Option<flink_compat::sql::Script> {
    parse_script(SourceFile::new(name, text.to_string())).ok()
}

/// The new script's plan from scratch and reusing the old one's; None when either does not plan.
fn both_ways(old: &str, new: &str, set: &[(String, String)]) -> Option<(Plan, Plan)> {
    let (old, new, set) = (old.to_string(), new.to_string(), set.to_vec());
    flink_compat::check::on_planner_stack(move || Ok(planned_both_ways(&old, &new, &set)))
        .ok()
        .flatten()
}

fn planned_both_ways(old: &str, new: &str, set: &[(String, String)]) -> Option<(Plan, Plan)> {
    let old_plan =
        plan_prepared(prepare(parsed("old.sql", old)?, set).ok()?, Reuse::Record).ok()?;
    let scratch = build_plan(parsed("new.sql", new)?, set).ok()?;
    let reusing = plan_prepared(
        prepare(parsed("new.sql", new)?, set).ok()?,
        Reuse::From(&old_plan),
    )
    .ok()?;
    Some((scratch, reusing))
}

/// Asserts that reusing plans as planning does; returns how many queries were reused.
fn assert_same(what: &str, old: &str, new: &str, set: &[(String, String)]) -> usize {
    let Some((scratch, reusing)) = both_ways(old, new, set) else {
        return 0;
    };
    let (a, b) = (
        format!("{:#?}", scratch.queries),
        format!("{:#?}", reusing.queries),
    );
    if a != b {
        let line = a
            .lines()
            .zip(b.lines())
            .position(|(x, y)| x != y)
            .unwrap_or(0);
        let around = |text: &str| {
            text.lines()
                .skip(line.saturating_sub(8))
                .take(16)
                .collect::<Vec<_>>()
                .join("\n")
        };
        panic!(
            "{what}: the reused plan differs from the plan from scratch at line {line}:\n--- scratch\n{}\n--- reusing\n{}",
            around(&a),
            around(&b)
        );
    }
    assert_eq!(
        format!("{:?}", scratch.notes.items),
        format!("{:?}", reusing.notes.items),
        "{what}: the notes differ"
    );
    reusing.reused
}

#[test]
fn reused_plans_are_the_plans_from_scratch_on_every_case() {
    let mut reused = 0;
    let mut cases = 0;
    for path in flink_compat::cases::collect(&["cases".into()]).expect("cases/ is readable") {
        let text = std::fs::read_to_string(&path).expect("readable");
        let name = path.display().to_string();
        let case = flink_compat::cases::load(&SourceFile::new(name.clone(), text)).expect("a case");
        let set: Vec<(String, String)> = case.set.into_iter().collect();
        reused += assert_same(&format!("{name} old -> new"), &case.old, &case.new, &set);
        reused += assert_same(&format!("{name} new -> old"), &case.new, &case.old, &set);
        cases += 1;
    }
    // Most cases change their one query; those of several queries have some alike.
    assert!(
        reused > 100,
        "only {reused} queries reused over {cases} cases"
    );
}

#[test]
fn reused_plans_are_the_plans_from_scratch_on_the_corpus() {
    let corpus = Path::new("../shared/corpus");
    if !corpus.is_dir() {
        return;
    }
    let mut scripts = Vec::new();
    for dir in ["flink-tests", "realworld"] {
        let Ok(entries) = walk(&corpus.join(dir)) else {
            continue;
        };
        scripts.extend(entries);
    }
    let mut reused = 0;
    for path in &scripts {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        // The same script, every statement further down the file.
        let moved = format!("-- moved down\n\n{text}");
        reused += assert_same(&path.display().to_string(), &text, &moved, &[]);
    }
    assert!(reused > 100, "only {reused} queries reused in the corpus");
}

fn walk(dir: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            out.extend(walk(&path)?);
        } else if path.extension().is_some_and(|e| e == "sql") {
            out.push(path);
        }
    }
    out.sort();
    Ok(out)
}

#[test]
fn a_deployment_plans_only_its_changed_queries() {
    let (old, new) = deployment::pair(60);
    let (scratch, reusing) = both_ways(&old, &new, &[]).expect("the deployment plans");
    assert_eq!(
        format!("{:#?}", scratch.queries),
        format!("{:#?}", reusing.queries)
    );
    // Every tenth window aggregate (one query in 30) changes; its sink's DDL too.
    assert_eq!(reusing.reused, 58);
}

#[test]
fn a_changed_definition_is_planned_again() {
    let old = "CREATE TABLE t (a INT, b INT) WITH ('connector' = 'datagen');\n\
               CREATE TABLE s (a INT, n BIGINT) WITH ('connector' = 'blackhole');\n\
               INSERT INTO s SELECT a, COUNT(*) FROM t GROUP BY a;";
    for new in [
        // the source's DDL
        old.replace("b INT)", "b BIGINT)"),
        // an ALTER after it
        old.replace(
            "INSERT",
            "ALTER TABLE t SET ('rows-per-second' = '5');\nINSERT",
        ),
        // the configuration in force
        format!("SET 'table.exec.mini-batch.enabled' = 'true';\n{old}"),
        // a temporary table of the same name, resolved first
        old.replace(
            "INSERT",
            "CREATE TEMPORARY TABLE t (a INT, b INT) WITH ('connector' = 'datagen');\nINSERT",
        ),
    ] {
        let (scratch, reusing) = both_ways(old, &new, &[]).expect("both plan");
        assert_eq!(reusing.reused, 0, "reused a query of:\n{new}");
        assert_eq!(
            format!("{:#?}", scratch.queries),
            format!("{:#?}", reusing.queries)
        );
    }
    let moved = format!("-- a comment\n{old}");
    assert_eq!(both_ways(old, &moved, &[]).expect("both plan").1.reused, 1);
    let with_function = old
        .replace(
            "INSERT",
            "CREATE TEMPORARY FUNCTION f AS 'com.example.F';\nINSERT",
        )
        .replace("FROM t GROUP", "FROM t WHERE f(b) > 0 GROUP");
    for changed in [
        with_function.replace("com.example.F", "com.example.G"),
        with_function.replace("TEMPORARY FUNCTION", "TEMPORARY SYSTEM FUNCTION"),
    ] {
        let (scratch, reusing) = both_ways(&with_function, &changed, &[]).expect("both plan");
        assert_eq!(
            reusing.reused, 0,
            "reused a query calling a changed function"
        );
        assert_eq!(
            format!("{:#?}", scratch.queries),
            format!("{:#?}", reusing.queries)
        );
    }
    let with_view = old.replace("FROM t GROUP", "FROM v GROUP").replace(
        "INSERT",
        "CREATE VIEW v AS SELECT a, b FROM t WHERE a > 0;\nINSERT",
    );
    let view_changed = with_view.replace("a > 0", "a > 1");
    let (scratch, reusing) = both_ways(&with_view, &view_changed, &[]).expect("both plan");
    assert_eq!(reusing.reused, 0, "reused a query reading a changed view");
    assert_eq!(
        format!("{:#?}", scratch.queries),
        format!("{:#?}", reusing.queries)
    );
}
