//! Spellings of one predicate that Flink's optimizer plans identically get one canonical form
//! (each checked with Flink 2.3's planner: the optimized plans are equal):
//!
//! - `x BETWEEN a AND b` is `x >= a AND x <= b`; `NOT BETWEEN` is `x < a OR x > b`;
//! - `c IN (v1, v2)` is `c = v1 OR c = v2`; `NOT IN (...)` is `c <> v1 AND c <> v2`;
//! - `NOT` is pushed down: `NOT (a = b)` is `a <> b`, `NOT (a < b)` is `a >= b`, `NOT NOT x`
//!   is `x`, `NOT (a AND b)` is `NOT a OR NOT b`, `NOT (x IS NULL)` is `x IS NOT NULL`, ...;
//! - `b = TRUE` is `b`, `b = FALSE` is `NOT b`; `1 = 1` is TRUE, `1 = 0` FALSE, `x AND TRUE` is `x`;
//! - `AND` and `OR` are flattened, their terms sorted and repeated terms dropped;
//! - a range term another term of its AND / OR subsumes is dropped (`x > 5 AND x > 3` is `x > 5`);
//!   on a VARCHAR column also with text literals, by code point (`s > '10' AND s > '9'` is
//!   `s > '9'`; [`subsume_text_ranges`], which needs the column types);
//! - a comparison has its operands in a fixed order, the operator flipped to keep its meaning:
//!   `'DE' = country` is `country = 'DE'`, `5 < a` is `a > 5`, `d > a` is `a < d`.
//!
//! - `x BETWEEN SYMMETRIC a AND b` with literal bounds is the range between the smaller and the
//!   larger (`BETWEEN SYMMETRIC 500 AND 10` is `BETWEEN 10 AND 500`); with other bounds it is
//!   `(x >= a AND x <= b) OR (x >= b AND x <= a)`, as Flink expands it; `x >= v AND x <= v` is
//!   `x = v`;
//! - in a condition (WHERE, HAVING, ON, an aggregate's FILTER, a CASE's WHEN), where NULL and
//!   FALSE both reject, `c IS TRUE` is `c` and `c IS FALSE` is `NOT c`, a NULL term is FALSE
//!   (`x OR CAST(NULL AS BOOLEAN)` is `x`), and an OR's term implied by another is dropped
//!   (`a OR (a AND b)` is `a`);
//! - `CASE x WHEN v THEN r END` is `CASE WHEN x = v THEN r END`; a missing ELSE is `ELSE NULL`;
//! - `CAST('2024-1-1' AS DATE)` and `DATE '2024-1-1'` are `DATE '2024-01-01'`, `CAST('10:00:00'
//!   AS TIME)` is `TIME '10:00:00'`, `CAST(100 AS INT)` is `100`; compared with a value, an
//!   integer cast to an integer type that holds it is the integer (`x > CAST(100 AS BIGINT)` is
//!   `x > 100`) and a text cast to TIMESTAMP is the TIMESTAMP literal, without fractional zeros.
//!
//! Predicates that are not equivalent keep different forms (`a > 5` and `a >= 5` differ). So do
//! spellings Flink 2.3 plans differently, even where the values agree: `COALESCE(a, b)`,
//! `IFNULL(a, b)` and their CASE; `IF(c, x, y)` and its CASE; `a + b` and `b + a` (Flink keeps
//! the operand order of arithmetic); `x > 100` and `x > 100.00` (a DECIMAL literal) or `x >
//! 1.0E2`; `c IS NOT FALSE` and `c` (a NULL `c` passes the first), unless `c` is never NULL
//! ([`with_not_null`]); `x BETWEEN SYMMETRIC 'Z' AND 'A'` and `x BETWEEN 'A' AND 'Z'` (the
//! order of two texts depends on the collation).
//!
//! Constants are reduced to their value first (`super::fold`): `x > 2 * 3` is `x > 6`; the
//! comparisons of one expression with integer literals in an AND / OR are combined into the
//! values they admit (`super::ranges`): `x IN (1, 2) AND x IN (2, 3)` is `x = 2`.

use super::expr::CExpr;
use super::literals::{compared_literal, literal_cast, literal_order, typed_literal};

/// The canonical form of an expression and of everything inside it.
pub fn normalize(expr: CExpr) -> CExpr {
    match expr {
        CExpr::Binary { op, left, right } => {
            if is_junction(&op) {
                let mut terms = Vec::new();
                collect_terms(
                    &op,
                    CExpr::Binary {
                        op: op.clone(),
                        left,
                        right,
                    },
                    &mut terms,
                );
                junction(&op, terms)
            } else {
                let (left, right) = (normalize(*left), normalize(*right));
                binary(op, left, right)
            }
        }
        CExpr::Unary { op, operand } if op == "NOT" => negate(normalize(*operand)),
        CExpr::Unary { op, operand } => {
            let operand = normalize(*operand);
            match super::fold::negated(&operand).filter(|_| op == "-") {
                Some(value) => value,
                None => CExpr::Unary {
                    op,
                    operand: Box::new(operand),
                },
            }
        }
        CExpr::Call { name, args } => {
            let args: Vec<CExpr> = args.into_iter().map(normalize).collect();
            call(name, args)
        }
        CExpr::Opaque { text, args } => CExpr::Opaque {
            text,
            args: args.into_iter().map(normalize).collect(),
        },
        CExpr::Literal(text) => CExpr::Literal(typed_literal(text)),
        leaf => leaf,
    }
}

fn is_junction(op: &str) -> bool {
    op == "AND" || op == "OR"
}

