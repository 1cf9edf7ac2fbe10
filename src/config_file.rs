//! `flink-compat.toml`: the settings a team would otherwise repeat on every call. Found upward
//! from the working directory (the first one wins), or named with `--config`; `--isolated`
//! ignores it. Command-line options win over it. Every mistake is a located error; an unknown
//! key gets a "did you mean".
//!
//! ```toml
//! engine = "vvr"                       # the engine profile
//! fail-on = "unknown"                  # partial | unknown | incompatible | never
//! rules = ["flink-rules"]              # rule files or directories (relative to this file)
//! jobs = ["jobs/**/*.sql"]             # which files are jobs (default: *.sql)
//! [set]                                # job configuration, as --set
//! "table.optimizer.state-compatibility.ignore-filter" = "true"
//! [[overrides]]                        # other settings for some jobs
//! paths = ["jobs/oss/**"]
//! engine = "apache-flink-2"
//! set = { "table.exec.mini-batch.enabled" = "true" }
//! [[allow]]                            # accepted findings
//! rule = "gwa-aggregate-added"
//! paths = ["jobs/report.sql"]
//! reason = "the new count may start from zero"
//! ```

use crate::error::{Error, Result};
use crate::paths::glob::Glob;
use crate::source::{ByteSpan, SourceFile};
use crate::suggest::{did_you_mean, nearest};
use crate::suppress::ConfigAllow;
use std::path::{Path, PathBuf};
use toml::de::{DeTable, DeValue};
use toml::Spanned;

pub const FILE_NAME: &str = "flink-compat.toml";

const TOP_KEYS: [&str; 7] = [
    "engine",
    "fail-on",
    "rules",
    "jobs",
    "set",
    "overrides",
    "allow",
];
const OVERRIDE_KEYS: [&str; 4] = ["paths", "engine", "set", "rules"];
const ALLOW_KEYS: [&str; 3] = ["rule", "paths", "reason"];
pub const FAIL_ON: [&str; 4] = ["partial", "unknown", "incompatible", "never"];

/// Settings for the jobs whose path matches one of `paths`.
#[derive(Debug, Clone, Default)]
pub struct Override {
    pub paths: Vec<Glob>,
    pub engine: Option<String>,
    pub set: Vec<(String, String)>,
    pub rules: Vec<PathBuf>,
}

#[derive(Debug, Clone, Default)]
pub struct Config {
    /// The file, and the directory its relative paths are resolved from.
    pub path: PathBuf,
    pub dir: PathBuf,
    pub engine: Option<String>,
    pub fail_on: Option<String>,
    pub rules: Vec<PathBuf>,
    pub jobs: Vec<String>,
    pub set: Vec<(String, String)>,
    pub overrides: Vec<Override>,
    pub allows: Vec<ConfigAllow>,
}

/// The nearest `flink-compat.toml` at or above `start`.
pub fn discover(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|dir| dir.join(FILE_NAME))
        .find(|candidate| candidate.is_file())
}

/// Reads and checks a configuration file.
pub fn load(path: &Path) -> Result<Config> {
    let text = crate::input::read_text(path)?;
    let file = SourceFile::new(path.display().to_string(), text);
    let absolute = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let dir = absolute.parent().map(Path::to_path_buf).unwrap_or_default();
    parse(&file, absolute, dir)
}

fn located(
    file: &SourceFile,
    span: std::ops::Range<usize>,
    message: String,
    help: Option<String>,
) -> Error {
    Error::located(
        "config",
        file,
        ByteSpan::new(span.start, span.end),
        message,
        "here",
        help,
    )
}

/// Parses the text of a configuration file whose relative paths start at `dir`.
pub fn parse(file: &SourceFile, path: PathBuf, dir: PathBuf) -> Result<Config> {
    let table = DeTable::parse(&file.text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        located(file, span, format!("invalid TOML: {}", e.message()), None)
    })?;
    let reader = Reader { file, dir: &dir };
    let mut config = Config {
        path,
        dir: dir.clone(),
        ..Config::default()
    };
    let mut errors = Vec::new();
    for (key, value) in table.get_ref() {
        let result = match key.get_ref().as_ref() {
            "engine" => reader.engine(value).map(|e| config.engine = Some(e)),
            "fail-on" => reader.fail_on(value).map(|f| config.fail_on = Some(f)),
            "rules" => reader.paths(value).map(|p| config.rules = p),
            "jobs" => reader.strings(value).map(|j| config.jobs = j),
            "set" => reader.settings(value).map(|s| config.set = s),
            "overrides" => reader.tables(value, &OVERRIDE_KEYS).and_then(|tables| {
                for table in tables {
                    config.overrides.push(reader.override_(table)?);
                }
                Ok(())
            }),
            "allow" => reader.tables(value, &ALLOW_KEYS).and_then(|tables| {
                for table in tables {
                    config.allows.push(reader.allow(table, value)?);
                }
                Ok(())
            }),
            _ => Err(reader.unknown_key(key, &TOP_KEYS)),
        };
        if let Err(e) = result {
            errors.push(e);
        }
    }
    match Error::collect(file.name.clone(), errors) {
        Some(e) => Err(e),
        None => Ok(config),
    }
}

