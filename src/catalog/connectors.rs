//! What a connector's WITH options mean, as data: one YAML table per connector
//! (`rules/connectors/<connector>.yaml`, or a user's `--rules DIR` file with `connector:`).
//! Each option names its *role* (e.g. `identity`: what the source reads, which its state
//! belongs to; `startup`: where a fresh start begins; `lookup_async`), which rules read as the
//! `role` fact of a changed option, and why.

use crate::error::Result;
use crate::source::SourceFile;
use crate::yaml::parse_yaml;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The table of options every connector shares (`connector: '*'`), read when the connector's
/// own table does not list the key (or there is none).
pub const ANY_CONNECTOR: &str = "*";

/// A connector table as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConnectorFile {
    /// The value of `'connector'` (e.g. `kafka`); `aliases` are other spellings of it.
    pub connector: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    /// Where the options are documented.
    pub source: String,
    pub options: Vec<OptionDef>,
    /// What a source of this connector emits, and the options that change it.
    #[serde(default)]
    pub changelog: Option<ChangelogDef>,
}

/// The changelog a source emits: `emits` unless one of its `switches` applies; the `*` table's
/// `connectors` name what a connector without a table of its own emits.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChangelogDef {
    #[serde(default)]
    pub emits: Option<Emits>,
    /// What a source without a primary key emits, whatever the switches say (Paimon: an
    /// append table emits inserts only).
    #[serde(default)]
    pub keyless: Option<Emits>,
    #[serde(default)]
    pub switches: Vec<ChangelogSwitch>,
    #[serde(default)]
    pub connectors: Vec<ConnectorPattern>,
}

/// An option whose value (a pattern: `*` matches any text, case aside) decides what the source
/// emits.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChangelogSwitch {
    pub key: String,
    pub value: String,
    pub emits: Emits,
    pub why: String,
}

/// Connectors without a table, by name pattern (`*-cdc`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConnectorPattern {
    pub name: String,
    pub emits: Emits,
    pub why: String,
}

/// What a source emits: only inserts; upserts (no before-image: Flink normalizes them under the
/// primary key); every change kind (a CDC source); the changelog of the format the option names
/// (`debezium-json`); or the row kinds the option lists (`I,UA,D`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Emits {
    InsertOnly,
    Upsert,
    All,
    Format,
    Kinds,
}

impl Emits {
    /// The changelog-mode fact of a source: `insert-only`, `upsert`, `changelog:<format>`
    /// (`changelog:cdc` for a CDC source) or `changelog-mode:<kinds>`.
    fn mode(self, value: &str) -> String {
        match self {
            Emits::InsertOnly => "insert-only".into(),
            Emits::Upsert => "upsert".into(),
            Emits::All => "changelog:cdc".into(),
            Emits::Format => format!("changelog:{}", value.trim().to_lowercase()),
            Emits::Kinds => format!("changelog-mode:{value}"),
        }
    }
}

/// One option (or a family: a key ending in `*` is a prefix).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptionDef {
    pub key: String,
    pub role: String,
    pub why: String,
}

/// The role of one option, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionRole {
    pub role: String,
    pub why: String,
}

/// Every connector table loaded, by connector name (lowercase; aliases included).
#[derive(Debug, Clone, Default)]
pub struct Connectors {
    tables: BTreeMap<String, ConnectorFile>,
}

/// The built-in connector tables as `build.rs` read them from their YAML, as JSON: (path,
/// JSON). Deserializing these is what a check costs instead of parsing the YAML.
const PRECOMPILED: &[(&str, &str)] =
    include!(concat!(env!("OUT_DIR"), "/builtin_connectors_json.rs"));

/// The built-in connector tables: `rules/connectors/*.yaml`.
pub fn builtin() -> &'static Connectors {
    static BUILTIN: OnceLock<Connectors> = OnceLock::new();
    BUILTIN.get_or_init(|| {
        let mut connectors = Connectors::default();
        for (path, text) in crate::yaml::BUILTIN {
            if path.starts_with("rules/connectors/") {
                let precompiled = PRECOMPILED
                    .iter()
                    .find(|(p, _)| p == path)
                    .and_then(|(_, json)| serde_json::from_str::<ConnectorFile>(json).ok());
                match precompiled {
                    Some(table) => connectors.insert(table),
                    // Checked by a unit test: a broken built-in table is a build-time mistake.
                    None => {
                        let _ = connectors.load(&SourceFile::new(*path, *text));
                    }
                }
            }
        }
        connectors
    })
}

