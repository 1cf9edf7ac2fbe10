//! Tokenizes a whole script once and cuts it into statements at top-level semicolons.

use super::dialect::FlinkDialect;
use crate::error::{Error, Result};
use crate::limits::{MAX_STATEMENTS, MAX_STATEMENT_TOKENS};
use crate::source::{ByteSpan, SourceFile};
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer, Whitespace};

/// The tokens of one statement (no trailing semicolon, no leading whitespace).
#[derive(Debug, Clone)]
pub struct RawStatement {
    pub tokens: Vec<TokenWithSpan>,
    pub span: ByteSpan,
}

impl RawStatement {
    /// The first `n` words, uppercased, skipping whitespace and comments.
    pub fn leading_words(&self, n: usize) -> Vec<String> {
        self.tokens
            .iter()
            .filter(|t| !matches!(t.token, Token::Whitespace(_)))
            .take(n)
            .map(|t| match &t.token {
                Token::Word(w) if w.quote_style.is_none() => w.value.to_uppercase(),
                other => other.to_string(),
            })
            .collect()
    }

    /// Where the first significant token is (the statement's span when it has none).
    pub fn first_word_span(&self, file: &SourceFile) -> ByteSpan {
        self.tokens
            .iter()
            .find(|t| !matches!(t.token, Token::Whitespace(_)))
            .map(|t| file.span_of(t.span))
            .unwrap_or(self.span)
    }

    /// The optimizer hints of the statement: comments of the form `/*+ ... */`.
    /// A STATE_TTL hint Flink ignores is left out: it applies only to the regular joins and
    /// group aggregates of the query block whose SELECT it follows (plan lab: the same hint on
    /// the SELECT above a CTE or subquery that aggregates, or after a table name, leaves the
    /// aggregate's state without a time-to-live).
    pub fn hints(&self) -> Vec<String> {
        self.tokens
            .iter()
            .enumerate()
            .filter_map(|(i, t)| match &t.token {
                Token::Whitespace(Whitespace::MultiLineComment(text)) if text.starts_with('+') => {
                    let hint = text[1..].split_whitespace().collect::<Vec<_>>().join(" ");
                    if !is_state_ttl(&hint) {
                        return Some(hint);
                    }
                    state_ttl_applies(&self.tokens, i)
                        .then(|| super::state_ttl_keys::canonical(&hint, &self.tokens, i))
                }
                _ => None,
            })
            .collect()
    }

    /// Drops the first `n` significant tokens (and the whitespace around them).
    pub fn skip_words(&self, file: &SourceFile, n: usize) -> RawStatement {
        let mut seen = 0;
        let mut index = 0;
        for (i, t) in self.tokens.iter().enumerate() {
            if matches!(t.token, Token::Whitespace(_)) {
                continue;
            }
            if seen == n {
                index = i;
                break;
            }
            seen += 1;
            index = i + 1;
        }
        trimmed(file, self.tokens[index.min(self.tokens.len())..].to_vec())
    }
}

/// Whitespace and comments, but not an optimizer hint (`/*+ ... */`): a hint ending a statement
/// (`FROM t /*+ OPTIONS(...) */;`) is part of it.
fn is_blank(token: &Token) -> bool {
    match token {
        Token::Whitespace(Whitespace::MultiLineComment(text)) => !text.starts_with('+'),
        Token::Whitespace(_) | Token::EOF => true,
        _ => false,
    }
}

fn trimmed(file: &SourceFile, mut tokens: Vec<TokenWithSpan>) -> RawStatement {
    let first = tokens.iter().position(|t| !is_blank(&t.token));
    let last = tokens.iter().rposition(|t| !is_blank(&t.token));
    let span = match (first, last) {
        (Some(f), Some(l)) => {
            let span = file
                .span_of(tokens[f].span)
                .union(file.span_of(tokens[l].span));
            tokens.truncate(l + 1);
            tokens.drain(..f);
            span
        }
        _ => {
            tokens.clear();
            ByteSpan::default()
        }
    };
    RawStatement { tokens, span }
}

/// The script's tokens. A byte-order mark (U+FEFF, which editors on Windows put at the start of
/// a UTF-8 file) is whitespace: invisible to the person reading the script, so to the tool.
pub fn tokenize(file: &SourceFile) -> Result<Vec<TokenWithSpan>> {
    let dialect = FlinkDialect;
    let mut tokens = Tokenizer::new(&dialect, &file.text)
        .tokenize_with_location()
        .map_err(|e| {
            let offset = file.offset_of(e.location.line, e.location.column);
            Error::sql(
                file,
                ByteSpan::new(offset, offset + 1),
                format!("cannot read the SQL: {}", e.message),
            )
        })?;
    for token in &mut tokens {
        if token.token == Token::Char(BYTE_ORDER_MARK) {
            token.token = Token::Whitespace(Whitespace::Space);
        }
    }
    Ok(tokens)
}

