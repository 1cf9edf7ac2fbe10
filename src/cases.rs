//! Golden case files: an old and a new script with the expected verdict, the exact set of
//! rule ids that fire, the fate of the state and warnings. Run by `flink-compat test` and
//! by the test harness.

use crate::check::check;
use crate::error::{Error, Result};
use crate::report::Report;
use crate::rules::load::parse_yaml;
use crate::rules::RuleSet;
use crate::source::{ByteSpan, SourceFile};
use crate::suggest;
use crate::verdict::Verdict;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub title: String,
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub note: Option<String>,
    pub old: String,
    pub new: String,
    /// Job configuration, as if passed with `--set KEY=VALUE`.
    #[serde(default)]
    pub set: BTreeMap<String, String>,
    /// The engine profile whose rules judge the pair (default: the one `test` runs with).
    #[serde(default)]
    pub engine: Option<String>,
    pub expect: Expect,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    pub verdict: String,
    pub findings: Vec<String>,
    #[serde(default)]
    pub state: Option<ExpectedState>,
    /// Substrings each of which must appear in some warning or assumption.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// The failure mode of every finding that names one, for profiles of engines that do not
    /// migrate state: all of them must be this one.
    #[serde(default)]
    pub failure_modes: Vec<String>,
    /// The verdict of each named query (its sink, or `query #n`), for whole-job cases.
    #[serde(default)]
    pub queries: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedState {
    #[serde(default)]
    pub reused: Vec<String>,
    #[serde(default)]
    pub starts_empty: Vec<String>,
    #[serde(default)]
    pub discarded: Vec<String>,
}

/// What a case run found wrong (empty when it passed).
#[derive(Debug)]
pub struct Outcome {
    pub name: String,
    pub problems: Vec<String>,
    pub report: Option<Report>,
}

impl Outcome {
    pub fn passed(&self) -> bool {
        self.problems.is_empty()
    }
}

include!(concat!(env!("OUT_DIR"), "/cases.rs"));

/// The first case (user directories first, then the built-in cases) that expects `rule` to fire.
pub fn example_of(rule: &str, engine: &str, dirs: &[std::path::PathBuf]) -> Option<(String, Case)> {
    let user = collect(dirs)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|path| {
            let text = crate::input::read_text(&path).ok()?;
            Some((path.display().to_string(), text))
        });
    let builtin = CASES.iter().map(|(p, t)| (p.to_string(), t.to_string()));
    user.chain(builtin).find_map(|(path, text)| {
        let case = load(&SourceFile::new(path.clone(), text)).ok()?;
        let case_engine = case
            .engine
            .as_deref()
            .unwrap_or(crate::rules::profile::DEFAULT_ENGINE);
        (case_engine == engine && case.expect.findings.iter().any(|f| f == rule))
            .then_some((path, case))
    })
}

/// Reads a case file; when it is misshapen, every mistake is reported at once.
pub fn load(file: &SourceFile) -> Result<Case> {
    parse_yaml(file, "case").map_err(|first| {
        let mistakes = crate::rules::shape::case_mistakes(file);
        crate::error::Error::collect(format!("case file {}", file.name), mistakes).unwrap_or(first)
    })
}

/// The verdicts and rule ids a case names that do not exist (a misspelt id would otherwise
/// only show as a finding that "did not fire"), each located with a "did you mean".
fn unknown_names(file: &SourceFile, case: &Case, rules: &RuleSet) -> Vec<Error> {
    let verdicts: Vec<&str> = Verdict::ALL.iter().map(|v| v.name()).collect();
    let mut ids: Vec<&str> = rules.rules.iter().map(|r| r.id.as_str()).collect();
    ids.push(crate::rules::engine::UNEXPLAINED);
    let mut errors = Vec::new();
    let expect_at = file.text.find("expect:").unwrap_or(0);
    let mut check = |name: &str, known: &[&str], what: &str| {
        if known.contains(&name) {
            return;
        }
        let start = file.text[expect_at..]
            .find(name)
            .map_or(expect_at, |i| expect_at + i);
        let span = ByteSpan::new(start, start + name.len());
        let help = suggest::did_you_mean(&closest(name, known)).or_else(|| {
            (known.len() <= Verdict::ALL.len()).then(|| format!("one of: {}", known.join(", ")))
        });
        errors.push(Error::located(
            "case",
            file,
            span,
            format!("`{name}` is not {what}"),
            "unknown",
            help,
        ));
    };
    check(&case.expect.verdict, &verdicts, "a verdict");
    for verdict in case.expect.queries.values() {
        check(verdict, &verdicts, "a verdict");
    }
    for id in &case.expect.findings {
        check(
            id,
            &ids,
            &format!("the id of a loaded {} rule", rules.engine),
        );
    }
    errors
}

/// The known names nearest to a misspelt one: by edit distance, else those it abbreviates
/// (`partial` for `partially_compatible`).
fn closest<'a>(name: &str, known: &[&'a str]) -> Vec<&'a str> {
    let near = suggest::nearest(name, known.iter().copied());
    if !near.is_empty() || name.len() < 3 {
        return near;
    }
    known
        .iter()
        .copied()
        .filter(|k| k.starts_with(name) || k.contains(name))
        .take(3)
        .collect()
}

fn sorted(mut items: Vec<String>) -> Vec<String> {
    items.sort();
    items
}

