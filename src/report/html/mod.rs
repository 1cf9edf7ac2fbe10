//! The report as one self-contained HTML page (`--format html`), for a CI artifact or a link
//! in a pull request: the verdict, each query with its operator graph drawn as inline SVG
//! (every piece of state coloured by its fate, the deciding rule on hover) and its findings,
//! then the old and the new script side by side with the clauses the findings point at marked.
//! No network: the style and the small script are inline, and the page's Content Security
//! Policy forbids loading anything. Every text from the scripts is escaped.

mod code;
pub mod fate;
mod graph;

use super::{query_title, same_finding, Finding, NoteReport, QueryReport, QueryStatus, Report};
use crate::notes::NoteKind;
use crate::report::human::verdict_words;
use crate::report::jobs::{Batch, Outcome};
use crate::source::SourceFile;
use crate::verdict::Verdict;
use code::Highlight;
use fate::Fate;
use std::fmt::Write;

const STYLE: &str = include_str!("style.css");
const SCRIPT: &str = include_str!("script.js");

/// Text made safe for HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters other than tab and line breaks are not valid in HTML.
            c if c.is_control() && c != '\n' && c != '\t' && c != '\r' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

fn words(text: &str) -> String {
    text.replace(['_', ':'], " ")
}

fn badge(verdict: Verdict) -> String {
    format!(
        "<span class=\"badge v-{}\">{}</span>",
        verdict.name(),
        words(verdict.name())
    )
}

/// A whole page around `body`.
fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>
<html lang=\"en\">
<head>
<meta charset=\"utf-8\">
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">
<meta name=\"color-scheme\" content=\"light dark\">
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">
<meta name=\"generator\" content=\"flink-compat {}\">
<title>{}</title>
<style>
{STYLE}</style>
</head>
<body>
{body}<footer><p>Made by flink-compat {} — a self-contained page: nothing is loaded from the network.</p></footer>
<script>
{SCRIPT}</script>
</body>
</html>
",
        env!("CARGO_PKG_VERSION"),
        escape(title),
        env!("CARGO_PKG_VERSION"),
    )
}

/// The verdict in a banner: its name and what it means.
fn verdict_banner(out: &mut String, verdict: Verdict, effective: Option<Verdict>) {
    let words_of = |v: Verdict| {
        let text = verdict_words(v);
        text.split_once(": ").map_or(text, |(_, rest)| rest)
    };
    let _ = writeln!(
        out,
        "<div class=\"verdict v-{}\" role=\"status\"><strong>{}</strong> <span>{}</span></div>",
        verdict.name(),
        escape(&words(verdict.name()).to_uppercase()),
        escape(words_of(verdict))
    );
    if let Some(e) = effective.filter(|e| *e != verdict) {
        let _ = writeln!(
            out,
            "<p class=\"effective\">With the suppressed findings left out: {} {}</p>",
            badge(e),
            escape(words_of(e))
        );
    }
}

/// The legend of the graphs' colours.
fn legend(out: &mut String) {
    out.push_str("<ul class=\"legend\" aria-label=\"State on restore\">\n");
    for fate in Fate::ALL {
        let _ = writeln!(
            out,
            "<li><span class=\"pill {}\">{} {}</span> {}</li>",
            fate.class(),
            fate.symbol(),
            fate.words(),
            escape(fate.meaning())
        );
    }
    out.push_str("</ul>\n");
}

/// Ids of the page's elements: unique per job in a page of many jobs.
struct Ids<'r> {
    prefix: String,
    /// The findings shared by several queries, with those queries.
    shared: Vec<(&'r Finding, Vec<&'r QueryReport>)>,
    /// Each finding of the report with the id of the finding it is shown as (a finding shared
    /// by several queries is shown once).
    findings: Vec<(&'r Finding, String)>,
    /// The same by the finding's address.
    by_address: std::collections::HashMap<usize, String>,
}

