//! Hostile inputs through the command line: each ends quickly with exit 2 and a diagnostic, or
//! with a verdict, never with a crash or a hang. Big inputs are generated at test time in
//! cargo's temporary directory for integration tests.

#[allow(dead_code)]
mod support;

use flink_compat::limits::{
    MAX_PREDICATE_BYTES, MAX_PREDICATE_DEPTH, MAX_RULES, MAX_SCRIPT_BYTES, MAX_SQL_NESTING,
    MAX_STATEMENTS, MAX_STATEMENT_TOKENS, MAX_VIEW_DEPTH, MAX_YAML_BYTES,
};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The time any input may take: "a second or two" for the release binary; the test binary is
/// unoptimized and shares the machine with other builds, so it gets more.
const DEADLINE: Duration = if cfg!(debug_assertions) {
    Duration::from_secs(30)
} else {
    Duration::from_secs(2)
};

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/old.sql");

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn output(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }

    /// Exit 2 with a diagnostic that contains `message` (compared without the line breaks and
    /// margins of the terminal rendering).
    fn rejects(&self, message: &str) {
        assert_eq!(self.code, 2, "expected exit 2; output:\n{}", self.output());
        assert!(
            flattened(&self.output()).contains(&flattened(message)),
            "expected a diagnostic containing {message:?}; output:\n{}",
            self.output()
        );
    }

    /// A verdict: exit 0 or 1 and a JSON report with a verdict.
    fn verdict(&self) -> String {
        assert!(
            self.code == 0 || self.code == 1,
            "expected a verdict; exit {} output:\n{}",
            self.code,
            self.output()
        );
        let report: serde_json::Value =
            serde_json::from_str(&self.stdout).expect("the report is JSON");
        report["verdict"]
            .as_str()
            .expect("the report has a verdict")
            .to_string()
    }
}

fn flattened(text: &str) -> String {
    text.replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn flink_compat(args: &[&str], stdin: Option<&[u8]>) -> Run {
    run_binary(
        Command::new(env!("CARGO_BIN_EXE_flink-compat")),
        args,
        stdin,
    )
}

/// The binary under an address-space limit (`ulimit -v`, in KiB).
fn flink_compat_limited(kib: u64, args: &[&str]) -> Run {
    let mut shell = Command::new("sh");
    shell.args([
        "-c",
        &format!("ulimit -v {kib} && exec \"$0\" \"$@\""),
        env!("CARGO_BIN_EXE_flink-compat"),
    ]);
    run_binary(shell, args, None)
}

fn run_binary(mut command: Command, args: &[&str], stdin: Option<&[u8]>) -> Run {
    let started = Instant::now();
    let mut child = command
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    if let Some(bytes) = stdin {
        // The tool may stop reading early (size limit); a broken pipe is not a failure here.
        let _ = child.stdin.take().expect("piped").write_all(bytes);
    }
    let output = child.wait_with_output().expect("the binary runs");
    let elapsed = started.elapsed();
    let run = Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    assert!(
        output.status.code().is_some(),
        "killed by a signal: {:?}\n{}",
        output.status,
        run.output()
    );
    assert!(
        !run.stderr.contains("panicked") && !run.stderr.contains("overflow"),
        "crashed:\n{}",
        run.stderr
    );
    assert!(
        elapsed < DEADLINE,
        "took {elapsed:?} on {args:?}; output:\n{}",
        run.output()
    );
    run
}

/// A fresh directory for one test's generated files.
fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("robustness")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the scratch directory is writable");
    dir
}

