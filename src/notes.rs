//! Warnings and assumptions gathered while reading a script, reported beside the verdict.

use crate::source::ByteSpan;

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NoteKind {
    /// Something in the script is probably a mistake (Flink would reject it, or a key is mistyped).
    Warning,
    /// The tool assumed something the script does not say (e.g. a bare table's time attribute).
    Assumption,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Note {
    pub kind: NoteKind,
    pub message: String,
    #[serde(skip)]
    pub span: Option<ByteSpan>,
}

#[derive(Debug, Clone, Default)]
pub struct Notes {
    pub items: Vec<Note>,
}

impl Notes {
    pub fn warn(&mut self, message: impl Into<String>, span: Option<ByteSpan>) {
        self.push(NoteKind::Warning, message.into(), span);
    }

    pub fn assume(&mut self, message: impl Into<String>, span: Option<ByteSpan>) {
        self.push(NoteKind::Assumption, message.into(), span);
    }

    /// Adds a note made elsewhere (another query's), unless one alike is there.
    pub fn add(&mut self, note: Note) {
        self.push(note.kind, note.message, note.span);
    }

    fn push(&mut self, kind: NoteKind, message: String, span: Option<ByteSpan>) {
        if !self
            .items
            .iter()
            .any(|n| n.kind == kind && n.message == message)
        {
            self.items.push(Note {
                kind,
                message,
                span,
            });
        }
    }
}
