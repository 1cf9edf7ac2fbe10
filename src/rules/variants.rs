//! Rules with `variants:`: one idea whose id, verdict and message follow the facts (the sink
//! judged with `ignore-sink` on or off, a query with or without stateful operators). Each
//! variant is loaded as a rule of its own id, so that cases, suppressions and profile overrides
//! keep naming it; its `when` is the rule's, the negation of every earlier variant's, and its own.

use super::load::{rule_error, spanned_span};
use super::model::RuleDef;
use super::VariantOf;
use crate::error::Error;
use crate::source::{ByteSpan, SourceFile};
use serde_saphyr::Spanned;

/// One rule to compile: a rule as written, or one variant with the rule's fields it does not
/// restate.
pub struct Expanded {
    pub def: RuleDef,
    /// The predicates the variant's `when` is made of, each as written (compiled alone first,
    /// so that a mistake is reported at its place); empty for a rule without variants.
    pub parts: Vec<Spanned<String>>,
    pub variant_of: Option<VariantOf>,
}

/// Whether the parenthesis opening at byte `open` closes at the end of `text`.
fn closes_at_end(text: &str, open: usize) -> bool {
    let mut depth = 0usize;
    let mut quoted = false;
    for (i, c) in text.char_indices().skip_while(|(i, _)| *i < open) {
        match c {
            '\'' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1 == text.len();
                }
            }
            _ => {}
        }
    }
    false
}

/// A predicate as one operand of `and` / `not`: in parentheses unless it is a fact path, a
/// call or already in parentheses.
fn operand(predicate: &str) -> String {
    let name_end = predicate
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(predicate.len());
    let simple = name_end == predicate.len()
        || (predicate[name_end..].starts_with('(') && closes_at_end(predicate, name_end));
    if simple {
        predicate.to_string()
    } else {
        format!("({predicate})")
    }
}

/// The negation of a predicate: `not p`, or `p` of `not p`.
fn negation(predicate: &str) -> String {
    match predicate.strip_prefix("not ") {
        Some(inner) if operand(inner) == inner => inner.to_string(),
        _ => format!("not {}", operand(predicate)),
    }
}

/// The conjunction of the shared `when`, the negated earlier variants and the variant's own.
fn conjunction(shared: Option<&str>, earlier: &[&str], own: Option<&str>) -> Option<String> {
    let mut parts: Vec<String> = shared.map(operand).into_iter().collect();
    parts.extend(earlier.iter().map(|w| negation(w)));
    parts.extend(own.map(operand));
    match parts.as_slice() {
        [] => None,
        // One part alone keeps its text as written.
        [_] if earlier.is_empty() => shared.or(own).map(str::to_string),
        _ => Some(parts.join(" and ")),
    }
}

/// Where a rule without an id is reported: its first located field.
fn rule_span(file: &SourceFile, def: &RuleDef) -> Option<ByteSpan> {
    [&def.change, &def.when, &def.verdict_by, &def.message]
        .into_iter()
        .flatten()
        .next()
        .map(|at| spanned_span(file, at, at.value.len()))
        .or_else(|| def.verdict.as_ref().map(|v| spanned_span(file, v, 1)))
        .or_else(|| def.failure_mode.as_ref().map(|v| spanned_span(file, v, 1)))
}

/// The keys a variant may not give, each at its place: its rule's `change` and `variants`.
fn rule_only_keys(file: &SourceFile, variant: &RuleDef) -> Vec<Error> {
    let help = || Some("a variant shares its rule's `change`; variants do not nest".into());
    let change = variant
        .change
        .as_ref()
        .map(|c| (spanned_span(file, c, c.value.len()), "change"));
    let nested = variant
        .variants
        .as_ref()
        .map(|v| (spanned_span(file, v, 1), "variants"));
    change
        .into_iter()
        .chain(nested)
        .map(|(at, key)| rule_error(file, at, format!("unknown key `{key}`"), help()))
        .collect()
}

