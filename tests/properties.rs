//! Property tests: random and mutated inputs to the SQL front end, the predicate DSL, the rule
//! loader, the case loader and the whole check never panic (an error is a fine answer). Each
//! input is run on a thread with the planner's stack, as the CLI runs it, and a panic there
//! fails the property. Mutations start from the scripts of the case corpus and the built-in
//! rule files, so most inputs are nearly valid and reach deep into the pipeline.

use flink_compat::cases;
use flink_compat::check::compare;
use flink_compat::diff::schema;
use flink_compat::limits::PARSER_STACK_BYTES;
use flink_compat::plan::builder::build_plan;
use flink_compat::plan::{OperatorKind, Plan};
use flink_compat::rules::dsl::{Predicate, Template};
use flink_compat::rules::{load, RuleSet, BUILTIN};
use flink_compat::source::SourceFile;
use flink_compat::sql::parse_script;
use proptest::prelude::*;
use std::sync::{Arc, OnceLock};

const CASES: u32 = 96;

/// `CASES` inputs per property, or `PROPTEST_CASES` for a longer hunt.
fn config() -> ProptestConfig {
    let mut config = ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = CASES;
    }
    config
}

/// Runs `work` as the CLI runs the planner: on a thread with a large stack. A panic on that
/// thread is resumed here, so proptest sees it and shrinks the input.
fn on_planner_stack<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    let handle = std::thread::Builder::new()
        .stack_size(PARSER_STACK_BYTES)
        .spawn(work)
        .expect("the thread starts");
    match handle.join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

fn rules() -> Arc<RuleSet> {
    static RULES: OnceLock<Arc<RuleSet>> = OnceLock::new();
    RULES
        .get_or_init(|| Arc::new(RuleSet::load(&[] as &[&str]).expect("the built-in rules load")))
        .clone()
}

/// The old and new scripts of every case file, with the case files' own text.
fn corpus() -> &'static (Vec<String>, Vec<String>) {
    static CORPUS: OnceLock<(Vec<String>, Vec<String>)> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let mut scripts = Vec::new();
        let mut case_texts = Vec::new();
        for path in cases::collect(&["cases".into()]).expect("cases/ is readable") {
            let text = std::fs::read_to_string(&path).expect("readable");
            let case = cases::load(&SourceFile::new(path.display().to_string(), text.clone()))
                .expect("a valid case");
            scripts.push(case.old);
            scripts.push(case.new);
            case_texts.push(text);
        }
        (scripts, case_texts)
    })
}

/// Pieces of SQL (and of trouble) that mutations insert.
const SQL_PIECES: &[&str] = &[
    "(", ")", ",", ";", "'", "\"", "`", "*", ".", "=", "--", "/*", "*/", "/*+ STATE_TTL('t'='1d') */",
    "SELECT", "FROM", "WHERE", "GROUP BY", "ORDER BY", "HAVING", "AS", "AND", "OR", "NOT", "NULL",
    "DISTINCT", "UNION ALL", "JOIN", "ON", "OVER (", "PARTITION BY", "ROW_NUMBER()", "rn = 1",
    "ROWS BETWEEN 2 PRECEDING AND CURRENT ROW", "RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW",
    "TUMBLE(ts, INTERVAL '1' MINUTE)", "HOP(ts, INTERVAL '1' MINUTE, INTERVAL '5' MINUTE)",
    "SESSION(ts, INTERVAL '1' MINUTE)", "TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE))",
    "window_start", "window_end", "proctime", "PROCTIME()", "COUNT(*)", "SUM(a)", "COUNT(DISTINCT b)",
    "INTERVAL '60' SECOND", "CAST(a AS BIGINT)", "CASE WHEN a THEN 1 ELSE 2 END", "1e999", "-0",
    "CREATE TEMPORARY TABLE t (a INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector'='x');",
    "CREATE VIEW v AS SELECT * FROM v;", "CREATE FUNCTION f AS 'x' LANGUAGE PYTHON;",
    "SET 'table.exec.mini-batch.enabled' = 'true';", "BEGIN STATEMENT SET;", "END;",
    "INSERT INTO s ", "EXECUTE ", "é", "\u{0}", "\u{feff}", "\r\n", "\t",
];

