//! The human report, snapshot-tested in its plain form (what a pipe or `NO_COLOR` gets): the
//! verdict line, findings with labelled snippets, the state table, warnings and assumptions.
//! Run with `UPDATE_SNAPSHOTS=1` to rewrite a snapshot after an intended change.

#[allow(dead_code)]
mod support;

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
    support::snapshot::assert_snapshot(&format!("tests/snapshots/{name}.txt"), actual);
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
        ..Style::PLAIN
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

fn render_at(old: SourceFile, new: SourceFile, width: usize) -> String {
    render(
        old,
        new,
        Style {
            width,
            ..Style::PLAIN
        },
    )
}

/// A pair with a SQL line far longer than any terminal, changed at its end.
fn long_line_pair() -> (SourceFile, SourceFile) {
    let table = "CREATE TABLE clicks (user_id STRING, page STRING, referrer STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'kafka');\n";
    let query = |agg: &str| {
        format!("{table}SELECT user_id, page, referrer, COUNT(*) AS views, MAX(ts) AS last_seen, MIN(ts) AS first_seen{agg} FROM clicks GROUP BY user_id, page, referrer;\n")
    };
    (
        SourceFile::new("old.sql", query("")),
        SourceFile::new("new.sql", query(", COUNT(DISTINCT referrer) AS referrers")),
    )
}

#[test]
fn no_line_is_longer_than_the_width_at_80_and_200_columns() {
    let pairs = [
        (
            "example",
            (read("examples/old.sql"), read("examples/new.sql")),
        ),
        (
            "incompatible",
            case_pair("cases/deduplicate/seed004-add-partition-key.yaml"),
        ),
        ("long-sql", long_line_pair()),
        (
            "window-size",
            case_pair("cases/window_aggregate/size-changed.yaml"),
        ),
        ("job-level", three_queries_and_a_set_line()),
    ];
    for (name, (old, new)) in pairs {
        for width in [80, 200] {
            let text = render_at(old.clone(), new.clone(), width);
            for line in text.lines() {
                assert!(
                    line.chars().count() <= width,
                    "{name} at {width}: {} columns: {line}",
                    line.chars().count()
                );
            }
            assert_snapshot(&format!("{name}-{width}"), &text);
        }
    }
}

#[test]
fn the_width_comes_from_columns_when_not_a_terminal() {
    let run = |columns: &str| {
        let output = Command::new(env!("CARGO_BIN_EXE_flink-compat"))
            .args(["check", "examples/old.sql", "examples/new.sql"])
            .env("COLUMNS", columns)
            .output()
            .expect("runs");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let narrow = run("80");
    assert_eq!(
        narrow,
        render_at(read("examples/old.sql"), read("examples/new.sql"), 80)
    );
    assert!(narrow.lines().all(|l| l.chars().count() <= 80), "{narrow}");
    assert_eq!(
        run(""),
        render_at(read("examples/old.sql"), read("examples/new.sql"), 100),
        "without COLUMNS: 100"
    );
}

#[test]
fn changed_queries_come_first_the_worst_first() {
    let script = |having: &str| {
        format!(
            "CREATE TABLE t (a INT, b INT) WITH ('connector'='kafka');\n\
             CREATE TABLE unchanged_out (a INT, c BIGINT) WITH ('connector'='kafka');\n\
             CREATE TABLE partial_out (a INT, c BIGINT) WITH ('connector'='kafka');\n\
             CREATE TABLE dedup_out (a INT, b INT) WITH ('connector'='kafka');\n\
             INSERT INTO unchanged_out SELECT a, COUNT(*) FROM t GROUP BY a;\n\
             INSERT INTO partial_out SELECT a, COUNT(*){having} FROM t GROUP BY a;\n\
             INSERT INTO dedup_out SELECT a, b FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY a{having2} ORDER BY PROCTIME()) AS rk FROM t) WHERE rk = 1;\n",
            having2 = if having.is_empty() { "" } else { ", b" }
        )
    };
    let old = SourceFile::new("old.sql", script(""));
    let new = SourceFile::new("new.sql", script(", SUM(b)"));
    let text = render(old, new, Style::PLAIN);
    let at = |name: &str| text.find(&format!("query {name} (")).expect(name);
    assert!(at("dedup_out") < at("partial_out"), "{text}");
    assert!(at("partial_out") < at("unchanged_out"), "{text}");
}

/// Three aggregating queries; the new job adds one `SET` line (a job-level change).
fn three_queries_and_a_set_line() -> (SourceFile, SourceFile) {
    let queries = "CREATE TABLE t (a INT, b INT, c INT) WITH ('connector'='kafka');\n\
                   CREATE TABLE out_a (k INT, n BIGINT) WITH ('connector'='kafka');\n\
                   CREATE TABLE out_b (k INT, n BIGINT) WITH ('connector'='kafka');\n\
                   CREATE TABLE out_c (k INT, n BIGINT) WITH ('connector'='kafka');\n\
                   INSERT INTO out_a SELECT a, COUNT(*) FROM t GROUP BY a;\n\
                   INSERT INTO out_b SELECT b, COUNT(*) FROM t GROUP BY b;\n\
                   INSERT INTO out_c SELECT c, COUNT(*) FROM t GROUP BY c;\n";
    (
        SourceFile::new("old.sql", queries.to_string()),
        SourceFile::new(
            "new.sql",
            format!("SET 'table.exec.mini-batch.enabled' = 'true';\n{queries}"),
        ),
    )
}

#[test]
fn a_job_level_finding_is_shown_once_naming_the_queries_it_affects() {
    let (old, new) = three_queries_and_a_set_line();
    let report = check(old.clone(), new.clone(), &[], &rules()).expect("the pair checks");
    let shared = report.shared_findings();
    assert!(
        !shared.is_empty(),
        "the SET line is one finding for all three queries"
    );
    let text = human::render(&report, &[&old, &new], Style::PLAIN);
    let rule = &shared[0].0.rule;
    assert_eq!(text.matches(rule.as_str()).count(), 1, "{text}");
    let prose = text
        .replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        prose.contains("affects query out_a, query out_b, query out_c"),
        "{text}"
    );
    let github = flink_compat::report::github::annotations(&report);
    assert_eq!(github.matches(rule.as_str()).count(), 1, "{github}");
    assert!(github.contains("affects query out_a"), "{github}");
}