impl<'r> Ids<'r> {
    fn new(report: &'r Report, prefix: &str) -> Ids<'r> {
        let shared = report.shared_findings();
        let mut findings: Vec<(&'r Finding, String)> = Vec::new();
        for (n, (_, f)) in report.findings_in_context().enumerate() {
            let own = format!("{prefix}f{}", n + 1);
            let id = shared
                .iter()
                .find(|(g, _)| same_finding(g, f))
                .and_then(|(g, _)| findings.iter().find(|(h, _)| std::ptr::eq(*h, *g)))
                .map_or(own, |(_, id)| id.clone());
            findings.push((f, id));
        }
        let by_address = findings
            .iter()
            .map(|(f, id)| (address(f), id.clone()))
            .collect();
        Ids {
            prefix: prefix.to_string(),
            shared,
            findings,
            by_address,
        }
    }

    fn finding(&self, f: &Finding) -> Option<String> {
        self.by_address.get(&address(f)).cloned()
    }
}

/// A finding's identity: the report's findings are told apart by where they are.
fn address(f: &Finding) -> usize {
    std::ptr::from_ref(f) as usize
}

fn query_display(query: &QueryReport) -> String {
    match (&query.old_name, &query.new_name) {
        (Some(o), Some(n)) if o != n => format!("{o} → {n}"),
        _ => query.name.clone(),
    }
}

/// The queries in reading order: changed ones first, the worst verdict first; unchanged last
/// (as the human report orders them).
fn reading_order(report: &Report) -> Vec<(usize, &QueryReport)> {
    let mut queries: Vec<(usize, &QueryReport)> = report.queries.iter().enumerate().collect();
    queries.sort_by_key(|(_, q)| {
        (
            q.status == QueryStatus::Unchanged,
            std::cmp::Reverse(q.verdict),
        )
    });
    queries
}

/// Where a location is, linked to its anchor when the script is shown.
fn place(side: &str, location: &super::Location, anchor: Option<String>) -> String {
    let at = format!(
        "{}:{}:{}",
        escape(&location.file),
        location.line,
        location.column
    );
    match anchor {
        Some(a) => format!("{side} <a href=\"#{}\">{at}</a>", escape(&a)),
        None => format!("{side} {at}"),
    }
}

struct Job<'r> {
    report: &'r Report,
    old: Option<&'r SourceFile>,
    new: Option<&'r SourceFile>,
    ids: Ids<'r>,
}

impl Job<'_> {
    /// The anchor of a finding's clause in one script, when that script is shown.
    fn anchor(&self, id: &str, side: &str) -> Option<String> {
        let shown = match side {
            "old" => self.old.is_some(),
            _ => self.new.is_some(),
        };
        shown.then(|| format!("{id}-{side}"))
    }

    fn finding(&self, out: &mut String, f: &Finding, on: Option<&str>, affects: &[&QueryReport]) {
        let id = self.ids.finding(f).unwrap_or_default();
        let suppressed = if f.suppressed.is_some() {
            " suppressed"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "<li class=\"finding v-{}{suppressed}\" id=\"{}\" data-f=\"{}\">",
            f.verdict.name(),
            escape(&id),
            escape(&id)
        );
        let _ = write!(
            out,
            "<p class=\"finding-head\">{} <code class=\"rule\">{}</code>",
            badge(f.verdict),
            escape(&f.rule)
        );
        if let Some(on) = on {
            let _ = write!(out, " <span class=\"on\">on {}</span>", escape(on));
        }
        out.push_str("</p>\n");
        let _ = writeln!(out, "<p class=\"message\">{}</p>", escape(&f.message));
        if !affects.is_empty() {
            let names: Vec<String> = affects
                .iter()
                .map(|q| escape(&query_title(&q.name)))
                .collect();
            let _ = writeln!(
                out,
                "<p class=\"affects\">Affects {}.</p>",
                names.join(", ")
            );
        }
        let mut places = Vec::new();
        if let Some(l) = &f.old {
            places.push(place("old", l, self.anchor(&id, "old")));
        }
        if let Some(l) = &f.new {
            places.push(place("new", l, self.anchor(&id, "new")));
        }
        if !places.is_empty() {
            let _ = writeln!(
                out,
                "<p class=\"where\">In the SQL: {}</p>",
                places.join(" · ")
            );
        }
        if let Some(mode) = f.failure_mode {
            let _ = writeln!(
                out,
                "<p class=\"note\">Failure mode on this engine: {}</p>",
                escape(&words(mode.name()))
            );
        }
        if let Some(why) = &f.derived {
            let _ = writeln!(out, "<p class=\"note\">Derived rule: {}</p>", escape(why));
        }
        if let Some(s) = &f.suppressed {
            let _ = writeln!(
                out,
                "<p class=\"note\">Suppressed ({}): {}</p>",
                escape(&s.origin),
                escape(&s.reason)
            );
        }
        out.push_str("</li>\n");
    }

