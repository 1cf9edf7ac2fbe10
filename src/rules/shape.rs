//! The shape of a rule file, checked leniently when the strict reading fails: every unknown
//! key, missing key and value of the wrong type of every rule, each at its place, instead of
//! only the first that stops the YAML reader.

use super::dsl::nearest;
use crate::error::Error;
use crate::source::{ByteSpan, SourceFile};
use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::Spanned;
use std::collections::BTreeMap;

type Mapping = BTreeMap<String, Spanned<Value>>;

#[derive(Deserialize)]
struct LooseFile {
    #[serde(default)]
    rules: Vec<Spanned<Mapping>>,
}

const FILE_KEYS: &[&str] = &["operator", "verdict_by", "changes", "rules"];
const RULE_KEYS: &[&str] = &[
    "id",
    "change",
    "when",
    "verdict",
    "message",
    "rationale",
    "source",
    "derived",
    "example",
    "failure_mode",
];
const REQUIRED: &[&str] = &["id", "change", "when", "verdict", "message"];

fn at<T>(file: &SourceFile, value: &Spanned<T>) -> ByteSpan {
    let start = super::load::raw_offset(file, &value.referenced);
    ByteSpan::new(start, start + 1)
}

fn error(file: &SourceFile, span: ByteSpan, message: String, help: Option<String>) -> Error {
    Error::located("rule", file, span, message, "here", help)
}

fn unknown_keys(file: &SourceFile, map: &Mapping, known: &[&str], errors: &mut Vec<Error>) {
    for (key, value) in map {
        if known.contains(&key.as_str()) {
            continue;
        }
        let close = nearest(key, known.iter().copied());
        let help = match close.first() {
            Some(k) => format!("did you mean `{k}`?"),
            None => format!("the keys are: {}", known.join(", ")),
        };
        errors.push(error(
            file,
            at(file, value),
            format!("unknown key `{key}`"),
            Some(help),
        ));
    }
}

/// Every shape mistake found; empty when the lenient reading fails too or finds none. A rule
/// whose id is in `loaded` adjusts that rule and needs only its id.
pub fn mistakes(file: &SourceFile, loaded: &dyn Fn(&str) -> bool) -> Vec<Error> {
    let mut errors = Vec::new();
    if let Ok(top) = serde_saphyr::from_str::<Mapping>(&file.text) {
        unknown_keys(file, &top, FILE_KEYS, &mut errors);
    }
    let Ok(loose) = serde_saphyr::from_str::<LooseFile>(&file.text) else {
        return errors;
    };
    for (index, rule) in loose.rules.iter().enumerate() {
        unknown_keys(file, &rule.value, RULE_KEYS, &mut errors);
        let adjusts = rule
            .value
            .get("id")
            .and_then(|id| id.value.as_str())
            .is_some_and(loaded);
        let missing: Vec<&str> = REQUIRED
            .iter()
            .copied()
            .filter(|k| !adjusts && !rule.value.contains_key(*k))
            .collect();
        if !missing.is_empty() {
            errors.push(error(
                file,
                at(file, rule),
                format!("rule {} has no `{}`", index + 1, missing.join("`, `")),
                Some(format!("a rule needs: {}", REQUIRED.join(", "))),
            ));
        }
        for (key, value) in &rule.value {
            let text_expected = RULE_KEYS.contains(&key.as_str()) && key != "verdict";
            let verdict_ok = key != "verdict" || value.value.is_string() || value.value.is_object();
            if !verdict_ok {
                errors.push(error(
                    file,
                    at(file, value),
                    format!(
                        "`verdict` must be a verdict or a map of them, not {}",
                        value.value
                    ),
                    Some(
                        "one of: fully_compatible, partially_compatible, unknown, incompatible"
                            .into(),
                    ),
                ));
            }
            if text_expected && !value.value.is_string() {
                errors.push(error(
                    file,
                    at(file, value),
                    format!("`{key}` must be text, not {}", value.value),
                    Some("quote it: `key: \"...\"`".into()),
                ));
            }
        }
    }
    errors
}
