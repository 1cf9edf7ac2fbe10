//! Loads rule files: parses the YAML, compiles and type-checks every predicate and message, and
//! reports every error of every file at once, pointing into the YAML.

use super::model::{RuleDef, RuleFile, VerdictDef};
use super::{ByMode, FailureMode, Rule, RuleSet};
use crate::diff::schema;
use crate::error::{Error, Result};
use crate::limits::MAX_RULES;
use crate::plan::OperatorKind;
use crate::rules::dsl::{DslError, FactSchema, Predicate, Template};
use crate::source::{ByteSpan, SourceFile};
use crate::verdict::Verdict;
pub use crate::yaml::{parse_yaml, raw_offset};
use serde_saphyr::{Location, Spanned};
use std::collections::{BTreeMap, BTreeSet};

/// Byte offset of a YAML value, pointing past the quote or block indicator that opens it.
fn value_offset(file: &SourceFile, location: &Location) -> usize {
    let raw = raw_offset(file, location);
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

pub(super) fn spanned_span<T>(file: &SourceFile, value: &Spanned<T>, len: usize) -> ByteSpan {
    let start = value_offset(file, &value.referenced);
    ByteSpan::new(start, start + len.max(1))
}

pub(super) fn rule_error(
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

pub use schema::schema_for;

/// Compiles one rule file, adding its rules and change kinds to `set`; every mistake of every
/// rule is reported, each at its place in the YAML.
pub fn load_file(file: &SourceFile, set: &mut RuleSet) -> Result<()> {
    let parsed: RuleFile = match parse_yaml(file, "rule") {
        Ok(parsed) => parsed,
        Err(first) => {
            let mistakes = super::shape::mistakes(file, &|id| set.get(id).is_some());
            return Err(
                Error::collect(format!("rule file {}", file.name), mistakes).unwrap_or(first)
            );
        }
    };
    load_parsed(file, &parsed, None, set)
}

/// Compiles a built-in rule file from the model `build.rs` read it into (no YAML to parse);
/// from its YAML when there is none, or when it does not compile, so that every mistake is
/// reported at its place in the file (the JSON form has no positions).
/// Only the kinds in `only` are compiled, when given (a family's other kinds are left out).
pub fn load_builtin(
    path: &str,
    text: &str,
    only: Option<&BTreeSet<&str>>,
    set: &mut RuleSet,
) -> Result<()> {
    #[cfg(test)]
    if tests::YAML_ONLY.get() {
        return load_file(&SourceFile::new(path, text), set);
    }
    let parsed = super::PRECOMPILED
        .iter()
        .find(|(p, _)| *p == path)
        .and_then(|(_, json)| serde_json::from_str::<RuleFile>(json).ok());
    if let Some(parsed) = parsed {
        // A failure fails the whole load; the YAML pass below only locates its mistakes.
        if load_parsed(&SourceFile::new(path, ""), &parsed, only, set).is_ok() {
            return Ok(());
        }
    }
    load_file(&SourceFile::new(path, text), set)
}

/// Compiles the rules of a read rule file into `set`.
fn load_parsed(
    file: &SourceFile,
    parsed: &RuleFile,
    only: Option<&BTreeSet<&str>>,
    set: &mut RuleSet,
) -> Result<()> {
    let kinds: Vec<(String, Spanned<String>, BTreeMap<String, String>)> =
        match (&parsed.operator, &parsed.family) {
            (Some(operator), None) => vec![(operator.value.clone(), operator.clone(), BTreeMap::new())],
            (None, Some(family)) if !family.value.is_empty() => family
                .value
                .iter()
                .map(|(kind, vars)| {
                    let mut vars = vars.clone();
                    vars.insert("kind".into(), kind.clone());
                    let at = Spanned::new(kind.clone(), family.referenced, family.defined);
                    (kind.clone(), at, vars)
                })
                .collect(),
            _ => {
                return Err(rule_error(
                    file,
                    ByteSpan::new(0, file.text.len().min(1)),
                    "a rule file names either one `operator:` or a `family:` of operator kinds",
                    Some("e.g. `operator: group_aggregate`, or `family: {group_aggregate: {prefix: ga}, window_aggregate: {prefix: wa}}`".into()),
                ))
            }
        };
    let mut errors = Vec::new();
    for (operator, at, vars) in &kinds {
        if only.is_some_and(|only| !only.contains(operator.as_str())) {
            continue;
        }
        if let Err(e) = load_kind(file, parsed, operator, at, vars, set) {
            errors.push(e);
        }
    }
    match Error::collect(format!("rule file {}", file.name), errors) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Whether a rule file's text declares a `family:` (loaded after the operator files of its
/// profile, so that the kinds' change kinds are declared and its rules follow theirs).
pub fn is_family(text: &str) -> bool {
    crate::yaml::top_level_line(text, "family:").is_some()
}

/// `${name}` replaced by the family variable `name` of the kind being compiled.
fn substitute(text: &str, vars: &BTreeMap<String, String>) -> String {
    if vars.is_empty() || !text.contains("${") {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let value = after
            .find('}')
            .and_then(|end| Some((vars.get(&after[..end])?, end)));
        match value {
            Some((value, end)) => {
                out.push_str(value);
                rest = &after[end + 1..];
            }
            None => {
                out.push_str("${");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn substituted(value: &Spanned<String>, vars: &BTreeMap<String, String>) -> Spanned<String> {
    Spanned::new(
        substitute(&value.value, vars),
        value.referenced,
        value.defined,
    )
}

/// The rules of a file for one operator kind (the file's `operator:`, or one of its family).
fn load_kind(
    file: &SourceFile,
    parsed: &RuleFile,
    operator: &str,
    at: &Spanned<String>,
    vars: &BTreeMap<String, String>,
    set: &mut RuleSet,
) -> Result<()> {
    let mut errors = Vec::new();
    let operator = operator.to_string();
    let Some(schema) = schema_for(&operator) else {
        let known: Vec<&str> = OperatorKind::ALL
            .iter()
            .map(|k| k.name())
            .chain(["query"])
            .chain(schema::ITEM_KINDS)
            .collect();
        return Err(rule_error(
            file,
            spanned_span(file, at, operator.len()),
            format!("unknown operator kind `{operator}`"),
            Some(format!("one of: {}", known.join(", "))),
        ));
    };
    let verdict_by = parsed.verdict_by.as_ref().map(|v| v.value.clone());
    if let Some(path) = parsed.verdict_by.as_ref().filter(|_| !set.defer_compiling) {
        if let Err(e) = Predicate::compile(&format!("{} == ''", path.value), &schema) {
            errors.push(dsl_error(file, path, e));
        }
    }
    let mut changes = set.changes.remove(&operator).unwrap_or_default();
    for (name, predicate) in &parsed.changes {
        // Deferred like the rules' `when` (see `Predicate::deferred`): a kind with no changed
        // pair in the check never reads its change kinds.
        let compiled = if set.defer_compiling {
            Ok(Predicate::deferred(&predicate.value))
        } else {
            Predicate::compile(&predicate.value, &schema)
        };
        match compiled {
            Ok(p) => {
                changes.retain(|(n, _)| n != name);
                changes.push((name.clone(), p));
            }
            Err(e) => errors.push(dsl_error(file, predicate, e)),
        }
    }
    for written in &parsed.rules {
        // The kind's values first: a variant's `when` then joins predicates as they read for
        // this kind (a shared `when` that is only variables, empty here, is left out).
        let written = &instantiate(written, vars);
        let expanded = match super::variants::expand(file, written) {
            Ok(expanded) => expanded,
            Err(variant_errors) => {
                errors.extend(variant_errors);
                continue;
            }
        };
        for one in expanded {
            let def = &one.def;
            let Some(id) = &def.id else { continue };
            if let Some(unset) = unset_variable(def) {
                errors.push(rule_error(
                    file,
                    spanned_span(file, id, id.value.len()),
                    format!(
                        "`${{{unset}}}` is not a variable of `{operator}` in this file's `family:`"
                    ),
                    Some(format!(
                        "the variables are: {}",
                        vars.keys()
                            .map(|k| format!("${{{k}}}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
                ));
                continue;
            }
            // A variant's `when` joins predicates written apart: each is compiled alone
            // first, so that a mistake is reported at its place.
            if !set.defer_compiling {
                let before = errors.len();
                for part in &one.parts {
                    if let Err(e) = Predicate::compile(&part.value, &schema) {
                        errors.push(dsl_error(file, part, e));
                    }
                }
                if errors.len() > before {
                    continue;
                }
            }
            let base = set.get(&id.value).cloned();
            let kind = KindContext {
                operator: &operator,
                schema: &schema,
                changes: &changes,
                verdict_by: verdict_by.as_deref(),
                defer: set.defer_compiling,
            };
            match compile_rule(file, kind, def, base.as_ref()) {
                Ok(mut rule) => {
                    if one.variant_of.is_some() {
                        rule.variant_of = one.variant_of;
                    }
                    set.insert(rule)
                }
                Err(rule_errors) => errors.extend(rule_errors),
            }
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

/// A rule of a family with the kind's variables filled in (the rule itself otherwise), its
/// variants too.
/// A field that is only variables, all empty for the kind, is left out for it (an engine
/// profile's family then keeps the base rule's field for that kind).
fn instantiate(def: &RuleDef, vars: &BTreeMap<String, String>) -> RuleDef {
    let present = |written: &str, filled: &str| !(written.contains("${") && filled.is_empty());
    let text = |t: &Option<String>| {
        t.as_ref()
            .map(|t| (t, substitute(t, vars)))
            .filter(|(t, filled)| present(t, filled))
            .map(|(_, filled)| filled)
    };
    let spanned = |t: &Option<Spanned<String>>| {
        t.as_ref()
            .map(|t| (t, substituted(t, vars)))
            .filter(|(t, filled)| present(&t.value, &filled.value))
            .map(|(_, filled)| filled)
    };
    // A verdict (or failure mode) that is one variable, empty for the kind, is left out too.
    let verdict = |v: &Option<Spanned<VerdictDef>>| {
        let v = v.as_ref()?;
        let filled = match &v.value {
            VerdictDef::One(one) if !present(one, &substitute(one, vars)) => return None,
            VerdictDef::One(one) => VerdictDef::One(substitute(one, vars)),
            VerdictDef::ByMode(by) => VerdictDef::ByMode(
                by.iter()
                    .map(|(mode, one)| (mode.clone(), substitute(one, vars)))
                    .collect(),
            ),
        };
        Some(Spanned::new(filled, v.referenced, v.defined))
    };
    RuleDef {
        id: def.id.as_ref().map(|id| substituted(id, vars)),
        aliases: def.aliases.iter().map(|a| substitute(a, vars)).collect(),
        change: spanned(&def.change),
        when: spanned(&def.when),
        verdict_by: spanned(&def.verdict_by),
        verdict: verdict(&def.verdict),
        message: spanned(&def.message),
        description: text(&def.description),
        rationale: text(&def.rationale),
        reference: text(&def.reference),
        source: text(&def.source),
        derived: text(&def.derived),
        example: text(&def.example),
        failure_mode: verdict(&def.failure_mode),
        variants: def.variants.as_ref().map(|variants| {
            Spanned::new(
                variants
                    .value
                    .iter()
                    .map(|v| instantiate(v, vars))
                    .collect(),
                variants.referenced,
                variants.defined,
            )
        }),
    }
}

/// A `${name}` left in a rule's id, predicate, texts or verdicts after its family's values were filled in.
fn unset_variable(def: &RuleDef) -> Option<String> {
    let texts = [&def.id, &def.change, &def.when, &def.message]
        .map(|t| t.as_ref().map(|t| &t.value))
        .into_iter()
        .chain(
            [
                &def.description,
                &def.rationale,
                &def.reference,
                &def.source,
                &def.derived,
                &def.example,
            ]
            .map(Option::as_ref),
        )
        .flatten()
        .chain(
            [&def.verdict, &def.failure_mode]
                .into_iter()
                .flatten()
                .flat_map(|v| match &v.value {
                    VerdictDef::One(one) => vec![one],
                    VerdictDef::ByMode(by) => by.values().collect(),
                }),
        );
    for text in texts {
        if let Some(start) = text.find("${") {
            let rest = &text[start + 2..];
            return Some(rest.split('}').next().unwrap_or(rest).to_string());
        }
    }
    None
}

/// Compiles one rule. A rule whose id is already loaded (from a profile this one extends) may
/// leave out `change`, `when`, `verdict` and `message`: they are kept from that rule.
/// What the rules of one operator kind of a file share.
#[derive(Clone, Copy)]
struct KindContext<'a> {
    operator: &'a str,
    schema: &'a FactSchema,
    changes: &'a [(String, Predicate)],
    verdict_by: Option<&'a str>,
    /// Parse `when` and messages when first evaluated ([`Predicate::deferred`]).
    defer: bool,
}

fn compile_rule(
    file: &SourceFile,
    kind: KindContext,
    def: &RuleDef,
    base: Option<&Rule>,
) -> std::result::Result<Rule, Vec<Error>> {
    let KindContext {
        operator,
        schema,
        changes,
        verdict_by,
        defer,
    } = kind;
    let mut errors = Vec::new();
    // Every rule has an id once its variants are expanded (`variants::expand`).
    let Some(id_at) = &def.id else {
        return Err(errors);
    };
    // A rule adjusting a renamed rule by its former id (an alias) adjusts that rule.
    let id = match base {
        Some(b) if b.aliases.contains(&id_at.value) => b.id.clone(),
        _ => id_at.value.clone(),
    };
    let id_span = spanned_span(file, id_at, id.len());
    let id_ok = !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !id_ok {
        errors.push(rule_error(
            file,
            id_span,
            format!("rule id `{id}` must be kebab-case (a-z, 0-9, -)"),
            None,
        ));
    }
    let base = match base {
        Some(b) if b.operator != operator => {
            errors.push(rule_error(
                file,
                id_span,
                format!("rule `{id}` is a rule of {}, not {operator}", b.operator),
                Some(format!(
                    "adjust it in a file with `operator: {}`",
                    b.operator
                )),
            ));
            None
        }
        other => other,
    };
    if base.is_none() {
        let missing: Vec<&str> = [
            ("change", def.change.is_none()),
            ("verdict", def.verdict.is_none()),
            ("message", def.message.is_none()),
        ]
        .into_iter()
        .filter(|(_, absent)| *absent)
        .map(|(name, _)| name)
        .collect();
        if !missing.is_empty() {
            errors.push(rule_error(
                file,
                id_span,
                format!("rule `{id}` has no {}", missing.join(", ")),
                Some("only a rule adjusting an already loaded rule with the same id (an engine profile's) may leave them out; `when` may be left out (it fires whenever its change kind happened)".into()),
            ));
        }
    }
    let change = match &def.change {
        Some(spanned) => {
            if let Err(e) = check_change(file, operator, changes, spanned) {
                errors.push(e);
            }
            Some(spanned.value.clone())
        }
        None => base.map(|b| b.change.clone()),
    };
    let when = match &def.when {
        Some(when) if defer => Some(Predicate::deferred(&when.value)),
        Some(when) => Predicate::compile(&when.value, schema)
            .map_err(|e| errors.push(dsl_error(file, when, e)))
            .ok(),
        // A rule without `when` fires whenever its change kind happened.
        None => match base {
            Some(b) => Some(b.when.clone()),
            None => Predicate::compile("true", schema).ok(),
        },
    };
    let message = match &def.message {
        Some(message) if defer => Some(Template::deferred(&message.value)),
        Some(message) => Template::compile(&message.value, schema)
            .map_err(|e| errors.push(dsl_error(file, message, e)))
            .ok(),
        None => base.map(|b| b.message.clone()),
    };
    let own_verdict_by = def.verdict_by.as_ref().map(|v| v.value.clone());
    if let Some(path) = def.verdict_by.as_ref().filter(|_| !defer) {
        if let Err(e) = Predicate::compile(&format!("{} == {}", path.value, path.value), schema) {
            errors.push(dsl_error(file, path, e));
        }
    }
    let verdict_by = own_verdict_by.as_deref().or(verdict_by);
    let verdict = match &def.verdict {
        Some(spanned) => by_mode(
            file,
            spanned,
            verdict_by,
            "verdict",
            Verdict::from_name,
            &mut errors,
        ),
        None => base.map(|b| b.verdict.clone()),
    };
    let failure_mode = match &def.failure_mode {
        Some(spanned) => by_mode(
            file,
            spanned,
            verdict_by,
            "failure mode",
            FailureMode::from_name,
            &mut errors,
        ),
        None => base.and_then(|b| b.failure_mode.clone()),
    };
    let (Some(change), Some(when), Some(message), Some(verdict), true) =
        (change, when, message, verdict, errors.is_empty())
    else {
        return Err(errors);
    };
    // Where a rule comes from is restated as a whole, or kept as a whole from the base rule.
    let restated_origin = def.source.is_some() || def.derived.is_some();
    let kept = |own: &Option<String>, from_base: fn(&Rule) -> &Option<String>| {
        own.clone()
            .or_else(|| base.and_then(|b| from_base(b).clone()))
    };
    let mut aliases = base.map(|b| b.aliases.clone()).unwrap_or_default();
    for alias in &def.aliases {
        if !aliases.contains(alias) {
            aliases.push(alias.clone());
        }
    }
    Ok(Rule {
        id,
        aliases,
        operator: operator.to_string(),
        change,
        when,
        verdict,
        message,
        description: kept(&def.description, |b| &b.description),
        rationale: kept(&def.rationale, |b| &b.rationale),
        reference: kept(&def.reference, |b| &b.reference),
        source: if restated_origin {
            def.source.clone()
        } else {
            base.and_then(|b| b.source.clone())
        },
        derived: if restated_origin {
            def.derived.clone()
        } else {
            base.and_then(|b| b.derived.clone())
        },
        example: kept(&def.example, |b| &b.example),
        failure_mode,
        variant_of: base.and_then(|b| b.variant_of.clone()),
        file: file.name.clone(),
        profile: String::new(),
    })
}

/// A verdict or failure mode given once, or per mode of the file's `verdict_by` fact.
fn by_mode<T>(
    file: &SourceFile,
    spanned: &Spanned<VerdictDef>,
    verdict_by: Option<&str>,
    what: &str,
    parse: fn(&str) -> Option<T>,
    errors: &mut Vec<Error>,
) -> Option<ByMode<T>> {
    let len = match &spanned.value {
        VerdictDef::One(name) => name.len(),
        VerdictDef::ByMode(_) => 1,
    };
    let span = spanned_span(file, spanned, len);
    let known = match what {
        "verdict" => "one of: fully_compatible, partially_compatible, unknown, incompatible",
        _ => "one of: restore_fails, silently_wrong, state_dropped",
    };
    let mut parse_one = |name: &str| {
        let parsed = parse(name);
        if parsed.is_none() {
            errors.push(rule_error(
                file,
                span,
                format!("unknown {what} `{name}`"),
                Some(known.into()),
            ));
        }
        parsed
    };
    match &spanned.value {
        VerdictDef::One(name) => parse_one(name).map(ByMode::One),
        VerdictDef::ByMode(map) => {
            let mut values = BTreeMap::new();
            for (mode, name) in map {
                if let Some(v) = parse_one(name) {
                    values.insert(mode.clone(), v);
                }
            }
            match verdict_by {
                Some(path) => Some(ByMode::Map {
                    path: path.to_string(),
                    values,
                }),
                None => {
                    errors.push(rule_error(
                        file,
                        span,
                        format!("a {what} per mode needs `verdict_by:` (in the rule, or at the top of the file)"),
                        None,
                    ));
                    None
                }
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::super::{profile, RuleSet, BUILTIN, PRECOMPILED};

    thread_local! {
        /// Load the built-in rule files from their YAML, as a user's are.
        pub static YAML_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    #[test]
    fn family_variables_are_filled_in_and_nothing_else() {
        let vars = std::collections::BTreeMap::from([
            ("kind".to_string(), "window_join".to_string()),
            ("prefix".to_string(), "wj".to_string()),
        ]);
        let fill = |text: &str| super::substitute(text, &vars);
        assert_eq!(fill("${prefix}-${kind}: ${prefix}"), "wj-window_join: wj");
        assert_eq!(fill("${other} and ${prefix"), "${other} and ${prefix");
        assert_eq!(
            fill("$prefix costs $5 {prefix}"),
            "$prefix costs $5 {prefix}"
        );
        assert_eq!(fill("${${prefix}}"), "${wj}");
    }

    #[test]
    fn every_builtin_rule_file_is_precompiled() {
        for (path, text) in BUILTIN {
            let rule_file = !path.ends_with("/profile.yaml")
                && !crate::catalog::connectors::is_connector_file(text)
                && !crate::catalog::config::is_config_file(text);
            assert_eq!(
                PRECOMPILED.iter().any(|(p, _)| p == path),
                rule_file,
                "{path}: build.rs did not read it into the rule-file model"
            );
        }
    }

    #[test]
    fn rules_loaded_for_some_kinds_are_those_of_the_whole_set() {
        let none: &[&std::path::Path] = &[];
        for name in profile::builtin().expect("the profiles load").keys() {
            let all = RuleSet::load_engine(name, none).expect("the built-in rules load");
            for kind in crate::plan::OperatorKind::ALL {
                let kinds = std::collections::BTreeSet::from([kind.name()]);
                let some = RuleSet::load_for_kinds(name, none, &kinds).expect("they load");
                let expected: Vec<_> = all
                    .rules
                    .iter()
                    .filter(|r| some.has_kind(&r.operator))
                    .collect();
                // A filtered load defers parsing `when`, messages and change kinds: parsed,
                // they are the whole set's (which were compiled and type-checked).
                for rule in &some.rules {
                    rule.when.paths();
                    rule.message.paths();
                }
                let loaded: Vec<_> = some.rules.iter().collect();
                assert_eq!(
                    format!("{expected:?}"),
                    format!("{loaded:?}"),
                    "{name} {kind:?}"
                );
                let expected: Vec<_> = all
                    .changes
                    .iter()
                    .filter(|(k, _)| some.has_kind(k))
                    .collect();
                // So are change kinds'.
                for (_, predicate) in some.changes.values().flatten() {
                    predicate.paths();
                }
                let loaded: Vec<_> = some.changes.iter().collect();
                assert_eq!(
                    format!("{expected:?}"),
                    format!("{loaded:?}"),
                    "{name} {kind:?}"
                );
                assert!(some.rules.iter().any(|r| r.operator == "query"), "{name}");
            }
        }
    }

    #[test]
    fn precompiled_rules_are_the_rules_of_the_yaml() {
        let none: &[&std::path::Path] = &[];
        for name in profile::builtin().expect("the profiles load").keys() {
            let fast = RuleSet::load_engine(name, none).expect("the built-in rules load");
            YAML_ONLY.set(true);
            let slow = RuleSet::load_engine(name, none);
            YAML_ONLY.set(false);
            let slow = slow.expect("the built-in rules load from YAML");
            assert_eq!(
                format!("{:?}", fast.rules),
                format!("{:?}", slow.rules),
                "{name}"
            );
            assert_eq!(
                format!("{:?}", fast.changes),
                format!("{:?}", slow.changes),
                "{name}"
            );
        }
    }
}