    fn shared(&self, out: &mut String, h: &str) {
        let shared = &self.ids.shared;
        if shared.is_empty() {
            return;
        }
        let _ = writeln!(
            out,
            "<section class=\"shared\" aria-labelledby=\"{p}shared\">\n<{h} id=\"{p}shared\">The job and its sources</{h}>\n<ol class=\"findings\">",
            p = self.ids.prefix
        );
        for (f, queries) in shared {
            self.finding(out, f, None, queries);
        }
        out.push_str("</ol>\n</section>\n");
    }

    fn query(&self, out: &mut String, n: usize, query: &QueryReport, h: &str) {
        let id = format!("{}q{}", self.ids.prefix, n + 1);
        let _ = writeln!(
            out,
            "<section class=\"query v-{}\" id=\"{id}\" aria-labelledby=\"{id}-h\">\n<{h} id=\"{id}-h\">{} <span class=\"status\">({})</span> {}</{h}>",
            query.verdict.name(),
            escape(&query_title(&query_display(query))),
            query.status.words(),
            badge(query.verdict)
        );
        let finding_id = |f: &Finding| self.ids.finding(f);
        let _ = writeln!(
            out,
            "<figure class=\"graph-box\">\n<div class=\"scroll\">\n{}</div>\n<figcaption>Sources → stateful operators → sink. Hover a piece of state for the rule that decided its fate; click it for the finding.</figcaption>\n</figure>",
            graph::svg(query, &format!("{id}-g"), &finding_id)
        );
        self.state_table(out, query);
        let is_shared = |f: &Finding| {
            self.ids.shared.iter().any(|(g, queries)| {
                queries.iter().any(|q| std::ptr::eq(*q, query)) && same_finding(g, f)
            })
        };
        let mut items = String::new();
        for f in query.findings.iter().filter(|f| !is_shared(f)) {
            self.finding(&mut items, f, None, &[]);
        }
        for op in &query.operators {
            for f in &op.findings {
                self.finding(&mut items, f, Some(&words(&op.kind)), &[]);
            }
        }
        for source in &query.sources {
            let on = format!(
                "source table {}",
                source.table.as_deref().unwrap_or_default()
            );
            for f in source.findings.iter().filter(|f| !is_shared(f)) {
                self.finding(&mut items, f, Some(&on), &[]);
            }
        }
        if items.is_empty() {
            out.push_str("<p class=\"quiet\">No findings.</p>\n");
        } else {
            let _ = write!(out, "<ol class=\"findings\">\n{items}</ol>\n");
        }
        out.push_str("</section>\n");
    }

