//! `flink-compat check`: two scripts, two trees, or the jobs changed since a git revision; the
//! settings from the command line over `flink-compat.toml`; one report in the chosen format.

use super::{FailOn, Format};
use crate::batch::run::{self, Batch, Outcome, Settings};
use crate::batch::{git, pairs, Job, JobFilter, JobStatus};
use crate::config_file::{self, Config};
use crate::error::{Error, Result};
use crate::input::read_text;
use crate::report::{batch, concise, github, gitlab, html, human, json, junit, sarif};
use crate::source::SourceFile;
use clap::ValueEnum;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq, Default)]
pub enum Color {
    /// Colour on a terminal, unless `NO_COLOR` is set or the report goes to a file
    #[default]
    Auto,
    Always,
    Never,
}

/// What `check` was asked, as parsed from the command line.
#[derive(Debug, Clone)]
pub struct CheckArgs {
    pub paths: Vec<PathBuf>,
    pub against: Option<String>,
    pub format: Format,
    pub rules: Vec<PathBuf>,
    pub set: Vec<(String, String)>,
    pub engine: Option<String>,
    pub fail_on: Option<FailOn>,
    pub config: Option<PathBuf>,
    pub isolated: bool,
    pub stdin_filename: Option<String>,
    pub color: Color,
    pub quiet: bool,
    /// Every finding with its snippets in the human report.
    pub verbose: bool,
    pub to_file: bool,
}

/// The report's text and the exit status.
pub struct Rendered {
    pub text: String,
    pub status: i32,
}

fn config(args: &CheckArgs, cwd: &Path) -> Result<Option<Config>> {
    if args.isolated {
        return Ok(None);
    }
    let path = match &args.config {
        Some(path) => path.clone(),
        None => match config_file::discover(cwd) {
            // Shown relative to the working directory when it is below it.
            Some(found) => found
                .strip_prefix(cwd)
                .map(Path::to_path_buf)
                .unwrap_or(found),
            None => return Ok(None),
        },
    };
    config_file::load(&path).map(Some)
}

fn fail_on(args: &CheckArgs, config: Option<&Config>) -> FailOn {
    args.fail_on
        .or_else(|| {
            config
                .and_then(|c| c.fail_on.as_deref())
                .and_then(|f| FailOn::from_str(f, false).ok())
        })
        .unwrap_or(FailOn::Unknown)
}

fn style(args: &CheckArgs) -> human::Style {
    let colour = match args.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => !args.to_file && human::Style::detect().colour,
    };
    human::Style {
        colour,
        width: human::Style::detect_width(),
        verbose: args.verbose,
    }
}

fn stdin_or(path: &Path, stdin_filename: &Option<String>) -> Result<SourceFile> {
    let name = match (path.as_os_str() == "-", stdin_filename) {
        (true, Some(name)) => name.clone(),
        _ => path.display().to_string(),
    };
    Ok(SourceFile::new(name, read_text(path)?))
}

/// Says how many rules each rules path added, for the paths given at all.
fn say_loaded(batch: &Batch, settings: &Settings) {
    if let Some(set) = batch.rule_sets.first() {
        super::say_loaded(set, &settings.rules);
    }
}

