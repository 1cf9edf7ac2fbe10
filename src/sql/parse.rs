//! Turns the raw statements of a script into [`Statement`]s.

use super::dialect::FlinkDialect;
use super::split::RawStatement;
use super::statement::*;
use super::{ddl, match_input};
use crate::error::{Error, Result};
use crate::limits::MAX_SQL_NESTING;
use crate::source::{ByteSpan, SourceFile};
use sqlparser::ast::ObjectName;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// Parses every raw statement, grouping statement sets.
pub fn parse_statements(file: &SourceFile, raws: Vec<RawStatement>) -> Result<Vec<Statement>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut open_set: Option<(ByteSpan, Vec<Statement>)> = None;
    // `EXPLAIN ... STATEMENT SET BEGIN`, until its `END`: explained, never run.
    let mut explained_set: Option<ByteSpan> = None;
    for raw in raws {
        let words = raw.leading_words(4);
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        if let Some(start) = explained_set {
            if words.as_slice() == ["END"] {
                explained_set = None;
                out.push(Statement {
                    kind: StatementKind::Explain {
                        words: "EXPLAIN STATEMENT SET".into(),
                    },
                    span: start.union(raw.span),
                    hints: Vec::new(),
                });
            }
            continue;
        }
        if words.first() == Some(&"EXPLAIN") && open_set.is_none() && opens_statement_set(&raw) {
            explained_set = Some(raw.span);
            continue;
        }
        let raw = match words.as_slice() {
            ["BEGIN", "STATEMENT", "SET", ..] | ["EXECUTE", "STATEMENT", "SET", "BEGIN"] => {
                if open_set.is_some() {
                    return Err(Error::sql(
                        file,
                        raw.span,
                        "a statement set is already open",
                    ));
                }
                open_set = Some((raw.span, Vec::new()));
                let opening = if words[0] == "BEGIN" { 3 } else { 4 };
                let rest = raw.skip_words(file, opening);
                if rest.tokens.is_empty() {
                    continue;
                }
                rest
            }
            ["END"] => {
                let Some((start, statements)) = open_set.take() else {
                    return Err(Error::sql(
                        file,
                        raw.span,
                        "END without BEGIN STATEMENT SET",
                    ));
                };
                out.push(Statement {
                    kind: StatementKind::StatementSet(statements),
                    span: start.union(raw.span),
                    hints: Vec::new(),
                });
                continue;
            }
            _ => raw,
        };
        // Every statement is read: the errors of all of them are reported at once.
        let statement = match parse_statement(file, raw) {
            Ok(statement) => statement,
            Err(error) => {
                errors.push(error);
                continue;
            }
        };
        match &mut open_set {
            Some((_, inner)) => {
                if !matches!(statement.kind, StatementKind::Insert(_)) {
                    return Err(Error::located(
                        "sql",
                        file,
                        statement.span,
                        "a statement set may only contain INSERT statements",
                        "not an INSERT",
                        None,
                    ));
                }
                inner.push(statement)
            }
            None => out.push(statement),
        }
    }
    if let Some(error) = Error::collect(format!("the statements of {}", file.name), errors) {
        return Err(error);
    }
    if let Some(start) = explained_set {
        return Err(Error::located(
            "sql",
            file,
            start,
            "this explained statement set is never closed",
            "opened here",
            Some("end it with `END;`".into()),
        ));
    }
    if let Some((start, _)) = open_set {
        return Err(Error::located(
            "sql",
            file,
            start,
            "this statement set is never closed",
            "opened here",
            Some("end it with `END;`".into()),
        ));
    }
    Ok(out)
}

/// Whether an `EXPLAIN` statement opens a statement set: `STATEMENT SET BEGIN` comes before
/// anything else of the statement it explains.
fn opens_statement_set(raw: &RawStatement) -> bool {
    let words = raw.leading_words(16);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    words
        .windows(3)
        .position(|w| w == ["STATEMENT", "SET", "BEGIN"])
        .is_some_and(|at| {
            !words[..at]
                .iter()
                .any(|w| matches!(*w, "INSERT" | "SELECT" | "WITH"))
        })
}

/// A sqlparser parser over one statement's tokens, which it takes (they are not copied).
pub fn parser_for(dialect: &FlinkDialect, raw: RawStatement) -> Parser<'_> {
    parser_over(dialect, raw.tokens)
}

