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
}
