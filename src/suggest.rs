//! "Did you mean ...?" hints for misspelled names (fact paths, functions, configuration keys,
//! statement words): the Levenshtein distance and the nearest candidates.

/// How many suggestions a hint lists at most.
const MAX_SUGGESTIONS: usize = 3;

/// The candidates closest to `target` by edit distance, if close enough to be
/// a plausible typo. Ties keep the candidates' order.
pub(crate) fn nearest<'a>(
    target: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Vec<&'a str> {
    let target_len = target.chars().count();
    let max_distance = (target_len / 3).clamp(2, 3);
    let mut best: Vec<(&str, usize)> = Vec::new();
    for candidate in candidates {
        // Strings whose lengths differ by more than the allowance cannot be
        // close enough, and skipping them keeps huge inputs cheap.
        if candidate.chars().count().abs_diff(target_len) > max_distance {
            continue;
        }
        let distance = edit_distance(target, candidate);
        if distance <= max_distance {
            best.push((candidate, distance));
        }
    }
    let Some(min) = best.iter().map(|&(_, distance)| distance).min() else {
        return Vec::new();
    };
    best.into_iter()
        .filter(|&(_, distance)| distance == min)
        .map(|(candidate, _)| candidate)
        .take(MAX_SUGGESTIONS)
        .collect()
}

/// A hint such as "did you mean `old.window`?", or `None` without candidates.
pub(crate) fn did_you_mean(names: &[&str]) -> Option<String> {
    let quoted: Vec<String> = names.iter().map(|name| format!("`{name}`")).collect();
    match quoted.as_slice() {
        [] => None,
        [one] => Some(format!("did you mean {one}?")),
        many => Some(format!("did you mean one of {}?", many.join(", "))),
    }
}

/// Levenshtein distance between two strings, counted in characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, a_char) in a.chars().enumerate() {
        current[0] = i + 1;
        for (j, &b_char) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(a_char != b_char);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_single_edits() {
        assert_eq!(edit_distance("kept", "kept"), 0);
        assert_eq!(edit_distance("kept", "kep"), 1);
        assert_eq!(edit_distance("kept", "kepts"), 1);
        assert_eq!(edit_distance("kept", "kapt"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("window", "widow"), 1);
    }

    #[test]
    fn nearest_keeps_only_the_closest_plausible_candidates() {
        let candidates = ["old.window", "new.window", "old.widths", "old.mode"];
        assert_eq!(nearest("old.widow", candidates), vec!["old.window"]);
        assert_eq!(nearest("xyz", candidates), Vec::<&str>::new());
    }

    #[test]
    fn hint_wording_depends_on_the_number_of_names() {
        assert_eq!(did_you_mean(&[]), None);
        assert_eq!(did_you_mean(&["a"]).as_deref(), Some("did you mean `a`?"));
        assert_eq!(
            did_you_mean(&["a", "b"]).as_deref(),
            Some("did you mean one of `a`, `b`?")
        );
    }
}
