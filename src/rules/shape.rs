//! The shape of a rule or case file, checked leniently when the strict reading fails: every
//! unknown key, missing key and value of the wrong type, each at its place, instead of only the
//! first that stops the YAML reader.

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

const FILE_KEYS: &[&str] = &["operator", "family", "verdict_by", "changes", "rules"];
const RULE_KEYS: &[&str] = &[
    "id",
    "aliases",
    "change",
    "when",
    "verdict_by",
    "verdict",
    "message",
    "description",
    "rationale",
    "reference",
    "source",
    "derived",
    "example",
    "failure_mode",
    "variants",
];
const REQUIRED: &[&str] = &["id", "change", "verdict", "message"];
/// The keys of a rule that its variants share and may not restate.
const RULE_ONLY_KEYS: &[&str] = &["change", "variants"];

fn at<T>(file: &SourceFile, value: &Spanned<T>) -> ByteSpan {
    let start = super::load::raw_offset(file, &value.referenced);
    ByteSpan::new(start, start + 1)
}

/// What the file is (`rule` or `case`), for the diagnostics' kind.
#[derive(Clone, Copy)]
struct Kind(&'static str);

fn error(
    kind: Kind,
    file: &SourceFile,
    span: ByteSpan,
    message: String,
    help: Option<String>,
) -> Error {
    Error::located(kind.0, file, span, message, "here", help)
}

fn unknown_keys(
    kind: Kind,
    file: &SourceFile,
    map: &Mapping,
    known: &[&str],
    errors: &mut Vec<Error>,
) {
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
            kind,
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
    let kind = Kind("rule");
    let mut errors = Vec::new();
    if let Ok(top) = serde_saphyr::from_str::<Mapping>(&file.text) {
        unknown_keys(kind, file, &top, FILE_KEYS, &mut errors);
    }
    let Ok(loose) = serde_saphyr::from_str::<LooseFile>(&file.text) else {
        return errors;
    };
    let all_variants = variants(file);
    for (index, rule) in loose.rules.iter().enumerate() {
        unknown_keys(kind, file, &rule.value, RULE_KEYS, &mut errors);
        let variants = all_variants
            .get(index)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for variant in variants {
            let variant_keys: Vec<&str> = RULE_KEYS
                .iter()
                .copied()
                .filter(|k| !RULE_ONLY_KEYS.contains(k))
                .collect();
            unknown_keys(kind, file, &variant.value, &variant_keys, &mut errors);
        }
        // A rule with variants is complete when each variant is, with the rule's fields.
        let ids: Vec<&str> = match variants.is_empty() {
            true => rule
                .value
                .get("id")
                .and_then(|id| id.value.as_str())
                .into_iter()
                .collect(),
            false => variants
                .iter()
                .filter_map(|v| v.value.get("id").and_then(|id| id.value.as_str()))
                .collect(),
        };
        let adjusts = !ids.is_empty() && ids.iter().all(|id| loaded(id));
        let missing: Vec<&str> = REQUIRED
            .iter()
            .copied()
            .filter(|k| {
                let given = rule.value.contains_key(*k)
                    || (!variants.is_empty()
                        && (*k == "id" || variants.iter().all(|v| v.value.contains_key(*k))));
                !adjusts && !given
            })
            .collect();
        if !missing.is_empty() {
            errors.push(error(
                kind,
                file,
                at(file, rule),
                format!("rule {} has no `{}`", index + 1, missing.join("`, `")),
                Some(format!("a rule needs: {}", REQUIRED.join(", "))),
            ));
        }
        for (key, value) in &rule.value {
            let text_expected = RULE_KEYS.contains(&key.as_str())
                && !["verdict", "aliases", "variants"].contains(&key.as_str());
            let verdict_ok = key != "verdict" || value.value.is_string() || value.value.is_object();
            if !verdict_ok {
                errors.push(error(
                    kind,
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
                    kind,
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

/// The variants of every rule, read leniently (none for a rule whose `variants:` is not a list
/// of mappings), in the order of the rules.
fn variants(file: &SourceFile) -> Vec<Vec<Spanned<Mapping>>> {
    #[derive(Deserialize)]
    struct Rule {
        #[serde(default)]
        variants: Vec<Spanned<Mapping>>,
    }
    #[derive(Deserialize)]
    struct Loose {
        #[serde(default)]
        rules: Vec<Rule>,
    }
    serde_saphyr::from_str::<Loose>(&file.text)
        .map(|l| l.rules.into_iter().map(|r| r.variants).collect())
        .unwrap_or_default()
}

const CASE_KEYS: &[&str] = &[
    "title", "source", "note", "old", "new", "set", "engine", "expect",
];
const CASE_REQUIRED: &[&str] = &["title", "old", "new", "expect"];
const EXPECT_KEYS: &[&str] = &[
    "verdict",
    "findings",
    "state",
    "warnings",
    "queries",
    "failure_modes",
];
const EXPECT_REQUIRED: &[&str] = &["verdict", "findings"];

fn missing_keys(
    kind: Kind,
    file: &SourceFile,
    map: &Mapping,
    required: &[&str],
    what: &str,
    span: ByteSpan,
    errors: &mut Vec<Error>,
) {
    let missing: Vec<&str> = required
        .iter()
        .copied()
        .filter(|k| !map.contains_key(*k))
        .collect();
    if !missing.is_empty() {
        errors.push(error(
            kind,
            file,
            span,
            format!("{what} has no `{}`", missing.join("`, `")),
            Some(format!("{what} needs: {}", required.join(", "))),
        ));
    }
}

/// Every shape mistake of a case file; empty when the lenient reading fails too or finds none.
pub fn case_mistakes(file: &SourceFile) -> Vec<Error> {
    let kind = Kind("case");
    let mut errors = Vec::new();
    let Ok(top) = serde_saphyr::from_str::<Mapping>(&file.text) else {
        return errors;
    };
    unknown_keys(kind, file, &top, CASE_KEYS, &mut errors);
    let start = ByteSpan::new(0, file.text.len().min(1));
    missing_keys(
        kind,
        file,
        &top,
        CASE_REQUIRED,
        "the case",
        start,
        &mut errors,
    );
    for key in ["title", "source", "note", "old", "new", "engine"] {
        if let Some(value) = top.get(key).filter(|v| !v.value.is_string()) {
            errors.push(error(
                kind,
                file,
                at(file, value),
                format!("`{key}` must be text, not {}", value.value),
                Some("quote it, or use a block: `key: |`".into()),
            ));
        }
    }
    let Some(expect) = top.get("expect") else {
        return errors;
    };
    let Some(map) = expect.value.as_object() else {
        errors.push(error(
            kind,
            file,
            at(file, expect),
            "`expect` must be a mapping (verdict, findings, ...)".into(),
            None,
        ));
        return errors;
    };
    let Ok(expect_map) =
        serde_json::from_value::<BTreeMap<String, Value>>(Value::Object(map.clone()))
    else {
        return errors;
    };
    // Positions inside `expect` come from a second, spanned reading of that mapping.
    #[derive(Deserialize)]
    struct Loose {
        expect: Mapping,
    }
    let spanned = serde_saphyr::from_str::<Loose>(&file.text)
        .map(|l| l.expect)
        .unwrap_or_default();
    let expect_span = at(file, expect);
    unknown_keys(kind, file, &spanned, EXPECT_KEYS, &mut errors);
    missing_keys(
        kind,
        file,
        &spanned,
        EXPECT_REQUIRED,
        "`expect`",
        expect_span,
        &mut errors,
    );
    let place = |key: &str| spanned.get(key).map(|v| at(file, v)).unwrap_or(expect_span);
    if let Some(verdict) = expect_map.get("verdict") {
        let known = verdict
            .as_str()
            .is_some_and(|v| crate::verdict::Verdict::from_name(v).is_some());
        if !known {
            errors.push(error(
                kind,
                file,
                place("verdict"),
                format!("`verdict` must be a verdict, not {verdict}"),
                Some(
                    "one of: fully_compatible, partially_compatible, unknown, incompatible".into(),
                ),
            ));
        }
    }
    for key in ["findings", "warnings", "failure_modes"] {
        let Some(value) = expect_map.get(key) else {
            continue;
        };
        let texts = value
            .as_array()
            .is_some_and(|items| items.iter().all(Value::is_string));
        if !texts {
            errors.push(error(
                kind,
                file,
                place(key),
                format!("`{key}` must be a list of text, not {value}"),
                Some(format!("e.g. `{key}: [a, b]`")),
            ));
        }
    }
    errors
}
