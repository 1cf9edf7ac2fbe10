//! A table's `/*+ OPTIONS('k' = 'v') */` hint (written right after the table's name in FROM):
//! Flink reads the table with its WITH options changed by the hint, for this query only. The
//! tool models it as that: the source's options as the query sees them, judged by the same
//! table-option rules as a change of the DDL.

use crate::source::{ByteSpan, SourceFile};

/// An OPTIONS hint read after a table name.
#[derive(Debug, Clone, PartialEq)]
pub struct OptionsHint {
    /// The options, in the order written.
    pub options: Vec<(String, String)>,
    /// The hint as the query's hint list records it (whitespace-normalized, without `/*+ */`).
    pub text: String,
    pub span: ByteSpan,
}

/// The hint comment written right after `name_end` (only whitespace between), when it is
/// exactly one OPTIONS hint of quoted keys and values; None otherwise (then it stays a hint the
/// tool does not model).
pub fn after_table_name(file: &SourceFile, name_end: usize) -> Option<OptionsHint> {
    let rest = file.text.get(name_end..)?;
    let start = name_end + (rest.len() - rest.trim_start().len());
    let rest = rest.trim_start().strip_prefix("/*+")?;
    let body = &rest[..rest.find("*/")?];
    let span = ByteSpan::new(start, start + 3 + body.len() + 2);
    let text = body.split_whitespace().collect::<Vec<_>>().join(" ");
    let options = parse_options(body.trim())?;
    Some(OptionsHint {
        options,
        text,
        span,
    })
}

/// `OPTIONS('k' = 'v', ...)` → its pairs.
fn parse_options(body: &str) -> Option<Vec<(String, String)>> {
    let head = body.get(..7)?;
    if !head.eq_ignore_ascii_case("OPTIONS") {
        return None;
    }
    let inner = body[7..].trim_start().strip_prefix('(')?;
    let inner = inner.trim_end().strip_suffix(')')?;
    let mut rest = inner.trim();
    let mut options = Vec::new();
    while !rest.is_empty() {
        let (key, after) = quoted(rest)?;
        let after = after.trim_start().strip_prefix('=')?;
        let (value, after) = quoted(after.trim_start())?;
        options.push((key, value));
        let after = after.trim_start();
        rest = match after.strip_prefix(',') {
            Some(next) => next.trim_start(),
            None if after.is_empty() => after,
            None => return None,
        };
    }
    (!options.is_empty()).then_some(options)
}

/// One hint of a hint comment: `NAME`, `NAME('k' = 'v', ...)` or `NAME(a, b)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Hint {
    /// The hint's name, uppercased.
    pub name: String,
    /// Its options: `k = v` pairs unquoted; a list option `a` as `(a, "")`.
    pub options: Vec<(String, String)>,
    /// The hint as written, whitespace-normalized.
    pub text: String,
}

impl Hint {
    /// The value of option `key` (its case aside).
    pub fn option(&self, key: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }
}

/// The hints of a hint comment's body (without `/*+ */`), split at the commas between them;
/// None when it is not a list of hints as Flink's parser reads them.
pub fn hint_list(body: &str) -> Option<Vec<Hint>> {
    let mut hints = Vec::new();
    let mut rest = body.trim();
    while !rest.is_empty() {
        let name_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if name_len == 0 || rest.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        let name = rest[..name_len].to_uppercase();
        let mut after = rest[name_len..].trim_start();
        let mut options = Vec::new();
        if let Some(inner) = after.strip_prefix('(') {
            let close = closing_bracket(inner)?;
            for option in split_options(&inner[..close])? {
                options.push(match option.split_once('=') {
                    Some((k, v)) => (unquote(k)?, unquote(v)?),
                    None => (unquote(option)?, String::new()),
                });
            }
            after = inner[close + 1..].trim_start();
        }
        let consumed = rest.len() - after.len();
        let text = rest[..consumed]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        hints.push(Hint {
            name,
            options,
            text,
        });
        rest = match after.strip_prefix(',') {
            Some(next) => next.trim_start(),
            None if after.is_empty() => after,
            None => return None,
        };
    }
    (!hints.is_empty()).then_some(hints)
}

