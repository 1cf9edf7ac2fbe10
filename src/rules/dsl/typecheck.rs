//! Static checks: known paths, operand types, function signatures.
//!
//! The checker recurses along the tree. Error messages are built in separate
//! functions, off the recursive path, which keeps its stack frames small in
//! debug builds.

use super::ast::{ArithOp, CompareOp, Expr, ExprKind, Function};
use super::schema::CheckPath;
use super::{DslError, FactSchema, FactType};

/// Checks that `expr` is well typed and boolean.
pub(super) fn check_predicate(expr: &Expr, schema: &FactSchema) -> Result<(), DslError> {
    let ty = type_of(expr, schema)?;
    if compatible(&ty, &FactType::Bool) {
        return Ok(());
    }
    Err(DslError::new(
        expr.span,
        format!(
            "a predicate must be true or false, but this is {}",
            described(&ty)
        ),
    )
    .with_help("compare the value, e.g. `count(x) > 0` or `x == 'value'`"))
}

fn type_of(expr: &Expr, schema: &FactSchema) -> Result<FactType, DslError> {
    Ok(match &expr.kind {
        ExprKind::Null => FactType::Any,
        ExprKind::Bool(_) => FactType::Bool,
        ExprKind::Number(_) => FactType::Number,
        ExprKind::String(_) => FactType::String,
        ExprKind::List(items) => FactType::list(list_element_type(items, schema)?),
        ExprKind::Path(path) => schema.check_path(path, expr.span)?.clone(),
        ExprKind::Call { function, args } => call_type(*function, args, expr, schema)?,
        ExprKind::Not(operand) => {
            expect(operand, schema, &FactType::Bool, "not")?;
            FactType::Bool
        }
        ExprKind::And(operands) | ExprKind::Or(operands) => {
            let operator = if matches!(expr.kind, ExprKind::And(_)) {
                "and"
            } else {
                "or"
            };
            for operand in operands {
                expect(operand, schema, &FactType::Bool, operator)?;
            }
            FactType::Bool
        }
        ExprKind::Compare { op, left, right } => {
            check_comparison(*op, left, right, expr, schema)?;
            FactType::Bool
        }
        ExprKind::Arith { first, rest } => {
            // The first operand is blamed on the operator after it.
            let first_op = rest.first().map_or(ArithOp::Add, |(op, _)| *op);
            expect(first, schema, &FactType::Number, first_op.symbol())?;
            for (op, operand) in rest {
                expect(operand, schema, &FactType::Number, op.symbol())?;
            }
            FactType::Number
        }
    })
}

/// The common type of a list literal's items (`Any` for an empty list).
fn list_element_type(items: &[Expr], schema: &FactSchema) -> Result<FactType, DslError> {
    let mut element = FactType::Any;
    for item in items {
        let ty = type_of(item, schema)?;
        element = unify(&element, &ty).ok_or_else(|| mixed_list(item, &ty, &element))?;
    }
    Ok(element)
}

fn check_comparison(
    op: CompareOp,
    left: &Expr,
    right: &Expr,
    whole: &Expr,
    schema: &FactSchema,
) -> Result<(), DslError> {
    match op {
        CompareOp::Eq | CompareOp::Ne => {
            let (left_ty, right_ty) = (type_of(left, schema)?, type_of(right, schema)?);
            if compatible(&left_ty, &right_ty) {
                return Ok(());
            }
            Err(incomparable(op, &left_ty, &right_ty, whole))
        }
        CompareOp::Lt | CompareOp::Le | CompareOp::Gt | CompareOp::Ge => {
            expect(left, schema, &FactType::Number, op.symbol())?;
            expect(right, schema, &FactType::Number, op.symbol())
        }
        CompareOp::In => {
            let (item_ty, list_ty) = (type_of(left, schema)?, type_of(right, schema)?);
            let element =
                element_type(&list_ty).ok_or_else(|| needs_list(right, &list_ty, "in"))?;
            if compatible(&item_ty, &element) {
                return Ok(());
            }
            Err(not_an_element(whole, &item_ty, &list_ty))
        }
    }
}

