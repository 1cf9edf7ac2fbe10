//! A query's operator graph as inline SVG: its source tables, its stateful operators upstream
//! first, and its sink, left to right; every piece of state a pill coloured by its fate, with
//! the rule that decided it in the pill's `<title>` (shown on hover) and a link to the finding.
//! Text is measured in monospace characters, so no script is needed to lay it out.

use super::fate::{self, StateItem};
use super::{escape, words};
use crate::report::{Finding, OperatorReport, QueryReport, QueryStatus};
use std::fmt::Write;

/// The width of one character of the graph's 12px monospace font, rounded up.
const CHAR: f64 = 7.4;
const PAD: f64 = 10.0;
const MIN_NODE: f64 = 150.0;
const MAX_NODE: f64 = 320.0;
const GAP_X: f64 = 64.0;
const GAP_Y: f64 = 18.0;
const HEAD: f64 = 44.0;
const PILL: f64 = 22.0;
const PILL_GAP: f64 = 4.0;
const MARGIN: f64 = 12.0;

/// The most characters a line of a node holds.
fn max_chars() -> usize {
    ((MAX_NODE - 2.0 * PAD) / CHAR) as usize
}

/// Cuts a label to `n` characters, with `…` where text is left out.
pub(super) fn cut(text: &str, n: usize) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= n {
        one_line
    } else {
        let mut s: String = one_line.chars().take(n.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

struct Node<'r> {
    class: &'static str,
    title: String,
    subtitle: String,
    /// The full description, for the node's tooltip.
    tooltip: String,
    items: Vec<StateItem<'r>>,
    status: Option<QueryStatus>,
}

impl Node<'_> {
    fn pill_text(item: &StateItem) -> String {
        format!("{} {}", item.fate.symbol(), item.label)
    }

    fn width(&self) -> f64 {
        let widest = std::iter::once(self.title.chars().count())
            .chain(std::iter::once(self.subtitle.chars().count()))
            .chain(
                self.items
                    .iter()
                    .map(|i| Self::pill_text(i).chars().count() + 1),
            )
            .max()
            .unwrap_or(0)
            .min(max_chars());
        (widest as f64 * CHAR + 2.0 * PAD).clamp(MIN_NODE, MAX_NODE)
    }

    fn height(&self) -> f64 {
        if self.items.is_empty() {
            HEAD
        } else {
            HEAD + self.items.len() as f64 * (PILL + PILL_GAP) + PAD - PILL_GAP
        }
    }
}

fn status_class(status: Option<QueryStatus>) -> &'static str {
    match status {
        Some(QueryStatus::Added) => " status-added",
        Some(QueryStatus::Removed) => " status-removed",
        Some(QueryStatus::Changed) => " status-changed",
        _ => "",
    }
}

fn operator_node<'r>(query: &'r QueryReport, op: &'r OperatorReport) -> Node<'r> {
    let (class, title) = match &op.table {
        Some(table) => ("node source", format!("source {table}")),
        None => ("node operator", words(&op.kind)),
    };
    let subtitle = format!("{} · {}", op.status.words(), words(op.verdict.name()));
    Node {
        class,
        tooltip: format!("{title} [{}]: {subtitle}", op.flink_node),
        title,
        subtitle,
        items: fate::items(query, op),
        status: Some(op.status),
    }
}

fn sink_node(query: &QueryReport) -> Node<'static> {
    let name = match (&query.old_name, &query.new_name) {
        (Some(o), Some(n)) if o != n => format!("{o} → {n}"),
        _ => query.name.clone(),
    };
    let title = if name.starts_with("query #") || name == "the job" {
        format!("result of {name}")
    } else {
        format!("sink {name}")
    };
    Node {
        class: "node sink",
        tooltip: title.clone(),
        title,
        subtitle: format!("{} · {}", query.status.words(), words(query.verdict.name())),
        items: Vec::new(),
        status: Some(query.status),
    }
}

/// The tooltip of a piece of state: what it is, its fate, why, and the deciding rules.
fn item_tooltip(item: &StateItem) -> String {
    let mut text = format!(
        "{}: {} ({})\n{}",
        item.label,
        item.fate.words(),
        item.fate.meaning(),
        item.why
    );
    for f in &item.decided_by {
        let _ = write!(text, "\n{}: {}", f.rule, f.message);
    }
    text
}

