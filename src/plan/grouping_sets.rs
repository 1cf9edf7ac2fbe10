//! GROUPING SETS, ROLLUP and CUBE as the grouping sets they expand to, so that spellings Flink
//! plans alike (`ROLLUP (a, b)` and `GROUPING SETS ((a, b), (a), ())`) compare equal.

/// One element of a GROUP BY: a plain key, or a construct listing grouping sets, each set a list
/// of (possibly composite) items, each item its key texts.
pub enum Element {
    Key(String),
    GroupingSets(Vec<Vec<String>>),
    Rollup(Vec<Vec<String>>),
    Cube(Vec<Vec<String>>),
}

/// Whether the GROUP BY has one grouping set only (`GROUPING SETS ((a, b))`): Flink plans it as
/// the plain GROUP BY of that set, without an Expand.
pub fn single_set(elements: &[Element]) -> bool {
    elements.iter().all(|e| match e {
        Element::Key(_) => true,
        Element::GroupingSets(sets) => sets.len() == 1,
        Element::Rollup(_) | Element::Cube(_) => false,
    })
}

/// At most this many grouping sets are spelled out; beyond, the GROUP BY stays as written.
const MAX_SETS: usize = 256;

/// The grouping sets of a GROUP BY (the cross product of its elements), each set its keys in
/// the order they first appear in the GROUP BY (that order is the aggregate's key layout), the
/// sets in a canonical order. None when there would be too many.
pub fn canonical(elements: &[Element]) -> Option<String> {
    let mut sets: Vec<Vec<String>> = vec![Vec::new()];
    let mut order: Vec<String> = Vec::new();
    for element in elements {
        let options: Vec<Vec<String>> = match element {
            Element::Key(k) => vec![vec![k.clone()]],
            Element::GroupingSets(s) => s.clone(),
            Element::Rollup(items) => (0..=items.len())
                .rev()
                .map(|n| items[..n].concat())
                .collect(),
            Element::Cube(items) => {
                if items.len() > 8 {
                    return None;
                }
                (0..(1usize << items.len()))
                    .map(|mask| {
                        items
                            .iter()
                            .enumerate()
                            .filter(|(i, _)| mask & (1 << i) != 0)
                            .flat_map(|(_, item)| item.iter().cloned())
                            .collect()
                    })
                    .collect()
            }
        };
        for option in &options {
            for key in option {
                if !order.contains(key) {
                    order.push(key.clone());
                }
            }
        }
        if sets.len().saturating_mul(options.len().max(1)) > MAX_SETS {
            return None;
        }
        sets = sets
            .iter()
            .flat_map(|set| {
                options.iter().map(move |option| {
                    let mut s = set.clone();
                    s.extend(option.iter().cloned());
                    s
                })
            })
            .collect();
    }
    let mut indexed: Vec<Vec<usize>> = sets
        .iter()
        .map(|set| {
            let mut ix: Vec<usize> = set
                .iter()
                .filter_map(|k| order.iter().position(|o| o == k))
                .collect();
            ix.sort_unstable();
            ix.dedup();
            ix
        })
        .collect();
    indexed.sort();
    let texts: Vec<String> = indexed
        .iter()
        .map(|ix| {
            let keys: Vec<&str> = ix.iter().map(|&i| order[i].as_str()).collect();
            format!("({})", keys.join(", "))
        })
        .collect();
    Some(format!("GROUPING SETS ({})", texts.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(keys: &[&str]) -> Vec<Vec<String>> {
        keys.iter().map(|k| vec![k.to_string()]).collect()
    }

    #[test]
    fn rollup_and_cube_are_their_grouping_sets() {
        let rollup = canonical(&[Element::Rollup(items(&["a", "b"]))]);
        let sets = canonical(&[Element::GroupingSets(vec![
            vec![],
            vec!["a".into()],
            vec!["a".into(), "b".into()],
        ])]);
        assert_eq!(rollup, sets);
        let cube = canonical(&[Element::Cube(items(&["a", "b"]))]);
        assert_ne!(cube, rollup);
        assert_eq!(
            cube.as_deref(),
            Some("GROUPING SETS ((), (a), (a, b), (b))")
        );
    }

    #[test]
    fn key_order_of_first_appearance_is_kept() {
        let ab = canonical(&[Element::GroupingSets(vec![vec!["a".into(), "b".into()]])]);
        let ba = canonical(&[Element::GroupingSets(vec![vec!["b".into(), "a".into()]])]);
        assert_ne!(ab, ba);
        let plain = canonical(&[Element::Key("k".into()), Element::Rollup(items(&["a"]))]);
        assert_eq!(plain.as_deref(), Some("GROUPING SETS ((k), (k, a))"));
    }
}
