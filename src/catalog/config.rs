//! Job configuration from `SET` statements and `--set`, in order, the later value winning.

use crate::source::ByteSpan;
use crate::suggest::edit_distance;
use std::collections::BTreeMap;

/// Where a configuration value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    Script(ByteSpan),
    CommandLine,
}

#[derive(Debug, Clone, Default)]
pub struct Config {
    values: BTreeMap<String, (String, Origin)>,
}

/// Keys the tool knows, with their defaults where they matter to state compatibility.
pub const KNOWN_KEYS: &[(&str, Option<&str>)] = &[
    ("table.exec.emit.early-fire.enabled", Some("false")),
    ("table.exec.emit.early-fire.delay", None),
    ("table.exec.emit.late-fire.enabled", Some("false")),
    ("table.exec.emit.late-fire.delay", None),
    ("table.exec.emit.allow-lateness", None),
    (
        "table.optimizer.state-compatibility.ignore-filter",
        Some("false"),
    ),
    (
        "table.optimizer.state-compatibility.ignore-sink",
        Some("true"),
    ),
    (
        "table.optimizer.non-deterministic-update.strategy",
        Some("IGNORE"),
    ),
    ("table.optimizer.distinct-agg.split.enabled", Some("false")),
    ("table.optimizer.distinct-agg.split.bucket-num", None),
    ("table.optimizer.agg-phase-strategy", Some("AUTO")),
    ("table.optimizer.incremental-agg-enabled", None),
    ("table.exec.mini-batch.enabled", Some("false")),
    ("table.exec.mini-batch.allow-latency", None),
    ("table.exec.mini-batch.size", None),
    ("table.exec.state.ttl", None),
    ("table.exec.source.idle-timeout", None),
    ("table.exec.sink.not-null-enforcer", None),
    ("table.exec.sink.upsert-materialize", None),
    ("table.exec.async-lookup.buffer-capacity", None),
    ("table.exec.async-lookup.timeout", None),
    ("table.exec.resource.default-parallelism", None),
    ("table.local-time-zone", None),
    ("table.dynamic-table-options.enabled", None),
    (
        "table.exec.deduplicate.insert-update-after-sensitive-enabled",
        None,
    ),
    (
        "table.exec.deduplicate.mini-batch.compact-changes-enabled",
        None,
    ),
    ("table.optimizer.reuse-sub-plan-enabled", None),
    ("table.optimizer.reuse-source-enabled", None),
    ("table.exec.uid.generation", Some("PLAN_ONLY")),
    ("table.exec.uid.format", None),
    ("execution.state-recovery.path", None),
    (
        "execution.state-recovery.ignore-unclaimed-state",
        Some("false"),
    ),
    ("execution.savepoint.ignore-unclaimed-state", Some("false")),
    ("engine.version", None),
    ("pipeline.name", None),
    ("parallelism.default", None),
    ("execution.checkpointing.interval", None),
    ("execution.runtime-mode", None),
    ("state.backend.type", None),
];

impl Config {
    pub fn set(&mut self, key: &str, value: &str, origin: Origin) {
        self.values
            .insert(key.to_string(), (value.to_string(), origin));
    }

    pub fn reset(&mut self, key: Option<&str>) {
        match key {
            Some(key) => {
                self.values.remove(key);
            }
            None => self.values.clear(),
        }
    }

    /// The value in force, or the known default.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(|(v, _)| v.as_str()).or_else(|| {
            KNOWN_KEYS
                .iter()
                .find(|(k, _)| *k == key)
                .and_then(|(_, d)| *d)
        })
    }

    pub fn is_true(&self, key: &str) -> bool {
        self.get(key)
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
    }

    pub fn origin(&self, key: &str) -> Option<&Origin> {
        self.values.get(key).map(|(_, o)| o)
    }

    pub fn entries(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values
            .iter()
            .map(|(k, (v, _))| (k.as_str(), v.as_str()))
    }
}

/// The known key a mistyped key most likely means, if any.
pub fn likely_typo(key: &str) -> Option<&'static str> {
    if KNOWN_KEYS.iter().any(|(k, _)| *k == key) {
        return None;
    }
    KNOWN_KEYS
        .iter()
        .map(|(k, _)| (*k, edit_distance(key, k)))
        .filter(|(k, d)| *d <= 3.max(k.len() / 12))
        .min_by_key(|(_, d)| *d)
        .map(|(k, _)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_values_win_and_defaults_apply() {
        let mut config = Config::default();
        assert!(!config.is_true("table.optimizer.state-compatibility.ignore-filter"));
        assert!(config.is_true("table.optimizer.state-compatibility.ignore-sink"));
        config.set(
            "table.exec.emit.early-fire.enabled",
            "true",
            Origin::CommandLine,
        );
        config.set(
            "table.exec.emit.early-fire.enabled",
            "false",
            Origin::CommandLine,
        );
        assert!(!config.is_true("table.exec.emit.early-fire.enabled"));
    }

    #[test]
    fn typos_of_known_keys_are_recognized() {
        assert_eq!(
            likely_typo("able.exec.emit.late-fire.delay"),
            Some("table.exec.emit.late-fire.delay")
        );
        assert_eq!(likely_typo("table.exec.emit.late-fire.delay"), None);
        assert_eq!(likely_typo("my.own.key"), None);
    }
}

/// Whether the tool knows the key (a key of Flink it has a default or a meaning for).
pub fn is_known(key: &str) -> bool {
    KNOWN_KEYS.iter().any(|(k, _)| *k == key)
}

/// One configuration key whose value in force differs between two jobs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyChange {
    /// The key as written, or the known key a mistyped one evidently means.
    pub key: String,
    pub written: String,
    pub old: Option<String>,
    pub new: Option<String>,
}

/// Every configuration key whose value in force differs between two jobs (sorted). Which of
/// them change nothing is for the rules to say (`config_key` rules).
pub fn changes(old: &Config, new: &Config) -> Vec<KeyChange> {
    let mut keys: Vec<&String> = old.values.keys().chain(new.values.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| old.get(k) != new.get(k))
        .map(|k| KeyChange {
            // A mistyped key is read as the key it evidently means (the script gets a warning).
            key: likely_typo(k).unwrap_or(k).to_string(),
            written: k.clone(),
            old: old.get(k).map(str::to_string),
            new: new.get(k).map(str::to_string),
        })
        .collect()
}

/// The keys of [`changes`], as written.
pub fn changed_keys(old: &Config, new: &Config) -> Vec<String> {
    changes(old, new).into_iter().map(|c| c.written).collect()
}

#[cfg(test)]
mod change_tests {
    use super::*;

    #[test]
    fn only_effective_changes_count() {
        let mut old = Config::default();
        let mut new = Config::default();
        new.set(
            "table.exec.mini-batch.enabled",
            "false",
            Origin::CommandLine,
        );
        new.set("pipeline.name", "renamed", Origin::CommandLine);
        assert_eq!(
            changed_keys(&old, &new),
            vec!["pipeline.name"],
            "an explicit default is no change; a neutral key is one, for the rules to judge"
        );
        new.reset(Some("pipeline.name"));
        old.set(
            "table.optimizer.distinct-agg.split.enabled",
            "true",
            Origin::CommandLine,
        );
        assert_eq!(
            changed_keys(&old, &new),
            vec!["table.optimizer.distinct-agg.split.enabled"]
        );
    }
}