    /// The graph's state as a table: the same facts for a screen reader or a text search.
    fn state_table(&self, out: &mut String, query: &QueryReport) {
        let mut rows = String::new();
        for op in query.sources.iter().chain(&query.operators) {
            let name = match &op.table {
                Some(t) => format!("source {t}"),
                None => words(&op.kind),
            };
            for item in fate::items(query, op) {
                let rules: Vec<String> = item
                    .decided_by
                    .iter()
                    .map(|f| match self.ids.finding(f) {
                        Some(id) => format!(
                            "<a href=\"#{}\"><code>{}</code></a>",
                            escape(&id),
                            escape(&f.rule)
                        ),
                        None => format!("<code>{}</code>", escape(&f.rule)),
                    })
                    .collect();
                let _ = writeln!(
                    rows,
                    "<tr><td>{}</td><td><code>{}</code></td><td><span class=\"pill {}\">{} {}</span></td><td>{}{}</td></tr>",
                    escape(&name),
                    escape(&item.label),
                    item.fate.class(),
                    item.fate.symbol(),
                    item.fate.words(),
                    escape(&item.why),
                    if rules.is_empty() {
                        String::new()
                    } else {
                        format!(": {}", rules.join(", "))
                    }
                );
            }
        }
        if rows.is_empty() {
            return;
        }
        let _ = write!(
            out,
            "<details class=\"state\">\n<summary>State on restore, as a table</summary>\n<table>\n<thead><tr><th scope=\"col\">operator</th><th scope=\"col\">state</th><th scope=\"col\">on restore</th><th scope=\"col\">decided by</th></tr></thead>\n<tbody>\n{rows}</tbody>\n</table>\n</details>\n"
        );
    }

    /// Every clause a finding or a note points at, per script.
    fn highlights(&self) -> (Vec<Highlight>, Vec<Highlight>) {
        let (mut old, mut new) = (Vec::new(), Vec::new());
        let mut anchored: Vec<String> = Vec::new();
        let mut anchor = |id: String| {
            (!anchored.contains(&id)).then(|| {
                anchored.push(id.clone());
                id
            })
        };
        for (f, id) in &self.ids.findings {
            for (side, location, list) in [("old", &f.old, &mut old), ("new", &f.new, &mut new)] {
                let Some(l) = location else { continue };
                list.push(Highlight {
                    start: l.offset,
                    end: l.offset + l.length,
                    class: format!("v-{}", f.verdict.name()),
                    group: id.clone(),
                    anchor: anchor(format!("{id}-{side}")),
                    title: format!(
                        "{} ({}): {}",
                        f.rule,
                        words(f.verdict.name()),
                        graph::cut(&f.message, 100)
                    ),
                });
            }
        }
        for (n, note) in self.report.notes.iter().enumerate() {
            let Some(l) = &note.location else { continue };
            let id = format!("{}n{}", self.ids.prefix, n + 1);
            let list = if note.side == "old" {
                &mut old
            } else {
                &mut new
            };
            list.push(Highlight {
                start: l.offset,
                end: l.offset + l.length,
                class: "note".into(),
                group: id.clone(),
                anchor: anchor(format!("{id}-at")),
                title: format!("{}: {}", note_kind(note), note.message),
            });
        }
        (old, new)
    }

    fn scripts(&self, out: &mut String, h: &str) {
        if self.old.is_none() && self.new.is_none() {
            return;
        }
        let p = &self.ids.prefix;
        let (old_marks, new_marks) = self.highlights();
        let _ = writeln!(
            out,
            "<section class=\"scripts\" aria-labelledby=\"{p}scripts\">\n<{h} id=\"{p}scripts\">The scripts</{h}>\n<div class=\"side-by-side\">"
        );
        for (side, file, marks) in [("old", self.old, &old_marks), ("new", self.new, &new_marks)] {
            let Some(file) = file else { continue };
            let _ = writeln!(
                out,
                "<div class=\"script\">\n<p class=\"script-name\">{side}: <code>{}</code></p>",
                escape(&file.name)
            );
            code::render(out, file, &format!("{p}{side}"), marks);
            out.push_str("</div>\n");
        }
        out.push_str("</div>\n</section>\n");
    }