/// A parser over a statement that may read `FROM (subquery) MATCH_RECOGNIZE (...)`: the
/// subqueries are lifted out of the tokens (sqlparser reads MATCH_RECOGNIZE after a table name
/// only) and put back into the query by `match_input::restore`.
fn lifting_parser(dialect: &FlinkDialect, raw: RawStatement) -> (Parser<'_>, match_input::Lifted) {
    let tokens = super::flink_syntax::alias_after_match_recognize(raw.tokens);
    let (tokens, lifted) = match_input::lift(tokens);
    (parser_over(dialect, tokens), lifted)
}

fn parser_over(dialect: &FlinkDialect, mut tokens: Vec<TokenWithSpan>) -> Parser<'_> {
    let end = tokens
        .last()
        .map(|t| t.span.end)
        .unwrap_or(sqlparser::tokenizer::Location { line: 0, column: 0 });
    tokens.push(TokenWithSpan::at(Token::EOF, end, end));
    let tokens = super::flink_syntax::rewrite(tokens);
    Parser::new(dialect)
        .with_recursion_limit(MAX_SQL_NESTING)
        .with_tokens_with_locations(tokens)
}

/// Converts a sqlparser error into a diagnostic at the position it names (or the statement).
pub fn parser_error(file: &SourceFile, statement: ByteSpan, error: ParserError) -> Error {
    let error = super::fault::locate(file, statement, error);
    let (message, span) = match &error {
        ParserError::RecursionLimitExceeded => (
            format!("the SQL is nested too deeply (more than {MAX_SQL_NESTING} levels)"),
            statement,
        ),
        ParserError::ParserError(m) | ParserError::TokenizerError(m) => {
            let span = position_in_message(file, m).unwrap_or(statement);
            (strip_position(m), span)
        }
    };
    Error::located(
        "sql",
        file,
        span,
        format!("cannot parse the SQL: {message}"),
        "here",
        None,
    )
}

fn position_in_message(file: &SourceFile, message: &str) -> Option<ByteSpan> {
    let at = message.rfind(" at Line: ")?;
    let rest = &message[at + " at Line: ".len()..];
    let (line, rest) = rest.split_once(", Column: ")?;
    let column: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    let offset = file.offset_of(line.trim().parse().ok()?, column.parse().ok()?);
    let end = file.text[offset..]
        .char_indices()
        .find(|(_, c)| c.is_whitespace())
        .map(|(i, _)| offset + i.max(1))
        .unwrap_or(file.text.len());
    Some(ByteSpan::new(offset, end))
}

fn strip_position(message: &str) -> String {
    match message.rfind(" at Line: ") {
        Some(at) => message[..at].to_string(),
        None => message.to_string(),
    }
}

pub fn name_of(file: &SourceFile, object: &ObjectName) -> Name {
    use sqlparser::ast::Spanned;
    Name {
        parts: object
            .0
            .iter()
            .map(|p| {
                p.as_ident()
                    .map(|i| i.value.clone())
                    .unwrap_or_else(|| p.to_string())
            })
            .collect(),
        span: file.span_of(object.span()),
    }
}

/// The words an `EXPLAIN` may have before the statement it explains (`PLAN FOR`, the explain
/// details, their commas) at most.
const EXPLAIN_WORDS: usize = 16;

/// An `EXPLAIN` submits no job, but Flink parses the statement it explains: one that does not
/// read is the script's error, as anywhere else.
fn check_explained(file: &SourceFile, raw: &RawStatement) -> Result<()> {
    let words = raw.leading_words(EXPLAIN_WORDS);
    let explained = words.iter().skip(1).position(|w| {
        matches!(
            w.as_str(),
            "INSERT" | "SELECT" | "WITH" | "VALUES" | "(" | "EXPLAIN"
        )
    });
    match explained {
        Some(at) => parse_statement(file, raw.skip_words(file, at + 1)).map(|_| ()),
        None => Ok(()),
    }
}

