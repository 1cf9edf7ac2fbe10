//! A column read through a UNION ALL has as lineage `UNION(x, y, ...)`, the columns of its
//! inputs. Which inputs a UNION ALL has is the query's fact (`union_inputs`, judged by the query's
//! union rules); for the operators above it, the column is the same column whatever inputs were
//! added or removed. So before an operator pair is compared, a UNION lineage that the other side
//! does not have is written as one of its inputs the other side also reads: `GROUP BY a` over
//! `T1` and over `T1 UNION ALL T2` keep the same key, `SUM(b)` the same aggregate. The filters of
//! an input only one side has (`... UNION ALL SELECT a, b FROM T2 WHERE b > 10`) belong to that
//! input, and are left out of the comparison with it.

use serde_json::{Map, Value};

const UNION: &str = "UNION(";

/// A `UNION(...)` call in a canonical text: its byte range and its arguments' texts.
struct UnionCall {
    start: usize,
    end: usize,
    args: Vec<String>,
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '`' | '$')
}

/// The UNION calls of a canonical text, outermost first, outside quoted text.
fn union_calls(text: &str) -> Vec<UnionCall> {
    let mut calls = Vec::new();
    let mut quote: Option<char> = None;
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        let Some(c) = rest.chars().next() else { break };
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            at += c.len_utf8();
            continue;
        }
        if c == '\'' || c == '`' {
            quote = Some(c);
            at += 1;
            continue;
        }
        let boundary = !text[..at].chars().next_back().is_some_and(is_name_char);
        if boundary && rest.starts_with(UNION) {
            if let Some(call) = parse_call(text, at) {
                at = call.end;
                calls.push(call);
                continue;
            }
        }
        at += c.len_utf8();
    }
    calls
}

/// The call starting at `start` (`UNION(`), split at its top-level commas.
fn parse_call(text: &str, start: usize) -> Option<UnionCall> {
    let open = start + UNION.len();
    let (mut depth, mut quote, mut arg_start) = (0usize, None::<char>, open);
    let mut args = Vec::new();
    for (offset, c) in text[open..].char_indices() {
        let at = open + offset;
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '`') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') if depth > 0 => depth -= 1,
            (None, ')') => {
                args.push(text[arg_start..at].trim().to_string());
                return Some(UnionCall {
                    start,
                    end: at + 1,
                    args,
                });
            }
            (None, ',') if depth == 0 => {
                args.push(text[arg_start..at].trim().to_string());
                arg_start = at + 1;
            }
            _ => {}
        }
    }
    None
}

/// Whether `text` reads `column` as a whole name (not a longer one that starts or ends alike).
fn reads(text: &str, column: &str) -> bool {
    text.match_indices(column).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + column.len()..].chars().next();
        !before.is_some_and(is_name_char) && !after.is_some_and(is_name_char)
    })
}

fn strings<'v>(value: &'v Value, out: &mut Vec<&'v str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// What each UNION call of one side's texts becomes: an input the other side also reads.
fn representatives(this: &[&str], other: &[&str]) -> Vec<(String, String)> {
    let other_calls: Vec<UnionCall> = other.iter().flat_map(|t| union_calls(t)).collect();
    let mut out: Vec<(String, String)> = Vec::new();
    for text in this {
        for call in union_calls(text) {
            let whole = &text[call.start..call.end];
            if other.iter().any(|t| reads(t, whole)) || out.iter().any(|(w, _)| w == whole) {
                continue; // the other side has the same union: nothing to align
            }
            let shared = |arg: &&String| {
                other_calls.iter().any(|c| c.args.contains(arg))
                    || other.iter().any(|t| reads(t, arg))
            };
            let mut candidates: Vec<&String> = call.args.iter().filter(shared).collect();
            candidates.sort();
            if let Some(first) = candidates.first() {
                out.push((whole.to_string(), (*first).clone()));
            }
        }
    }
    out
}

/// The tables a canonical text qualifies columns with (`T2` of `T2.b > 10`).
fn tables(text: &str, out: &mut Vec<String>) {
    let mut word = String::new();
    let mut quote: Option<char> = None;
    for c in text.chars().chain(std::iter::once(' ')) {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' => quote = Some(c),
            None if is_name_char(c) || c == '#' => word.push(c),
            None => {
                if let Some((table, _)) = word.rsplit_once('.') {
                    if !table.is_empty() && !out.iter().any(|t| t == table) {
                        out.push(table.to_string());
                    }
                }
                word.clear();
            }
        }
    }
}

/// Tables read only through UNION ALL inputs this side has and the other side does not read.
fn added_input_tables(this: &[&str], other: &[&str]) -> Vec<String> {
    let mut inputs = Vec::new();
    for text in this {
        for call in union_calls(text) {
            call.args.iter().for_each(|a| tables(a, &mut inputs));
        }
    }
    let mut read = Vec::new();
    other.iter().for_each(|t| tables(t, &mut read));
    inputs.retain(|t| !read.contains(t));
    inputs
}