/// The rules a rule definition stands for: itself, or one per variant; every mistake of the
/// variants' shape, each at its place.
pub fn expand(file: &SourceFile, def: &RuleDef) -> Result<Vec<Expanded>, Vec<Error>> {
    let Some(variants) = &def.variants else {
        return match &def.id {
            Some(_) => Ok(vec![Expanded {
                def: def.clone(),
                parts: Vec::new(),
                variant_of: None,
            }]),
            None => Err(vec![rule_error(
                file,
                rule_span(file, def).unwrap_or(ByteSpan::new(0, file.text.len().min(1))),
                "a rule has no `id` (nor `variants:`, each with its id)",
                Some("add `id: my-rule-id`".into()),
            )]),
        };
    };
    let mut errors = Vec::new();
    let variants_span = spanned_span(file, variants, 1);
    if let Some(id) = &def.id {
        errors.push(rule_error(
            file,
            spanned_span(file, id, id.value.len()),
            format!(
                "a rule with `variants:` has no `id` of its own (`{}`): each variant names its id",
                id.value
            ),
            Some("move the id into the variant it belongs to".into()),
        ));
    }
    if let Some(alias) = def.aliases.first() {
        errors.push(rule_error(
            file,
            variants_span,
            format!("`aliases` ({alias}, ...) of a rule with `variants:` belong to a variant"),
            Some("list a former id under the variant that took it over".into()),
        ));
    }
    if variants.value.len() < 2 {
        errors.push(rule_error(
            file,
            variants_span,
            "`variants:` lists at least two variants",
            Some("a rule with one variant is a rule: write its fields in the rule".into()),
        ));
    }
    let last = variants.value.len().saturating_sub(1);
    for (index, variant) in variants.value.iter().enumerate() {
        errors.extend(rule_only_keys(file, variant));
        let Some(id) = &variant.id else {
            errors.push(rule_error(
                file,
                rule_span(file, variant).unwrap_or(variants_span),
                format!("variant {} has no `id`", index + 1),
                Some("each variant names its own id: `id: my-rule-id`".into()),
            ));
            continue;
        };
        let at = spanned_span(file, id, id.value.len());
        if variant.when.is_none() && index != last {
            errors.push(rule_error(
                file,
                at,
                format!(
                    "variant `{}` has no `when`, and is not the last variant",
                    id.value
                ),
                Some("only the last variant may leave out `when`: it applies when no earlier one does".into()),
            ));
        }
        let earlier = &variants.value[..index];
        if earlier
            .iter()
            .any(|v| v.id.as_ref().is_some_and(|e| e.value == id.value))
        {
            errors.push(rule_error(
                file,
                at,
                format!("variant id `{}` is given twice", id.value),
                None,
            ));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let ids: Vec<String> = variants
        .value
        .iter()
        .filter_map(|v| v.id.as_ref().map(|id| id.value.clone()))
        .collect();
    let mut expanded = Vec::new();
    for (index, variant) in variants.value.iter().enumerate() {
        let earlier: Vec<&Spanned<String>> = variants.value[..index]
            .iter()
            .filter_map(|v| v.when.as_ref())
            .collect();
        let texts: Vec<&str> = earlier.iter().map(|w| w.value.as_str()).collect();
        let when = conjunction(
            def.when.as_ref().map(|w| w.value.as_str()),
            &texts,
            variant.when.as_ref().map(|w| w.value.as_str()),
        );
        let Some(located) = variant
            .when
            .as_ref()
            .or(def.when.as_ref())
            .or(variant.id.as_ref())
        else {
            continue;
        };
        let parts: Vec<Spanned<String>> = def
            .when
            .iter()
            .chain(earlier)
            .chain(variant.when.as_ref())
            .cloned()
            .collect();
        expanded.push(Expanded {
            def: merged(
                def,
                variant,
                when.map(|w| Spanned::new(w, located.referenced, located.defined)),
            ),
            parts,
            variant_of: Some(VariantOf {
                ids: ids.clone(),
                when: variant.when.as_ref().map(|w| w.value.clone()),
            }),
        });
    }
    Ok(expanded)
}

/// A variant as a rule: its own fields, the rule's for those it leaves out.
fn merged(def: &RuleDef, variant: &RuleDef, when: Option<Spanned<String>>) -> RuleDef {
    fn own<T: Clone>(v: &Option<T>, d: &Option<T>) -> Option<T> {
        v.clone().or_else(|| d.clone())
    }
    // Where a variant comes from is restated as a whole, or taken as a whole from the rule.
    let restated_origin = variant.source.is_some() || variant.derived.is_some();
    let origin = if restated_origin { variant } else { def };
    RuleDef {
        id: variant.id.clone(),
        aliases: variant.aliases.clone(),
        change: def.change.clone(),
        when,
        verdict_by: own(&variant.verdict_by, &def.verdict_by),
        verdict: own(&variant.verdict, &def.verdict),
        message: own(&variant.message, &def.message),
        description: own(&variant.description, &def.description),
        rationale: own(&variant.rationale, &def.rationale),
        reference: own(&variant.reference, &def.reference),
        source: origin.source.clone(),
        derived: origin.derived.clone(),
        example: own(&variant.example, &def.example),
        failure_mode: own(&variant.failure_mode, &def.failure_mode),
        variants: None,
    }
}

#[cfg(test)]
mod tests {
    use super::conjunction;

    #[test]
    fn a_variant_holds_when_the_rule_does_no_earlier_variant_does_and_its_own_when_does() {
        assert_eq!(conjunction(None, &[], Some("a.b")).as_deref(), Some("a.b"));
        assert_eq!(
            conjunction(Some("x or y"), &[], None).as_deref(),
            Some("x or y")
        );
        assert_eq!(
            conjunction(None, &["a.b"], None).as_deref(),
            Some("not a.b")
        );
        assert_eq!(
            conjunction(None, &["not a.b"], None).as_deref(),
            Some("a.b")
        );
        assert_eq!(
            conjunction(None, &["not a and not b"], None).as_deref(),
            Some("not (not a and not b)")
        );
        assert_eq!(
            conjunction(Some("x or y"), &["count(k) > 0"], Some("contains(l, 'm')")).as_deref(),
            Some("(x or y) and not (count(k) > 0) and contains(l, 'm')")
        );
        assert_eq!(
            conjunction(Some("x"), &["f(a) and g(b)"], None).as_deref(),
            Some("x and not (f(a) and g(b))")
        );
        assert_eq!(conjunction(None, &[], None), None);
    }
}
