//! Syntax: every construct, precedence and associativity, spans.

use crate::rules::dsl::ast::{Expr, ExprKind};
use crate::rules::dsl::parser::parse_predicate;

/// The tree as an S-expression, e.g. `(and (not a) b)`.
fn sexpr(expr: &Expr) -> String {
    let all = |items: &[Expr]| items.iter().map(sexpr).collect::<Vec<_>>().join(" ");
    match &expr.kind {
        ExprKind::Null => "null".to_owned(),
        ExprKind::Bool(value) => value.to_string(),
        ExprKind::Number(value) => value.to_string(),
        ExprKind::String(value) => format!("{value:?}"),
        ExprKind::List(items) => format!("[{}]", all(items)),
        ExprKind::Path(path) => path.clone(),
        ExprKind::Call { function, args } => format!("({} {})", function.name(), all(args)),
        ExprKind::Not(operand) => format!("(not {})", sexpr(operand)),
        ExprKind::And(operands) => format!("(and {})", all(operands)),
        ExprKind::Or(operands) => format!("(or {})", all(operands)),
        ExprKind::Compare { op, left, right } => {
            format!("({} {} {})", op.symbol(), sexpr(left), sexpr(right))
        }
        ExprKind::Arith { first, rest } => rest.iter().fold(sexpr(first), |left, (op, right)| {
            format!("({} {left} {})", op.symbol(), sexpr(right))
        }),
    }
}

fn parsed(src: &str) -> String {
    match parse_predicate(src) {
        Ok(expr) => sexpr(&expr),
        Err(error) => panic!("`{src}` should parse, got {error:?}"),
    }
}

fn assert_parses(cases: &[(&str, &str)]) {
    for (src, expected) in cases {
        assert_eq!(parsed(src), *expected, "parsing `{src}`");
    }
}

