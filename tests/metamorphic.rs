//! Metamorphic tests over the case corpus: rewrites that cannot change what a job computes
//! never change a verdict, and swapping old and new keeps the verdict where the rules are
//! symmetric. Every rewrite works on sqlparser's tokens (the tokenizer the tool itself uses),
//! so string literals, quoted identifiers, comments and hints are never touched.

use flink_compat::cases;
use flink_compat::check::check;
use flink_compat::plan::scope::looks_like_time;
use flink_compat::report::Report;
use flink_compat::rules::RuleSet;
use flink_compat::source::SourceFile;
use flink_compat::sql::split::{split, tokenize};
use flink_compat::verdict::Verdict;
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, Whitespace};
use std::collections::{BTreeMap, BTreeSet};

#[path = "metamorphic/spelling.rs"]
mod spelling;

struct Case {
    path: String,
    old: String,
    new: String,
    set: Vec<(String, String)>,
}

fn corpus() -> Vec<Case> {
    cases::collect(&["cases".into()])
        .expect("cases/ is readable")
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("readable");
            let path = path.display().to_string();
            let case = cases::load(&SourceFile::new(path.clone(), text)).expect("a valid case");
            Case {
                path,
                old: case.old,
                new: case.new,
                set: case.set.into_iter().collect(),
            }
        })
        .collect()
}

fn builtin() -> RuleSet {
    RuleSet::load(&[] as &[&str]).expect("the built-in rules load")
}

/// The verdict and the set of rule ids that fired: what a rewrite must leave alone.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    verdict: Verdict,
    findings: BTreeSet<String>,
}

fn outcome(report: &Report) -> Outcome {
    Outcome {
        verdict: report.verdict,
        findings: report.findings().map(|f| f.rule.clone()).collect(),
    }
}

fn judge(old: &str, new: &str, set: &[(String, String)], rules: &RuleSet) -> Outcome {
    let report = check(
        SourceFile::new("old.sql", old.to_string()),
        SourceFile::new("new.sql", new.to_string()),
        set,
        rules,
    )
    .unwrap_or_else(|e| panic!("the rewritten scripts check: {e}\n--- old\n{old}\n--- new\n{new}"));
    outcome(&report)
}

/// Whether a query of `sql` is one the tool compares by its text: a query degraded for a
/// construct it does not model, or a statement it does not model.
fn compared_by_text(sql: &str, set: &[(String, String)], rules: &RuleSet) -> bool {
    let Ok(report) = check(
        SourceFile::new("old.sql", sql.to_string()),
        SourceFile::new("new.sql", sql.to_string()),
        set,
        rules,
    ) else {
        return false;
    };
    report.queries.iter().any(|q| {
        q.operators.iter().any(|o| {
            matches!(
                o.flink_node.as_str(),
                "stream-exec-query" | "unmodelled-statement"
            )
        })
    })
}

/// A script as tokens, each with its exact source text, so a rewrite changes only the tokens it
/// means to and joins the rest back verbatim.
struct Tokens {
    items: Vec<(Token, String)>,
}

impl Tokens {
    fn of(sql: &str) -> Tokens {
        let file = SourceFile::new("script.sql", sql.to_string());
        let tokens = tokenize(&file).expect("a corpus script tokenizes");
        let starts: Vec<usize> = tokens
            .iter()
            .map(|t| file.offset_of(t.span.start.line, t.span.start.column))
            .chain([sql.len()])
            .collect();
        let items = tokens
            .into_iter()
            .zip(starts.windows(2))
            .map(|(t, w)| (t.token, sql[w[0]..w[1]].to_string()))
            .collect();
        Tokens { items }
    }

    fn text(&self) -> String {
        self.items.iter().map(|(_, text)| text.as_str()).collect()
    }

    /// Index of the next token after `i` that is not whitespace or a comment.
    fn next_significant(&self, i: usize) -> Option<usize> {
        (i + 1..self.items.len()).find(|&j| !matches!(self.items[j].0, Token::Whitespace(_)))
    }

    fn previous_significant(&self, i: usize) -> Option<usize> {
        (0..i)
            .rev()
            .find(|&j| !matches!(self.items[j].0, Token::Whitespace(_)))
    }
}

