//! Syntax errors: each is a `DslError` with a useful span and wording.

use super::*;

/// Compiles `src`, expecting an error whose span covers `spans` and whose
/// message contains `message`.
fn assert_error(src: &str, spans: &str, message: &str) -> DslError {
    let error = compile_err(src);
    assert_eq!(
        spanned(src, &error),
        spans,
        "span of the error for `{src}`: {error:?}"
    );
    assert!(
        error.message.contains(message),
        "message for `{src}` should contain {message:?}: {error:?}"
    );
    error
}

#[test]
fn empty_predicates_are_rejected() {
    assert_error("", "", "the predicate is empty");
    let error = assert_error(" \n\t", " \n\t", "the predicate is empty");
    assert!(error.help.is_some());
}

#[test]
fn trailing_garbage_is_rejected() {
    assert_error(
        "true false",
        "false",
        "expected an operator or the end, found `false`",
    );
    assert_error(
        "old.mode == 'a')",
        ")",
        "expected an operator or the end, found `)`",
    );
    assert_error("true #", "#", "found `#`");
    assert_error("old.mode == 'a' é", "é", "found `é`");
}

#[test]
fn incomplete_input_points_at_the_end() {
    let src = "old.mode ==";
    let error = assert_error(src, "", "expected an expression, found the end");
    assert_eq!(error.span, Span::new(src.len(), src.len()));
    assert_error(
        "(old.emit.early_fire",
        "",
        "expected an operator or `)`, found the end",
    );
    assert_error(
        "count(old.keys",
        "",
        "expected an operator, `,` or `)`, found the end",
    );
    assert_error(
        "['a', 'b'",
        "",
        "expected an operator, `,` or `]`, found the end",
    );
    assert_error("not", "", "found the end");
    assert_error("true and", "", "expected an expression, found the end");
}

#[test]
fn misplaced_tokens_are_named() {
    assert_error(
        "true and or false",
        "or",
        "expected an expression, found `or`",
    );
    assert_error("count(old.keys,)", ")", "expected an expression, found `)`");
    assert_error("[,]", ",", "expected `]` or an expression, found `,`");
    assert_error("old.", ".", "found `.`");
}

#[test]
fn comparisons_do_not_chain() {
    let error = assert_error("1 < 2 < 3", "<", "comparisons cannot be chained");
    assert_eq!(error.span, Span::new(6, 7));
    assert!(error
        .help
        .as_deref()
        .is_some_and(|help| help.contains("`and`")));
    assert_error(
        "old.mode == 'a' == true",
        "==",
        "comparisons cannot be chained",
    );
    assert_error(
        "'a' in old.keys in [true]",
        "in",
        "comparisons cannot be chained",
    );
    // With parentheses it is an ordinary comparison of bools.
    compile("(old.mode == 'a') == true");
}

#[test]
fn other_languages_operators_get_a_hint() {
    for (src, token, hint) in [
        ("old.emit.early_fire && true", "&&", "`and`"),
        ("old.emit.early_fire || true", "||", "`or`"),
        ("! old.emit.early_fire", "!", "`not`"),
        ("old.mode = 'a'", "=", "`==`"),
        ("Old.mode == 'a'", "Old.mode", "lowercase"),
    ] {
        let error = assert_error(src, token, "");
        let help = error.help.unwrap_or_default();
        assert!(help.contains(hint), "help for `{src}`: {help}");
    }
}

#[test]
fn bad_strings_are_reported_where_they_are() {
    let error = assert_error("old.mode == 'abc", "'abc", "unterminated string");
    assert!(error.help.unwrap_or_default().contains('\''));
    assert_error(r#"old.mode == "a\"b"#, r#""a\"b"#, "unterminated string");
    let error = assert_error(r"old.mode == 'a\nb'", r"\n", "unknown escape `\\n`");
    assert!(error.help.is_some());
    assert_error(r"old.mode == 'a\é'", r"\é", "unknown escape");
}

#[test]
fn unknown_functions_list_the_known_ones() {
    let error = assert_error("cnt(old.keys) > 0", "cnt", "unknown function `cnt`");
    let help = error.help.unwrap_or_default();
    assert!(help.starts_with("did you mean `count`?"), "{help}");
    for name in [
        "count",
        "empty",
        "contains",
        "set_eq",
        "list_eq",
        "subset",
        "minus",
        "intersect",
        "lower",
        "starts_with",
    ] {
        assert!(help.contains(name), "{help} should list {name}");
    }
    let error = assert_error("frobnicate(1)", "frobnicate", "unknown function");
    assert!(!error.help.unwrap_or_default().contains("did you mean"));
}

#[test]
fn errors_display_their_message() {
    let error = compile_err("old.mode ==");
    assert_eq!(error.to_string(), error.message);
    let source: &dyn std::error::Error = &error;
    assert!(source.source().is_none());
}