/// The terms of a chain of `op`, each normalized (nested chains of the same `op` spliced).
fn collect_terms(op: &str, expr: CExpr, out: &mut Vec<CExpr>) {
    // An explicit stack: a long `a AND b AND ...` chain must not recurse once per term.
    let mut stack = vec![expr];
    while let Some(next) = stack.pop() {
        match next {
            CExpr::Binary {
                op: inner,
                left,
                right,
            } if inner == op => {
                stack.push(*right);
                stack.push(*left);
            }
            other => {
                let term = normalize(other);
                splice(op, term, out);
            }
        }
    }
}

/// The terms of the already normalized chain `left op right`.
fn chain_terms(op: &str, left: Box<CExpr>, right: Box<CExpr>) -> Vec<CExpr> {
    let mut terms = Vec::new();
    splice(
        op,
        CExpr::Binary {
            op: op.to_string(),
            left,
            right,
        },
        &mut terms,
    );
    terms
}

/// Adds an already normalized term, splicing it when it is itself a chain of `op`.
fn splice(op: &str, term: CExpr, out: &mut Vec<CExpr>) {
    let mut stack = vec![term];
    while let Some(next) = stack.pop() {
        match next {
            CExpr::Binary {
                op: inner,
                left,
                right,
            } if inner == op => {
                stack.push(*right);
                stack.push(*left);
            }
            other => out.push(other),
        }
    }
}

/// `t1 op t2 op ...` from normalized terms: sorted, without repeats, nested to the left; the
/// comparisons of one expression with integer literals combined (`super::ranges`).
fn junction(op: &str, terms: Vec<CExpr>) -> CExpr {
    junction_in(op, terms, false)
}

/// [`junction`], in a condition when `condition` (see [`super::ranges::combine`]).
fn junction_in(op: &str, terms: Vec<CExpr>, condition: bool) -> CExpr {
    let mut flat = Vec::with_capacity(terms.len());
    for term in terms {
        splice(op, term, &mut flat);
    }
    if condition && op == "OR" {
        absorb(&mut flat);
    }
    let combined = super::ranges::combine(op, flat, &junction_plain, condition);
    junction_plain(op, combined)
}

/// Absorption in a condition's OR: a term whose conjuncts include all of another term's is
/// implied by it (`a OR (a AND b)` is `a`, also where `a` is NULL); Flink's simplifier drops it
/// (plan lab: cases/group_aggregate/filter-or-absorbed-term.yaml). Not `a AND (a OR b)`, which
/// Flink plans otherwise.
fn absorb(terms: &mut Vec<CExpr>) {
    // A chain of single comparisons (`x = 1 OR x = 2 ...`, however long) absorbs nothing.
    if !terms
        .iter()
        .any(|t| matches!(t, CExpr::Binary { op, .. } if op == "AND"))
    {
        return;
    }
    let sets: Vec<std::collections::BTreeSet<String>> = terms
        .iter()
        .map(|t| t.clone().conjuncts().iter().map(CExpr::canonical).collect())
        .collect();
    let implied: Vec<bool> = (0..sets.len())
        .map(|i| {
            (0..sets.len()).any(|j| sets[j].len() < sets[i].len() && sets[j].is_subset(&sets[i]))
        })
        .collect();
    let mut index = 0;
    terms.retain(|_| {
        index += 1;
        !implied[index - 1]
    });
}

/// [`junction`] without combining comparisons.
fn junction_plain(op: &str, terms: Vec<CExpr>) -> CExpr {
    let mut flat = Vec::with_capacity(terms.len());
    for term in terms {
        splice(op, term, &mut flat);
    }
    // `x AND TRUE` is `x`, `x OR FALSE` is `x`; `x AND FALSE` is FALSE, `x OR TRUE` is TRUE.
    let (neutral, absorbing) = if op == "AND" {
        ("TRUE", "FALSE")
    } else {
        ("FALSE", "TRUE")
    };
    let is = |t: &CExpr, value: &str| matches!(t, CExpr::Literal(text) if text == value);
    if flat.iter().any(|t| is(t, absorbing)) {
        return CExpr::Literal(absorbing.into());
    }
    flat.retain(|t| !is(t, neutral));
    subsume_ranges(op, &mut flat);
    if op == "AND" {
        point_ranges(&mut flat);
    }
    let mut keyed: Vec<(String, CExpr)> = flat.into_iter().map(|t| (t.canonical(), t)).collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    keyed.dedup_by(|a, b| a.0 == b.0);
    let mut terms = keyed.into_iter().map(|(_, t)| t);
    let Some(first) = terms.next() else {
        return CExpr::Literal(neutral.into());
    };
    terms.fold(first, |acc, term| CExpr::Binary {
        op: op.to_string(),
        left: Box::new(acc),
        right: Box::new(term),
    })
}

/// A comparison `expr op number` of a normalized term (the constant on the right).
fn numeric_bound(term: &CExpr) -> Option<(String, &str, f64)> {
    let CExpr::Binary { op, left, right } = term else {
        return None;
    };
    if !matches!(op.as_str(), "<" | "<=" | ">" | ">=") || is_constant(left) {
        return None;
    }
    let CExpr::Literal(text) = right.as_ref() else {
        return None;
    };
    let value: f64 = text.parse().ok()?;
    value
        .is_finite()
        .then(|| (left.canonical(), op.as_str(), value))
}

/// A bound's constant: a number, or a text compared by code point.
#[derive(PartialEq, PartialOrd)]
enum BoundValue {
    Number(f64),
    Text(String),
}

/// Range terms on one expression that another term of the chain subsumes are dropped, as
/// Flink's optimizer does (plan oracle: `qty > 5 AND qty > 3` is planned as `qty > 5`, `qty > 5
/// OR qty > 3` as `qty > 3`). Both terms are NULL exactly when the expression is, so the
/// result is the same in every context, not only in a filter.
fn subsume_ranges(op: &str, terms: &mut Vec<CExpr>) {
    let bounds: Vec<Option<(String, String, BoundValue)>> = terms
        .iter()
        .map(|t| numeric_bound(t).map(|(e, o, v)| (e, o.to_string(), BoundValue::Number(v))))
        .collect();
    drop_subsumed(op, terms, &bounds);
}

