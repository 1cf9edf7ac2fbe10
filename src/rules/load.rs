//! Loads rule files: parses the YAML, compiles and type-checks every predicate and message, and
//! reports every error of every file at once, pointing into the YAML.

use super::model::{RuleDef, RuleFile, VerdictDef};
use super::{Rule, RuleSet, RuleVerdict};
use crate::diff::schema;
use crate::error::{Error, Result};
use crate::limits::{MAX_RULES, MAX_YAML_BYTES};
use crate::plan::OperatorKind;
use crate::rules::dsl::{DslError, FactSchema, Predicate, Template};
use crate::source::{ByteSpan, SourceFile};
use crate::verdict::Verdict;
use serde_saphyr::{Location, Spanned};
use std::collections::BTreeMap;

/// Byte offset of a YAML value, pointing past the quote or block indicator that opens it.
fn value_offset(file: &SourceFile, location: &Location) -> usize {
    let raw = location
        .span()
        .byte_offset()
        .map(|o| o as usize)
        .unwrap_or_else(|| file.offset_of(location.line(), location.column()));
    let rest = file.text.get(raw..).unwrap_or("");
    if rest.starts_with('\'') || rest.starts_with('"') {
        return raw + 1;
    }
    if rest.starts_with('|') || rest.starts_with('>') {
        if let Some(newline) = rest.find('\n') {
            let line = &rest[newline + 1..];
            return raw + newline + 1 + (line.len() - line.trim_start_matches(' ').len());
        }
    }
    raw
}

fn spanned_span<T>(file: &SourceFile, value: &Spanned<T>, len: usize) -> ByteSpan {
    let start = value_offset(file, &value.referenced);
    ByteSpan::new(start, start + len.max(1))
}

fn rule_error(
    file: &SourceFile,
    span: ByteSpan,
    message: impl Into<String>,
    help: Option<String>,
) -> Error {
    Error::located("rule", file, span, message, "here", help)
}

fn dsl_error(file: &SourceFile, value: &Spanned<String>, error: DslError) -> Error {
    let base = value_offset(file, &value.referenced);
    // Inside a quoted or block scalar the text maps one to one for single-line predicates.
    let span = ByteSpan::new(
        base + error.span.start,
        base + error.span.end.max(error.span.start + 1),
    );
    let span = if span.end <= file.text.len() {
        span
    } else {
        spanned_span(file, value, value.value.len())
    };
    Error::located(
        "rule",
        file,
        span,
        error.message.clone(),
        "here",
        error.help.clone(),
    )
}

/// Parses a YAML file into `T`, converting a YAML error into a located diagnostic.
pub fn parse_yaml<T: serde::de::DeserializeOwned>(
    file: &SourceFile,
    kind: &'static str,
) -> Result<T> {
    if file.text.len() > MAX_YAML_BYTES {
        return Err(Error::Limit {
            message: format!("{} is larger than {MAX_YAML_BYTES} bytes", file.name),
            help: None,
        });
    }
    serde_saphyr::from_str::<T>(&file.text).map_err(|e| {
        let span = match e.location() {
            Some(location) => {
                let start = location
                    .span()
                    .byte_offset()
                    .map(|o| o as usize)
                    .unwrap_or_else(|| file.offset_of(location.line(), location.column()));
                ByteSpan::new(start, start + 1)
            }
            None => ByteSpan::new(0, file.text.len().min(1)),
        };
        let message = e.to_string();
        let message = message.lines().next().unwrap_or("invalid YAML").to_string();
        Error::located(
            kind,
            file,
            span,
            format!("invalid {kind} file: {message}"),
            "here",
            None,
        )
    })
}

/// The fact schema a rule file of this operator is checked against.
pub fn schema_for(operator: &str) -> Option<FactSchema> {
    if operator == "query" {
        return Some(schema::schema(&schema::query_facts()));
    }
    OperatorKind::from_name(operator).map(|kind| schema::schema(&schema::operator_facts(kind)))
}