fn call_type(
    function: Function,
    args: &[Expr],
    call: &Expr,
    schema: &FactSchema,
) -> Result<FactType, DslError> {
    let mut typed = Vec::with_capacity(args.len());
    for arg in args {
        typed.push((arg, type_of(arg, schema)?));
    }
    let name = function.name();
    Ok(match (function, typed.as_slice()) {
        (Function::Count, [list]) => {
            list_argument(list, name)?;
            FactType::Number
        }
        (Function::Empty, [list]) => {
            list_argument(list, name)?;
            FactType::Bool
        }
        (Function::Contains, [list, item]) => {
            let element = list_argument(list, name)?;
            if !compatible(&element, &item.1) {
                return Err(not_an_element(item.0, &item.1, &list.1));
            }
            FactType::Bool
        }
        (Function::SetEq | Function::ListEq | Function::Subset, [first, second]) => {
            list_pair_element(first, second, name)?;
            FactType::Bool
        }
        (Function::Minus | Function::Intersect, [first, second]) => {
            FactType::list(list_pair_element(first, second, name)?)
        }
        (Function::Lower, [text]) => {
            string_argument(text, name)?;
            FactType::String
        }
        (Function::StartsWith, [text, prefix]) => {
            // A list of strings: whether any of its items starts with the prefix.
            match element_type(&text.1) {
                Some(element) if compatible(&element, &FactType::String) => {}
                _ => string_argument(text, name)?,
            }
            string_argument(prefix, name)?;
            FactType::Bool
        }
        _ => return Err(wrong_arity(function, args.len(), call)),
    })
}

/// Checks a list argument and returns its element type.
fn list_argument((arg, ty): &(&Expr, FactType), function: &str) -> Result<FactType, DslError> {
    element_type(ty).ok_or_else(|| needs_list(arg, ty, function))
}

/// Checks two list arguments whose elements must be comparable; returns the
/// common element type.
fn list_pair_element(
    first: &(&Expr, FactType),
    second: &(&Expr, FactType),
    function: &str,
) -> Result<FactType, DslError> {
    let first_element = list_argument(first, function)?;
    let second_element = list_argument(second, function)?;
    unify(&first_element, &second_element)
        .ok_or_else(|| mismatched_lists(function, &first.1, second.0, &second.1))
}

fn string_argument((arg, ty): &(&Expr, FactType), function: &str) -> Result<(), DslError> {
    if compatible(ty, &FactType::String) {
        return Ok(());
    }
    Err(wrong_type(arg, ty, &FactType::String, function))
}

/// Checks that `expr` has a type compatible with `wanted`, as an operand of
/// `operator`.
fn expect(
    expr: &Expr,
    schema: &FactSchema,
    wanted: &FactType,
    operator: &str,
) -> Result<(), DslError> {
    let ty = type_of(expr, schema)?;
    if compatible(&ty, wanted) {
        return Ok(());
    }
    Err(wrong_type(expr, &ty, wanted, operator))
}

/// The element type of a list type; `Any` may be a list of anything.
fn element_type(ty: &FactType) -> Option<FactType> {
    match ty {
        FactType::List(element) => Some((**element).clone()),
        FactType::Any => Some(FactType::Any),
        _ => None,
    }
}

fn compatible(a: &FactType, b: &FactType) -> bool {
    unify(a, b).is_some()
}

