//! The report for a person: the verdict in one line, then per query and operator the findings
//! (rule id, message, the clause in the old and the new script as miette snippets), the state
//! table, and the warnings and assumptions. Without colour (not a terminal, or `NO_COLOR`) the
//! output is plain and deterministic.

use super::snippet::{severity, Item, Snippet};
use super::{
    query_title, same_finding, Finding, NoteReport, OperatorReport, QueryReport, QueryStatus,
    Report,
};
use crate::notes::NoteKind;
use crate::source::SourceFile;
use crate::verdict::Verdict;
use miette::{GraphicalReportHandler, GraphicalTheme, Severity};
use std::fmt::Write;

/// The narrowest width drawn; a narrower terminal gets lines this long.
const MIN_WIDTH: usize = 40;

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
            width: Style::detect_width(),
        }
    }

    /// The width of the terminal on standard output, else `COLUMNS`, else 100 columns.
    pub fn detect_width() -> usize {
        let terminal = terminal_size::terminal_size_of(std::io::stdout())
            .map(|(terminal_size::Width(w), _)| usize::from(w));
        let columns = || {
            std::env::var("COLUMNS")
                .ok()
                .and_then(|c| c.trim().parse::<usize>().ok())
        };
        terminal
            .or_else(columns)
            .filter(|&w| w > 0)
            .map_or(Style::PLAIN.width, |w| w.max(MIN_WIDTH))
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

fn finding_item(f: &Finding, files: &[&SourceFile], width: usize) -> Item {
    let mut snippets = Vec::new();
    let mut unshown = Vec::new();
    for (title, label, location) in [
        ("in the old script", "old", &f.old),
        ("in the new script", "new", &f.new),
    ] {
        let Some(location) = location else { continue };
        match Snippet::of(title, label, location, files, width) {
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

/// The operator, its Flink node when the line has room for it, its status and verdict.
fn operator_line(out: &mut String, op: &OperatorReport, width: usize) {
    let tail = format!(
        "({}): {}",
        status_words(op.status),
        words(op.verdict.name())
    );
    let full = format!("  {} [{}] {tail}", op.kind, op.flink_node);
    let line = if full.chars().count() <= width {
        full
    } else {
        format!("  {} {tail}", op.kind)
    };
    let _ = writeln!(out, "{line}");
}

/// Cuts every line to the width (a line of SQL in a snippet can be longer than any terminal).
fn fit(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        // Coloured lines are left whole: their escapes are not columns.
        if line.chars().count() > width && !line.contains('\u{1b}') {
            out.extend(line.chars().take(width.saturating_sub(1)));
            out.push('…');
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// The queries in reading order: changed ones first, the worst verdict first; unchanged last.
fn reading_order(report: &Report) -> Vec<&QueryReport> {
    let mut queries: Vec<&QueryReport> = report.queries.iter().collect();
    queries.sort_by_key(|q| {
        (
            q.status == QueryStatus::Unchanged,
            std::cmp::Reverse(q.verdict),
        )
    });
    queries
}

fn findings(out: &mut String, report: &Report, files: &[&SourceFile], style: Style) {
    // A job-level or source finding shared by several queries: once, naming them.
    let shared = report.shared_findings();
    if !shared.is_empty() {
        let _ = writeln!(out, "\nthe job and its sources:\n");
        for (f, queries) in &shared {
            let names: Vec<String> = queries.iter().map(|q| query_title(&q.name)).collect();
            // Shown at its clause in the new script: in the old one each query has its own.
            let mut once = (*f).clone();
            if once.new.is_some() {
                once.old = None;
            }
            let mut item = finding_item(&once, files, style.width);
            item.message = format!("{} (affects {})", item.message, names.join(", "));
            diagnostic(out, style, &item);
        }
        out.truncate(out.trim_end().len());
        out.push('\n');
    }
    let is_shared = |query: &QueryReport, f: &Finding| {
        shared.iter().any(|(g, queries)| {
            queries.iter().any(|q| std::ptr::eq(*q, query)) && same_finding(g, f)
        })
    };
    for query in reading_order(report) {
        let _ = writeln!(
            out,
            "\n{} ({}): {}",
            super::query_title(&query_name(query)),
            status_words(query.status),
            words(query.verdict.name())
        );
        if !query.findings.is_empty() {
            let _ = writeln!(out);
        }
        for f in query.findings.iter().filter(|f| !is_shared(query, f)) {
            diagnostic(out, style, &finding_item(f, files, style.width));
        }
        for op in &query.operators {
            operator_line(out, op, style.width);
            if !op.findings.is_empty() {
                let _ = writeln!(out);
            }
            for f in &op.findings {
                diagnostic(out, style, &finding_item(f, files, style.width));
            }
        }
        // Source tables are listed only when their DDL changed something.
        for source in query
            .sources
            .iter()
            .filter(|s| s.findings.iter().any(|f| !is_shared(query, f)))
        {
            let _ = writeln!(
                out,
                "  source table {} ({}): {}\n",
                source.table.as_deref().unwrap_or_default(),
                status_words(source.status),
                words(source.verdict.name())
            );
            for f in source.findings.iter().filter(|f| !is_shared(query, f)) {
                diagnostic(out, style, &finding_item(f, files, style.width));
            }
        }
    }
}

/// One row per piece of state: query, operator, the aggregate (or the operator's whole state).
fn state_table(out: &mut String, report: &Report) {
    let mut rows: Vec<[String; 4]> = Vec::new();
    for query in reading_order(report) {
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

fn note_item(note: &NoteReport, files: &[&SourceFile], width: usize) -> Item {
    let title = format!("in the {}", note.origin());
    let mut help = None;
    let snippets = match &note.location {
        Some(l) => match Snippet::of(&title, "here", l, files, width) {
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
        message: format!("{}: {}", note.origin(), note.message),
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
                NoteKind::Warning => {
                    diagnostic(&mut out, style, &note_item(note, files, style.width))
                }
                // Assumptions are many and seldom wrong: one line each.
                NoteKind::Assumption => {
                    let at = note
                        .location
                        .as_ref()
                        .map(|l| format!("{}:{}:{}: ", l.file, l.line, l.column))
                        .unwrap_or_else(|| format!("{}: ", note.origin()));
                    let line = format!("{at}{}", note.message);
                    let options = textwrap::Options::new(style.width)
                        .initial_indent("  ")
                        .subsequent_indent("      ")
                        .break_words(false);
                    let _ = writeln!(out, "{}", textwrap::fill(&line, options));
                }
            }
        }
    }
    out.truncate(out.trim_end().len());
    fit(&out, style.width)
}
