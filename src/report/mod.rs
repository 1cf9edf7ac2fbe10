//! The result of a check, in one structure every output format renders.

pub mod assemble;
pub mod batch;
pub mod concise;
pub mod github;
pub mod gitlab;
pub mod html;
pub mod human;
pub mod jobs;
pub mod json;
pub mod junit;
pub mod sarif;
pub mod snippet;
mod spans;
mod state_fate;
pub mod suppression;

use crate::verdict::Verdict;
pub use assemble::{evaluate_query, location};
use serde::Serialize;

/// Version of the JSON report's shape; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub schema_version: u32,
    pub verdict: Verdict,
    /// The engine profile whose rules judged the change.
    pub engine: String,
    pub old_file: String,
    pub new_file: String,
    pub queries: Vec<QueryReport>,
    pub notes: Vec<NoteReport>,
    /// The verdict of the findings that are not suppressed (what the exit status follows);
    /// present only when some finding is suppressed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effective_verdict: Option<Verdict>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum QueryStatus {
    Unchanged,
    Changed,
    Added,
    Removed,
}

impl QueryStatus {
    /// The status as the reports write it.
    pub fn words(self) -> &'static str {
        match self {
            QueryStatus::Unchanged => "unchanged",
            QueryStatus::Changed => "changed",
            QueryStatus::Added => "added",
            QueryStatus::Removed => "removed",
        }
    }
}

