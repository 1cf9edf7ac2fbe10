//! Tests of the public API, on a schema shaped like flink-compat's facts.

mod errors;
mod eval;
mod parse;
mod robustness;
mod template;
mod typecheck;

use serde_json::{json, Value};

use super::{DslError, FactSchema, FactType, Predicate, Span};

fn window() -> FactType {
    FactType::object([
        ("kind", FactType::String),
        ("size_ms", FactType::Number),
        ("slide_ms", FactType::Number),
        ("time_attr", FactType::String),
    ])
}

fn job() -> FactType {
    FactType::object([
        ("window", window()),
        ("keys", FactType::list(FactType::String)),
        ("aggregates", FactType::list(FactType::String)),
        ("filters", FactType::list(FactType::String)),
        ("mode", FactType::String),
        ("parallelism", FactType::Number),
        (
            "emit",
            FactType::object([
                ("early_fire", FactType::Bool),
                ("late_fire", FactType::Bool),
            ]),
        ),
        ("extra", FactType::Any),
    ])
}

fn schema() -> FactSchema {
    FactSchema::new()
        .with("old", job())
        .with("new", job())
        .with(
            "aggregates",
            FactType::object([
                ("kept", FactType::list(FactType::String)),
                ("added", FactType::list(FactType::String)),
            ]),
        )
        .with(
            "keys",
            FactType::object([
                ("equal_as_list", FactType::Bool),
                ("equal_as_set", FactType::Bool),
            ]),
        )
        .with(
            "config",
            FactType::object([("ignore_filter", FactType::Bool)]),
        )
}

fn facts() -> Value {
    json!({
        "old": {
            "window": {"kind": "tumble", "size_ms": 60000, "time_attr": "ts"},
            "keys": ["a", "b"],
            "aggregates": ["sum_x", "count_y"],
            "filters": ["x > 1"],
            "mode": "proctime_desc",
            "parallelism": 4,
            "emit": {"early_fire": false, "late_fire": false},
        },
        "new": {
            "window": {"kind": "tumble", "size_ms": 60000.0, "time_attr": "ts"},
            "keys": ["b", "a"],
            "aggregates": ["sum_x"],
            "filters": [],
            "mode": "rowtime",
            "parallelism": 8,
            "emit": {"early_fire": false, "late_fire": true},
        },
        "aggregates": {"kept": ["sum_x"], "added": []},
        "keys": {"equal_as_list": false, "equal_as_set": true},
        "config": {"ignore_filter": false},
    })
}

fn compile(src: &str) -> Predicate {
    match Predicate::compile(src, &schema()) {
        Ok(predicate) => predicate,
        Err(error) => panic!("`{src}` should compile, got {error:?}"),
    }
}

fn compile_err(src: &str) -> DslError {
    match Predicate::compile(src, &schema()) {
        Ok(_) => panic!("`{src}` should be rejected"),
        Err(error) => error,
    }
}

/// The text an error's span covers.
fn spanned(src: &str, error: &DslError) -> String {
    let Span { start, end } = error.span;
    src.get(start..end)
        .unwrap_or_else(|| panic!("span {start}..{end} is not within `{src}`"))
        .to_owned()
}

fn holds(src: &str, facts: &Value) -> bool {
    compile(src).eval(facts)
}
