//! What the fuzz targets share: running the pipeline as the CLI does, on a thread with the
//! planner's stack, but letting a panic through so that libFuzzer reports it.

use flink_compat::limits::PARSER_STACK_BYTES;
use flink_compat::plan::builder::build_plan;
use flink_compat::plan::Plan;
use flink_compat::rules::RuleSet;
use flink_compat::source::SourceFile;
use flink_compat::sql::parse_script;
use std::sync::OnceLock;

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

pub fn rules() -> &'static RuleSet {
    static RULES: OnceLock<RuleSet> = OnceLock::new();
    RULES.get_or_init(|| RuleSet::load(&[] as &[&str]).expect("the built-in rules load"))
}
