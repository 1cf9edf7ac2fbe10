//! Rules document themselves: every built-in rule has a one-line description, a rationale, a
//! public reference (the vendor's page, or the restore-lab pair that measured it) and an
//! example; docs/rules.md is generated from them; a user's rule may leave them out.

#[allow(dead_code)]
mod support;
use flink_compat::rules::{profile, rules_doc, RuleSet};
use serde_json::Value;
use std::path::Path;
use support::cli::run as cli;

/// The rules each built-in profile defines itself (its own files, overrides included).
fn own_rules() -> Vec<(String, flink_compat::rules::Rule)> {
    let mut all = Vec::new();
    for engine in profile::builtin().expect("profiles").keys() {
        let set = RuleSet::load_engine(engine, &[] as &[&str]).expect("built-in rules");
        all.extend(
            set.rules
                .into_iter()
                .filter(|r| r.profile == *engine)
                .map(|r| (engine.clone(), r)),
        );
    }
    all
}

#[test]
fn every_built_in_rule_documents_itself() {
    let mut problems = Vec::new();
    let rules = own_rules();
    assert!(rules.len() > 250, "{} rules", rules.len());
    for (engine, rule) in &rules {
        let missing = rules_doc::missing_documentation(rule);
        if !missing.is_empty() {
            problems.push(format!(
                "{engine} {} ({}): no {}",
                rule.id,
                rule.file,
                missing.join(", ")
            ));
            continue;
        }
        let reference = rule.reference.as_deref().unwrap_or_default();
        let public = reference.starts_with("https://");
        let measured =
            reference.starts_with("lab/restore/pairs/") && Path::new(reference).is_file();
        if !(public || measured) {
            problems.push(format!(
                "{engine} {}: reference `{reference}` is neither a public page (https://) nor a restore-lab pair that exists",
                rule.id
            ));
        }
        if engine == "vvr" && !public {
            problems.push(format!(
                "{engine} {}: a rule of Alibaba's engine references its public documentation page",
                rule.id
            ));
        }
        let example = rule.example.as_deref().unwrap_or_default();
        if example.starts_with("cases/") {
            match std::fs::read_to_string(example) {
                Err(_) => problems.push(format!("{engine} {}: no case file {example}", rule.id)),
                Ok(text) => {
                    let case: Value = serde_saphyr::from_str(&text).expect("a case file");
                    let names_it = case["expect"]["findings"]
                        .as_array()
                        .is_some_and(|f| f.iter().any(|f| f.as_str() == Some(&rule.id)));
                    if !names_it {
                        problems.push(format!(
                            "{engine} {}: the example case {example} does not expect the rule",
                            rule.id
                        ));
                    }
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} built-in rules are not documented (see docs/guide.md, \"How to write a rule\"):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn docs_rules_md_is_the_output_of_rules_docs() {
    let committed = std::fs::read_to_string("docs/rules.md").unwrap_or_default();
    let (code, printed, stderr) = cli(&["rules", "docs"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(printed == rules_doc::reference().expect("reference"));
    assert!(
        committed == printed,
        "docs/rules.md is stale: run `cargo run -- rules docs > docs/rules.md`"
    );
    for needle in [
        "## Engine `vvr`",
        "## Engine `apache-flink-2`",
        "### `gwa-aggregate-added`",
        "lab/restore/pairs/ga-aggregate-added.yaml",
        "## apache-flink-2 — inherited rules",
    ] {
        assert!(printed.contains(needle), "{needle}");
    }
}

#[test]
fn rules_show_prints_what_a_rule_detects_why_and_where_it_is_documented() {
    let (code, out, _) = cli(&["rules", "show", "ga-key-changed"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("ga-key-changed\n  GROUP BY keys changed."),
        "{out}"
    );
    assert!(out.contains("  rationale: GROUP BY keys"), "{out}");
    assert!(
        out.contains("  reference: https://www.alibabacloud.com/help/en/flink/"),
        "{out}"
    );
    assert!(
        out.contains("  example:\n    GROUP BY a -> GROUP BY a, d"),
        "{out}"
    );
    assert!(!out.contains("undocumented"), "{out}");
    let (code, out, _) = cli(&[
        "rules",
        "show",
        "ga-key-changed",
        "--engine",
        "apache-flink-2",
    ]);
    assert_eq!(code, 0);
    assert!(
        out.contains("  reference: lab/restore/pairs/ga-key-changed.yaml"),
        "{out}"
    );
}

const USER_RULES: &str = "operator: group_aggregate
rules:
  - id: my-undocumented-rule
    change: any
    when: \"true\"
    verdict: unknown
    message: anything
  - id: my-renamed-rule
    aliases: [my-old-rule]
    description: A rule that was renamed.
    change: any
    when: \"false\"
    verdict: unknown
    message: nothing
";

#[test]
fn a_user_rule_may_leave_its_documentation_out_and_a_renamed_rule_keeps_its_old_id() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("user-rules-doc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("mine.yaml"), USER_RULES).expect("write");
    let set = RuleSet::load(&[&dir]).expect("an undocumented user rule loads");
    let dir_text = dir.to_str().expect("utf-8");
    let (code, out, _) = cli(&["rules", "show", "my-undocumented-rule", "--rules", dir_text]);
    let (alias_code, alias_out, _) = cli(&["rules", "show", "my-old-rule", "--rules", dir_text]);
    let _ = std::fs::remove_dir_all(&dir);
    let rule = set.get("my-undocumented-rule").expect("loaded");
    assert_eq!(
        rules_doc::missing_documentation(rule),
        vec!["description", "rationale", "reference", "example"]
    );
    assert_eq!(code, 0);
    assert!(
        out.contains("undocumented: no description, rationale, reference, example"),
        "{out}"
    );
    assert_eq!(
        set.get("my-old-rule").map(|r| r.id.as_str()),
        Some("my-renamed-rule")
    );
    assert_eq!(alias_code, 0);
    assert!(
        alias_out
            .starts_with("my-renamed-rule\n  A rule that was renamed.\n  also named: my-old-rule"),
        "{alias_out}"
    );
}

const FAMILY: &str = "family:
  group_aggregate: {prefix: ga}
  over_aggregate: {prefix: over}
rules:
  - id: team-${prefix}-any-change
    change: any
    verdict: unknown
    message: \"the ${kind} changed\"
";

#[test]
fn a_family_rule_is_compiled_once_per_kind_with_its_ids_and_texts() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("family-rules-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("team.yaml"), FAMILY).expect("write");
    let set = RuleSet::load(&[&dir]);
    std::fs::write(
        dir.join("team.yaml"),
        FAMILY.replace("${kind} changed", "${knd} changed"),
    )
    .expect("write");
    let broken = RuleSet::load(&[&dir]);
    let _ = std::fs::remove_dir_all(&dir);
    let set = set.expect("a family loads");
    for (id, kind) in [
        ("team-ga-any-change", "group_aggregate"),
        ("team-over-any-change", "over_aggregate"),
    ] {
        let rule = set.get(id).unwrap_or_else(|| panic!("{id}"));
        assert_eq!(rule.operator, kind);
        assert_eq!(rule.message.source(), format!("the {kind} changed"));
        assert_eq!(rule.when.source(), "true", "`when` defaults to always");
    }
    let Err(error) = broken else {
        panic!("an unknown family variable is an error");
    };
    let messages: Vec<String> = error
        .located_errors()
        .iter()
        .map(|l| format!("{}:{}: {}", l.line, l.column, l.message))
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("5:") && m.contains("`${knd}` is not a variable")),
        "{messages:?}"
    );
    // The built-in filter pair is one family for every kind that keeps state built from its rows.
    let builtin = RuleSet::load(&[] as &[&str]).expect("built-in rules");
    for id in [
        "ga-input-filter-changed",
        "wtopn-input-filter-ignored",
        "join-input-filter-changed",
    ] {
        let rule = builtin.get(id).unwrap_or_else(|| panic!("{id}"));
        assert_eq!(rule.file, "rules/vvr/input_filter.yaml", "{id}");
    }
}

const BY_FACT: &str = "operator: group_aggregate
rules:
  - id: team-filter-by-switch
    change: filters
    verdict_by: config.ignore_filter
    verdict: {\"true\": fully_compatible, \"false\": incompatible}
    message: the filter changed
";

#[test]
fn a_verdict_may_depend_on_any_fact_of_the_rule() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("by-fact-rules-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("team.yaml"), BY_FACT).expect("write");
    let set = RuleSet::load(&[&dir]);
    std::fs::write(
        dir.join("team.yaml"),
        BY_FACT.replace("config.ignore_filter", "config.ignore_filtre"),
    )
    .expect("write");
    let misspelt = RuleSet::load(&[&dir]);
    let _ = std::fs::remove_dir_all(&dir);
    let set = set.expect("a rule with its own verdict_by loads");
    let rule = set.get("team-filter-by-switch").expect("loaded");
    use flink_compat::verdict::Verdict;
    let facts = |on: bool| serde_json::json!({"config": {"ignore_filter": on}});
    assert_eq!(rule.verdict_for(&facts(true)), Verdict::FullyCompatible);
    assert_eq!(rule.verdict_for(&facts(false)), Verdict::Incompatible);
    assert_eq!(rule.verdict_for(&serde_json::json!({})), Verdict::Unknown);
    let Err(error) = misspelt else {
        panic!("a misspelt verdict_by fact is an error");
    };
    let lines: Vec<usize> = error.located_errors().iter().map(|l| l.line).collect();
    assert_eq!(lines, vec![5], "{error}");
}
