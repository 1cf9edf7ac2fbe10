//! Evaluation over facts: operators, functions, multisets, absent values.

use super::*;

fn assert_all(expected: bool, predicates: &[&str], facts: &Value) {
    for src in predicates {
        assert_eq!(holds(src, facts), expected, "`{src}` should be {expected}");
    }
}

#[test]
fn the_spec_examples_evaluate() {
    let facts = facts();
    assert_all(
        true,
        &[
            "not keys.equal_as_list and keys.equal_as_set",
            "old.emit.early_fire or new.emit.late_fire",
            "old.mode == 'proctime_desc' or contains(new.keys, \"a\")",
            "true",
            "config.ignore_filter == false and count(minus(old.filters, new.filters)) + count(new.filters) > 0",
            "old.window.kind in ['tumble', 'hop']",
        ],
        &facts,
    );
    assert_all(
        false,
        &[
            "count(aggregates.kept) == 0 and count(old.aggregates) > 0",
            // 60000 and 60000.0 are the same size: the windows are equal.
            "old.window != new.window",
        ],
        &facts,
    );
}

#[test]
fn comparisons() {
    let facts = facts();
    assert_all(
        true,
        &[
            "old.parallelism < new.parallelism",
            "old.parallelism <= 4 and old.parallelism >= 4",
            "new.parallelism > 7.5",
            "old.window.size_ms == 60000 and new.window.size_ms == 60000",
            "old.mode != new.mode",
            "old.keys == ['a', 'b'] and new.keys != ['a', 'b']",
            "'b' in old.keys and not ('z' in old.keys)",
            "old.parallelism in [1, 4.0]",
            "(old.mode == 'a') == false",
        ],
        &facts,
    );
    assert_all(
        false,
        &[
            "old.parallelism > new.parallelism",
            "old.parallelism < 4",
            "4 > 4",
        ],
        &facts,
    );
}

#[test]
fn arithmetic() {
    let facts = facts();
    assert_all(
        true,
        &[
            "old.parallelism + new.parallelism == 12",
            "old.parallelism - new.parallelism == -4",
            "1 - 2 + 3 == 2",
            "0.1 + 0.2 > 0.3 - 0.0001",
            "count(old.keys) - 2 == 0",
        ],
        &facts,
    );
}

#[test]
fn object_equality_is_deep() {
    let facts = json!({
        "old": {"window": {"kind": "hop", "size_ms": 10, "slide_ms": 5}},
        "new": {"window": {"kind": "hop", "size_ms": 10.0, "slide_ms": 5}},
    });
    assert!(holds("old.window == new.window", &facts));
    let mut changed = facts.clone();
    changed["new"]["window"]["slide_ms"] = json!(2);
    assert!(holds("old.window != new.window", &changed));
    let mut extra_field = facts.clone();
    extra_field["new"]["window"]["time_attr"] = json!("ts");
    assert!(holds("old.window != new.window", &extra_field));
    let mut absent = facts;
    absent["new"]["window"] = json!(null);
    assert!(holds(
        "old.window != new.window and new.window == null",
        &absent
    ));
}

#[test]
fn list_functions() {
    let facts = facts();
    assert_all(
        true,
        &[
            "count(old.keys) == 2 and count([]) == 0",
            "empty(new.filters) and not empty(old.filters)",
            "contains(old.keys, 'a') and not contains(old.keys, 'z')",
            "set_eq(old.keys, new.keys) and not list_eq(old.keys, new.keys)",
            "list_eq(old.keys, ['a', 'b'])",
            "subset(new.aggregates, old.aggregates) and not subset(old.aggregates, new.aggregates)",
            "minus(old.aggregates, new.aggregates) == ['count_y']",
            "intersect(old.aggregates, new.aggregates) == ['sum_x']",
            "lower('MiXeD') == 'mixed'",
            "starts_with(old.mode, 'proctime') and not starts_with(old.mode, 'row')",
            "starts_with(old.keys, 'b') and not starts_with(old.keys, 'z')",
            "not starts_with(new.filters, '')",
        ],
        &facts,
    );
}

#[test]
fn list_functions_are_multiset_operations() {
    let facts = facts();
    assert_all(
        true,
        &[
            "count(minus(['a', 'a', 'b'], ['a'])) == 2",
            "minus(['a', 'a', 'b'], ['a']) == ['a', 'b']",
            "minus(['b', 'a', 'c', 'a'], ['a', 'c']) == ['b', 'a']",
            "intersect(['a', 'a', 'b'], ['a', 'c', 'a', 'a']) == ['a', 'a']",
            "set_eq(['a', 'b', 'a'], ['a', 'a', 'b'])",
            "not set_eq(['a', 'b', 'b'], ['a', 'a', 'b'])",
            "not set_eq(['a'], ['a', 'a'])",
            "subset(['a', 'a'], ['a', 'b', 'a'])",
            "not subset(['a', 'a'], ['a', 'b'])",
            "subset([], [])",
            "contains([[1, 2], [3]], [3]) and not contains([[1, 2]], [2, 1])",
            "set_eq([1, 2.0], [2, 1.0])",
        ],
        &facts,
    );
}

#[test]
fn absent_values_read_as_null() {
    let facts = facts();
    assert_all(
        true,
        &[
            // A tumbling window has no slide.
            "old.window.slide_ms == null",
            "old.window.slide_ms != 5",
            "not (old.window.slide_ms == 5)",
            "count(old.extra) == 0 and empty(old.extra)",
            "not old.extra",
            "old.extra.deep.path == null",
            "(old.window.slide_ms + 1) == null",
            "lower(old.extra) == null",
            "not contains(old.extra, 'a') and not ('a' in old.extra)",
            "set_eq(old.extra, []) and subset(old.extra, old.keys) and minus(old.extra, old.keys) == []",
        ],
        &facts,
    );
    assert_all(
        false,
        &[
            "old.window.slide_ms < 5",
            "old.window.slide_ms >= 5",
            "old.window.slide_ms > -1",
            "old.window.slide_ms <= null",
            "old.window.slide_ms + 1 > 0",
            "old.extra",
            "old.extra or old.extra",
            "starts_with(old.extra, '')",
        ],
        &facts,
    );
}

#[test]
fn evaluation_works_on_empty_facts() {
    let empty = json!({});
    assert_all(
        true,
        &[
            "count(aggregates.kept) == 0",
            "old.window == new.window",
            "not old.emit.early_fire",
        ],
        &empty,
    );
    assert_all(
        false,
        &[
            "old.emit.early_fire or new.emit.late_fire",
            "old.parallelism > 0",
        ],
        &empty,
    );
}

#[test]
fn paths_are_listed_once_in_order_of_appearance() {
    let predicate = compile(
        "count(minus(old.filters, new.filters)) + count(new.filters) > 0 and config.ignore_filter == false or old.filters == []",
    );
    assert_eq!(
        predicate.paths(),
        ["old.filters", "new.filters", "config.ignore_filter"]
    );
    assert!(compile("true and [1] == [1]").paths().is_empty());
}

#[test]
fn the_source_is_kept() {
    let src = "  old.window != new.window\n";
    assert_eq!(compile(src).source(), src);
}
