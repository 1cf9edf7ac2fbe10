//! Neutral relations between an old and a new list: what was kept, added, removed, reordered.

use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};

/// `kept`, `added`, `removed` (multisets, in list order), `equal_as_list`, `equal_as_set`, and
/// `reordered` (the kept items appear in a different relative order).
pub fn relations(old: &[Value], new: &[Value]) -> Value {
    // Each item is looked up by its text, not found by a scan of the other list (wide lists).
    let mut positions: HashMap<String, VecDeque<usize>> = HashMap::new();
    for (at, item) in new.iter().enumerate() {
        positions.entry(item.to_string()).or_default().push_back(at);
    }
    let mut matched = vec![false; new.len()];
    let mut kept = Vec::new();
    let mut removed = Vec::new();
    let mut kept_count: HashMap<String, usize> = HashMap::new();
    for item in old {
        let key = item.to_string();
        match positions.get_mut(&key).and_then(VecDeque::pop_front) {
            Some(at) => {
                matched[at] = true;
                kept.push(item.clone());
                *kept_count.entry(key).or_default() += 1;
            }
            None => removed.push(item.clone()),
        }
    }
    let added: Vec<Value> = new
        .iter()
        .zip(&matched)
        .filter(|(_, m)| !**m)
        .map(|(item, _)| item.clone())
        .collect();
    // The kept items in the new list's order.
    let mut kept_in_new: Vec<&Value> = Vec::with_capacity(kept.len());
    for item in new {
        if let Some(count) = kept_count.get_mut(&item.to_string()).filter(|c| **c > 0) {
            *count -= 1;
            kept_in_new.push(item);
        }
    }
    let equal_as_set = added.is_empty() && removed.is_empty();
    let reordered = !kept.iter().eq(kept_in_new.iter().copied());
    json!({
        "kept": kept,
        "added": added,
        "removed": removed,
        "equal_as_list": old == new,
        "equal_as_set": equal_as_set,
        "reordered": reordered,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[&str]) -> Vec<Value> {
        items.iter().map(|s| json!(s)).collect()
    }

    #[test]
    fn modification_is_a_removal_and_an_addition() {
        let r = relations(&list(&["SUM(b)", "MAX(c)"]), &list(&["SUM(b)", "MIN(c)"]));
        assert_eq!(r["kept"], json!(["SUM(b)"]));
        assert_eq!(r["added"], json!(["MIN(c)"]));
        assert_eq!(r["removed"], json!(["MAX(c)"]));
        assert_eq!(r["reordered"], json!(false));
    }

    #[test]
    fn reordering_keeps_everything() {
        let r = relations(&list(&["a", "b", "c"]), &list(&["c", "a", "b"]));
        assert_eq!(r["equal_as_set"], json!(true));
        assert_eq!(r["equal_as_list"], json!(false));
        assert_eq!(r["reordered"], json!(true));
    }

    #[test]
    fn duplicates_count_as_multisets() {
        let r = relations(&list(&["a", "a"]), &list(&["a"]));
        assert_eq!(r["removed"], json!(["a"]));
    }
}