    fn notes(&self, out: &mut String, h: &str) {
        if self.report.notes.is_empty() {
            return;
        }
        let p = &self.ids.prefix;
        let _ = writeln!(
            out,
            "<section class=\"notes\" aria-labelledby=\"{p}notes\">\n<{h} id=\"{p}notes\">Warnings and assumptions</{h}>\n<ul>"
        );
        for (n, note) in self.report.notes.iter().enumerate() {
            let id = format!("{p}n{}", n + 1);
            let at = match &note.location {
                Some(l) => {
                    let shown = if note.side == "old" {
                        self.old.is_some()
                    } else {
                        self.new.is_some()
                    };
                    format!(" ({})", place("at", l, shown.then(|| format!("{id}-at"))))
                }
                None => String::new(),
            };
            let _ = writeln!(
                out,
                "<li class=\"{}\" id=\"{id}\" data-f=\"{id}\"><strong>{}</strong> in the {}: {}{at}</li>",
                note_kind(note),
                note_kind(note),
                escape(&note.origin()),
                escape(&note.message)
            );
        }
        out.push_str("</ul>\n</section>\n");
    }

    /// The job's report; headings from level `level` (1 for a page of its own).
    fn body(&self, out: &mut String, level: usize) {
        let h = format!("h{}", level + 1);
        let r = self.report;
        let _ = writeln!(
            out,
            "<dl class=\"meta\"><dt>old</dt><dd><code>{}</code></dd><dt>new</dt><dd><code>{}</code></dd><dt>engine</dt><dd><code>{}</code></dd></dl>",
            escape(&r.old_file),
            escape(&r.new_file),
            escape(&r.engine)
        );
        let p = &self.ids.prefix;
        // A table of the queries when there are several to find one's way among.
        if r.queries.len() > 1 {
            let _ = writeln!(
                out,
                "<nav aria-labelledby=\"{p}toc\"><{h} id=\"{p}toc\">Queries</{h}>\n<table class=\"queries\"><thead><tr><th scope=\"col\">query</th><th scope=\"col\">status</th><th scope=\"col\">verdict</th></tr></thead><tbody>"
            );
            for (n, q) in reading_order(r) {
                let _ = writeln!(
                    out,
                    "<tr><td><a href=\"#{p}q{}\">{}</a></td><td>{}</td><td>{}</td></tr>",
                    n + 1,
                    escape(&query_display(q)),
                    q.status.words(),
                    badge(q.verdict)
                );
            }
            out.push_str("</tbody></table>\n</nav>\n");
        }
        self.shared(out, &h);
        for (n, q) in reading_order(r) {
            self.query(out, n, q, &h);
        }
        self.scripts(out, &h);
        self.notes(out, &h);
    }
}

fn note_kind(note: &NoteReport) -> &'static str {
    match note.kind {
        NoteKind::Warning => "warning",
        NoteKind::Assumption => "assumption",
    }
}

/// The old and the new script among `files` (by the report's file names; the first and the
/// last when both sides have one name).
fn sides<'f>(
    report: &Report,
    files: &[&'f SourceFile],
) -> (Option<&'f SourceFile>, Option<&'f SourceFile>) {
    let old = files.iter().find(|f| f.name == report.old_file).copied();
    let new = files
        .iter()
        .rev()
        .find(|f| f.name == report.new_file)
        .copied();
    (old, new)
}

fn job_section(
    out: &mut String,
    report: &Report,
    files: &[&SourceFile],
    prefix: &str,
    level: usize,
) {
    let (old, new) = sides(report, files);
    let job = Job {
        report,
        old,
        new,
        ids: Ids::new(report, prefix),
    };
    job.body(out, level);
}

