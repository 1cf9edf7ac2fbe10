//! The report for a person: the verdict in one line, then per query and operator the findings
//! (rule id, message, the clause in the old and the new script as miette snippets), the state
//! table, and the warnings and assumptions. Without colour (not a terminal, or `NO_COLOR`) the
//! output is plain and deterministic.

use super::snippet::{severity, Item, Snippet};
use super::{Finding, NoteReport, OperatorReport, QueryReport, QueryStatus, Report};
use crate::notes::NoteKind;
use crate::source::SourceFile;
use crate::verdict::Verdict;
use miette::{GraphicalReportHandler, GraphicalTheme, Severity};
use std::fmt::Write;

/// How to draw: with colour (a terminal) or plain, at a given width.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub colour: bool,
    pub width: usize,
}

impl Style {
    pub const PLAIN: Style = Style {
        colour: false,
        width: 100,
    };

    /// Colour only on a terminal, and never when `NO_COLOR` is set (https://no-color.org).
    pub fn detect() -> Style {
        use std::io::IsTerminal;
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style {
            colour: std::io::stdout().is_terminal() && !no_color,
            ..Style::PLAIN
        }
    }

    fn handler(self) -> GraphicalReportHandler {
        let theme = if self.colour {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::unicode_nocolor()
        };
        GraphicalReportHandler::new_themed(theme)
            .with_links(false)
            .with_width(self.width)
            .with_context_lines(1)
            .without_syntax_highlighting()
            .with_show_related_as_nested(true)
            .with_break_words(false)
            .with_word_splitter(textwrap::WordSplitter::NoHyphenation)
    }

    pub fn verdict(self, verdict: Verdict, text: &str) -> String {
        if !self.colour {
            return text.to_string();
        }
        let code = match verdict {
            Verdict::FullyCompatible => "32",
            Verdict::PartiallyCompatible => "36",
            Verdict::Unknown => "33",
            Verdict::Incompatible => "31",
        };
        format!("\x1b[1;{code}m{text}\x1b[0m")
    }
}

pub fn verdict_words(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::FullyCompatible => {
            "FULLY COMPATIBLE: the new job reuses all of the old job's state"
        }
        Verdict::PartiallyCompatible => {
            "PARTIALLY COMPATIBLE: some state is reused, some starts empty or is discarded"
        }
        Verdict::Unknown => "UNKNOWN: the tool cannot tell; restore with caution",
        Verdict::Incompatible => "INCOMPATIBLE: the state cannot be reused",
    }
}

/// A section heading with exactly one blank line before and after it.
fn heading(out: &mut String, text: &str) {
    out.truncate(out.trim_end().len());
    let _ = writeln!(out, "\n\n{text}\n");
}

fn words(text: &str) -> String {
    text.replace('_', " ")
}

fn status_words(status: QueryStatus) -> &'static str {
    match status {
        QueryStatus::Unchanged => "unchanged",
        QueryStatus::Changed => "changed",
        QueryStatus::Added => "added",
        QueryStatus::Removed => "removed",
    }
}

/// Renders a diagnostic, indented under its query.
fn diagnostic(out: &mut String, style: Style, item: &Item) {
    let mut text = String::new();
    if style.handler().render_report(&mut text, item).is_err() {
        let _ = writeln!(text, "{}", item.message);
    }
    for line in text.trim_end().lines() {
        let _ = writeln!(out, "{}", format!("  {line}").trim_end());
    }
    let _ = writeln!(out);
}

fn finding_item(f: &Finding, files: &[&SourceFile]) -> Item {
    let mut snippets = Vec::new();
    let mut unshown = Vec::new();
    for (title, label, location) in [
        ("in the old script", "old", &f.old),
        ("in the new script", "new", &f.new),
    ] {
        let Some(location) = location else { continue };
        match Snippet::of(title, label, location, files) {
            Some(s) => snippets.push(s),
            None => unshown.push(format!(
                "{label}: {}:{}:{}",
                location.file, location.line, location.column
            )),
        }
    }
    let mut help = Vec::new();
    if let Some(mode) = f.failure_mode {
        help.push(format!(
            "failure mode on this engine: {}",
            words(mode.name())
        ));
    }
    if let Some(why) = &f.derived {
        help.push(format!("derived rule: {why}"));
    }
    help.extend(unshown);
    let mut message = format!("{}: {}", words(f.verdict.name()), f.message);
    if let Some(s) = &f.suppressed {
        message = format!("suppressed ({}, {}): {message}", s.reason, s.origin);
    }
    Item {
        code: Some(f.rule.clone()),
        message,
        severity: if f.suppressed.is_some() {
            Severity::Advice
        } else {
            severity(f.verdict)
        },
        help: (!help.is_empty()).then(|| help.join("\n")),
        snippets,
    }
}

fn query_name(query: &QueryReport) -> String {
    match (&query.old_name, &query.new_name) {
        (Some(o), Some(n)) if o != n => format!("{o} → {n}"),
        _ => query.name.clone(),
    }
}

