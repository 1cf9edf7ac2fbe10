//! Text -> [`Expr`]: limits, the pest grammar, and the tree builder.

use pest::iterators::{Pair, Pairs};
use pest::Parser as _;
use pest_derive::Parser;

use super::ast::{ArithOp, CompareOp, Expr, ExprKind, Function};
use super::syntax_error::syntax_error;
use super::{suggest, DslError, Span, MAX_DEPTH, MAX_SOURCE_LEN};

// The path is relative to the crate root (the directory of Cargo.toml).
#[derive(Parser)]
#[grammar = "grammar/predicate.pest"]
struct PredicateParser;

/// Parses a predicate. Function names are resolved here; types are not checked.
pub(super) fn parse_predicate(src: &str) -> Result<Expr, DslError> {
    check_length(src, "predicate")?;
    if src.trim().is_empty() {
        return Err(
            DslError::new(Span::new(0, src.len()), "the predicate is empty")
                .with_help("write a condition, for example `true` or `old.window != new.window`"),
        );
    }
    check_strings_and_nesting(src)?;
    let mut pairs =
        PredicateParser::parse(Rule::predicate, src).map_err(|error| syntax_error(&error, src))?;
    let whole = Span::new(0, src.len());
    let predicate = next_child(&mut pairs, whole)?;
    let disjunction = next_child(&mut predicate.into_inner(), whole)?;
    build_disjunction(disjunction, 0)
}

/// Parses the text of a template placeholder as one fact path. `offset` is
/// where `text` starts in the template, so that error spans point into it.
pub(super) fn parse_lone_path(text: &str, offset: usize) -> Result<String, DslError> {
    let shift = |mut error: DslError| {
        error.span = Span::new(error.span.start + offset, error.span.end + offset);
        error
    };
    let mut pairs = PredicateParser::parse(Rule::lone_path, text)
        .map_err(|error| shift(syntax_error(&error, text)))?;
    let whole = Span::new(offset, offset + text.len());
    let lone_path = next_child(&mut pairs, whole)?;
    let path = next_child(&mut lone_path.into_inner(), whole)?;
    Ok(path.as_str().to_owned())
}

pub(super) fn check_length(src: &str, what: &str) -> Result<(), DslError> {
    if src.len() <= MAX_SOURCE_LEN {
        return Ok(());
    }
    Err(DslError::new(
        Span::new(MAX_SOURCE_LEN, src.len()),
        format!(
            "the {what} is {} bytes long; the limit is {MAX_SOURCE_LEN}",
            src.len()
        ),
    ))
}

/// A scan before pest runs: pest's recursive descent could overflow the
/// stack on thousands of nested brackets, so their depth is capped here.
/// Strings are skipped (brackets inside them do not count), which also makes
/// this the natural place to report bad escapes and unterminated strings.
fn check_strings_and_nesting(src: &str) -> Result<(), DslError> {
    let mut depth = 0usize;
    let mut chars = src.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '(' | '[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(too_deep(Span::new(at, at + 1)));
                }
            }
            ')' | ']' => depth = depth.saturating_sub(1),
            '\'' | '"' => skip_string(&mut chars, at, c, src.len())?,
            _ => {}
        }
    }
    Ok(())
}

