//! Rule files as written in YAML, with the position of every value for diagnostics.

use serde::{Deserialize, Serialize};
use serde_saphyr::Spanned;
use std::collections::BTreeMap;

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RuleFile {
    /// An operator kind (`group_window_aggregate`, ...) or `query` for whole-query rules.
    #[serde(default)]
    pub operator: Option<Spanned<String>>,
    /// A rule family instead of one operator: each operator kind it names, with the values of
    /// the `${name}` variables its rules use (e.g. `prefix: ga`). Every rule is compiled once
    /// per kind, its id and texts with the kind's values (`${kind}` is the kind itself).
    #[serde(default)]
    pub family: Option<Spanned<BTreeMap<String, BTreeMap<String, String>>>>,
    /// The fact whose value selects a verdict when a rule's verdict is a map (e.g. `old.mode`).
    #[serde(default)]
    pub verdict_by: Option<Spanned<String>>,
    /// Change kinds: name → predicate saying whether this kind of change happened.
    #[serde(default)]
    pub changes: BTreeMap<String, Spanned<String>>,
    #[serde(default)]
    pub rules: Vec<RuleDef>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RuleDef {
    /// Absent in a rule with `variants:` (each variant names its own id); required in a variant.
    #[serde(default)]
    pub id: Option<Spanned<String>>,
    /// Former ids of the rule (kept when a rule is renamed: cases and overrides name them).
    #[serde(default)]
    pub aliases: Vec<String>,
    /// A change kind of this file's `changes`, or `any` (the operator changed in any way).
    /// `change`, `when`, `verdict` and `message` may be left out when a rule with this id is
    /// already loaded (an engine profile adjusting a base rule): they are kept from it.
    #[serde(default)]
    pub change: Option<Spanned<String>>,
    #[serde(default)]
    pub when: Option<Spanned<String>>,
    /// The fact whose value selects this rule's verdict when it is a map (any fact: a string,
    /// a boolean, a number); the file's `verdict_by` when left out.
    #[serde(default)]
    pub verdict_by: Option<Spanned<String>>,
    #[serde(default)]
    pub verdict: Option<Spanned<VerdictDef>>,
    #[serde(default)]
    pub message: Option<Spanned<String>>,
    /// One line saying what the rule detects (shown by `rules show` and in docs/rules.md).
    #[serde(default)]
    pub description: Option<String>,
    /// Why the state behaves so.
    #[serde(default)]
    pub rationale: Option<String>,
    /// A public page stating the behaviour (the vendor's documentation), or the restore-lab
    /// pair that measured it (`lab/restore/pairs/...`).
    #[serde(default)]
    pub reference: Option<String>,
    #[serde(default)]
    pub source: Option<String>,
    /// Set when the documentation does not state the rule: the one-line reason it holds.
    #[serde(default)]
    pub derived: Option<String>,
    /// A minimal `old -> new` change, or the case file (`cases/...yaml`) that shows it.
    #[serde(default)]
    pub example: Option<String>,
    /// How the restore goes wrong on this engine: `restore_fails`, `silently_wrong` or
    /// `state_dropped` (or one per mode, like the verdict).
    #[serde(default)]
    pub failure_mode: Option<Spanned<VerdictDef>>,
    /// One idea whose id, verdict and message follow the facts: variants tried in order, the
    /// first whose `when` holds (with the rule's own `when`) gives the finding; the last may
    /// leave out `when` (otherwise). Each variant is loaded as a rule of its own id, with the
    /// rule's fields it does not restate. A variant is read as a rule: its `id` is required,
    /// and the keys its rule keeps (`change`, `variants`) are reported where a variant gives
    /// them (one struct, so the two cannot drift apart).
    #[serde(default)]
    pub variants: Option<Spanned<Vec<RuleDef>>>,
}

/// `rules/<profile>/profile.yaml`: an engine's rule set.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileDef {
    pub profile: Spanned<String>,
    pub description: String,
    /// The profile whose rules this one starts from; its own rules override them by id.
    #[serde(default)]
    pub extends: Option<Spanned<String>>,
    /// The verdict an inherited (not overridden) rule takes here, by its verdict in the base.
    #[serde(default)]
    pub inherited: BTreeMap<String, Spanned<String>>,
    /// Why inherited rules are mapped (shown as the rule's derivation).
    #[serde(default)]
    pub inherited_reason: Option<String>,
    /// The failure mode an inherited rule that ends `incompatible` names when it names none.
    #[serde(default)]
    pub inherited_failure_mode: Option<Spanned<String>>,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum VerdictDef {
    One(String),
    ByMode(BTreeMap<String, String>),
}