/// Drops the terms of an `op` chain that another term's bound subsumes (see [`subsume_ranges`]).
fn drop_subsumed(
    op: &str,
    terms: &mut Vec<CExpr>,
    bounds: &[Option<(String, String, BoundValue)>],
) {
    // Whether `a` implies `b` (both bounds of one expression in the same direction, constants
    // of one kind).
    let implies = |a: &(String, String, BoundValue), b: &(String, String, BoundValue)| {
        if a.0 != b.0 || a.2.partial_cmp(&b.2).is_none() {
            return false;
        }
        if matches!(
            (&a.2, &b.2),
            (BoundValue::Number(_), BoundValue::Text(_))
                | (BoundValue::Text(_), BoundValue::Number(_))
        ) {
            return false;
        }
        let lower = |o: &str| o == ">" || o == ">=";
        if lower(&a.1) != lower(&b.1) {
            return false;
        }
        let strict = |o: &str| o == ">" || o == "<";
        let tighter = if lower(&a.1) { a.2 > b.2 } else { a.2 < b.2 };
        tighter || (a.2 == b.2 && (strict(&a.1) || !strict(&b.1)))
    };
    let mut drop = vec![false; terms.len()];
    debug_assert_eq!(bounds.len(), terms.len());
    for i in 0..terms.len().min(bounds.len()) {
        for j in 0..terms.len().min(bounds.len()) {
            if i == j || drop[j] {
                continue;
            }
            if let (Some(a), Some(b)) = (&bounds[i], &bounds[j]) {
                // AND keeps the tighter term (it implies the other); OR keeps the looser one.
                let redundant = if op == "AND" {
                    implies(b, a)
                } else {
                    implies(a, b)
                };
                if redundant {
                    drop[i] = true;
                    break;
                }
            }
        }
    }
    let mut index = 0;
    terms.retain(|_| {
        index += 1;
        !drop[index - 1]
    });
}

/// Range terms on a text that another term of its chain subsumes are dropped, as Flink's
/// optimizer does for numbers (plan oracle: `s > '10' AND s > '9'` on a STRING `s` is planned as
/// `s > '9'`): texts compare by code point (Flink compares the UTF-8 bytes). `is_text` says
/// which expressions are VARCHAR (a number or date compared with a text literal converts the
/// literal, and orders otherwise); only literals without trailing blanks and within the Basic
/// Multilingual Plane, where every order Flink uses agrees, count. Applied to `AND`/`OR` chains
/// anywhere in an already normalized expression.
pub fn subsume_text_ranges(expr: CExpr, is_text: &dyn Fn(&CExpr) -> bool) -> CExpr {
    match expr {
        CExpr::Binary { op, left, right } if is_junction(&op) => {
            let terms: Vec<CExpr> = chain_terms(&op, left, right)
                .into_iter()
                .map(|t| subsume_text_ranges(t, is_text))
                .collect();
            let bounds: Vec<Option<(String, String, BoundValue)>> =
                terms.iter().map(|t| text_bound(t, is_text)).collect();
            if bounds.iter().filter(|b| b.is_some()).count() < 2 {
                return junction(&op, terms);
            }
            let mut terms = terms;
            drop_subsumed(&op, &mut terms, &bounds);
            junction(&op, terms)
        }
        CExpr::Binary { op, left, right } => CExpr::Binary {
            op,
            left: Box::new(subsume_text_ranges(*left, is_text)),
            right: Box::new(subsume_text_ranges(*right, is_text)),
        },
        CExpr::Unary { op, operand } => CExpr::Unary {
            op,
            operand: Box::new(subsume_text_ranges(*operand, is_text)),
        },
        CExpr::Call { name, args } => CExpr::Call {
            name,
            args: args
                .into_iter()
                .map(|a| subsume_text_ranges(a, is_text))
                .collect(),
        },
        other => other,
    }
}

/// The terms of a filter (all of them must hold): those on a text that another one subsumes
/// dropped (see [`subsume_text_ranges`]).
pub fn subsume_text_terms(terms: &mut Vec<CExpr>, is_text: &dyn Fn(&CExpr) -> bool) {
    let bounds: Vec<Option<(String, String, BoundValue)>> =
        terms.iter().map(|t| text_bound(t, is_text)).collect();
    if bounds.iter().filter(|b| b.is_some()).count() >= 2 {
        drop_subsumed("AND", terms, &bounds);
    }
}

/// A comparison `text op 'literal'` of a normalized term, the literal's text decoded.
fn text_bound(
    term: &CExpr,
    is_text: &dyn Fn(&CExpr) -> bool,
) -> Option<(String, String, BoundValue)> {
    let CExpr::Binary { op, left, right } = term else {
        return None;
    };
    if !matches!(op.as_str(), "<" | "<=" | ">" | ">=") || is_constant(left) || !is_text(left) {
        return None;
    }
    let CExpr::Literal(text) = right.as_ref() else {
        return None;
    };
    let body = text
        .strip_prefix('\'')?
        .strip_suffix('\'')?
        .replace("''", "'");
    let plain = !body.ends_with(' ') && body.chars().all(|c| (c as u32) < 0xD800);
    plain.then(|| (left.canonical(), op.clone(), BoundValue::Text(body)))
}