/// The most precise type that covers both `a` and `b`, if they are compatible:
/// `Any` matches everything, lists match when their elements do, and objects
/// when they have the same fields with matching types.
fn unify(a: &FactType, b: &FactType) -> Option<FactType> {
    match (a, b) {
        (FactType::Any, other) | (other, FactType::Any) => Some(other.clone()),
        (FactType::List(a), FactType::List(b)) => Some(FactType::list(unify(a, b)?)),
        (FactType::Object(a), FactType::Object(b)) => {
            if a.len() != b.len() {
                return None;
            }
            let fields = a
                .iter()
                .map(|(name, a_ty)| Some((name.clone(), unify(a_ty, b.get(name)?)?)))
                .collect::<Option<_>>()?;
            Some(FactType::Object(fields))
        }
        (a, b) if a == b => Some(a.clone()),
        _ => None,
    }
}

// ---- error messages ------------------------------------------------------------

/// A type as a noun phrase: "a number", "an object", "a list<string>".
fn described(ty: &FactType) -> String {
    match ty {
        FactType::Object(_) => "an object".to_owned(),
        FactType::Any => "a value of any type".to_owned(),
        FactType::Bool => "a bool (true or false)".to_owned(),
        other => format!("a {other}"),
    }
}

fn wrong_type(expr: &Expr, ty: &FactType, wanted: &FactType, operator: &str) -> DslError {
    DslError::new(
        expr.span,
        format!(
            "`{operator}` needs {}, but this is {}",
            described(wanted),
            described(ty)
        ),
    )
}

fn needs_list(arg: &Expr, ty: &FactType, operator: &str) -> DslError {
    DslError::new(
        arg.span,
        format!("`{operator}` needs a list, but this is {}", described(ty)),
    )
}

fn mixed_list(item: &Expr, ty: &FactType, earlier: &FactType) -> DslError {
    DslError::new(
        item.span,
        format!(
            "the items of a list must share one type, but this is {} after items of type {earlier}",
            described(ty)
        ),
    )
}

fn incomparable(op: CompareOp, left: &FactType, right: &FactType, whole: &Expr) -> DslError {
    let symbol = op.symbol();
    let message = match (left, right) {
        (FactType::Object(_), FactType::Object(_)) => {
            format!("`{symbol}` cannot compare objects with different fields")
        }
        _ => format!(
            "`{symbol}` cannot compare {} with {}",
            described(left),
            described(right)
        ),
    };
    DslError::new(whole.span, message)
}

fn not_an_element(at: &Expr, item: &FactType, list: &FactType) -> DslError {
    DslError::new(
        at.span,
        format!("cannot look for {} in a {list}", described(item)),
    )
}

fn mismatched_lists(
    function: &str,
    first: &FactType,
    second: &Expr,
    second_ty: &FactType,
) -> DslError {
    DslError::new(
        second.span,
        format!(
            "`{function}` needs two lists of the same kind, but got a {first} and a {second_ty}"
        ),
    )
}

fn wrong_arity(function: Function, given: usize, call: &Expr) -> DslError {
    let (expected, usage) = signature(function);
    let plural = if expected == 1 { "" } else { "s" };
    let given = match given {
        0 => "none were".to_owned(),
        1 => "1 was".to_owned(),
        _ => format!("{given} were"),
    };
    DslError::new(
        call.span,
        format!(
            "`{}` takes {expected} argument{plural}, but {given} given",
            function.name()
        ),
    )
    .with_help(format!("usage: {usage}"))
}

/// How many arguments a function takes, and how it is called.
fn signature(function: Function) -> (usize, &'static str) {
    match function {
        Function::Count => (1, "count(list) -> number"),
        Function::Empty => (1, "empty(list) -> bool"),
        Function::Contains => (2, "contains(list, item) -> bool"),
        Function::SetEq => (2, "set_eq(list, list) -> bool"),
        Function::ListEq => (2, "list_eq(list, list) -> bool"),
        Function::Subset => (2, "subset(list, list) -> bool"),
        Function::Minus => (2, "minus(list, list) -> list"),
        Function::Intersect => (2, "intersect(list, list) -> list"),
        Function::Lower => (1, "lower(string) -> string"),
        Function::StartsWith => (2, "starts_with(string or list, prefix) -> bool"),
    }
}