#[test]
fn a_fully_compatible_finding_is_one_line_and_its_snippets_need_verbose() {
    let (old, new) = (read("examples/old.sql"), read("examples/new.sql"));
    let quiet = render(old.clone(), new.clone(), Style::PLAIN);
    let line = quiet
        .lines()
        .find(|l| l.contains("query-sink-columns-changed"))
        .expect("the finding is listed");
    assert!(
        line.starts_with("  ✓ query-sink-columns-changed (examples/new.sql:18): the columns"),
        "{quiet}"
    );
    // Only the partially compatible finding shows its clause in both scripts.
    assert_eq!(quiet.matches("in the old script").count(), 1, "{quiet}");
    let verbose = render(
        old,
        new,
        Style {
            verbose: true,
            ..Style::PLAIN
        },
    );
    assert_eq!(verbose.matches("in the old script").count(), 2, "{verbose}");
    assert!(!verbose.contains("✓"), "{verbose}");
    let run = |flag: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_flink-compat"));
        command.args(["check", "examples/old.sql", "examples/new.sql"]);
        command.args(flag);
        let output = command.output().expect("runs");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    assert_eq!(run(Some("-v")), verbose);
    assert_eq!(run(Some("--verbose")), verbose);
    assert_eq!(run(None), quiet);
}

/// Every case's report, with the name of its case file.
fn case_reports() -> Vec<(String, flink_compat::report::Report, SourceFile, SourceFile)> {
    let rules = rules();
    let files = cases::collect(&["cases".into()]).expect("cases");
    assert!(files.len() > 100, "the cases are found");
    files
        .iter()
        .filter_map(|path| {
            let file = read(&path.display().to_string());
            let outcome = cases::run(&file, &rules).expect("case file loads");
            let case = cases::load(&file).expect("the case loads");
            let old = SourceFile::new(format!("{}#old", file.name), case.old);
            let new = SourceFile::new(format!("{}#new", file.name), case.new);
            outcome.report.map(|r| (outcome.name, r, old, new))
        })
        .collect()
}

#[test]
fn no_report_of_any_case_prints_a_value_as_json_or_runs_past_the_width() {
    let mut raw = Vec::new();
    for (name, report, old, new) in case_reports() {
        let style = Style {
            verbose: true,
            width: 80,
            ..Style::PLAIN
        };
        let text = human::render(&report, &[&old, &new], style);
        for line in text.lines() {
            assert!(line.chars().count() <= 80, "{name}: {line}");
        }
        let messages = report
            .findings()
            .map(|f| f.message.clone())
            .chain(report.notes.iter().map(|n| n.message.clone()));
        for message in messages {
            if message.contains("{\"") || message.contains("[{") {
                raw.push(format!("{name}: {message}"));
            }
        }
    }
    assert!(
        raw.is_empty(),
        "values printed as JSON:\n{}",
        raw.join("\n")
    );
}