fn parse_statement(file: &SourceFile, raw: RawStatement) -> Result<Statement> {
    let words = raw.leading_words(5);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    super::statement_words::check(file, raw.first_word_span(file), &words)?;
    let (span, hints) = (raw.span, raw.hints());
    let dialect = FlinkDialect;
    let mut lifted = match_input::Lifted::default();
    let fail = |e: ParserError| parser_error(file, span, e);
    let mut kind = match words.as_slice() {
        ["SET", ..] => parse_set(file, &raw)?,
        ["EXPLAIN", ..] => {
            check_explained(file, &raw)?;
            StatementKind::Explain {
                words: words.join(" "),
            }
        }
        ["RESET", ..] => StatementKind::Reset {
            key: raw.tokens.iter().find_map(|t| match &t.token {
                Token::SingleQuotedString(s) => Some(s.clone()),
                _ => None,
            }),
        },
        ["CREATE", rest @ ..] => {
            let rest: Vec<&str> = rest
                .iter()
                .copied()
                .filter(|w| !matches!(*w, "TEMPORARY" | "SYSTEM" | "OR" | "REPLACE" | "ALTER"))
                .collect();
            match rest.first() {
                Some(&"TABLE") => {
                    StatementKind::CreateTable(Box::new(ddl::parse_create_table(file, raw)?))
                }
                Some(&"VIEW") => {
                    let (mut parser, view_lifted) = lifting_parser(&dialect, raw);
                    lifted = view_lifted;
                    StatementKind::CreateView(parse_create_view(file, &mut parser).map_err(fail)?)
                }
                Some(&"FUNCTION") => StatementKind::CreateFunction(
                    parse_create_function(file, &mut parser_for(&dialect, raw)).map_err(fail)?,
                ),
                _ => StatementKind::Other {
                    words: words.join(" "),
                },
            }
        }
        ["ALTER", "TABLE", ..] => {
            let words = words.join(" ");
            let mut parser = parser_for(&dialect, raw);
            let (name, change) = parse_alter_table(file, &mut parser).map_err(fail)?;
            StatementKind::AlterTable {
                name,
                change,
                words,
            }
        }
        ["ALTER", "VIEW", ..] => {
            let words = words.join(" ");
            let (mut parser, view_lifted) = lifting_parser(&dialect, raw);
            lifted = view_lifted;
            match parse_alter_view(file, &mut parser).map_err(fail)? {
                Some((name, change)) => StatementKind::AlterView {
                    name,
                    change,
                    words,
                },
                None => StatementKind::Other { words },
            }
        }
        ["USE", "MODULES", ..] => StatementKind::Other {
            words: words.join(" "),
        },
        ["USE", rest @ ..] => {
            let mut parser = parser_for(&dialect, raw);
            parser.next_token();
            let catalog = rest.first() == Some(&"CATALOG");
            if catalog {
                parser.next_token();
            }
            let name = name_of(file, &parser.parse_object_name(false).map_err(fail)?);
            expect_end(&mut parser).map_err(fail)?;
            StatementKind::Use { catalog, name }
        }
        ["INSERT", ..] | ["EXECUTE", "INSERT", ..] => {
            let (mut parser, insert_lifted) = lifting_parser(&dialect, raw);
            lifted = insert_lifted;
            if words[0] == "EXECUTE" {
                parser.next_token();
            }
            StatementKind::Insert(parse_insert(file, &mut parser).map_err(fail)?)
        }
        ["SELECT", ..] | ["WITH", ..] | ["VALUES", ..] | ["(", ..] => {
            let (mut parser, query_lifted) = lifting_parser(&dialect, raw);
            lifted = query_lifted;
            let query = parser.parse_query().map_err(fail)?;
            expect_end(&mut parser).map_err(fail)?;
            StatementKind::Query(query)
        }
        _ => StatementKind::Other {
            words: words.join(" "),
        },
    };
    let query = match &mut kind {
        StatementKind::Insert(insert) => Some(&mut insert.query),
        StatementKind::Query(query) => Some(query),
        StatementKind::CreateView(view) => Some(&mut view.query),
        StatementKind::AlterView {
            change: AlterViewChange::As(query),
            ..
        } => Some(query),
        _ => None,
    };
    if let Some(query) = query {
        match_input::restore(query, &lifted).map_err(fail)?;
        super::function_names::unquote(query);
        super::named_windows::inline(query);
        super::grouped_windows::nest(query);
    }
    Ok(Statement { kind, span, hints })
}

fn expect_end(parser: &mut Parser) -> Result<(), ParserError> {
    let next = parser.peek_token();
    if next.token == Token::EOF {
        Ok(())
    } else {
        Err(ParserError::ParserError(format!(
            "Expected: end of statement, found: {} at Line: {}, Column: {}",
            next.token, next.span.start.line, next.span.start.column
        )))
    }
}

/// `CREATE [OR REPLACE] [TEMPORARY [SYSTEM]]`, read as tokens (comments and spacing aside):
/// whether TEMPORARY and SYSTEM were written.
fn create_prefix(parser: &mut Parser) -> (bool, bool) {
    let _ = parser.parse_keyword(Keyword::CREATE);
    let _ = parser.parse_keywords(&[Keyword::OR, Keyword::REPLACE]);
    let temporary = parser.parse_keyword(Keyword::TEMPORARY);
    let system = parser.parse_keyword(Keyword::SYSTEM);
    (temporary, system)
}

