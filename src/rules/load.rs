//! Loads rule files: parses the YAML, compiles and type-checks every predicate and message, and
//! reports every error of every file at once, pointing into the YAML.

use super::model::{RuleDef, RuleFile, VerdictDef};
use super::{FailureMode, Rule, RuleFailureMode, RuleSet, RuleVerdict};
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

pub use schema::schema_for;

/// Compiles one rule file, adding its rules and change kinds to `set`.
pub fn load_file(file: &SourceFile, set: &mut RuleSet) -> Result<()> {
    let parsed: RuleFile = parse_yaml(file, "rule")?;
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
        let base = set.get(&def.id.value).cloned();
        match compile_rule(
            file,
            &operator,
            &schema,
            &changes,
            verdict_by.as_deref(),
            def,
            base.as_ref(),
        ) {
            Ok(rule) => set.insert(rule),
            Err(e) => errors.push(e),
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
    base: Option<&Rule>,
) -> Result<Rule> {
    let id = def.id.value.clone();
    let id_ok = !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !id_ok {
        return Err(rule_error(
            file,
            spanned_span(file, &def.id, id.len()),
            format!("rule id `{id}` must be kebab-case (a-z, 0-9, -)"),
            None,
        ));
    }
    if let Some(base) = base.filter(|b| b.operator != operator) {
        return Err(rule_error(
            file,
            spanned_span(file, &def.id, id.len()),
            format!("rule `{id}` is a rule of {}, not {operator}", base.operator),
            Some(format!(
                "adjust it in a file with `operator: {}`",
                base.operator
            )),
        ));
    }
    let missing: Vec<&str> = [
        ("change", def.change.is_none()),
        ("when", def.when.is_none()),
        ("verdict", def.verdict.is_none()),
        ("message", def.message.is_none()),
    ]
    .into_iter()
    .filter(|(_, absent)| *absent)
    .map(|(name, _)| name)
    .collect();
    if base.is_none() && !missing.is_empty() {
        return Err(rule_error(
            file,
            spanned_span(file, &def.id, id.len()),
            format!("rule `{id}` has no {}", missing.join(", ")),
            Some("only a rule that adjusts an already loaded rule with the same id may leave them out".into()),
        ));
    }
    let change = match &def.change {
        Some(change) => change.value.clone(),
        None => base.map(|b| b.change.clone()).unwrap_or_default(),
    };
    if let Some(spanned) = &def.change {
        check_change(file, operator, changes, spanned)?;
    }
    let when = match (&def.when, base) {
        (Some(when), _) => {
            Predicate::compile(&when.value, schema).map_err(|e| dsl_error(file, when, e))?
        }
        (None, Some(b)) => b.when.clone(),
        (None, None) => incomplete(file, def)?,
    };
    let message = match (&def.message, base) {
        (Some(message), _) => {
            Template::compile(&message.value, schema).map_err(|e| dsl_error(file, message, e))?
        }
        (None, Some(b)) => b.message.clone(),
        (None, None) => incomplete(file, def)?,
    };
    let Some(verdict_def) = &def.verdict else {
        let Some(b) = base else {
            return incomplete(file, def);
        };
        return finish_rule(
            file,
            operator,
            def,
            b.verdict.clone(),
            change,
            when,
            message,
            verdict_by,
            Some(b),
        );
    };
    let verdict_span = spanned_span(file, verdict_def, 1);
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
    let verdict = match &verdict_def.value {
        VerdictDef::One(name) => RuleVerdict::One(parse_verdict(name)?),
        VerdictDef::ByMode(map) => {
            let Some(path) = verdict_by else {
                return Err(rule_error(
                    file,
                    verdict_span,
                    "a verdict per mode needs `verdict_by:` at the top of the file",
                    None,
                ));
            };
            let mut verdicts = BTreeMap::new();
            for (mode, name) in map {
                verdicts.insert(mode.clone(), parse_verdict(name)?);
            }
            RuleVerdict::ByMode {
                path: path.to_string(),
                verdicts,
            }
        }
    };
    finish_rule(
        file, operator, def, verdict, change, when, message, verdict_by, base,
    )
}

fn incomplete<T>(file: &SourceFile, def: &RuleDef) -> Result<T> {
    Err(rule_error(
        file,
        spanned_span(file, &def.id, def.id.value.len()),
        format!("rule `{}` is incomplete", def.id.value),
        None,
    ))
}

fn check_change(
    file: &SourceFile,
    operator: &str,
    changes: &[(String, Predicate)],
    spanned: &Spanned<String>,
) -> Result<()> {
    let change = &spanned.value;
    if change == "any" || changes.iter().any(|(n, _)| n == change) {
        return Ok(());
    }
    let known: Vec<&str> = changes
        .iter()
        .map(|(n, _)| n.as_str())
        .chain(["any"])
        .collect();
    Err(rule_error(
        file,
        spanned_span(file, spanned, change.len()),
        format!("unknown change kind `{change}` for {operator}"),
        Some(format!(
            "declare it under `changes:` or use one of: {}",
            known.join(", ")
        )),
    ))
}

#[allow(clippy::too_many_arguments)]
fn finish_rule(
    file: &SourceFile,
    operator: &str,
    def: &RuleDef,
    verdict: RuleVerdict,
    change: String,
    when: Predicate,
    message: Template,
    verdict_by: Option<&str>,
    base: Option<&Rule>,
) -> Result<Rule> {
    let failure_mode = match &def.failure_mode {
        None => None,
        Some(spanned) => {
            let span = spanned_span(file, spanned, 1);
            let parse = |name: &str| {
                FailureMode::from_name(name).ok_or_else(|| {
                    rule_error(
                        file,
                        span,
                        format!("unknown failure mode `{name}`"),
                        Some("one of: restore_fails, silently_wrong, state_dropped".into()),
                    )
                })
            };
            Some(match &spanned.value {
                VerdictDef::One(name) => RuleFailureMode::One(parse(name)?),
                VerdictDef::ByMode(map) => {
                    let Some(path) = verdict_by else {
                        return Err(rule_error(
                            file,
                            span,
                            "a failure mode per mode needs `verdict_by:` at the top of the file",
                            None,
                        ));
                    };
                    let mut modes = BTreeMap::new();
                    for (mode, name) in map {
                        modes.insert(mode.clone(), parse(name)?);
                    }
                    RuleFailureMode::ByMode {
                        path: path.to_string(),
                        modes,
                    }
                }
            })
        }
    };
    // A rule adjusting a base rule keeps what it does not restate.
    let restated_origin = def.source.is_some() || def.derived.is_some();
    let kept = |own: &Option<String>, from_base: fn(&Rule) -> &Option<String>| {
        own.clone()
            .or_else(|| base.and_then(|b| from_base(b).clone()))
    };
    Ok(Rule {
        id: def.id.value.clone(),
        operator: operator.to_string(),
        change,
        when,
        verdict,
        message,
        rationale: kept(&def.rationale, |b| &b.rationale),
        // Where a rule comes from is restated as a whole, or kept as a whole.
        source: if restated_origin {
            def.source.clone()
        } else {
            kept(&None, |b| &b.source)
        },
        derived: if restated_origin {
            def.derived.clone()
        } else {
            kept(&None, |b| &b.derived)
        },
        example: kept(&def.example, |b| &b.example),
        failure_mode: failure_mode.or_else(|| base.and_then(|b| b.failure_mode.clone())),
        file: file.name.clone(),
        profile: String::new(),
    })
}
