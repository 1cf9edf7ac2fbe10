//! Checks every job of a run with its settings (the command line's, the configuration's, and
//! the configuration's overrides for its path), applies the allows, and keeps one result per job.

use super::Job;
use crate::check::{check, check_before_exit, check_loading_rules};
use crate::config_file::Config;
use crate::error::Result;
pub use crate::report::jobs::{Batch, JobResult, Outcome};
use crate::rules::RuleSet;
use crate::suppress;
use std::path::PathBuf;

/// The settings every job starts from; `engine_from_cli` keeps `--engine` above overrides.
#[derive(Debug, Clone)]
pub struct Settings {
    pub engine: String,
    pub engine_from_cli: bool,
    pub set: Vec<(String, String)>,
    pub rules: Vec<PathBuf>,
}

/// Checks each job. An invalid rule file or engine stops the run (exit 2); a job's own error
/// stays with the job.
pub fn run(jobs: Vec<Job>, base: &Settings, config: Option<&Config>) -> Result<Batch> {
    let mut batch = Batch {
        jobs: Vec::new(),
        rule_sets: Vec::new(),
        warnings: Vec::new(),
    };
    let mut keys: Vec<(String, Vec<PathBuf>)> = Vec::new();
    let mut allow_used = vec![false; config.map_or(0, |c| c.allows.len())];
    let count = jobs.len();
    for (index, job) in jobs.into_iter().enumerate() {
        let mut settings = base.clone();
        if let Some(config) = config {
            for o in config.overrides_for(&job.location) {
                if let (Some(engine), false) = (&o.engine, base.engine_from_cli) {
                    settings.engine = engine.clone();
                }
                settings.set.splice(0..0, o.set.iter().cloned());
                settings.rules.extend(o.rules.iter().cloned());
            }
        }
        let mut job = job;
        // A single pair loads only the rules its operator kinds can fire, once it is planned.
        let single = count == 1 && job.error.is_none() && job.old.is_some() && job.new.is_some();
        let (rules, checked) = match (&job.old, &job.new) {
            (Some(old), Some(new)) if single => {
                let (set, checked) =
                    check_loading_rules(old.clone(), new.clone(), &settings.set, |kinds| {
                        RuleSet::load_for_kinds(&settings.engine, &settings.rules, kinds)
                    })?;
                batch.rule_sets.push(set);
                (batch.rule_sets.len() - 1, Some(checked))
            }
            _ => {
                let key = (settings.engine.clone(), settings.rules.clone());
                let rules = match keys.iter().position(|k| *k == key) {
                    Some(i) => i,
                    None => {
                        batch
                            .rule_sets
                            .push(RuleSet::load_engine(&settings.engine, &settings.rules)?);
                        keys.push(key);
                        keys.len() - 1
                    }
                };
                (rules, None)
            }
        };
        let outcome = match (job.error.take(), &job.old, &job.new) {
            (Some(e), _, _) => Outcome::Failed(e),
            (None, Some(old), Some(new)) => {
                let checked = checked.unwrap_or_else(|| {
                    let check = if index + 1 == count {
                        check_before_exit
                    } else {
                        check
                    };
                    check(
                        old.clone(),
                        new.clone(),
                        &settings.set,
                        &batch.rule_sets[rules],
                    )
                });
                match checked {
                    Ok(mut report) => {
                        let indices = config
                            .map(|c| c.allows_for(&job.location))
                            .unwrap_or_default();
                        let allows: Vec<&suppress::ConfigAllow> = indices
                            .iter()
                            .filter_map(|&i| config.map(|c| &c.allows[i]))
                            .collect();
                        let used = suppress::apply(&mut report, Some(old), Some(new), &allows);
                        for (i, used) in indices.iter().zip(used) {
                            allow_used[*i] |= used;
                        }
                        Outcome::Checked(Box::new(report))
                    }
                    Err(e) => Outcome::Failed(e),
                }
            }
            // A new job has nothing to restore, but its script must still be valid SQL.
            (None, None, Some(new)) => {
                match crate::check::plan_script(new.clone(), &settings.set) {
                    Ok(_) => Outcome::NotChecked,
                    Err(e) => Outcome::Failed(e),
                }
            }
            _ => Outcome::NotChecked,
        };
        batch.jobs.push(JobResult {
            job,
            engine: settings.engine,
            rules,
            outcome,
        });
    }
    if let Some(config) = config {
        for (allow, used) in config.allows.iter().zip(allow_used) {
            if !used {
                batch.warnings.push(format!(
                    "{}: `allow {}` matched no finding",
                    allow.origin, allow.rule
                ));
            }
        }
    }
    Ok(batch)
}
