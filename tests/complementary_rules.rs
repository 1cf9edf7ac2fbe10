//! No built-in profile has two rules of one operator kind and change kind whose `when` are each
//! other's negation: such a pair is one idea written twice, and is written once, as a rule with
//! `variants:` (docs/guide.md). The rules are those the loader loads (a profile's overrides and
//! families applied), their predicates read by the DSL's parser.

use flink_compat::rules::complementary::complementary_pairs;
use flink_compat::rules::RuleSet;

#[test]
fn no_built_in_profile_writes_one_idea_as_two_complementary_rules() {
    let none: &[&str] = &[];
    let mut found = Vec::new();
    for profile in ["vvr", "apache-flink-2"] {
        let set = RuleSet::load_engine(profile, none).expect("the built-in rules load");
        assert!(
            set.rules.len() > 100,
            "{profile}: {} rules",
            set.rules.len()
        );
        for (a, b) in complementary_pairs(&set) {
            found.push(format!(
                "{profile}: {} / {}: {} ({}: {}) and {} ({}: {})",
                a.operator,
                a.change,
                a.id,
                a.file,
                a.when.source(),
                b.id,
                b.file,
                b.when.source()
            ));
        }
    }
    assert!(
        found.is_empty(),
        "complementary rules (write each pair once, as a rule with `variants:`):\n{}",
        found.join("\n")
    );
}
