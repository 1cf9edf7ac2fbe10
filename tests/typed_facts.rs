//! The typed facts (src/facts/) are the one declaration of the facts: every operator the plan
//! records writes exactly the facts its kind's type declares, a fact belongs to one coverage
//! group whatever the kind, a rule reading a path no type declares fails at load, located, and
//! no code outside src/facts/ names a fact by a string literal.

use flink_compat::diff::schema;
use flink_compat::error::Error;
use flink_compat::facts;
use flink_compat::plan::{Operator, OperatorKind};
use flink_compat::rules::RuleSet;
use flink_compat::source::SourceFile;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn case_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            case_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml") {
            out.push(path);
        }
    }
}

fn declared(kind: OperatorKind) -> BTreeSet<&'static str> {
    facts::operator_facts(kind).iter().map(|f| f.name).collect()
}

fn check_operator(op: &Operator, at: &str) {
    assert_eq!(op.fact_error(), None, "{at}: {}", op.kind.name());
    let written: BTreeSet<&str> = op.rule_facts().keys().map(String::as_str).collect();
    let declared = declared(op.kind);
    let undeclared: Vec<&&str> = written.difference(&declared).collect();
    assert!(
        undeclared.is_empty(),
        "{at}: {} writes undeclared facts {undeclared:?}",
        op.kind.name()
    );
    // A source table the script does not declare has only its name; every other operator
    // has each fact its type declares (a rank's `filters_after` only beside a WHERE).
    if op.kind == OperatorKind::Source && !written.contains("connector") {
        return;
    }
    let missing: Vec<&&str> = declared
        .difference(&written)
        .filter(|f| **f != "filters_after")
        .collect();
    assert!(
        missing.is_empty(),
        "{at}: {} lacks facts {missing:?}",
        op.kind.name()
    );
}

#[test]
fn every_operator_writes_exactly_the_facts_its_kind_declares() {
    let mut files = Vec::new();
    case_files(Path::new("cases"), &mut files);
    files.sort();
    let mut kinds = BTreeSet::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("case file");
        let Ok(case) =
            flink_compat::cases::load(&SourceFile::new(path.display().to_string(), text.as_str()))
        else {
            continue;
        };
        for (side, sql) in [("old", &case.old), ("new", &case.new)] {
            let file = SourceFile::new(format!("{}:{side}", path.display()), sql.as_str());
            let Ok(plan) = flink_compat::check::plan_script(file, &[]) else {
                continue;
            };
            for query in &plan.queries {
                for op in query.operators.iter().chain(&query.source_tables) {
                    check_operator(op, &format!("{} ({side})", path.display()));
                    kinds.insert(op.kind);
                }
            }
        }
    }
    assert_eq!(
        kinds.len(),
        OperatorKind::ALL.len(),
        "every kind is planned by some case: {kinds:?}"
    );
}

#[test]
fn a_fact_has_one_coverage_group_whatever_the_kind() {
    let mut groups: BTreeMap<&str, Option<&str>> = BTreeMap::new();
    for kind in OperatorKind::ALL {
        for fact in facts::operator_facts(kind) {
            let earlier = groups.entry(fact.name).or_insert(fact.group);
            assert_eq!(*earlier, fact.group, "`{}` of {}", fact.name, kind.name());
        }
    }
    assert_eq!(schema::coverage_group("plain_aggregates"), "aggregates");
    assert_eq!(schema::coverage_group("window_keys"), "keys");
    assert_eq!(schema::coverage_group("lower_bound_ms"), "time_bounds");
    assert_eq!(schema::coverage_group("join_keys"), "conditions");
    assert_eq!(schema::coverage_group("within_ms"), "pattern");
    assert_eq!(schema::coverage_group("fields"), "sort_keys");
    assert_eq!(schema::coverage_group("key_fields"), "row");
    assert_eq!(schema::coverage_group("emit"), "emit");
}

#[test]
fn every_fact_has_a_meaning() {
    for kind in OperatorKind::ALL {
        for fact in facts::operator_facts(kind) {
            assert!(
                !fact.doc.is_empty(),
                "`{}` of {} has no doc comment",
                fact.name,
                kind.name()
            );
        }
    }
}

const MISSPELT: &str = "operator: group_window_aggregate
rules:
  - id: my-window-rule
    change: any
    when: old.windw.size_ms != new.window.size_ms
    verdict: incompatible
    message: the window changed
";