fn is_layout(token: &Token) -> bool {
    matches!(
        token,
        Token::Whitespace(Whitespace::Space | Whitespace::Tab | Whitespace::Newline)
    )
}

/// Every run of spaces, tabs and newlines becomes `separator` (a newline after a `--` comment).
fn reformat(sql: &str, separator: &str) -> String {
    let tokens = Tokens::of(sql);
    let mut out = String::new();
    let mut in_run = false;
    let mut after_line_comment = false;
    let mut after_string = false;
    let is_string = |t: &Token| matches!(t, Token::SingleQuotedString(_));
    for (at, (token, text)) in tokens.items.iter().enumerate() {
        if is_layout(token) {
            if !in_run {
                // Two string literals separated by a newline are one literal: the newline stays.
                let next_is_string = tokens.items[at..]
                    .iter()
                    .find(|(t, _)| !is_layout(t))
                    .is_some_and(|(t, _)| is_string(t));
                let joins_strings = after_string && next_is_string && !separator.contains('\n');
                out.push_str(if after_line_comment || joins_strings {
                    "\n"
                } else {
                    separator
                });
            }
            in_run = true;
            continue;
        }
        after_string = is_string(token);
        in_run = false;
        after_line_comment = matches!(
            token,
            Token::Whitespace(Whitespace::SingleLineComment { .. })
        );
        out.push_str(text);
    }
    out
}

/// Keywords whose case never matters in Flink SQL (identifiers are case-sensitive, so only
/// words in this list are touched; function names only where a call follows).
const KEYWORDS: &[&str] = &[
    "SELECT",
    "FROM",
    "WHERE",
    "GROUP",
    "BY",
    "ORDER",
    "HAVING",
    "AS",
    "AND",
    "OR",
    "NOT",
    "INSERT",
    "INTO",
    "CREATE",
    "TEMPORARY",
    "TABLE",
    "VIEW",
    "FUNCTION",
    "WITH",
    "BEGIN",
    "STATEMENT",
    "END",
    "EXECUTE",
    "OVER",
    "PARTITION",
    "ROWS",
    "RANGE",
    "BETWEEN",
    "PRECEDING",
    "CURRENT",
    "ROW",
    "UNBOUNDED",
    "INTERVAL",
    "DISTINCT",
    "UNION",
    "ALL",
    "JOIN",
    "ON",
    "LEFT",
    "INNER",
    "CASE",
    "WHEN",
    "THEN",
    "ELSE",
    "IS",
    "NULL",
    "IN",
    "LIKE",
    "WATERMARK",
    "FOR",
    "PRIMARY",
    "KEY",
    "ENFORCED",
    "ASC",
    "DESC",
    "LIMIT",
    "SECOND",
    "SECONDS",
    "MINUTE",
    "MINUTES",
    "HOUR",
    "HOURS",
    "DAY",
    "DAYS",
    "FILTER",
    "DESCRIPTOR",
    "BIGINT",
    "INT",
    "INTEGER",
    "STRING",
    "VARCHAR",
    "DOUBLE",
    "BOOLEAN",
    "TIMESTAMP",
    "DECIMAL",
    "FLOAT",
];

const FUNCTIONS: &[&str] = &[
    "COUNT",
    "SUM",
    "MAX",
    "MIN",
    "AVG",
    "ROW_NUMBER",
    "TUMBLE",
    "HOP",
    "SESSION",
    "CUMULATE",
    "TUMBLE_START",
    "TUMBLE_END",
    "HOP_START",
    "HOP_END",
    "SESSION_START",
    "SESSION_END",
    "TUMBLE_ROWTIME",
    "TUMBLE_PROCTIME",
    "PROCTIME",
    "CAST",
    "COALESCE",
    "UPPER",
    "LOWER",
    "TO_TIMESTAMP",
    "FIRST_VALUE",
    "LAST_VALUE",
];

/// Re-cases the listed keywords (and function names before a `(`) with `case`.
fn recase(sql: &str, case: fn(&str) -> String) -> String {
    let mut tokens = Tokens::of(sql);
    for i in 0..tokens.items.len() {
        let Token::Word(word) = &tokens.items[i].0 else {
            continue;
        };
        if word.quote_style.is_some() {
            continue;
        }
        let upper = word.value.to_uppercase();
        let call = tokens
            .next_significant(i)
            .is_some_and(|j| tokens.items[j].0 == Token::LParen);
        if KEYWORDS.contains(&upper.as_str()) || (call && FUNCTIONS.contains(&upper.as_str())) {
            tokens.items[i].1 = case(&word.value);
        }
    }
    tokens.text()
}

