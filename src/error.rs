//! The errors the tool reports: every one a miette diagnostic pointing at the input that caused it.

use crate::source::{ByteSpan, SourceFile};
use miette::{Diagnostic, NamedSource, SourceSpan};

/// An input problem located in a source text (SQL script, rule file, case file).
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{message}")]
pub struct LocatedError {
    pub message: String,
    #[source_code]
    pub src: NamedSource<String>,
    #[label("{label}")]
    pub span: SourceSpan,
    pub label: String,
    #[help]
    pub help: Option<String>,
    /// Which kind of input: "sql", "rule", "case".
    pub kind: &'static str,
    pub file: String,
    pub line: usize,
    pub column: usize,
    /// Set when the SQL is valid Flink but uses a construct the tool does not model: the query
    /// holding it can be compared as a whole instead of failing the check.
    pub unmodelled: Option<String>,
}

/// Several located errors reported at once (e.g. every broken rule in a rules directory).
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{count} errors in {what}")]
pub struct ManyErrors {
    pub count: usize,
    pub what: String,
    #[related]
    pub errors: Vec<LocatedError>,
}

#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum Error {
    #[error(transparent)]
    #[diagnostic(transparent)]
    Located(Box<LocatedError>),
    #[error(transparent)]
    #[diagnostic(transparent)]
    Many(Box<ManyErrors>),
    #[error("cannot read {path}: {reason}")]
    Io { path: String, reason: String },
    #[error("{0}")]
    Usage(String),
    #[error("{message}")]
    Limit {
        message: String,
        #[help]
        help: Option<String>,
    },
    /// The machine refused a resource: memory, a thread's stack.
    #[error("{message}")]
    #[diagnostic(code(flink_compat::resource))]
    Resource {
        message: String,
        #[help]
        help: Option<String>,
    },
    /// A bug: the tool panicked.
    #[error("internal error: {0}")]
    #[diagnostic(
        code(flink_compat::internal),
        help("this is a bug in flink-compat; please report it with the two scripts")
    )]
    Internal(String),
}

impl Error {
    pub fn located(
        kind: &'static str,
        file: &SourceFile,
        span: ByteSpan,
        message: impl Into<String>,
        label: impl Into<String>,
        help: Option<String>,
    ) -> Error {
        let span = ByteSpan::new(
            span.start.min(file.text.len()),
            span.end.min(file.text.len()),
        );
        let pos = file.line_col(span.start);
        Error::Located(Box::new(LocatedError {
            message: message.into(),
            src: file.named_source(),
            span: span.into(),
            label: label.into(),
            help,
            kind,
            file: file.name.clone(),
            line: pos.line,
            column: pos.column,
            unmodelled: None,
        }))
    }

    /// Valid Flink SQL the tool does not model: `construct` names it (e.g. "MATCH_RECOGNIZE
    /// WITHIN"). A query holding it is compared as a whole, by its lineage.
    pub fn unmodelled(file: &SourceFile, span: ByteSpan, construct: impl Into<String>) -> Error {
        let construct = construct.into();
        let mut error = Error::located(
            "sql",
            file,
            span,
            format!("{construct} is not modelled"),
            "here",
            None,
        );
        if let Error::Located(e) = &mut error {
            e.unmodelled = Some(construct);
        }
        error
    }

    /// The construct a query uses that the tool does not model, when that is what failed.
    pub fn unmodelled_construct(&self) -> Option<&str> {
        match self {
            Error::Located(e) => e.unmodelled.as_deref(),
            _ => None,
        }
    }

    pub fn sql(file: &SourceFile, span: ByteSpan, message: impl Into<String>) -> Error {
        Error::located("sql", file, span, message, "here", None)
    }

    /// Collapses a list of errors into one (a single error stays as it is).
    pub fn collect(what: impl Into<String>, mut errors: Vec<Error>) -> Option<Error> {
        match errors.len() {
            0 => None,
            1 => errors.pop(),
            _ => {
                let mut located = Vec::new();
                for error in errors {
                    match error {
                        Error::Located(e) => located.push(*e),
                        Error::Many(many) => located.extend(many.errors),
                        other => return Some(other),
                    }
                }
                located
                    .sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
                Some(Error::Many(Box::new(ManyErrors {
                    count: located.len(),
                    what: what.into(),
                    errors: located,
                })))
            }
        }
    }

    /// The located errors inside (one for `Located`, each of `Many`, none otherwise).
    pub fn located_errors(&self) -> Vec<&LocatedError> {
        match self {
            Error::Located(e) => vec![e],
            Error::Many(many) => many.errors.iter().collect(),
            _ => Vec::new(),
        }
    }

    /// A machine-readable description, for `--format json`.
    pub fn to_json(&self) -> serde_json::Value {
        fn located(e: &LocatedError) -> serde_json::Value {
            serde_json::json!({
                "kind": e.kind,
                "message": e.message,
                "file": e.file,
                "line": e.line,
                "column": e.column,
                "offset": e.span.offset(),
                "length": e.span.len(),
                "label": e.label,
                "help": e.help,
            })
        }
        match self {
            Error::Located(e) => located(e),
            Error::Many(many) => serde_json::json!({
                "kind": "many",
                "message": self.to_string(),
                "errors": many.errors.iter().map(located).collect::<Vec<_>>(),
            }),
            Error::Io { .. } => serde_json::json!({"kind": "io", "message": self.to_string()}),
            Error::Usage(_) => serde_json::json!({"kind": "usage", "message": self.to_string()}),
            Error::Limit { help, .. } => {
                serde_json::json!({"kind": "limit", "message": self.to_string(), "help": help})
            }
            Error::Resource { help, .. } => {
                serde_json::json!({"kind": "resource", "message": self.to_string(), "help": help})
            }
            Error::Internal(_) => {
                serde_json::json!({"kind": "internal", "message": self.to_string()})
            }
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
