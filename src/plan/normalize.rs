//! Spellings of one predicate that Flink's optimizer plans identically get one canonical form
//! (each checked with Flink 2.3's planner: the optimized plans are equal):
//!
//! - `x BETWEEN a AND b` is `x >= a AND x <= b`; `NOT BETWEEN` is `x < a OR x > b`;
//! - `c IN (v1, v2)` is `c = v1 OR c = v2`; `NOT IN (...)` is `c <> v1 AND c <> v2`;
//! - `NOT` is pushed down: `NOT (a = b)` is `a <> b`, `NOT (a < b)` is `a >= b`, `NOT NOT x`
//!   is `x`, `NOT (a AND b)` is `NOT a OR NOT b`, `NOT (x IS NULL)` is `x IS NOT NULL`, ...;
//! - `b = TRUE` is `b`, `b = FALSE` is `NOT b`; `1 = 1` is TRUE, `x AND TRUE` is `x`;
//! - `AND` and `OR` are flattened, their terms sorted and repeated terms dropped;
//! - a comparison has its operands in a fixed order, the operator flipped to keep its meaning:
//!   `'DE' = country` is `country = 'DE'`, `5 < a` is `a > 5`, `d > a` is `a < d`.
//!
//! Predicates that are not equivalent keep different forms (`a > 5` and `a >= 5` differ).

use super::expr::CExpr;

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
        CExpr::Unary { op, operand } => CExpr::Unary {
            op,
            operand: Box::new(normalize(*operand)),
        },
        CExpr::Call { name, args } => {
            let args: Vec<CExpr> = args.into_iter().map(normalize).collect();
            call(name, args)
        }
        CExpr::Opaque { text, args } => CExpr::Opaque {
            text,
            args: args.into_iter().map(normalize).collect(),
        },
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

/// `t1 op t2 op ...` from normalized terms: sorted, without repeats, nested to the left.
fn junction(op: &str, terms: Vec<CExpr>) -> CExpr {
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

/// Range terms on one expression that another term of the chain subsumes are dropped, as
/// Flink's optimizer does (plan oracle: `qty > 5 AND qty > 3` is planned as `qty > 5`, `qty > 5
/// OR qty > 3` as `qty > 3`). Both terms are NULL exactly when the expression is, so the
/// result is the same in every context, not only in a filter.
fn subsume_ranges(op: &str, terms: &mut Vec<CExpr>) {
    let bounds: Vec<Option<(String, &str, f64)>> = terms.iter().map(numeric_bound).collect();
    // Whether `a` implies `b` (both bounds of one expression in the same direction).
    let implies = |a: &(String, &str, f64), b: &(String, &str, f64)| {
        if a.0 != b.0 {
            return false;
        }
        let lower = |o: &str| o == ">" || o == ">=";
        if lower(a.1) != lower(b.1) {
            return false;
        }
        let strict = |o: &str| o == ">" || o == "<";
        let tighter = if lower(a.1) { a.2 > b.2 } else { a.2 < b.2 };
        tighter || (a.2 == b.2 && (strict(a.1) || !strict(b.1)))
    };
    let mut drop = vec![false; terms.len()];
    for i in 0..terms.len() {
        for j in 0..terms.len() {
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
        _ => CExpr::Call { name, args },
    }
}

/// `NOT expr` for a normalized `expr`, pushed down as far as it goes.
fn negate(expr: CExpr) -> CExpr {
    match expr {
        CExpr::Unary { op, operand } if op == "NOT" => *operand,
        CExpr::Binary { op, left, right } if is_junction(&op) => {
            let other = if op == "AND" { "OR" } else { "AND" };
            let mut terms = Vec::new();
            splice(
                &op,
                CExpr::Binary {
                    op: op.clone(),
                    left,
                    right,
                },
                &mut terms,
            );
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
    fn a_long_chain_is_flattened_without_deep_recursion() {
        let chain = (0..2_000).fold(bin("=", col("a"), lit("0")), |acc, i| {
            bin("AND", acc, bin("=", col("a"), lit(&i.to_string())))
        });
        assert!(n(chain).starts_with("(((("));
    }
}
