//! The normalized form in which the plan oracle compares an operator of the tool with an exec
//! node Flink planned: a node kind (Flink's exec node name without `stream-exec-` and version)
//! and attributes, each a short text both sides can produce. A field is named by the source
//! column it is (`table.column`, lower case, the table's last name part, a self-join's `#2`
//! dropped) or `expr` when it is computed.

use serde_json::Value;
use std::collections::BTreeMap;

/// One node, normalized: its kind and its attributes by name.
#[derive(Debug, Clone)]
pub struct Normal {
    pub kind: String,
    pub attrs: BTreeMap<&'static str, String>,
}

impl Normal {
    /// The same node with the script's computed columns masked (see `mask_computed`), except in
    /// `filter_columns`, where Flink names the columns a computed column reads.
    pub fn masking(mut self, computed: &std::collections::BTreeSet<String>) -> Normal {
        for (name, value) in self.attrs.iter_mut() {
            if *name != "filter_columns" {
                *value = mask_computed(value, computed);
            }
        }
        self
    }
}

/// Flink's exec nodes that are one logical operator of the tool: the halves of a two-phase
/// (mini-batch) aggregate are the aggregate the tool models; the configuration rules judge the
/// split itself.
pub fn flink_kind(node: &str) -> String {
    match node {
        "global-group-aggregate" | "incremental-group-aggregate" => "group-aggregate".into(),
        "global-window-aggregate" => "window-aggregate".into(),
        other => other.into(),
    }
}

/// `a.b.T.c` → `t.c`; anything that is not a (qualified) column → `expr`.
pub fn field(text: &str) -> String {
    let t = strip_self_join_suffix(strip_lookup(strip_identity(text.trim())));
    let parts: Vec<&str> = t.split('.').collect();
    let is_ident = |p: &str| {
        let p = p.trim_matches('`');
        !p.is_empty()
            && p.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
            && p.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
    };
    if parts.len() >= 2 && parts.iter().all(|p| is_ident(p)) {
        let n = parts.len();
        format!(
            "{}.{}",
            parts[n - 2].trim_matches('`'),
            parts[n - 1].trim_matches('`')
        )
        .to_lowercase()
    } else {
        "expr".into()
    }
}

/// `c * 1`, `c + 0`, `1 * c`, ... → `c`: the tool keeps an arithmetic identity of a window's
/// key or an OVER call's argument as written (a field of its own in the row the operator
/// stores); Flink simplifies it to a second copy of the column there, which the lab names as
/// the column.
fn strip_identity(text: &str) -> &str {
    for suffix in [" * 1", " / 1", " + 0", " - 0"] {
        if let Some(column) = text.strip_suffix(suffix) {
            return column;
        }
    }
    for prefix in ["1 * ", "0 + "] {
        if let Some(column) = text.strip_prefix(prefix) {
            return column;
        }
    }
    text
}

/// The tool names a column of a looked-up table `lookup[condition]:table.column`; Flink names
/// it `table.column`.
fn strip_lookup(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("lookup[") else {
        return text;
    };
    let mut depth = 1;
    for (i, c) in rest.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return rest[i + 1..].strip_prefix(':').unwrap_or(text);
                }
            }
            _ => {}
        }
    }
    text
}