/// Another engine's rules with the same user directories, loaded once per process.
fn rules_of_engine(engine: &str, dirs: &[std::path::PathBuf]) -> Result<Arc<RuleSet>> {
    type Cache = Mutex<BTreeMap<(String, Vec<std::path::PathBuf>), Arc<RuleSet>>>;
    static LOADED: OnceLock<Cache> = OnceLock::new();
    let key = (engine.to_string(), dirs.to_vec());
    let cache = LOADED.get_or_init(Default::default);
    if let Some(rules) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return Ok(rules);
    }
    let rules = Arc::new(RuleSet::load_engine(engine, dirs)?);
    if let Ok(mut c) = cache.lock() {
        c.insert(key, rules.clone());
    }
    Ok(rules)
}

/// Runs one case; an error reading the case file itself is an `Err`.
pub fn run(file: &SourceFile, rules: &RuleSet) -> Result<Outcome> {
    let case = load(file)?;
    let overrides: Vec<(String, String)> = case
        .set
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let engine_rules;
    let rules = match &case.engine {
        Some(engine) if *engine != rules.engine => {
            engine_rules = rules_of_engine(engine, &rules.extra_dirs)?;
            &*engine_rules
        }
        _ => rules,
    };
    if let Some(error) = Error::collect(
        format!("case file {}", file.name),
        unknown_names(file, &case, rules),
    ) {
        return Err(error);
    }
    let old = SourceFile::new(format!("{}#old", file.name), case.old.clone());
    let new = SourceFile::new(format!("{}#new", file.name), case.new.clone());
    let mut problems = Vec::new();
    let report = match check(old, new, &overrides, rules) {
        Ok(report) => report,
        Err(e) => {
            let mut lines = vec![format!("the check failed: {e}")];
            lines.extend(
                e.located_errors()
                    .iter()
                    .map(|l| format!("  at {}:{}:{}: {}", l.file, l.line, l.column, l.message)),
            );
            problems.push(lines.join("\n"));
            return Ok(Outcome {
                name: file.name.clone(),
                problems,
                report: None,
            });
        }
    };
    if report.verdict.name() != case.expect.verdict {
        problems.push(format!(
            "verdict:  expected {}, got {}",
            case.expect.verdict, report.verdict
        ));
    }
    let fired = sorted(
        report
            .findings()
            .map(|f| f.rule.clone())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect(),
    );
    let expected = sorted(case.expect.findings.clone());
    if fired != expected {
        let missing: Vec<&String> = expected.iter().filter(|e| !fired.contains(e)).collect();
        let extra: Vec<&String> = fired.iter().filter(|f| !expected.contains(f)).collect();
        let mut lines = vec![format!(
            "findings: expected [{}], got [{}]",
            expected.join(", "),
            fired.join(", ")
        )];
        for id in missing {
            lines.push(format!("  - missing    {id}: expected to fire, did not"));
        }
        for f in report.findings().filter(|f| extra.contains(&&f.rule)) {
            lines.push(format!(
                "  + unexpected {} ({}): {}",
                f.rule, f.verdict, f.message
            ));
        }
        problems.push(lines.join("\n"));
    }
    if let Some(state) = &case.expect.state {
        let mut reused = Vec::new();
        let mut starts_empty = Vec::new();
        let mut discarded = Vec::new();
        for op in report.queries.iter().flat_map(|q| &q.operators) {
            reused.extend(op.state.reused.iter().cloned());
            starts_empty.extend(op.state.starts_empty.iter().cloned());
            discarded.extend(op.state.discarded.iter().cloned());
        }
        for (label, got, want) in [
            ("reused", reused, &state.reused),
            ("starts_empty", starts_empty, &state.starts_empty),
            ("discarded", discarded, &state.discarded),
        ] {
            if sorted(got.clone()) != sorted(want.clone()) {
                problems.push(format!(
                    "state {label}: expected [{}], got [{}]",
                    want.join(", "),
                    got.join(", ")
                ));
            }
        }
    }
    let mut modes: Vec<String> = report
        .findings()
        .filter_map(|f| f.failure_mode.map(|m| m.name().to_string()))
        .collect();
    modes.sort();
    modes.dedup();
    if modes != sorted(case.expect.failure_modes.clone()) {
        problems.push(format!(
            "failure modes: expected {:?}, got {modes:?}",
            case.expect.failure_modes
        ));
    }
    for (name, verdict) in &case.expect.queries {
        match report.queries.iter().find(|q| &q.name == name) {
            Some(q) if q.verdict.name() == verdict => {}
            Some(q) => problems.push(format!(
                "query {name}: expected {verdict}, got {}",
                q.verdict
            )),
            None => {
                let names: Vec<&str> = report.queries.iter().map(|q| q.name.as_str()).collect();
                problems.push(format!("no query named {name}; queries: {names:?}"));
            }
        }
    }
    for wanted in &case.expect.warnings {
        if !report
            .notes
            .iter()
            .any(|n| n.message.contains(wanted.as_str()))
        {
            let mut lines = vec![format!(
                "warnings: none contains {wanted:?}; the notes are:"
            )];
            lines.extend(report.notes.iter().map(|n| format!("  {}", n.message)));
            problems.push(lines.join("\n"));
        }
    }
    Ok(Outcome {
        name: file.name.clone(),
        problems,
        report: Some(report),
    })
}

/// Every case file under the given paths (files or directories, recursively), sorted.
pub fn collect(paths: &[std::path::PathBuf]) -> Result<Vec<std::path::PathBuf>> {
    let mut out = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut stack = vec![path.clone()];
            while let Some(dir) = stack.pop() {
                let entries = std::fs::read_dir(&dir).map_err(|e| crate::error::Error::Io {
                    path: dir.display().to_string(),
                    reason: e.to_string(),
                })?;
                for entry in entries.flatten() {
                    let p = entry.path();
                    if p.is_dir() {
                        stack.push(p);
                    } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
                        out.push(p);
                    }
                }
            }
        } else {
            out.push(path.clone());
        }
    }
    out.sort();
    Ok(out)
}
