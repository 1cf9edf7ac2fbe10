//! One check, end to end: parse both scripts (on a thread with a large stack), plan, diff,
//! evaluate the rules, and report.

use crate::diff::QueryPair;
use crate::error::{Error, Result};
use crate::limits::PARSER_STACK_BYTES;
use crate::notes::Notes;
use crate::plan::builder::{build_plan, plan_prepared, prepare, Prepared, Reuse};
use crate::plan::Plan;
use crate::report::{evaluate_query, location};
use crate::report::{NoteReport, QueryReport, QueryStatus, Report, SCHEMA_VERSION};
use crate::rules::RuleSet;
use crate::source::SourceFile;
use crate::sql::parse_script;
use crate::verdict::Verdict;

/// Parses and plans one script, on a thread whose stack bounds any recursion.
pub fn plan_script(file: SourceFile, overrides: &[(String, String)]) -> Result<Plan> {
    let overrides = overrides.to_vec();
    on_planner_stack(move || plan(file, &overrides))
}

fn plan(file: SourceFile, overrides: &[(String, String)]) -> Result<Plan> {
    parse_script(file).and_then(|script| build_plan(script, overrides))
}

thread_local! {
    static ON_PLANNER_STACK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `work` on a thread with the planner's stack (deep SQL recurses), or right here when
/// this thread already is one (the CLI runs its whole command on one: a second stack of
/// [`PARSER_STACK_BYTES`] would double the address space the process reserves). A stack that
/// cannot be reserved is an [`Error::Resource`], a panic an [`Error::Internal`].
pub fn on_planner_stack<T: Send + 'static>(
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    if ON_PLANNER_STACK.get() {
        return work();
    }
    let handle = std::thread::Builder::new()
        .name("flink-compat-planner".into())
        .stack_size(PARSER_STACK_BYTES)
        .spawn(move || {
            ON_PLANNER_STACK.set(true);
            work()
        })
        .map_err(|e| Error::Resource {
            message: format!(
                "cannot reserve the planner's stack of {} MiB: {e}",
                PARSER_STACK_BYTES >> 20
            ),
            help: Some(
                "allow the process more address space (`ulimit -v`): deep SQL needs this stack"
                    .into(),
            ),
        })?;
    handle
        .join()
        .unwrap_or_else(|panic| Err(Error::Internal(panic_message(panic))))
}

