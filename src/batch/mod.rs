//! Many jobs in one run: the pairs of old and new scripts (from a git revision, or from two
//! directories or globs paired by relative path), each checked with its own settings, and one
//! report over all of them.

pub mod git;
pub mod pairs;
pub mod run;
pub mod similar;

pub use crate::paths::{glob, relative, walk_files};
pub use crate::report::jobs::{Job, JobStatus};

use crate::source::SourceFile;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Sorts jobs by path so that every format lists them in one stable order.
pub fn sorted(mut jobs: Vec<Job>) -> Vec<Job> {
    jobs.sort_by(|a, b| a.path.cmp(&b.path));
    jobs
}

/// Which files are jobs: the configuration's `jobs` globs (default `*.sql`), matched against
/// paths relative to `base`.
#[derive(Debug, Clone)]
pub struct JobFilter {
    pub base: PathBuf,
    pub globs: Vec<glob::Glob>,
}

impl JobFilter {
    pub fn new(base: PathBuf, globs: &[String]) -> JobFilter {
        let globs = if globs.is_empty() {
            vec![glob::Glob::new("*.sql")]
        } else {
            globs.iter().map(|g| glob::Glob::new(g)).collect()
        };
        let base = base.canonicalize().unwrap_or(base);
        JobFilter { base, globs }
    }

    pub fn matches(&self, file: &Path) -> bool {
        relative(file, &self.base).is_some_and(|rel| self.globs.iter().any(|g| g.matches(&rel)))
    }
}

/// A script on one side of a pair, read or failed.
pub type Side = crate::error::Result<SourceFile>;

/// Pairs old and new scripts by relative path: same path → changed (or unchanged, kept only
/// where `keep_unchanged` says so), and among the rest, renamed files by content; what is left is
/// added or removed. `include` limits which paths are reported.
pub fn pair_up(
    old: BTreeMap<String, Side>,
    mut new: BTreeMap<String, (PathBuf, Side)>,
    old_location: &dyn Fn(&str) -> PathBuf,
    keep_unchanged: &dyn Fn(&str) -> bool,
    include: &dyn Fn(&str) -> bool,
) -> Vec<Job> {
    let mut jobs = Vec::new();
    let mut removed: Vec<(String, Side)> = Vec::new();
    for (rel, before) in old {
        let Some((location, after)) = new.remove(&rel) else {
            removed.push((rel, before));
            continue;
        };
        let same = matches!((&before, &after), (Ok(b), Ok(a)) if b.text == a.text);
        if !include(&rel) || (same && !keep_unchanged(&rel)) {
            continue;
        }
        let status = if same {
            JobStatus::Unchanged
        } else {
            JobStatus::Changed
        };
        jobs.push(Job::new(
            rel,
            None,
            status,
            location,
            Some(before),
            Some(after),
        ));
    }
    let added: Vec<(String, (PathBuf, Side))> =
        new.into_iter().filter(|(rel, _)| include(rel)).collect();
    let text = |side: &Side| {
        side.as_ref()
            .map(|f| f.text.to_string())
            .unwrap_or_default()
    };
    let removed_texts: Vec<String> = removed.iter().map(|(_, s)| text(s)).collect();
    let added_texts: Vec<String> = added.iter().map(|(_, (_, s))| text(s)).collect();
    let pairs = similar::renames(
        &removed_texts.iter().map(String::as_str).collect::<Vec<_>>(),
        &added_texts.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let renamed_from: BTreeMap<usize, usize> = pairs.iter().map(|&(r, a)| (a, r)).collect();
    let mut removed: Vec<Option<(String, Side)>> = removed.into_iter().map(Some).collect();
    for (a, (rel, (location, after))) in added.into_iter().enumerate() {
        let before = renamed_from.get(&a).and_then(|&r| removed[r].take());
        let (old_path, status, before) = match before {
            Some((old_rel, before)) => (Some(old_rel), JobStatus::Renamed, Some(before)),
            None => (None, JobStatus::Added, None),
        };
        jobs.push(Job::new(
            rel,
            old_path,
            status,
            location,
            before,
            Some(after),
        ));
    }
    for (rel, before) in removed.into_iter().flatten() {
        if include(&rel) {
            let location = old_location(&rel);
            jobs.push(Job::new(
                rel,
                None,
                JobStatus::Removed,
                location,
                Some(before),
                None,
            ));
        }
    }
    sorted(jobs)
}
