//! The predicate language of compatibility rules.
//!
//! A rule's `when:` field is a [`Predicate`] over "facts", a JSON tree that
//! describes the old and the new job. Its messages are [`Template`]s that
//! interpolate fact values. Both are compiled once, when the rules load,
//! against a [`FactSchema`]: every path and every type is checked then, so
//! evaluation cannot fail; it only reads absent values as `null`.
//!
//! A predicate goes through `parser` (the pest grammar in
//! `grammar/predicate.pest`, then the tree of `ast`; `syntax_error` rewords
//! pest's errors), then `typecheck` against the schema, then `eval`.

mod ast;
mod complement;
mod eval;
mod json;
mod parser;
mod schema;
pub(crate) use crate::suggest;
mod syntax_error;
mod template;
mod typecheck;

#[cfg(test)]
mod tests;

use serde::Serialize;
use std::sync::OnceLock;

pub use schema::{FactSchema, FactType};
pub(crate) use suggest::nearest;
pub use template::{Template, LIST_SHOWN};

pub use crate::limits::{MAX_PREDICATE_BYTES as MAX_SOURCE_LEN, MAX_PREDICATE_DEPTH as MAX_DEPTH};

/// A byte range within the predicate or template text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }
}

impl From<Span> for std::ops::Range<usize> {
    fn from(span: Span) -> Self {
        span.start..span.end
    }
}

/// Why a predicate or template was rejected, and where in its text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct DslError {
    pub span: Span,
    pub message: String,
    pub help: Option<String>,
}

impl DslError {
    pub fn new(span: Span, message: impl Into<String>) -> DslError {
        DslError {
            span,
            message: message.into(),
            help: None,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> DslError {
        self.help = Some(help.into());
        self
    }
}

/// A parsed and type-checked rule predicate.
#[derive(Debug, Clone)]
pub struct Predicate {
    source: String,
    /// `None` inside: a deferred predicate that does not parse (never a built-in one).
    expr: OnceLock<Option<ast::Expr>>,
}

impl Predicate {
    /// Parses `src` and checks it against `schema`; the result is always boolean.
    pub fn compile(src: &str, schema: &FactSchema) -> Result<Predicate, DslError> {
        let expr = parser::parse_predicate(src)?;
        typecheck::check_predicate(&expr, schema)?;
        Ok(Predicate {
            source: src.to_owned(),
            expr: OnceLock::from(Some(expr)),
        })
    }

    /// A built-in predicate, parsed when it is first evaluated: most rules of a check never
    /// are, and every built-in predicate is compiled and type-checked whole by the tests (and
    /// by every load with rule directories or of a batch).
    pub fn deferred(src: &str) -> Predicate {
        Predicate {
            source: src.to_owned(),
            expr: OnceLock::new(),
        }
    }

    fn expr(&self) -> Option<&ast::Expr> {
        self.expr
            .get_or_init(|| parser::parse_predicate(&self.source).ok())
            .as_ref()
    }

    /// Evaluates the predicate. Absent facts read as `null`; see `eval` for
    /// how each operator treats `null`. A deferred predicate that does not parse holds: its
    /// rule fires rather than stays silent.
    pub fn eval(&self, facts: &serde_json::Value) -> bool {
        self.expr()
            .is_none_or(|expr| eval::eval_predicate(expr, facts))
    }

    /// Every fact path the predicate reads, without duplicates, in order of
    /// first appearance.
    pub fn paths(&self) -> Vec<String> {
        let mut paths = Vec::new();
        if let Some(expr) = self.expr() {
            expr.collect_paths(&mut paths);
        }
        paths
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether this predicate and `other` are each other's negation: the same conjuncts but
    /// one, negated in the other (`a and b` / `a and not b`). False when either does not parse.
    pub fn complements(&self, other: &Predicate) -> bool {
        match (self.expr(), other.expr()) {
            (Some(a), Some(b)) => complement::complementary(a, b),
            _ => false,
        }
    }
}
