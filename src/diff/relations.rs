//! Neutral relations between an old and a new list: what was kept, added, removed, reordered.

use serde_json::{json, Value};

/// `kept`, `added`, `removed` (multisets, in list order), `equal_as_list`, `equal_as_set`, and
/// `reordered` (the kept items appear in a different relative order).
pub fn relations(old: &[Value], new: &[Value]) -> Value {
    let mut remaining: Vec<&Value> = new.iter().collect();
    let mut kept = Vec::new();
    let mut removed = Vec::new();
    for item in old {
        match remaining.iter().position(|n| *n == item) {
            Some(i) => {
                remaining.remove(i);
                kept.push(item.clone());
            }
            None => removed.push(item.clone()),
        }
    }
    let added: Vec<Value> = remaining.into_iter().cloned().collect();
    let kept_in_new: Vec<Value> = {
        let mut pool = kept.clone();
        let mut order = Vec::new();
        for item in new {
            if let Some(i) = pool.iter().position(|k| k == item) {
                order.push(pool.remove(i));
            }
        }
        order
    };
    let equal_as_set = added.is_empty() && removed.is_empty();
    let reordered = kept != kept_in_new;
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