/// The page of one check; `files` are the scripts the locations point into.
pub fn render(report: &Report, files: &[&SourceFile]) -> String {
    let mut body = String::from("<main>\n<header>\n<h1>flink-compat report</h1>\n");
    verdict_banner(&mut body, report.verdict, report.effective_verdict);
    legend(&mut body);
    body.push_str("</header>\n");
    job_section(&mut body, report, files, "", 1);
    body.push_str("</main>\n");
    page(
        &format!(
            "flink-compat: {} — {}",
            words(report.verdict.name()),
            report.new_file
        ),
        &body,
    )
}

/// The page of a run over many jobs: the run's verdict, a table of the jobs, then each job.
pub fn render_batch(batch: &Batch) -> String {
    let mut body = String::from("<main>\n<header>\n<h1>flink-compat report</h1>\n");
    let effective = batch.effective_verdict();
    verdict_banner(&mut body, batch.verdict(), Some(effective));
    legend(&mut body);
    body.push_str("</header>\n");
    let _ = writeln!(
        body,
        "<nav aria-labelledby=\"jobs\"><h2 id=\"jobs\">{} jobs</h2>\n<table class=\"jobs\"><thead><tr><th scope=\"col\">job</th><th scope=\"col\">verdict</th></tr></thead><tbody>",
        batch.jobs.len()
    );
    for (n, job) in batch.jobs.iter().enumerate() {
        let verdict = match job.verdict() {
            Some(v) => badge(v),
            None => escape(job.words()),
        };
        let _ = writeln!(
            body,
            "<tr><td><a href=\"#j{}\">{}</a></td><td>{verdict}</td></tr>",
            n + 1,
            escape(&super::batch::job_title(job))
        );
    }
    body.push_str("</tbody></table>\n</nav>\n");
    if !batch.warnings.is_empty() {
        body.push_str("<section class=\"notes\"><h2>Warnings</h2>\n<ul>\n");
        for w in &batch.warnings {
            let _ = writeln!(body, "<li class=\"warning\">{}</li>", escape(w));
        }
        body.push_str("</ul>\n</section>\n");
    }
    for (n, job) in batch.jobs.iter().enumerate() {
        let id = format!("j{}", n + 1);
        let _ = writeln!(
            body,
            "<article class=\"job\" id=\"{id}\" aria-labelledby=\"{id}-h\">\n<h2 id=\"{id}-h\">{}</h2>",
            escape(&super::batch::job_title(job))
        );
        match &job.outcome {
            Outcome::Checked(report) => {
                verdict_banner(&mut body, report.verdict, report.effective_verdict);
                let files: Vec<&SourceFile> =
                    job.job.old.iter().chain(job.job.new.iter()).collect();
                job_section(&mut body, report, &files, &format!("{id}-"), 2);
            }
            Outcome::Failed(error) => {
                let _ = writeln!(
                    body,
                    "<div class=\"verdict error\" role=\"status\"><strong>ERROR</strong> <span>the job could not be checked</span></div>\n<pre class=\"error-text\">{}</pre>",
                    escape(&super::batch::error_text(error))
                );
            }
            Outcome::NotChecked => {
                let _ = writeln!(body, "<p class=\"quiet\">{}</p>", escape(job.words()));
            }
        }
        body.push_str("</article>\n");
    }
    body.push_str("</main>\n");
    page(
        &format!(
            "flink-compat: {} — {} jobs",
            words(batch.verdict().name()),
            batch.jobs.len()
        ),
        &body,
    )
}

/// The page of an error (the scripts could not be read or parsed, bad usage).
pub fn render_error(error: &crate::error::Error) -> String {
    let body = format!(
        "<main>\n<header>\n<h1>flink-compat report</h1>\n<div class=\"verdict error\" role=\"status\"><strong>ERROR</strong> <span>no verdict: the check could not run</span></div>\n</header>\n<pre class=\"error-text\">{}</pre>\n</main>\n",
        escape(&super::batch::error_text(error))
    );
    page("flink-compat: error", &body)
}