/// In a filter (where NULL and FALSE both drop the row), `x IS NOT NULL` is implied by a
/// comparison of `x` with a constant that is not NULL, and Flink's optimizer drops it (plan
/// oracle: `qty IS NOT NULL AND qty > 5` is planned as `qty > 5`). Only for filter terms: as a
/// value, `x IS NOT NULL AND x > 5` is FALSE where `x > 5` is NULL.
pub fn simplify_filter_terms(terms: &mut Vec<CExpr>) {
    let compared: Vec<String> = terms
        .iter()
        .filter_map(|t| match t {
            CExpr::Binary { op, left, right }
                if matches!(op.as_str(), "=" | "<>" | "<" | "<=" | ">" | ">=")
                    && !is_constant(left)
                    && matches!(right.as_ref(), CExpr::Literal(l) if l != "NULL") =>
            {
                Some(left.canonical())
            }
            _ => None,
        })
        .collect();
    terms.retain(|t| match t {
        CExpr::Call { name, args } if name == "IS NOT NULL" && args.len() == 1 => {
            !compared.contains(&args[0].canonical())
        }
        _ => true,
    });
}

/// The operator that keeps a comparison's meaning when its operands swap.
fn flipped(op: &str) -> Option<&'static str> {
    Some(match op {
        "=" => "=",
        "<>" => "<>",
        "<" => ">",
        ">" => "<",
        "<=" => ">=",
        ">=" => "<=",
        _ => return None,
    })
}

/// The comparison that is true exactly when `op` is false (for non-NULL operands; NULL stays
/// NULL on both sides).
fn negated_comparison(op: &str) -> Option<&'static str> {
    Some(match op {
        "=" => "<>",
        "<>" => "=",
        "<" => ">=",
        ">=" => "<",
        ">" => "<=",
        "<=" => ">",
        "LIKE" => "NOT LIKE",
        "NOT LIKE" => "LIKE",
        _ => return None,
    })
}

fn is_constant(expr: &CExpr) -> bool {
    matches!(expr, CExpr::Literal(_) | CExpr::Interval { .. })
}

/// `left op right` from normalized operands; a comparison gets its operands in canonical order.
fn binary(op: String, left: CExpr, right: CExpr) -> CExpr {
    // A literal compared with a value only needs its value: `ts > CAST('2024-01-01 00:00:00'
    // AS TIMESTAMP(3))` is `ts > TIMESTAMP '2024-01-01 00:00:00'`, `x > CAST(100 AS BIGINT)` is
    // `x > 100` (plan oracle: Flink reduces both alike).
    let (left, right) = if flipped(&op).is_some() {
        (
            compared_literal(super::fold::compared(left)),
            compared_literal(super::fold::compared(right)),
        )
    } else {
        (left, right)
    };
    // A constant is its value (`2 * 3` is `6`, `'a' || 'b'` is `'ab'`: see `fold`).
    let reduced = match op.as_str() {
        "||" => super::fold::concatenated(&left, &right),
        _ => super::fold::arithmetic(&op, &left, &right),
    };
    if let Some(value) = reduced {
        return value;
    }
    // `b = TRUE` is `b`, `b = FALSE` is `NOT b` (NULL stays NULL), and `<>` the other way.
    if op == "=" || op == "<>" {
        let truth = |e: &CExpr| match e {
            CExpr::Literal(text) if text == "TRUE" => Some(true),
            CExpr::Literal(text) if text == "FALSE" => Some(false),
            _ => None,
        };
        let (value, other) = match (truth(&left), truth(&right)) {
            (None, Some(value)) => (Some(value), Some(left.clone())),
            (Some(value), None) => (Some(value), Some(right.clone())),
            _ => (None, None),
        };
        if let (Some(value), Some(other)) = (value, other) {
            return if value == (op == "=") {
                other
            } else {
                negate(other)
            };
        }
    }
    // `1 = 1` is TRUE (not `NULL = NULL`, which is NULL).
    if let (CExpr::Literal(l), CExpr::Literal(r)) = (&left, &right) {
        if l == r && l != "NULL" && matches!(op.as_str(), "=" | "<=" | ">=") {
            return CExpr::Literal("TRUE".into());
        }
        // `1 = 0` is FALSE, `1 <> 0` TRUE: two different numbers.
        if let (Ok(a), Ok(b)) = (l.parse::<f64>(), r.parse::<f64>()) {
            if a != b && matches!(op.as_str(), "=" | "<>") {
                let value = if op == "=" { "FALSE" } else { "TRUE" };
                return CExpr::Literal(value.into());
            }
        }
    }
    if let Some(flip) = flipped(&op) {
        let swap = match (is_constant(&left), is_constant(&right)) {
            (true, false) => true,
            (false, true) => false,
            _ => left.canonical() > right.canonical(),
        };
        if swap {
            return CExpr::Binary {
                op: flip.to_string(),
                left: Box::new(right),
                right: Box::new(left),
            };
        }
    }
    CExpr::Binary {
        op,
        left: Box::new(left),
        right: Box::new(right),
    }
}

