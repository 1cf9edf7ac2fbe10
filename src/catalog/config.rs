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

/// Where the table of known keys is (built in): `rules/config/keys.yaml`.
pub const KEYS_FILE: &str = "rules/config/keys.yaml";

/// The table of known keys as written (see `rules/config/keys.yaml`).
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct KeysFile {
    config_keys: Vec<KeyDef>,
}

/// One key the tool knows: how its value is read, and its default where it matters to state.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyDef {
    pub key: String,
    #[serde(rename = "type")]
    pub kind: ValueKind,
    #[serde(default)]
    pub default: Option<String>,
}

/// How a configuration value is read, so that two spellings of one value compare equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ValueKind {
    Boolean,
    Duration,
    Enum,
    Integer,
    String,
}

/// Whether a YAML file is the table of configuration keys rather than a rule file.
pub fn is_config_file(text: &str) -> bool {
    crate::yaml::top_level_line(text, "config_keys:").is_some()
}

/// The table of known keys as `build.rs` read it from its YAML, as JSON: (path, JSON).
const PRECOMPILED: &[(&str, &str)] =
    include!(concat!(env!("OUT_DIR"), "/builtin_config_keys_json.rs"));

/// The known keys, from the built-in table (empty if it does not read: a unit test checks it
/// does). Read from the JSON `build.rs` made of it, from the YAML when there is none.
pub fn known_keys() -> &'static [KeyDef] {
    static KEYS: std::sync::OnceLock<Vec<KeyDef>> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| {
        let precompiled = PRECOMPILED
            .iter()
            .find(|(path, _)| *path == KEYS_FILE)
            .and_then(|(_, json)| serde_json::from_str::<KeysFile>(json).ok());
        precompiled
            .or_else(keys_from_yaml)
            .map(|file| file.config_keys)
            .unwrap_or_default()
    })
}

fn keys_from_yaml() -> Option<KeysFile> {
    crate::yaml::BUILTIN
        .iter()
        .find(|(path, _)| *path == KEYS_FILE)
        .and_then(|(path, text)| {
            crate::yaml::parse_yaml::<KeysFile>(
                &crate::source::SourceFile::new(*path, *text),
                "configuration keys",
            )
            .ok()
        })
}

fn key_def(key: &str) -> Option<&'static KeyDef> {
    known_keys().iter().find(|k| k.key == key)
}

