//! Which removed file became which added file: git's rename detection on whole contents —
//! identical contents first, then the most similar pair at or above half of the lines shared.

use std::collections::HashMap;

/// Lines shared (as multisets, whitespace-trimmed, blank lines ignored), over all lines: 0..=1.
pub fn similarity(a: &str, b: &str) -> f64 {
    let (a, b) = (line_counts(a), line_counts(b));
    let total: usize = a.values().sum::<usize>() + b.values().sum::<usize>();
    if total == 0 {
        return 1.0;
    }
    let shared: usize = a
        .iter()
        .map(|(line, n)| (*n).min(b.get(line).copied().unwrap_or(0)))
        .sum();
    (2 * shared) as f64 / total as f64
}

fn line_counts(text: &str) -> HashMap<&str, usize> {
    let mut lines: HashMap<&str, usize> = HashMap::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        *lines.entry(line).or_default() += 1;
    }
    lines
}

/// The least similarity at which a removed and an added file count as one renamed file (git's
/// default of 50 %).
pub const RENAME_THRESHOLD: f64 = 0.5;

/// Pairs removed with added files (indices into the two lists), best matches first; each file
/// is used at most once.
pub fn renames(removed: &[&str], added: &[&str]) -> Vec<(usize, usize)> {
    let mut candidates: Vec<(f64, usize, usize)> = Vec::new();
    for (r, old) in removed.iter().enumerate() {
        for (a, new) in added.iter().enumerate() {
            let score = if old == new {
                2.0
            } else {
                similarity(old, new)
            };
            if score >= RENAME_THRESHOLD {
                candidates.push((score, r, a));
            }
        }
    }
    candidates.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
    let (mut used_r, mut used_a) = (vec![false; removed.len()], vec![false; added.len()]);
    let mut pairs = Vec::new();
    for (_, r, a) in candidates {
        if !used_r[r] && !used_a[a] {
            used_r[r] = true;
            used_a[a] = true;
            pairs.push((r, a));
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_contents_pair_before_similar_ones() {
        let removed = ["a\nb\nc\n", "x\ny\n"];
        let added = ["x\ny\nz\n", "a\nb\nc\n"];
        assert_eq!(renames(&removed, &added), vec![(0, 1), (1, 0)]);
    }

    #[test]
    fn dissimilar_files_are_an_addition_and_a_removal() {
        assert!(renames(&["a\nb\nc\nd\n"], &["w\nx\ny\nz\n"]).is_empty());
        assert!(similarity("a\nb\n", "a\nc\n") >= RENAME_THRESHOLD);
    }
}