struct Reader<'a> {
    file: &'a SourceFile,
    dir: &'a Path,
}

type Value<'i> = Spanned<DeValue<'i>>;

impl Reader<'_> {
    fn error(&self, value: &Value, message: impl Into<String>) -> Error {
        located(self.file, value.span(), message.into(), None)
    }

    fn unknown_key(&self, key: &Spanned<std::borrow::Cow<str>>, known: &[&str]) -> Error {
        let name = key.get_ref().as_ref();
        let help = did_you_mean(&nearest(name, known.iter().copied()))
            .unwrap_or_else(|| format!("the keys here are: {}", known.join(", ")));
        located(
            self.file,
            key.span(),
            format!("unknown key `{name}` in {FILE_NAME}"),
            Some(help),
        )
    }

    fn string(&self, value: &Value) -> Result<String> {
        match value.get_ref() {
            DeValue::String(s) => Ok(s.to_string()),
            _ => Err(self.error(value, "expected a string")),
        }
    }

    fn strings(&self, value: &Value) -> Result<Vec<String>> {
        match value.get_ref() {
            DeValue::Array(items) => items.iter().map(|item| self.string(item)).collect(),
            DeValue::String(s) => Ok(vec![s.to_string()]),
            _ => Err(self.error(value, "expected a list of strings")),
        }
    }

    fn paths(&self, value: &Value) -> Result<Vec<PathBuf>> {
        Ok(self
            .strings(value)?
            .into_iter()
            .map(|p| self.dir.join(p))
            .collect())
    }

    fn engine(&self, value: &Value) -> Result<String> {
        let name = self.string(value)?;
        let profiles = crate::rules::profile::builtin()?;
        if profiles.contains_key(&name) {
            return Ok(name);
        }
        let known: Vec<&str> = profiles.keys().map(String::as_str).collect();
        Err(located(
            self.file,
            value.span(),
            format!("no engine profile `{name}`"),
            Some(
                did_you_mean(&nearest(&name, known.iter().copied()))
                    .unwrap_or_else(|| format!("the profiles are: {}", known.join(", "))),
            ),
        ))
    }

    fn fail_on(&self, value: &Value) -> Result<String> {
        let name = self.string(value)?;
        if FAIL_ON.contains(&name.as_str()) {
            return Ok(name);
        }
        Err(located(
            self.file,
            value.span(),
            format!("`fail-on` is one of {}, not `{name}`", FAIL_ON.join(", ")),
            did_you_mean(&nearest(&name, FAIL_ON)),
        ))
    }

    fn settings(&self, value: &Value) -> Result<Vec<(String, String)>> {
        let DeValue::Table(table) = value.get_ref() else {
            return Err(self.error(value, "expected a table of configuration keys and values"));
        };
        table
            .iter()
            .map(|(key, v)| {
                let text = match v.get_ref() {
                    DeValue::String(s) => s.to_string(),
                    DeValue::Integer(i) => i.to_string(),
                    DeValue::Float(f) => f.as_str().to_string(),
                    DeValue::Boolean(b) => b.to_string(),
                    _ => return Err(self.error(v, "expected a string, number or boolean")),
                };
                Ok((key.get_ref().to_string(), text))
            })
            .collect()
    }

    /// An array of tables (`[[overrides]]`), each checked for unknown keys.
    fn tables<'v, 'i>(&self, value: &'v Value<'i>, known: &[&str]) -> Result<Vec<&'v DeTable<'i>>> {
        let DeValue::Array(items) = value.get_ref() else {
            return Err(self.error(value, "expected an array of tables (`[[...]]`)"));
        };
        let mut tables = Vec::new();
        for item in items.iter() {
            let DeValue::Table(table) = item.get_ref() else {
                return Err(self.error(item, "expected a table"));
            };
            if let Some((key, _)) = table
                .iter()
                .find(|(k, _)| !known.contains(&k.get_ref().as_ref()))
            {
                return Err(self.unknown_key(key, known));
            }
            tables.push(table);
        }
        Ok(tables)
    }

    fn globs(&self, value: &Value) -> Result<Vec<Glob>> {
        Ok(self.strings(value)?.iter().map(|p| Glob::new(p)).collect())
    }

    fn override_(&self, table: &DeTable) -> Result<Override> {
        let mut o = Override::default();
        for (key, value) in table {
            match key.get_ref().as_ref() {
                "paths" => o.paths = self.globs(value)?,
                "engine" => o.engine = Some(self.engine(value)?),
                "set" => o.set = self.settings(value)?,
                _ => o.rules = self.paths(value)?,
            }
        }
        Ok(o)
    }

    fn allow(&self, table: &DeTable, whole: &Value) -> Result<ConfigAllow> {
        let at = self.file.line_col(whole.span().start);
        let mut allow = ConfigAllow {
            rule: String::new(),
            reason: String::new(),
            paths: Vec::new(),
            origin: format!("{}:{}:{}", self.file.name, at.line, at.column),
        };
        for (key, value) in table {
            match key.get_ref().as_ref() {
                "rule" => {
                    allow.rule = self.string(value)?;
                    let at = self.file.line_col(value.span().start);
                    allow.origin = format!("{}:{}:{}", self.file.name, at.line, at.column);
                }
                "paths" => allow.paths = self.globs(value)?,
                _ => allow.reason = self.string(value)?,
            }
        }
        if allow.rule.is_empty() || allow.reason.trim().is_empty() {
            return Err(self.error(whole, "each [[allow]] needs a `rule` and a `reason`"));
        }
        Ok(allow)
    }
}

