//! Every golden case file under `cases/` through the library: verdict, exact rule ids, state.

use flink_compat::cases;
use flink_compat::rules::RuleSet;
use flink_compat::source::SourceFile;
use std::sync::OnceLock;

fn rules() -> &'static RuleSet {
    static RULES: OnceLock<RuleSet> = OnceLock::new();
    RULES.get_or_init(|| RuleSet::load(&[] as &[&str]).expect("the built-in rules load"))
}

fn run_case(path: &datatest_stable::Utf8Path, contents: String) -> datatest_stable::Result<()> {
    let file = SourceFile::new(path.as_str(), contents);
    let outcome =
        cases::run(&file, rules()).map_err(|e| format!("{:?}", miette::Report::new(e)))?;
    if outcome.passed() {
        Ok(())
    } else {
        Err(outcome.problems.join("\n").into())
    }
}

datatest_stable::harness! {
    { test = run_case, root = "cases", pattern = r".*\.ya?ml$" },
}
