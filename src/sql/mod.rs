//! The SQL front end: Flink dialect, script splitting, statements with their spans.

pub mod aggregate_names;
pub mod ddl;
pub mod dialect;
pub mod fault;
pub mod flink_syntax;
pub mod function_names;
pub mod grouped_windows;
pub mod interval;
pub mod match_input;
pub mod named_windows;
pub mod parse;
pub mod quoted;
pub mod split;
mod state_ttl_keys;
pub mod statement;
pub mod statement_words;
pub mod types;

use crate::error::{Error, Result};
use crate::limits::MAX_SCRIPT_BYTES;
use crate::source::{ByteSpan, SourceFile};
pub use statement::*;

/// The expression of a SELECT item (`e` or `e AS a`); none for `*` and `t.*`.
pub fn item_expr(item: &sqlparser::ast::SelectItem) -> Option<&sqlparser::ast::Expr> {
    use sqlparser::ast::SelectItem;
    match item {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
        _ => None,
    }
}

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

/// Whether `name` reads the same unquoted: letters, digits and `_`, not a keyword.
fn is_plain_identifier(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && sqlparser::keywords::ALL_KEYWORDS
            .binary_search(&name.to_uppercase().as_str())
            .is_err()
}

/// SQL text in a canonical spelling (quotes that change nothing dropped): keywords and function names uppercased (they are
/// case-insensitive in Flink; identifiers are not), tokens separated by single spaces, comments
/// dropped. Text that does not tokenize is returned with its whitespace collapsed.
pub fn canonical_text(text: &str) -> String {
    use sqlparser::keywords::Keyword;
    use sqlparser::tokenizer::{Token, Tokenizer};
    let Ok(tokens) = Tokenizer::new(&dialect::FlinkDialect, text).tokenize() else {
        return text.split_whitespace().collect::<Vec<_>>().join(" ");
    };
    let tokens: Vec<Token> = tokens
        .into_iter()
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .collect();
    let shown: Vec<String> = tokens
        .iter()
        .enumerate()
        .map(|(i, token)| match token {
            Token::Word(w)
                if w.quote_style.is_none()
                    && (w.keyword != Keyword::NoKeyword
                        || matches!(tokens.get(i + 1), Some(Token::LParen))) =>
            {
                w.value.to_uppercase()
            }
            // `` `name` `` is `name` when the quotes change nothing (not a keyword, plain).
            Token::Word(w) if w.quote_style == Some('`') && is_plain_identifier(&w.value) => {
                w.value.clone()
            }
            other => other.to_string(),
        })
        .collect();
    shown.join(" ")
}
