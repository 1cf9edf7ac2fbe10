//! Operations on fact values: path lookup, deep equality, multiset algebra.

use serde_json::Value;

/// The value at a dotted path, or `None` if any step is missing or is not an object.
pub(super) fn lookup<'v>(facts: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.')
        .try_fold(facts, |value, segment| value.as_object()?.get(segment))
}

/// Structural equality in which numbers compare by value (`1 == 1.0`).
/// Iterative, because facts may nest deeper than the stack allows.
pub(super) fn deep_equal(a: &Value, b: &Value) -> bool {
    let mut pending = vec![(a, b)];
    while let Some((a, b)) = pending.pop() {
        let equal = match (a, b) {
            (Value::Number(a), Value::Number(b)) => numbers_equal(a, b),
            (Value::Array(a), Value::Array(b)) => {
                a.len() == b.len() && {
                    pending.extend(a.iter().zip(b));
                    true
                }
            }
            (Value::Object(a), Value::Object(b)) => {
                a.len() == b.len()
                    && a.iter().all(|(key, a_value)| match b.get(key) {
                        Some(b_value) => {
                            pending.push((a_value, b_value));
                            true
                        }
                        None => false,
                    })
            }
            (a, b) => a == b,
        };
        if !equal {
            return false;
        }
    }
    true
}

fn numbers_equal(a: &serde_json::Number, b: &serde_json::Number) -> bool {
    // Exact for integers beyond 2^53, where going through f64 would round.
    if let (Some(a), Some(b)) = (a.as_i64(), b.as_i64()) {
        return a == b;
    }
    if let (Some(a), Some(b)) = (a.as_u64(), b.as_u64()) {
        return a == b;
    }
    a.as_f64() == b.as_f64()
}

/// The items of `a` left after removing, for each item of `b`, one equal item
/// of `a` (multiset difference); `a`'s order is kept.
pub(super) fn multiset_minus<'v>(a: &'v [Value], b: &[Value]) -> Vec<&'v Value> {
    let matched = match_items(a, b);
    a.iter()
        .zip(matched)
        .filter_map(|(item, matched)| (!matched).then_some(item))
        .collect()
}

/// The items of `a` that pair up with an equal item of `b`, each item of `b`
/// used at most once (multiset intersection); `a`'s order is kept.
pub(super) fn multiset_intersect<'v>(a: &'v [Value], b: &[Value]) -> Vec<&'v Value> {
    let matched = match_items(a, b);
    a.iter()
        .zip(matched)
        .filter_map(|(item, matched)| matched.then_some(item))
        .collect()
}

/// Equality of `a` and `b` ignoring order but not multiplicity.
pub(super) fn multiset_equal(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && multiset_minus(a, b).is_empty()
}

/// For each item of `a`, whether it pairs up with a distinct equal item of `b`.
fn match_items(a: &[Value], b: &[Value]) -> Vec<bool> {
    let mut used = vec![false; b.len()];
    a.iter()
        .map(|item| {
            let partner = b
                .iter()
                .zip(used.iter())
                .position(|(candidate, &used)| !used && deep_equal(item, candidate));
            match partner.and_then(|index| used.get_mut(index)) {
                Some(slot) => {
                    *slot = true;
                    true
                }
                None => false,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn items(value: Value) -> Vec<Value> {
        match value {
            Value::Array(items) => items,
            _ => panic!("test data must be an array"),
        }
    }

    #[test]
    fn lookup_follows_objects_only() {
        let facts = json!({"old": {"window": {"size": 5}, "keys": ["a"]}});
        assert_eq!(lookup(&facts, "old.window.size"), Some(&json!(5)));
        assert_eq!(lookup(&facts, "old.window.slide"), None);
        assert_eq!(lookup(&facts, "old.keys.a"), None);
        assert_eq!(lookup(&facts, "old.window.size.x"), None);
    }

    #[test]
    fn deep_equality_compares_numbers_by_value() {
        assert!(deep_equal(&json!({"a": [1, 2.0]}), &json!({"a": [1.0, 2]})));
        assert!(!deep_equal(&json!({"a": [1, 2]}), &json!({"a": [2, 1]})));
        assert!(!deep_equal(&json!({"a": 1}), &json!({"a": 1, "b": null})));
        assert!(!deep_equal(&json!(u64::MAX), &json!(u64::MAX - 1)));
        assert!(deep_equal(&json!(null), &json!(null)));
    }

    #[test]
    fn deep_equality_survives_very_deep_values() {
        let nested = || (0..100_000).fold(json!(1), |inner, _| Value::Array(vec![inner]));
        let (a, b) = (nested(), nested());
        assert!(deep_equal(&a, &b));
        // Cloning or dropping such a Value recurses and would overflow; leak them.
        std::mem::forget(a);
        std::mem::forget(b);
    }

    #[test]
    fn multiset_operations_respect_multiplicity_and_order() {
        let a = items(json!(["a", "b", "a", "c"]));
        let b = items(json!(["a", "c", "d"]));
        assert_eq!(multiset_minus(&a, &b), vec![&json!("b"), &json!("a")]);
        assert_eq!(multiset_intersect(&a, &b), vec![&json!("a"), &json!("c")]);
        assert!(multiset_equal(
            &items(json!([1, 2, 1])),
            &items(json!([1, 1, 2]))
        ));
        assert!(!multiset_equal(
            &items(json!([1, 2, 2])),
            &items(json!([1, 1, 2]))
        ));
    }
}
