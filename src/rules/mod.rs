//! Compatibility rules: YAML files keyed by operator kind and change kind, each rule a predicate
//! of the DSL over the facts of an operator pair.

pub mod complementary;
pub mod dsl;
pub mod engine;
pub mod facts_doc;
pub mod items;
pub mod load;
pub mod model;
pub mod profile;
pub mod rules_doc;
pub mod shape;
pub mod variants;

use crate::error::{Error, Result};
use crate::source::SourceFile;
use crate::verdict::Verdict;
use dsl::{Predicate, Template};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

pub use crate::yaml::BUILTIN;

/// The built-in rule files as `build.rs` read them into the rule-file model ([`model::RuleFile`]),
/// as JSON: (path, JSON). Deserializing these is what a check costs instead of parsing the YAML.
const PRECOMPILED: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/builtin_rules_json.rs"));

/// A value given once, or chosen by the value of a fact (the deduplication mode matrix).
#[derive(Debug, Clone, PartialEq)]
pub enum ByMode<T> {
    One(T),
    Map {
        path: String,
        values: BTreeMap<String, T>,
    },
}

impl<T: Copy> ByMode<T> {
    /// The value for these facts; `None` for a mode the map does not list.
    pub fn for_facts(&self, facts: &Value) -> Option<T> {
        match self {
            ByMode::One(v) => Some(*v),
            ByMode::Map { path, values } => {
                // Any scalar fact selects: a string by itself, a boolean or number by its text.
                let mode = match lookup(facts, path) {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Bool(b)) => b.to_string(),
                    Some(Value::Number(n)) => n.to_string(),
                    _ => String::new(),
                };
                values.get(&mode).copied()
            }
        }
    }

    pub fn map<U>(&self, f: impl Fn(T) -> U) -> ByMode<U> {
        match self {
            ByMode::One(v) => ByMode::One(f(*v)),
            ByMode::Map { path, values } => ByMode::Map {
                path: path.clone(),
                values: values.iter().map(|(m, v)| (m.clone(), f(*v))).collect(),
            },
        }
    }

    /// `value`, or `by path: mode: value, ...`.
    pub fn text(&self, name: impl Fn(T) -> &'static str) -> String {
        match self {
            ByMode::One(v) => name(*v).to_string(),
            ByMode::Map { path, values } => {
                let parts: Vec<String> = values
                    .iter()
                    .map(|(m, v)| format!("{m}: {}", name(*v)))
                    .collect();
                format!("by {path}: {}", parts.join(", "))
            }
        }
    }
}

/// A rule's verdict: one, or one per mode.
pub type RuleVerdict = ByMode<Verdict>;
/// A rule's failure mode: one, or one per mode.
pub type RuleFailureMode = ByMode<FailureMode>;

#[derive(Debug, Clone)]
pub struct Rule {
    pub id: String,
    /// Former ids of the rule: cases and overrides that name them still find it.
    pub aliases: Vec<String>,
    pub operator: String,
    pub change: String,
    pub when: Predicate,
    pub verdict: RuleVerdict,
    pub message: Template,
    /// One line saying what the rule detects.
    pub description: Option<String>,
    /// Why the state behaves so.
    pub rationale: Option<String>,
    /// The public page or restore-lab pair the rule rests on.
    pub reference: Option<String>,
    pub source: Option<String>,
    pub derived: Option<String>,
    pub example: Option<String>,
    pub failure_mode: Option<RuleFailureMode>,
    /// Set for a variant of a rule written with `variants:`: the idea it is one outcome of.
    pub variant_of: Option<VariantOf>,
    pub file: String,
    /// The profile (engine) whose files define the rule.
    pub profile: String,
}

/// Where a rule stands among the variants of one rule written with `variants:`.
#[derive(Debug, Clone, PartialEq)]
pub struct VariantOf {
    /// The ids of every variant, in the order they are tried.
    pub ids: Vec<String>,
    /// The variant's own condition as written; `None` for the last: no earlier variant applies.
    pub when: Option<String>,
}