/// A call with normalized arguments: BETWEEN and IN lists become the comparisons they mean.
fn call(name: String, mut args: Vec<CExpr>) -> CExpr {
    match (name.as_str(), args.len()) {
        ("BETWEEN", 3) | ("NOT BETWEEN", 3) => {
            let high = args.pop().unwrap_or_else(|| CExpr::Literal("NULL".into()));
            let low = args.pop().unwrap_or_else(|| CExpr::Literal("NULL".into()));
            let value = args.pop().unwrap_or_else(|| CExpr::Literal("NULL".into()));
            if name == "BETWEEN" {
                junction(
                    "AND",
                    vec![
                        binary(">=".into(), value.clone(), low),
                        binary("<=".into(), value, high),
                    ],
                )
            } else {
                junction(
                    "OR",
                    vec![
                        binary("<".into(), value.clone(), low),
                        binary(">".into(), value, high),
                    ],
                )
            }
        }
        ("IN", n) | ("NOT IN", n) if n >= 2 => {
            let value = args.remove(0);
            let (op, joined) = if name == "IN" {
                ("=", "OR")
            } else {
                ("<>", "AND")
            };
            let terms = args
                .into_iter()
                .map(|item| binary(op.into(), value.clone(), item))
                .collect();
            junction(joined, terms)
        }
        ("BETWEEN SYMMETRIC", 3) | ("NOT BETWEEN SYMMETRIC", 3) => {
            let high = args.pop().unwrap_or_else(|| CExpr::Literal("NULL".into()));
            let low = args.pop().unwrap_or_else(|| CExpr::Literal("NULL".into()));
            let value = args.pop().unwrap_or_else(|| CExpr::Literal("NULL".into()));
            let range =
                |low: CExpr, high: CExpr| call("BETWEEN".into(), vec![value.clone(), low, high]);
            // Literal bounds in known order: the one range they span (`x BETWEEN SYMMETRIC 500
            // AND 10` is `x BETWEEN 10 AND 500`, NULL for a NULL `x` either way); else the
            // expansion Flink plans: `(x >= a AND x <= b) OR (x >= b AND x <= a)`.
            let within = match literal_order(&low, &high) {
                Some(std::cmp::Ordering::Greater) => range(high, low),
                Some(_) => range(low, high),
                None => junction(
                    "OR",
                    vec![range(low.clone(), high.clone()), range(high, low)],
                ),
            };
            if name.starts_with("NOT") {
                negate(within)
            } else {
                within
            }
        }
        // `CASE x WHEN v THEN r ...` is `CASE WHEN x = v THEN r ...`.
        ("CASE_SIMPLE", n) if n >= 3 => {
            let operand = args.remove(0);
            let mut searched = Vec::with_capacity(args.len());
            let mut rest = args.into_iter();
            while let Some(first) = rest.next() {
                match rest.next() {
                    Some(result) => {
                        searched.push(binary("=".into(), operand.clone(), first));
                        searched.push(result);
                    }
                    None => searched.push(first),
                }
            }
            call("CASE".into(), searched)
        }
        // A WHEN condition counts only when TRUE (`c IS TRUE` is `c`), and a missing ELSE is
        // ELSE NULL.
        ("CASE", n) if n >= 2 => {
            let mut args: Vec<CExpr> = args
                .into_iter()
                .enumerate()
                .map(|(i, arg)| {
                    if i % 2 == 0 && i + 1 < n {
                        as_condition(arg)
                    } else {
                        arg
                    }
                })
                .collect();
            if n % 2 == 0 {
                args.push(CExpr::Literal("NULL".into()));
            }
            CExpr::Call { name, args }
        }
        ("CAST", 2) => match literal_cast(&args[0], &args[1]) {
            Some(literal) => literal,
            None => CExpr::Call { name, args },
        },
        _ => CExpr::Call { name, args },
    }
}

/// `x >= v AND x <= v` is `x = v` (plan oracle: `x BETWEEN 10 AND 10` is planned as `x = 10`);
/// NULL for a NULL `x` either way.
fn point_ranges(terms: &mut Vec<CExpr>) {
    let bound = |t: &CExpr, wanted: &str| -> Option<(String, String)> {
        match t {
            CExpr::Binary { op, left, right }
                if op == wanted
                    && !is_constant(left)
                    && matches!(right.as_ref(), CExpr::Literal(l) if l != "NULL") =>
            {
                Some((left.canonical(), right.canonical()))
            }
            _ => None,
        }
    };
    let mut i = 0;
    while i < terms.len() {
        let Some(low) = bound(&terms[i], ">=") else {
            i += 1;
            continue;
        };
        let Some(j) = terms
            .iter()
            .position(|t| bound(t, "<=").as_ref() == Some(&low))
        else {
            i += 1;
            continue;
        };
        let CExpr::Binary { left, right, .. } = terms[i].clone() else {
            i += 1;
            continue;
        };
        terms[i] = binary("=".into(), *left, *right);
        terms.remove(j);
        if j < i {
            i -= 1;
        }
        i += 1;
    }
}

/// A normalized condition where only TRUE counts (a WHERE, HAVING or ON term, a CASE WHEN, an
/// aggregate's FILTER): NULL and FALSE both reject, so `c IS TRUE` is `c` and `c IS FALSE` is
/// `NOT c`, through AND and OR (NOT is already pushed down: those terms are never negated).
/// `c IS NOT FALSE` keeps its form: it lets a NULL `c` through, `c` does not (plan oracle).
pub fn as_condition(expr: CExpr) -> CExpr {
    match expr {
        CExpr::Call { name, mut args }
            if args.len() == 1 && (name == "IS TRUE" || name == "IS FALSE") =>
        {
            let operand = args.pop().unwrap_or_else(|| CExpr::Literal("NULL".into()));
            if name == "IS TRUE" {
                as_condition(operand)
            } else {
                as_condition(negate(operand))
            }
        }
        CExpr::Binary { op, left, right } if is_junction(&op) => {
            let terms = chain_terms(&op, left, right);
            junction_in(&op, terms.into_iter().map(as_condition).collect(), true)
        }
        // `CASE WHEN c THEN TRUE ELSE FALSE END` (or ELSE NULL) is `c`: where c is not TRUE
        // the row is rejected either way (plan oracle).
        CExpr::Call { name, args }
            if name == "CASE"
                && matches!(args.as_slice(), [_, CExpr::Literal(t), CExpr::Literal(e)]
                    if t == "TRUE" && (e == "FALSE" || e == "NULL")) =>
        {
            match args.into_iter().next() {
                Some(condition) => as_condition(condition),
                None => CExpr::Literal("NULL".into()),
            }
        }
        // A NULL condition rejects as FALSE does: `x OR CAST(NULL AS BOOLEAN)` is `x` (plan
        // lab: cases/group_aggregate/filter-or-null-term.yaml).
        CExpr::Literal(text) if text == "NULL" => CExpr::Literal("FALSE".into()),
        CExpr::Call { name, args }
            if name == "CAST" && matches!(args.first(), Some(CExpr::Literal(t)) if t == "NULL") =>
        {
            CExpr::Literal("FALSE".into())
        }
        // `x LIKE '%'` matches every text: it is `x IS NOT NULL` (plan oracle).
        CExpr::Binary { op, left, right }
            if op == "LIKE" && matches!(right.as_ref(), CExpr::Literal(p) if p == "'%'") =>
        {
            CExpr::Call {
                name: "IS NOT NULL".into(),
                args: vec![*left],
            }
        }
        // `x = x` is `x IS NOT NULL` for a column (NULL only where x is; plan oracle).
        CExpr::Binary { op, left, right }
            if matches!(op.as_str(), "=" | "<=" | ">=")
                && matches!(left.as_ref(), CExpr::Column { .. })
                && left.canonical() == right.canonical() =>
        {
            CExpr::Call {
                name: "IS NOT NULL".into(),
                args: vec![*left],
            }
        }
        other => other,
    }
}

