//! Engine profiles: `rules/<profile>/profile.yaml` and that folder's rule files. A profile may
//! extend another: it starts from the other's rules, overrides some by id, and maps the
//! verdicts of those it inherits (e.g. what the base engine migrates, this one cannot).

use super::load::parse_yaml;
use super::model::ProfileDef;
use super::{ByMode, FailureMode, Rule, BUILTIN};
use crate::error::{Error, Result};
use crate::source::{ByteSpan, SourceFile};
use crate::verdict::Verdict;
use std::collections::BTreeMap;

/// The engine used when none is named: Alibaba's managed engine (VVR).
pub const DEFAULT_ENGINE: &str = "vvr";

#[derive(Debug, Clone)]
pub struct Profile {
    pub name: String,
    pub description: String,
    pub extends: Option<String>,
    /// Verdict of an inherited rule here, by its verdict in the base profile.
    pub inherited: BTreeMap<Verdict, Verdict>,
    pub inherited_reason: Option<String>,
    /// The failure mode of an inherited `incompatible` rule that names none.
    pub inherited_failure_mode: Option<FailureMode>,
    /// The profile's rule files: (path, text).
    pub files: Vec<(&'static str, &'static str)>,
}

impl Profile {
    /// Adapts a rule of the base profile that this profile does not override.
    pub fn inherit(&self, rule: &mut Rule) {
        let map = |v: Verdict| self.inherited.get(&v).copied().unwrap_or(v);
        let before = rule.verdict.clone();
        rule.verdict = rule.verdict.map(map);
        if before != rule.verdict {
            rule.derived = Some(match &self.inherited_reason {
                Some(reason) => format!(
                    "{reason} (the {} rule says {})",
                    rule.profile,
                    before.text(Verdict::name)
                ),
                None => format!("inherited from {} with another verdict", rule.profile),
            });
        }
        if let (Some(mode), None) = (self.inherited_failure_mode, &rule.failure_mode) {
            rule.failure_mode = match &rule.verdict {
                ByMode::One(Verdict::Incompatible) => Some(ByMode::One(mode)),
                ByMode::Map { path, values } => {
                    let modes: BTreeMap<String, FailureMode> = values
                        .iter()
                        .filter(|(_, v)| **v == Verdict::Incompatible)
                        .map(|(m, _)| (m.clone(), mode))
                        .collect();
                    (!modes.is_empty()).then(|| ByMode::Map {
                        path: path.clone(),
                        values: modes,
                    })
                }
                ByMode::One(_) => None,
            };
            if rule.failure_mode.is_some() {
                let assumed = format!(
                    "on {} the failure mode {} is assumed, not measured: the more severe of a failed restore and wrong numbers",
                    self.name,
                    mode.name()
                );
                rule.derived = Some(match rule.derived.take() {
                    Some(why) => format!("{why}; {assumed}"),
                    None => assumed,
                });
            }
        }
    }
}

/// The profile folder of a built-in file: `rules/<profile>/<file>.yaml`.
fn folder(path: &str) -> Option<&str> {
    let mut parts = path.split('/');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some("rules"), Some(profile), Some(_), None) => Some(profile),
        _ => None,
    }
}

/// The built-in profiles, by name.
pub fn builtin() -> Result<BTreeMap<String, Profile>> {
    let mut profiles = BTreeMap::new();
    let mut errors = Vec::new();
    for (path, text) in BUILTIN {
        if !path.ends_with("/profile.yaml") {
            continue;
        }
        let file = SourceFile::new(*path, *text);
        match profile_of(&file) {
            Ok(profile) => {
                profiles.insert(profile.name.clone(), profile);
            }
            Err(e) => errors.push(e),
        }
    }
    if let Some(e) = Error::collect("profiles", errors) {
        return Err(e);
    }
    Ok(profiles)
}

fn profile_of(file: &SourceFile) -> Result<Profile> {
    let def: ProfileDef = parse_yaml(file, "profile")?;
    let name = def.profile.value.clone();
    if folder(&file.name) != Some(name.as_str()) {
        return Err(Error::located(
            "profile",
            file,
            ByteSpan::new(0, file.text.len().min(1)),
            format!("profile `{name}` must live in rules/{name}/"),
            "here",
            None,
        ));
    }
    let mut inherited = BTreeMap::new();
    for (from, to) in &def.inherited {
        let parse = |v: &str| {
            Verdict::from_name(v).ok_or_else(|| {
                Error::located(
                    "profile",
                    file,
                    ByteSpan::new(0, file.text.len().min(1)),
                    format!("unknown verdict `{v}` in `inherited`"),
                    "here",
                    Some(
                        "one of: fully_compatible, partially_compatible, unknown, incompatible"
                            .into(),
                    ),
                )
            })
        };
        inherited.insert(parse(from)?, parse(&to.value)?);
    }
    let files = BUILTIN
        .iter()
        .filter(|(path, _)| folder(path) == Some(name.as_str()) && !path.ends_with("/profile.yaml"))
        .copied()
        .collect();
    let inherited_failure_mode = match &def.inherited_failure_mode {
        None => None,
        Some(mode) => Some(FailureMode::from_name(&mode.value).ok_or_else(|| {
            Error::located(
                "profile",
                file,
                ByteSpan::new(0, file.text.len().min(1)),
                format!(
                    "unknown failure mode `{}` in `inherited_failure_mode`",
                    mode.value
                ),
                "here",
                Some("one of: restore_fails, silently_wrong, state_dropped".into()),
            )
        })?),
    };
    Ok(Profile {
        name,
        description: def.description,
        extends: def.extends.map(|e| e.value),
        inherited,
        inherited_reason: def.inherited_reason,
        inherited_failure_mode,
        files,
    })
}

/// The profiles to load for `engine`, the most basic first.
pub fn chain<'p>(
    profiles: &'p BTreeMap<String, Profile>,
    engine: &str,
) -> Result<Vec<&'p Profile>> {
    let mut chain: Vec<&Profile> = Vec::new();
    let mut name = engine.to_string();
    loop {
        let Some(profile) = profiles.get(&name) else {
            let known: Vec<&str> = profiles.keys().map(String::as_str).collect();
            return Err(Error::Usage(format!(
                "unknown engine `{name}`: the profiles are {}",
                known.join(", ")
            )));
        };
        if chain.iter().any(|p| p.name == profile.name) {
            return Err(Error::Usage(format!("profile `{name}` extends itself")));
        }
        chain.push(profile);
        match &profile.extends {
            Some(base) => name = base.clone(),
            None => break,
        }
    }
    chain.reverse();
    Ok(chain)
}