fn alternating(word: &str) -> String {
    word.chars()
        .enumerate()
        .map(|(i, c)| {
            if i % 2 == 0 {
                c.to_ascii_lowercase()
            } else {
                c.to_ascii_uppercase()
            }
        })
        .collect()
}

/// Aliases (`... AS name`) that can be renamed everywhere in both scripts without changing
/// what they compute. An alias is skipped when its name has another role: a column or table of
/// DDL, a table read (`FROM name`), a name the tool reads meaning into (time-like names,
/// `proctime`, window columns), a spelling in another case, or text inside a quoted
/// identifier, a string or a comment (hints name tables).
fn renamable_aliases(scripts: &[&str]) -> BTreeSet<String> {
    let mut aliases = BTreeSet::new();
    let mut refused = BTreeSet::new();
    for sql in scripts {
        let tokens = Tokens::of(sql);
        let file = SourceFile::new("script.sql", sql.to_string());
        for raw in split(&file).expect("a corpus script splits") {
            let words = raw.leading_words(6);
            let is_ddl =
                words.first().is_some_and(|w| w == "CREATE") && words.iter().any(|w| w == "TABLE");
            if is_ddl {
                for t in &raw.tokens {
                    if let Token::Word(w) = &t.token {
                        refused.insert(w.value.to_lowercase());
                    }
                }
            }
        }
        let mut cast_depths = Vec::new();
        let mut depth = 0usize;
        for (i, (token, text)) in tokens.items.iter().enumerate() {
            match token {
                Token::LParen => {
                    depth += 1;
                    let callee = tokens.previous_significant(i).map(|j| &tokens.items[j].0);
                    if let Some(Token::Word(w)) = callee {
                        if w.value.eq_ignore_ascii_case("CAST")
                            || w.value.eq_ignore_ascii_case("TRY_CAST")
                        {
                            cast_depths.push(depth);
                        }
                    }
                }
                Token::RParen => {
                    if cast_depths.last() == Some(&depth) {
                        cast_depths.pop();
                    }
                    depth = depth.saturating_sub(1);
                }
                Token::Word(w) if w.quote_style.is_some() => {
                    refused.insert(w.value.to_lowercase());
                }
                Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => {
                    refused.extend(
                        s.split(|c: char| !c.is_alphanumeric() && c != '_')
                            .map(str::to_lowercase),
                    );
                }
                Token::Whitespace(
                    Whitespace::SingleLineComment { .. } | Whitespace::MultiLineComment(_),
                ) => {
                    refused.extend(
                        text.split(|c: char| !c.is_alphanumeric() && c != '_')
                            .map(str::to_lowercase),
                    );
                }
                Token::Word(w) if w.keyword == Keyword::AS && cast_depths.is_empty() => {
                    let Some(j) = tokens.next_significant(i) else {
                        continue;
                    };
                    let Token::Word(alias) = &tokens.items[j].0 else {
                        continue;
                    };
                    let followed_by = tokens.next_significant(j).map(|k| &tokens.items[k].0);
                    if alias.quote_style.is_none()
                        && alias.keyword == Keyword::NoKeyword
                        && !matches!(followed_by, Some(Token::LParen | Token::Period))
                    {
                        aliases.insert(alias.value.clone());
                    }
                }
                Token::Word(w)
                    if matches!(
                        w.keyword,
                        Keyword::FROM
                            | Keyword::JOIN
                            | Keyword::TABLE
                            | Keyword::INTO
                            | Keyword::OVERWRITE
                    ) =>
                {
                    if let Some(Token::Word(table)) =
                        tokens.next_significant(i).map(|j| &tokens.items[j].0)
                    {
                        refused.insert(table.value.to_lowercase());
                    }
                }
                _ => {}
            }
        }
    }
    let spellings: BTreeMap<String, BTreeSet<String>> = scripts
        .iter()
        .flat_map(|sql| Tokens::of(sql).items)
        .filter_map(|(t, _)| match t {
            Token::Word(w) if w.quote_style.is_none() => Some(w.value),
            _ => None,
        })
        .fold(BTreeMap::new(), |mut map, word| {
            map.entry(word.to_lowercase()).or_default().insert(word);
            map
        });
    aliases
        .into_iter()
        .filter(|a| {
            let lower = a.to_lowercase();
            scripts
                .iter()
                .all(|sql| only_refers_to_its_definition(sql, a))
                && !refused.contains(&lower)
                && !looks_like_time(a)
                && !lower.starts_with("window_")
                && lower != "proctime"
                && spellings.get(&lower).is_some_and(|s| s.len() == 1)
        })
        .collect()
}

