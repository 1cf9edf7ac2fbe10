//! Where a parse error really is. sqlparser tries some constructs and, when one fails, goes
//! back and reads the text another way: a subquery in FROM that does not parse is read again as
//! a parenthesized join, and the error then names the subquery's first token, not its fault.
//! This module reads each subquery, CASE and ARRAY constructor of a statement that failed on
//! its own, and reports the error of the innermost one that fails when it lies past the
//! statement's error: that is the fault Flink's parser reports.

use super::dialect::FlinkDialect;
use crate::limits::MAX_SQL_NESTING;
use crate::source::{ByteSpan, SourceFile};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Location, Token, TokenWithSpan, Tokenizer};

/// `error`, or the error of a construct of the statement at `span` that fails further on.
pub fn locate(file: &SourceFile, span: ByteSpan, error: ParserError) -> ParserError {
    let ParserError::ParserError(message) = &error else {
        return error;
    };
    let Some(outer) = position(message) else {
        return error;
    };
    let Some(tokens) = statement_tokens(file, span) else {
        return error;
    };
    let mut failures: Vec<(usize, usize, ParserError, Location)> = Vec::new();
    for (start, end, kind) in constructs(&tokens).into_iter().take(MAX_CONSTRUCTS) {
        let region = tokens[start..end].to_vec();
        // A subquery's end is its closing parenthesis.
        let end_at = tokens.get(end).map(|t| t.span.start);
        if let Err(e) = parse_region(region, kind, end_at) {
            if let ParserError::ParserError(m) = &e {
                if let Some(at) = position(m) {
                    let e = match kind {
                        Kind::Query => {
                            ParserError::ParserError(m.replace("found: EOF", "found: )"))
                        }
                        _ => e,
                    };
                    failures.push((start, end, e, at));
                }
            }
        }
    }
    // The innermost failing construct: none of the other failing ones lies inside it.
    let innermost = failures
        .iter()
        .filter(|(s, e, _, _)| {
            !failures
                .iter()
                .any(|(s2, e2, _, _)| (s2, e2) != (s, e) && s2 >= s && e2 <= e)
        })
        .min_by_key(|(s, _, _, _)| *s);
    match innermost {
        Some((_, _, e, at)) if (at.line, at.column) > (outer.line, outer.column) => e.clone(),
        _ => error,
    }
}

/// How many constructs of one failing statement are read again (each is parsed on its own).
const MAX_CONSTRUCTS: usize = 256;

#[derive(Clone, Copy)]
enum Kind {
    Query,
    Case,
    Array,
}

/// The statement's tokens, located in the file (whitespace dropped).
fn statement_tokens(file: &SourceFile, span: ByteSpan) -> Option<Vec<TokenWithSpan>> {
    let text = file.text.get(span.start..span.end)?;
    let base = file.line_col(span.start);
    let tokens = Tokenizer::new(&FlinkDialect, text)
        .tokenize_with_location()
        .ok()?;
    let shift = |l: Location| Location {
        line: l.line + base.line as u64 - 1,
        column: if l.line == 1 {
            l.column + base.column as u64 - 1
        } else {
            l.column
        },
    };
    Some(
        tokens
            .into_iter()
            .filter(|t| !matches!(t.token, Token::Whitespace(_)))
            .map(|mut t| {
                t.span.start = shift(t.span.start);
                t.span.end = shift(t.span.end);
                t
            })
            .collect(),
    )
}

fn keyword(token: &Token) -> Keyword {
    match token {
        Token::Word(w) if w.quote_style.is_none() => w.keyword,
        _ => Keyword::NoKeyword,
    }
}

/// The constructs of a statement as token ranges: `( SELECT ... )` (the query inside),
/// `CASE ... END` and `ARRAY[ ... ]` (the whole expression).
fn constructs(tokens: &[TokenWithSpan]) -> Vec<(usize, usize, Kind)> {
    let mut out = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        let next = tokens.get(i + 1).map(|t| &t.token);
        match &t.token {
            Token::LParen
                if next.is_some_and(|n| {
                    matches!(
                        keyword(n),
                        Keyword::SELECT | Keyword::WITH | Keyword::VALUES
                    )
                }) =>
            {
                if let Some(close) = closing(tokens, i, &Token::LParen, &Token::RParen) {
                    out.push((i + 1, close, Kind::Query));
                }
            }
            Token::Word(_) if keyword(&t.token) == Keyword::CASE => {
                if let Some(end) = case_end(tokens, i) {
                    out.push((i, end + 1, Kind::Case));
                }
            }
            Token::Word(_)
                if keyword(&t.token) == Keyword::ARRAY && next == Some(&Token::LBracket) =>
            {
                if let Some(close) = closing(tokens, i + 1, &Token::LBracket, &Token::RBracket) {
                    out.push((i, close + 1, Kind::Array));
                }
            }
            _ => {}
        }
    }
    out
}

/// The index of the token closing the bracket opened at `open`.
fn closing(tokens: &[TokenWithSpan], open: usize, opener: &Token, closer: &Token) -> Option<usize> {
    let mut depth = 0usize;
    for (i, t) in tokens.iter().enumerate().skip(open) {
        if &t.token == opener {
            depth += 1;
        } else if &t.token == closer {
            depth = depth.checked_sub(1)?;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// The index of the `END` closing the `CASE` at `start` (nested CASEs counted).
fn case_end(tokens: &[TokenWithSpan], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, t) in tokens.iter().enumerate().skip(start) {
        match keyword(&t.token) {
            Keyword::CASE => depth += 1,
            Keyword::END => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Parses one construct on its own. The parsers of CASE and ARRAY are called directly: through
/// `parse_expr`, sqlparser would read a failing CASE again as a column named `CASE`.
fn parse_region(
    mut tokens: Vec<TokenWithSpan>,
    kind: Kind,
    end_at: Option<Location>,
) -> Result<(), ParserError> {
    let end = end_at.unwrap_or_else(|| {
        tokens
            .last()
            .map(|t| t.span.end)
            .unwrap_or(Location { line: 0, column: 0 })
    });
    tokens.push(TokenWithSpan::at(Token::EOF, end, end));
    let tokens = super::flink_syntax::rewrite(tokens);
    let dialect = FlinkDialect;
    let mut parser = Parser::new(&dialect)
        .with_recursion_limit(MAX_SQL_NESTING)
        .with_tokens_with_locations(tokens);
    let closing = match kind {
        Kind::Query => {
            parser.parse_query()?;
            ")"
        }
        Kind::Case => {
            parser.next_token();
            parser.parse_case_expr()?;
            "END"
        }
        Kind::Array => {
            parser.next_token();
            parser.expect_token(&Token::LBracket)?;
            parser.parse_array_expr(true)?;
            "]"
        }
    };
    let next = parser.peek_token();
    if next.token == Token::EOF {
        Ok(())
    } else {
        Err(ParserError::ParserError(format!(
            "Expected: {closing}, found: {} at Line: {}, Column: {}",
            next.token, next.span.start.line, next.span.start.column
        )))
    }
}

/// The `at Line: l, Column: c` of a sqlparser message.
fn position(message: &str) -> Option<Location> {
    let at = message.rfind(" at Line: ")?;
    let rest = &message[at + " at Line: ".len()..];
    let (line, rest) = rest.split_once(", Column: ")?;
    let column: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    Some(Location {
        line: line.trim().parse().ok()?,
        column: column.parse().ok()?,
    })
}