/// The SVG of one query; `id` is unique in the page, `finding_id` gives a finding's anchor.
pub fn svg(
    query: &QueryReport,
    id: &str,
    finding_id: &dyn Fn(&Finding) -> Option<String>,
) -> String {
    let mut columns: Vec<Vec<Node>> = Vec::new();
    if !query.sources.is_empty() {
        columns.push(
            query
                .sources
                .iter()
                .map(|s| operator_node(query, s))
                .collect(),
        );
    }
    for op in &query.operators {
        columns.push(vec![operator_node(query, op)]);
    }
    columns.push(vec![sink_node(query)]);

    let widths: Vec<f64> = columns
        .iter()
        .map(|c| c.iter().map(Node::width).fold(MIN_NODE, f64::max))
        .collect();
    let heights: Vec<f64> = columns
        .iter()
        .map(|c| c.iter().map(Node::height).sum::<f64>() + GAP_Y * (c.len() as f64 - 1.0))
        .collect();
    let inner_height = heights.iter().copied().fold(0.0, f64::max);
    let width = widths.iter().sum::<f64>() + GAP_X * (widths.len() as f64 - 1.0) + 2.0 * MARGIN;
    let height = inner_height + 2.0 * MARGIN;

    // Each node's box: x, y, width, height.
    let mut boxes: Vec<Vec<(f64, f64, f64, f64)>> = Vec::new();
    let mut x = MARGIN;
    for ((column, w), h) in columns.iter().zip(&widths).zip(&heights) {
        let mut y = MARGIN + (inner_height - h) / 2.0;
        let mut placed = Vec::new();
        for node in column {
            placed.push((x, y, *w, node.height()));
            y += node.height() + GAP_Y;
        }
        boxes.push(placed);
        x += w + GAP_X;
    }

    let mut out = String::new();
    let label = format!(
        "Operator graph of {}: {} source table(s), {} stateful operator(s), then the sink",
        crate::report::query_title(&query.name),
        query.sources.len(),
        query.operators.len()
    );
    let _ = writeln!(
        out,
        "<svg class=\"graph\" role=\"img\" aria-labelledby=\"{id}-title\" width=\"{width:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {width:.0} {height:.0}\">"
    );
    let _ = writeln!(out, "<title id=\"{id}-title\">{}</title>", escape(&label));
    let _ = writeln!(
        out,
        "<defs><marker id=\"{id}-arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\"><path class=\"arrow-head\" d=\"M 0 0 L 10 5 L 0 10 z\"/></marker></defs>"
    );
    // Edges first, under the nodes: every node of a column to every node of the next.
    for pair in boxes.windows(2) {
        for &(x1, y1, w1, h1) in &pair[0] {
            for &(x2, y2, _, h2) in &pair[1] {
                let (ax, ay) = (x1 + w1, y1 + h1 / 2.0);
                let (bx, by) = (x2 - 2.0, y2 + h2 / 2.0);
                let _ = writeln!(
                    out,
                    "<path class=\"edge\" d=\"M {ax:.1} {ay:.1} C {:.1} {ay:.1}, {:.1} {by:.1}, {bx:.1} {by:.1}\" marker-end=\"url(#{id}-arrow)\"/>",
                    ax + GAP_X / 2.0,
                    bx - GAP_X / 2.0
                );
            }
        }
    }
    for (column, placed) in columns.iter().zip(&boxes) {
        for (node, &(x, y, w, h)) in column.iter().zip(placed) {
            node_svg(&mut out, node, (x, y, w, h), finding_id);
        }
    }
    out.push_str("</svg>\n");
    out
}

fn node_svg(
    out: &mut String,
    node: &Node,
    (x, y, w, h): (f64, f64, f64, f64),
    finding_id: &dyn Fn(&Finding) -> Option<String>,
) {
    let chars = ((w - 2.0 * PAD) / CHAR) as usize;
    let _ = writeln!(
        out,
        "<g class=\"{}{}\"><title>{}</title>",
        node.class,
        status_class(node.status),
        escape(&node.tooltip)
    );
    let _ = writeln!(
        out,
        "<rect class=\"box\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" rx=\"6\"/>"
    );
    let _ = writeln!(
        out,
        "<text class=\"node-title\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
        x + PAD,
        y + 18.0,
        escape(&cut(&node.title, chars))
    );
    let _ = writeln!(
        out,
        "<text class=\"node-subtitle\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
        x + PAD,
        y + 34.0,
        escape(&cut(&node.subtitle, chars))
    );
    out.push_str("</g>\n");
    for (i, item) in node.items.iter().enumerate() {
        let py = y + HEAD + i as f64 * (PILL + PILL_GAP);
        let target = item.decided_by.iter().find_map(|f| finding_id(f));
        let (open, close) = match &target {
            Some(t) => (format!("<a href=\"#{}\"", escape(t)), "</a>"),
            None => ("<g tabindex=\"0\"".to_string(), "</g>"),
        };
        let _ = writeln!(
            out,
            "{open} class=\"item {}\" data-label=\"{}\"><title>{}</title>",
            item.fate.class(),
            escape(&item.label),
            escape(&item_tooltip(item))
        );
        let _ = writeln!(
            out,
            "<rect x=\"{:.1}\" y=\"{py:.1}\" width=\"{:.1}\" height=\"{PILL:.1}\" rx=\"11\"/>",
            x + PAD / 2.0,
            w - PAD
        );
        let _ = writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            x + PAD,
            py + 15.0,
            escape(&cut(&Node::pill_text(item), chars))
        );
        let _ = writeln!(out, "{close}");
    }
}

#[cfg(test)]
mod tests {
    use super::cut;

    #[test]
    fn a_long_label_is_cut_with_an_ellipsis_and_whitespace_is_one_space() {
        assert_eq!(cut("SUM(\n  a)", 10), "SUM( a)");
        assert_eq!(cut("abcdefghijkl", 5), "abcd…");
    }
}
