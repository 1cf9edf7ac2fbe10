//! Two rules of one operator kind and change kind whose `when` are each other's negation (the
//! same conjuncts but one, negated in the other) are one idea written twice: written once, as
//! a rule with `variants:`, they keep their ids and cannot drift apart. The variants of one
//! rule are such a pair by construction, and are not reported.

use super::{Rule, RuleSet};

/// Whether `a` and `b` are variants of one written rule.
fn siblings(a: &Rule, b: &Rule) -> bool {
    a.variant_of.as_ref().is_some_and(|v| v.ids.contains(&b.id))
}

/// The pairs of complementary rules of `set` that are not variants of one rule, in load order.
pub fn complementary_pairs(set: &RuleSet) -> Vec<(&Rule, &Rule)> {
    let mut pairs = Vec::new();
    for (i, a) in set.rules.iter().enumerate() {
        for b in &set.rules[i + 1..] {
            let same_change = a.operator == b.operator && a.change == b.change;
            if same_change && !siblings(a, b) && a.when.complements(&b.when) {
                pairs.push((a, b));
            }
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::complementary_pairs;
    use crate::rules::load::load_file;
    use crate::rules::RuleSet;
    use crate::source::SourceFile;

    const RULES: &str = "operator: group_aggregate
changes:
  keys: not keys.equal_as_list
rules:
  - id: my-reordered-ignored
    change: keys
    when: keys.equal_as_set and config.ignore_filter
    verdict: fully_compatible
    message: a
  - id: my-reordered
    change: keys
    when: keys.equal_as_set and not config.ignore_filter
    verdict: incompatible
    message: b
  - id: my-few-keys
    change: keys
    when: count(new.keys) > 0
    verdict: unknown
    message: c
  - id: my-no-keys
    change: keys
    when: count(new.keys) == 0
    verdict: unknown
    message: d
  - id: my-set-changed
    change: keys
    when: not keys.equal_as_set and config.ignore_sink
    verdict: unknown
    message: e
  - change: keys
    variants:
      - id: my-variant-a
        when: config.ignore_sink
        verdict: unknown
        message: f
      - id: my-variant-b
        verdict: unknown
        message: g
";

    #[test]
    fn two_rules_whose_whens_negate_each_other_are_a_pair_variants_are_not() {
        let mut set = RuleSet::default();
        let loaded = load_file(&SourceFile::new("inline.yaml", RULES), &mut set);
        assert!(loaded.is_ok(), "{loaded:?}");
        let pairs: Vec<(&str, &str)> = complementary_pairs(&set)
            .into_iter()
            .map(|(a, b)| (a.id.as_str(), b.id.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("my-reordered-ignored", "my-reordered"),
                ("my-few-keys", "my-no-keys"),
            ]
        );
    }
}