/// Compiles one rule file, adding its rules and change kinds to `set`; every mistake of every
/// rule is reported, each at its place in the YAML.
pub fn load_file(file: &SourceFile, set: &mut RuleSet) -> Result<()> {
    let parsed: RuleFile = match parse_yaml(file, "rule") {
        Ok(parsed) => parsed,
        Err(first) => {
            let mistakes = super::shape::mistakes(file);
            return Err(
                Error::collect(format!("rule file {}", file.name), mistakes).unwrap_or(first)
            );
        }
    };
    let mut errors = Vec::new();
    let operator = parsed.operator.value.clone();
    let Some(schema) = schema_for(&operator) else {
        let known: Vec<&str> = OperatorKind::ALL
            .iter()
            .map(|k| k.name())
            .chain(["query"])
            .collect();
        return Err(rule_error(
            file,
            spanned_span(file, &parsed.operator, operator.len()),
            format!("unknown operator kind `{operator}`"),
            Some(format!("one of: {}", known.join(", "))),
        ));
    };
    let verdict_by = parsed.verdict_by.as_ref().map(|v| v.value.clone());
    if let Some(path) = &parsed.verdict_by {
        if let Err(e) = Predicate::compile(&format!("{} == ''", path.value), &schema) {
            errors.push(dsl_error(file, path, e));
        }
    }
    let mut changes = set.changes.remove(&operator).unwrap_or_default();
    for (name, predicate) in &parsed.changes {
        match Predicate::compile(&predicate.value, &schema) {
            Ok(p) => {
                changes.retain(|(n, _)| n != name);
                changes.push((name.clone(), p));
            }
            Err(e) => errors.push(dsl_error(file, predicate, e)),
        }
    }
    for def in &parsed.rules {
        match compile_rule(
            file,
            &operator,
            &schema,
            &changes,
            verdict_by.as_deref(),
            def,
        ) {
            Ok(rule) => set.insert(rule),
            Err(rule_errors) => errors.extend(rule_errors),
        }
    }
    set.changes.insert(operator, changes);
    if set.rules.len() > MAX_RULES {
        errors.push(Error::Limit {
            message: format!("more than {MAX_RULES} rules are loaded"),
            help: None,
        });
    }
    match Error::collect(format!("rule file {}", file.name), errors) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn compile_rule(
    file: &SourceFile,
    operator: &str,
    schema: &FactSchema,
    changes: &[(String, Predicate)],
    verdict_by: Option<&str>,
    def: &RuleDef,
) -> std::result::Result<Rule, Vec<Error>> {
    let mut errors = Vec::new();
    let id = def.id.value.clone();
    let id_ok = !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !id_ok {
        errors.push(rule_error(
            file,
            spanned_span(file, &def.id, id.len()),
            format!("rule id `{id}` must be kebab-case (a-z, 0-9, -)"),
            None,
        ));
    }
    let change = def.change.value.clone();
    if change != "any" && !changes.iter().any(|(n, _)| *n == change) {
        let known: Vec<&str> = changes
            .iter()
            .map(|(n, _)| n.as_str())
            .chain(["any"])
            .collect();
        errors.push(rule_error(
            file,
            spanned_span(file, &def.change, change.len()),
            format!("unknown change kind `{change}` for {operator}"),
            Some(format!(
                "declare it under `changes:` or use one of: {}",
                known.join(", ")
            )),
        ));
    }
    let when = Predicate::compile(&def.when.value, schema)
        .map_err(|e| errors.push(dsl_error(file, &def.when, e)))
        .ok();
    let message = Template::compile(&def.message.value, schema)
        .map_err(|e| errors.push(dsl_error(file, &def.message, e)))
        .ok();
    let verdict_len = match &def.verdict.value {
        VerdictDef::One(name) => name.len(),
        VerdictDef::ByMode(_) => 1,
    };
    let verdict_span = spanned_span(file, &def.verdict, verdict_len);
    let parse_verdict = |name: &str| {
        Verdict::from_name(name).ok_or_else(|| {
            rule_error(
                file,
                verdict_span,
                format!("unknown verdict `{name}`"),
                Some(
                    "one of: fully_compatible, partially_compatible, unknown, incompatible".into(),
                ),
            )
        })
    };
    let verdict = match &def.verdict.value {
        VerdictDef::One(name) => parse_verdict(name)
            .map(RuleVerdict::One)
            .map_err(|e| errors.push(e))
            .ok(),
        VerdictDef::ByMode(map) => match verdict_by {
            None => {
                errors.push(rule_error(
                    file,
                    verdict_span,
                    "a verdict per mode needs `verdict_by:` at the top of the file",
                    None,
                ));
                None
            }
            Some(path) => {
                let mut verdicts = BTreeMap::new();
                for (mode, name) in map {
                    match parse_verdict(name) {
                        Ok(v) => {
                            verdicts.insert(mode.clone(), v);
                        }
                        Err(e) => errors.push(e),
                    }
                }
                Some(RuleVerdict::ByMode {
                    path: path.to_string(),
                    verdicts,
                })
            }
        },
    };
    let (Some(when), Some(message), Some(verdict), true) =
        (when, message, verdict, errors.is_empty())
    else {
        return Err(errors);
    };
    Ok(Rule {
        id,
        operator: operator.to_string(),
        change,
        when,
        verdict,
        message,
        rationale: def.rationale.clone(),
        source: def.source.clone(),
        derived: def.derived.clone(),
        example: def.example.clone(),
        file: file.name.clone(),
    })
}
