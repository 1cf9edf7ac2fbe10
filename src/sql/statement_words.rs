//! The statements Flink SQL accepts, by their leading words: a statement the tool does not
//! model is read past (and compared as text), but one Flink would reject — a mistyped keyword
//! such as `INSET INTO` — is a located error, never silently dropped.

use crate::error::{Error, Result};
use crate::source::{ByteSpan, SourceFile};

/// The words a Flink SQL statement may start with.
const STATEMENT_STARTS: &[&str] = &[
    "SELECT", "WITH", "VALUES", "(", "INSERT", "EXECUTE", "CREATE", "DROP", "ALTER", "DESCRIBE",
    "DESC", "EXPLAIN", "USE", "SHOW", "LOAD", "UNLOAD", "SET", "RESET", "ADD", "REMOVE", "BEGIN",
    "END", "ANALYZE", "TRUNCATE", "DELETE", "UPDATE", "CALL", "REPLACE", "COMPILE", "STOP",
];

/// What `CREATE [TEMPORARY] [SYSTEM] [OR REPLACE]` may create.
const CREATABLE: &[&str] = &[
    "TABLE",
    "VIEW",
    "FUNCTION",
    "CATALOG",
    "DATABASE",
    "MATERIALIZED",
    "MODEL",
];

/// A located error when Flink would reject the statement for its leading words.
pub fn check(file: &SourceFile, span: ByteSpan, words: &[&str]) -> Result<()> {
    let Some(first) = words.first() else {
        return Ok(());
    };
    let reject = |word: &str, known: &[&str]| {
        let nearest = known
            .iter()
            .min_by_key(|k| crate::suggest::edit_distance(word, k))
            .filter(|k| crate::suggest::edit_distance(word, k) <= 2);
        Err(Error::located(
            "sql",
            file,
            span,
            format!("`{word}` does not start a Flink SQL statement here"),
            "Flink rejects this statement",
            nearest.map(|k| format!("did you mean `{k}`?")),
        ))
    };
    if !STATEMENT_STARTS.contains(first) {
        return reject(first, STATEMENT_STARTS);
    }
    if *first == "CREATE" {
        let object = words[1..]
            .iter()
            .find(|w| !matches!(**w, "TEMPORARY" | "SYSTEM" | "OR" | "REPLACE" | "ALTER"));
        if let Some(object) = object {
            if !CREATABLE.contains(object) {
                return reject(object, CREATABLE);
            }
        }
    }
    Ok(())
}