#[test]
fn a_misspelt_fact_path_fails_at_load_at_its_place() {
    let file = SourceFile::new("misspelt.yaml", MISSPELT);
    let mut set = RuleSet::default();
    let errors = match flink_compat::rules::load::load_file(&file, &mut set) {
        Err(Error::Many(many)) => many.errors,
        Err(Error::Located(one)) => vec![*one],
        other => panic!("a load error expected, got {other:?}"),
    };
    assert_eq!(errors.len(), 1, "{errors:?}");
    let error = &errors[0];
    assert!(
        error.message.contains("unknown fact path `old.windw"),
        "{error:?}"
    );
    assert_eq!((error.line, error.column), (5, 11), "{error:?}");
    assert_eq!(
        error.help.as_deref(),
        Some("did you mean `old.window.size_ms`?"),
        "{error:?}"
    );
}

#[test]
fn facts_written_with_another_type_are_an_error_not_defaults() {
    use flink_compat::facts::aggregate::GroupWindowAggregateFacts;
    use flink_compat::facts::ranking::RankWindow;
    use flink_compat::source::ByteSpan;
    // `window` is a text of a window Top-N and an object of a group window aggregate.
    let mut op = Operator::new(
        OperatorKind::GroupWindowAggregate,
        "stream-exec-group-window-aggregate",
        ByteSpan::default(),
    );
    op.put(&RankWindow {
        window: "TUMBLE(ts, 60000)".into(),
        ..Default::default()
    });
    assert!(op.read::<GroupWindowAggregateFacts>().is_err());
    let error = op.fact_error().unwrap_or_default();
    assert!(error.contains("group_window_aggregate"), "{error}");
}

#[test]
fn the_facts_other_pairs_judge_are_declared_on_the_types() {
    assert_eq!(
        schema::judged_elsewhere("query"),
        ["lookup_joins", "sources", "normalized_sources"]
    );
    assert_eq!(schema::judged_elsewhere("source"), ["options"]);
    assert!(schema::judged_elsewhere("group_aggregate").is_empty());
}

/// Every name a fact path may use: the facts of every kind, pair and item, the fields of the
/// objects among them, and the top-level `old`, `new` and `config`.
fn fact_names() -> BTreeSet<String> {
    use flink_compat::fact_schema::FactType;
    fn walk(fact_type: &FactType, out: &mut BTreeSet<String>) {
        match fact_type {
            FactType::Object(fields) => {
                for (name, inner) in fields {
                    out.insert(name.clone());
                    walk(inner, out);
                }
            }
            FactType::List(inner) => walk(inner, out),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    let operators = OperatorKind::ALL.iter().map(|k| k.name());
    for operator in operators.chain(["query", "config_key", "table_option"]) {
        if let Some(schema) = schema::schema_for(operator) {
            walk(&FactType::Object(schema.root.clone()), &mut out);
        }
    }
    out
}

/// Code that names a fact by a literal in one of these ways reads or writes it by string key.
const KEYED: &[&str] = &[
    ".get(\"{}\")",
    "[\"{}\"]",
    "insert(\"{}\"",
    "json!({{\"{}\"",
];

/// Literals that are fact names by coincidence, each with what it names.
const NOT_FACTS: &[(&str, &str)] = &[
    // a source table's WITH option 'connector', before it is a fact
    ("src/diff/item_facts.rs", ".get(\"connector\")"),
    // the family variable `${kind}` of a rule file
    ("src/rules/load.rs", "insert(\"kind\""),
    // the kind of an error in the JSON report
    ("src/error.rs", "json!({\"kind\""),
    // a YAML key of a rule or case file
    ("src/rules/shape.rs", ".get(\"id\")"),
    ("src/rules/shape.rs", ".get(\"verdict\")"),
];

fn rust_sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable").flatten() {
        let path = entry.path();
        let name = path.file_name().map(|n| n.to_string_lossy().to_string());
        if path.is_dir() && name.as_deref() != Some("tests") {
            rust_sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_fact_is_read_or_written_by_string_key_outside_the_facts_layer() {
    let names = fact_names();
    assert!(names.contains("aggregates") && names.contains("config"));
    let mut files = Vec::new();
    rust_sources(Path::new("src"), &mut files);
    let mut found = Vec::new();
    for file in files {
        let shown = file.display().to_string();
        if shown.starts_with("src/facts/") {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("readable");
        // The code, not its unit tests (which write facts as JSON on purpose).
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for name in &names {
            for way in KEYED {
                let keyed = way.replace("{}", name).replace("{{", "{");
                if code.contains(&keyed) && !NOT_FACTS.contains(&(shown.as_str(), keyed.as_str())) {
                    found.push(format!("{shown}: {keyed}"));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "facts read or written by string key (use the facts types, their `FactName` constants or `facts::pair`):\n{}",
        found.join("\n")
    );
}