impl VariantOf {
    /// `a, b (this one), c: this one applies when ...` for the rule `id`.
    pub fn text(&self, id: &str) -> String {
        let ids: Vec<String> = self
            .ids
            .iter()
            .map(|i| match i == id {
                true => format!("{i} (this one)"),
                false => i.clone(),
            })
            .collect();
        let applies = match &self.when {
            Some(when) => format!("when {when}"),
            None => "when no earlier one does".to_string(),
        };
        format!(
            "{}; tried in order, this one applies {applies}",
            ids.join(", ")
        )
    }
}

/// How a restore goes wrong, for engines that do not migrate state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureMode {
    /// The job cannot start from the savepoint.
    RestoreFails,
    /// It starts, and results mix old and new meanings or are misassigned.
    SilentlyWrong,
    /// It starts without (some of) the old state.
    StateDropped,
}

impl FailureMode {
    pub const ALL: [FailureMode; 3] = [
        FailureMode::RestoreFails,
        FailureMode::SilentlyWrong,
        FailureMode::StateDropped,
    ];

    pub fn name(self) -> &'static str {
        match self {
            FailureMode::RestoreFails => "restore_fails",
            FailureMode::SilentlyWrong => "silently_wrong",
            FailureMode::StateDropped => "state_dropped",
        }
    }

    pub fn from_name(name: &str) -> Option<FailureMode> {
        FailureMode::ALL.into_iter().find(|m| m.name() == name)
    }
}

impl Rule {
    /// The verdict for these facts; a mode the rule does not list is `unknown`.
    pub fn verdict_for(&self, facts: &Value) -> Verdict {
        self.verdict.for_facts(facts).unwrap_or(Verdict::Unknown)
    }

    /// The failure mode for these facts, when the rule names one.
    pub fn failure_mode_for(&self, facts: &Value) -> Option<FailureMode> {
        self.failure_mode.as_ref()?.for_facts(facts)
    }

    pub fn verdict_text(&self) -> String {
        self.verdict.text(Verdict::name)
    }
}

/// The kinds whose rules every check evaluates, whatever operators its plans have: the
/// whole query, its source tables, and the changed configuration keys and table options.
pub const ALWAYS_LOADED: [&str; 4] = ["query", "source", "config_key", "table_option"];

/// The `operator:` of a rule file, read from its text without parsing it (a line at the
/// file's top level); `None` when there is no such line, and then the file is loaded.
fn operator_of(text: &str) -> Option<&str> {
    let value = crate::yaml::top_level_line(text, "operator:")?;
    let value = value.split('#').next()?.trim().trim_matches(['"', '\'']);
    (!value.is_empty()).then_some(value)
}

pub fn lookup<'v>(facts: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.').try_fold(facts, |v, part| v.get(part))
}

