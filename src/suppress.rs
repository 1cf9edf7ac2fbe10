//! Accepted findings. Inline, a comment on the statement a finding points at:
//! `-- flink-compat: allow <rule-id>[, <rule-id>...] -- <reason>`; in the configuration, an
//! `[[allow]]` per rule and paths. A suppressed finding stays in the report, marked with its
//! reason, and no longer counts for the exit status; an allow that matches nothing is a warning.

use crate::notes::NoteKind;
use crate::report::{Finding, NoteReport, Report};
use crate::source::{ByteSpan, SourceFile};
use crate::verdict::Verdict;
use sqlparser::tokenizer::{Token, Whitespace};

const MARKER: &str = "flink-compat:";

pub use crate::report::suppression::{Suppression, SuppressionKind};

/// An allow comment of a script: the rules it names, the statement it sits on.
#[derive(Debug, Clone)]
pub struct InlineAllow {
    pub rules: Vec<String>,
    pub reason: String,
    /// The comment itself.
    pub span: ByteSpan,
    /// The statement it applies to (leading comments included).
    pub statement: ByteSpan,
    /// A malformed allow (no reason, no rule): a warning, never a suppression.
    pub problem: Option<String>,
}

/// A rule accepted for some paths by the configuration (an `[[allow]]` table).
#[derive(Debug, Clone)]
pub struct ConfigAllow {
    pub rule: String,
    pub reason: String,
    /// Globs of the job files it applies to; every job when empty.
    pub paths: Vec<crate::paths::glob::Glob>,
    pub origin: String,
}

/// The allow comments of a script. A script that does not tokenize has none (its error is
/// reported by the check itself).
pub fn inline_allows(file: &SourceFile) -> Vec<InlineAllow> {
    // An allow comment starts with the marker: a script without it has none, and is not
    // tokenized a second time (a deployment's scripts are large).
    if !file.text.contains(MARKER) {
        return Vec::new();
    }
    let Ok(tokens) = crate::sql::split::tokenize(file) else {
        return Vec::new();
    };
    // Statements: from the first token after a `;` to the `;`. A comment on the line of the
    // `;` that ends a statement belongs to that statement.
    let offset = |t: &sqlparser::tokenizer::TokenWithSpan| {
        file.offset_of(t.span.start.line, t.span.start.column)
    };
    let mut statements: Vec<ByteSpan> = Vec::new();
    let mut comments: Vec<(usize, String, ByteSpan)> = Vec::new();
    let mut start: Option<usize> = None;
    let mut last_semicolon_line: Option<u64> = None;
    for token in &tokens {
        let at = offset(token);
        let end = file.offset_of(token.span.end.line, token.span.end.column);
        match &token.token {
            Token::SemiColon => {
                statements.push(ByteSpan::new(start.unwrap_or(at), end));
                start = None;
                last_semicolon_line = Some(token.span.start.line);
            }
            Token::Whitespace(Whitespace::SingleLineComment { comment, .. })
            | Token::Whitespace(Whitespace::MultiLineComment(comment)) => {
                let trailing =
                    last_semicolon_line == Some(token.span.start.line) && start.is_none();
                let index = if trailing {
                    statements.len() - 1
                } else {
                    start.get_or_insert(at);
                    statements.len()
                };
                comments.push((index, comment.clone(), ByteSpan::new(at, end)));
            }
            Token::Whitespace(_) | Token::EOF => {}
            _ => {
                start.get_or_insert(at);
            }
        }
    }
    if let Some(start) = start {
        statements.push(ByteSpan::new(start, file.text.len()));
    }
    comments
        .into_iter()
        .filter_map(|(index, comment, span)| {
            let statement = statements.get(index).copied().unwrap_or(span);
            parse_allow(&comment, span, statement)
        })
        .collect()
}

/// `flink-compat: allow a, b -- reason` (after the comment marker), or `None` for any other
/// comment.
fn parse_allow(comment: &str, span: ByteSpan, statement: ByteSpan) -> Option<InlineAllow> {
    let rest = comment.trim().strip_prefix(MARKER)?.trim_start();
    let mut allow = InlineAllow {
        rules: Vec::new(),
        reason: String::new(),
        span,
        statement,
        problem: None,
    };
    let Some(body) = rest.strip_prefix("allow") else {
        allow.problem = Some(format!(
            "`{MARKER} {}` is not an allow: write `-- {MARKER} allow <rule-id> -- <reason>`",
            rest.split_whitespace().next().unwrap_or("")
        ));
        return Some(allow);
    };
    let (ids, reason) = body.split_once("--").unwrap_or((body, ""));
    allow.rules = ids
        .split([',', ' '])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    allow.reason = reason.trim().to_string();
    if allow.rules.is_empty() {
        allow.problem = Some("this allow names no rule: `allow <rule-id> -- <reason>`".into());
    } else if allow.reason.is_empty() {
        allow.problem = Some(
            "this allow gives no reason: `allow <rule-id> -- <reason>` (it is ignored)".into(),
        );
    }
    Some(allow)
}

fn contains(statement: ByteSpan, offset: usize) -> bool {
    statement.start <= offset && offset <= statement.end
}