/// Drops the list items that read nothing but `only` (an added input's own filters).
fn without_items_of(facts: Map<String, Value>, only: &[String]) -> Map<String, Value> {
    if only.is_empty() {
        return facts;
    }
    let own = |item: &Value| {
        let mut read = Vec::new();
        if let Value::String(s) = item {
            tables(s, &mut read);
        }
        !read.is_empty() && read.iter().all(|t| only.contains(t))
    };
    facts
        .into_iter()
        .map(|(k, v)| match v {
            Value::Array(items) => (
                k,
                Value::Array(items.into_iter().filter(|i| !own(i)).collect()),
            ),
            other => (k, other),
        })
        .collect()
}

fn rewrite(value: &Value, replacements: &[(String, String)]) -> Value {
    match value {
        Value::String(s) => {
            let mut text = s.clone();
            for (from, to) in replacements {
                if text.contains(from.as_str()) {
                    text = text.replace(from.as_str(), to);
                }
            }
            Value::String(text)
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| rewrite(v, replacements)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), rewrite(v, replacements)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Both sides' facts with the UNION lineages the other side lacks written as a shared input.
pub fn align(
    old: &Map<String, Value>,
    new: &Map<String, Value>,
) -> (Map<String, Value>, Map<String, Value>) {
    let (mut old_texts, mut new_texts) = (Vec::new(), Vec::new());
    old.values().for_each(|v| strings(v, &mut old_texts));
    new.values().for_each(|v| strings(v, &mut new_texts));
    let has_union = |texts: &[&str]| texts.iter().any(|t| t.contains(UNION));
    if !has_union(&old_texts) && !has_union(&new_texts) {
        return (old.clone(), new.clone());
    }
    let old_replacements = representatives(&old_texts, &new_texts);
    let new_replacements = representatives(&new_texts, &old_texts);
    let (old_added, new_added) = (
        added_input_tables(&old_texts, &new_texts),
        added_input_tables(&new_texts, &old_texts),
    );
    let side =
        |facts: &Map<String, Value>, replacements: &[(String, String)]| -> Map<String, Value> {
            if replacements.is_empty() {
                return facts.clone();
            }
            facts
                .iter()
                .map(|(k, v)| (k.clone(), rewrite(v, replacements)))
                .collect()
        };
    (
        without_items_of(side(old, &old_replacements), &old_added),
        without_items_of(side(new, &new_replacements), &new_added),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn facts(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn an_added_union_input_keeps_the_key_and_the_aggregates() {
        let old = facts(json!({"keys": ["T1.a"], "aggregates": ["COUNT(*)", "SUM(T1.b)"]}));
        let new = facts(
            json!({"keys": ["UNION(T1.a, T2.a)"], "aggregates": ["COUNT(*)", "SUM(UNION(T1.b, T2.b))"]}),
        );
        let (o, n) = align(&old, &new);
        assert_eq!(o, old);
        assert_eq!(n, old);
    }

    #[test]
    fn a_removed_union_input_keeps_the_key() {
        let old = facts(json!({"keys": ["UNION(T1.a, T2.a, T3.a)"]}));
        let new = facts(json!({"keys": ["UNION(T2.a, T3.a)"]}));
        let (o, n) = align(&old, &new);
        assert_eq!(o, n);
        assert_eq!(o["keys"], json!(["T2.a"]));
    }

    #[test]
    fn another_column_of_the_union_is_still_another_key() {
        let old = facts(json!({"keys": ["UNION(T1.a, T2.a)"]}));
        let new = facts(json!({"keys": ["UNION(T1.b, T2.b)"]}));
        let (o, n) = align(&old, &new);
        assert_ne!(o, n);
    }

    #[test]
    fn a_column_is_matched_as_a_whole_name() {
        let old = facts(json!({"keys": ["T1.ab"]}));
        let new = facts(json!({"keys": ["UNION(T1.a, T2.a)"]}));
        let (o, n) = align(&old, &new);
        assert_ne!(o, n);
        assert!(union_calls("CONCAT('UNION(x', T1.a)").is_empty());
    }

    #[test]
    fn the_filters_of_an_added_input_belong_to_it() {
        let old = facts(json!({"keys": ["T1.a"], "filters": ["T1.c > 0"]}));
        let new =
            facts(json!({"keys": ["UNION(T1.a, T2.a)"], "filters": ["T1.c > 0", "T2.b > 10"]}));
        let (o, n) = align(&old, &new);
        assert_eq!(o, n);
        // A filter on an input both sides read is still the operator's.
        let changed =
            facts(json!({"keys": ["UNION(T1.a, T2.a)"], "filters": ["T1.c > 5", "T2.b > 10"]}));
        let (o, n) = align(&old, &changed);
        assert_ne!(o, n);
    }

    #[test]
    fn nested_calls_and_quotes_split_at_top_level_commas() {
        let calls = union_calls("SUM(UNION(COALESCE(T1.b, 0), 'a,b', T2.b)) > 1");
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].args, vec!["COALESCE(T1.b, 0)", "'a,b'", "T2.b"]);
    }
}