/// Consumes a string literal's characters up to and including its closing quote.
fn skip_string(
    chars: &mut std::str::CharIndices<'_>,
    start: usize,
    quote: char,
    src_len: usize,
) -> Result<(), DslError> {
    while let Some((at, c)) = chars.next() {
        if c == quote {
            return Ok(());
        }
        if c == '\\' {
            match chars.next() {
                Some((_, '\'' | '"' | '\\')) => {}
                Some((escaped_at, escaped)) => {
                    return Err(DslError::new(
                        Span::new(at, escaped_at + escaped.len_utf8()),
                        format!("unknown escape `\\{escaped}` in a string"),
                    )
                    .with_help(r#"the escapes are \' \" and \\"#));
                }
                None => break,
            }
        }
    }
    Err(
        DslError::new(Span::new(start, src_len), "unterminated string")
            .with_help(format!("close the string with {quote}")),
    )
}

fn too_deep(span: Span) -> DslError {
    DslError::new(
        span,
        format!("the expression is nested more than {MAX_DEPTH} levels deep"),
    )
    .with_help("split the rule or remove redundant parentheses")
}

/// The depth inside a new level of nesting (parentheses, list, call, `not`).
fn nest(depth: usize, span: Span) -> Result<usize, DslError> {
    if depth >= MAX_DEPTH {
        return Err(too_deep(span));
    }
    Ok(depth + 1)
}

// ---- building the tree -------------------------------------------------------

/// The pair's span without trailing whitespace, which pest includes when an
/// optional part at the end of a rule (such as `(compare_op ~ sum)?`) is absent.
fn span_of(pair: &Pair<'_, Rule>) -> Span {
    let start = pair.as_span().start();
    Span::new(
        start,
        start
            + pair
                .as_str()
                .trim_end_matches([' ', '\t', '\r', '\n'])
                .len(),
    )
}

/// The next child of a node. The grammar guarantees the children exist, but
/// a mismatch between grammar and builder must not panic on user input.
fn next_child<'i>(
    children: &mut Pairs<'i, Rule>,
    parent: Span,
) -> Result<Pair<'i, Rule>, DslError> {
    children.next().ok_or_else(|| internal_error(parent))
}

fn internal_error(span: Span) -> DslError {
    DslError::new(
        span,
        "internal error: the parser produced an unexpected tree",
    )
}

fn build_disjunction(pair: Pair<'_, Rule>, depth: usize) -> Result<Expr, DslError> {
    build_chain(pair, depth, Rule::or_op, build_conjunction, ExprKind::Or)
}

fn build_conjunction(pair: Pair<'_, Rule>, depth: usize) -> Result<Expr, DslError> {
    build_chain(pair, depth, Rule::and_op, build_negation, ExprKind::And)
}

