//! One line per finding, `file:line:col: rule: message`, as compilers and linters print them
//! (editors and `grep` read it). Suppressed findings are left out; warnings are `warning`
//! lines, added and removed jobs `job-added` / `job-removed`, unreadable jobs `error` lines.

use crate::report::jobs::JobStatus;
use crate::report::jobs::{Batch, Outcome};
use std::fmt::Write;

fn line(out: &mut String, at: &str, rule: &str, message: &str) {
    let message = message.replace('\n', " ");
    let _ = writeln!(out, "{at}: {rule}: {message}");
}

pub fn render(batch: &Batch) -> String {
    let mut out = String::new();
    for job in &batch.jobs {
        match &job.outcome {
            Outcome::Checked(report) => {
                for f in report.findings().filter(|f| f.suppressed.is_none()) {
                    let at = match f.new.as_ref().or(f.old.as_ref()) {
                        Some(l) => format!("{}:{}:{}", l.file, l.line, l.column),
                        None => format!("{}:1:1", report.new_file),
                    };
                    line(
                        &mut out,
                        &at,
                        &f.rule,
                        &format!("{} ({})", f.message, f.verdict),
                    );
                }
                for note in &report.notes {
                    if note.kind != crate::notes::NoteKind::Warning {
                        continue;
                    }
                    let at = match &note.location {
                        Some(l) => format!("{}:{}:{}", l.file, l.line, l.column),
                        None => format!("{}:1:1", report.new_file),
                    };
                    line(&mut out, &at, "warning", &note.message);
                }
            }
            Outcome::Failed(error) => {
                let located = error.located_errors();
                if located.is_empty() {
                    line(
                        &mut out,
                        &format!("{}:1:1", job.job.path),
                        "error",
                        &error.to_string(),
                    );
                }
                for e in located {
                    line(
                        &mut out,
                        &format!("{}:{}:{}", e.file, e.line, e.column),
                        "error",
                        &e.message,
                    );
                }
            }
            Outcome::NotChecked => {
                let rule = match job.job.status {
                    JobStatus::Removed => "job-removed",
                    _ => "job-added",
                };
                line(
                    &mut out,
                    &format!("{}:1:1", job.job.path),
                    rule,
                    job.words(),
                );
            }
        }
    }
    for warning in &batch.warnings {
        let _ = writeln!(out, "{warning}");
    }
    out
}

/// An error that stopped the run, as `error` lines.
pub fn render_error(error: &crate::error::Error) -> String {
    let mut out = String::new();
    let located = error.located_errors();
    if located.is_empty() {
        line(&mut out, "flink-compat", "error", &error.to_string());
    }
    for e in located {
        line(
            &mut out,
            &format!("{}:{}:{}", e.file, e.line, e.column),
            "error",
            &e.message,
        );
    }
    out
}
