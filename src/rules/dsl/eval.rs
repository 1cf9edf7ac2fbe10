//! Evaluation of a checked predicate over facts.
//!
//! Facts are untrusted in shape (a value may be absent or of another type
//! than the schema says), so every operation is total:
//! - an absent path reads as `null`;
//! - `and`, `or` and `not` take anything but `true` as false;
//! - `==`/`!=` are deep equality (`null == null` holds);
//! - ordering comparisons with a non-number (such as `null`) are false, and
//!   `+`/`-` with a non-number give `null`;
//! - list functions read a non-list as the empty list (`count(null) == 0`),
//!   string functions give `null` or false for a non-string.
//!
//! Recursion follows the tree, whose depth the parser caps.

use std::borrow::Cow;

use serde_json::Value;

use super::ast::{ArithOp, CompareOp, Expr, ExprKind, Function};
use super::json;

pub(super) fn eval_predicate(expr: &Expr, facts: &Value) -> bool {
    is_true(&eval(expr, facts))
}

fn eval<'f>(expr: &Expr, facts: &'f Value) -> Cow<'f, Value> {
    let value = match &expr.kind {
        ExprKind::Path(path) => {
            return json::lookup(facts, path).map_or(Cow::Owned(Value::Null), Cow::Borrowed)
        }
        ExprKind::Null => Value::Null,
        ExprKind::Bool(value) => Value::Bool(*value),
        ExprKind::Number(value) => number(*value),
        ExprKind::String(value) => Value::String(value.clone()),
        ExprKind::List(items) => Value::Array(
            items
                .iter()
                .map(|item| eval(item, facts).into_owned())
                .collect(),
        ),
        ExprKind::Call { function, args } => call(*function, args, facts),
        ExprKind::Not(operand) => Value::Bool(!is_true(&eval(operand, facts))),
        ExprKind::And(operands) => Value::Bool(
            operands
                .iter()
                .all(|operand| is_true(&eval(operand, facts))),
        ),
        ExprKind::Or(operands) => Value::Bool(
            operands
                .iter()
                .any(|operand| is_true(&eval(operand, facts))),
        ),
        ExprKind::Compare { op, left, right } => {
            Value::Bool(compare(*op, &eval(left, facts), &eval(right, facts)))
        }
        ExprKind::Arith { first, rest } => {
            arithmetic(first, rest, facts).map_or(Value::Null, number)
        }
    };
    Cow::Owned(value)
}

/// The sum, or `None` if an operand is not a number.
fn arithmetic(first: &Expr, rest: &[(ArithOp, Expr)], facts: &Value) -> Option<f64> {
    rest.iter()
        .try_fold(eval(first, facts).as_f64()?, |total, (op, operand)| {
            let operand = eval(operand, facts).as_f64()?;
            Some(match op {
                ArithOp::Add => total + operand,
                ArithOp::Sub => total - operand,
            })
        })
}

fn is_true(value: &Value) -> bool {
    matches!(value, Value::Bool(true))
}

/// A JSON number, or `null` for infinities and NaN (which JSON cannot hold).
fn number(value: f64) -> Value {
    serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number)
}

fn compare(op: CompareOp, left: &Value, right: &Value) -> bool {
    let ordering = || left.as_f64()?.partial_cmp(&right.as_f64()?);
    match op {
        CompareOp::Eq => json::deep_equal(left, right),
        CompareOp::Ne => !json::deep_equal(left, right),
        CompareOp::Lt => ordering().is_some_and(|ordering| ordering.is_lt()),
        CompareOp::Le => ordering().is_some_and(|ordering| ordering.is_le()),
        CompareOp::Gt => ordering().is_some_and(|ordering| ordering.is_gt()),
        CompareOp::Ge => ordering().is_some_and(|ordering| ordering.is_ge()),
        CompareOp::In => as_list(right)
            .iter()
            .any(|item| json::deep_equal(left, item)),
    }
}

fn as_list(value: &Value) -> &[Value] {
    value.as_array().map_or(&[], Vec::as_slice)
}

fn call(function: Function, args: &[Expr], facts: &Value) -> Value {
    let values: Vec<Cow<'_, Value>> = args.iter().map(|arg| eval(arg, facts)).collect();
    let arg = |index: usize| {
        values
            .get(index)
            .map_or(&Value::Null, |value| value.as_ref())
    };
    let list = |index: usize| as_list(arg(index));
    let collect = |items: Vec<&Value>| Value::Array(items.into_iter().cloned().collect());
    match function {
        Function::Count => Value::from(list(0).len()),
        Function::Empty => Value::Bool(list(0).is_empty()),
        Function::Contains => {
            Value::Bool(list(0).iter().any(|item| json::deep_equal(item, arg(1))))
        }
        Function::SetEq => Value::Bool(json::multiset_equal(list(0), list(1))),
        Function::ListEq => Value::Bool(
            list(0).len() == list(1).len()
                && list(0)
                    .iter()
                    .zip(list(1))
                    .all(|(a, b)| json::deep_equal(a, b)),
        ),
        Function::Subset => Value::Bool(json::multiset_minus(list(0), list(1)).is_empty()),
        Function::Minus => collect(json::multiset_minus(list(0), list(1))),
        Function::Intersect => collect(json::multiset_intersect(list(0), list(1))),
        Function::Lower => arg(0)
            .as_str()
            .map_or(Value::Null, |text| Value::String(text.to_lowercase())),
        Function::StartsWith => Value::Bool(match (arg(0), arg(1).as_str()) {
            (Value::String(text), Some(prefix)) => text.starts_with(prefix),
            // A list: whether any of its items does.
            (Value::Array(items), Some(prefix)) => items
                .iter()
                .any(|item| item.as_str().is_some_and(|text| text.starts_with(prefix))),
            _ => false,
        }),
    }
}
