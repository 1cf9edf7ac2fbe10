//! Neutral relations between an old and a new list: what was kept, added, removed, reordered.

use crate::fact_schema::FactType;
use serde::Serialize;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::hash::Hash;

/// How a new list relates to an old one: `kept`, `added`, `removed` (multisets, in list order),
/// `equal_as_list`, `equal_as_set`, and `reordered` (the kept items appear in a different
/// relative order). Serialized, it is the relation object the rules read (`keys.added`, ...).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListRelation<T> {
    pub kept: Vec<T>,
    pub added: Vec<T>,
    pub removed: Vec<T>,
    pub equal_as_list: bool,
    pub equal_as_set: bool,
    pub reordered: bool,
}

impl ListRelation<Value> {
    /// The DSL type of the relation object of a list of `item`s, from the type's own fields
    /// (as serialized): a list of items for `kept`, `added`, `removed`, a boolean for the others.
    pub fn fact_type(item: &FactType) -> FactType {
        let fields = match serde_json::to_value(ListRelation::<Value>::default()) {
            Ok(Value::Object(fields)) => fields,
            _ => serde_json::Map::new(),
        };
        FactType::object(fields.into_iter().map(|(name, value)| {
            let fact_type = match value {
                Value::Array(_) => FactType::List(Box::new(item.clone())),
                _ => FactType::Bool,
            };
            (name, fact_type)
        }))
    }
}

impl<T> Default for ListRelation<T> {
    fn default() -> Self {
        ListRelation {
            kept: Vec::new(),
            added: Vec::new(),
            removed: Vec::new(),
            equal_as_list: true,
            equal_as_set: true,
            reordered: false,
        }
    }
}

/// The relation between two lists of fact values (items compared by their JSON text).
pub fn relations(old: &[Value], new: &[Value]) -> ListRelation<Value> {
    relate(old, new, Value::to_string)
}

/// The relation between two lists of texts.
pub fn text_relations(old: &[String], new: &[String]) -> ListRelation<String> {
    relate(old, new, String::clone)
}

fn relate<T: Clone + PartialEq, K: Hash + Eq>(
    old: &[T],
    new: &[T],
    key_of: impl Fn(&T) -> K,
) -> ListRelation<T> {
    // Each item is looked up by its key, not found by a scan of the other list (wide lists).
    let mut positions: HashMap<K, VecDeque<usize>> = HashMap::new();
    for (at, item) in new.iter().enumerate() {
        positions.entry(key_of(item)).or_default().push_back(at);
    }
    let mut matched = vec![false; new.len()];
    let mut kept = Vec::new();
    let mut removed = Vec::new();
    let mut kept_count: HashMap<K, usize> = HashMap::new();
    for item in old {
        let key = key_of(item);
        match positions.get_mut(&key).and_then(VecDeque::pop_front) {
            Some(at) => {
                matched[at] = true;
                kept.push(item.clone());
                *kept_count.entry(key).or_default() += 1;
            }
            None => removed.push(item.clone()),
        }
    }
    let added: Vec<T> = new
        .iter()
        .zip(&matched)
        .filter(|(_, m)| !**m)
        .map(|(item, _)| item.clone())
        .collect();
    // The kept items in the new list's order.
    let mut kept_in_new: Vec<&T> = Vec::with_capacity(kept.len());
    for item in new {
        if let Some(count) = kept_count.get_mut(&key_of(item)).filter(|c| **c > 0) {
            *count -= 1;
            kept_in_new.push(item);
        }
    }
    let equal_as_set = added.is_empty() && removed.is_empty();
    let reordered = !kept.iter().eq(kept_in_new.iter().copied());
    ListRelation {
        equal_as_list: old == new,
        equal_as_set,
        reordered,
        kept,
        added,
        removed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn list(items: &[&str]) -> Vec<Value> {
        items.iter().map(|s| json!(s)).collect()
    }

    #[test]
    fn modification_is_a_removal_and_an_addition() {
        let r = relations(&list(&["SUM(b)", "MAX(c)"]), &list(&["SUM(b)", "MIN(c)"]));
        assert_eq!(r.kept, list(&["SUM(b)"]));
        assert_eq!(r.added, list(&["MIN(c)"]));
        assert_eq!(r.removed, list(&["MAX(c)"]));
        assert!(!r.reordered);
    }

    #[test]
    fn reordering_keeps_everything() {
        let r = relations(&list(&["a", "b", "c"]), &list(&["c", "a", "b"]));
        assert!(r.equal_as_set);
        assert!(!r.equal_as_list);
        assert!(r.reordered);
    }

    #[test]
    fn duplicates_count_as_multisets() {
        let r = relations(&list(&["a", "a"]), &list(&["a"]));
        assert_eq!(r.removed, list(&["a"]));
    }

    #[test]
    fn texts_relate_as_their_json_values_do() {
        let texts =
            |items: &[&str]| -> Vec<String> { items.iter().map(|s| s.to_string()).collect() };
        let (old, new) = (["a", "b", "a", "c"], ["c", "a", "d"]);
        let typed = text_relations(&texts(&old), &texts(&new));
        let json = relations(&list(&old), &list(&new));
        assert_eq!(
            serde_json::to_value(typed).ok(),
            serde_json::to_value(json).ok()
        );
    }
}
