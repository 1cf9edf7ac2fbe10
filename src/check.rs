//! One check, end to end: parse both scripts (on a thread with a large stack), plan, diff,
//! evaluate the rules, and report.

use crate::diff::QueryPair;
use crate::error::{Error, Result};
use crate::limits::PARSER_STACK_BYTES;
use crate::notes::Notes;
use crate::plan::{builder::build_plan, Plan};
use crate::report::{NoteReport, Report, SCHEMA_VERSION};
use crate::rules::{engine, RuleSet};
use crate::source::SourceFile;
use crate::sql::parse_script;
use crate::verdict::Verdict;

/// Parses and plans one script, on a thread whose stack bounds any recursion.
pub fn plan_script(file: SourceFile, overrides: &[(String, String)]) -> Result<Plan> {
    let overrides = overrides.to_vec();
    on_planner_thread(move || plan(file, &overrides))
}

fn plan(file: SourceFile, overrides: &[(String, String)]) -> Result<Plan> {
    parse_script(file).and_then(|script| build_plan(script, overrides))
}

/// Runs `work` on a thread with the planner's stack (deep SQL recurses).
fn on_planner_thread<T: Send + 'static>(
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    let handle = std::thread::Builder::new()
        .name("flink-compat-planner".into())
        .stack_size(PARSER_STACK_BYTES)
        .spawn(work)
        .map_err(|e| Error::Usage(format!("cannot start the planner thread: {e}")))?;
    handle.join().unwrap_or_else(|_| {
        Err(Error::Usage(
            "internal error while planning the script".into(),
        ))
    })
}

/// Checks whether `new` can restore from the state of `old`.
pub fn check(
    old: SourceFile,
    new: SourceFile,
    overrides: &[(String, String)],
    rules: &RuleSet,
) -> Result<Report> {
    let overrides = overrides.to_vec();
    // One planner thread for both scripts: starting a thread is a good part of a small check.
    let (old_plan, new_plan) =
        on_planner_thread(move || Ok((plan(old, &overrides)?, plan(new, &overrides)?)))?;
    Ok(compare(&old_plan, &new_plan, rules))
}

/// Compares two plans: [`diff`] then [`evaluate`].
pub fn compare(old_plan: &Plan, new_plan: &Plan, rules: &RuleSet) -> Report {
    evaluate(&diff(old_plan, new_plan), old_plan, new_plan, rules)
}

// The stages of a check, public so that benchmarks and tools can run or time them one by one:
// `crate::sql::parse_script` (parse), `crate::plan::builder::build_plan` (normalize), then:

/// Matches the queries and operators of the old plan with those of the new.
pub fn diff<'a>(old_plan: &'a Plan, new_plan: &'a Plan) -> Vec<QueryPair<'a>> {
    crate::diff::match_queries(old_plan, new_plan)
}

/// Assembles the facts of each matched pair, fires the rules and builds the report.
pub fn evaluate(pairs: &[QueryPair], old_plan: &Plan, new_plan: &Plan, rules: &RuleSet) -> Report {
    let job = crate::diff::Job::new(old_plan, new_plan);
    let queries: Vec<_> = pairs
        .iter()
        .map(|p| engine::evaluate_query(rules, p, &job))
        .collect();
    let verdict = queries
        .iter()
        .map(|q| q.verdict)
        .max()
        .unwrap_or(Verdict::FullyCompatible);
    let mut notes = Vec::new();
    notes_of("old", old_plan, &old_plan.notes, &mut notes);
    notes_of("new", new_plan, &new_plan.notes, &mut notes);
    Report {
        schema_version: SCHEMA_VERSION,
        verdict,
        engine: rules.engine.clone(),
        old_file: old_plan.file.name.clone(),
        new_file: new_plan.file.name.clone(),
        queries,
        notes,
        effective_verdict: None,
    }
}

fn notes_of(side: &'static str, plan: &Plan, notes: &Notes, out: &mut Vec<NoteReport>) {
    for note in &notes.items {
        out.push(NoteReport {
            side,
            kind: note.kind.clone(),
            message: note.message.clone(),
            location: note.span.and_then(|s| engine::location(&plan.file, s)),
        });
    }
}
