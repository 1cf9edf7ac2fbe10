//! GitHub Actions workflow commands: one annotation per finding at its clause in the new script
//! (the old one when the clause is gone), the warnings and assumptions, then the verdict.

use super::{human, Finding, FindingContext, Location, Report};
use crate::error::Error;
use crate::notes::NoteKind;
use crate::verdict::Verdict;
use std::fmt::Write;

fn command(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Incompatible => "error",
        Verdict::Unknown | Verdict::PartiallyCompatible => "warning",
        Verdict::FullyCompatible => "notice",
    }
}

/// Escapes a message as the runner reads it back (`%`, CR and LF).
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value, which also ends at `,` and `:`.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

fn properties(location: Option<&Location>, title: &str) -> String {
    let mut parts = Vec::new();
    if let Some(l) = location {
        let (end_line, end_column) = l.end();
        parts.push(format!("file={}", escape_property(&l.file)));
        parts.push(format!("line={}", l.line));
        parts.push(format!("endLine={end_line}"));
        // GitHub takes columns only within one line.
        if end_line == l.line {
            parts.push(format!("col={}", l.column));
            parts.push(format!("endColumn={end_column}"));
        } else {
            parts.push(format!("col={}", l.column));
        }
    }
    parts.push(format!("title={}", escape_property(title)));
    parts.join(",")
}

fn finding(out: &mut String, context: FindingContext, f: &Finding) {
    let location = f.new.as_ref().or(f.old.as_ref());
    let mut message = f.message.clone();
    if let (Some(old), Some(_)) = (&f.old, &f.new) {
        let _ = write!(
            message,
            "\nold script: {}:{}:{}",
            old.file, old.line, old.column
        );
    }
    let place = match context.operator {
        Some(op) => format!("{} in query {}", op.kind, context.query.name),
        None => format!("query {}", context.query.name),
    };
    let mut title = format!("{} ({}): {place}", f.rule, f.verdict);
    let mut level = command(f.verdict);
    if let Some(s) = &f.suppressed {
        let _ = write!(title, ", suppressed: {}", s.reason);
        level = "notice";
    }
    let _ = writeln!(
        out,
        "::{} {}::{}",
        level,
        properties(location, &title),
        escape_data(&message)
    );
}

pub fn render(report: &Report) -> String {
    let mut out = annotations(report);
    let _ = writeln!(
        out,
        "::{} title=flink-compat verdict::{}",
        command(report.effective_verdict.unwrap_or(report.verdict)),
        escape_data(human::verdict_words(report.verdict))
    );
    out
}

/// The annotations of a report's findings, warnings and assumptions (no verdict line).
pub fn annotations(report: &Report) -> String {
    let mut out = String::new();
    for (context, f) in report.findings_in_context() {
        finding(&mut out, context, f);
    }
    for note in &report.notes {
        let (kind, title) = match note.kind {
            NoteKind::Warning => ("warning", "flink-compat: warning"),
            NoteKind::Assumption => ("notice", "flink-compat: assumption"),
        };
        let _ = writeln!(
            out,
            "::{kind} {}::{}",
            properties(note.location.as_ref(), title),
            escape_data(&format!("{} script: {}", note.side, note.message))
        );
    }
    out
}

/// A notice or error about a whole job file (added, removed, failed), at its first line.
pub fn file_annotation(level: &str, file: &str, title: &str, message: &str) -> String {
    format!(
        "::{level} file={},line=1,title={}::{}\n",
        escape_property(file),
        escape_property(title),
        escape_data(message)
    )
}

/// The run's verdict line.
pub fn verdict_line(verdict: Verdict, message: &str) -> String {
    format!(
        "::{} title=flink-compat verdict::{}\n",
        command(verdict),
        escape_data(message)
    )
}

/// An input error as annotations, one per located error.
pub fn render_error(error: &Error) -> String {
    let located = error.located_errors();
    if located.is_empty() {
        return format!(
            "::error title=flink-compat error::{}\n",
            escape_data(&error.to_string())
        );
    }
    let mut out = String::new();
    for e in located {
        let mut message = e.message.clone();
        if let Some(help) = &e.help {
            let _ = write!(message, "\nhelp: {help}");
        }
        let _ = writeln!(
            out,
            "::error file={},line={},col={},title=flink-compat: invalid {} file::{}",
            escape_property(&e.file),
            e.line,
            e.column,
            e.kind,
            escape_data(&message)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_and_properties_are_escaped_as_the_runner_reads_them() {
        assert_eq!(escape_data("100% a\nb"), "100%25 a%0Ab");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
    }
}
