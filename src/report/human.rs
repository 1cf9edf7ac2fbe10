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
    /// Every finding with its snippets; otherwise a fully compatible finding is one line.
    pub verbose: bool,
}

impl Style {
    pub const PLAIN: Style = Style {
        colour: false,
        width: 100,
        verbose: false,
    };

    /// Colour only on a terminal, and never when `NO_COLOR` is set (https://no-color.org).
    pub fn detect() -> Style {
        use std::io::IsTerminal;
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style {
            colour: std::io::stdout().is_terminal() && !no_color,
            width: Style::detect_width(),
            verbose: false,
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
            .with_word_separator(WRAP_AT)
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

/// Where wrapped text may break: at spaces only. Unicode's line-break rules would also break
/// after a hyphen or a slash inside an option key or a path, and cost far more to apply.
const WRAP_AT: textwrap::WordSeparator = textwrap::WordSeparator::AsciiSpace;

fn words(text: &str) -> String {
    text.replace('_', " ")
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

/// A finding: a fully compatible one (not suppressed) is one line, `✓ rule (file:line):
/// message`, unless the style is verbose; any other is a diagnostic with its snippets.
/// `affects` names the queries a shared finding is about.
fn finding(out: &mut String, style: Style, files: &[&SourceFile], f: &Finding, affects: &str) {
    end_one_liners(out);
    if style.verbose || f.verdict != Verdict::FullyCompatible || f.suppressed.is_some() {
        let mut item = finding_item(f, files, style.width);
        if !affects.is_empty() {
            item.message = format!("{} (affects {affects})", item.message);
        }
        diagnostic(out, style, &item);
        return;
    }
    let mut place: Vec<String> = f
        .new
        .as_ref()
        .or(f.old.as_ref())
        .map(|l| format!("{}:{}", l.file, l.line))
        .into_iter()
        .collect();
    if !affects.is_empty() {
        place.push(format!("affects {affects}"));
    }
    let place = if place.is_empty() {
        String::new()
    } else {
        format!(" ({})", place.join("; "))
    };
    let line = format!("  ✓ {}{place}: {}", f.rule, what(&f.message));
    let _ = writeln!(out, "{}", cut(&line, style.width));
}

/// What a message says changed: the text before its first `: ` outside parentheses (the
/// reason after it is for `-v`).
fn what(message: &str) -> &str {
    let mut depth = 0usize;
    for (i, c) in message.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            ':' if depth == 0 && message[i + 1..].starts_with(' ') => return &message[..i],
            _ => {}
        }
    }
    message
}

/// A blank line after one-line findings, before what follows them.
fn end_one_liners(out: &mut String) {
    // From the end: a report of thousands of queries calls this once per operator.
    let last = out.trim_end_matches('\n').rsplit('\n').next();
    if out.ends_with('\n') && !out.ends_with("\n\n") && last.is_some_and(|l| l.starts_with("  ✓ "))
    {
        out.push('\n');
    }
}

/// One line cut to the width, ending with `…` when something was left out.
fn cut(line: &str, width: usize) -> String {
    if line.chars().count() <= width {
        return line.to_string();
    }
    let mut cut: String = line.chars().take(width.saturating_sub(1)).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    cut
}

fn query_name(query: &QueryReport) -> String {
    match (&query.old_name, &query.new_name) {
        (Some(o), Some(n)) if o != n => format!("{o} → {n}"),
        _ => query.name.clone(),
    }
}

/// The operator, its Flink node when the line has room for it, its status and verdict.
fn operator_line(out: &mut String, op: &OperatorReport, width: usize) {
    let tail = format!("({}): {}", op.status.words(), words(op.verdict.name()));
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
            finding(out, style, files, &once, &names.join(", "));
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
            query.status.words(),
            words(query.verdict.name())
        );
        let own: Vec<&Finding> = query
            .findings
            .iter()
            .filter(|f| !is_shared(query, f))
            .collect();
        if !own.is_empty() {
            let _ = writeln!(out);
        }
        for f in own {
            finding(out, style, files, f, "");
        }
        for op in &query.operators {
            end_one_liners(out);
            operator_line(out, op, style.width);
            if !op.findings.is_empty() {
                let _ = writeln!(out);
            }
            for f in &op.findings {
                finding(out, style, files, f, "");
            }
        }
        // Source tables are listed only when their DDL changed something.
        for source in query
            .sources
            .iter()
            .filter(|s| s.findings.iter().any(|f| !is_shared(query, f)))
        {
            end_one_liners(out);
            let _ = writeln!(
                out,
                "  source table {} ({}): {}\n",
                source.table.as_deref().unwrap_or_default(),
                source.status.words(),
                words(source.verdict.name())
            );
            for f in source.findings.iter().filter(|f| !is_shared(query, f)) {
                finding(out, style, files, f, "");
            }
        }
    }
}

