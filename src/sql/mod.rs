//! The SQL front end: Flink dialect, script splitting, statements with their spans.

pub mod ddl;
pub mod dialect;
pub mod parse;
pub mod split;
pub mod statement;

use crate::error::{Error, Result};
use crate::limits::MAX_SCRIPT_BYTES;
use crate::source::{ByteSpan, SourceFile};
pub use statement::*;

/// A parsed deployment script.
#[derive(Debug, Clone)]
pub struct Script {
    pub file: SourceFile,
    pub statements: Vec<Statement>,
}

/// Parses a whole script. Call it from a thread with a large stack (see `limits`).
pub fn parse_script(file: SourceFile) -> Result<Script> {
    if file.text.len() > MAX_SCRIPT_BYTES {
        return Err(Error::Limit {
            message: format!(
                "{} is {} bytes; the limit is {} bytes",
                file.name,
                file.text.len(),
                MAX_SCRIPT_BYTES
            ),
            help: Some("check that this is the SQL script of one deployment".into()),
        });
    }
    let raws = split::split(&file)?;
    let statements = parse::parse_statements(&file, raws)?;
    if statements.is_empty() {
        return Err(Error::located(
            "sql",
            &file,
            ByteSpan::new(0, file.text.len().min(1)),
            format!("{} contains no SQL statement", file.name),
            "empty script",
            Some("pass the deployment's SQL script".into()),
        ));
    }
    Ok(Script { file, statements })
}
