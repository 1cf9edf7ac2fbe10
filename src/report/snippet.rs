//! A finding or a note as a miette diagnostic: the rule id, the message, and the clause it is
//! about, labelled in the old and in the new script.

use super::Location;
use crate::source::SourceFile;
use crate::verdict::Verdict;
use miette::{Diagnostic, LabeledSpan, NamedSource, Severity};
use std::fmt;

/// One labelled clause of one script.
#[derive(Debug)]
pub struct Snippet {
    title: String,
    source: NamedSource<String>,
    label: LabeledSpan,
}

impl Snippet {
    /// The clause at `location`, when its script is among `files`.
    pub fn of(
        title: &str,
        label: &str,
        location: &Location,
        files: &[&SourceFile],
    ) -> Option<Self> {
        let file = files.iter().find(|f| f.name == location.file)?;
        let end = (location.offset + location.length).min(file.text.len());
        let start = location.offset.min(end);
        Some(Snippet {
            title: title.to_string(),
            source: file.named_source(),
            label: LabeledSpan::new(Some(label.to_string()), start, end - start),
        })
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