#[derive(Debug, Clone)]
enum Mutation {
    Delete { at: f64, len: usize },
    Duplicate { at: f64, len: usize },
    Insert { at: f64, piece: &'static str },
    Swap { a: f64, b: f64, len: usize },
    Truncate { at: f64 },
}

fn mutation(pieces: &'static [&'static str]) -> impl Strategy<Value = Mutation> {
    let at = 0.0..1.0f64;
    prop_oneof![
        (at.clone(), 1..40usize).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (at.clone(), 1..40usize).prop_map(|(at, len)| Mutation::Duplicate { at, len }),
        (at.clone(), prop::sample::select(pieces))
            .prop_map(|(at, piece)| Mutation::Insert { at, piece }),
        (at.clone(), at.clone(), 1..20usize).prop_map(|(a, b, len)| Mutation::Swap { a, b, len }),
        at.prop_map(|at| Mutation::Truncate { at }),
    ]
}

/// The char boundary nearest below the fraction `at` of the text.
fn boundary(text: &str, at: f64) -> usize {
    let mut i = ((text.len() as f64) * at) as usize;
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn range(text: &str, at: f64, len: usize) -> (usize, usize) {
    let start = boundary(text, at);
    let mut end = (start + len).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    (start, end)
}

fn mutate(text: &str, mutations: &[Mutation]) -> String {
    let mut text = text.to_string();
    for m in mutations {
        match *m {
            Mutation::Delete { at, len } => {
                let (s, e) = range(&text, at, len);
                text.replace_range(s..e, "");
            }
            Mutation::Duplicate { at, len } => {
                let (s, e) = range(&text, at, len);
                let copy = text[s..e].to_string();
                text.insert_str(e, &copy);
            }
            Mutation::Insert { at, piece } => {
                let at = boundary(&text, at);
                text.insert_str(at, &format!(" {piece} "));
            }
            Mutation::Swap { a, b, len } => {
                let (first, second) = if a <= b { (a, b) } else { (b, a) };
                let (s1, e1) = range(&text, first, len);
                let (s2, e2) = range(&text, second, len);
                if e1 <= s2 {
                    let (one, two) = (text[s1..e1].to_string(), text[s2..e2].to_string());
                    text.replace_range(s2..e2, &one);
                    text.replace_range(s1..e1, &two);
                }
            }
            Mutation::Truncate { at } => {
                let at = boundary(&text, at);
                text.truncate(at);
            }
        }
    }
    text
}

fn script(index: usize) -> &'static str {
    let scripts = &corpus().0;
    &scripts[index % scripts.len()]
}

fn plan(name: &str, text: String) -> Option<Plan> {
    let script = parse_script(SourceFile::new(name, text)).ok()?;
    build_plan(script, &[]).ok()
}

/// The rule files of the default profile (the others adjust its rules).
fn default_rule_files() -> Vec<(&'static str, &'static str)> {
    BUILTIN
        .iter()
        .filter(|(path, _)| path.starts_with("rules/vvr/") && !path.ends_with("/profile.yaml"))
        .copied()
        .collect()
}

/// Parses, plans and (when both sides plan) compares, rendering both reports.
fn check_texts(old: String, new: String, rules: Arc<RuleSet>) {
    on_planner_stack(move || {
        let old = plan("old.sql", old);
        let new = plan("new.sql", new);
        if let (Some(old), Some(new)) = (old, new) {
            let report = compare(&old, &new, &rules);
            flink_compat::report::json::render(&report);
            flink_compat::report::human::render(
                &report,
                &[&old.file, &new.file],
                flink_compat::report::human::Style::PLAIN,
            );
        }
    });
}

/// Random sequences of SQL pieces: mostly nonsense, sometimes a statement.
fn sql_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => prop::sample::select(SQL_PIECES).prop_map(str::to_string),
            1 => "[a-z_]{1,8}",
            1 => "\\PC{0,12}",
        ],
        0..40,
    )
    .prop_map(|pieces| pieces.join(" "))
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn the_sql_front_end_survives_random_text(text in sql_soup()) {
        let same = text.clone();
        check_texts(text, same, rules());
    }

    #[test]
    fn the_sql_front_end_survives_arbitrary_characters(text in "\\PC{0,300}") {
        let same = text.clone();
        check_texts(text, same, rules());
    }

    #[test]
    fn mutated_corpus_scripts_never_panic(
        index in any::<usize>(),
        mutations in prop::collection::vec(mutation(SQL_PIECES), 1..6),
    ) {
        let original = script(index).to_string();
        let mutated = mutate(&original, &mutations);
        check_texts(original.clone(), mutated.clone(), rules());
        check_texts(mutated, original, rules());
    }

    #[test]
    fn two_mutated_scripts_compare_without_panic(
        old in any::<usize>(),
        new in any::<usize>(),
        old_mutations in prop::collection::vec(mutation(SQL_PIECES), 0..4),
        new_mutations in prop::collection::vec(mutation(SQL_PIECES), 0..4),
    ) {
        check_texts(
            mutate(script(old), &old_mutations),
            mutate(script(new), &new_mutations),
            rules(),
        );
    }
}