/// A normalized condition over a table's scan, where `not_null` tells the columns its
/// declaration makes NOT NULL (plan oracle, as Flink's optimizer simplifies them): `c IS NOT
/// NULL` is TRUE and `c IS NULL` FALSE, `c IS NOT FALSE` and `c IS TRUE` are `c`, `c IS NOT
/// TRUE` and `c IS FALSE` are `NOT c`, `COALESCE(c, ...)` is `c`. Each holds as a value too
/// (`c` is never NULL), so inside comparisons and calls as well.
pub fn with_not_null(expr: CExpr, not_null: &dyn Fn(&CExpr) -> bool) -> CExpr {
    match expr {
        CExpr::Binary { op, left, right } if is_junction(&op) => {
            let terms = chain_terms(&op, left, right);
            junction(
                &op,
                terms
                    .into_iter()
                    .map(|t| with_not_null(t, not_null))
                    .collect(),
            )
        }
        CExpr::Binary { op, left, right } => binary(
            op,
            with_not_null(*left, not_null),
            with_not_null(*right, not_null),
        ),
        CExpr::Call { name, args } => {
            let mut args: Vec<CExpr> = args
                .into_iter()
                .map(|a| with_not_null(a, not_null))
                .collect();
            let first_not_null = args.first().is_some_and(not_null);
            match (name.as_str(), args.len()) {
                ("IS NOT NULL", 1) if first_not_null => CExpr::Literal("TRUE".into()),
                ("IS NULL", 1) if first_not_null => CExpr::Literal("FALSE".into()),
                ("IS NOT FALSE" | "IS TRUE", 1) | ("COALESCE", 2..) if first_not_null => {
                    args.swap_remove(0)
                }
                ("IS NOT TRUE" | "IS FALSE", 1) if first_not_null => negate(args.swap_remove(0)),
                _ => call(name, args),
            }
        }
        CExpr::Unary { op, operand } if op == "NOT" => negate(with_not_null(*operand, not_null)),
        other => other,
    }
}

/// The terms of a filter (all of them must hold) with [`with_not_null`] applied, in their one
/// order.
pub fn with_not_null_terms(terms: Vec<CExpr>, not_null: &dyn Fn(&CExpr) -> bool) -> Vec<CExpr> {
    with_not_null(junction("AND", terms), not_null).conjuncts()
}

/// `NOT expr` for a normalized `expr`, pushed down as far as it goes.
fn negate(expr: CExpr) -> CExpr {
    match expr {
        CExpr::Unary { op, operand } if op == "NOT" => *operand,
        CExpr::Binary { op, left, right } if is_junction(&op) => {
            let other = if op == "AND" { "OR" } else { "AND" };
            let terms = chain_terms(&op, left, right);
            junction(other, terms.into_iter().map(negate).collect())
        }
        CExpr::Binary { op, left, right } => match negated_comparison(&op) {
            Some(negated) => binary(negated.into(), *left, *right),
            None => not(CExpr::Binary { op, left, right }),
        },
        CExpr::Call { name, args } => {
            let negated = match name.as_str() {
                "IS NULL" => "IS NOT NULL",
                "IS NOT NULL" => "IS NULL",
                "IS TRUE" => "IS NOT TRUE",
                "IS NOT TRUE" => "IS TRUE",
                "IS FALSE" => "IS NOT FALSE",
                "IS NOT FALSE" => "IS FALSE",
                "EXISTS" => "NOT EXISTS",
                "NOT EXISTS" => "EXISTS",
                "IN SUBQUERY" => "NOT IN SUBQUERY",
                "NOT IN SUBQUERY" => "IN SUBQUERY",
                _ => return not(CExpr::Call { name, args }),
            };
            CExpr::Call {
                name: negated.into(),
                args,
            }
        }
        other => not(other),
    }
}

