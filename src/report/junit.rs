//! JUnit XML for CI test reports (GitLab, Jenkins, Azure): one test case per job, failed when
//! its verdict (suppressed findings left out) reaches `--fail-on`, in error when it could not
//! be checked; the findings are the failure's text.

use crate::report::jobs::{Batch, Outcome};
use crate::verdict::Verdict;
use std::fmt::Write;

fn escape(text: &str) -> String {
    text.chars()
        .filter(|c| *c == '\n' || *c == '\t' || !c.is_control())
        .collect::<String>()
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

pub fn render(batch: &Batch, threshold: Option<Verdict>) -> String {
    let mut cases = String::new();
    let (mut failures, mut errors) = (0, 0);
    for job in &batch.jobs {
        let name = escape(&job.job.path);
        let _ = write!(
            cases,
            "    <testcase classname=\"flink-compat\" name=\"{name}\""
        );
        match &job.outcome {
            Outcome::Checked(report) => {
                let verdict = job.effective_verdict().unwrap_or(report.verdict);
                if threshold.is_some_and(|t| verdict >= t) {
                    failures += 1;
                    let mut text = String::new();
                    for f in report.findings().filter(|f| f.suppressed.is_none()) {
                        let at = f
                            .new
                            .as_ref()
                            .or(f.old.as_ref())
                            .map(|l| format!("{}:{}:{}: ", l.file, l.line, l.column))
                            .unwrap_or_default();
                        let _ = writeln!(text, "{at}{} ({}): {}", f.rule, f.verdict, f.message);
                    }
                    let _ = write!(
                        cases,
                        ">\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    </testcase>\n",
                        verdict.name(),
                        escape(crate::report::human::verdict_words(verdict)),
                        escape(&text)
                    );
                } else {
                    let _ = writeln!(cases, "/>");
                }
            }
            Outcome::Failed(error) => {
                errors += 1;
                let _ = write!(
                    cases,
                    ">\n      <error type=\"input\" message=\"{}\"/>\n    </testcase>\n",
                    escape(&error.to_string())
                );
            }
            Outcome::NotChecked => {
                let _ = write!(
                    cases,
                    ">\n      <skipped message=\"{}\"/>\n    </testcase>\n",
                    escape(job.words())
                );
            }
        }
    }
    let total = batch.jobs.len();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"flink-compat\" tests=\"{total}\" failures=\"{failures}\" errors=\"{errors}\">\n  <testsuite name=\"savepoint compatibility\" tests=\"{total}\" failures=\"{failures}\" errors=\"{errors}\">\n{cases}  </testsuite>\n</testsuites>\n"
    )
}

/// An error that stopped the run: one test case in error.
pub fn render_error(error: &crate::error::Error) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"flink-compat\" tests=\"1\" failures=\"0\" errors=\"1\">\n  <testsuite name=\"savepoint compatibility\" tests=\"1\" failures=\"0\" errors=\"1\">\n    <testcase classname=\"flink-compat\" name=\"flink-compat\">\n      <error type=\"input\" message=\"{}\"/>\n    </testcase>\n  </testsuite>\n</testsuites>\n",
        escape(&error.to_string())
    )
}
