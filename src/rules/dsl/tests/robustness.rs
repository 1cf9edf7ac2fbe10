//! Hostile inputs: size and nesting limits, odd characters, long chains.

use super::*;
use crate::rules::dsl::{MAX_DEPTH, MAX_SOURCE_LEN};

fn nested(open: &str, inner: &str, close: &str, levels: usize) -> String {
    format!("{}{inner}{}", open.repeat(levels), close.repeat(levels))
}

#[test]
fn ten_thousand_open_parentheses_are_rejected_without_overflow() {
    let src = "(".repeat(10_000);
    let error = compile_err(&src);
    assert!(
        error.message.contains("nested more than 64 levels"),
        "{error:?}"
    );
    assert_eq!(error.span, Span::new(MAX_DEPTH, MAX_DEPTH + 1));
}

#[test]
fn deep_brackets_and_negations_are_rejected() {
    for src in [
        nested("(", "true", ")", 8_000),
        nested("[", "1", "]", 8_000),
        nested("count([", "", "]) > 0", 1_000),
        format!("{}true", "not ".repeat(4_000)),
        nested("not (", "true", ")", MAX_DEPTH / 2 + 1),
    ] {
        let error = compile_err(&src);
        assert!(error.message.contains("nested more than"), "{error:?}");
    }
}

#[test]
fn nesting_up_to_the_limit_compiles_and_evaluates() {
    let facts = facts();
    assert!(holds(&nested("(", "true", ")", MAX_DEPTH), &facts));
    assert!(holds(
        &format!("{}true", "not not ".repeat(MAX_DEPTH / 2)),
        &facts
    ));
    let negated_groups = nested("not (", "false", ")", MAX_DEPTH / 2);
    assert_eq!(holds(&negated_groups, &facts), (MAX_DEPTH / 2) % 2 == 1);
    let lists = nested("[", "'a'", "]", MAX_DEPTH - 1);
    assert!(holds(&format!("count({lists}) == 1"), &facts));
    compile_err(&nested("(", "true", ")", MAX_DEPTH + 1));
}

/// Nested calls cost the most stack per level (in pest, the tree builder and
/// the type checker). At the limit they must fit the 2 MiB that spawned
/// threads get by default, even in a debug build.
#[test]
fn the_deepest_predicates_fit_a_default_thread_stack() {
    let worker = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            // `count(` is one level, each `minus(` another, and the innermost `[]` one more.
            let calls = nested("minus(", "old.keys", ", [])", MAX_DEPTH - 2);
            holds(&format!("count({calls}) == 2"), &facts())
        });
    let joined = worker.map(|handle| handle.join());
    assert!(matches!(joined, Ok(Ok(true))));
}

#[test]
fn brackets_inside_strings_do_not_count_as_nesting() {
    let src = format!("old.mode == '{}'", "(".repeat(1_000));
    assert!(!holds(&src, &facts()));
}

#[test]
fn long_flat_chains_do_not_nest() {
    let facts = facts();
    let ors = vec!["old.emit.early_fire"; 700].join(" or ");
    assert!(!holds(&ors, &facts));
    let sum = format!("{} == 4000", vec!["1"; 4_000].join("+"));
    assert!(holds(&sum, &facts));
}

#[test]
fn oversized_input_is_rejected() {
    let src = format!("true{}", " ".repeat(MAX_SOURCE_LEN));
    let error = compile_err(&src);
    assert!(error.message.contains("limit is 16384"), "{error:?}");
    assert_eq!(error.span, Span::new(MAX_SOURCE_LEN, src.len()));
}

#[test]
fn odd_characters_are_syntax_errors_not_panics() {
    for src in [
        "é",
        "old.mode == 'é' é",
        "\u{0}",
        "true \u{feff}",
        "old.mode == '\\",
        "'\\é'",
        "\"",
        "]",
        ")",
        "((",
        "[[",
        "count(",
        "-",
        "- 1 == 1",
        "1..2 == 1",
        "old..mode",
        ".old",
        "old.mode.",
        "_",
        "1e5 > 1",
        "0x10 > 1",
    ] {
        if let Ok(predicate) = Predicate::compile(src, &schema()) {
            panic!("`{src}` compiled to {predicate:?}");
        }
    }
}

#[test]
fn numbers_beyond_f64_are_rejected() {
    let src = format!("{} > 1", "9".repeat(400));
    let error = compile_err(&src);
    assert!(error.message.contains("out of range"), "{error:?}");
    assert_eq!(error.span, Span::new(0, 400));
}

#[test]
fn arithmetic_overflow_reads_as_null() {
    let big = format!("1{}", "0".repeat(308));
    assert!(!holds(&format!("{big} + {big} > 0"), &facts()));
    assert!(holds(&format!("{big} + {big} == null"), &facts()));
}

#[test]
fn facts_of_the_wrong_shape_do_not_panic() {
    let odd_facts = [
        json!(null),
        json!([1, 2]),
        json!({"old": "x", "new": {"keys": "a,b", "window": [1]}, "aggregates": {"kept": {"a": 1}}}),
        json!({"old": {"parallelism": "4", "keys": [null, 1, [2], {"a": []}]}}),
    ];
    let predicates = [
        "count(aggregates.kept) == 0 and count(old.aggregates) > 0",
        "old.window != new.window",
        "old.parallelism + 1 > new.parallelism - 1",
        "contains(new.keys, 'a') or set_eq(old.keys, new.keys) or list_eq(old.keys, new.keys)",
        "subset(old.keys, new.keys) and empty(minus(old.keys, new.keys))",
        "count(intersect(old.keys, new.keys)) >= 0",
        "lower(old.mode) == 'x' or starts_with(old.mode, new.mode)",
        "old.window.kind in ['tumble', 'hop'] or old.extra.a.b == 1",
    ];
    for predicate in predicates {
        let predicate = compile(predicate);
        for facts in &odd_facts {
            predicate.eval(facts);
        }
    }
}

/// Random token soup: compiling, evaluating and rendering must never panic.
#[test]
fn random_inputs_never_panic() {
    const TOKENS: [&str; 40] = [
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "'",
        "\"",
        "\\",
        ",",
        ".",
        " ",
        "\n",
        "not",
        "and",
        "or",
        "in",
        "==",
        "!=",
        "<",
        ">=",
        "+",
        "-",
        "1",
        "-2.5",
        "true",
        "null",
        "old.mode",
        "old.keys",
        "new.keys",
        "old.window",
        "old.extra.x",
        "count",
        "minus",
        "contains",
        "lower",
        "'a'",
        "é",
        "\u{0}",
        "Old",
    ];
    let schema = schema();
    let facts = facts();
    // xorshift64: deterministic, so a failure reproduces.
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..20_000 {
        let len = next() % 16;
        let src: String = (0..len)
            .map(|_| TOKENS[(next() % TOKENS.len() as u64) as usize])
            .collect();
        if let Ok(predicate) = Predicate::compile(&src, &schema) {
            predicate.eval(&facts);
            predicate.eval(&json!(null));
        }
        if let Ok(template) = crate::rules::dsl::Template::compile(&src, &schema) {
            template.render(&facts);
        }
    }
}
