//! Flink spellings sqlparser reads in another form, rewritten token for token (each keeps its
//! place in the script): the row type `ROW<a INT, b STRING>` becomes `ROW(a INT, b STRING)`, and
//! the map constructor `MAP[k1, v1, k2, v2]` the call `MAP(k1, v1, k2, v2)`.

use sqlparser::tokenizer::{Location, Span, Token, TokenWithSpan};

/// The tokens with Flink's row types and map constructors in sqlparser's spelling.
pub fn rewrite(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    // Open `<` of composite types (true: of a ROW) and open `[` (true: of a MAP).
    let mut angles: Vec<bool> = Vec::new();
    let mut brackets: Vec<bool> = Vec::new();
    for token in tokens {
        let previous = out
            .iter()
            .rev()
            .find(|t| !matches!(t.token, Token::Whitespace(_)))
            .map(|t| word_of(&t.token));
        match &token.token {
            Token::Lt if is_composite(previous.as_deref()) => {
                let row = previous.as_deref() == Some("ROW");
                angles.push(row);
                out.push(replaced(&token, if row { Token::LParen } else { Token::Lt }));
            }
            Token::Gt if !angles.is_empty() => {
                let row = angles.pop().unwrap_or(false);
                out.push(replaced(&token, if row { Token::RParen } else { Token::Gt }));
            }
            Token::ShiftRight if !angles.is_empty() => {
                let (first, second) = split(&token);
                for half in [first, second] {
                    match angles.pop() {
                        Some(true) => out.push(replaced(&half, Token::RParen)),
                        _ => out.push(replaced(&half, Token::Gt)),
                    }
                }
            }
            Token::LBracket => {
                let map = previous.as_deref() == Some("MAP");
                brackets.push(map);
                out.push(replaced(&token, if map { Token::LParen } else { Token::LBracket }));
            }
            Token::RBracket => {
                let map = brackets.pop().unwrap_or(false);
                out.push(replaced(&token, if map { Token::RParen } else { Token::RBracket }));
            }
            _ => out.push(token),
        }
    }
    out
}

fn word_of(token: &Token) -> String {
    match token {
        Token::Word(w) if w.quote_style.is_none() => w.value.to_uppercase(),
        _ => String::new(),
    }
}

fn is_composite(previous: Option<&str>) -> bool {
    matches!(previous, Some("ROW" | "ARRAY" | "MAP" | "MULTISET"))
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