const BYTE_ORDER_MARK: char = '\u{feff}';

/// Cuts the script into statements; comments-only pieces are dropped.
pub fn split(file: &SourceFile) -> Result<Vec<RawStatement>> {
    let tokens = tokenize(file)?;
    let mut statements = Vec::new();
    let mut current = Vec::new();
    for token in tokens {
        if token.token == Token::SemiColon {
            push(file, &mut statements, std::mem::take(&mut current))?;
        } else {
            current.push(token);
        }
    }
    push(file, &mut statements, current)?;
    Ok(statements)
}

fn push(file: &SourceFile, out: &mut Vec<RawStatement>, tokens: Vec<TokenWithSpan>) -> Result<()> {
    let only_comments = tokens.iter().all(|t| {
        matches!(
            t.token,
            Token::Whitespace(
                Whitespace::Space
                    | Whitespace::Newline
                    | Whitespace::Tab
                    | Whitespace::SingleLineComment { .. }
                    | Whitespace::MultiLineComment(_)
            ) | Token::EOF
        )
    });
    if only_comments {
        return Ok(());
    }
    if out.len() >= MAX_STATEMENTS {
        let raw = trimmed(file, tokens);
        return Err(Error::located(
            "sql",
            file,
            raw.span,
            format!("the script has more than {MAX_STATEMENTS} statements"),
            "this statement is over the limit",
            Some("split the deployment into smaller scripts".into()),
        ));
    }
    let raw = trimmed(file, tokens);
    let significant = raw
        .tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_) | Token::Comma))
        .count();
    if significant > MAX_STATEMENT_TOKENS {
        return Err(Error::located(
            "sql",
            file,
            raw.span,
            format!("this statement has {significant} tokens; the limit is {MAX_STATEMENT_TOKENS}"),
            "this statement",
            Some("split the statement, e.g. into views".into()),
        ));
    }
    out.push(raw);
    Ok(())
}

/// Whether an uppercased word names a built-in aggregate function.
fn is_builtin_aggregate(word: &str) -> bool {
    let names = super::aggregate_names::BUILTIN_AGGREGATES.iter();
    names
        .chain(super::aggregate_names::VARIANCE_AGGREGATES)
        .any(|n| *n == word)
}

/// Whether a hint is a STATE_TTL hint.
fn is_state_ttl(hint: &str) -> bool {
    hint.split_once('(')
        .is_some_and(|(name, _)| name.trim().eq_ignore_ascii_case("STATE_TTL"))
}

/// Whether the hint comment at `at` follows a SELECT whose own block (not a subquery, CTE or
/// view inside it) has a regular join (JOIN, or a comma in FROM) or a group aggregate (GROUP BY,
/// DISTINCT, an aggregate call), the operators a STATE_TTL hint applies to.
fn state_ttl_applies(tokens: &[TokenWithSpan], at: usize) -> bool {
    let significant = |t: &&TokenWithSpan| !matches!(t.token, Token::Whitespace(_));
    let is_word = |t: &Token, word: &str| matches!(t, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word));
    let follows_select = tokens[..at]
        .iter()
        .rev()
        .find(significant)
        .is_some_and(|t| is_word(&t.token, "SELECT"));
    if !follows_select {
        return false;
    }
    let rest: Vec<&TokenWithSpan> = tokens[at + 1..].iter().filter(significant).collect();
    let mut depth = 0usize;
    let mut in_from = false;
    for (i, t) in rest.iter().enumerate() {
        match &t.token {
            Token::LParen => depth += 1,
            Token::RParen if depth == 0 => return false,
            Token::RParen => depth -= 1,
            _ if depth > 0 => {}
            // `FROM a, b`: a join written with a comma.
            Token::Comma if in_from => return true,
            Token::Word(w) if w.quote_style.is_none() => {
                let word = w.value.to_uppercase();
                if word == "FROM" {
                    in_from = true;
                } else if matches!(word.as_str(), "WHERE" | "GROUP" | "HAVING" | "WINDOW") {
                    in_from = false;
                }
                if matches!(word.as_str(), "UNION" | "INTERSECT" | "EXCEPT") {
                    return false;
                }
                let call = matches!(rest.get(i + 1).map(|n| &n.token), Some(Token::LParen));
                if matches!(word.as_str(), "GROUP" | "JOIN" | "DISTINCT")
                    || (call && is_builtin_aggregate(&word))
                {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}
