//! The real-world corpus (`../shared/corpus/realworld`: Flink SQL from public repositories):
//! every valid script is read and is fully compatible with itself; every script Flink rejects
//! is rejected with a located error, or is listed below with the reason the tool cannot tell.

use flink_compat::check::check;
use flink_compat::rules::RuleSet;
use flink_compat::source::SourceFile;
use flink_compat::verdict::Verdict;
use std::path::PathBuf;

/// Scripts `index.json` marks valid that Flink 2.3 rejects (checked with PyFlink): the tool
/// rejects them too, each with a located error.
const MARKED_VALID_BUT_REJECTED: [(&str, &str); 3] = [
    (
        "jbcodeforce__flink-studies/code__flink-sql__00-basic-sql__README.md.sql",
        "`select --- omitted from (...)`: an empty SELECT list",
    ),
    (
        "jbcodeforce__flink-studies/code__flink-sql__04-joins__cc-flink__cc-3-avg-prod-volume-per-mn.sql",
        "`LENGTH` for the column `length`: Flink's identifiers are case-sensitive",
    ),
    (
        "jbcodeforce__flink-studies/code__flink-sql__04-joins__readme.md__part2.sql",
        "a CREATE TABLE whose column list is never closed",
    ),
];

/// Scripts Flink rejects that the tool reads, and why it cannot tell.
const INVALID_BUT_READ: [(&str, &str); 2] = [
    (
        "jbcodeforce__flink-studies/code__flink-sql__11-puzzles__highest_tx_per_day.sql",
        "selects columns that are not grouped; the tool does not validate GROUP BY completeness",
    ),
    (
        "apache__paimon/docs__docs__flink__quick-start.mdx__part2.sql",
        "`EXIT;` of the SQL client and placeholder columns (`xxxx`) of catalog tables without DDL: the tool reads past unknown statements and cannot know the columns",
    ),
];

struct Entry {
    file: String,
    valid: bool,
}

fn corpus() -> Option<(PathBuf, Vec<Entry>)> {
    let root = PathBuf::from("../shared/corpus/realworld");
    if !root.is_dir() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run with ../shared beside the checkout"
        );
        eprintln!("skipping: {} is not here", root.display());
        return None;
    }
    let index = std::fs::read_to_string(root.join("index.json")).expect("readable index");
    let index: serde_json::Value = serde_json::from_str(&index).expect("index is JSON");
    let entries = index
        .as_array()
        .expect("index is a list")
        .iter()
        .map(|e| Entry {
            file: e["file"].as_str().expect("file").to_string(),
            valid: e["flink_sql"].as_str() == Some("valid"),
        })
        .collect();
    Some((root, entries))
}

#[test]
fn every_valid_script_is_read_and_every_invalid_one_rejected_where_it_is_wrong() {
    let Some((root, entries)) = corpus() else {
        return;
    };
    let rules = RuleSet::load(&[] as &[&str]).expect("rules load");
    let listed = |list: &[(&str, &str)], file: &str| list.iter().any(|(f, _)| *f == file);
    let mut problems = Vec::new();
    for entry in &entries {
        let path = root.join(&entry.file);
        let text = std::fs::read_to_string(&path).expect("readable");
        let file = || SourceFile::new(entry.file.clone(), text.clone());
        let expect_error = !entry.valid && !listed(&INVALID_BUT_READ, &entry.file)
            || listed(&MARKED_VALID_BUT_REJECTED, &entry.file);
        match check(file(), file(), &[], &rules) {
            Ok(_) if expect_error => {
                problems.push(format!(
                    "{}: Flink rejects it, the tool read it",
                    entry.file
                ));
            }
            Ok(report) => {
                if report.verdict != Verdict::FullyCompatible || report.findings().count() > 0 {
                    problems.push(format!(
                        "{}: {:?} against itself",
                        entry.file, report.verdict
                    ));
                }
            }
            Err(error) if expect_error => {
                let located = error.located_errors();
                if located.is_empty() || located.iter().any(|e| e.line == 0) {
                    problems.push(format!("{}: not a located error: {error}", entry.file));
                }
            }
            Err(error) => problems.push(format!("{}: not read: {error}", entry.file)),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The lists name scripts of the corpus.
    for (file, _) in MARKED_VALID_BUT_REJECTED.iter().chain(&INVALID_BUT_READ) {
        assert!(
            entries.iter().any(|e| e.file == *file),
            "{file} is not in the corpus"
        );
    }
}