/// Whether every use of `alias` in the script can only mean the alias: in each statement, its
/// other occurrences are outside (shallower than) the subquery that defines it, or the
/// definition is in an earlier statement (a view). An occurrence beside its own definition, as
/// in `a + 1 AS a`, is a column of the input and must keep its name.
fn only_refers_to_its_definition(sql: &str, alias: &str) -> bool {
    let file = SourceFile::new("script.sql", sql.to_string());
    let mut defined_before = false;
    for raw in split(&file).expect("a corpus script splits") {
        let mut depth = 0usize;
        let mut definitions = Vec::new();
        let mut uses = Vec::new();
        let significant: Vec<&Token> = raw
            .tokens
            .iter()
            .map(|t| &t.token)
            .filter(|t| !matches!(t, Token::Whitespace(_)))
            .collect();
        for (i, token) in significant.iter().enumerate() {
            match token {
                Token::LParen => depth += 1,
                Token::RParen => depth = depth.saturating_sub(1),
                Token::Word(w) if w.quote_style.is_none() && w.value == alias => {
                    let after_as = i > 0
                        && matches!(significant[i - 1], Token::Word(k) if k.keyword == Keyword::AS);
                    if after_as {
                        definitions.push(depth);
                    } else {
                        uses.push(depth);
                    }
                }
                _ => {}
            }
        }
        let shallowest_definition = definitions.iter().min();
        let ok = match shallowest_definition {
            Some(defined) => uses.iter().all(|u| u < defined),
            None => uses.is_empty() || defined_before,
        };
        if !ok {
            return false;
        }
        defined_before |= !definitions.is_empty();
    }
    true
}

/// Renames every unquoted occurrence of each alias.
fn rename(sql: &str, aliases: &BTreeSet<String>) -> String {
    let mut tokens = Tokens::of(sql);
    for (token, text) in tokens.items.iter_mut() {
        if let Token::Word(w) = token {
            if w.quote_style.is_none() && aliases.contains(&w.value) {
                *text = format!("renamed_{}", w.value);
            }
        }
    }
    tokens.text()
}

/// Reverses each run of consecutive CREATE TABLE / CREATE FUNCTION statements (no `LIKE`, no
/// name declared twice): they do not depend on one another, so their order cannot matter.
fn reorder_ddl(sql: &str) -> String {
    let file = SourceFile::new("script.sql", sql.to_string());
    let statements = split(&file).expect("a corpus script splits");
    let independent = |raw: &flink_compat::sql::split::RawStatement| {
        let words = raw.leading_words(4);
        words.first().is_some_and(|w| w == "CREATE")
            && words.iter().any(|w| w == "TABLE" || w == "FUNCTION")
            && !raw
                .tokens
                .iter()
                .any(|t| matches!(&t.token, Token::Word(w) if w.keyword == Keyword::LIKE))
    };
    let mut out: Vec<String> = Vec::new();
    let mut run: Vec<(String, String)> = Vec::new();
    let flush = |run: &mut Vec<(String, String)>, out: &mut Vec<String>| {
        let names: BTreeSet<&String> = run.iter().map(|(name, _)| name).collect();
        if names.len() == run.len() {
            run.reverse();
        }
        out.extend(run.drain(..).map(|(_, text)| text));
    };
    for raw in &statements {
        let text = file.slice(raw.span).to_string();
        if independent(raw) {
            let name = raw
                .leading_words(8)
                .into_iter()
                .find(|w| {
                    !matches!(
                        w.as_str(),
                        "CREATE" | "TEMPORARY" | "TABLE" | "FUNCTION" | "IF" | "NOT" | "EXISTS"
                    )
                })
                .unwrap_or_default();
            run.push((name, text));
        } else {
            flush(&mut run, &mut out);
            out.push(text);
        }
    }
    flush(&mut run, &mut out);
    out.iter().map(|s| format!("{s};\n")).collect()
}