impl Config {
    /// `file` (absolute) relative to the configuration's directory, `/`-separated.
    pub fn relative(&self, file: &Path) -> Option<String> {
        let file = file.canonicalize().unwrap_or_else(|_| file.to_path_buf());
        crate::paths::relative(&file, &self.dir)
    }

    /// The overrides that apply to `file`, in order (a later one wins).
    pub fn overrides_for(&self, file: &Path) -> Vec<&Override> {
        let Some(rel) = self.relative(file) else {
            return Vec::new();
        };
        self.overrides
            .iter()
            .filter(|o| o.paths.iter().any(|g| g.matches(&rel)))
            .collect()
    }

    /// The allows that apply to `file`, with their index in [`Config::allows`].
    pub fn allows_for(&self, file: &Path) -> Vec<usize> {
        let rel = self.relative(file);
        self.allows
            .iter()
            .enumerate()
            .filter(|(_, a)| {
                a.paths.is_empty()
                    || rel
                        .as_deref()
                        .is_some_and(|rel| a.paths.iter().any(|g| g.matches(rel)))
            })
            .map(|(i, _)| i)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<Config> {
        parse(
            &SourceFile::new(FILE_NAME, text),
            PathBuf::from("/repo/flink-compat.toml"),
            PathBuf::from("/repo"),
        )
    }

    #[test]
    fn every_setting_is_read() {
        let config = parsed(
            "engine = \"apache-flink-2\"\nfail-on = \"incompatible\"\nrules = [\"r\"]\njobs = [\"jobs/**/*.sql\"]\n[set]\n\"a.b\" = true\n[[overrides]]\npaths = [\"jobs/x/**\"]\nengine = \"vvr\"\n[[allow]]\nrule = \"r1\"\nreason = \"ok\"\n",
        )
        .expect("loads");
        assert_eq!(config.engine.as_deref(), Some("apache-flink-2"));
        assert_eq!(config.fail_on.as_deref(), Some("incompatible"));
        assert_eq!(config.rules, vec![PathBuf::from("/repo/r")]);
        assert_eq!(config.set, vec![("a.b".to_string(), "true".to_string())]);
        assert_eq!(
            config.overrides_for(Path::new("/repo/jobs/x/a.sql")).len(),
            1
        );
        assert!(config
            .overrides_for(Path::new("/repo/jobs/a.sql"))
            .is_empty());
        assert_eq!(config.allows_for(Path::new("/repo/jobs/a.sql")), vec![0]);
    }

    #[test]
    fn an_unknown_key_is_located_with_a_suggestion() {
        let error = parsed("engine = \"vvr\"\nfail_on = \"never\"\n").unwrap_err();
        let located = error.located_errors();
        assert_eq!((located[0].line, located[0].column), (2, 1));
        assert_eq!(located[0].help.as_deref(), Some("did you mean `fail-on`?"));
        let error = parsed("[[overrides]]\npath = [\"a\"]\n").unwrap_err();
        assert_eq!(
            error.located_errors()[0].help.as_deref(),
            Some("did you mean `paths`?")
        );
    }

    #[test]
    fn wrong_values_are_located_errors() {
        assert!(parsed("engine = \"vvx\"\n").is_err());
        assert!(parsed("fail-on = \"sometimes\"\n").is_err());
        assert!(parsed("[[allow]]\nrule = \"x\"\n").is_err());
        assert!(parsed("jobs = 3\n").is_err());
    }
}