/// `operand (op operand)*` for an associative operator: one operand is
/// returned as it is, several become one flat node.
fn build_chain(
    pair: Pair<'_, Rule>,
    depth: usize,
    operator: Rule,
    build_operand: fn(Pair<'_, Rule>, usize) -> Result<Expr, DslError>,
    combine: fn(Vec<Expr>) -> ExprKind,
) -> Result<Expr, DslError> {
    let span = span_of(&pair);
    // Plain loops rather than iterator adapters on the recursive path: in
    // debug builds every adapter adds stack frames per level of nesting.
    let mut operands = Vec::new();
    for child in pair.into_inner() {
        if child.as_rule() != operator {
            operands.push(build_operand(child, depth)?);
        }
    }
    if operands.len() == 1 {
        return operands.pop().ok_or_else(|| internal_error(span));
    }
    Ok(Expr {
        kind: combine(operands),
        span,
    })
}

fn build_negation(pair: Pair<'_, Rule>, depth: usize) -> Result<Expr, DslError> {
    let end = span_of(&pair).end;
    let mut not_starts = Vec::new();
    let mut inner_depth = depth;
    let mut operand = None;
    for child in pair.into_inner() {
        if child.as_rule() == Rule::not_op {
            inner_depth = nest(inner_depth, span_of(&child))?;
            not_starts.push(span_of(&child).start);
        } else {
            operand = Some(build_comparison(child, inner_depth)?);
        }
    }
    let mut expr = operand.ok_or_else(|| internal_error(Span::new(end, end)))?;
    for start in not_starts.into_iter().rev() {
        expr = Expr {
            kind: ExprKind::Not(Box::new(expr)),
            span: Span::new(start, end),
        };
    }
    Ok(expr)
}

fn build_comparison(pair: Pair<'_, Rule>, depth: usize) -> Result<Expr, DslError> {
    let span = span_of(&pair);
    let mut children = pair.into_inner();
    let left = build_sum(next_child(&mut children, span)?, depth)?;
    let Some(operator) = children.next() else {
        return Ok(left);
    };
    let op = CompareOp::from_symbol(operator.as_str()).ok_or_else(|| internal_error(span))?;
    let right = build_sum(next_child(&mut children, span)?, depth)?;
    Ok(Expr {
        kind: ExprKind::Compare {
            op,
            left: Box::new(left),
            right: Box::new(right),
        },
        span,
    })
}

fn build_sum(pair: Pair<'_, Rule>, depth: usize) -> Result<Expr, DslError> {
    let span = span_of(&pair);
    let mut children = pair.into_inner();
    let first = build_operand(next_child(&mut children, span)?, depth)?;
    let mut rest = Vec::new();
    while let Some(operator) = children.next() {
        let op = ArithOp::from_symbol(operator.as_str())
            .ok_or_else(|| internal_error(span_of(&operator)))?;
        rest.push((op, build_operand(next_child(&mut children, span)?, depth)?));
    }
    if rest.is_empty() {
        return Ok(first);
    }
    Ok(Expr {
        kind: ExprKind::Arith {
            first: Box::new(first),
            rest,
        },
        span,
    })
}

fn build_operand(pair: Pair<'_, Rule>, depth: usize) -> Result<Expr, DslError> {
    let span = span_of(&pair);
    let kind = match pair.as_rule() {
        Rule::number => ExprKind::Number(parse_number(pair.as_str(), span)?),
        Rule::string => ExprKind::String(unescape(pair.as_str())),
        Rule::boolean => ExprKind::Bool(pair.as_str() == "true"),
        Rule::null => ExprKind::Null,
        Rule::path => ExprKind::Path(pair.as_str().to_owned()),
        Rule::list => ExprKind::List(build_items(pair, nest(depth, span)?)?),
        Rule::call => return build_call(pair, nest(depth, span)?),
        Rule::group => {
            let inner = pair
                .into_inner()
                .find(|child| child.as_rule() == Rule::disjunction)
                .ok_or_else(|| internal_error(span))?;
            // The parentheses become part of the span, which reads better in errors.
            let expr = build_disjunction(inner, nest(depth, span)?)?;
            return Ok(Expr { span, ..expr });
        }
        _ => return Err(internal_error(span)),
    };
    Ok(Expr { kind, span })
}

/// The expressions among a list's or a call's children, skipping punctuation.
fn build_items(pair: Pair<'_, Rule>, depth: usize) -> Result<Vec<Expr>, DslError> {
    let mut items = Vec::new();
    for child in pair.into_inner() {
        if child.as_rule() == Rule::disjunction {
            items.push(build_disjunction(child, depth)?);
        }
    }
    Ok(items)
}

fn build_call(pair: Pair<'_, Rule>, depth: usize) -> Result<Expr, DslError> {
    let span = span_of(&pair);
    let name = pair
        .clone()
        .into_inner()
        .find(|child| child.as_rule() == Rule::identifier)
        .ok_or_else(|| internal_error(span))?;
    let function = Function::from_name(name.as_str()).ok_or_else(|| unknown_function(&name))?;
    let args = build_items(pair, depth)?;
    Ok(Expr {
        kind: ExprKind::Call { function, args },
        span,
    })
}

fn unknown_function(name: &Pair<'_, Rule>) -> DslError {
    let known: Vec<&str> = Function::ALL
        .iter()
        .map(|function| function.name())
        .collect();
    let nearest = suggest::nearest(name.as_str(), known.iter().copied());
    let listing = format!("the functions are {}", known.join(", "));
    let help = match suggest::did_you_mean(&nearest) {
        Some(hint) => format!("{hint} {listing}"),
        None => listing,
    };
    DslError::new(
        span_of(name),
        format!("unknown function `{}`", name.as_str()),
    )
    .with_help(help)
}

fn parse_number(text: &str, span: Span) -> Result<f64, DslError> {
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() => Ok(value),
        _ => Err(DslError::new(
            span,
            format!("the number `{text}` is out of range"),
        )),
    }
}

/// The value of a string token: quotes removed, escapes resolved. The grammar
/// only admits `\'`, `\"` and `\\`, so a backslash always escapes the next char.
fn unescape(token: &str) -> String {
    let mut chars = token.chars();
    chars.next();
    chars.next_back();
    let mut value = String::with_capacity(token.len());
    while let Some(c) = chars.next() {
        match c {
            '\\' => value.extend(chars.next()),
            _ => value.push(c),
        }
    }
    value
}