/// Marks the findings of `report` that an allow accepts. Inline allows of the new script apply
/// to findings located there, those of the old script to findings located only there.
/// Returns, for each of `config`, whether it matched; unmatched or malformed inline allows of the
/// new script become warnings of the report.
pub fn apply(
    report: &mut Report,
    old: Option<&SourceFile>,
    new: Option<&SourceFile>,
    config: &[&ConfigAllow],
) -> Vec<bool> {
    let old_allows = old.map(inline_allows).unwrap_or_default();
    let new_allows = new.map(inline_allows).unwrap_or_default();
    let mut new_used = vec![false; new_allows.len()];
    let mut config_used = vec![false; config.len()];
    let origin = |file: Option<&SourceFile>, span: ByteSpan| match file {
        Some(f) => {
            let at = f.line_col(span.start);
            format!("{}:{}:{}", f.name, at.line, at.column)
        }
        None => String::new(),
    };
    let mut any = false;
    for finding in findings_mut(report) {
        let (allows, file, used): (&[InlineAllow], _, Option<&mut Vec<bool>>) =
            match (&finding.new, &finding.old) {
                (Some(_), _) => (&new_allows, new, Some(&mut new_used)),
                (None, Some(_)) => (&old_allows, old, None),
                (None, None) => (&[], None, None),
            };
        let offset = finding
            .new
            .as_ref()
            .or(finding.old.as_ref())
            .map(|l| l.offset);
        let inline = offset.and_then(|offset| {
            allows.iter().position(|a| {
                a.problem.is_none()
                    && contains(a.statement, offset)
                    && a.rules.contains(&finding.rule)
            })
        });
        if let Some(i) = inline {
            if let Some(used) = used {
                used[i] = true;
            }
            finding.suppressed = Some(Suppression {
                kind: SuppressionKind::Inline,
                reason: allows[i].reason.clone(),
                origin: origin(file, allows[i].span),
            });
        } else if let Some(i) = config.iter().position(|a| a.rule == finding.rule) {
            config_used[i] = true;
            finding.suppressed = Some(Suppression {
                kind: SuppressionKind::Config,
                reason: config[i].reason.clone(),
                origin: config[i].origin.clone(),
            });
        }
        any |= finding.suppressed.is_some();
    }
    if any {
        report.effective_verdict = Some(effective_verdict(report));
    }
    if let Some(file) = new {
        for (allow, used) in new_allows.iter().zip(new_used) {
            let message = match &allow.problem {
                Some(problem) => problem.clone(),
                None if !used => format!(
                    "`allow {}` matches no finding of this statement",
                    allow.rules.join(", ")
                ),
                None => continue,
            };
            report.notes.push(NoteReport {
                side: "new",
                kind: NoteKind::Warning,
                message,
                location: crate::report::location(file, allow.span),
            });
        }
    }
    config_used
}

/// The verdict of the findings that are not suppressed.
pub fn effective_verdict(report: &Report) -> Verdict {
    report
        .findings()
        .filter(|f| f.suppressed.is_none())
        .map(|f| f.verdict)
        .max()
        .unwrap_or(Verdict::FullyCompatible)
}

fn findings_mut(report: &mut Report) -> impl Iterator<Item = &mut Finding> {
    report.queries.iter_mut().flat_map(|q| {
        q.findings.iter_mut().chain(
            q.operators
                .iter_mut()
                .chain(q.sources.iter_mut())
                .flat_map(|o| o.findings.iter_mut()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allows(text: &str) -> Vec<InlineAllow> {
        inline_allows(&SourceFile::new("t.sql", text))
    }

    #[test]
    fn an_allow_applies_to_the_statement_it_sits_on() {
        let text = "CREATE TABLE t (a INT);\n-- flink-compat: allow gwa-aggregate-added -- accepted\nINSERT INTO s SELECT a FROM t;\nINSERT INTO u SELECT a FROM t;";
        let found = allows(text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rules, vec!["gwa-aggregate-added"]);
        assert_eq!(found[0].reason, "accepted");
        let insert = text.find("INSERT INTO s").unwrap();
        let second = text.find("INSERT INTO u").unwrap();
        assert!(contains(found[0].statement, insert));
        assert!(!contains(found[0].statement, second));
    }

    #[test]
    fn a_trailing_comment_belongs_to_the_statement_its_line_ends() {
        let text = "INSERT INTO s SELECT a FROM t; -- flink-compat: allow x, y -- ok\nINSERT INTO u SELECT a FROM t;";
        let found = allows(text);
        assert_eq!(found[0].rules, vec!["x", "y"]);
        assert!(contains(found[0].statement, 0));
        assert!(!contains(
            found[0].statement,
            text.find("INSERT INTO u").unwrap()
        ));
    }

    #[test]
    fn an_allow_without_a_reason_is_a_problem_not_a_suppression() {
        let found = allows("-- flink-compat: allow x\nSELECT 1;");
        assert!(found[0].problem.as_deref().unwrap().contains("no reason"));
        assert!(allows("-- just a comment\nSELECT 1;").is_empty());
    }
}