/// Applies `rewrite` to both scripts of every case: the outcome must not change, and each
/// rewritten script must be fully compatible with its original, with no finding but those of
/// `reported` (a renamed output column is a difference the report names).
fn rewrite_keeps_outcomes(name: &str, rewrite: impl Fn(&str, &str) -> (String, String)) {
    rewrite_keeps_outcomes_reporting(name, &[], rewrite)
}

fn rewrite_keeps_outcomes_reporting(
    name: &str,
    reported: &[&str],
    rewrite: impl Fn(&str, &str) -> (String, String),
) {
    let rules = builtin();
    let mut changed = 0;
    for case in corpus() {
        let (old, new) = rewrite(&case.old, &case.new);
        if old != case.old || new != case.new {
            changed += 1;
        }
        if compared_by_text(&case.old, &case.set, &rules)
            || compared_by_text(&case.new, &case.set, &rules)
        {
            // A query the tool does not model is compared by its text (the safe reading): a
            // rewrite of that text is a change it cannot tell from a real one.
            continue;
        }
        let mut before = judge(&case.old, &case.new, &case.set, &rules);
        let mut after = judge(&old, &new, &case.set, &rules);
        for outcome in [&mut before, &mut after] {
            outcome.findings.retain(|f| !reported.contains(&f.as_str()));
        }
        assert_eq!(
            before, after,
            "{name} changed the outcome of {}\n--- old\n{old}\n--- new\n{new}",
            case.path
        );
        for (original, rewritten) in [(&case.old, &old), (&case.new, &new)] {
            let mut itself = judge(original, rewritten, &case.set, &rules);
            itself.findings.retain(|f| !reported.contains(&f.as_str()));
            assert_eq!(
                itself,
                Outcome {
                    verdict: Verdict::FullyCompatible,
                    findings: BTreeSet::new()
                },
                "{name}: {} against its rewrite\n--- rewrite\n{rewritten}",
                case.path
            );
        }
    }
    assert!(
        changed > 0,
        "{name} rewrote no case: the test tests nothing"
    );
}

#[test]
fn every_script_is_fully_compatible_with_itself() {
    let rules = builtin();
    for case in corpus() {
        for sql in [&case.old, &case.new] {
            assert_eq!(
                judge(sql, sql, &case.set, &rules),
                Outcome {
                    verdict: Verdict::FullyCompatible,
                    findings: BTreeSet::new()
                },
                "{}",
                case.path
            );
        }
    }
}

#[test]
fn whitespace_never_changes_a_verdict() {
    rewrite_keeps_outcomes("one space", |old, new| {
        (reformat(old, " "), reformat(new, " "))
    });
    rewrite_keeps_outcomes("indented lines", |old, new| {
        (reformat(old, "\n    "), reformat(new, "\n\t\t"))
    });
}

#[test]
fn keyword_case_never_changes_a_verdict() {
    rewrite_keeps_outcomes("lower case", |old, new| {
        (
            recase(old, str::to_lowercase),
            recase(new, str::to_lowercase),
        )
    });
    rewrite_keeps_outcomes("mixed case", |old, new| {
        (recase(old, alternating), recase(new, str::to_uppercase))
    });
}

#[test]
fn renaming_aliases_never_changes_a_verdict() {
    rewrite_keeps_outcomes_reporting("renamed aliases", &["query-output-renamed"], |old, new| {
        let aliases = renamable_aliases(&[old, new]);
        (rename(old, &aliases), rename(new, &aliases))
    });
}

#[test]
fn reordering_independent_ddl_never_changes_a_verdict() {
    rewrite_keeps_outcomes("reordered DDL", |old, new| {
        (reorder_ddl(old), reorder_ddl(new))
    });
}