fn not(operand: CExpr) -> CExpr {
    CExpr::Unary {
        op: "NOT".into(),
        operand: Box::new(operand),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(c: &str) -> CExpr {
        CExpr::column("t", c)
    }
    fn lit(v: &str) -> CExpr {
        CExpr::Literal(v.into())
    }
    fn bin(op: &str, l: CExpr, r: CExpr) -> CExpr {
        CExpr::Binary {
            op: op.into(),
            left: Box::new(l),
            right: Box::new(r),
        }
    }
    fn n(e: CExpr) -> String {
        normalize(e).canonical()
    }

    #[test]
    fn comparisons_of_two_numbers_are_constants() {
        assert_eq!(n(bin("=", lit("1"), lit("0"))), "FALSE");
        assert_eq!(n(bin("<>", lit("1"), lit("0"))), "TRUE");
        assert_eq!(n(bin("=", lit("1"), lit("1"))), "TRUE");
        // Not two numbers: kept.
        assert_eq!(n(bin("=", lit("'a'"), lit("'b'"))), "'a' = 'b'");
    }

    #[test]
    fn subsumed_range_terms_are_dropped() {
        let and = bin(
            "AND",
            bin(">", col("x"), lit("5")),
            bin(">", col("x"), lit("3")),
        );
        assert_eq!(n(and), n(bin(">", col("x"), lit("5"))));
        let or = bin(
            "OR",
            bin(">", col("x"), lit("5")),
            bin(">=", col("x"), lit("3")),
        );
        assert_eq!(n(or), n(bin(">=", col("x"), lit("3"))));
        let same = bin(
            "AND",
            bin(">", col("x"), lit("5")),
            bin(">=", col("x"), lit("5")),
        );
        assert_eq!(n(same), n(bin(">", col("x"), lit("5"))));
        // Different directions, different expressions: both kept.
        let range = bin(
            "AND",
            bin(">", col("x"), lit("5")),
            bin("<", col("x"), lit("9")),
        );
        assert_ne!(n(range.clone()), n(bin(">", col("x"), lit("5"))));
        let two = bin(
            "AND",
            bin(">", col("x"), lit("5")),
            bin(">", col("y"), lit("3")),
        );
        assert_ne!(n(two), n(bin(">", col("x"), lit("5"))));
    }

    #[test]
    fn implied_null_check_dropped_only_in_filters() {
        let check = CExpr::call("IS NOT NULL", vec![col("x")]);
        let mut terms = vec![check.clone(), normalize(bin(">", col("x"), lit("5")))];
        simplify_filter_terms(&mut terms);
        assert_eq!(terms.len(), 1);
        let mut other = vec![check.clone(), normalize(bin(">", col("y"), lit("5")))];
        simplify_filter_terms(&mut other);
        assert_eq!(other.len(), 2);
        let mut null = vec![check, bin("=", col("x"), lit("NULL"))];
        simplify_filter_terms(&mut null);
        assert_eq!(null.len(), 2);
    }

    #[test]
    fn between_is_a_range() {
        let between = CExpr::call("BETWEEN", vec![col("x"), lit("10"), lit("500")]);
        let range = bin(
            "AND",
            bin("<=", col("x"), lit("500")),
            bin(">=", col("x"), lit("10")),
        );
        assert_eq!(n(between), n(range));
    }

    #[test]
    fn in_list_is_an_or_chain_in_any_order() {
        let list = CExpr::call("IN", vec![col("c"), lit("'a'"), lit("'b'")]);
        let chain = bin(
            "OR",
            bin("=", lit("'b'"), col("c")),
            bin("=", col("c"), lit("'a'")),
        );
        assert_eq!(n(list), n(chain));
    }

    #[test]
    fn not_is_pushed_into_comparisons_and_junctions() {
        let not_eq = not(bin("=", col("a"), col("b")));
        assert_eq!(n(not_eq), n(bin("<>", col("a"), col("b"))));
        assert_eq!(n(not(not(bin(">", col("a"), lit("5"))))), "t.a > 5");
        let de_morgan = not(bin(
            "AND",
            bin(">", col("a"), lit("5")),
            bin("=", col("c"), lit("'x'")),
        ));
        assert_eq!(n(de_morgan), "(t.a <= 5) OR (t.c <> 'x')");
    }

    #[test]
    fn comparison_operands_have_one_order() {
        assert_eq!(n(bin("<", lit("5"), col("a"))), "t.a > 5");
        assert_eq!(n(bin(">", col("d"), col("a"))), "t.a < t.d");
    }

    #[test]
    fn constant_terms_fold() {
        let always = bin(
            "AND",
            bin("=", col("a"), lit("1")),
            bin("=", lit("1"), lit("1")),
        );
        assert_eq!(n(always), "t.a = 1");
        let with_true = bin("AND", lit("TRUE"), bin("=", col("a"), lit("1")));
        assert_eq!(n(with_true), "t.a = 1");
        assert_ne!(n(bin("=", lit("NULL"), lit("NULL"))), "TRUE");
    }

    #[test]
    fn different_predicates_stay_different() {
        assert_ne!(
            n(bin(">", col("a"), lit("5"))),
            n(bin(">=", col("a"), lit("5")))
        );
        assert_ne!(
            n(bin("-", col("a"), lit("1"))),
            n(bin("-", lit("1"), col("a")))
        );
        let swapped_bounds = CExpr::call("BETWEEN", vec![col("x"), lit("500"), lit("10")]);
        let bounds = CExpr::call("BETWEEN", vec![col("x"), lit("10"), lit("500")]);
        assert_ne!(n(swapped_bounds), n(bounds));
    }

    #[test]
    fn between_symmetric_is_the_range_of_its_bounds_in_order() {
        let sym =
            |low: CExpr, high: CExpr| CExpr::call("BETWEEN SYMMETRIC", vec![col("x"), low, high]);
        let plain =
            |low: &str, high: &str| CExpr::call("BETWEEN", vec![col("x"), lit(low), lit(high)]);
        assert_eq!(n(sym(lit("500"), lit("10"))), n(plain("10", "500")));
        assert_eq!(n(sym(lit("10"), lit("500"))), n(plain("10", "500")));
        let not_sym = CExpr::call(
            "NOT BETWEEN SYMMETRIC",
            vec![col("x"), lit("500"), lit("10")],
        );
        let not_plain = CExpr::call("NOT BETWEEN", vec![col("x"), lit("10"), lit("500")]);
        assert_eq!(n(not_sym), n(not_plain));
        let dates = sym(lit("DATE '2024-12-31'"), lit("DATE '2024-1-1'"));
        assert_eq!(n(dates), n(plain("DATE '2024-01-01'", "DATE '2024-12-31'")));
        // Column bounds: either order of the two ranges, never the one-sided range.
        let columns = n(sym(col("a"), col("b")));
        assert_eq!(columns, n(sym(col("b"), col("a"))));
        let asymmetric = CExpr::call("BETWEEN", vec![col("x"), col("a"), col("b")]);
        assert_ne!(columns, n(asymmetric));
        // Texts: the order depends on the collation, so no range is chosen.
        assert_ne!(n(sym(lit("'Z'"), lit("'A'"))), n(plain("'A'", "'Z'")));
        // A point range is the equality.
        assert_eq!(n(plain("10", "10")), n(bin("=", col("x"), lit("10"))));
    }

    #[test]
    fn is_true_is_the_condition_only_where_a_condition_is_read() {
        let cmp = || bin(">", col("a"), lit("10"));
        let is = |name: &str, e: CExpr| CExpr::call(name, vec![e]);
        let cond = |e: CExpr| as_condition(normalize(e)).canonical();
        assert_eq!(cond(is("IS TRUE", cmp())), n(cmp()));
        assert_eq!(cond(is("IS FALSE", cmp())), n(not(cmp())));
        let either = bin("OR", is("IS TRUE", cmp()), bin("=", col("c"), lit("'DE'")));
        assert_eq!(
            cond(either),
            n(bin("OR", cmp(), bin("=", col("c"), lit("'DE'"))))
        );
        // IS NOT FALSE lets a NULL through; as a value, IS TRUE is never NULL.
        assert_ne!(cond(is("IS NOT FALSE", cmp())), n(cmp()));
        assert_ne!(cond(is("IS NOT TRUE", cmp())), n(not(cmp())));
        assert_ne!(n(is("IS TRUE", cmp())), n(cmp()));
        // A CASE reads its WHEN as a condition, in any context.
        let case = |w: CExpr| CExpr::call("CASE", vec![w, lit("'a'"), lit("'b'")]);
        assert_eq!(n(case(is("IS TRUE", cmp()))), n(case(cmp())));
    }

    #[test]
    fn case_forms() {
        let simple = CExpr::call(
            "CASE_SIMPLE",
            vec![col("c"), lit("'DE'"), lit("1"), lit("0")],
        );
        let searched = CExpr::call(
            "CASE",
            vec![bin("=", col("c"), lit("'DE'")), lit("1"), lit("0")],
        );
        assert_eq!(n(simple), n(searched));
        let no_else = CExpr::call("CASE", vec![bin(">", col("a"), lit("10")), lit("'big'")]);
        let else_null = CExpr::call(
            "CASE",
            vec![bin(">", col("a"), lit("10")), lit("'big'"), lit("NULL")],
        );
        assert_eq!(n(no_else), n(else_null));
        // COALESCE and IF keep their names: Flink plans them as such, not as their CASE.
        let coalesce = CExpr::call("COALESCE", vec![col("c"), lit("'x'")]);
        let case = CExpr::call(
            "CASE",
            vec![
                CExpr::call("IS NOT NULL", vec![col("c")]),
                col("c"),
                lit("'x'"),
            ],
        );
        assert_ne!(n(coalesce), n(case));
    }

    #[test]
    fn literals_of_one_value() {
        let cast = |v: &str, t: &str| CExpr::call("CAST", vec![lit(v), lit(t)]);
        assert_eq!(n(cast("' 2024-1-1'", "DATE")), "DATE '2024-01-01'");
        assert_eq!(n(lit("DATE '2024-1-1'")), "DATE '2024-01-01'");
        assert_eq!(n(cast("'10:00:00'", "TIME")), "TIME '10:00:00'");
        assert_eq!(n(cast("100", "INT")), "100");
        assert_eq!(n(cast("'2024-02-30'", "DATE")), "CAST('2024-02-30', DATE)");
        // Compared with a value, an integer cast and a TIMESTAMP text are their literal.
        let gt = |r: CExpr| n(bin(">", col("x"), r));
        assert_eq!(gt(cast("100", "BIGINT")), gt(lit("100")));
        assert_ne!(gt(cast("300", "TINYINT")), gt(lit("300")));
        assert_eq!(
            gt(cast("'2024-01-01 00:00:00.000'", "TIMESTAMP(3)")),
            gt(lit("TIMESTAMP '2024-01-01 00:00:00'"))
        );
        // As a value, the type of the cast is not the literal's.
        assert_ne!(n(cast("100", "BIGINT")), "100");
        // Another numeric type is another literal (Flink plans `x > 100.00` apart).
        assert_ne!(gt(lit("100.00")), gt(lit("100")));
    }

    #[test]
    fn arithmetic_keeps_its_operand_order() {
        assert_ne!(
            n(bin("+", col("a"), col("b"))),
            n(bin("+", col("b"), col("a")))
        );
        assert_ne!(
            n(bin("*", col("a"), col("b"))),
            n(bin("*", col("b"), col("a")))
        );
    }

    #[test]
    fn a_long_chain_is_flattened_without_deep_recursion() {
        let chain = (0..2_000).fold(bin("=", col("a"), lit("0")), |acc, i| {
            bin(
                "AND",
                acc,
                bin("=", col(&format!("a{i}")), lit(&i.to_string())),
            )
        });
        assert!(n(chain).starts_with("(((("));
    }
}