/// Whether a YAML file is a connector table rather than a rule file.
pub fn is_connector_file(text: &str) -> bool {
    crate::yaml::top_level_line(text, "connector:").is_some()
}

impl Connectors {
    /// Adds a connector table; a later table for the same connector replaces it.
    pub fn load(&mut self, file: &SourceFile) -> Result<()> {
        let table: ConnectorFile = parse_yaml(file, "connector")?;
        self.insert(table);
        Ok(())
    }

    fn insert(&mut self, table: ConnectorFile) {
        for name in std::iter::once(&table.connector).chain(&table.aliases) {
            self.tables.insert(name.to_lowercase(), table.clone());
        }
    }

    pub fn table(&self, connector: &str) -> Option<&ConnectorFile> {
        self.tables.get(&connector.to_lowercase())
    }

    /// The role of `key` for `connector` (keys compared without case, as Hologres reads them): an
    /// exact key first, then the longest prefix family.
    pub fn role(&self, connector: &str, key: &str) -> Option<OptionRole> {
        self.own_role(connector, key)
            .or_else(|| self.own_role(ANY_CONNECTOR, key))
    }

    /// The role a connector's own table gives the key.
    fn own_role(&self, connector: &str, key: &str) -> Option<OptionRole> {
        let table = self.table(connector)?;
        let exact = table
            .options
            .iter()
            .find(|o| o.key.eq_ignore_ascii_case(key));
        let family = || {
            table
                .options
                .iter()
                .filter(|o| {
                    o.key.strip_suffix('*').is_some_and(|prefix| {
                        key.to_lowercase().starts_with(&prefix.to_lowercase())
                    })
                })
                .max_by_key(|o| o.key.len())
        };
        exact.or_else(family).map(|o| OptionRole {
            role: o.role.clone(),
            why: o.why.clone(),
        })
    }

    /// Whether the options turn on an option of this role (its value is `true`).
    pub fn enables(&self, options: &[(String, String)], role: &str) -> bool {
        let connector = options
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("connector"))
            .map(|(_, v)| v.as_str())
            .unwrap_or_default();
        options.iter().any(|(k, v)| {
            v.trim().eq_ignore_ascii_case("true")
                && self.role(connector, k).is_some_and(|r| r.role == role)
        })
    }

    /// The changelog mode of a source declared with these options, with a primary key or not
    /// (`keyed`; see [`Emits::mode`]): the connector's `keyless` for a table without one, else
    /// the first switch of the `*` table whose option has a matching value, then the
    /// connector's own switches, its default, the `*` table's name patterns; inserts only
    /// otherwise.
    pub fn changelog_mode(&self, options: &[(String, String)], keyed: bool) -> String {
        let value = |key: &str| {
            options
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(key))
                .map(|(_, v)| v.as_str())
        };
        let connector = value("connector").unwrap_or_default();
        let any = self.table(ANY_CONNECTOR).and_then(|t| t.changelog.as_ref());
        let own = self.table(connector).and_then(|t| t.changelog.as_ref());
        if let Some(keyless) = own.and_then(|c| c.keyless).filter(|_| !keyed) {
            return keyless.mode("");
        }
        let switched = any
            .into_iter()
            .chain(own)
            .flat_map(|c| &c.switches)
            .find_map(|switch| {
                let set = value(&switch.key)?;
                wildcard(&switch.value, set).then(|| switch.emits.mode(set))
            });
        switched
            .or_else(|| own.and_then(|c| c.emits).map(|e| e.mode("")))
            .or_else(|| {
                any.into_iter()
                    .flat_map(|c| &c.connectors)
                    .find(|p| wildcard(&p.name, connector))
                    .map(|p| p.emits.mode(""))
            })
            .unwrap_or_else(|| Emits::InsertOnly.mode(""))
    }

    /// The connectors described, sorted.
    pub fn names(&self) -> Vec<&str> {
        self.tables.keys().map(String::as_str).collect()
    }
}