/// Pieces of the predicate DSL.
const DSL_PIECES: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    ",",
    "and",
    "or",
    "not",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "in",
    "+",
    "-",
    "count",
    "empty",
    "contains",
    "set_eq",
    "list_eq",
    "subset",
    "minus",
    "intersect",
    "lower",
    "starts_with",
    "old.keys",
    "new.keys",
    "old.aggregates",
    "keys.added",
    "keys.removed",
    "aggregates.kept",
    "aggregates.equal_as_list",
    "config.ignore_filter",
    "config.changed_keys",
    "old.mode",
    "true",
    "false",
    "0",
    "1",
    "-1",
    "1e308",
    "99999999999999999999",
    "'a'",
    "'",
    "\"",
    "{",
    "}",
    "{old.keys}",
    ".",
    "é",
    "\u{0}",
];

fn dsl_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            5 => prop::sample::select(DSL_PIECES).prop_map(str::to_string),
            1 => "\\PC{0,6}",
        ],
        0..30,
    )
    .prop_map(|pieces| pieces.join(" "))
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn the_predicate_dsl_never_panics(src in dsl_soup(), kind in 0..OperatorKind::ALL.len()) {
        let facts = schema::operator_facts(OperatorKind::ALL[kind]);
        let fact_schema = schema::schema(&facts);
        if let Ok(predicate) = Predicate::compile(&src, &fact_schema) {
            predicate.eval(&serde_json::json!({}));
            predicate.eval(&serde_json::json!({"old": {"keys": [1, "a", null]}, "keys": {"added": 3}}));
        }
        if let Ok(template) = Template::compile(&src, &fact_schema) {
            template.render(&serde_json::json!({"old": {"keys": ["a"]}}));
        }
    }

    #[test]
    fn mutated_rule_files_never_panic(
        file in 0..default_rule_files().len(),
        mutations in prop::collection::vec(mutation(DSL_PIECES), 1..5),
        index in any::<usize>(),
    ) {
        let files = default_rule_files();
        let (name, text) = files[file];
        let mutated = mutate(text, &mutations);
        let mut set = RuleSet::default();
        // In the loader's order (rule families after the operator files they extend), the
        // mutated file in its place: a mutation may make it, or a family reading its change
        // kinds, fail to load, which must be an error, never a panic.
        let mut ordered: Vec<(&str, &str)> = files
            .iter()
            .map(|&(path, text)| if path == name { (path, mutated.as_str()) } else { (path, text) })
            .collect();
        ordered.sort_by_key(|(_, text)| load::is_family(text));
        let loaded = ordered.iter().fold(true, |ok, (path, text)| {
            load::load_file(&SourceFile::new(*path, *text), &mut set).is_ok() && ok
        });
        if loaded {
            // The changed rules judge a pair of corpus scripts.
            check_texts(script(index).to_string(), script(index / 2).to_string(), Arc::new(set));
        }
    }

    #[test]
    fn mutated_case_files_never_panic(
        index in any::<usize>(),
        mutations in prop::collection::vec(mutation(SQL_PIECES), 1..5),
    ) {
        let texts = &corpus().1;
        let mutated = mutate(&texts[index % texts.len()], &mutations);
        on_planner_stack(move || {
            let _ = cases::run(&SourceFile::new("case.yaml", mutated), &rules());
        });
    }
}

#[test]
fn mutations_change_the_text_they_are_given() {
    let text = "SELECT a FROM t;";
    assert_eq!(
        mutate(text, &[Mutation::Delete { at: 0.0, len: 7 }]),
        "a FROM t;"
    );
    assert_eq!(mutate(text, &[Mutation::Truncate { at: 0.5 }]), "SELECT a");
    assert_eq!(
        mutate("aé", &[Mutation::Duplicate { at: 0.6, len: 1 }]),
        "aéé",
        "ranges stay on character boundaries"
    );
}
