//! What the fuzz targets do, one function per target, so that the targets under
//! `fuzz_targets/` and the regression test of the root crate (`tests/fuzz_regressions.rs`,
//! which includes this file) run exactly the same code on an input. Each runs the pipeline as
//! the CLI does, on a thread with the planner's stack, but lets a panic through so that
//! libFuzzer (or the test) reports it. An `Err` is a fine answer; a panic, a stack overflow, a
//! timeout or running out of memory is a bug.

use flink_compat::cases;
use flink_compat::check::compare;
use flink_compat::diff::schema;
use flink_compat::limits::PARSER_STACK_BYTES;
use flink_compat::plan::builder::build_plan;
use flink_compat::plan::{OperatorKind, Plan};
use flink_compat::report::{human, json};
use flink_compat::rules::dsl::{Predicate, Template};
use flink_compat::rules::{load, RuleSet};
use flink_compat::source::SourceFile;
use flink_compat::sql::parse_script;
use std::sync::OnceLock;

/// What a fuzz target runs on one input.
pub type Target = fn(&str);

/// The fuzz targets by name, as `fuzz/Cargo.toml` and `fuzz/run.sh` name them.
pub const TARGETS: [(&str, Target); 5] = [
    ("sql_front_end", sql_front_end),
    ("check", check),
    ("predicate_dsl", predicate_dsl),
    ("rule_file", rule_file),
    ("case_file", case_file),
];

/// Any text through the SQL front end and the planner.
pub fn sql_front_end(text: &str) {
    let text = text.to_string();
    on_planner_stack(move || plan("fuzz.sql", &text).is_some());
}

/// Two scripts (the input cut at its first NUL byte) checked against each other with the
/// built-in rules, and the human and JSON reports rendered.
pub fn check(text: &str) {
    let (old, new) = text.split_once('\0').unwrap_or((text, text));
    let (old, new) = (old.to_string(), new.to_string());
    on_planner_stack(move || {
        if let (Some(old), Some(new)) = (plan("old.sql", &old), plan("new.sql", &new)) {
            let report = compare(&old, &new, rules());
            human::render(&report, &[&old.file, &new.file], human::Style::PLAIN);
            json::render(&report);
        }
    });
}

/// Any text as a rule predicate and as a message template, compiled against each operator's
/// fact schema and, when it compiles, evaluated on empty facts.
pub fn predicate_dsl(text: &str) {
    let facts = serde_json::json!({});
    for kind in OperatorKind::ALL {
        let schema = schema::schema(&schema::operator_facts(kind));
        if let Ok(predicate) = Predicate::compile(text, &schema) {
            predicate.eval(&facts);
        }
        if let Ok(template) = Template::compile(text, &schema) {
            template.render(&facts);
        }
    }
}

/// Any text as a rule file, loaded into an empty rule set.
pub fn rule_file(text: &str) {
    let mut set = RuleSet::default();
    let _ = load::load_file(&SourceFile::new("fuzz.yaml", text), &mut set);
}

/// Any text as a case file, run with the built-in rules.
pub fn case_file(text: &str) {
    let text = text.to_string();
    on_planner_stack(move || cases::run(&SourceFile::new("fuzz.yaml", text), rules()).is_ok());
}

/// Runs `work` on a thread with the planner's stack; a panic there is resumed here.
pub fn on_planner_stack<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    let handle = std::thread::Builder::new()
        .stack_size(PARSER_STACK_BYTES)
        .spawn(work)
        .expect("the thread starts");
    match handle.join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// Parses and plans a script; `None` when it is refused with an error.
pub fn plan(name: &str, text: &str) -> Option<Plan> {
    build_plan(parse_script(SourceFile::new(name, text)).ok()?, &[]).ok()
}

/// The built-in rules of the default engine, loaded once.
pub fn rules() -> &'static RuleSet {
    static RULES: OnceLock<RuleSet> = OnceLock::new();
    RULES.get_or_init(|| RuleSet::load(&[] as &[&str]).expect("the built-in rules load"))
}
