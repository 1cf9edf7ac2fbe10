//! The results of a batch run (its jobs, how each changed, the outcome of checking it), rendered
//! by the report formats; `batch` builds them.

use crate::error::Error;
use crate::report::Report;
use crate::rules::RuleSet;
use crate::source::SourceFile;
use crate::verdict::Verdict;
use serde::Serialize;
use std::path::PathBuf;

/// How a job file changed between the baseline and now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JobStatus {
    Unchanged,
    Changed,
    Renamed,
    /// A new job file: it starts without a savepoint, nothing to restore.
    Added,
    /// A job file that is gone: its savepoint is not restored by any job of the change.
    Removed,
}

impl JobStatus {
    pub fn words(self) -> &'static str {
        match self {
            JobStatus::Unchanged => "unchanged",
            JobStatus::Changed => "changed",
            JobStatus::Renamed => "renamed",
            JobStatus::Added => "added",
            JobStatus::Removed => "removed",
        }
    }
}

/// One job of a run: its path (relative to the repository or the compared directory), the
/// old script (absent for an added job), the new one (absent for a removed job).
#[derive(Debug)]
pub struct Job {
    pub path: String,
    /// The path it had in the baseline, when renamed.
    pub old_path: Option<String>,
    pub status: JobStatus,
    pub old: Option<SourceFile>,
    pub new: Option<SourceFile>,
    /// The file on disk the configuration's per-path settings are matched against.
    pub location: PathBuf,
    /// A script that could not be read (binary, too large, not UTF-8).
    pub error: Option<Error>,
}

impl Job {
    /// A job whose scripts are read; a read error stays with the job, not the run.
    pub fn new(
        path: String,
        old_path: Option<String>,
        status: JobStatus,
        location: PathBuf,
        old: Option<crate::error::Result<SourceFile>>,
        new: Option<crate::error::Result<SourceFile>>,
    ) -> Job {
        let mut error = None;
        let mut keep = |side: Option<crate::error::Result<SourceFile>>| match side {
            Some(Ok(file)) => Some(file),
            Some(Err(e)) => {
                error.get_or_insert(e);
                None
            }
            None => None,
        };
        let (old, new) = (keep(old), keep(new));
        Job {
            path,
            old_path,
            status,
            old,
            new,
            location,
            error,
        }
    }
}

#[derive(Debug)]
pub enum Outcome {
    Checked(Box<Report>),
    /// The scripts could not be read or parsed.
    Failed(Error),
    /// An added or removed job: there is no pair to compare.
    NotChecked,
}

#[derive(Debug)]
pub struct JobResult {
    pub job: Job,
    pub engine: String,
    /// Index of its rules in [`Batch::rule_sets`].
    pub rules: usize,
    pub outcome: Outcome,
}

impl JobResult {
    /// The verdict the rules gave (none for an added, removed or failed job).
    pub fn verdict(&self) -> Option<Verdict> {
        match &self.outcome {
            Outcome::Checked(report) => Some(report.verdict),
            _ => None,
        }
    }

    /// The verdict that counts for the exit status: suppressed findings left out.
    pub fn effective_verdict(&self) -> Option<Verdict> {
        match &self.outcome {
            Outcome::Checked(report) => Some(report.effective_verdict.unwrap_or(report.verdict)),
            _ => None,
        }
    }

    pub fn error(&self) -> Option<&Error> {
        match &self.outcome {
            Outcome::Failed(e) => Some(e),
            _ => None,
        }
    }

    /// What the summary says about a job that was not compared.
    pub fn words(&self) -> &'static str {
        match (self.job.status, &self.outcome) {
            (_, Outcome::Failed(_)) => "ERROR",
            (JobStatus::Added, _) => "ADDED: a new job, it starts without a savepoint",
            (JobStatus::Removed, _) => "REMOVED: the job is gone, its savepoint is not restored",
            _ => "",
        }
    }
}

/// The result of a run: every job, the rule sets they were judged by, and run-level warnings
/// (configuration allows that matched nothing).
#[derive(Debug)]
pub struct Batch {
    pub jobs: Vec<JobResult>,
    pub rule_sets: Vec<RuleSet>,
    pub warnings: Vec<String>,
}

impl Batch {
    /// The most severe verdict of the jobs, as judged (suppressions do not change it).
    pub fn verdict(&self) -> Verdict {
        self.jobs
            .iter()
            .filter_map(JobResult::verdict)
            .max()
            .unwrap_or(Verdict::FullyCompatible)
    }

    /// The most severe verdict that counts for the exit status.
    pub fn effective_verdict(&self) -> Verdict {
        self.jobs
            .iter()
            .filter_map(JobResult::effective_verdict)
            .max()
            .unwrap_or(Verdict::FullyCompatible)
    }

    pub fn has_errors(&self) -> bool {
        self.jobs.iter().any(|j| j.error().is_some())
    }

    /// 2 when a job could not be checked, 1 when a counted verdict reaches `threshold`, else 0.
    pub fn exit_status(&self, threshold: Option<Verdict>) -> i32 {
        if self.has_errors() {
            2
        } else if threshold.is_some_and(|t| self.effective_verdict() >= t) {
            1
        } else {
            0
        }
    }
}