/// Rules that fire on a difference and not on a direction: "the keys changed" holds from old to
/// new exactly when it holds from new to old. A rule about something added or removed (an
/// aggregate added is partially compatible, removed is fully compatible) is directional, and so
/// are rules about one side only (a new stateful query, an unknown function on the new side).
/// `*-distinct-aggregate-changed` is directional too: it fires when a DISTINCT aggregate is
/// added or changed, while removing one is `*-aggregate-removed`.
const SYMMETRIC_RULES: &[&str] = &[
    "ga-key-changed",
    "ga-keys-reordered",
    "ga-aggregates-reordered",
    "ga-input-filter-changed",
    "ga-input-filter-ignored",
    "gwa-key-changed",
    "gwa-keys-reordered",
    "gwa-aggregates-reordered",
    "gwa-window-type-changed",
    "gwa-window-size-changed",
    "gwa-time-attribute-changed",
    "gwa-input-filter-changed",
    "gwa-input-filter-ignored",
    "wa-key-changed",
    "wa-keys-reordered",
    "wa-aggregates-reordered",
    "wa-window-type-changed",
    "wa-window-size-changed",
    "wa-time-attribute-changed",
    "wa-input-filter-changed",
    "wa-input-filter-ignored",
    "dedup-partition-keys-changed",
    "dedup-partition-keys-reordered",
    "dedup-order-changed",
    "dedup-input-filter-changed",
    "dedup-input-filter-ignored",
    "over-partition-changed",
    "over-order-changed",
    "over-frame-changed",
    "over-aggregates-reordered",
    "over-input-filter-changed",
    "over-input-filter-ignored",
    "opaque-operator-changed",
    "query-sink-renamed",
    "query-hints-changed",
    "config-engine-version-changed",
];

#[test]
fn swapping_old_and_new_keeps_symmetric_verdicts() {
    let rules = builtin();
    let mut compared = 0;
    for case in corpus() {
        let forward = judge(&case.old, &case.new, &case.set, &rules);
        let symmetric = forward
            .findings
            .iter()
            .all(|id| SYMMETRIC_RULES.contains(&id.as_str()));
        let decided = forward.verdict == Verdict::Incompatible
            || (forward.verdict == Verdict::FullyCompatible && forward.findings.is_empty());
        if !(symmetric && decided) {
            continue;
        }
        compared += 1;
        let backward = judge(&case.new, &case.old, &case.set, &rules);
        assert_eq!(
            forward.verdict, backward.verdict,
            "{}: {forward:?} forward, {backward:?} backward",
            case.path
        );
    }
    assert!(compared > 20, "only {compared} cases are symmetric");
}

#[test]
fn rewrites_touch_only_what_they_mean_to() {
    let sql =
        "SELECT a AS total, 'select x AS y' FROM t /* AS z */ -- as w\nWHERE CAST(b AS INT) > 1";
    assert_eq!(
        recase(sql, str::to_lowercase),
        "select a as total, 'select x AS y' from t /* AS z */ -- as w\nwhere cast(b as int) > 1"
    );
    assert_eq!(
        reformat(sql, " "),
        "SELECT a AS total, 'select x AS y' FROM t /* AS z */ -- as w\nWHERE CAST(b AS INT) > 1"
    );
    let aliases = renamable_aliases(&[sql]);
    assert_eq!(
        aliases,
        BTreeSet::from(["total".to_string()]),
        "not INT, nor y, z, w"
    );
    assert_eq!(
        rename(sql, &aliases),
        sql.replace("AS total", "AS renamed_total")
    );
    assert_eq!(
        reorder_ddl("CREATE TABLE a (x INT);\nCREATE FUNCTION f AS 'c';\nSELECT x FROM a;"),
        "CREATE FUNCTION f AS 'c';\nCREATE TABLE a (x INT);\nSELECT x FROM a;\n"
    );
}

