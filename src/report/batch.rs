//! The report of a run over many jobs: for a person (each job's report, then a summary per
//! job), as one JSON document (the jobs' reports in an array) and as one set of GitHub
//! annotations. SARIF is in [`super::sarif::render_batch`].

use super::{github, human, SCHEMA_VERSION};
use crate::report::jobs::JobStatus;
use crate::report::jobs::{Batch, JobResult, Outcome};
use serde_json::{json, Value};
use std::fmt::Write;

/// A job's path, with how it changed (and its old path when renamed).
pub(super) fn job_title(job: &JobResult) -> String {
    match &job.job.old_path {
        Some(old) => format!("{} ({} from {old})", job.job.path, job.job.status.words()),
        None => format!("{} ({})", job.job.path, job.job.status.words()),
    }
}

/// An error as plain text, as the terminal shows it.
pub(super) fn error_text(error: &crate::error::Error) -> String {
    let mut text = String::new();
    let handler =
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
            .with_links(false)
            .with_width(100);
    if handler.render_report(&mut text, error).is_err() {
        text = error.to_string();
    }
    text
}

/// One line per job and the run's verdict.
pub fn summary(batch: &Batch, style: human::Style) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} jobs:", batch.jobs.len());
    for job in &batch.jobs {
        let verdict = match job.verdict() {
            Some(v) => {
                let mut text = style.verdict(v, &v.name().replace('_', " "));
                if let Some(effective) = job.effective_verdict().filter(|e| *e != v) {
                    let _ = write!(text, " ({} with suppressions)", effective.name());
                }
                text
            }
            None => job.words().to_string(),
        };
        let _ = writeln!(out, "  {}: {verdict}", job_title(job));
    }
    let verdict = batch.verdict();
    let _ = writeln!(
        out,
        "{}",
        style.verdict(verdict, human::verdict_words(verdict))
    );
    if batch.effective_verdict() != verdict {
        let effective = batch.effective_verdict();
        let _ = writeln!(
            out,
            "with the suppressed findings left out: {}",
            style.verdict(effective, human::verdict_words(effective))
        );
    }
    if batch.has_errors() {
        let _ = writeln!(out, "some jobs could not be checked (see above)");
    }
    out
}

/// Each job's report under a heading, the run's warnings, then the summary.
pub fn human(batch: &Batch, style: human::Style) -> String {
    let mut out = String::new();
    for job in &batch.jobs {
        let _ = writeln!(out, "=== {}", job_title(job));
        match &job.outcome {
            Outcome::Checked(report) => {
                let files: Vec<_> = job.job.old.iter().chain(job.job.new.iter()).collect();
                out.push_str(&human::render(report, &files, style));
            }
            Outcome::Failed(error) => out.push_str(&error_text(error)),
            Outcome::NotChecked => {
                let _ = writeln!(out, "{}", job.words());
            }
        }
        out.push('\n');
    }
    for warning in &batch.warnings {
        let _ = writeln!(out, "warning: {warning}");
    }
    if !batch.warnings.is_empty() {
        out.push('\n');
    }
    out.push_str(&summary(batch, style));
    out
}

/// One JSON document: the run's verdicts and each job with its report (or error).
pub fn json(batch: &Batch) -> String {
    let jobs: Vec<Value> = batch
        .jobs
        .iter()
        .map(|job| {
            json!({
                "path": job.job.path,
                "old_path": job.job.old_path,
                "status": job.job.status,
                "engine": job.engine,
                "verdict": job.verdict(),
                "effective_verdict": job.effective_verdict(),
                "report": match &job.outcome {
                    Outcome::Checked(report) => serde_json::to_value(report).unwrap_or(Value::Null),
                    _ => Value::Null,
                },
                "error": job.error().map(|e| e.to_json()),
            })
        })
        .collect();
    let value = json!({
        "schema_version": SCHEMA_VERSION,
        "verdict": batch.verdict(),
        "effective_verdict": batch.effective_verdict(),
        "jobs": jobs,
        "warnings": batch.warnings,
    });
    serde_json::to_string_pretty(&value).unwrap_or_default()
}

/// The annotations of every job, the added and removed files as notices, each job's errors,
/// then one verdict line for the run.
pub fn github(batch: &Batch) -> String {
    let mut out = String::new();
    for job in &batch.jobs {
        match &job.outcome {
            Outcome::Checked(report) => out.push_str(&github::annotations(report)),
            Outcome::Failed(error) => out.push_str(&github::render_error(error)),
            Outcome::NotChecked => out.push_str(&github::file_annotation(
                "notice",
                &job.job.path,
                match job.job.status {
                    JobStatus::Removed => "flink-compat: job removed",
                    _ => "flink-compat: job added",
                },
                job.words(),
            )),
        }
    }
    for warning in &batch.warnings {
        let _ = writeln!(out, "::warning title=flink-compat::{warning}");
    }
    let verdict = batch.verdict();
    let checked = batch.jobs.iter().filter(|j| j.verdict().is_some()).count();
    out.push_str(&github::verdict_line(
        batch.effective_verdict(),
        &format!(
            "{} ({checked} of {} jobs compared)",
            human::verdict_words(verdict),
            batch.jobs.len()
        ),
    ));
    out
}
