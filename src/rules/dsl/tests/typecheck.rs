//! Type errors (with spans), path checking, and the schema API.

use super::*;

fn assert_type_error(src: &str, spans: &str, message: &str) -> DslError {
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
fn the_spec_examples_type_check() {
    for src in [
        "count(aggregates.kept) == 0 and count(old.aggregates) > 0",
        "old.window != new.window",
        "not keys.equal_as_list and keys.equal_as_set",
        "old.emit.early_fire or new.emit.late_fire",
        "old.mode == 'proctime_desc' or contains(new.keys, \"a\")",
        "true",
        "config.ignore_filter == false and count(minus(old.filters, new.filters)) + count(new.filters) > 0",
        "old.window.kind in ['tumble', 'hop']",
    ] {
        compile(src);
    }
}

#[test]
fn well_typed_predicates_compile() {
    for src in [
        "old.window == new.window",
        "old.keys == ['a', 'b']",
        "old.keys != []",
        "old.mode == null and null == old.window and old.keys != null",
        "old.window.slide_ms == null",
        "old.parallelism - new.parallelism >= -1.5",
        "old.mode in new.keys",
        "[old.mode, 'x'] == new.keys",
        "[[1], []] != [[2, 3]]",
        "set_eq(old.keys, new.keys) and list_eq(old.keys, ['a']) and subset([], new.keys)",
        "count(intersect(old.keys, new.keys)) < count(old.keys)",
        "empty(minus(old.keys, [])) or contains([], 'x')",
        "lower(old.mode) == 'x' and starts_with(old.window.kind, 'tum')",
        "old.extra == 1 and old.extra.anything.below == 'x' and count(old.extra) > 0",
        "old.extra",
        "contains(old.keys, old.extra) and old.extra in old.keys",
        "(old.mode == 'a') == (new.mode == 'b')",
    ] {
        compile(src);
    }
}

#[test]
fn unknown_paths_suggest_the_nearest() {
    let error = assert_type_error(
        "count(aggregates.kep) > 0",
        "aggregates.kep",
        "unknown fact path `aggregates.kep`",
    );
    assert_eq!(
        error.help.as_deref(),
        Some("did you mean `aggregates.kept`?")
    );
    let error = assert_type_error(
        "old.windw.kind == 'x'",
        "old.windw.kind",
        "unknown fact path",
    );
    assert_eq!(
        error.help.as_deref(),
        Some("did you mean `old.window.kind`?")
    );
    let error = assert_type_error("nothing_like_it", "nothing_like_it", "unknown fact path");
    assert_eq!(error.help, None);
}

#[test]
fn paths_cannot_go_below_scalars_or_lists() {
    let error = assert_type_error(
        "old.window.size_ms.unit == 'ms'",
        "old.window.size_ms.unit",
        "`old.window.size_ms` is a number, which has no fields",
    );
    assert_eq!(
        error.help.as_deref(),
        Some("did you mean `old.window.size_ms`?")
    );
    assert_type_error(
        "old.keys.first == 'a'",
        "old.keys.first",
        "`old.keys` is a list<string>",
    );
}

#[test]
fn equality_needs_compatible_types() {
    assert_type_error(
        "old.mode == 1",
        "old.mode == 1",
        "`==` cannot compare a string with a number",
    );
    assert_type_error(
        "old.keys != [1]",
        "old.keys != [1]",
        "cannot compare a list<string> with a list<number>",
    );
    assert_type_error(
        "old.window == old.emit",
        "old.window == old.emit",
        "objects with different fields",
    );
    assert_type_error(
        "old.window == 'tumble'",
        "old.window == 'tumble'",
        "cannot compare an object with a string",
    );
    assert_type_error("true != 'true'", "true != 'true'", "cannot compare a bool");
}

#[test]
fn ordering_and_arithmetic_need_numbers() {
    assert_type_error(
        "old.mode < 'b'",
        "old.mode",
        "`<` needs a number, but this is a string",
    );
    assert_type_error(
        "1 >= old.emit",
        "old.emit",
        "`>=` needs a number, but this is an object",
    );
    assert_type_error(
        "old.mode + 1 > 0",
        "old.mode",
        "`+` needs a number, but this is a string",
    );
    assert_type_error(
        "1 - old.keys > 0",
        "old.keys",
        "`-` needs a number, but this is a list<string>",
    );
    assert_type_error("1 + 2 - true > 0", "true", "`-` needs a number");
}

#[test]
fn logic_needs_bools() {
    assert_type_error("not old.mode", "old.mode", "`not` needs a bool");
    assert_type_error(
        "true and old.parallelism",
        "old.parallelism",
        "`and` needs a bool (true or false), but this is a number",
    );
    assert_type_error("old.keys or true", "old.keys", "`or` needs a bool");
    assert_type_error("true and (1 + 1)", "(1 + 1)", "`and` needs a bool");
}

#[test]
fn in_needs_an_item_and_a_list_of_its_type() {
    assert_type_error(
        "'a' in old.mode",
        "old.mode",
        "`in` needs a list, but this is a string",
    );
    assert_type_error(
        "1 in old.keys",
        "1 in old.keys",
        "cannot look for a number in a list<string>",
    );
    assert_type_error(
        "old.window.kind in [1, 2]",
        "old.window.kind in [1, 2]",
        "cannot look for a string in a list<number>",
    );
}

#[test]
fn list_literals_need_one_item_type() {
    assert_type_error(
        "[1, 'a'] == []",
        "'a'",
        "must share one type, but this is a string after items of type number",
    );
    assert_type_error("old.mode in ['a', null, 2]", "2", "must share one type");
    assert_type_error("[[1], ['a']] == []", "['a']", "must share one type");
}

#[test]
fn functions_check_arity() {
    for (src, message, usage) in [
        (
            "count() == 0",
            "`count` takes 1 argument, but none were given",
            "count(list) -> number",
        ),
        (
            "count(old.keys, new.keys) == 0",
            "`count` takes 1 argument, but 2 were given",
            "count(list)",
        ),
        (
            "contains(old.keys)",
            "`contains` takes 2 arguments, but 1 was given",
            "contains(list, item)",
        ),
        (
            "set_eq(old.keys, old.keys, old.keys)",
            "`set_eq` takes 2 arguments, but 3 were given",
            "set_eq",
        ),
        (
            "lower() == 'a'",
            "`lower` takes 1 argument",
            "lower(string) -> string",
        ),
        (
            "starts_with('a')",
            "`starts_with` takes 2 arguments",
            "starts_with(string or list, prefix)",
        ),
    ] {
        let call_text = src.split(" ==").next().unwrap_or(src);
        let error = assert_type_error(src, call_text, message);
        assert!(
            error.help.unwrap_or_default().contains(usage),
            "usage for `{src}`"
        );
    }
}

#[test]
fn functions_check_argument_types() {
    assert_type_error(
        "count(old.mode) > 0",
        "old.mode",
        "`count` needs a list, but this is a string",
    );
    assert_type_error("empty(1)", "1", "`empty` needs a list");
    assert_type_error(
        "contains(old.keys, 1)",
        "1",
        "cannot look for a number in a list<string>",
    );
    assert_type_error(
        "contains(old.mode, 'a')",
        "old.mode",
        "`contains` needs a list",
    );
    assert_type_error(
        "set_eq(old.keys, [1])",
        "[1]",
        "`set_eq` needs two lists of the same kind",
    );
    assert_type_error(
        "list_eq(old.keys, old.mode)",
        "old.mode",
        "`list_eq` needs a list",
    );
    assert_type_error("subset(1, old.keys)", "1", "`subset` needs a list");
    assert_type_error(
        "count(minus(old.keys, [true])) > 0",
        "[true]",
        "`minus` needs two lists of the same kind",
    );
    assert_type_error(
        "count(intersect([1], old.keys)) > 0",
        "old.keys",
        "`intersect` needs two lists",
    );
    assert_type_error(
        "lower(old.parallelism) == 'a'",
        "old.parallelism",
        "`lower` needs a string, but this is a number",
    );
    assert_type_error(
        "starts_with(old.mode, 1)",
        "1",
        "`starts_with` needs a string",
    );
}

#[test]
fn function_results_have_types() {
    assert_type_error(
        "minus(old.keys, new.keys) > 0",
        "minus(old.keys, new.keys)",
        "`>` needs a number, but this is a list<string>",
    );
    assert_type_error(
        "lower(old.mode) + 1 > 0",
        "lower(old.mode)",
        "`+` needs a number, but this is a string",
    );
    assert_type_error(
        "count(old.keys) and true",
        "count(old.keys)",
        "`and` needs a bool",
    );
}

#[test]
fn the_predicate_must_be_a_bool() {
    let error = assert_type_error(
        "count(old.keys)",
        "count(old.keys)",
        "must be true or false, but this is a number",
    );
    assert!(error.help.is_some());
    assert_type_error("old.mode", "old.mode", "but this is a string");
    assert_type_error("old.window", "old.window", "but this is an object");
    assert_type_error(
        "minus(old.keys, [])",
        "minus(old.keys, [])",
        "but this is a list<string>",
    );
}

#[test]
fn schema_lists_every_path_with_its_type() {
    let schema = FactSchema::new()
        .with("keys", FactType::object([("equal_as_set", FactType::Bool)]))
        .with(
            "old",
            FactType::object([
                ("window", FactType::object([("size_ms", FactType::Number)])),
                ("keys", FactType::list(FactType::String)),
                ("extra", FactType::Any),
            ]),
        );
    let listed: Vec<(String, String)> = schema
        .paths()
        .into_iter()
        .map(|(path, ty)| (path, ty.to_string()))
        .collect();
    let expected = [
        ("keys", "object"),
        ("keys.equal_as_set", "bool"),
        ("old", "object"),
        ("old.extra", "any"),
        ("old.keys", "list<string>"),
        ("old.window", "object"),
        ("old.window.size_ms", "number"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(path, ty)| (path.to_string(), ty.to_string()))
        .collect();
    assert_eq!(listed, expected);
}

#[test]
fn schema_resolves_paths() {
    let schema = schema();
    assert_eq!(
        schema.type_of("old.window.size_ms"),
        Some(&FactType::Number)
    );
    assert_eq!(
        schema.type_of("old.keys"),
        Some(&FactType::list(FactType::String))
    );
    assert_eq!(schema.type_of("old.window"), Some(&window()));
    assert_eq!(schema.type_of("old.extra.a.b"), Some(&FactType::Any));
    assert_eq!(schema.type_of("old.window.size_ms.x"), None);
    assert_eq!(schema.type_of("old.nope"), None);
    assert_eq!(schema.type_of(""), None);
    assert_eq!(schema.type_of("old..window"), None);
}

#[test]
fn schemas_can_be_built_from_pairs() {
    let built: FactSchema = [
        ("a", FactType::Bool),
        ("b", FactType::list(FactType::Number)),
    ]
    .into_iter()
    .collect();
    assert_eq!(
        built,
        FactSchema::new()
            .with("a", FactType::Bool)
            .with("b", FactType::list(FactType::Number))
    );
    assert!(Predicate::compile("a and count(b) > 0", &built).is_ok());
}