fn strip_self_join_suffix(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '#' && chars.peek().is_some_and(char::is_ascii_digit) {
            while chars.peek().is_some_and(char::is_ascii_digit) {
                chars.next();
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A list of fields, normalized and joined.
pub fn fields<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    items.into_iter().map(field).collect::<Vec<_>>().join(", ")
}

/// `x DESC` → `t.x DESC` (ASC when no direction is written).
pub fn order_item(text: &str) -> String {
    let t = text.trim();
    let upper = t.to_uppercase();
    let (expr, dir) = if let Some(e) = upper.strip_suffix(" DESC") {
        (&t[..e.len()], "DESC")
    } else if let Some(e) = upper.strip_suffix(" ASC") {
        (&t[..e.len()], "ASC")
    } else {
        (t, "ASC")
    };
    format!("{} {dir}", field(expr))
}

pub fn order<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    items
        .into_iter()
        .map(order_item)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `SUM(T.b)` → `SUM(t.b)`, `COUNT(DISTINCT T.c)` → `COUNT(DISTINCT t.c)`, `COUNT(1)` →
/// `COUNT(*)`; arguments are fields.
pub fn aggregate(text: &str) -> String {
    let t = text.trim();
    let Some(open) = t.find('(') else {
        return t.to_uppercase();
    };
    let name = t[..open].trim().to_uppercase();
    // Flink versions its internal functions (`$WELFORD_M2$1`): the version is no part of the call.
    let name = match name.rsplit_once('$') {
        Some((base, version))
            if !base.is_empty()
                && !version.is_empty()
                && version.bytes().all(|b| b.is_ascii_digit()) =>
        {
            base.to_string()
        }
        _ => name,
    };
    let inner = t[open + 1..].rsplit_once(')').map_or("", |(a, _)| a).trim();
    let (distinct, args) = match inner.get(..9) {
        Some(head) if head.eq_ignore_ascii_case("DISTINCT ") => ("DISTINCT ", &inner[9..]),
        _ => ("", inner),
    };
    let args: Vec<String> = split_top_level(args)
        .into_iter()
        .filter(|a| !a.is_empty())
        .map(|a| field(&a))
        .collect();
    let args = if name == "COUNT" && distinct.is_empty() && args.iter().all(|a| a == "expr") {
        "*".to_string()
    } else {
        args.join(", ")
    };
    format!("{name}({distinct}{args})")
}

fn split_top_level(text: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth, mut quoted) = (Vec::new(), String::new(), 0i32, false);
    for c in text.chars() {
        match c {
            '\'' => quoted = !quoted,
            // A bracket nests too: the tool names a value an upstream operator computes
            // `group_aggregate[k1, k2 BY ...]:COUNT(*)`, one argument.
            '(' | '[' if !quoted => depth += 1,
            ')' | ']' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// `a = b` split at its top-level `=` (not one inside a call or a string); a null-safe
/// `a IS NOT DISTINCT FROM b` of two columns too (Flink's join keys hold both alike).
pub fn split_equality(term: &str) -> Option<(&str, &str)> {
    if let Some((a, b)) = term.split_once(" IS NOT DISTINCT FROM ") {
        let plain = |s: &str| !s.contains([' ', '(', '\'']);
        if plain(a) && plain(b) {
            return Some((a, b));
        }
    }
    let (mut depth, mut quoted) = (0i32, false);
    for (i, c) in term.char_indices() {
        match c {
            '\'' => quoted = !quoted,
            '(' | '[' if !quoted => depth += 1,
            ')' | ']' if !quoted => depth -= 1,
            '=' if !quoted && depth == 0 => {
                let before = term[..i].trim_end();
                if before.ends_with(['<', '>', '!']) || term[i + 1..].starts_with('=') {
                    return None;
                }
                return Some((before, term[i + 1..].trim_start()));
            }
            _ => {}
        }
    }
    None
}

/// The inputs whose columns a text reads (a table read twice is two inputs: `t`, `t#2`).
pub fn tables_read(text: &str) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in text.chars().chain(std::iter::once(' ')) {
        if c == '\'' {
            quoted = !quoted;
            word.clear();
            continue;
        }
        if !quoted && (c.is_alphanumeric() || matches!(c, '_' | '$' | '.' | '#' | '`')) {
            word.push(c);
            continue;
        }
        if let Some((table, _)) = word.rsplit_once('.') {
            if table.starts_with(|c: char| c.is_alphabetic() || c == '_' || c == '`') {
                let last = table.rsplit('.').next().unwrap_or(table);
                out.insert(last.to_lowercase());
            }
        }
        word.clear();
    }
    out
}

/// A list of fields as a set (sorted): Flink keys a rank, a deduplication and an over
/// aggregate by its partition columns in their input order, whatever order PARTITION BY says.
pub fn field_set<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    let mut fields: Vec<String> = items.into_iter().map(field).collect();
    fields.sort();
    fields.join(", ")
}

/// Each field of a normalized text that is a computed column of the tool's catalog becomes
/// `expr`: Flink's plan names a computed column by the expression computing it.
pub fn mask_computed(text: &str, computed: &std::collections::BTreeSet<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    for c in text.chars().chain(std::iter::once('\u{0}')) {
        if c.is_alphanumeric() || matches!(c, '_' | '$' | '.') {
            word.push(c);
            continue;
        }
        if computed.contains(&word) {
            out.push_str("expr");
        } else {
            out.push_str(&word);
        }
        word.clear();
        if c != '\u{0}' {
            out.push(c);
        }
    }
    out
}

/// The columns the filter terms read, as a sorted set of fields (quoted strings skipped).
pub fn filter_columns<'a>(terms: impl IntoIterator<Item = &'a str>) -> String {
    let mut cols = std::collections::BTreeSet::new();
    for term in terms {
        let mut word = String::new();
        let mut quoted = false;
        for c in term.chars().chain(std::iter::once(' ')) {
            if c == '\'' {
                quoted = !quoted;
                word.clear();
                continue;
            }
            if !quoted && (c.is_alphanumeric() || matches!(c, '_' | '$' | '.' | '#' | '`')) {
                word.push(c);
                continue;
            }
            if word.contains('.')
                && word.starts_with(|c: char| c.is_alphabetic() || c == '_' || c == '`')
            {
                let f = field(&word);
                if f != "expr" {
                    cols.insert(f);
                }
            }
            word.clear();
        }
    }
    cols.into_iter().collect::<Vec<_>>().join(", ")
}

/// An ISO-8601 duration as Flink writes it (`PT1M`, `PT0.5S`, `PT2H30M`) in milliseconds.
pub fn duration_ms(text: &str) -> Option<i64> {
    let rest = text.strip_prefix("PT")?;
    let (mut total, mut number) = (0f64, String::new());
    for c in rest.chars() {
        if c.is_ascii_digit() || c == '.' || c == '-' {
            number.push(c);
            continue;
        }
        let n: f64 = number.parse().ok()?;
        number.clear();
        total += n * match c {
            'H' => 3_600_000.0,
            'M' => 60_000.0,
            'S' => 1000.0,
            _ => return None,
        };
    }
    Some(total.round() as i64)
}

/// A window as `kind size=.. slide=.. gap=.. step=..` from Flink's window JSON.
pub fn flink_window(w: &Value) -> String {
    let kind = w.get("kind").and_then(Value::as_str).unwrap_or("?");
    let kind = match kind {
        "TUMBLING" | "TumblingWindow" => "tumble",
        "SLIDING" | "HoppingWindow" | "SlidingWindow" => "hop",
        "SESSION" | "SessionWindow" => "session",
        "CumulativeWindow" => "cumulate",
        other => other,
    };
    let ms = |k: &str| w.get(k).and_then(Value::as_str).and_then(duration_ms);
    window_text(
        kind,
        ms("size").or(ms("maxSize")),
        ms("slide"),
        ms("gap"),
        ms("step"),
    )
}

/// The same from the tool's `window` fact (`{kind, size_ms, slide_ms, gap_ms, step_ms}`).
pub fn tool_window(w: &Value) -> String {
    let kind = w.get("kind").and_then(Value::as_str).unwrap_or("?");
    let kind = match kind {
        "tumble" | "tumbling" => "tumble",
        "hop" | "hopping" | "slide" | "sliding" => "hop",
        other => other,
    };
    let ms = |k: &str| w.get(k).and_then(Value::as_i64);
    window_text(
        kind,
        ms("size_ms"),
        ms("slide_ms"),
        ms("gap_ms"),
        ms("step_ms"),
    )
}

fn window_text(
    kind: &str,
    size: Option<i64>,
    slide: Option<i64>,
    gap: Option<i64>,
    step: Option<i64>,
) -> String {
    let mut out = kind.to_string();
    for (name, v) in [
        ("size", size),
        ("slide", slide),
        ("gap", gap),
        ("step", step),
    ] {
        if let Some(v) = v {
            out.push_str(&format!(" {name}={v}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_normalize_to_table_and_column() {
        assert_eq!(field("db.Orders.Amount"), "orders.amount");
        assert_eq!(field("orders#2.id"), "orders.id");
        assert_eq!(field("UPPER(T.c)"), "expr");
        assert_eq!(field("lookup[o.uid = u.uid]:Users.city"), "users.city");
        assert_eq!(
            tables_read("o.id"),
            tables_read("o#2.id")
                .iter()
                .map(|t| t.replace("#2", ""))
                .collect()
        );
        assert_ne!(tables_read("o.id"), tables_read("o#2.id"));
        assert_eq!(aggregate("count(1)"), "COUNT(*)");
        assert_eq!(aggregate("SUM(T.b)"), "SUM(t.b)");
        assert_eq!(aggregate("COUNT(DISTINCT T.c)"), "COUNT(DISTINCT t.c)");
        assert_eq!(order_item("T.x desc"), "t.x DESC");
        assert_eq!(duration_ms("PT1M"), Some(60_000));
        assert_eq!(
            filter_columns(["SEARCH(T.x, SARG[[10..20]])", "o#2.y = 'a.b'"]),
            "o.y, t.x"
        );
        assert_eq!(duration_ms("PT0.5S"), Some(500));
    }
}
