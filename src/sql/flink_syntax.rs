//! Flink spellings sqlparser reads in another form, rewritten token for token (each keeps its
//! place in the script): the row type `ROW<a INT>` or `ROW(a INT)` (after `AS` of a CAST or
//! inside another composite type) becomes sqlparser's `STRUCT<a INT>`, and the map
//! constructor `MAP[k1, v1]` the call `MAP(k1, v1)`.

use sqlparser::tokenizer::{Location, Span, Token, TokenWithSpan, Word};

/// The tokens with Flink's row types and map constructors in sqlparser's spelling.
pub fn rewrite(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    // Per open bracket, what its closing token becomes; and how many of them open a type.
    let mut closers: Vec<(Token, bool)> = Vec::new();
    let mut in_type = 0usize;
    for token in tokens {
        let (previous, before) = last_two_words(&out);
        let opens_row = previous == "ROW" && (before == "AS" || in_type > 0);
        let opens = |t: &Token| {
            matches!(t, Token::LParen | Token::Lt | Token::LBracket)
                && (opens_row || (t == &Token::Lt && is_composite(&previous)))
        };
        match &token.token {
            t if opens(t) => {
                let _ = t;
                if opens_row {
                    rename_last_word(&mut out, "STRUCT");
                }
                closers.push((Token::Gt, true));
                in_type += 1;
                out.push(replaced(&token, Token::Lt));
            }
            Token::LParen => {
                closers.push((Token::RParen, false));
                out.push(token);
            }
            Token::LBracket => {
                let map = previous == "MAP";
                let (open, close) = if map {
                    (Token::LParen, Token::RParen)
                } else {
                    (Token::LBracket, Token::RBracket)
                };
                closers.push((close, false));
                out.push(replaced(&token, open));
            }
            // A `>` closes a type's angle bracket, else it is a comparison.
            Token::Gt if closers.last().is_some_and(|(_, is_type)| *is_type) => {
                out.push(close(&mut closers, &mut in_type, &token));
            }
            Token::RParen | Token::RBracket if !closers.is_empty() => {
                out.push(close(&mut closers, &mut in_type, &token));
            }
            Token::ShiftRight if closers.last().is_some_and(|(_, is_type)| *is_type) => {
                let (first, second) = split(&token);
                out.push(close(&mut closers, &mut in_type, &first));
                out.push(close(&mut closers, &mut in_type, &second));
            }
            _ => out.push(token),
        }
    }
    out
}

fn close(closers: &mut Vec<(Token, bool)>, in_type: &mut usize, token: &TokenWithSpan) -> TokenWithSpan {
    match closers.pop() {
        Some((with, is_type)) => {
            if is_type {
                *in_type = in_type.saturating_sub(1);
            }
            replaced(token, with)
        }
        None => token.clone(),
    }
}

/// The last two significant words before here, uppercased (empty when not a plain word).
fn last_two_words(out: &[TokenWithSpan]) -> (String, String) {
    let mut words = out
        .iter()
        .rev()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .map(|t| match &t.token {
            Token::Word(w) if w.quote_style.is_none() => w.value.to_uppercase(),
            _ => String::new(),
        });
    let last = words.next().unwrap_or_default();
    let before = words.next().unwrap_or_default();
    (last, before)
}

fn rename_last_word(out: &mut [TokenWithSpan], to: &str) {
    if let Some(t) = out
        .iter_mut()
        .rev()
        .find(|t| !matches!(t.token, Token::Whitespace(_)))
    {
        if matches!(t.token, Token::Word(_)) {
            t.token = Token::Word(Word {
                value: to.to_string(),
                quote_style: None,
                keyword: sqlparser::keywords::Keyword::STRUCT,
            });
        }
    }
}

fn is_composite(previous: &str) -> bool {
    matches!(previous, "ARRAY" | "MAP" | "MULTISET")
}

fn replaced(token: &TokenWithSpan, with: Token) -> TokenWithSpan {
    TokenWithSpan {
        token: with,
        span: token.span,
    }
}

/// `>>` as two `>`, each with its own column.
fn split(token: &TokenWithSpan) -> (TokenWithSpan, TokenWithSpan) {
    let start = token.span.start;
    let middle = Location::new(start.line, start.column + 1);
    let first = TokenWithSpan {
        token: Token::Gt,
        span: Span::new(start, middle),
    };
    let second = TokenWithSpan {
        token: Token::Gt,
        span: Span::new(middle, token.span.end),
    };
    (first, second)
}