/// A value as its key's type reads it: one text per meaning (`0 ms`, `0` and `0 s` are `0 ms`;
/// `FALSE` is `false`). A value that does not read as its type is kept as written, trimmed.
pub fn canonical_value(key: &str, value: &str) -> String {
    let trimmed = value.trim();
    let Some(def) = key_def(key) else {
        return trimmed.to_string();
    };
    match def.kind {
        ValueKind::Boolean if trimmed.eq_ignore_ascii_case("true") => "true".into(),
        ValueKind::Boolean if trimmed.eq_ignore_ascii_case("false") => "false".into(),
        ValueKind::Duration => super::duration::millis(trimmed)
            .map_or_else(|| trimmed.to_string(), |ms| format!("{ms} ms")),
        ValueKind::Enum => trimmed.to_uppercase(),
        ValueKind::Integer => trimmed
            .parse::<i64>()
            .map_or_else(|_| trimmed.to_string(), |n| n.to_string()),
        _ => trimmed.to_string(),
    }
}

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
        self.values
            .get(key)
            .map(|(v, _)| v.as_str())
            .or_else(|| key_def(key).and_then(|k| k.default.as_deref()))
    }

    pub fn is_true(&self, key: &str) -> bool {
        self.get(key)
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
    }

    /// Whether two configurations set the same keys to the same values, from the same kind of
    /// place (the script or the command line), wherever the scripts write them.
    pub fn same_values(&self, other: &Config) -> bool {
        self.values.len() == other.values.len()
            && self.values.iter().zip(&other.values).all(|(a, b)| {
                let ((key_a, (value_a, origin_a)), (key_b, (value_b, origin_b))) = (a, b);
                key_a == key_b
                    && value_a == value_b
                    && matches!(origin_a, Origin::Script(_))
                        == matches!(origin_b, Origin::Script(_))
            })
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
    if is_known(key) {
        return None;
    }
    known_keys()
        .iter()
        .map(|k| (k.key.as_str(), edit_distance(key, &k.key)))
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

    #[test]
    fn the_builtin_key_table_reads() {
        assert!(known_keys().len() >= 30, "rules/config/keys.yaml reads");
        assert_eq!(
            Config::default().get("table.exec.state.ttl"),
            Some("0 ms"),
            "Flink's default"
        );
    }

    #[test]
    fn the_embedded_key_table_is_the_yaml() {
        let yaml = keys_from_yaml().map(|file| format!("{:?}", file.config_keys));
        assert!(yaml.is_some(), "rules/config/keys.yaml reads");
        assert_eq!(Some(format!("{:?}", known_keys())), yaml);
    }

    #[test]
    fn a_default_however_spelled_is_no_change() {
        let old = Config::default();
        for ttl in ["0 ms", "0", "0 s", " 0 min "] {
            let mut new = Config::default();
            new.set("table.exec.state.ttl", ttl, Origin::CommandLine);
            assert!(changed_keys(&old, &new).is_empty(), "{ttl}");
        }
        let mut new = Config::default();
        new.set("table.exec.state.ttl", "1 h", Origin::CommandLine);
        assert_eq!(changed_keys(&old, &new), vec!["table.exec.state.ttl"]);
        new.set(
            "table.exec.mini-batch.enabled",
            "FALSE",
            Origin::CommandLine,
        );
        new.set("table.exec.state.ttl", "0", Origin::CommandLine);
        assert!(changed_keys(&old, &new).is_empty(), "FALSE is false");
        new.set("table.exec.mini-batch.enabled", "TRUE", Origin::CommandLine);
        assert_eq!(
            changed_keys(&old, &new),
            vec!["table.exec.mini-batch.enabled"]
        );
    }
}

/// Whether the tool knows the key (a key of Flink it has a default or a meaning for).
pub fn is_known(key: &str) -> bool {
    key_def(key).is_some()
}

/// One configuration key whose value in force differs between two jobs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyChange {
    /// The key as written (a key the tool does not know is its own, however close to a known
    /// one).
    pub key: String,
    pub written: String,
    pub old: Option<String>,
    pub new: Option<String>,
    /// Whether a query of either job is planned under another value than some query of the
    /// other (false: every query of both jobs reads the same value, which differs only after
    /// the last query of a script, where a SET applies to no query).
    pub at_query: bool,
}

/// Whether every configuration in `configs` (those in force at the queries of both jobs) reads
/// the same value of `key`.
pub fn same_at_all<'c>(key: &str, mut configs: impl Iterator<Item = &'c Config>) -> bool {
    let known = likely_typo(key).unwrap_or(key);
    let read = |config: &Config| config.get(key).map(|v| canonical_value(known, v));
    match configs.next() {
        None => true,
        Some(first) => {
            let value = read(first);
            configs.all(|c| read(c) == value)
        }
    }
}

/// Every configuration key whose value in force differs between two jobs (sorted). Which of
/// them change nothing is for the rules to say (`config_key` rules).
pub fn changes(old: &Config, new: &Config) -> Vec<KeyChange> {
    let mut keys: Vec<&String> = old.values.keys().chain(new.values.keys()).collect();
    keys.sort();
    keys.dedup();
    // Values compare as the key's type reads them: a SET of the default, however spelled, is
    // no change.
    let read = |config: &Config, k: &str| config.get(k).map(|v| canonical_value(k, v));
    keys.into_iter()
        .filter(|k| read(old, k) != read(new, k))
        .map(|k| KeyChange {
            // A key the tool does not know is its own key, also where it looks like a mistyped
            // known one (the script gets a warning): Flink ignores a mistyped key, and a key
            // one edit away from a known one may be another key of Flink's (`pipeline.jars`
            // is not `pipeline.name`); judged as the known key, its change would take that
            // key's verdict.
            key: k.clone(),
            written: k.clone(),
            old: old.get(k).map(str::to_string),
            new: new.get(k).map(str::to_string),
            at_query: true,
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
