//! A script as numbered lines of escaped SQL with the clauses the findings and notes point at
//! marked: where several marks overlap, the innermost (the most specific clause) gives the
//! colour and every one of them is named in the tooltip.

use super::escape;
use crate::source::SourceFile;
use std::fmt::Write;

/// A marked clause of one script.
#[derive(Debug, Clone)]
pub struct Highlight {
    /// Byte range in the script.
    pub start: usize,
    pub end: usize,
    /// CSS class (the finding's verdict, or `note`).
    pub class: String,
    /// The finding (or note) it belongs to: the `data-f` the page's script follows.
    pub group: String,
    /// The id of the anchor placed at its start, once per page.
    pub anchor: Option<String>,
    pub title: String,
}

/// The nearest character boundary at or after `at`.
fn boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// The nearest character boundary at or before `at`.
fn boundary_before(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The script's lines as `<div class="line">`, each with its number, its id `{id}-L{n}`.
pub fn render(out: &mut String, file: &SourceFile, id: &str, highlights: &[Highlight]) {
    let text: &str = &file.text;
    let marks: Vec<Highlight> = highlights
        .iter()
        .map(|h| {
            let start = boundary_before(text, h.start);
            // A mark of no length still marks one character, so that it can be seen.
            let end = boundary(text, h.end.max(h.start + 1)).max(start);
            Highlight {
                start,
                end,
                ..h.clone()
            }
        })
        .collect();
    let mut marks = marks;
    marks.sort_by_key(|m| m.start);
    // The marks that reach the current line: a window over the marks by start, so that a long
    // script with many findings is not read once per mark.
    let mut next = 0;
    let mut active: Vec<&Highlight> = Vec::new();
    let _ = writeln!(
        out,
        "<div class=\"sql\" role=\"region\" aria-label=\"{}\" tabindex=\"0\">",
        escape(&file.name)
    );
    let mut line_start = 0;
    let lines: Vec<&str> = text.split('\n').collect();
    let count = lines.len();
    for (n, line) in lines.into_iter().enumerate() {
        let line_end = line_start + line.len();
        let shown_end = line_start + line.trim_end_matches('\r').len();
        let last = n + 1 == count;
        let past = if last { usize::MAX } else { line_end + 1 };
        active.retain(|m| m.end > line_start);
        while next < marks.len() && marks[next].start < past {
            active.push(&marks[next]);
            next += 1;
        }
        let _ = write!(
            out,
            "<div class=\"line\" id=\"{id}-L{}\"><span class=\"ln\" aria-hidden=\"true\">{}</span><span class=\"src\">",
            n + 1,
            n + 1
        );
        let anchors_at = |out: &mut String, at: &dyn Fn(usize) -> bool| {
            for m in active.iter().filter(|m| at(m.start)) {
                if let Some(anchor) = &m.anchor {
                    let _ = write!(
                        out,
                        "<span class=\"anchor\" id=\"{}\"></span>",
                        escape(anchor)
                    );
                }
            }
        };
        // A mark carried over from an earlier line starts at this line's text, not its indent.
        let shown = &text[line_start..shown_end];
        let indent_end = shown_end - shown.trim_start().len();
        let from = |m: &Highlight| {
            if m.start < line_start {
                indent_end
            } else {
                m.start
            }
        };
        let mut points: Vec<usize> = vec![line_start, indent_end, shown_end];
        for m in &active {
            for p in [m.start, m.end] {
                if p > line_start && p < shown_end {
                    points.push(p);
                }
            }
        }
        points.sort_unstable();
        points.dedup();
        for pair in points.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            anchors_at(out, &|start| start == a);
            let segment = escape(&text[a..b]);
            let mut covering: Vec<&Highlight> = active
                .iter()
                .copied()
                .filter(|m| from(m) <= a && m.end >= b)
                .collect();
            if covering.is_empty() {
                out.push_str(&segment);
                continue;
            }
            covering.sort_by_key(|m| m.end - m.start);
            let groups: Vec<&str> = covering.iter().map(|m| m.group.as_str()).collect();
            // One line per mark in the tooltip; the attribute itself stays on one line.
            let titles: Vec<String> = covering.iter().map(|m| escape(&m.title)).collect();
            let _ = write!(
                out,
                "<mark class=\"hl {}\" data-f=\"{}\" title=\"{}\">{segment}</mark>",
                covering[0].class,
                escape(&groups.join(" ")),
                titles.join("&#10;")
            );
        }
        // Anchors of marks that start at the line's break (or past the end of the text).
        anchors_at(out, &|start| start >= shown_end && start < past);
        out.push_str("</span></div>\n");
        line_start = line_end + 1;
    }
    out.push_str("</div>\n");
}

#[cfg(test)]
mod tests {
    use super::{render, Highlight};
    use crate::source::SourceFile;

    fn mark(start: usize, end: usize, group: &str) -> Highlight {
        Highlight {
            start,
            end,
            class: format!("v-{group}"),
            group: group.into(),
            anchor: Some(format!("{group}-new")),
            title: format!("<{group}>"),
        }
    }

    fn lines(text: &str, marks: &[Highlight]) -> Vec<String> {
        let mut out = String::new();
        render(&mut out, &SourceFile::new("f.sql", text), "new", marks);
        out.lines()
            .filter(|l| l.starts_with("<div class=\"line\""))
            .map(|l| l[l.find("<span class=\"src\">").unwrap_or(0) + 18..].to_string())
            .map(|l| l.trim_end_matches("</span></div>").to_string())
            .collect()
    }

    #[test]
    fn the_innermost_of_overlapping_marks_gives_the_colour_and_all_are_named() {
        let text = "SELECT a, MAX(b) FROM t";
        let outer = mark(0, text.len(), "outer");
        let inner = mark(10, 16, "inner");
        let shown = lines(text, &[outer, inner]);
        assert_eq!(
            shown[0],
            "<span class=\"anchor\" id=\"outer-new\"></span><mark class=\"hl v-outer\" data-f=\"outer\" title=\"&lt;outer&gt;\">SELECT a, </mark>\
             <span class=\"anchor\" id=\"inner-new\"></span><mark class=\"hl v-inner\" data-f=\"inner outer\" title=\"&lt;inner&gt;&#10;&lt;outer&gt;\">MAX(b)</mark>\
             <mark class=\"hl v-outer\" data-f=\"outer\" title=\"&lt;outer&gt;\"> FROM t</mark>"
        );
    }

    #[test]
    fn a_mark_over_several_lines_leaves_their_indentation_unmarked() {
        let text = "SELECT a,\n       b < 1\nFROM t";
        let shown = lines(text, &[mark(7, 22, "m")]);
        assert_eq!(shown.len(), 3);
        assert!(shown[1].starts_with("       <mark"), "{}", shown[1]);
        assert!(shown[1].ends_with(">b &lt; 1</mark>"), "{}", shown[1]);
        assert_eq!(shown[2], "FROM t");
    }

    #[test]
    fn marks_cut_inside_a_character_or_past_the_text_are_safe() {
        let text = "SELECT 'é' FROM t";
        let shown = lines(text, &[mark(9, 10, "a"), mark(100, 120, "b")]);
        assert!(shown[0].contains(">é</mark>"), "{}", shown[0]);
        assert!(shown[0].ends_with("<span class=\"anchor\" id=\"b-new\"></span>"));
    }
}
