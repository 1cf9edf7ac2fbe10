//! A finding or a note as a miette diagnostic: the rule id, the message, and the clause it is
//! about, labelled in the old and in the new script.

use super::Location;
use crate::source::SourceFile;
use crate::verdict::Verdict;
use miette::{Diagnostic, LabeledSpan, Severity};
use std::fmt;

/// One labelled clause of one script.
#[derive(Debug)]
pub struct Snippet {
    title: String,
    source: CutSource,
    label: LabeledSpan,
}

/// The columns a snippet's gutter and indentation take (`    │   12 │ `), besides the SQL.
const GUTTER: usize = 20;

impl Snippet {
    /// The clause at `location`, when its script is among `files`, its lines cut to fit
    /// `width` columns around the clause.
    pub fn of(
        title: &str,
        label: &str,
        location: &Location,
        files: &[&SourceFile],
        width: usize,
    ) -> Option<Self> {
        let file = files.iter().find(|f| f.name == location.file)?;
        let end = (location.offset + location.length).min(file.text.len());
        let start = location.offset.min(end);
        let (source, span) = CutSource::around(file, start, end, width.saturating_sub(GUTTER));
        Some(Snippet {
            title: title.to_string(),
            source,
            label: LabeledSpan::new(Some(label.to_string()), span.0, span.1 - span.0),
        })
    }
}

/// The lines of a script around a clause (one line of context either side), each cut to a
/// window of columns around the clause with `…` where text is left out: a SQL line is never
/// wrapped, so the underline stays under the clause. Reports the script's own line and column.
#[derive(Debug)]
struct CutSource {
    name: String,
    text: String,
    /// The script's line (0-based) of the first line of `text`.
    first_line: usize,
    /// The line of `text` (0-based) where the clause starts, and the script columns left out
    /// before it there.
    clause_line: usize,
    columns_left_out: usize,
}

impl CutSource {
    /// The cut lines and the clause's span in them.
    fn around(
        file: &SourceFile,
        start: usize,
        end: usize,
        budget: usize,
    ) -> (Self, (usize, usize)) {
        let text = &file.text;
        let budget = budget.max(20);
        let line_start = |at: usize| text[..at].rfind('\n').map_or(0, |i| i + 1);
        let line_end = |at: usize| text[at..].find('\n').map_or(text.len(), |i| at + i);
        let first_start = line_start(start);
        let from = if first_start == 0 {
            0
        } else {
            line_start(first_start - 1)
        };
        let last_end = line_end(end.max(start));
        let to = if last_end >= text.len() {
            text.len()
        } else {
            line_end(last_end + 1)
        };
        // The window of columns: from a little before the clause's start, `budget` wide.
        let clause_column = text[first_start..start].chars().count();
        let window_start = clause_column.saturating_sub(budget / 4);
        let window_start = if clause_column < budget.saturating_sub(budget / 4) {
            0
        } else {
            window_start
        };
        let mut out = String::new();
        let mut span = (0, 0);
        let mut offset = from;
        let mut clause_line = 0;
        for (n, line) in text[from..to].split('\n').enumerate() {
            // Not a table of the line's characters: a report of many findings on one long
            // line would be quadratic in it.
            let ascii = line.is_ascii();
            let char_count = if ascii {
                line.len()
            } else {
                line.chars().count()
            };
            let keep_from = window_start.min(char_count);
            let keep_to = (window_start + budget).min(char_count);
            let cut_before = keep_from > 0;
            let cut_after = keep_to < char_count;
            // Maps a byte offset of the script on this line to one in `out`.
            let line_base = out.len();
            let byte_at = |i: usize| match ascii {
                true => i.min(line.len()),
                false => line.char_indices().nth(i).map_or(line.len(), |(b, _)| b),
            };
            let kept_from_byte = byte_at(keep_from);
            let kept_to_byte = byte_at(keep_to);
            let map = |at: usize| {
                let in_line = at.saturating_sub(offset).min(line.len());
                let prefix = if cut_before { '…'.len_utf8() } else { 0 };
                line_base + prefix + in_line.clamp(kept_from_byte, kept_to_byte) - kept_from_byte
            };
            let line_end_offset = offset + line.len();
            if (offset..=line_end_offset).contains(&start) {
                span.0 = map(start);
                clause_line = n;
            }
            if (offset..=line_end_offset).contains(&end) {
                span.1 = map(end);
            }
            if cut_before {
                out.push('…');
            }
            out.push_str(&line[kept_from_byte..kept_to_byte]);
            if cut_after {
                out.push('…');
            }
            out.push('\n');
            offset = line_end_offset + 1;
        }
        out.pop();
        span.1 = span.1.max(span.0);
        // From the file's line index: counting from the start would make a report of many
        // findings quadratic in the script's length.
        let first_line = file.line_col(from).line - 1;
        // Columns of the clause line as miette counts them (bytes), less the `…` put in front.
        let ellipsis = if window_start > 0 {
            '…'.len_utf8()
        } else {
            0
        };
        let columns_left_out = window_start.saturating_sub(ellipsis);
        (
            CutSource {
                name: file.name.clone(),
                text: out,
                first_line,
                clause_line,
                columns_left_out,
            },
            span,
        )
    }
}

impl miette::SourceCode for CutSource {
    fn read_span<'a>(
        &'a self,
        span: &miette::SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn miette::SpanContents<'a> + 'a>, miette::MietteError> {
        let contents = self.text.read_span(span, before, after)?;
        let column = if contents.line() == self.clause_line {
            contents.column() + self.columns_left_out
        } else {
            contents.column()
        };
        Ok(Box::new(miette::MietteSpanContents::new_named(
            self.name.clone(),
            contents.data(),
            *contents.span(),
            contents.line() + self.first_line,
            column,
            contents.line_count(),
        )))
    }
}

impl fmt::Display for Snippet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.title)
    }
}

impl std::error::Error for Snippet {}

impl Diagnostic for Snippet {
    fn severity(&self) -> Option<Severity> {
        Some(Severity::Advice)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(std::iter::once(self.label.clone())))
    }
}

/// A finding (or a note): what it says, under its rule id, with the clauses it is about.
#[derive(Debug)]
pub struct Item {
    pub code: Option<String>,
    pub message: String,
    pub severity: Severity,
    pub help: Option<String>,
    pub snippets: Vec<Snippet>,
}

/// How a verdict shows: incompatible is an error, what needs a look a warning.
pub fn severity(verdict: Verdict) -> Severity {
    match verdict {
        Verdict::Incompatible => Severity::Error,
        Verdict::Unknown | Verdict::PartiallyCompatible => Severity::Warning,
        Verdict::FullyCompatible => Severity::Advice,
    }
}

impl fmt::Display for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Item {}

impl Diagnostic for Item {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.code
            .as_ref()
            .map(|c| Box::new(c) as Box<dyn fmt::Display>)
    }

    fn severity(&self) -> Option<Severity> {
        Some(self.severity)
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        if self.snippets.is_empty() {
            return None;
        }
        Some(Box::new(self.snippets.iter().map(|s| s as &dyn Diagnostic)))
    }
}