/// One row per piece of state, each with one fate: query, operator, the aggregate (or the
/// operator's whole state). An incompatible job restores nothing: every operator's state is
/// shown as it is under that verdict (its old state discarded, its new state starting empty).
fn state_table(out: &mut String, report: &Report, width: usize) {
    let incompatible = report.verdict == Verdict::Incompatible;
    // Whether the job's verdict overrode what some operator's own verdict left of its state.
    let mut overridden = false;
    let mut rows: Vec<[String; 4]> = Vec::new();
    for query in reading_order(report) {
        let mut name = query_name(query);
        for op in &query.operators {
            let mut kind = op.kind.clone();
            let s = if incompatible && op.state.operator != "discarded" {
                overridden |= op.status != QueryStatus::Added;
                op.state.clone().under(Verdict::Incompatible)
            } else {
                op.state.clone()
            };
            for (item, fate) in one_fate_each(&s) {
                rows.push([
                    std::mem::take(&mut name),
                    std::mem::take(&mut kind),
                    item,
                    fate,
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
    if overridden {
        let options = textwrap::Options::new(width)
            .initial_indent("  ")
            .subsequent_indent("  ")
            .word_separator(WRAP_AT);
        let text =
            "the job is incompatible: it cannot restore from the savepoint, so no state is reused";
        let _ = writeln!(out, "{}\n", textwrap::fill(text, options));
    }
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

/// The operator's state items, each once with one fate (an item both discarded and starting
/// anew, as under an incompatible verdict, is discarded), in the order they are listed; the
/// operator's whole state when it has no items.
fn one_fate_each(s: &crate::report::StateFate) -> Vec<(String, String)> {
    let lists = [
        ("reused", &s.reused),
        ("starts empty", &s.starts_empty),
        ("discarded", &s.discarded),
        ("undetermined", &s.undetermined),
    ];
    let rank = |fate: &str| match fate {
        "discarded" => 3,
        "undetermined" => 2,
        "starts empty" => 1,
        _ => 0,
    };
    let mut items: Vec<(String, &str)> = Vec::new();
    for (fate, list) in lists {
        for item in list.iter() {
            match items.iter_mut().find(|(i, _)| i == item) {
                Some(seen) if rank(fate) > rank(seen.1) => seen.1 = fate,
                Some(_) => {}
                None => items.push((item.clone(), fate)),
            }
        }
    }
    if items.is_empty() {
        return vec![("(all of its state)".into(), words(&s.operator))];
    }
    items.into_iter().map(|(i, f)| (i, f.to_string())).collect()
}

fn note_item(note: &NoteReport, files: &[&SourceFile], width: usize) -> Item {
    // A note both scripts share points at the new one.
    let title = match note.side {
        "both" => "in the new script".to_string(),
        _ => format!("in the {}", note.origin()),
    };
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
    state_table(&mut out, report, style.width);
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
                        .map(|l| match note.side {
                            "both" => {
                                format!("{}:{}:{} (both scripts): ", l.file, l.line, l.column)
                            }
                            _ => format!("{}:{}:{}: ", l.file, l.line, l.column),
                        })
                        .unwrap_or_else(|| format!("{}: ", note.origin()));
                    let line = format!("{at}{}", note.message);
                    let options = textwrap::Options::new(style.width)
                        .initial_indent("  ")
                        .subsequent_indent("      ")
                        .word_separator(WRAP_AT)
                        .break_words(false);
                    let _ = writeln!(out, "{}", textwrap::fill(&line, options));
                }
            }
        }
    }
    out.truncate(out.trim_end().len());
    fit(&out, style.width)
}