/// Where the bracket opened before `text` closes (quotes respected), as an index into `text`.
fn closing_bracket(text: &str) -> Option<usize> {
    let mut quote = None::<char>;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"' | '`') => quote = Some(c),
            (None, ')') => return Some(i),
            (None, '(') => return None,
            _ => {}
        }
    }
    None
}

/// A hint's options split at the commas outside quotes (a doubled quote stays inside); none for
/// an empty list.
fn split_options(text: &str) -> Option<Vec<&str>> {
    if text.trim().is_empty() {
        return Some(Vec::new());
    }
    Some(crate::sql::quoted::split_outside_quotes(text))
}

/// A hint option's key or value: a quoted string unquoted (`''` is a quote), or a bare word.
fn unquote(text: &str) -> Option<String> {
    let text = text.trim();
    if text.starts_with('\'') {
        let (value, after) = quoted(text)?;
        return after.trim().is_empty().then_some(value);
    }
    let bare = text.trim_matches(|c| c == '"' || c == '`');
    (!bare.is_empty()
        && bare
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c)))
    .then(|| bare.to_string())
}

/// A single-quoted SQL string at the start of `text` (`''` is a quote) and what follows it.
fn quoted(text: &str) -> Option<(String, &str)> {
    let mut chars = text.strip_prefix('\'')?.char_indices().peekable();
    let mut value = String::new();
    while let Some((i, c)) = chars.next() {
        if c == '\'' {
            if chars.peek().map(|(_, n)| *n) == Some('\'') {
                chars.next();
                value.push('\'');
                continue;
            }
            return Some((value, &text[i + 2..]));
        }
        value.push(c);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::parse_options;

    #[test]
    fn options_are_read_as_written() {
        assert_eq!(
            parse_options("OPTIONS('scan.startup.mode' = 'latest-offset', 'a''b'='c')"),
            Some(vec![
                ("scan.startup.mode".into(), "latest-offset".into()),
                ("a'b".into(), "c".into())
            ])
        );
        assert_eq!(parse_options("OPTIONS('a'='b') STATE_TTL('t'='1d')"), None);
        assert_eq!(parse_options("LOOKUP('table'='d')"), None);
        assert_eq!(parse_options("OPTIONS()"), None);
    }

    #[test]
    fn a_comment_is_split_into_its_hints() {
        let hints = super::hint_list(
            "LOOKUP('table'='u', 'async'='false'), LOOKUP( 'table' = 's','async'='true' ) BROADCAST(a, b), X",
        );
        assert_eq!(hints, None, "no comma between two hints");
        let hints = super::hint_list(
            "LOOKUP('table'='u', 'async'='false'), LOOKUP( 'table' = 's','async'='true' ), BROADCAST(a, b), X",
        )
        .expect("hints");
        let names: Vec<&str> = hints.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(names, ["LOOKUP", "LOOKUP", "BROADCAST", "X"]);
        assert_eq!(hints[1].option("TABLE"), Some("s"));
        assert_eq!(hints[1].option("async"), Some("true"));
        assert_eq!(hints[1].text, "LOOKUP( 'table' = 's','async'='true' )");
        assert_eq!(
            hints[2].options,
            [("a".into(), String::new()), ("b".into(), String::new())]
        );
        assert_eq!(
            super::hint_list("LOOKUP('t'='a,b)')"),
            Some(vec![super::Hint {
                name: "LOOKUP".into(),
                options: vec![("t".into(), "a,b)".into())],
                text: "LOOKUP('t'='a,b)')".into(),
            }])
        );
        assert_eq!(super::hint_list("LOOKUP('t'='a'"), None);
        assert_eq!(super::hint_list(""), None);
    }
}
