//! pest's parse errors, reworded for people who write rules.

use pest::error::{ErrorVariant, InputLocation};

use super::ast::CompareOp;
use super::parser::Rule;
use super::{DslError, Span};

pub(super) fn syntax_error(error: &pest::error::Error<Rule>, src: &str) -> DslError {
    let at = match error.location {
        InputLocation::Pos(at) => at,
        InputLocation::Span((start, _)) => start,
    };
    let found = token_at(src, at);
    let span = Span::new(at, at + found.len());
    let found_words = if found.is_empty() {
        "the end".to_owned()
    } else {
        format!("`{found}`")
    };
    let error = match &error.variant {
        // A comparison operator where only other operators may follow: the
        // operand before it already ends a comparison.
        ErrorVariant::ParsingError { positives, .. }
            if CompareOp::from_symbol(found).is_some()
                && positives.contains(&Rule::arith_op)
                && !positives.contains(&Rule::compare_op) =>
        {
            return DslError::new(
                span,
                format!("unexpected `{found}`: comparisons cannot be chained"),
            )
            .with_help("combine comparisons with `and`, or add parentheses");
        }
        ErrorVariant::ParsingError { positives, .. } if !positives.is_empty() => DslError::new(
            span,
            format!(
                "expected {}, found {found_words}",
                describe_expected(positives)
            ),
        ),
        ErrorVariant::ParsingError { .. } => {
            DslError::new(span, format!("unexpected {found_words}"))
        }
        ErrorVariant::CustomError { message } => DslError::new(span, message.clone()),
    };
    match hint_for(found) {
        Some(hint) => error.with_help(hint),
        None => error,
    }
}

/// Advice for tokens that other languages use.
fn hint_for(found: &str) -> Option<&'static str> {
    match found {
        "&&" | "&" => Some("write `and`"),
        "||" | "|" => Some("write `or`"),
        "!" => Some("write `not`"),
        "=" => Some("write `==` to compare"),
        _ if found.contains(|c: char| c.is_ascii_uppercase()) => {
            Some("names are lowercase: paths, functions and keywords use only a-z, 0-9 and _")
        }
        _ => None,
    }
}

/// The token starting at byte `at`, roughly as a reader would split it: a
/// word, a run of operator symbols, or one character.
fn token_at(src: &str, at: usize) -> &str {
    let rest = src.get(at..).unwrap_or_default();
    let is_word_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    let is_symbol = |c: char| "=!<>&|".contains(c);
    let len = match rest.chars().next() {
        None => 0,
        Some(c) if is_word_char(c) => rest.find(|c: char| !is_word_char(c)).unwrap_or(rest.len()),
        Some(c) if is_symbol(c) => rest.find(|c: char| !is_symbol(c)).unwrap_or(rest.len()),
        Some(c) => c.len_utf8(),
    };
    &rest[..len]
}

/// "a, b or c" from the rules pest expected.
fn describe_expected(rules: &[Rule]) -> String {
    let mut expected: Vec<Expected> = rules
        .iter()
        .map(|rule| Expected::from_rule(*rule))
        .collect();
    expected.sort();
    expected.dedup();
    let phrases: Vec<&str> = expected.into_iter().map(Expected::phrase).collect();
    match phrases.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, init)) => format!("{} or {last}", init.join(", ")),
        None => "something else".to_owned(),
    }
}

/// What a grammar rule means to a reader; errors list these in variant order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Expected {
    Operator,
    Comma,
    CloseParen,
    CloseBracket,
    OpenParen,
    OpenBracket,
    Not,
    Expression,
    Path,
    Keyword,
    End,
}

impl Expected {
    fn from_rule(rule: Rule) -> Expected {
        match rule {
            Rule::or_op | Rule::and_op | Rule::compare_op | Rule::arith_op => Expected::Operator,
            Rule::comma => Expected::Comma,
            Rule::close_paren => Expected::CloseParen,
            Rule::close_bracket => Expected::CloseBracket,
            Rule::open_paren => Expected::OpenParen,
            Rule::open_bracket => Expected::OpenBracket,
            Rule::not_op => Expected::Not,
            Rule::path | Rule::identifier => Expected::Path,
            Rule::keyword => Expected::Keyword,
            Rule::EOI => Expected::End,
            _ => Expected::Expression,
        }
    }

    fn phrase(self) -> &'static str {
        match self {
            Expected::Operator => "an operator",
            Expected::Comma => "`,`",
            Expected::CloseParen => "`)`",
            Expected::CloseBracket => "`]`",
            Expected::OpenParen => "`(`",
            Expected::OpenBracket => "`[`",
            Expected::Not => "`not`",
            Expected::Expression => "an expression",
            Expected::Path => "a fact path",
            Expected::Keyword => "a keyword",
            Expected::End => "the end",
        }
    }
}
