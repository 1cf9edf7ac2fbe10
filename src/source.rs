//! Source texts (SQL scripts, rule files, case files) and positions inside them.

use std::sync::Arc;

/// A named text the tool read, kept whole so diagnostics can point into it.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub name: String,
    pub text: Arc<str>,
    line_starts: Arc<[usize]>,
    columns: Arc<ColumnIndex>,
}

/// Every [`CHECKPOINT`]-th character's byte offset, so that a character column converts to a
/// byte offset in constant time even on a megabyte-long line (a scan per token would make
/// reading such a line quadratic). Empty for ASCII text, where columns are byte offsets.
#[derive(Debug, Default)]
struct ColumnIndex {
    /// The character index (in the whole text) at which each line starts.
    line_start_chars: Vec<usize>,
    /// The byte offset of character `CHECKPOINT * i`.
    checkpoints: Vec<usize>,
    chars: usize,
}

const CHECKPOINT: usize = 64;

impl ColumnIndex {
    fn new(text: &str) -> Self {
        if text.is_ascii() {
            return ColumnIndex::default();
        }
        let mut index = ColumnIndex {
            line_start_chars: vec![0],
            ..ColumnIndex::default()
        };
        for (i, (offset, c)) in text.char_indices().enumerate() {
            if i % CHECKPOINT == 0 {
                index.checkpoints.push(offset);
            }
            if c == '\n' {
                index.line_start_chars.push(i + 1);
            }
            index.chars = i + 1;
        }
        index
    }
}

/// A byte range inside a [`SourceFile`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize)]
pub struct ByteSpan {
    pub start: usize,
    pub end: usize,
}

impl ByteSpan {
    pub fn new(start: usize, end: usize) -> Self {
        ByteSpan {
            start,
            end: end.max(start),
        }
    }

    pub fn len(&self) -> usize {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    pub fn union(self, other: ByteSpan) -> ByteSpan {
        if self.is_empty() && self.start == 0 {
            return other;
        }
        if other.is_empty() && other.start == 0 {
            return self;
        }
        ByteSpan::new(self.start.min(other.start), self.end.max(other.end))
    }
}

impl From<ByteSpan> for miette::SourceSpan {
    fn from(span: ByteSpan) -> Self {
        (span.start, span.len()).into()
    }
}

/// Line and column (1-based, column counted in characters) of a byte offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct LineCol {
    pub line: usize,
    pub column: usize,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<Arc<str>>) -> Self {
        let text: Arc<str> = text.into();
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceFile {
            name: name.into(),
            columns: Arc::new(ColumnIndex::new(&text)),
            text,
            line_starts: starts.into(),
        }
    }

    /// Byte offset of a 1-based line and character column, as sqlparser reports them.
    pub fn offset_of(&self, line: u64, column: u64) -> usize {
        if line == 0 {
            return 0;
        }
        let Some(&start) = self.line_starts.get(line as usize - 1) else {
            return self.text.len();
        };
        let chars_before = column.saturating_sub(1) as usize;
        if self.columns.checkpoints.is_empty() {
            return start.saturating_add(chars_before).min(self.text.len());
        }
        let index = &self.columns;
        let char_index = index.line_start_chars[line as usize - 1].saturating_add(chars_before);
        if char_index >= index.chars {
            return self.text.len();
        }
        let checkpoint = index.checkpoints[char_index / CHECKPOINT];
        self.text[checkpoint..]
            .char_indices()
            .nth(char_index % CHECKPOINT)
            .map_or(self.text.len(), |(i, _)| checkpoint + i)
    }

    /// The span covering a sqlparser span.
    pub fn span_of(&self, span: sqlparser::tokenizer::Span) -> ByteSpan {
        if span.start.line == 0 {
            return ByteSpan::default();
        }
        ByteSpan::new(
            self.offset_of(span.start.line, span.start.column),
            self.offset_of(span.end.line, span.end.column),
        )
    }

    pub fn line_col(&self, offset: usize) -> LineCol {
        let offset = offset.min(self.text.len());
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line];
        let column = if self.columns.checkpoints.is_empty() {
            offset - start + 1
        } else {
            self.text[start..offset].chars().count() + 1
        };
        LineCol {
            line: line + 1,
            column,
        }
    }

    /// The span extended past the closing parentheses it leaves open: sqlparser ends a call's
    /// span at its last argument, so `MAX(bytes)` would otherwise show as `MAX(bytes`.
    pub fn balanced(&self, span: ByteSpan) -> ByteSpan {
        let text = self.slice(span);
        let count = |byte: u8| text.bytes().filter(|&b| b == byte).count();
        let mut open = count(b'(').saturating_sub(count(b')'));
        let mut end = span.end;
        while open > 0 {
            let rest = self.text.get(end..).unwrap_or("");
            let skipped = rest.len() - rest.trim_start().len();
            if !rest[skipped..].starts_with(')') {
                break;
            }
            end += skipped + 1;
            open -= 1;
        }
        ByteSpan::new(span.start, end)
    }

    pub fn slice(&self, span: ByteSpan) -> &str {
        self.text.get(span.start..span.end).unwrap_or("")
    }

    pub fn named_source(&self) -> miette::NamedSource<String> {
        miette::NamedSource::new(self.name.clone(), self.text.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_follow_lines_and_characters() {
        let file = SourceFile::new("t.sql", "ab\nçd e\n");
        assert_eq!(file.offset_of(2, 1), 3);
        assert_eq!(file.offset_of(2, 2), 5);
        assert_eq!(file.line_col(5), LineCol { line: 2, column: 2 });
        assert_eq!(file.offset_of(9, 1), file.text.len());
    }

    #[test]
    fn a_span_is_balanced_by_the_parentheses_that_follow_it() {
        let file = SourceFile::new("t.sql", "SELECT MAX(COALESCE(b, 0) ), c");
        assert_eq!(
            file.slice(file.balanced(ByteSpan::new(7, 24))),
            "MAX(COALESCE(b, 0) )"
        );
        assert_eq!(file.slice(file.balanced(ByteSpan::new(7, 10))), "MAX");
    }

    #[test]
    fn columns_past_a_checkpoint_on_a_long_non_ascii_line() {
        let line = "é".repeat(200) + "x";
        let file = SourceFile::new("t.sql", format!("a\n{line}\nb"));
        assert_eq!(file.offset_of(2, 201), 2 + 400);
        assert_eq!(&file.text[file.offset_of(2, 201)..][..1], "x");
        assert_eq!(file.offset_of(3, 1), 2 + 401 + 1);
        assert_eq!(
            file.line_col(2 + 400),
            LineCol {
                line: 2,
                column: 201
            }
        );
    }

    #[test]
    fn ascii_columns_are_byte_offsets() {
        let file = SourceFile::new("t.sql", "ab\ncd");
        assert_eq!(file.offset_of(2, 2), 4);
        assert_eq!(file.offset_of(2, 99), file.text.len());
        assert_eq!(file.line_col(4), LineCol { line: 2, column: 2 });
    }
}