fn parse_create_view(file: &SourceFile, parser: &mut Parser) -> Result<ViewDef, ParserError> {
    let (temporary, _) = create_prefix(parser);
    parser.expect_keyword(Keyword::VIEW)?;
    let if_not_exists = parser.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
    let name = name_of(file, &parser.parse_object_name(false)?);
    let mut columns = Vec::new();
    if parser.consume_token(&Token::LParen) {
        loop {
            columns.push(parser.parse_identifier()?.value);
            if !parser.consume_token(&Token::Comma) {
                break;
            }
        }
        parser.expect_token(&Token::RParen)?;
    }
    let comment = if parser.parse_keyword(Keyword::COMMENT) {
        Some(parser.parse_literal_string()?)
    } else {
        None
    };
    parser.expect_keyword(Keyword::AS)?;
    let query = parser.parse_query()?;
    expect_end(parser)?;
    Ok(ViewDef {
        name,
        temporary,
        if_not_exists,
        columns,
        comment,
        query,
    })
}

fn parse_create_function(
    file: &SourceFile,
    parser: &mut Parser,
) -> Result<FunctionDef, ParserError> {
    let (temporary, system) = create_prefix(parser);
    parser.expect_keyword(Keyword::FUNCTION)?;
    let _ = parser.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
    let name = name_of(file, &parser.parse_object_name(false)?);
    parser.expect_keyword(Keyword::AS)?;
    let class = parser.parse_literal_string()?;
    let mut language = Language::Java;
    if parser.parse_keyword(Keyword::LANGUAGE) {
        let word = parser.parse_identifier()?.value.to_uppercase();
        language = match word.as_str() {
            "JAVA" => Language::Java,
            "SCALA" => Language::Scala,
            "PYTHON" => Language::Python,
            other => {
                return Err(ParserError::ParserError(format!(
                    "Expected: JAVA, SCALA or PYTHON, found: {other}"
                )))
            }
        };
    }
    // `USING JAR '...' [, JAR '...']`: the function's implementation comes from these.
    let mut resources = Vec::new();
    if parser.parse_keyword(Keyword::USING) {
        loop {
            let kind = parser.parse_identifier()?.value.to_uppercase();
            let path = parser.parse_literal_string()?;
            resources.push(format!("{kind} '{path}'"));
            if !parser.consume_token(&Token::Comma) {
                break;
            }
        }
    }
    expect_end(parser)?;
    Ok(FunctionDef {
        name,
        class,
        language,
        temporary,
        system,
        resources,
    })
}

/// `ALTER TABLE [IF EXISTS] name` and the change: options set or reset, renames and schema
/// changes (columns, watermark, primary key) are read; any other change (partitions,
/// distribution, ...) is `Other`, read past.
fn parse_alter_table(
    file: &SourceFile,
    parser: &mut Parser,
) -> Result<(Name, AlterChange), ParserError> {
    parser.expect_keyword(Keyword::ALTER)?;
    parser.expect_keyword(Keyword::TABLE)?;
    let _ = parser.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
    let name = name_of(file, &parser.parse_object_name(false)?);
    let modelled = parser.maybe_parse(|p| {
        let change = if p.parse_keyword(Keyword::SET) {
            p.expect_token(&Token::LParen)?;
            let options = p.parse_comma_separated(|p| {
                let key = p.parse_literal_string()?;
                p.expect_token(&Token::Eq)?;
                Ok((key, p.parse_literal_string()?))
            })?;
            p.expect_token(&Token::RParen)?;
            AlterChange::SetOptions(options)
        } else if p.parse_keyword(Keyword::RESET) {
            p.expect_token(&Token::LParen)?;
            let keys = p.parse_comma_separated(|p| p.parse_literal_string())?;
            p.expect_token(&Token::RParen)?;
            AlterChange::ResetOptions(keys)
        } else if p.parse_keywords(&[Keyword::RENAME, Keyword::TO]) {
            AlterChange::RenameTo(name_of(file, &p.parse_object_name(false)?))
        } else {
            AlterChange::Schema(super::ddl::alter_schema(file, p, &name)?)
        };
        expect_end(p)?;
        Ok(change)
    })?;
    Ok((name, modelled.unwrap_or(AlterChange::Other)))
}