/// Runs the check and renders its report.
pub fn execute(args: &CheckArgs) -> Result<Rendered> {
    let cwd = std::env::current_dir().map_err(|e| Error::Io {
        path: ".".into(),
        reason: e.to_string(),
    })?;
    let config = config(args, &cwd)?;
    let config = config.as_ref();
    let mut settings = Settings {
        engine: args
            .engine
            .clone()
            .or_else(|| config.and_then(|c| c.engine.clone()))
            .unwrap_or_else(|| crate::rules::profile::DEFAULT_ENGINE.to_string()),
        engine_from_cli: args.engine.is_some(),
        set: config.map(|c| c.set.clone()).unwrap_or_default(),
        rules: config.map(|c| c.rules.clone()).unwrap_or_default(),
    };
    settings.set.extend(args.set.iter().cloned());
    settings.rules.extend(args.rules.iter().cloned());
    let threshold = fail_on(args, config).threshold();
    let jobs_globs = config.map(|c| c.jobs.clone()).unwrap_or_default();

    if let Some(rev) = &args.against {
        let base = config.map_or_else(|| cwd.clone(), |c| c.dir.clone());
        let jobs = git::against(rev, &cwd, &args.paths, &JobFilter::new(base, &jobs_globs))?;
        let batch = run::run(jobs, &settings, config)?;
        say_loaded(&batch, &settings);
        return Ok(render_batch(args, &batch, threshold));
    }
    let [old, new] = args.paths.as_slice() else {
        return Err(Error::Usage(
            "check takes OLD and NEW (two scripts, or two directories or globs), or --against REV [PATH...]".into(),
        ));
    };
    if pairs::is_tree(old) || pairs::is_tree(new) {
        if !(pairs::is_tree(old) && pairs::is_tree(new)) {
            return Err(Error::Usage(
                "OLD and NEW are both scripts, or both directories or globs".into(),
            ));
        }
        let jobs = pairs::trees(old, new, &jobs_globs)?;
        let batch = run::run(jobs, &settings, config)?;
        say_loaded(&batch, &settings);
        return Ok(render_batch(args, &batch, threshold));
    }
    if old.as_os_str() == "-" && new.as_os_str() == "-" {
        return Err(Error::Usage(
            "only one of OLD and NEW can be `-` (standard input)".into(),
        ));
    }
    let (old_file, new_file) = (
        stdin_or(old, &args.stdin_filename)?,
        stdin_or(new, &args.stdin_filename)?,
    );
    let job = Job::new(
        new_file.name.clone(),
        None,
        JobStatus::Changed,
        cwd.join(&new_file.name),
        Some(Ok(old_file)),
        Some(Ok(new_file)),
    );
    let mut batch = run::run(vec![job], &settings, config)?;
    say_loaded(&batch, &settings);
    if let Some(Outcome::Failed(_)) = batch.jobs.first().map(|j| &j.outcome) {
        if let Some(Outcome::Failed(error)) = batch.jobs.pop().map(|j| j.outcome) {
            return Err(error);
        }
    }
    Ok(render_single(args, &batch, threshold))
}

/// One pair of scripts: the formats of a single check keep their shape.
fn render_single(
    args: &CheckArgs,
    batch: &Batch,
    threshold: Option<crate::verdict::Verdict>,
) -> Rendered {
    let status = batch.exit_status(threshold);
    let Some(job) = batch.jobs.first() else {
        return Rendered {
            text: String::new(),
            status,
        };
    };
    let Outcome::Checked(report) = &job.outcome else {
        return render_batch(args, batch, threshold);
    };
    let rules = &batch.rule_sets[job.rules];
    let files: Vec<&SourceFile> = job.job.old.iter().chain(job.job.new.iter()).collect();
    let text = match args.format {
        Format::Json => format!("{}\n", json::render(report)),
        Format::Sarif => format!("{}\n", sarif::render(report, rules)),
        Format::Github => github::render(report),
        Format::Html => html::render(report, &files),
        Format::Human if args.quiet => {
            let verdict = report.effective_verdict.unwrap_or(report.verdict);
            format!(
                "{}\n",
                style(args).verdict(verdict, human::verdict_words(verdict))
            )
        }
        Format::Human => human::render(report, &files, style(args)),
        Format::Concise | Format::Junit | Format::Gitlab => {
            return render_batch(args, batch, threshold)
        }
    };
    Rendered { text, status }
}

fn render_batch(
    args: &CheckArgs,
    batch: &Batch,
    threshold: Option<crate::verdict::Verdict>,
) -> Rendered {
    let text = match args.format {
        Format::Json => format!("{}\n", batch::json(batch)),
        Format::Sarif => format!("{}\n", sarif::render_batch(batch)),
        Format::Github => batch::github(batch),
        Format::Concise => concise::render(batch),
        Format::Junit => junit::render(batch, threshold),
        Format::Gitlab => format!("{}\n", gitlab::render(batch)),
        Format::Html => html::render_batch(batch),
        Format::Human if args.quiet => batch::summary(batch, style(args)),
        Format::Human => batch::human(batch, style(args)),
    };
    Rendered {
        text,
        status: batch.exit_status(threshold),
    }
}
