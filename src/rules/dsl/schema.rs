//! Fact paths checked against the schema (`crate::fact_schema`), with located errors.

use crate::fact_schema::PathNotFound;
pub use crate::fact_schema::{FactSchema, FactType};

use super::{suggest, DslError, Span};

pub(super) trait CheckPath {
    /// Like [`FactSchema::type_of`], but explains a miss as an error at `span`.
    fn check_path(&self, path: &str, span: Span) -> Result<&FactType, DslError>;
}

impl CheckPath for FactSchema {
    /// Like [`FactSchema::type_of`], but explains a miss as an error at `span`.
    fn check_path(&self, path: &str, span: Span) -> Result<&FactType, DslError> {
        let not_found = match self.resolve(path) {
            Ok(ty) => return Ok(ty),
            Err(not_found) => not_found,
        };
        let error = match not_found {
            PathNotFound::MissingField => {
                let known = self.paths();
                let nearest = suggest::nearest(path, known.iter().map(|(name, _)| name.as_str()));
                let mut error = DslError::new(span, format!("unknown fact path `{path}`"));
                error.help = suggest::did_you_mean(&nearest);
                error
            }
            PathNotFound::NoFields { prefix, ty } => DslError::new(
                span,
                format!("unknown fact path `{path}`: `{prefix}` is a {ty}, which has no fields"),
            )
            .with_help(format!("did you mean `{prefix}`?")),
        };
        Err(error)
    }
}
