//! SQL that Flink rejects is reported as an error pointing at the SQL, not judged.

use flink_compat::check::plan_script;
use flink_compat::error::Error;
use flink_compat::source::SourceFile;

const TABLE: &str = "CREATE TEMPORARY TABLE t (k STRING, v DOUBLE, ts TIMESTAMP(3), n INT, WATERMARK FOR ts AS ts) WITH ('connector' = 'kafka');\n";

fn error_of(query: &str) -> String {
    let file = SourceFile::new("q.sql", format!("{TABLE}{query}"));
    match plan_script(file, &[]) {
        Ok(_) => panic!("accepted: {query}"),
        Err(Error::Located(e)) => {
            assert!(
                e.line >= 2,
                "the error points into the query: {}",
                e.message
            );
            e.message.clone()
        }
        Err(other) => panic!("not located: {other}"),
    }
}

#[test]
fn different_over_windows_in_one_select_are_rejected() {
    let message = error_of(
        "SELECT MAX(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), \
         MIN(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) FROM t;",
    );
    assert!(message.contains("same window"), "{message}");
}

#[test]
fn a_bounded_over_window_must_be_ordered_by_a_time_attribute() {
    let message = error_of("SELECT MAX(v) OVER (PARTITION BY k ORDER BY n ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM t;");
    assert!(message.contains("time attribute"), "{message}");
}

#[test]
fn an_over_window_must_be_ascending_and_end_at_the_current_row() {
    assert!(error_of("SELECT MAX(v) OVER (ORDER BY ts DESC) FROM t;").contains("ascending"));
    let message = error_of(
        "SELECT MAX(v) OVER (ORDER BY ts ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) FROM t;",
    );
    assert!(message.contains("CURRENT ROW"), "{message}");
}

#[test]
fn named_windows_equal_the_inline_form() {
    let plan = |q: &str| {
        let p = plan_script(SourceFile::new("q.sql", format!("{TABLE}{q}")), &[]).expect("plans");
        serde_json::Value::Object(p.queries[0].operators[0].rule_facts().clone())
    };
    let inline = plan("SELECT k, MAX(v) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '2' MINUTE PRECEDING AND CURRENT ROW) FROM t;");
    let named = plan("SELECT k, MAX(v) OVER w FROM t WINDOW w AS (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '120' SECOND PRECEDING AND CURRENT ROW);");
    assert_eq!(inline, named);
}

#[test]
fn unknown_columns_are_reported_with_a_suggestion() {
    let message =
        error_of("SELECT K, COUNT(*) FROM t GROUP BY K, TUMBLE(ts, INTERVAL '1' MINUTE);");
    assert!(message.contains("unknown column"), "{message}");
}

#[test]
fn like_options_that_flink_rejects_are_located_errors() {
    let message = error_of(
        "CREATE TABLE t2 WITH ('connector' = 'x') LIKE t (INCLUDING OPTIONS);\nINSERT INTO s SELECT k FROM t2;",
    );
    assert!(message.contains("INCLUDING OPTIONS"), "{message}");
    let message = error_of(
        "CREATE TABLE b (k STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'x');\nCREATE TABLE t2 (PRIMARY KEY (k) NOT ENFORCED) LIKE b;\nINSERT INTO s SELECT k FROM t2;",
    );
    assert!(message.contains("primary key"), "{message}");
    let message = error_of(
        "CREATE TABLE t2 WITH ('topic' = 'x') LIKE t (OVERWRITING CONSTRAINTS);\nINSERT INTO s SELECT k FROM t2;",
    );
    assert!(message.contains("INCLUDING or EXCLUDING"), "{message}");
}

#[test]
fn every_error_of_the_script_is_reported_at_once_each_at_its_fault() {
    let text = "SELECT a,, b FROM t;\nINSERT INTO s SELECT k FROM t;\nSELECT FROM;\nINSERT INTO s2 SELECT nope FROM t;\nINSERT INTO s3 SELECT k FROM t WHERE missing > 1;\n";
    let file = SourceFile::new("q.sql", format!("{TABLE}{text}"));
    let Err(error) = plan_script(file, &[]) else {
        panic!("accepted")
    };
    let lines: Vec<usize> = error.located_errors().iter().map(|e| e.line).collect();
    // Parse errors of statements 1 and 3, then (once every statement parses) each query's own.
    assert_eq!(lines, vec![2, 4], "{error}");
    let text =
        "INSERT INTO s2 SELECT nope FROM t;\nINSERT INTO s3 SELECT k FROM t WHERE missing > 1;\n";
    let file = SourceFile::new("q.sql", format!("{TABLE}{text}"));
    let Err(error) = plan_script(file, &[]) else {
        panic!("accepted")
    };
    let at: Vec<(usize, usize)> = error
        .located_errors()
        .iter()
        .map(|e| (e.line, e.column))
        .collect();
    assert_eq!(at, vec![(2, 23), (3, 38)], "{error}");
}

#[test]
fn a_parse_error_inside_a_subquery_case_or_array_is_reported_at_its_fault() {
    let at = |text: &str| -> Vec<(usize, usize)> {
        let file = SourceFile::new("q.sql", format!("{TABLE}{text}"));
        let Err(error) = plan_script(file, &[]) else {
            panic!("accepted: {text}")
        };
        error
            .located_errors()
            .iter()
            .map(|e| (e.line, e.column))
            .collect()
    };
    // A derived table whose TVF call lacks a comma: sqlparser reads the parenthesis again as a
    // join and would name the subquery's first column.
    assert_eq!(
        at("INSERT INTO s SELECT *\nFROM (\n  SELECT window_start, COUNT(*) AS c\n  FROM TABLE(TUMBLE(TABLE t DESCRIPTOR(ts), INTERVAL '1' MINUTE))\n  GROUP BY window_start, window_end)\nWHERE c > 1;\n"),
        vec![(5, 29)]
    );
    // Nested: the innermost subquery's fault.
    assert_eq!(
        at("INSERT INTO s SELECT * FROM (SELECT * FROM (SELECT k,\n v FROM t WHERE v > ) x) y;\n"),
        vec![(3, 21)]
    );
    assert_eq!(
        at("INSERT INTO s SELECT k, CASE WHEN v > 1 THEN 'a' WHEN v > 2 'b' END FROM t;\n"),
        vec![(2, 61)]
    );
    assert_eq!(
        at("INSERT INTO s SELECT k, ARRAY[v, , n] FROM t;\n"),
        vec![(2, 34)]
    );
    assert_eq!(
        at("INSERT INTO s SELECT k FROM t WHERE k IN (SELECT k FROM t WHERE v >);\n"),
        vec![(2, 68)]
    );
}

#[test]
fn the_statement_an_explain_explains_must_parse() {
    let message = error_of("EXPLAIN PLAN FOR INSERT INTO s SELCT k FROM t;");
    assert!(message.contains("SELCT"), "{message}");
    let file = SourceFile::new(
        "q.sql",
        format!("{TABLE}EXPLAIN PLAN FOR SELECT k, SUM(v) FROM t GROUP BY k;"),
    );
    assert!(plan_script(file, &[]).is_ok(), "a valid EXPLAIN is read");
}

#[test]
fn a_watermark_interval_is_read_even_when_an_alter_replaces_it() {
    let message = error_of(
        "CREATE TABLE w (ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1x' SECOND) WITH ('connector' = 'kafka');\n\
         ALTER TABLE w MODIFY WATERMARK FOR ts AS ts - INTERVAL '1' SECOND;",
    );
    assert!(message.contains("interval"), "{message}");
}