/// `ALTER VIEW name RENAME TO new_name` or `ALTER VIEW name AS query`; None for another form
/// (Flink has none: it is read past as a statement the tool does not model).
fn parse_alter_view(
    file: &SourceFile,
    parser: &mut Parser,
) -> Result<Option<(Name, AlterViewChange)>, ParserError> {
    let head = parser.maybe_parse(|p| {
        p.expect_keyword(Keyword::ALTER)?;
        p.expect_keyword(Keyword::VIEW)?;
        let name = name_of(file, &p.parse_object_name(false)?);
        if p.parse_keywords(&[Keyword::RENAME, Keyword::TO]) {
            let new_name = name_of(file, &p.parse_object_name(false)?);
            expect_end(p)?;
            return Ok((name, Some(new_name)));
        }
        p.expect_keyword(Keyword::AS)?;
        Ok((name, None))
    })?;
    Ok(match head {
        None => None,
        Some((name, Some(new_name))) => Some((name, AlterViewChange::RenameTo(new_name))),
        Some((name, None)) => {
            let query = parser.parse_query()?;
            expect_end(parser)?;
            Some((name, AlterViewChange::As(query)))
        }
    })
}

fn parse_insert(file: &SourceFile, parser: &mut Parser) -> Result<Insert, ParserError> {
    parser.expect_keyword(Keyword::INSERT)?;
    let overwrite = match parser.parse_one_of_keywords(&[Keyword::INTO, Keyword::OVERWRITE]) {
        Some(Keyword::OVERWRITE) => true,
        Some(_) => false,
        None => return parser.expected("INTO or OVERWRITE", parser.peek_token()),
    };
    let sink = name_of(file, &parser.parse_object_name(false)?);
    if parser.parse_keyword(Keyword::PARTITION) {
        parser.expect_token(&Token::LParen)?;
        parser.parse_comma_separated(|p| p.parse_expr())?;
        parser.expect_token(&Token::RParen)?;
    }
    let mut columns = Vec::new();
    let is_column_list = parser.peek_token().token == Token::LParen
        && !matches!(&parser.peek_nth_token(1).token, Token::Word(w) if matches!(w.keyword, Keyword::SELECT | Keyword::WITH | Keyword::VALUES));
    if is_column_list {
        parser.expect_token(&Token::LParen)?;
        loop {
            columns.push(parser.parse_identifier()?.value);
            if !parser.consume_token(&Token::Comma) {
                break;
            }
        }
        parser.expect_token(&Token::RParen)?;
    }
    let query = parser.parse_query()?;
    // Flink 2.3: `ON CONFLICT DO ERROR | NOTHING | DEDUPLICATE`, how the sink resolves rows
    // of other upsert keys mapping to one primary key (its materializer's state).
    let on_conflict = if parser.parse_keywords(&[Keyword::ON, Keyword::CONFLICT, Keyword::DO]) {
        let strategy = parser.parse_identifier()?.value.to_uppercase();
        if !matches!(strategy.as_str(), "ERROR" | "NOTHING" | "DEDUPLICATE") {
            return Err(ParserError::ParserError(format!(
                "Expected: ERROR, NOTHING or DEDUPLICATE after ON CONFLICT DO, found: {strategy}"
            )));
        }
        Some(format!("ON CONFLICT DO {strategy}"))
    } else {
        None
    };
    expect_end(parser)?;
    Ok(Insert {
        sink,
        columns,
        overwrite,
        query,
        on_conflict,
    })
}

fn parse_set(file: &SourceFile, raw: &RawStatement) -> Result<StatementKind> {
    let significant: Vec<&TokenWithSpan> = raw
        .tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .skip(1)
        .collect();
    if significant.is_empty() {
        return Ok(StatementKind::Other {
            words: "SET".into(),
        });
    }
    let eq = significant.iter().position(|t| t.token == Token::Eq);
    let Some(eq) = eq else {
        return Err(Error::located(
            "sql",
            file,
            raw.span,
            "a SET statement needs `'key' = 'value'`",
            "no `=` here",
            None,
        ));
    };
    let text_of = |tokens: &[&TokenWithSpan]| -> String {
        match tokens {
            [one] => match &one.token {
                Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => s.clone(),
                Token::Word(w) => w.value.clone(),
                other => other.to_string(),
            },
            many => many
                .iter()
                .map(|t| match &t.token {
                    Token::Word(w) => w.value.clone(),
                    other => other.to_string(),
                })
                .collect(),
        }
    };
    let key_tokens = &significant[..eq];
    let value_tokens = &significant[eq + 1..];
    if key_tokens.is_empty() {
        return Err(Error::sql(
            file,
            raw.span,
            "a SET statement needs a key before `=`",
        ));
    }
    let key_span = file
        .span_of(key_tokens[0].span)
        .union(file.span_of(key_tokens[key_tokens.len() - 1].span));
    Ok(StatementKind::Set(Setting {
        key: text_of(key_tokens).trim().to_string(),
        value: text_of(value_tokens).trim().to_string(),
        key_span,
    }))
}