#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    /// The engine profile the rules are for.
    pub engine: String,
    /// The user's rule directories loaded on top of the profile.
    pub extra_dirs: Vec<std::path::PathBuf>,
    pub rules: Vec<Rule>,
    /// Per operator (or `query`): change kinds and their detecting predicates.
    pub changes: BTreeMap<String, Vec<(String, Predicate)>>,
    /// What each connector's WITH options mean (built in, then the user's connector tables).
    pub connectors: crate::catalog::connectors::Connectors,
    /// The kinds whose rules were loaded, when not all ([`RuleSet::load_for_kinds`]).
    pub only_kinds: Option<BTreeSet<String>>,
    /// Built-in rules only, for one check: each rule's `when` and message are parsed when the
    /// rule is first evaluated, not at load ([`dsl::Predicate::deferred`]).
    defer_compiling: bool,
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

    /// The rule with this id, or that was known by it (an alias).
    pub fn get(&self, id: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.id == id).or_else(|| {
            self.rules
                .iter()
                .find(|r| r.aliases.iter().any(|a| a == id))
        })
    }

    /// The default engine's rules, then every `*.yaml` / `*.yml` of each directory.
    pub fn load(dirs: &[impl AsRef<Path>]) -> Result<RuleSet> {
        RuleSet::load_engine(profile::DEFAULT_ENGINE, dirs)
    }

    /// An engine profile's rules (with those of the profiles it extends), then every
    /// `*.yaml` / `*.yml` of each directory, in name order; errors of every file at once.
    pub fn load_engine(engine: &str, dirs: &[impl AsRef<Path>]) -> Result<RuleSet> {
        RuleSet::load_filtered(engine, dirs, None)
    }

    /// The rules a check of plans with these operator kinds can fire (and those of
    /// [`ALWAYS_LOADED`]): the built-in rules of other kinds are neither compiled nor
    /// type-checked, which is most of a small check's cost. With rule directories every rule
    /// is loaded, so that the user's files are validated whole.
    pub fn load_for_kinds(
        engine: &str,
        dirs: &[impl AsRef<Path>],
        kinds: &BTreeSet<&str>,
    ) -> Result<RuleSet> {
        if !dirs.is_empty() {
            return RuleSet::load_engine(engine, dirs);
        }
        let mut kinds = kinds.clone();
        kinds.extend(ALWAYS_LOADED);
        let mut set = RuleSet::load_filtered(engine, dirs, Some(&kinds))?;
        set.only_kinds = Some(kinds.iter().map(|k| k.to_string()).collect());
        Ok(set)
    }

    /// Whether the rules of this kind were loaded.
    pub fn has_kind(&self, kind: &str) -> bool {
        self.only_kinds.as_ref().is_none_or(|k| k.contains(kind))
    }

    fn load_filtered(
        engine: &str,
        dirs: &[impl AsRef<Path>],
        operators: Option<&BTreeSet<&str>>,
    ) -> Result<RuleSet> {
        let mut set = RuleSet {
            engine: engine.to_string(),
            extra_dirs: dirs.iter().map(|d| d.as_ref().to_path_buf()).collect(),
            connectors: crate::catalog::connectors::builtin().clone(),
            defer_compiling: operators.is_some() && dirs.is_empty(),
            ..Default::default()
        };
        let mut errors = Vec::new();
        let profiles = profile::builtin()?;
        let wanted = |text: &str| match (operators, operator_of(text)) {
            (Some(operators), Some(operator)) => operators.contains(operator),
            _ => true,
        };
        for profile in profile::chain(&profiles, engine)? {
            let before: Vec<String> = set.rules.iter().map(|r| r.id.clone()).collect();
            // Family files after the operator files: the kinds' change kinds are declared
            // by then, and the family's rules follow each kind's own.
            let files = profile
                .files
                .iter()
                .filter(|(_, text)| !load::is_family(text))
                .chain(
                    profile
                        .files
                        .iter()
                        .filter(|(_, text)| load::is_family(text)),
                );
            for (name, text) in files {
                if !wanted(text) {
                    continue;
                }
                if let Err(e) = load::load_builtin(name, text, operators, &mut set) {
                    errors.push(e);
                }
            }
            for rule in set.rules.iter_mut() {
                if profile.files.iter().any(|(name, _)| *name == rule.file) {
                    rule.profile = profile.name.clone();
                } else if before.contains(&rule.id) {
                    profile.inherit(rule);
                }
            }
        }
        for dir in dirs {
            let paths = crate::input::rule_files(dir.as_ref())?;
            for path in paths {
                let text = crate::input::read_text(&path)?;
                let name = path.display().to_string();
                if crate::catalog::config::is_config_file(&text) {
                    // The configuration is read before the rules load: its key table is built in.
                    let file = SourceFile::new(name, text);
                    errors.push(Error::located(
                        "rules",
                        &file,
                        crate::source::ByteSpan::new(0, 0),
                        "a table of configuration keys cannot be given with --rules",
                        "here",
                        Some(format!(
                            "the key table is built in ({})",
                            crate::catalog::config::KEYS_FILE
                        )),
                    ));
                    continue;
                }
                if crate::catalog::connectors::is_connector_file(&text) {
                    if let Err(e) = set.connectors.load(&SourceFile::new(name, text)) {
                        errors.push(e);
                    }
                    continue;
                }
                if let Err(e) = load::load_file(&SourceFile::new(name.clone(), text), &mut set) {
                    errors.push(e);
                }
                for rule in set.rules.iter_mut().filter(|r| r.file == name) {
                    rule.profile = "user".into();
                }
            }
        }
        match Error::collect("rule files", errors) {
            Some(e) => Err(e),
            None => Ok(set),
        }
    }
}
