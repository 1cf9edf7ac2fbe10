//! The report for a person at a terminal: the verdict first, then each finding with its rule
//! and the SQL it is about, the fate of the state, the warnings and assumptions.

use super::{Finding, Location, QueryStatus, Report};
use crate::verdict::Verdict;
use std::fmt::Write;

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

fn snippet(out: &mut String, side: &str, location: &Option<Location>) {
    if let Some(l) = location {
        let text: String = l.text.split_whitespace().collect::<Vec<_>>().join(" ");
        let text = if text.chars().count() > 100 {
            format!("{}…", text.chars().take(100).collect::<String>())
        } else {
            text
        };
        let _ = writeln!(
            out,
            "        {side} {}:{}:{}  {text}",
            l.file, l.line, l.column
        );
    }
}

fn finding(out: &mut String, f: &Finding) {
    let _ = writeln!(out, "    [{}] {}: {}", f.verdict, f.rule, f.message);
    if let Some(why) = &f.derived {
        let _ = writeln!(out, "        derived rule: {why}");
    }
    snippet(out, "old", &f.old);
    snippet(out, "new", &f.new);
}

pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", verdict_words(report.verdict));
    for query in &report.queries {
        let name = match (&query.old_name, &query.new_name) {
            (Some(o), Some(n)) if o != n => format!("{o} → {n}"),
            _ => query.name.clone(),
        };
        let status = match query.status {
            QueryStatus::Unchanged => "unchanged",
            QueryStatus::Changed => "changed",
            QueryStatus::Added => "added",
            QueryStatus::Removed => "removed",
        };
        let _ = writeln!(out, "\nquery {name} ({status}): {}", query.verdict);
        for f in &query.findings {
            finding(&mut out, f);
        }
        for op in &query.operators {
            let _ = writeln!(out, "  {} ({}): {}", op.kind, op.flink_node, op.verdict);
            for f in &op.findings {
                finding(&mut out, f);
            }
            let s = &op.state;
            let mut parts = Vec::new();
            for (label, items) in [
                ("reused", &s.reused),
                ("starts empty", &s.starts_empty),
                ("discarded", &s.discarded),
                ("undetermined", &s.undetermined),
            ] {
                if !items.is_empty() {
                    parts.push(format!("{label}: {}", items.join(", ")));
                }
            }
            let _ = writeln!(
                out,
                "    state: {}{}",
                s.operator,
                if parts.is_empty() {
                    String::new()
                } else {
                    format!(" — {}", parts.join("; "))
                }
            );
        }
    }
    if !report.notes.is_empty() {
        let _ = writeln!(out);
        for note in &report.notes {
            let kind = match note.kind {
                crate::notes::NoteKind::Warning => "warning",
                crate::notes::NoteKind::Assumption => "assumption",
            };
            let at = note
                .location
                .as_ref()
                .map(|l| format!(" ({}:{}:{})", l.file, l.line, l.column))
                .unwrap_or_default();
            let _ = writeln!(out, "{kind} [{}]{at}: {}", note.side, note.message);
        }
    }
    out
}