/// Whether `text` matches the glob `pattern` (`*-cdc`), case and surrounding blanks aside.
fn wildcard(pattern: &str, text: &str) -> bool {
    crate::paths::glob::matches_name(&pattern.trim().to_lowercase(), &text.trim().to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_table_loads() {
        for (path, text) in crate::yaml::BUILTIN {
            if path.starts_with("rules/connectors/") {
                let mut c = Connectors::default();
                c.load(&SourceFile::new(*path, *text))
                    .unwrap_or_else(|e| panic!("{path}: {e}"));
            }
        }
        for name in [
            "kafka",
            "upsert-kafka",
            "mysql-cdc",
            "postgres-cdc",
            "jdbc",
            "hologres",
            "paimon",
            "filesystem",
            "datagen",
        ] {
            assert!(builtin().table(name).is_some(), "{name} has no table");
        }
    }

    #[test]
    fn precompiled_tables_are_the_tables_of_the_yaml() {
        let mut from_yaml = Connectors::default();
        for (path, text) in crate::yaml::BUILTIN {
            if path.starts_with("rules/connectors/") {
                assert!(
                    PRECOMPILED.iter().any(|(p, _)| p == path),
                    "{path}: build.rs did not read it"
                );
                let _ = from_yaml.load(&SourceFile::new(*path, *text));
            }
        }
        assert_eq!(
            format!("{:?}", builtin().tables),
            format!("{:?}", from_yaml.tables)
        );
    }

    #[test]
    fn roles_resolve_exact_keys_then_prefixes() {
        let c = builtin();
        assert_eq!(
            c.role("kafka", "topic").map(|r| r.role),
            Some("identity".into())
        );
        assert_eq!(
            c.role("KAFKA", "scan.startup.mode").map(|r| r.role),
            Some("startup".into())
        );
        let async_hologres = vec![
            ("connector".to_string(), "hologres".to_string()),
            ("async".to_string(), "true".to_string()),
        ];
        assert!(c.enables(&async_hologres, "lookup_async"));
        assert_eq!(c.role("no-such-connector", "topic"), None);
    }

    fn mode(options: &[(&str, &str)]) -> String {
        let options: Vec<(String, String)> = options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        builtin().changelog_mode(&options, true)
    }

    #[test]
    fn changelog_modes_follow_the_tables() {
        assert_eq!(
            mode(&[("connector", "kafka"), ("format", "json")]),
            "insert-only"
        );
        assert_eq!(
            mode(&[("connector", "kafka"), ("value.format", "Debezium-JSON")]),
            "changelog:debezium-json"
        );
        assert_eq!(mode(&[("connector", "upsert-kafka")]), "upsert");
        assert_eq!(mode(&[("connector", "upsert-pulsar")]), "upsert");
        assert_eq!(mode(&[("connector", "mysql-cdc")]), "changelog:cdc");
        assert_eq!(mode(&[("connector", "oracle-cdc")]), "changelog:cdc");
        assert_eq!(mode(&[("connector", "mongodb-cdc")]), "upsert");
        assert_eq!(
            mode(&[
                ("connector", "mongodb-cdc"),
                ("scan.full-changelog", "TRUE")
            ]),
            "changelog:cdc"
        );
        // The `*` table's switches come before the connector's own.
        assert_eq!(
            mode(&[
                ("connector", "mongodb-cdc"),
                ("scan.full-changelog", "true"),
                ("scan.read-changelog-as-append-only.enabled", "true"),
            ]),
            "insert-only"
        );
        assert_eq!(
            mode(&[("connector", "postgres-cdc"), ("changelog-mode", "upsert")]),
            "upsert"
        );
        assert_eq!(
            mode(&[("connector", "values"), ("changelog-mode", "I,UA,D")]),
            "changelog-mode:I,UA,D"
        );
        assert_eq!(mode(&[]), "insert-only");
        assert_eq!(mode(&[("connector", "paimon")]), "upsert");
        assert_eq!(
            mode(&[("connector", "paimon"), ("changelog-producer", "lookup")]),
            "changelog:cdc"
        );
        assert_eq!(
            mode(&[("connector", "paimon"), ("changelog-producer", "None")]),
            "upsert"
        );
        assert_eq!(
            mode(&[
                ("connector", "paimon"),
                ("changelog-producer", "input"),
                ("merge-engine", "first-row"),
            ]),
            "insert-only"
        );
        let paimon = [("connector".to_string(), "paimon".to_string())];
        assert_eq!(builtin().changelog_mode(&paimon, false), "insert-only");
    }

    #[test]
    fn wildcards_match_whole_values_case_aside() {
        assert!(wildcard("*-cdc", "MySQL-CDC"));
        assert!(!wildcard("*-cdc", "cdc-kafka"));
        assert!(wildcard("*debezium*", "debezium-avro-confluent"));
        assert!(wildcard("true", " True "));
        assert!(!wildcard("true", "truely"));
        assert!(wildcard("a*b*c", "axxbyyc"));
        assert!(!wildcard("a*b*c", "axxc"));
        assert!(!wildcard("ab*ba", "aba"));
        assert!(wildcard("*", ""));
    }
}