fn panic_message(panic: Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

/// Checks whether `new` can restore from the state of `old`.
pub fn check(
    old: SourceFile,
    new: SourceFile,
    overrides: &[(String, String)],
    rules: &RuleSet,
) -> Result<Report> {
    let (old_plan, new_plan) = plan_pair(old, new, overrides)?;
    Ok(compare(&old_plan, &new_plan, rules))
}

/// Set by the binary: the process exits once its report is written.
static EXIT_AFTER_REPORT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Says that the process exits once the report of the last check is written (the binary,
/// which calls `std::process::exit`): [`check_before_exit`] then leaves the plans to the
/// exit instead of freeing them, node by node (a tenth of a large check).
pub fn exit_after_report() {
    EXIT_AFTER_REPORT.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// [`check`] of the last job of a process: its plans are not freed when the process exits
/// right after (see [`exit_after_report`]).
pub fn check_before_exit(
    old: SourceFile,
    new: SourceFile,
    overrides: &[(String, String)],
    rules: &RuleSet,
) -> Result<Report> {
    let plans = plan_pair(old, new, overrides)?;
    let report = compare(&plans.0, &plans.1, rules);
    if EXIT_AFTER_REPORT.load(std::sync::atomic::Ordering::Relaxed) {
        std::mem::forget(plans);
    }
    Ok(report)
}

/// The operator kinds of a pair of plans: whose rules a comparison of them can fire (with
/// [`crate::rules::ALWAYS_LOADED`]).
pub fn operator_kinds(plans: &[&Plan]) -> std::collections::BTreeSet<&'static str> {
    plans
        .iter()
        .flat_map(|plan| &plan.queries)
        .flat_map(|query| query.operators.iter().chain(&query.source_tables))
        .map(|operator| operator.kind.name())
        .collect()
}

/// [`check_before_exit`] with the rules loaded once the scripts are planned, by `load`, for
/// the operator kinds they have (see [`crate::rules::RuleSet::load_for_kinds`]). When a script
/// does not plan, the rules are still loaded (for no kinds), so that a mistake in them is
/// reported first, as when they are loaded before.
pub fn check_loading_rules(
    old: SourceFile,
    new: SourceFile,
    overrides: &[(String, String)],
    load: impl FnOnce(&std::collections::BTreeSet<&str>) -> Result<RuleSet>,
) -> Result<(RuleSet, Result<Report>)> {
    let plans = match plan_pair(old, new, overrides) {
        Ok(plans) => plans,
        Err(e) => return Ok((load(&Default::default())?, Err(e))),
    };
    let rules = load(&operator_kinds(&[&plans.0, &plans.1]))?;
    let report = compare(&plans.0, &plans.1, &rules);
    if EXIT_AFTER_REPORT.load(std::sync::atomic::Ordering::Relaxed) {
        std::mem::forget(plans);
    }
    Ok((rules, Ok(report)))
}

/// Parses and plans both scripts, on one planner stack. A query of the new script that the old
/// one has alike takes the old one's plan (`crate::plan::reuse`).
pub fn plan_pair(
    old: SourceFile,
    new: SourceFile,
    overrides: &[(String, String)],
) -> Result<(Plan, Plan)> {
    let overrides = overrides.to_vec();
    on_planner_stack(move || {
        if old.text.len().min(new.text.len()) >= SIDE_BY_SIDE_BYTES {
            if let Some(plans) = plan_side_by_side(&old, &new, &overrides) {
                return plans;
            }
        }
        let old_plan = plan_recording(old, &overrides)?;
        let new_plan = plan_reusing(prepared(new, &overrides)?, &old_plan)?;
        Ok((old_plan, new_plan))
    })
}

fn plan_recording(file: SourceFile, overrides: &[(String, String)]) -> Result<Plan> {
    plan_prepared(prepared(file, overrides)?, Reuse::Record)
}

fn prepared(file: SourceFile, overrides: &[(String, String)]) -> Result<Prepared> {
    parse_script(file).and_then(|script| prepare(script, overrides))
}

fn plan_reusing(mut new: Prepared, old_plan: &Plan) -> Result<Plan> {
    new.rename_functions_from(&old_plan.catalog);
    plan_prepared(new, Reuse::From(old_plan))
}

/// Below this size a script plans in less time than a thread takes to start: both are planned
/// on one thread.
const SIDE_BY_SIDE_BYTES: usize = 64 * 1024;

/// Parses the new script and reads its catalog on a second planner thread while this one plans
/// the old; then plans the new one's queries here, reusing the old plan. `None` when that
/// thread cannot start (its stack cannot be reserved): the caller plans both here. The old
/// script's error comes first, as when they are planned one after the other.
fn plan_side_by_side(
    old: &SourceFile,
    new: &SourceFile,
    overrides: &[(String, String)],
) -> Option<Result<(Plan, Plan)>> {
    std::thread::scope(|scope| {
        let new_prepared = std::thread::Builder::new()
            .name("flink-compat-planner-new".into())
            .stack_size(PARSER_STACK_BYTES)
            .spawn_scoped(scope, || {
                ON_PLANNER_STACK.set(true);
                prepared(new.clone(), overrides)
            })
            .ok()?;
        let old_plan = plan_recording(old.clone(), overrides);
        let new_prepared = new_prepared
            .join()
            .unwrap_or_else(|panic| Err(Error::Internal(panic_message(panic))));
        Some(old_plan.and_then(|old_plan| {
            let new_plan = plan_reusing(new_prepared?, &old_plan)?;
            Ok((old_plan, new_plan))
        }))
    })
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
    let job = crate::diff::Job::of_pairs(old_plan, new_plan, pairs);
    let mut queries: Vec<_> = pairs
        .iter()
        .map(|p| evaluate_query(rules, p, &job))
        .collect();
    if pairs.is_empty() {
        queries.extend(job_without_queries(&job, rules));
    }
    queries.extend(crate::report::assemble::settings_after_queries(rules, &job));
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

/// When neither script has a query the tool reads, what is judged of the whole job (its
/// configuration, the statements read past, its functions) still is: a job whose only pipeline
/// is a statement the tool does not model must not pass as unchanged when that statement
/// changes. Reported as one pseudo-query, `the job`, when something changed.
fn job_without_queries(job: &crate::diff::Job, rules: &RuleSet) -> Option<QueryReport> {
    let nothing = QueryPair {
        old: None,
        new: None,
        operators: Vec::new(),
        sources: Vec::new(),
        source_renames: Vec::new(),
        topology_changed_elsewhere: Vec::new(),
        topology_changed_before: Vec::new(),
        moved_among_queries: false,
        regrouped: false,
        sharing: Default::default(),
    };
    let report = evaluate_query(rules, &nothing, job);
    (report.status != QueryStatus::Unchanged).then(|| QueryReport {
        name: "the job".into(),
        ..report
    })
}

fn notes_of(side: &'static str, plan: &Plan, notes: &Notes, out: &mut Vec<NoteReport>) {
    for note in &notes.items {
        // A note about the command line (no place in either script) is said once, for both;
        // so is the same note about a statement both scripts have (`ADD JAR ...`), shown
        // where the new script has it.
        if let Some(same) = out.iter_mut().find(|n| {
            n.kind == note.kind
                && n.message == note.message
                && match note.span {
                    None => n.location.is_none(),
                    Some(_) => n.location.is_some() && n.side != side,
                }
        }) {
            same.side = "both";
            if let Some(location) = note.span.and_then(|s| location(&plan.file, s)) {
                same.location = Some(location);
            }
            continue;
        }
        out.push(NoteReport {
            side,
            kind: note.kind.clone(),
            message: note.message.clone(),
            location: note.span.and_then(|s| location(&plan.file, s)),
        });
    }
}
