//! `FROM (SELECT ...) MATCH_RECOGNIZE (...)`: Flink reads a subquery with MATCH_RECOGNIZE as it
//! reads a table; sqlparser accepts MATCH_RECOGNIZE only after a table name. Before parsing,
//! each such subquery is lifted out of the tokens and a placeholder name stands in its place;
//! after parsing, the subquery (parsed on its own tokens, so its spans are its own) is put back
//! as the MATCH_RECOGNIZE's input.

use super::dialect::FlinkDialect;
use crate::limits::MAX_SQL_NESTING;
use sqlparser::ast::{Query, TableFactor, VisitMut, VisitorMut};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan, Word};
use std::ops::ControlFlow;

const PLACEHOLDER: &str = "__match_recognize_input_";

/// The subqueries lifted out of a statement's tokens, by placeholder number.
#[derive(Debug, Default)]
pub struct Lifted(Vec<Vec<TokenWithSpan>>);

fn significant(token: &Token) -> bool {
    !matches!(token, Token::Whitespace(_))
}

fn is_keyword(token: &Token, keyword: Keyword) -> bool {
    matches!(token, Token::Word(w) if w.keyword == keyword)
}

/// The tokens with each `( query ) MATCH_RECOGNIZE` subquery replaced by a placeholder name.
pub fn lift(tokens: Vec<TokenWithSpan>) -> (Vec<TokenWithSpan>, Lifted) {
    let mut lifted = Lifted::default();
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    // Positions in `out` of the open parentheses not closed yet.
    let mut open: Vec<usize> = Vec::new();
    // Whether the next significant token after each position is MATCH_RECOGNIZE.
    let mut before_match = vec![false; tokens.len()];
    let mut next_is_match = false;
    for (at, token) in tokens.iter().enumerate().rev() {
        before_match[at] = next_is_match;
        if significant(&token.token) {
            next_is_match = is_keyword(&token.token, Keyword::MATCH_RECOGNIZE);
        }
    }
    for (token, followed_by_match) in tokens.into_iter().zip(before_match) {
        match token.token {
            Token::LParen => {
                open.push(out.len());
                out.push(token);
            }
            Token::RParen => {
                let start = open.pop();
                let query_start = start.filter(|_| followed_by_match).and_then(|at| {
                    let first = out[at + 1..].iter().find(|t| significant(&t.token))?;
                    matches!(
                        &first.token,
                        Token::Word(w) if matches!(w.keyword, Keyword::SELECT | Keyword::WITH | Keyword::VALUES)
                    )
                    .then_some(at)
                });
                match query_start {
                    Some(at) => {
                        let opening = out[at].span;
                        let inner: Vec<TokenWithSpan> = out.drain(at..).skip(1).collect();
                        let name = format!("{PLACEHOLDER}{}", lifted.0.len());
                        lifted.0.push(inner);
                        out.push(TokenWithSpan::new(
                            Token::Word(Word {
                                value: name,
                                quote_style: None,
                                keyword: Keyword::NoKeyword,
                            }),
                            opening.union(&token.span),
                        ));
                    }
                    None => out.push(token),
                }
            }
            _ => out.push(token),
        }
    }
    (out, lifted)
}

/// Puts each lifted subquery back as the input of its MATCH_RECOGNIZE.
pub fn restore(query: &mut Query, lifted: &Lifted) -> Result<(), ParserError> {
    if lifted.0.is_empty() {
        return Ok(());
    }
    struct Restore<'l>(&'l Lifted);
    impl VisitorMut for Restore<'_> {
        type Break = ParserError;
        fn pre_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<ParserError> {
            let TableFactor::MatchRecognize { table, .. } = factor else {
                return ControlFlow::Continue(());
            };
            let TableFactor::Table {
                name, alias: None, ..
            } = table.as_ref()
            else {
                return ControlFlow::Continue(());
            };
            let index = name
                .to_string()
                .strip_prefix(PLACEHOLDER)
                .and_then(|n| n.parse::<usize>().ok());
            let Some(tokens) = index.and_then(|i| self.0 .0.get(i)) else {
                return ControlFlow::Continue(());
            };
            match parse_subquery(tokens.clone(), self.0) {
                Ok(subquery) => {
                    **table = TableFactor::Derived {
                        lateral: false,
                        subquery: Box::new(subquery),
                        alias: None,
                        sample: None,
                    };
                    ControlFlow::Continue(())
                }
                Err(e) => ControlFlow::Break(e),
            }
        }
    }
    match query.visit(&mut Restore(lifted)) {
        ControlFlow::Break(e) => Err(e),
        ControlFlow::Continue(()) => Ok(()),
    }
}

/// A lifted subquery parsed on its own (the subqueries of its own MATCH_RECOGNIZEs were lifted
/// before it, into the same list).
fn parse_subquery(mut tokens: Vec<TokenWithSpan>, lifted: &Lifted) -> Result<Query, ParserError> {
    let end = tokens
        .last()
        .map(|t| t.span.end)
        .unwrap_or(sqlparser::tokenizer::Location { line: 0, column: 0 });
    tokens.push(TokenWithSpan::at(Token::EOF, end, end));
    let dialect = FlinkDialect;
    let mut parser = Parser::new(&dialect)
        .with_recursion_limit(MAX_SQL_NESTING)
        .with_tokens_with_locations(tokens);
    let mut query = *parser.parse_query()?;
    if parser.peek_token().token != Token::EOF {
        return parser.expected("the end of the subquery", parser.peek_token());
    }
    restore(&mut query, lifted)?;
    Ok(query)
}