fn operator_line(out: &mut String, op: &OperatorReport) {
    let _ = writeln!(
        out,
        "  {} [{}] ({}): {}",
        op.kind,
        op.flink_node,
        status_words(op.status),
        words(op.verdict.name())
    );
}

fn findings(out: &mut String, report: &Report, files: &[&SourceFile], style: Style) {
    for query in &report.queries {
        let _ = writeln!(
            out,
            "\nquery {} ({}): {}",
            query_name(query),
            status_words(query.status),
            words(query.verdict.name())
        );
        if !query.findings.is_empty() {
            let _ = writeln!(out);
        }
        for f in &query.findings {
            diagnostic(out, style, &finding_item(f, files));
        }
        for op in &query.operators {
            operator_line(out, op);
            if !op.findings.is_empty() {
                let _ = writeln!(out);
            }
            for f in &op.findings {
                diagnostic(out, style, &finding_item(f, files));
            }
        }
        // Source tables are listed only when their DDL changed something.
        for source in query.sources.iter().filter(|s| !s.findings.is_empty()) {
            let _ = writeln!(
                out,
                "  source table {} ({}): {}\n",
                source.table.as_deref().unwrap_or_default(),
                status_words(source.status),
                words(source.verdict.name())
            );
            for f in &source.findings {
                diagnostic(out, style, &finding_item(f, files));
            }
        }
    }
}

/// One row per piece of state: query, operator, the aggregate (or the operator's whole state).
fn state_table(out: &mut String, report: &Report) {
    let mut rows: Vec<[String; 4]> = Vec::new();
    for query in &report.queries {
        let mut name = query_name(query);
        for op in &query.operators {
            let mut kind = op.kind.clone();
            let s = &op.state;
            let mut items: Vec<(String, &str)> = Vec::new();
            for (fate, list) in [
                ("reused", &s.reused),
                ("starts empty", &s.starts_empty),
                ("discarded", &s.discarded),
                ("undetermined", &s.undetermined),
            ] {
                items.extend(list.iter().map(|i| (i.clone(), fate)));
            }
            let whole = words(&s.operator);
            if items.is_empty() {
                items.push(("(all of its state)".into(), whole.as_str()));
            }
            for (item, fate) in items {
                rows.push([
                    std::mem::take(&mut name),
                    std::mem::take(&mut kind),
                    item,
                    fate.to_string(),
                ]);
            }
        }
    }
    if rows.is_empty() {
        return;
    }
    let header = ["query", "operator", "state", "on restore"].map(String::from);
    let mut widths = [0; 3];
    for row in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    heading(out, "state on restore:");
    for row in std::iter::once(&header).chain(&rows) {
        let _ = writeln!(
            out,
            "  {:<w0$}  {:<w1$}  {:<w2$}  {}",
            row[0],
            row[1],
            row[2],
            row[3],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2]
        );
    }
}

fn note_item(note: &NoteReport, files: &[&SourceFile]) -> Item {
    let title = format!("in the {} script", note.side);
    let mut help = None;
    let snippets = match &note.location {
        Some(l) => match Snippet::of(&title, "here", l, files) {
            Some(s) => vec![s],
            None => {
                help = Some(format!("{}:{}:{}", l.file, l.line, l.column));
                Vec::new()
            }
        },
        None => Vec::new(),
    };
    Item {
        code: None,
        message: format!("{} script: {}", note.side, note.message),
        severity: Severity::Warning,
        help,
        snippets,
    }
}

/// The whole report; `files` are the scripts the locations point into (for the snippets).
pub fn render(report: &Report, files: &[&SourceFile], style: Style) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}",
        style.verdict(report.verdict, verdict_words(report.verdict))
    );
    if let Some(effective) = report.effective_verdict {
        let _ = writeln!(
            out,
            "with the suppressed findings left out: {}",
            style.verdict(effective, verdict_words(effective))
        );
    }
    findings(&mut out, report, files, style);
    state_table(&mut out, report);
    for (kind, title) in [
        (NoteKind::Warning, "warnings"),
        (NoteKind::Assumption, "assumptions"),
    ] {
        let notes: Vec<&NoteReport> = report.notes.iter().filter(|n| n.kind == kind).collect();
        if notes.is_empty() {
            continue;
        }
        heading(&mut out, &format!("{title}:"));
        for note in notes {
            match kind {
                NoteKind::Warning => diagnostic(&mut out, style, &note_item(note, files)),
                // Assumptions are many and seldom wrong: one line each.
                NoteKind::Assumption => {
                    let at = note
                        .location
                        .as_ref()
                        .map(|l| format!("{}:{}:{}: ", l.file, l.line, l.column))
                        .unwrap_or_else(|| format!("{} script: ", note.side));
                    let _ = writeln!(out, "  {at}{}", note.message);
                }
            }
        }
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}
