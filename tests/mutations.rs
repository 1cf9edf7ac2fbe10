//! Never silent: from every case script, single-token mutations (an identifier, a literal, an
//! option key or value, ASC/DESC, a join type, a function name, a statement keyword) are checked
//! against the original, in process. None may be fully compatible without a finding: a
//! difference either ends in a finding, or the mutated script is a located error (the only
//! exceptions, listed with why, leave Flink's optimized plan identical).

use flink_compat::cases;
use flink_compat::check::{compare, plan_script};
use flink_compat::rules::RuleSet;
use flink_compat::source::SourceFile;
use flink_compat::sql::split::tokenize;
use flink_compat::verdict::Verdict;
use sqlparser::tokenizer::Token;
use std::collections::BTreeMap;

/// Mutations per script at most, spread over its tokens: thousands in all, in CI time.
const PER_SCRIPT: usize = 8;

/// Mutants allowed to be fully compatible with no finding, each with why: the mutation leaves
/// Flink's optimized plan identical (checked with PyFlink) and the project's own invariants call
/// the change no difference at all (`tests/metamorphic.rs`: renaming aliases changes no finding).
/// Every other difference must end in a finding: a condition beside a rank filter is a fact of
/// the ranking (`filters_after`), a mistake read as the author meant (a column its subquery no
/// longer selects, a table alias that no longer exists) is a warning the old script does not
/// have (`query-new-script-mistake`), a view no query reads is an unused declaration
/// (`query-unused-table-changed`), and a catalog table a TEMPORARY one of its name hides is a
/// hidden definition (`query-hidden-definition-changed`). The list must match exactly: a stale entry fails too.
const SAME_PLAN: [(&str, &str, &str); 14] = [
    (
        "cases/window_aggregate/cascade-inherited-vs-explicit-tumble.yaml",
        "`w5_start` -> `w5_startx`",
        "the name a view gives a window aggregate's window_start is read by no query of this side (the window TVF above reads the view's rowtime): Flink 2.3's optimized plan is identical",
    ),
    (
        "cases/window_aggregate/tvf-alias-column-list-renamed.yaml",
        "`t` -> `tx`",
        "the name a window TVF's alias column list gives the bidtime column is read nowhere: Flink 2.3's optimized plan is identical, as for the UNNEST aliases below",
    ),
    (
        "cases/window_aggregate/tvf-alias-column-list-size-changed.yaml",
        "`bt` -> `btx`",
        "the name a window TVF's alias column list gives the bidtime column is read nowhere: Flink 2.3's optimized plan is identical, as for the UNNEST aliases below",
    ),
    (
        "cases/group_aggregate/literal-functions-reduced.yaml",
        "`'xPAIDx'` -> `'xPAIDxx'`",
        "SUBSTRING('xPAIDxx' FROM 2 FOR 4) is 'PAID', as SUBSTRING('xPAIDx' FROM 2 FOR 4) is: compared with a column, Flink reduces both calls to the same literal (plan oracle), as the tool does",
    ),
    (
        "cases/job/between-bounds-swapped.yaml",
        "`10` -> `11`",
        "`amount BETWEEN 500 AND 10` and `BETWEEN 500 AND 11` admit no value: Flink reduces both filters to FALSE and plans an empty Values (plan oracle), as the tool's combined ranges do",
    ),
    (
        "cases/job/explain-does-not-hide-query-change.yaml",
        "`SUM` -> `MAX`",
        "inside an EXPLAIN, which submits no job: the job's plan is identical (the EXPLAIN is reported in a warning)",
    ),
    (
        "cases/job/explain-insert-not-a-query.yaml",
        "`orders` -> `ordersx`",
        "inside an EXPLAIN, which submits no job: the job's plan is identical (the EXPLAIN is reported in a warning)",
    ),
    (
        "cases/job/explain-insert-not-a-query.yaml",
        "`user_totals` -> `user_totalsx`",
        "inside an EXPLAIN, which submits no job: the job's plan is identical (the EXPLAIN is reported in a warning)",
    ),
    (
        "cases/window_aggregate/unnest-array-changed-unread.yaml",
        "`t` -> `tx`",
        "the alias of CROSS JOIN UNNEST(...) AS t(tag) beneath the window aggregate is read nowhere, as in unnest-comma-aliases-renamed",
    ),
    (
        "cases/group_aggregate/unnest-comma-aliases-renamed.yaml",
        "`t` -> `tx`",
        "the alias of UNNEST(tags) AS t(tag) is read nowhere: Flink 2.3's optimized plan is identical",
    ),
    (
        "cases/query/lateral-table-function-argument-changed.yaml",
        "`t` -> `tx`",
        "the alias of LATERAL TABLE(split_tags(...)) AS t(tag) is read nowhere, as the UNNEST alias above (PyFlink cannot plan the function without its class)",
    ),
    (
        "cases/group_aggregate/view-aggregates-reordered-and-renamed.yaml",
        "`1` -> `2`",
        "COUNT(1) and COUNT(2) count rows: Flink 2.3 plans both as COUNT(*) (explain_sql), as it does COUNT(1) in cases/group_aggregate/count-star-vs-count-one.yaml",
    ),    (
        "cases/group_aggregate/aggregate-read-inside-expression-changed.yaml",
        "`top` -> `topx`",
        "the alias of MAX(order_id) in the view is read nowhere: the call is pruned on both sides, as Flink's optimizer prunes it",
    ),
    (
        "cases/group_aggregate/constant-key-beside-column-cast-dropped.yaml",
        "`100` -> `101`",
        "GROUP BY user_id, 101 beside SELECT ..., 100: Flink 2.3 pulls a constant key out of the grouping (groupBy=[user_id] on both sides, explain_sql), and the value written stays 100",
    ),
];