#[test]
fn a_statement_both_scripts_read_past_is_warned_about_once_as_written() {
    let script = |agg: &str| {
        format!(
            "add jar '/opt/udfs.jar';\n\
             CREATE CATALOG MyCat WITH ('type' = 'hive');\n\
             USE CATALOG MyCat;\n\
             CREATE TABLE t (a INT, b INT) WITH ('connector'='kafka');\n\
             CREATE TABLE out_t (a INT, n BIGINT) WITH ('connector'='kafka');\n\
             INSERT INTO out_t SELECT a, COUNT(*){agg} FROM t GROUP BY a;\n"
        )
    };
    let old = SourceFile::new("old.sql", script(""));
    let new = SourceFile::new("new.sql", script(", SUM(b)"));
    let report = check(old.clone(), new.clone(), &[], &rules()).expect("the pair checks");
    let warnings: Vec<String> = report
        .notes
        .iter()
        .map(|n| format!("{}: {}", n.origin(), n.message))
        .collect();
    assert_eq!(
        warnings,
        [
            "both scripts: statement `add jar '/opt/udfs.jar'` is not modelled and was ignored",
            "both scripts: statement `CREATE CATALOG MyCat WITH ('type' = 'hive')` is not modelled and was ignored",
        ],
        "{warnings:#?}"
    );
    let text = human::render(&report, &[&old, &new], Style::PLAIN);
    assert_eq!(text.matches("is not modelled").count(), 2, "{text}");
    assert!(
        !text.contains("ADD JAR") && !text.contains("MYCAT"),
        "{text}"
    );
}

/// The state table's rows (after its heading, before the next section).
fn state_rows(text: &str) -> Vec<String> {
    let table = text
        .split("state on restore:")
        .nth(1)
        .expect("a state table")
        .split("\n\n\n")
        .next()
        .unwrap_or_default();
    table
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .skip_while(|l| l != "query operator state on restore")
        .skip(1)
        .collect()
}

#[test]
fn the_state_table_gives_each_piece_of_state_one_fate() {
    // Another connector for the source: incompatible, so COUNT(*)'s old state is discarded
    // (and the new job's starts empty): one row, one fate.
    let script = |connector: &str| {
        format!(
            "CREATE TABLE t (a INT, b INT) WITH ('connector'='{connector}');\n\
             CREATE TABLE out_t (a INT, n BIGINT) WITH ('connector'='kafka');\n\
             INSERT INTO out_t SELECT a, COUNT(*) FROM t GROUP BY a;\n"
        )
    };
    let old = SourceFile::new("old.sql", script("kafka"));
    let new = SourceFile::new("new.sql", script("filesystem"));
    let text = render(old, new, Style::PLAIN);
    assert!(text.starts_with("INCOMPATIBLE"), "{text}");
    let rows = state_rows(&text);
    let counts: Vec<&String> = rows.iter().filter(|r| r.contains("COUNT(*)")).collect();
    assert_eq!(counts.len(), 1, "{text}");
    assert!(counts[0].ends_with("COUNT(*) discarded"), "{text}");
}

#[test]
fn an_incompatible_added_query_leaves_no_state_reused_in_the_table() {
    let base = "CREATE TABLE t (a INT, b INT) WITH ('connector'='kafka');\n\
                CREATE TABLE out_a (a INT, n BIGINT) WITH ('connector'='kafka');\n\
                CREATE TABLE out_b (b INT, n BIGINT) WITH ('connector'='kafka');\n\
                INSERT INTO out_a SELECT a, COUNT(*) FROM t GROUP BY a;\n";
    let old = SourceFile::new("old.sql", base.to_string());
    let new = SourceFile::new(
        "new.sql",
        format!("{base}INSERT INTO out_b SELECT b, COUNT(*) FROM t GROUP BY b;\n"),
    );
    let text = render(old, new, Style::PLAIN);
    assert!(text.starts_with("INCOMPATIBLE"), "{text}");
    let rows = state_rows(&text);
    assert!(rows.iter().all(|r| !r.ends_with("reused")), "{text}");
    assert!(
        rows.iter()
            .any(|r| r.starts_with("out_a") && r.ends_with("COUNT(*) discarded")),
        "{text}"
    );
    assert!(
        rows.iter()
            .any(|r| r.starts_with("out_b") && r.ends_with("COUNT(*) starts empty")),
        "{text}"
    );
}

#[test]
fn a_changed_partition_key_is_not_also_a_changed_row() {
    for case in [
        "cases/deduplicate/seed004-add-partition-key.yaml",
        "cases/deduplicate/seed004-remove-partition-key.yaml",
    ] {
        let (old, new) = case_pair(case);
        let report = check(old, new, &[], &rules()).expect("the pair checks");
        let rules: Vec<&str> = report.findings().map(|f| f.rule.as_str()).collect();
        assert_eq!(rules, ["dedup-partition-keys-changed"], "{case}");
    }
}
