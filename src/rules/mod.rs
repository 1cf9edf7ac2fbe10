//! Compatibility rules: YAML files keyed by operator kind and change kind, each rule a predicate
//! of the DSL over the facts of an operator pair.

pub mod dsl;
pub mod engine;
pub mod load;
pub mod model;

use crate::error::{Error, Result};
use crate::source::SourceFile;
use crate::verdict::Verdict;
use dsl::{Predicate, Template};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// The rule files built into the binary.
pub const BUILTIN: &[(&str, &str)] = &[
    ("rules/query.yaml", include_str!("../../rules/query.yaml")),
    (
        "rules/group_window_aggregate.yaml",
        include_str!("../../rules/group_window_aggregate.yaml"),
    ),
    (
        "rules/group_aggregate.yaml",
        include_str!("../../rules/group_aggregate.yaml"),
    ),
    (
        "rules/window_aggregate.yaml",
        include_str!("../../rules/window_aggregate.yaml"),
    ),
    (
        "rules/over_aggregate.yaml",
        include_str!("../../rules/over_aggregate.yaml"),
    ),
    (
        "rules/deduplicate.yaml",
        include_str!("../../rules/deduplicate.yaml"),
    ),
    ("rules/top_n.yaml", include_str!("../../rules/top_n.yaml")),
    (
        "rules/window_top_n.yaml",
        include_str!("../../rules/window_top_n.yaml"),
    ),
    ("rules/join.yaml", include_str!("../../rules/join.yaml")),
    (
        "rules/interval_join.yaml",
        include_str!("../../rules/interval_join.yaml"),
    ),
    (
        "rules/temporal_join.yaml",
        include_str!("../../rules/temporal_join.yaml"),
    ),
    (
        "rules/lookup_join.yaml",
        include_str!("../../rules/lookup_join.yaml"),
    ),
    (
        "rules/match_recognize.yaml",
        include_str!("../../rules/match_recognize.yaml"),
    ),
    (
        "rules/temporal_sort.yaml",
        include_str!("../../rules/temporal_sort.yaml"),
    ),
    ("rules/limit.yaml", include_str!("../../rules/limit.yaml")),
    ("rules/opaque.yaml", include_str!("../../rules/opaque.yaml")),
];

#[derive(Debug, Clone)]
pub enum RuleVerdict {
    One(Verdict),
    /// The verdict depends on a fact's value (the deduplication mode matrix).
    ByMode {
        path: String,
        verdicts: BTreeMap<String, Verdict>,
    },
}

#[derive(Debug, Clone)]
pub struct Rule {
    pub id: String,
    pub operator: String,
    pub change: String,
    pub when: Predicate,
    pub verdict: RuleVerdict,
    pub message: Template,
    pub rationale: Option<String>,
    pub source: Option<String>,
    pub derived: Option<String>,
    pub example: Option<String>,
    pub file: String,
}

impl Rule {
    /// The verdict for these facts; a mode the rule does not list is `unknown`.
    pub fn verdict_for(&self, facts: &Value) -> Verdict {
        match &self.verdict {
            RuleVerdict::One(v) => *v,
            RuleVerdict::ByMode { path, verdicts } => {
                let mode = lookup(facts, path).and_then(Value::as_str).unwrap_or("");
                verdicts.get(mode).copied().unwrap_or(Verdict::Unknown)
            }
        }
    }

    pub fn verdict_text(&self) -> String {
        match &self.verdict {
            RuleVerdict::One(v) => v.name().to_string(),
            RuleVerdict::ByMode { path, verdicts } => {
                let parts: Vec<String> =
                    verdicts.iter().map(|(m, v)| format!("{m}: {v}")).collect();
                format!("by {path}: {}", parts.join(", "))
            }
        }
    }
}

pub fn lookup<'v>(facts: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.').try_fold(facts, |v, part| v.get(part))
}

#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    pub rules: Vec<Rule>,
    /// Per operator (or `query`): change kinds and their detecting predicates.
    pub changes: BTreeMap<String, Vec<(String, Predicate)>>,
}

impl RuleSet {
    /// Adds a rule; a rule with the same id replaces the earlier one in place.
    pub fn insert(&mut self, rule: Rule) {
        match self.rules.iter_mut().find(|r| r.id == rule.id) {
            Some(existing) => *existing = rule,
            None => self.rules.push(rule),
        }
    }

    pub fn for_operator<'a>(&'a self, operator: &'a str) -> impl Iterator<Item = &'a Rule> + 'a {
        self.rules.iter().filter(move |r| r.operator == operator)
    }

    pub fn get(&self, id: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.id == id)
    }

    /// The built-in rules, then every `*.yaml` / `*.yml` of each directory, in name order.
    pub fn load(dirs: &[impl AsRef<Path>]) -> Result<RuleSet> {
        let mut set = RuleSet::default();
        let mut errors = Vec::new();
        for (name, text) in BUILTIN {
            if let Err(e) = load::load_file(&SourceFile::new(*name, *text), &mut set) {
                errors.push(e);
            }
        }
        for dir in dirs {
            let dir = dir.as_ref();
            let entries = std::fs::read_dir(dir).map_err(|e| Error::Io {
                path: dir.display().to_string(),
                reason: e.to_string(),
            })?;
            let mut paths: Vec<_> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
                .collect();
            paths.sort();
            for path in paths {
                let text = crate::input::read_text(&path)?;
                if let Err(e) =
                    load::load_file(&SourceFile::new(path.display().to_string(), text), &mut set)
                {
                    errors.push(e);
                }
            }
        }
        match Error::collect("rule files", errors) {
            Some(e) => Err(e),
            None => Ok(set),
        }
    }
}