#[test]
fn qualified_names_never_change_a_verdict() {
    rewrite_keeps_outcomes("names qualified", |old, new| {
        let prefix = "default_catalog.default_database.";
        (
            spelling::qualify_names(old, prefix),
            spelling::qualify_names(new, prefix),
        )
    });
    rewrite_keeps_outcomes("names qualified, other USE", |old, new| {
        let prefix = "default_catalog.default_database.";
        let used = "USE CATALOG other_catalog;\nUSE other_db;\n";
        // A function name declared twice (TEMPORARY beside a catalog function) is compared
        // with the databases its declarations are in and the USE statements, which this
        // rewrite changes: the tool answers unknown there (`query-function-changed`, the safe
        // side), so such a case is left as it is.
        let qualified = |sql: &str| {
            spelling::uses_catalogs(sql)
                || spelling::has_qualified_names(sql)
                || spelling::declares_a_function_twice(sql)
        };
        if qualified(old) || qualified(new) {
            return (old.to_string(), new.to_string());
        }
        (
            format!("{used}{}", spelling::qualify_names(old, prefix)),
            format!("{used}{}", spelling::qualify_names(new, prefix)),
        )
    });
    rewrite_keeps_outcomes("names qualified with the database", |old, new| {
        let prefix = "default_database.";
        (
            spelling::qualify_names(old, prefix),
            spelling::qualify_names(new, prefix),
        )
    });
}

#[test]
fn quoted_identifiers_never_change_a_verdict() {
    rewrite_keeps_outcomes("quoted identifiers", |old, new| {
        let names = spelling::identifiers(&[old, new]);
        (
            spelling::quote_identifiers(old, &names),
            spelling::quote_identifiers(new, &names),
        )
    });
}

#[test]
fn predicates_spelled_otherwise_never_change_a_verdict() {
    rewrite_keeps_outcomes("predicates spelled otherwise", |old, new| {
        if spelling::writes_literal_first(old) || spelling::writes_literal_first(new) {
            return (old.to_string(), new.to_string());
        }
        let ranks = spelling::ranking_names(&[old, new]);
        (
            spelling::respell_predicates(old, &ranks),
            spelling::respell_predicates(new, &ranks),
        )
    });
    rewrite_keeps_outcomes("ranges and lists spelled otherwise", |old, new| {
        let ranks = spelling::ranking_names(&[old, new]);
        (
            spelling::respell_ranges(old, &ranks),
            spelling::respell_ranges(new, &ranks),
        )
    });
    rewrite_keeps_outcomes("conditions spelled with IS TRUE / IS FALSE", |old, new| {
        let ranks = spelling::ranking_names(&[old, new]);
        (
            spelling::respell_conditions(old, &ranks),
            spelling::respell_conditions(new, &ranks),
        )
    });
    rewrite_keeps_outcomes("ranges spelled BETWEEN SYMMETRIC", |old, new| {
        let ranks = spelling::ranking_names(&[old, new]);
        (
            spelling::respell_symmetric(old, &ranks),
            spelling::respell_symmetric(new, &ranks),
        )
    });
}

#[test]
fn an_unused_cte_never_changes_a_verdict() {
    rewrite_keeps_outcomes("unused CTE", |old, new| {
        (spelling::add_unused_cte(old), spelling::add_unused_cte(new))
    });
}

#[test]
fn moving_a_query_never_changes_a_verdict() {
    for (name, into) in [
        ("query in a subquery", spelling::Moved::Subquery),
        ("query in a CTE", spelling::Moved::Cte),
        ("query in a view", spelling::Moved::View),
    ] {
        rewrite_keeps_outcomes(name, |old, new| {
            (
                spelling::move_query(old, into),
                spelling::move_query(new, into),
            )
        });
    }
}

#[test]
fn moving_a_ranking_never_changes_a_verdict() {
    for (name, into) in [
        ("ranking in a CTE", spelling::Moved::Cte),
        ("ranking in a view", spelling::Moved::View),
    ] {
        rewrite_keeps_outcomes(name, |old, new| {
            (
                spelling::move_ranking(old, into),
                spelling::move_ranking(new, into),
            )
        });
    }
}

#[test]
fn reordering_ddl_columns_never_changes_a_verdict() {
    // A table no query reads (unused, or hidden by a TEMPORARY one) is compared by its
    // declaration: the reorder is a (harmless) finding.
    rewrite_keeps_outcomes_reporting(
        "DDL columns reordered",
        &[
            "query-unused-table-changed",
            "query-hidden-definition-changed",
        ],
        |old, new| {
            (
                spelling::reorder_columns(old),
                spelling::reorder_columns(new),
            )
        },
    );
}

#[test]
fn an_inner_join_condition_in_where_never_changes_a_verdict() {
    rewrite_keeps_outcomes("join condition moved to WHERE", |old, new| {
        (
            spelling::join_condition_to_where(old),
            spelling::join_condition_to_where(new),
        )
    });
}