/// How a query is named in prose: `query orders_out`, and a bare query `query #2` (its name
/// already says it is a query).
pub fn query_title(name: &str) -> String {
    if name.starts_with("query #") {
        name.to_string()
    } else {
        format!("query {name}")
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct QueryReport {
    pub name: String,
    pub old_name: Option<String>,
    pub new_name: Option<String>,
    pub status: QueryStatus,
    pub verdict: Verdict,
    pub findings: Vec<Finding>,
    pub operators: Vec<OperatorReport>,
    /// The source tables the query reads (kind `source`), judged on their DDL.
    pub sources: Vec<OperatorReport>,
}

#[derive(Debug, Clone, Serialize)]
pub struct OperatorReport {
    pub kind: String,
    /// The table's name, for a source table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// Flink's node for it (e.g. `stream-exec-group-window-aggregate`).
    pub flink_node: String,
    pub status: QueryStatus,
    pub verdict: Verdict,
    pub findings: Vec<Finding>,
    pub state: StateFate,
    pub old: Option<Location>,
    pub new: Option<Location>,
}

/// What happens to each piece of the operator's state on restore.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct StateFate {
    /// The operator's state as a whole: reused, partially_reused, starts_empty, discarded, undetermined.
    pub operator: String,
    pub reused: Vec<String>,
    pub starts_empty: Vec<String>,
    pub discarded: Vec<String>,
    pub undetermined: Vec<String>,
}

impl StateFate {
    /// The fate of this state when something around the operator (its query, its sources)
    /// makes the restore `unknown` or `incompatible`.
    pub fn under(self, verdict: crate::verdict::Verdict) -> StateFate {
        let mut all_old: Vec<String> = self.reused.clone();
        all_old.extend(self.discarded.iter().cloned());
        let mut all_new: Vec<String> = self.reused.clone();
        all_new.extend(self.starts_empty.iter().cloned());
        match verdict {
            crate::verdict::Verdict::Incompatible => StateFate {
                operator: "discarded".into(),
                reused: Vec::new(),
                starts_empty: all_new,
                discarded: all_old,
                undetermined: Vec::new(),
            },
            _ => {
                let mut undetermined = all_old;
                undetermined.extend(self.starts_empty.iter().cloned());
                undetermined.extend(self.undetermined.iter().cloned());
                undetermined.dedup();
                StateFate {
                    operator: "undetermined".into(),
                    reused: Vec::new(),
                    starts_empty: Vec::new(),
                    discarded: Vec::new(),
                    undetermined,
                }
            }
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub rule: String,
    pub verdict: Verdict,
    pub message: String,
    /// Why the rule holds when the documentation does not state it.
    pub derived: Option<String>,
    /// How the restore goes wrong on the engine (profiles of engines that do not migrate state).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_mode: Option<crate::rules::FailureMode>,
    pub old: Option<Location>,
    pub new: Option<Location>,
    /// Accepted by an allow (inline or in the configuration): shown, but not counted for the
    /// exit status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suppressed: Option<crate::report::suppression::Suppression>,
}

/// A place in a script: file, 1-based line and column, byte offset and length, and the text.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Location {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub offset: usize,
    pub length: usize,
    pub text: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct NoteReport {
    pub side: &'static str,
    pub kind: crate::notes::NoteKind,
    pub message: String,
    pub location: Option<Location>,
}

impl NoteReport {
    /// Which script the note is about: "old script", "new script" or "both scripts".
    pub fn origin(&self) -> String {
        match self.side {
            "both" => "both scripts".to_string(),
            side => format!("{side} script"),
        }
    }
}

impl Location {
    /// Line and column just past the end of the located text (columns in characters).
    pub fn end(&self) -> (usize, usize) {
        match self.text.rfind('\n') {
            Some(last) => (
                self.line + self.text.matches('\n').count(),
                self.text[last + 1..].chars().count() + 1,
            ),
            None => (self.line, self.column + self.text.chars().count()),
        }
    }
}

/// Where a finding was made: its query and, for an operator's finding, the operator's kind.
#[derive(Debug, Clone, Copy)]
pub struct FindingContext<'r> {
    pub query: &'r QueryReport,
    pub operator: Option<&'r OperatorReport>,
}

impl Report {
    /// Every finding with the query and operator it belongs to, in report order.
    pub fn findings_in_context(&self) -> impl Iterator<Item = (FindingContext<'_>, &Finding)> {
        self.queries.iter().flat_map(|query| {
            let own = query.findings.iter().map(move |f| {
                (
                    FindingContext {
                        query,
                        operator: None,
                    },
                    f,
                )
            });
            let operators = query.operators.iter().flat_map(move |op| {
                op.findings.iter().map(move |f| {
                    (
                        FindingContext {
                            query,
                            operator: Some(op),
                        },
                        f,
                    )
                })
            });
            let sources = query.sources.iter().flat_map(move |op| {
                op.findings.iter().map(move |f| {
                    (
                        FindingContext {
                            query,
                            operator: Some(op),
                        },
                        f,
                    )
                })
            });
            own.chain(operators).chain(sources)
        })
    }

    /// The findings about a query as a whole or about one of its source tables that are the
    /// same in several queries (a job-level or source change), each once with the queries it
    /// affects, in report order.
    pub fn shared_findings(&self) -> Vec<(&Finding, Vec<&QueryReport>)> {
        let mut shared: Vec<(&Finding, Vec<&QueryReport>)> = Vec::new();
        for (context, f) in self.findings_in_context() {
            if !is_about_the_job_or_a_source(&context) {
                continue;
            }
            match shared.iter_mut().find(|(g, _)| same_finding(g, f)) {
                Some((_, queries)) => {
                    if !queries.iter().any(|q| std::ptr::eq(*q, context.query)) {
                        queries.push(context.query);
                    }
                }
                None => shared.push((f, vec![context.query])),
            }
        }
        shared.retain(|(_, queries)| queries.len() > 1);
        shared
    }

    /// Whether a finding in its context is one of [`Report::shared_findings`].
    pub fn is_shared(&self, context: &FindingContext, f: &Finding) -> bool {
        is_about_the_job_or_a_source(context)
            && self
                .findings_in_context()
                .filter(|(c, g)| {
                    !std::ptr::eq(c.query, context.query)
                        && is_about_the_job_or_a_source(c)
                        && same_finding(g, f)
                })
                .count()
                > 0
    }

    /// Every finding, in report order.
    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.findings_in_context().map(|(_, f)| f)
    }
}

/// A finding on the query itself (not one of its operators) or on a source table it reads.
fn is_about_the_job_or_a_source(context: &FindingContext) -> bool {
    context
        .operator
        .is_none_or(|op| context.query.sources.iter().any(|s| std::ptr::eq(s, op)))
}

/// The same rule saying the same thing about the same clause of the new script (of the old
/// one when the new one has none): a `SET` line added to the job is one change, though each
/// query's finding points at its own query in the old script.
pub(crate) fn same_finding(a: &Finding, b: &Finding) -> bool {
    a.rule == b.rule
        && a.message == b.message
        && a.new == b.new
        && (a.new.is_some() || a.old == b.old)
}

#[cfg(test)]
mod tests {
    use super::Location;

    fn at(line: usize, column: usize, text: &str) -> Location {
        Location {
            file: "f.sql".into(),
            line,
            column,
            offset: 0,
            length: text.len(),
            text: text.into(),
        }
    }

    #[test]
    fn the_end_of_a_location_is_just_past_its_last_character() {
        assert_eq!(at(3, 8, "MAX(ç)").end(), (3, 14));
        assert_eq!(at(3, 8, "a,\n  b").end(), (4, 4));
    }
}
