//! The command line: `check`, `test`, `rules`, `plan`.

use crate::cases;
mod check_command;
mod plan_command;

use crate::check::plan_script;
use crate::error::{Error, Result};
use crate::input::read_text;
use crate::report::{concise, github, gitlab, html, json, junit, sarif};
use crate::rules::RuleSet;
use crate::source::SourceFile;
use crate::verdict::Verdict;
use check_command::{CheckArgs, Color};
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Writes to standard output, ignoring a closed pipe (`flink-compat ... | head` must not panic).
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout().lock(), $($arg)*);
    }};
}

macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

const EXIT_CODES: &str = "Exit status:
  0  the verdict is below --fail-on (default: unknown)
  1  the verdict is at or above --fail-on; `test`: a case failed
  2  an error: unreadable file, SQL that cannot be parsed, invalid rule or case file, bad usage";

#[derive(Parser, Debug)]
#[command(args_override_self = true, name = "flink-compat", version, about = "Tells whether a changed Flink SQL job can restore from the old job's savepoint", after_help = EXIT_CODES)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Format {
    /// For a person: verdict first, findings with the SQL they are about, state, notes
    Human,
    /// One JSON object (docs/report.schema.json), also on error
    Json,
    /// SARIF 2.1.0, for code scanning
    Sarif,
    /// GitHub Actions workflow annotations
    Github,
    /// One line per finding: `file:line:col: rule: message`
    Concise,
    /// JUnit XML: one test case per job
    Junit,
    /// GitLab Code Quality: a JSON array of issues
    Gitlab,
    /// One self-contained HTML page: the verdict, the operator graphs, the SQL side by side
    Html,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ListFormat {
    Human,
    Json,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum PlanFormat {
    Human,
    Json,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum FailOn {
    Partial,
    Unknown,
    Incompatible,
    Never,
}

impl FailOn {
    pub fn threshold(self) -> Option<Verdict> {
        match self {
            FailOn::Partial => Some(Verdict::PartiallyCompatible),
            FailOn::Unknown => Some(Verdict::Unknown),
            FailOn::Incompatible => Some(Verdict::Incompatible),
            FailOn::Never => None,
        }
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Compare scripts: can each new job restore from the savepoint of its old version?
    ///
    /// `check OLD NEW` compares two scripts (`-` reads one from standard input); two
    /// directories or globs pair their job files by relative path; `check --against REV
    /// [PATH...]` reads each job's old script from a git revision (every changed job file
    /// without PATHs).
    #[command(after_help = EXIT_CODES)]
    Check {
        /// OLD NEW; with --against, the job files or directories to check
        #[arg(value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// A git revision (branch, tag, commit, HEAD~1) holding the old scripts
        #[arg(long, value_name = "REV")]
        against: Option<String>,
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Rule files or directories (searched recursively) extending or overriding the built-in rules (repeatable)
        #[arg(long = "rules", value_name = "PATH")]
        rules: Vec<PathBuf>,
        /// Job configuration, as `SET 'KEY' = 'VALUE';` would set it (repeatable)
        #[arg(long = "set", value_name = "KEY=VALUE", value_parser = parse_setting)]
        set: Vec<(String, String)>,
        /// The engine whose rules judge the change (default: vvr; see `flink-compat rules profiles`)
        #[arg(long, value_name = "NAME")]
        engine: Option<String>,
        /// The lowest verdict that makes the exit status 1 (default: unknown)
        #[arg(long, value_enum)]
        fail_on: Option<FailOn>,
        /// The configuration file (default: the nearest flink-compat.toml upward from here)
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Ignore every configuration file
        #[arg(long, conflicts_with = "config")]
        isolated: bool,
        /// The path to report (and match the configuration against) for standard input
        #[arg(long, value_name = "PATH")]
        stdin_filename: Option<String>,
        /// Write the report to FILE instead of standard output
        #[arg(long, value_name = "FILE")]
        output_file: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t = Color::Auto)]
        color: Color,
        /// Print the verdict only (per job, for many jobs)
        #[arg(long, short)]
        quiet: bool,
        /// Show every finding with its snippets (fully compatible ones are one line otherwise)
        #[arg(long, short, conflicts_with = "quiet")]
        verbose: bool,
    },
    /// Run golden case files (directories are searched for *.yaml)
    Test {
        #[arg(default_value = "cases")]
        paths: Vec<PathBuf>,
        #[arg(long = "rules", value_name = "DIR")]
        rules: Vec<PathBuf>,
        /// The engine for cases that do not name one (a case's `engine:` wins)
        #[arg(long, value_name = "NAME", default_value = crate::rules::profile::DEFAULT_ENGINE)]
        engine: String,
    },
    /// List the loaded rules, or show one
    Rules {
        #[command(subcommand)]
        action: Option<RulesAction>,
        #[arg(long = "rules", value_name = "DIR", global = true)]
        rules: Vec<PathBuf>,
        /// The engine whose rules to list or show
        #[arg(long, value_name = "NAME", global = true, default_value = crate::rules::profile::DEFAULT_ENGINE)]
        engine: String,
    },
    /// Show the normalized plan of a script (for debugging)
    Plan {
        file: PathBuf,
        #[arg(long, value_enum, default_value_t = PlanFormat::Human)]
        format: PlanFormat,
        #[arg(long = "set", value_name = "KEY=VALUE", value_parser = parse_setting)]
        set: Vec<(String, String)>,
    },
}

#[derive(Subcommand, Debug)]
pub enum RulesAction {
    /// Every loaded rule: id, operator, change kind, verdict
    List {
        #[arg(long, value_enum, default_value_t = ListFormat::Human)]
        format: ListFormat,
    },
    /// One rule: its predicate, message, rationale, source, and a case that fires it
    Show {
        id: String,
        /// Directories of your own case files to take the example from (repeatable)
        #[arg(long = "cases", value_name = "DIR")]
        cases: Vec<PathBuf>,
    },
    /// The facts a rule's predicate may use, per operator kind (Markdown; docs/facts.md)
    Facts {
        /// One operator kind (e.g. group_window_aggregate, query); all when absent
        operator: Option<String>,
    },
    /// The engine profiles and what each means
    Profiles,
    /// Every built-in rule documented: description, why, reference, example (Markdown; docs/rules.md)
    Docs,
}

fn indented(text: &str) -> String {
    text.trim_end()
        .lines()
        .map(|l| format!("      {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn parse_setting(text: &str) -> std::result::Result<(String, String), String> {
    let (key, value) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}` is not KEY=VALUE"))?;
    let key = key.trim().trim_matches('\'');
    if key.is_empty() {
        return Err(format!("`{text}` has an empty key"));
    }
    Ok((key.to_string(), value.trim().trim_matches('\'').to_string()))
}

fn source(path: &std::path::Path) -> Result<SourceFile> {
    Ok(SourceFile::new(
        path.display().to_string(),
        read_text(path)?,
    ))
}

/// Says on standard error how many rules each `--rules` path contributed.
fn say_loaded(set: &RuleSet, paths: &[PathBuf]) {
    for path in paths {
        let shown = path.display().to_string();
        let count = set
            .rules
            .iter()
            .filter(|r| r.profile == "user" && std::path::Path::new(&r.file).starts_with(path))
            .count();
        eprintln!("flink-compat: {count} rules loaded from {shown}");
    }
}

/// Writes the report to the `--output-file`, or to standard output.
fn emit(output: &Option<PathBuf>, text: &str) -> i32 {
    match output {
        Some(path) => match std::fs::write(path, text) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("cannot write {}: {e}", path.display());
                2
            }
        },
        None => {
            out!("{text}");
            0
        }
    }
}

/// An error in the chosen format (human: nothing, the diagnostic goes to standard error).
pub fn render_error(format: Format, error: &Error) -> String {
    match format {
        Format::Json => format!("{}\n", json::render_error(error)),
        Format::Sarif => format!("{}\n", sarif::render_error(error)),
        Format::Github => github::render_error(error),
        Format::Concise => concise::render_error(error),
        Format::Junit => junit::render_error(error),
        Format::Gitlab => format!("{}\n", gitlab::render_error(error)),
        Format::Html => html::render_error(error),
        Format::Human => String::new(),
    }
}

impl Cli {
    /// Where and in which format an error is reported: as the command's output was asked.
    pub fn error_output(&self) -> (Format, Option<PathBuf>) {
        match &self.command {
            Command::Check {
                format,
                output_file,
                ..
            } => (*format, output_file.clone()),
            Command::Plan {
                format: PlanFormat::Json,
                ..
            } => (Format::Json, None),
            _ => (Format::Human, None),
        }
    }
}

/// Runs the command; returns the exit status.
pub fn run(cli: Cli) -> i32 {
    let (format, output) = cli.error_output();
    match execute(cli) {
        Ok(code) => code,
        Err(error) => report_error(format, &output, error),
    }
}

/// Reports an error in the chosen format (to the `--output-file`, or standard output) and as
/// a diagnostic on standard error; returns the exit status of an error.
pub fn report_error(format: Format, output: &Option<PathBuf>, error: Error) -> i32 {
    let text = render_error(format, &error);
    if !text.is_empty() {
        emit(output, &text);
    }
    eprintln!("{:?}", miette::Report::new(error));
    2
}

fn execute(cli: Cli) -> Result<i32> {
    match cli.command {
        Command::Check {
            paths,
            against,
            format,
            rules,
            set,
            engine,
            fail_on,
            config,
            isolated,
            stdin_filename,
            output_file,
            color,
            quiet,
            verbose,
        } => {
            let args = CheckArgs {
                paths,
                against,
                format,
                rules,
                set,
                engine,
                fail_on,
                config,
                isolated,
                stdin_filename,
                color,
                quiet,
                verbose,
                to_file: output_file.is_some(),
            };
            let rendered = check_command::execute(&args)?;
            let written = emit(&output_file, &rendered.text);
            Ok(if written != 0 {
                written
            } else {
                rendered.status
            })
        }
        Command::Test {
            paths,
            rules,
            engine,
        } => {
            let rules = RuleSet::load_engine(&engine, &rules)?;
            let files = cases::collect(&paths)?;
            let mut failed = 0;
            let mut errors = Vec::new();
            for path in &files {
                let file = source(path)?;
                match cases::run(&file, &rules) {
                    Ok(outcome) if outcome.passed() => outln!("ok    {}", path.display()),
                    Ok(outcome) => {
                        failed += 1;
                        outln!("FAIL  {}", path.display());
                        for line in outcome.problems.iter().flat_map(|p| p.lines()) {
                            outln!("      {line}");
                        }
                    }
                    Err(e) => errors.push(e),
                }
            }
            if let Some(e) = Error::collect("case files", errors) {
                return Err(e);
            }
            outln!("{} passed, {failed} failed", files.len() - failed);
            Ok(if failed > 0 { 1 } else { 0 })
        }
        Command::Rules {
            action,
            rules,
            engine,
        } => {
            let set = RuleSet::load_engine(&engine, &rules)?;
            say_loaded(&set, &rules);
            match action.unwrap_or(RulesAction::List {
                format: ListFormat::Human,
            }) {
                RulesAction::List {
                    format: ListFormat::Json,
                } => {
                    let list: Vec<serde_json::Value> = set
                        .rules
                        .iter()
                        .map(|rule| {
                            serde_json::json!({
                                "id": rule.id,
                                "operator": rule.operator,
                                "change": rule.change,
                                "profile": rule.profile,
                                "verdict": rule.verdict_text(),
                                "derived": rule.derived,
                                "source": rule.source,
                                "file": rule.file,
                            })
                        })
                        .collect();
                    let value = serde_json::json!({"engine": engine, "rules": list});
                    outln!(
                        "{}",
                        serde_json::to_string_pretty(&value).unwrap_or_default()
                    );
                }
                RulesAction::List { .. } => {
                    let profiles = crate::rules::profile::builtin()?;
                    let names: Vec<&str> = profiles.keys().map(String::as_str).collect();
                    outln!("# engine {engine} (profiles: {})", names.join(", "));
                    for rule in &set.rules {
                        outln!(
                            "{:<40} {:<24} {:<22} {:<16} {}",
                            rule.id,
                            rule.operator,
                            rule.change,
                            rule.profile,
                            rule.verdict_text()
                        );
                    }
                }
                RulesAction::Profiles => {
                    for profile in crate::rules::profile::builtin()?.values() {
                        let extends = profile
                            .extends
                            .as_ref()
                            .map(|e| format!(" (extends {e})"))
                            .unwrap_or_default();
                        outln!("{}{extends}: {}", profile.name, profile.description);
                    }
                }
                RulesAction::Docs => {
                    out!("{}", crate::rules::rules_doc::reference()?);
                }
                RulesAction::Facts { operator } => {
                    out!(
                        "{}",
                        crate::rules::facts_doc::reference(operator.as_deref())?
                    );
                }
                RulesAction::Show { id, cases } => {
                    let rule = set.get(&id).ok_or_else(|| {
                        let ids = set.rules.iter().map(|r| r.id.as_str());
                        let hint =
                            crate::suggest::did_you_mean(&crate::rules::dsl::nearest(&id, ids))
                                .map(|h| format!("\n{h}"))
                                .unwrap_or_default();
                        Error::Usage(format!(
                            "no rule with id `{id}` (see `flink-compat rules list`){hint}"
                        ))
                    })?;
                    outln!("{}", rule.id);
                    if let Some(d) = &rule.description {
                        outln!("  {d}");
                    }
                    if !rule.aliases.is_empty() {
                        outln!("  also named: {}", rule.aliases.join(", "));
                    }
                    if let Some(variants) = &rule.variant_of {
                        outln!("  variants: {}", variants.text(&rule.id));
                    }
                    outln!("  operator: {}\n  change:   {}\n  verdict:  {}\n  when:     {}\n  message:  {}", rule.operator, rule.change, rule.verdict_text(), rule.when.source(), rule.message.source());
                    if let Some(r) = &rule.rationale {
                        outln!("  rationale: {r}");
                    }
                    if let Some(r) = &rule.reference {
                        outln!("  reference: {r}");
                    }
                    if let Some(s) = &rule.source {
                        outln!("  source:   {s}");
                    }
                    if let Some(d) = &rule.derived {
                        outln!("  derived:  {d}");
                    }
                    if let Some(mode) = &rule.failure_mode {
                        outln!(
                            "  failure mode: {}",
                            mode.text(crate::rules::FailureMode::name)
                        );
                    }
                    outln!("  profile:  {}", rule.profile);
                    if let Some(e) = &rule.example {
                        outln!(
                            "  example:\n{}",
                            e.lines()
                                .map(|l| format!("    {l}"))
                                .collect::<Vec<_>>()
                                .join("\n")
                        );
                    }
                    outln!("  file:     {}", rule.file);
                    let missing = crate::rules::rules_doc::missing_documentation(rule);
                    if !missing.is_empty() {
                        outln!(
                            "  undocumented: no {} (see docs/guide.md, \"How to write a rule\")",
                            missing.join(", ")
                        );
                    }
                    match cases::example_of(&rule.id, &set.engine, &cases) {
                        Some((path, case)) => {
                            outln!("  case:     {path} — {}", case.title);
                            outln!("    old:\n{}", indented(&case.old));
                            outln!("    new:\n{}", indented(&case.new));
                            if !case.set.is_empty() {
                                let set: Vec<String> =
                                    case.set.iter().map(|(k, v)| format!("{k}={v}")).collect();
                                outln!("    set: {}", set.join(", "));
                            }
                            outln!(
                                "    expect: {} [{}]",
                                case.expect.verdict,
                                case.expect.findings.join(", ")
                            );
                        }
                        None => outln!("  case:     none fires it (add one: see docs/guide.md)"),
                    }
                }
            }
            Ok(0)
        }
        Command::Plan { file, format, set } => {
            let plan = plan_script(source(&file)?, &set)?;
            let facts = plan_command::facts(&plan);
            match format {
                PlanFormat::Json => outln!(
                    "{}",
                    serde_json::to_string_pretty(&plan_command::json(&facts)).unwrap_or_default()
                ),
                PlanFormat::Human => outln!("{}", plan_command::text(&facts).trim_end()),
            }
            Ok(0)
        }
    }
}
