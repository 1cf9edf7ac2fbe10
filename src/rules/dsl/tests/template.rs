//! Message templates: placeholders, escapes, rendering, errors.

use super::*;
use crate::rules::dsl::{Template, MAX_SOURCE_LEN};

fn template(src: &str) -> Template {
    match Template::compile(src, &schema()) {
        Ok(template) => template,
        Err(error) => panic!("`{src}` should compile, got {error:?}"),
    }
}

fn template_err(src: &str) -> DslError {
    match Template::compile(src, &schema()) {
        Ok(template) => panic!("`{src}` should be rejected, got {template:?}"),
        Err(error) => error,
    }
}

fn render(src: &str, facts: &Value) -> String {
    template(src).render(facts)
}

#[test]
fn renders_the_spec_example() {
    let facts = json!({
        "aggregates": {"added": ["sum_x", "max_y"]},
        "new": {"window": {"time_attr": "rowtime"}},
    });
    assert_eq!(
        render(
            "added {aggregates.added} to the window on {new.window.time_attr}",
            &facts
        ),
        "added sum_x, max_y to the window on rowtime"
    );
}

#[test]
fn renders_each_kind_of_value() {
    let facts = json!({
        "old": {
            "mode": "proctime",
            "parallelism": 4,
            "window": {"size_ms": 60000.0, "slide_ms": 0.5, "kind": null},
            "emit": {"early_fire": true, "late_fire": false},
            "keys": ["a", 1, 2.0, null, true, ["x"], {"k": "v"}],
            "filters": [],
            "extra": -7,
        },
        "new": {"parallelism": 18446744073709551615u64, "window": {"size_ms": 1e21}},
    });
    for (src, expected) in [
        ("{old.mode}", "proctime"),
        ("{old.parallelism}", "4"),
        ("{old.extra}", "-7"),
        ("{old.window.size_ms}", "60000"),
        ("{old.window.slide_ms}", "0.5"),
        ("{new.parallelism}", "18446744073709551615"),
        ("{new.window.size_ms}", "1000000000000000000000"),
        ("{old.emit.early_fire}/{old.emit.late_fire}", "true/false"),
        ("{old.window.kind}", "none"),
        ("{old.window.time_attr}", "none"),
        ("{old.keys}", "a, 1, 2, none, true, (x), k v"),
        ("[{old.filters}]", "[none]"),
        ("{old.emit}", "early fire"),
        ("{new.emit}", "none"),
    ] {
        assert_eq!(render(src, &facts), expected, "rendering `{src}`");
    }
}

#[test]
fn long_lists_show_their_first_items_and_how_many_more() {
    let items = |n: usize| -> Vec<String> { (1..=n).map(|i| format!("i{i}")).collect() };
    let twenty = items(crate::rules::dsl::LIST_SHOWN).join(", ");
    let facts = json!({"aggregates": {"added": items(25)}, "old": {"keys": items(20)}});
    assert_eq!(
        render("{aggregates.added}", &facts),
        format!("{twenty} and 5 more")
    );
    assert_eq!(render("{old.keys}", &facts), twenty);
}

#[test]
fn doubled_braces_are_literal() {
    let facts = json!({"old": {"mode": "m"}});
    assert_eq!(render("{{old.mode}}", &facts), "{old.mode}");
    assert_eq!(render("{{{old.mode}}}", &facts), "{m}");
    assert_eq!(render("}}{{", &facts), "}{");
    assert_eq!(render("no placeholders", &facts), "no placeholders");
    assert_eq!(render("", &facts), "");
}

#[test]
fn placeholders_may_be_padded_with_spaces() {
    assert_eq!(
        render("[{ old.mode }]", &json!({"old": {"mode": "m"}})),
        "[m]"
    );
}

#[test]
fn paths_are_listed_once_in_order() {
    let template = template("{new.mode} vs {old.mode}, again {new.mode}");
    assert_eq!(template.paths(), ["new.mode", "old.mode"]);
    assert_eq!(
        template.source(),
        "{new.mode} vs {old.mode}, again {new.mode}"
    );
}

#[test]
fn unclosed_and_unmatched_braces_are_errors() {
    let src = "window {old.window.kind";
    let error = template_err(src);
    assert_eq!(error.message, "unclosed `{`");
    assert_eq!(error.span, Span::new(7, 8));
    assert!(error.help.is_some());

    let error = template_err("a {old.mode {new.mode}");
    assert_eq!(error.message, "unclosed `{`");
    assert_eq!(error.span, Span::new(2, 3));

    let error = template_err("é} b");
    assert_eq!(error.message, "unmatched `}`");
    assert_eq!(error.span, Span::new(2, 3));
}

#[test]
fn unknown_paths_are_errors_with_suggestions() {
    let src = "added {aggregates.addd}";
    let error = template_err(src);
    assert_eq!(&src[error.span.start..error.span.end], "{aggregates.addd}");
    assert!(error
        .message
        .contains("unknown fact path `aggregates.addd`"));
    assert_eq!(
        error.help.as_deref(),
        Some("did you mean `aggregates.added`?")
    );
}

#[test]
fn placeholders_must_hold_one_path() {
    for (src, at) in [
        ("x {}", 3),
        ("{Old.mode}", 1),
        ("{old.mode == 1}", 10),
        ("{ old. mode }", 5),
        ("{'a'}", 1),
        ("{not}", 1),
    ] {
        let error = template_err(src);
        assert_eq!(error.span.start, at, "error for `{src}`: {error:?}");
    }
}

#[test]
fn oversized_templates_are_rejected() {
    let error = template_err(&"x".repeat(MAX_SOURCE_LEN + 1));
    assert!(error.message.contains("the template is"), "{error:?}");
}