#[test]
fn literals() {
    assert_parses(&[
        ("1", "1"),
        ("-42", "-42"),
        ("3.25", "3.25"),
        ("-0.5", "-0.5"),
        ("'single'", r#""single""#),
        (r#""double""#, r#""double""#),
        (r#"'it\'s'"#, r#""it's""#),
        (r#""say \"hi\"""#, r#""say \"hi\"""#),
        (r#"'back\\slash'"#, r#""back\\slash""#),
        (r#"'mixed "quotes"'"#, r#""mixed \"quotes\"""#),
        ("''", r#""""#),
        ("'é ünïcode'", r#""é ünïcode""#),
        ("true", "true"),
        ("false", "false"),
        ("null", "null"),
        ("[]", "[]"),
        ("[ ]", "[]"),
        ("[1, 'a', null]", r#"[1 "a" null]"#),
        ("[1, 2,]", "[1 2]"),
        ("[[1], []]", "[[1] []]"),
    ]);
}

#[test]
fn paths() {
    assert_parses(&[
        ("old", "old"),
        ("old.window.size_ms", "old.window.size_ms"),
        ("_x.y_2.z9", "_x.y_2.z9"),
        // Words that merely start with a keyword are paths.
        ("order", "order"),
        ("notes", "notes"),
        ("android", "android"),
        ("inner", "inner"),
        ("true_value", "true_value"),
        ("nullable", "nullable"),
        // Keywords are reserved only where a path starts.
        ("old.in", "old.in"),
    ]);
}

#[test]
fn calls() {
    assert_parses(&[
        ("count(a)", "(count a)"),
        ("count (a)", "(count a)"),
        ("contains(a, 'x')", r#"(contains a "x")"#),
        ("count(minus(a, [1]))", "(count (minus a [1]))"),
        (
            "starts_with(lower(a), 'x')",
            r#"(starts_with (lower a) "x")"#,
        ),
    ]);
}

#[test]
fn operators() {
    assert_parses(&[
        ("a == b", "(== a b)"),
        ("a != b", "(!= a b)"),
        ("a < b", "(< a b)"),
        ("a <= b", "(<= a b)"),
        ("a > b", "(> a b)"),
        ("a >= b", "(>= a b)"),
        ("a in [1, 2]", "(in a [1 2])"),
        ("a+1", "(+ a 1)"),
        ("a-1", "(- a 1)"),
        ("a - -1", "(- a -1)"),
        ("not a", "(not a)"),
        ("not(a)", "(not a)"),
        ("a and b", "(and a b)"),
        ("a or b", "(or a b)"),
    ]);
}

#[test]
fn precedence_and_associativity() {
    assert_parses(&[
        ("not a and b", "(and (not a) b)"),
        ("a or b and c", "(or a (and b c))"),
        ("a and b or c", "(or (and a b) c)"),
        ("not a == b", "(not (== a b))"),
        ("not not a", "(not (not a))"),
        ("a + b == c - 1", "(== (+ a b) (- c 1))"),
        ("a - b + c", "(+ (- a b) c)"),
        ("a or b or c", "(or a b c)"),
        ("a and b and c", "(and a b c)"),
        ("(a or b) and c", "(and (or a b) c)"),
        ("a == (b == c)", "(== a (== b c))"),
        ("count(a) + count(b) > 0", "(> (+ (count a) (count b)) 0)"),
        ("not a in b or c", "(or (not (in a b)) c)"),
    ]);
}

#[test]
fn whitespace_and_newlines_are_free() {
    assert_eq!(
        parsed("\n  count(\n    a ,\tb\n  )\r\n  >\n  0  "),
        parsed("count(a,b)>0")
    );
    assert_eq!(parsed("a.b in[1,2]"), "(in a.b [1 2])");
}

#[test]
fn the_spec_examples_parse() {
    assert_parses(&[
        (
            "count(aggregates.kept) == 0 and count(old.aggregates) > 0",
            "(and (== (count aggregates.kept) 0) (> (count old.aggregates) 0))",
        ),
        ("old.window != new.window", "(!= old.window new.window)"),
        (
            "not keys.equal_as_list and keys.equal_as_set",
            "(and (not keys.equal_as_list) keys.equal_as_set)",
        ),
        (
            "old.mode == 'proctime_desc' or contains(new.keys, \"a\")",
            r#"(or (== old.mode "proctime_desc") (contains new.keys "a"))"#,
        ),
        (
            "config.ignore_filter == false and count(minus(old.filters, new.filters)) + count(new.filters) > 0",
            "(and (== config.ignore_filter false) (> (+ (count (minus old.filters new.filters)) (count new.filters)) 0))",
        ),
        (
            "old.window.kind in ['tumble', 'hop']",
            r#"(in old.window.kind ["tumble" "hop"])"#,
        ),
    ]);
}

#[test]
fn spans_cover_each_node() {
    let src = "not (a == 'x') and count(b) > 1";
    let Ok(expr) = parse_predicate(src) else {
        panic!("should parse")
    };
    let text = |expr: &Expr| src[expr.span.start..expr.span.end].to_owned();
    assert_eq!(text(&expr), src);
    let ExprKind::And(operands) = &expr.kind else {
        panic!("expected `and`, got {expr:?}")
    };
    assert_eq!(text(&operands[0]), "not (a == 'x')");
    assert_eq!(text(&operands[1]), "count(b) > 1");
    let ExprKind::Not(group) = &operands[0].kind else {
        panic!("expected `not`")
    };
    assert_eq!(text(group), "(a == 'x')");
}

#[test]
fn keywords_and_names_are_case_sensitive() {
    for src in [
        "TRUE", "True", "a AND b", "Not a", "Count(a)", "Old.mode", "a IN b",
    ] {
        assert!(parse_predicate(src).is_err(), "`{src}` should not parse");
    }
}

#[test]
fn keywords_are_not_paths() {
    for src in [
        "and", "or", "not", "in", "a == in", "not.x", "true.x", "null.x", "and(a)", "a or and",
    ] {
        assert!(parse_predicate(src).is_err(), "`{src}` should not parse");
    }
}

#[test]
fn malformed_literals_are_rejected() {
    for src in [
        "1.", ".5", "1.2.3", "--1", "- 1", "'open", "\"open", "'mixed\"", "[1 2]", "[,]", "[1,,]",
        "0x1f", "1e3",
    ] {
        assert!(parse_predicate(src).is_err(), "`{src}` should not parse");
    }
}