/// The replacement of one token, if it is a token the test mutates.
fn mutate(token: &Token) -> Option<String> {
    let swapped = |word: &str| -> Option<&'static str> {
        Some(match word {
            "ASC" => "DESC",
            "DESC" => "ASC",
            "LEFT" => "RIGHT",
            "RIGHT" => "LEFT",
            "INNER" => "LEFT",
            "FULL" => "LEFT",
            "SUM" => "MAX",
            "MAX" => "MIN",
            "MIN" => "MAX",
            "COUNT" => "SUM",
            "AVG" => "SUM",
            "INSERT" => "INSET",
            "CREATE" => "CRATE",
            "TABLE" => "TABEL",
            "SELECT" => "SELCT",
            "TUMBLE" => "HOP",
            "HOP" => "TUMBLE",
            "AND" => "OR",
            "TRUE" => "FALSE",
            "FALSE" => "TRUE",
            _ => return None,
        })
    };
    match token {
        Token::Word(w) if w.quote_style.is_none() => Some(
            swapped(&w.value.to_uppercase())
                .map(str::to_string)
                .unwrap_or_else(|| format!("{}x", w.value)),
        ),
        Token::Word(w) => Some(format!("{q}{}x{q}", w.value, q = w.quote_style?)),
        Token::Number(n, _) => Some(match n.parse::<u64>() {
            Ok(v) => (v + 1).to_string(),
            Err(_) => format!("{n}1"),
        }),
        Token::SingleQuotedString(s) => Some(format!("'{s}x'")),
        _ => None,
    }
}

/// The mutants of one script: (what changed, the mutated text).
fn mutants(text: &str) -> Vec<(String, String)> {
    let file = SourceFile::new("script.sql", text.to_string());
    let Ok(tokens) = tokenize(&file) else {
        return Vec::new();
    };
    let sites: Vec<(std::ops::Range<usize>, String)> = tokens
        .iter()
        .filter_map(|t| {
            let replacement = mutate(&t.token)?;
            let span = file.span_of(t.span);
            Some((span.start..span.end, replacement))
        })
        .collect();
    let stride = sites.len().div_ceil(PER_SCRIPT).max(1);
    sites
        .into_iter()
        .step_by(stride)
        .map(|(range, replacement)| {
            let mut mutated = text.to_string();
            let before = text[range.clone()].to_string();
            mutated.replace_range(range, &replacement);
            (format!("`{before}` -> `{replacement}`"), mutated)
        })
        .collect()
}

#[test]
fn no_single_token_mutation_is_silently_compatible() {
    let mut rules_by_engine: BTreeMap<String, RuleSet> = BTreeMap::new();
    let mut tried = 0;
    let mut silent = Vec::new();
    let mut allowed: Vec<(String, String)> = Vec::new();
    for path in cases::collect(&["cases".into()]).expect("cases/ is readable") {
        let text = std::fs::read_to_string(&path).expect("readable");
        let case = cases::load(&SourceFile::new(path.display().to_string(), text)).expect("a case");
        let engine = case.engine.clone().unwrap_or_else(|| "vvr".into());
        let rules = rules_by_engine.entry(engine.clone()).or_insert_with(|| {
            RuleSet::load_engine(&engine, &[] as &[&str]).expect("the built-in rules load")
        });
        let set: Vec<(String, String)> = case.set.clone().into_iter().collect();
        for script in [&case.old, &case.new] {
            let Ok(original) = plan_script(SourceFile::new("old.sql", script.clone()), &set) else {
                continue;
            };
            for (change, mutated) in mutants(script) {
                tried += 1;
                let Ok(plan) = plan_script(SourceFile::new("new.sql", mutated.clone()), &set)
                else {
                    continue;
                };
                let report = compare(&original, &plan, rules);
                if report.verdict == Verdict::FullyCompatible && report.findings().count() == 0 {
                    let file = path.display().to_string();
                    if SAME_PLAN.iter().any(|(f, c, _)| *f == file && *c == change) {
                        allowed.push((file, change));
                    } else {
                        silent.push(format!("{file}: {change}\n{mutated}"));
                    }
                }
            }
        }
    }
    println!(
        "{tried} single-token mutations tried, {} silent, {} silent with an identical plan",
        silent.len(),
        allowed.len()
    );
    assert!(tried >= 2000, "only {tried} mutations");
    assert!(
        silent.is_empty(),
        "{} of {tried} mutations are fully compatible with no finding:\n{}",
        silent.len(),
        silent.join("\n---\n")
    );
    for (file, change, why) in SAME_PLAN {
        assert!(
            allowed.iter().any(|(f, c)| f == file && c == change),
            "{file}: {change} is no longer silent; remove it from SAME_PLAN ({why})"
        );
    }
}