fn write(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> String {
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("the scratch file is writable");
    path.display().to_string()
}

/// `check FILE examples/old.sql` in both orders, and `plan FILE`: the same diagnostic each time.
fn every_command_rejects(file: &str, message: &str) {
    flink_compat(&["check", file, EXAMPLE], None).rejects(message);
    flink_compat(&["check", EXAMPLE, file], None).rejects(message);
    flink_compat(&["plan", file], None).rejects(message);
    let json = flink_compat(&["check", file, EXAMPLE, "--format", "json"], None);
    assert_eq!(json.code, 2);
    let error: serde_json::Value = serde_json::from_str(&json.stdout).expect("one JSON object");
    assert!(
        error["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains(message)),
        "{error}"
    );
}

fn nested(open: &str, middle: &str, close: &str, levels: usize) -> String {
    format!("{}{middle}{}", open.repeat(levels), close.repeat(levels))
}

#[test]
fn thousands_of_parentheses_are_too_deep() {
    let dir = scratch("parentheses");
    let sql = format!("SELECT {} FROM t;", nested("(", "a", ")", 5_000));
    let file = write(&dir, "parentheses.sql", sql);
    every_command_rejects(&file, "nested too deeply");
}

#[test]
fn thousands_of_nested_subqueries_are_too_deep() {
    let dir = scratch("subqueries");
    let sql = format!(
        "INSERT INTO sink SELECT a FROM {};",
        nested("(SELECT a FROM ", "t", ")", 3_000)
    );
    let file = write(&dir, "subqueries.sql", sql);
    every_command_rejects(&file, "nested too deeply");
}

#[test]
fn deep_calls_arrays_and_computed_columns_are_too_deep() {
    let dir = scratch("deep_expressions");
    let levels = MAX_SQL_NESTING * 10;
    for (name, sql) in [
        (
            "calls",
            format!("SELECT {} FROM t;", nested("f(", "a", ")", levels)),
        ),
        (
            "arrays",
            format!("SELECT {} FROM t;", nested("ARRAY[", "a", "]", levels)),
        ),
        (
            "computed",
            format!(
                "CREATE TABLE t (a INT, b AS {}) WITH ('connector' = 'x');\nSELECT a FROM t;",
                nested("(", "a", ")", levels)
            ),
        ),
        (
            "view",
            format!(
                "CREATE VIEW v AS SELECT {} FROM t;\nSELECT a FROM v;",
                nested("(", "a", ")", levels)
            ),
        ),
    ] {
        let file = write(&dir, &format!("{name}.sql"), sql);
        flink_compat(&["check", &file, EXAMPLE], None).rejects("nested too deeply");
    }
}

#[test]
fn views_nested_past_the_limit_are_refused() {
    let dir = scratch("views");
    let mut sql = String::from("CREATE VIEW v0 AS SELECT a FROM t;\n");
    for i in 1..=MAX_VIEW_DEPTH + 1 {
        sql.push_str(&format!("CREATE VIEW v{i} AS SELECT a FROM v{};\n", i - 1));
    }
    sql.push_str(&format!(
        "INSERT INTO sink SELECT a FROM v{};\n",
        MAX_VIEW_DEPTH + 1
    ));
    let file = write(&dir, "views.sql", sql);
    every_command_rejects(&file, "views nest more than");
}

#[test]
fn a_view_that_reads_itself_is_refused() {
    let dir = scratch("self_view");
    let sql = "CREATE VIEW v AS SELECT a FROM v;\nINSERT INTO sink SELECT a FROM v;\n";
    let file = write(&dir, "self.sql", sql);
    flink_compat(&["check", &file, EXAMPLE], None).rejects("views nest more than");
}

#[test]
fn long_operator_chains_within_the_token_limit_get_a_verdict() {
    let dir = scratch("chains");
    let conditions = vec!["a = 1"; 10_000].join(" AND ");
    let and_chain =
        format!("INSERT INTO sink SELECT a, COUNT(*) FROM t WHERE {conditions} GROUP BY a;");
    let unions = vec!["SELECT a FROM t"; 2_000].join(" UNION ALL ");
    let union_chain = format!("INSERT INTO sink {unions};");
    let ctes: Vec<String> = (1..4_000)
        .map(|i| format!("c{i} AS (SELECT a FROM c{})", i - 1))
        .collect();
    let cte_chain = format!(
        "INSERT INTO sink WITH c0 AS (SELECT a FROM t), {} SELECT a, COUNT(*) FROM c3999 GROUP BY a;",
        ctes.join(", ")
    );
    // The deepest tree the token limit lets through: one level per two tokens.
    let terms = vec!["b"; (MAX_STATEMENT_TOKENS - 20) / 2].join(" + ");
    let plus_chain = format!("INSERT INTO sink SELECT a, SUM({terms}) FROM t GROUP BY a;");
    for (name, sql) in [
        ("and", and_chain),
        ("union", union_chain),
        ("with", cte_chain),
        ("plus", plus_chain),
    ] {
        let file = write(&dir, &format!("{name}.sql"), &sql);
        let verdict = flink_compat(&["check", &file, &file, "--format", "json"], None).verdict();
        assert_eq!(verdict, "fully_compatible", "{name} against itself");
    }
}

#[test]
fn a_statement_over_the_token_limit_is_refused() {
    let dir = scratch("tokens");
    let terms = MAX_STATEMENT_TOKENS / 2 + 1;
    let chain = vec!["1"; terms].join(" + ");
    let file = write(&dir, "plus.sql", format!("SELECT {chain} FROM t;"));
    every_command_rejects(&file, "tokens; the limit is");
    let unions = vec!["SELECT a FROM t"; MAX_STATEMENT_TOKENS / 5].join(" UNION ALL ");
    let file = write(&dir, "unions.sql", format!("SELECT a FROM ({unions});"));
    flink_compat(&["check", &file, EXAMPLE], None).rejects("tokens; the limit is");
}

#[test]
fn a_50_mb_file_is_refused_by_its_size() {
    let dir = scratch("big");
    let line = "INSERT INTO sink SELECT a, COUNT(*) FROM t GROUP BY a;\n";
    let sql = line.repeat(50 * 1024 * 1024 / line.len() + 1);
    assert!(sql.len() > 50 * 1024 * 1024);
    let file = write(&dir, "big.sql", &sql);
    every_command_rejects(&file, &format!("larger than {MAX_SCRIPT_BYTES} bytes"));
    flink_compat(&["check", "-", EXAMPLE], Some(sql.as_bytes()))
        .rejects(&format!("larger than {MAX_SCRIPT_BYTES} bytes"));
}

#[test]
fn a_script_just_under_the_size_limit_is_read() {
    let dir = scratch("just_under");
    let mut sql = String::from("INSERT INTO sink SELECT a, COUNT(*) FROM t GROUP BY a;\n");
    let comment = format!("-- {}\n", "x".repeat(1000));
    while sql.len() + comment.len() <= MAX_SCRIPT_BYTES {
        sql.push_str(&comment);
    }
    let file = write(&dir, "under.sql", &sql);
    let verdict = flink_compat(&["check", &file, &file, "--format", "json"], None).verdict();
    assert_eq!(verdict, "fully_compatible");
}

#[test]
fn binary_and_non_utf8_files_are_refused() {
    let dir = scratch("binary");
    // Bytes of every value, as in an executable or a compressed file.
    let binary: Vec<u8> = (0..64 * 1024)
        .map(|i: u32| (i * 7919 % 251) as u8)
        .collect();
    let file = write(&dir, "binary.sql", &binary);
    every_command_rejects(&file, "binary file");
    flink_compat(&["check", EXAMPLE, "-"], Some(&binary)).rejects("binary file");

    let latin1 = b"SELECT a FROM caf\xe9;\n";
    let file = write(&dir, "latin1.sql", latin1);
    every_command_rejects(&file, "not UTF-8");
    flink_compat(&["check", "-", EXAMPLE], Some(latin1)).rejects("not UTF-8");

    let utf16 = b"\xff\xfeS\x00E\x00L\x00";
    let file = write(&dir, "utf16.sql", utf16);
    flink_compat(&["check", &file, EXAMPLE], None).rejects("cannot read");
}

#[test]
fn empty_and_comment_only_scripts_are_refused() {
    let dir = scratch("empty");
    for (name, text) in [
        ("empty", ""),
        ("blank", "  \n\t\n"),
        ("comments", "-- nothing here\n/* nor here */\n;;\n"),
    ] {
        let file = write(&dir, &format!("{name}.sql"), text);
        every_command_rejects(&file, "contains no SQL statement");
    }
    flink_compat(&["check", "-", EXAMPLE], Some(b"")).rejects("contains no SQL statement");
}

#[test]
fn a_script_with_no_query_gets_a_verdict() {
    let dir = scratch("no_query");
    let ddl = "CREATE TABLE t (a INT) WITH ('connector' = 'kafka');\nSET 'pipeline.name' = 'x';\n";
    let file = write(&dir, "ddl.sql", ddl);
    let verdict = flink_compat(&["check", &file, &file, "--format", "json"], None).verdict();
    assert_eq!(verdict, "fully_compatible", "no query, no state");
    // The example's stateful query appears in the new job: its state starts empty.
    let run = flink_compat(&["check", &file, EXAMPLE, "--format", "json"], None);
    assert_eq!(run.verdict(), "incompatible");
}

#[test]
fn unterminated_strings_comments_and_stray_bytes_are_located() {
    let dir = scratch("unterminated");
    for (name, text, message) in [
        ("string", "SELECT 'open FROM t;", "Unterminated string"),
        ("comment", "SELECT a FROM t /* open", "multi-line comment"),
        ("identifier", "SELECT `open FROM t;", "cannot read the SQL"),
        ("control", "SELECT a FROM t \u{1b}[31m;", "cannot"),
    ] {
        let file = write(&dir, &format!("{name}.sql"), text);
        let run = flink_compat(&["check", &file, EXAMPLE, "--format", "json"], None);
        assert_eq!(run.code, 2, "{name}: {}", run.output());
        let error: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
        assert!(
            error["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains(message)),
            "{name}: {error}"
        );
        assert!(error["error"]["line"].as_u64().is_some(), "{name}: {error}");
    }
}

#[test]
fn more_statements_than_the_limit_are_refused() {
    let dir = scratch("statements");
    let sql = "SET 'a' = 'b';\n".repeat(MAX_STATEMENTS + 1);
    let file = write(&dir, "many.sql", sql);
    every_command_rejects(&file, &format!("more than {MAX_STATEMENTS} statements"));
}

#[test]
fn a_thousand_query_deployment_gets_a_verdict_in_time() {
    let dir = scratch("deployment");
    let (old, new) = support::deployment::pair(1_000);
    let old = write(&dir, "old.sql", old);
    let new = write(&dir, "new.sql", new);
    let run = flink_compat(&["check", &old, &new, "--format", "json"], None);
    // An aggregate added to every tenth query: many items of one deployment change at once,
    // which VVR's per-deployment check calls unknown.
    assert_eq!(run.verdict(), "unknown");
}

#[test]
fn a_very_long_line_with_non_ascii_text_is_read_in_time() {
    let dir = scratch("long_line");
    let columns: Vec<String> = (0..5_000).map(|i| format!("prix_{i} AS `é{i}`")).collect();
    let sql = format!(
        "INSERT INTO sink SELECT {}, COUNT(*) FROM t GROUP BY {};",
        columns.join(", "),
        (0..5_000)
            .map(|i| format!("prix_{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let file = write(&dir, "line.sql", sql);
    let verdict = flink_compat(&["check", &file, &file, "--format", "json"], None).verdict();
    assert_eq!(verdict, "fully_compatible");
}

/// A resource the machine refuses is an error like any other: exit 2, and with `--format
/// json` one JSON error object (kind `resource`), never plain text or an abort.
fn refused_resource(run: &Run, message: &str) {
    assert_eq!(run.code, 2, "{}", run.output());
    let error: serde_json::Value = serde_json::from_str(&run.stdout).expect("one JSON object");
    assert_eq!(error["error"]["kind"], "resource", "{error}");
    assert!(
        error["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains(message)),
        "{error}"
    );
}

#[test]
fn a_planner_stack_that_cannot_be_reserved_is_a_json_error() {
    // Less address space than the planner's 1 GiB stack.
    let run = flink_compat_limited(1_000_000, &["check", EXAMPLE, EXAMPLE, "--format", "json"]);
    refused_resource(&run, "cannot reserve the planner's stack");
}

#[test]
fn running_out_of_memory_is_a_json_error() {
    let dir = scratch("out_of_memory");
    let (old, new) = support::deployment::pair(10_000);
    let old = write(&dir, "old.sql", old);
    let new = write(&dir, "new.sql", new);
    // The stack fits, the two plans do not.
    let run = flink_compat_limited(1_400_000, &["check", &old, &new, "--format", "json"]);
    refused_resource(&run, "out of memory");
}

fn rule(id: &str, when: &str) -> String {
    format!(
        "  - id: {id}\n    change: aggregates\n    when: {when}\n    verdict: unknown\n    \
         message: \"generated\"\n    derived: \"a test rule\"\n"
    )
}

fn rule_file(rules: &str) -> String {
    format!("operator: group_aggregate\nchanges:\n  aggregates: not aggregates.equal_as_list\nrules:\n{rules}")
}

#[test]
fn more_rules_than_the_limit_are_refused() {
    let dir = scratch("rules_count");
    let rules: String = (0..=MAX_RULES)
        .map(|i| rule(&format!("r-{i}"), "\"true\""))
        .collect();
    let text = rule_file(&rules);
    assert!(
        text.len() <= MAX_YAML_BYTES,
        "the file itself is within its limit"
    );
    write(&dir, "many.yaml", text);
    let dir = dir.display().to_string();
    flink_compat(&["check", EXAMPLE, EXAMPLE, "--rules", &dir], None)
        .rejects(&format!("more than {MAX_RULES} rules"));
    flink_compat(&["rules", "list", "--rules", &dir], None)
        .rejects(&format!("more than {MAX_RULES} rules"));
}

#[test]
fn a_rule_file_over_the_size_limit_is_refused() {
    let dir = scratch("rules_size");
    let padding = format!("# {}\n", "x".repeat(1000)).repeat(MAX_YAML_BYTES / 1000 + 1);
    write(
        &dir,
        "big.yaml",
        format!("{padding}{}", rule_file(&rule("r-big", "\"true\""))),
    );
    let dir = dir.display().to_string();
    flink_compat(&["rules", "list", "--rules", &dir], None)
        .rejects(&format!("larger than {MAX_YAML_BYTES} bytes"));
}

#[test]
fn long_and_deep_predicates_are_refused_with_their_position() {
    let dir = scratch("predicates");
    let long = format!(
        "\"{}\"",
        vec!["count(old.aggregates) > 0"; MAX_PREDICATE_BYTES / 20].join(" and ")
    );
    write(&dir, "long.yaml", rule_file(&rule("r-long", &long)));
    let long_dir = dir.display().to_string();
    flink_compat(&["rules", "list", "--rules", &long_dir], None).rejects("the limit is");

    let dir = scratch("predicates_deep");
    let deep = format!("\"{}\"", nested("(", "true", ")", MAX_PREDICATE_DEPTH * 50));
    write(&dir, "deep.yaml", rule_file(&rule("r-deep", &deep)));
    let deep_dir = dir.display().to_string();
    flink_compat(&["rules", "list", "--rules", &deep_dir], None).rejects("nested more than");
}

#[test]
fn binary_rule_and_case_files_are_refused() {
    let dir = scratch("binary_yaml");
    write(&dir, "rules.yaml", b"operator: \x00\x01\x02");
    let rules_dir = dir.display().to_string();
    flink_compat(&["rules", "list", "--rules", &rules_dir], None).rejects("binary file");
    let dir = scratch("binary_case");
    let case = write(&dir, "case.yaml", b"title: \xff\xfe");
    flink_compat(&["test", &case], None).rejects("not UTF-8");
}

#[test]
fn a_case_file_over_the_size_limit_is_refused() {
    let dir = scratch("case_size");
    let old = format!("-- {}\n", "x".repeat(1000)).repeat(MAX_YAML_BYTES / 1000 + 1);
    let case = format!(
        "title: big\nold: |\n{}  SELECT 1;\nnew: |\n  SELECT 1;\nexpect:\n  verdict: fully_compatible\n  findings: []\n",
        old.lines().map(|l| format!("  {l}\n")).collect::<String>()
    );
    let file = write(&dir, "big.yaml", case);
    flink_compat(&["test", &file], None).rejects(&format!("larger than {MAX_YAML_BYTES} bytes"));
}
