//! GitLab Code Quality (a JSON array of issues, `artifacts:reports:codequality`): one issue per
//! finding that is not suppressed, and per warning, at its line in the new script.

use crate::report::jobs::{Batch, Outcome};
use crate::verdict::Verdict;
use serde_json::{json, Value};

fn severity(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Incompatible => "critical",
        Verdict::Unknown => "major",
        Verdict::PartiallyCompatible => "minor",
        Verdict::FullyCompatible => "info",
    }
}

/// A stable fingerprint (FNV-1a, 64 bits, hex) of what makes an issue itself.
fn fingerprint(parts: &[&str]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for byte in part.bytes().chain(std::iter::once(0)) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}

fn issue(
    check: &str,
    description: String,
    severity: &str,
    path: &str,
    line: usize,
    key: &[&str],
) -> Value {
    let mut parts = vec![check, path];
    parts.extend_from_slice(key);
    json!({
        "type": "issue",
        "check_name": check,
        "description": description,
        "categories": ["Bug Risk"],
        "severity": severity,
        "fingerprint": fingerprint(&parts),
        "location": {"path": path, "lines": {"begin": line}},
    })
}

pub fn render(batch: &Batch) -> String {
    let mut issues = Vec::new();
    for job in &batch.jobs {
        let path = job.job.path.as_str();
        match &job.outcome {
            Outcome::Checked(report) => {
                for (context, f) in report.findings_in_context() {
                    if f.suppressed.is_some() {
                        continue;
                    }
                    let line = f.new.as_ref().map_or(1, |l| l.line);
                    let operator = context.operator.map_or("", |o| o.kind.as_str());
                    issues.push(issue(
                        &f.rule,
                        format!(
                            "{} ({}; {}): {}",
                            f.verdict,
                            f.rule,
                            super::query_title(&context.query.name),
                            f.message
                        ),
                        severity(f.verdict),
                        path,
                        line,
                        &[&context.query.name, operator, &f.message],
                    ));
                }
                for note in &report.notes {
                    if note.kind == crate::notes::NoteKind::Warning && note.side != "old" {
                        let line = note.location.as_ref().map_or(1, |l| l.line);
                        issues.push(issue(
                            "script-warning",
                            note.message.clone(),
                            "minor",
                            path,
                            line,
                            &[&note.message],
                        ));
                    }
                }
            }
            Outcome::Failed(error) => {
                let message = error.to_string();
                let line = error.located_errors().first().map_or(1, |e| e.line);
                issues.push(issue(
                    "input-error",
                    message.clone(),
                    "blocker",
                    path,
                    line,
                    &[&message],
                ));
            }
            Outcome::NotChecked => {}
        }
    }
    serde_json::to_string_pretty(&Value::Array(issues)).unwrap_or_default()
}

/// An error that stopped the run: one blocker issue per located error.
pub fn render_error(error: &crate::error::Error) -> String {
    let located = error.located_errors();
    let issues: Vec<Value> = if located.is_empty() {
        let message = error.to_string();
        vec![issue(
            "input-error",
            message.clone(),
            "blocker",
            "flink-compat.toml",
            1,
            &[&message],
        )]
    } else {
        located
            .iter()
            .map(|e| {
                issue(
                    "input-error",
                    e.message.clone(),
                    "blocker",
                    &e.file,
                    e.line,
                    &[&e.message],
                )
            })
            .collect()
    };
    serde_json::to_string_pretty(&Value::Array(issues)).unwrap_or_default()
}
