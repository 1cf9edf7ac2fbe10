//! `CREATE [TEMPORARY] TABLE` in Flink's form: computed columns, metadata columns, WATERMARK,
//! PRIMARY KEY ... NOT ENFORCED, PARTITIONED BY, WITH options and LIKE.

use super::dialect::FlinkDialect;
use super::parse::{name_of, parser_error, parser_for};
use super::split::RawStatement;
use super::statement::{
    ColumnDef, ColumnKind, ColumnPosition, LikeFeature, LikeOption, LikeStrategy, Name, SchemaEdit,
    TableDef, WatermarkDef,
};
use crate::error::Result;
use crate::source::{ByteSpan, SourceFile};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

pub fn parse_create_table(file: &SourceFile, raw: RawStatement) -> Result<TableDef> {
    let dialect = FlinkDialect;
    let span = raw.span;
    let mut parser = parser_for(&dialect, raw);
    table(file, &mut parser).map_err(|e| parser_error(file, span, e))
}

fn word_is(parser: &Parser, n: usize, word: &str) -> bool {
    matches!(&parser.peek_nth_token_ref(n).token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
}

fn table(file: &SourceFile, parser: &mut Parser) -> Result<TableDef, ParserError> {
    parser.expect_keyword(Keyword::CREATE)?;
    let _ = parser.parse_keywords(&[Keyword::OR, Keyword::REPLACE]);
    let temporary = parser.parse_keyword(Keyword::TEMPORARY);
    parser.expect_keyword(Keyword::TABLE)?;
    let if_not_exists = parser.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
    let name = name_of(file, &parser.parse_object_name(false)?);
    let mut def = TableDef {
        temporary,
        if_not_exists,
        ..TableDef::empty(name)
    };
    if parser.consume_token(&Token::LParen) {
        loop {
            element(file, parser, &mut def)?;
            if parser.consume_token(&Token::Comma) {
                continue;
            }
            parser.expect_token(&Token::RParen)?;
            break;
        }
        primary_key_not_null(&mut def);
    }
    loop {
        if parser.parse_keyword(Keyword::COMMENT) {
            let text = parser.parse_literal_string()?;
            def.comments.insert(0, format!("COMMENT '{text}'"));
        } else if word_is(parser, 0, "PARTITIONED") {
            parser.next_token();
            parser.expect_keyword(Keyword::BY)?;
            def.partitioned_by = identifier_list(parser)?;
        } else if word_is(parser, 0, "DISTRIBUTED") {
            parser.next_token();
            def.distribution = Some(distribution(parser));
        } else if parser.parse_keyword(Keyword::WITH) {
            (def.options, def.option_spans) = options(file, parser)?;
        } else if parser.parse_keyword(Keyword::LIKE) {
            def.like = Some(name_of(file, &parser.parse_object_name(false)?));
            if parser.consume_token(&Token::LParen) {
                def.like_options = like_options(parser)?;
            }
        } else if parser.peek_token().token == Token::EOF {
            break;
        } else if parser.parse_keyword(Keyword::AS) {
            // CTAS: a sink declaration plus the query that fills it; nothing may follow.
            def.query = Some(parser.parse_query()?);
            if parser.peek_token().token != Token::EOF {
                return parser.expected("the end of the statement", parser.peek_token());
            }
            break;
        } else {
            return parser.expected(
                "COMMENT, PARTITIONED BY, WITH, LIKE, AS or the end of the statement",
                parser.peek_token(),
            );
        }
    }
    Ok(def)
}

fn element(file: &SourceFile, parser: &mut Parser, def: &mut TableDef) -> Result<(), ParserError> {
    let start = parser.peek_token().span;
    if word_is(parser, 0, "WATERMARK") {
        parser.next_token();
        parser.expect_keyword(Keyword::FOR)?;
        let column = parser.parse_identifier()?.value;
        parser.expect_keyword(Keyword::AS)?;
        let expr = parser.parse_expr()?;
        valid_intervals(&expr)?;
        let end = parser.peek_nth_token_ref(0).span;
        def.watermark = Some(WatermarkDef {
            column,
            expr,
            span: file.span_of(start.union(&end)),
        });
        return Ok(());
    }
    if parser.parse_keyword(Keyword::CONSTRAINT) {
        parser.parse_identifier()?;
    }
    if parser.parse_keywords(&[Keyword::PRIMARY, Keyword::KEY]) {
        def.primary_key = Some(identifier_list(parser)?);
        not_enforced(parser)?;
        return Ok(());
    }
    let name = parser.parse_identifier()?.value;
    let kind = if parser.parse_keyword(Keyword::AS) {
        ColumnKind::Computed {
            expr: Box::new(parser.parse_expr()?),
        }
    } else {
        let mut data_type = data_type(parser)?;
        // Nullability is part of Flink's column type: `VARCHAR(128) NOT NULL METADATA FROM ...`.
        let metadata_nullability = parser.maybe_parse(|p| {
            let not_null = if p.parse_keywords(&[Keyword::NOT, Keyword::NULL]) {
                true
            } else if p.parse_keyword(Keyword::NULL) {
                false
            } else {
                return p.expected("NOT NULL or NULL", p.peek_token());
            };
            if word_is(p, 0, "METADATA") {
                return Ok(not_null);
            }
            p.expected("METADATA", p.peek_token())
        })?;
        if metadata_nullability == Some(true) {
            data_type.push_str(" NOT NULL");
        }
        if word_is(parser, 0, "METADATA") {
            parser.next_token();
            // Without FROM, the metadata key is the column's name (Flink's DDL): one meaning,
            // one spelling.
            let key = if parser.parse_keyword(Keyword::FROM) {
                parser.parse_literal_string()?
            } else {
                name.clone()
            };
            let is_virtual = word_is(parser, 0, "VIRTUAL");
            if is_virtual {
                parser.next_token();
            }
            ColumnKind::Metadata {
                data_type,
                key,
                is_virtual,
            }
        } else {
            ColumnKind::Physical { data_type }
        }
    };
    let mut kind = kind;
    loop {
        if parser.parse_keywords(&[Keyword::NOT, Keyword::NULL]) {
            // `b INT NOT NULL` is another type than `b INT`: the rows a stateful operator
            // stores, and their serializer, carry it.
            set_not_null(&mut kind);
            continue;
        }
        if parser.parse_keyword(Keyword::NULL) {
            continue;
        }
        if parser.parse_keywords(&[Keyword::PRIMARY, Keyword::KEY]) {
            not_enforced(parser)?;
            def.primary_key = Some(vec![name.clone()]);
            continue;
        }
        if parser.parse_keyword(Keyword::COMMENT) {
            let text = parser.parse_literal_string()?;
            def.comments.push(format!("{name} COMMENT '{text}'"));
            continue;
        }
        break;
    }
    let end = parser.peek_nth_token_ref(0).span;
    def.columns.push(ColumnDef {
        name,
        kind,
        span: file.span_of(start.union(&end)),
    });
    Ok(())
}

/// The schema change of `ALTER TABLE name` after its name: `ADD` / `MODIFY` of schema
/// components (one, or a parenthesized list), `DROP` of columns, the watermark or the primary
/// key, `RENAME col TO col2`. Partitions and distribution are not schema components: an error,
/// so that the caller reads the statement as a change it does not model.
pub fn alter_schema(
    file: &SourceFile,
    parser: &mut Parser,
    name: &Name,
) -> Result<Vec<SchemaEdit>, ParserError> {
    let not_modelled = |parser: &Parser| {
        ["PARTITION", "PARTITIONS", "DISTRIBUTION", "IF"]
            .iter()
            .any(|w| word_is(parser, 0, w))
    };
    if parser.parse_keyword(Keyword::ADD) || word_is(parser, 0, "MODIFY") {
        let modify = word_is(parser, 0, "MODIFY");
        if modify {
            parser.next_token();
        }
        if not_modelled(parser) {
            return parser.expected("a column, WATERMARK or PRIMARY KEY", parser.peek_token());
        }
        let mut edits = Vec::new();
        if parser.consume_token(&Token::LParen) {
            loop {
                edits.push(component(file, parser, name, modify)?);
                if !parser.consume_token(&Token::Comma) {
                    break;
                }
            }
            parser.expect_token(&Token::RParen)?;
        } else {
            edits.push(component(file, parser, name, modify)?);
        }
        return Ok(edits);
    }
    if parser.parse_keyword(Keyword::DROP) {
        if not_modelled(parser) {
            return parser.expected("a column, WATERMARK or PRIMARY KEY", parser.peek_token());
        }
        if parser.parse_keywords(&[Keyword::PRIMARY, Keyword::KEY]) {
            return Ok(vec![SchemaEdit::DropPrimaryKey]);
        }
        if parser.parse_keyword(Keyword::CONSTRAINT) {
            parser.parse_identifier()?;
            return Ok(vec![SchemaEdit::DropPrimaryKey]);
        }
        if word_is(parser, 0, "WATERMARK") {
            parser.next_token();
            return Ok(vec![SchemaEdit::DropWatermark]);
        }
        let columns = if parser.peek_token().token == Token::LParen {
            identifier_list(parser)?
        } else {
            vec![parser.parse_identifier()?.value]
        };
        return Ok(vec![SchemaEdit::DropColumns(columns)]);
    }
    if parser.parse_keyword(Keyword::RENAME) {
        let from = parser.parse_identifier()?.value;
        parser.expect_keyword(Keyword::TO)?;
        let to = parser.parse_identifier()?.value;
        return Ok(vec![SchemaEdit::RenameColumn { from, to }]);
    }
    parser.expected("ADD, MODIFY, DROP or RENAME", parser.peek_token())
}

/// One schema component of `ALTER TABLE ... ADD|MODIFY`: a column (with its position), the
/// watermark or the primary key, read as in CREATE TABLE.
fn component(
    file: &SourceFile,
    parser: &mut Parser,
    name: &Name,
    modify: bool,
) -> Result<SchemaEdit, ParserError> {
    let mut scratch = TableDef::empty(name.clone());
    element(file, parser, &mut scratch)?;
    if let Some(def) = scratch.watermark {
        return Ok(SchemaEdit::Watermark {
            def: Box::new(def),
            modify,
        });
    }
    let Some(column) = scratch.columns.pop() else {
        return match scratch.primary_key {
            Some(columns) => Ok(SchemaEdit::PrimaryKey { columns, modify }),
            None => parser.expected("a column, WATERMARK or PRIMARY KEY", parser.peek_token()),
        };
    };
    if scratch.primary_key.is_some() {
        // `ADD c INT PRIMARY KEY NOT ENFORCED`: two changes in one; not modelled.
        return parser.expected("a column without PRIMARY KEY", parser.peek_token());
    }
    let position = if word_is(parser, 0, "FIRST") {
        parser.next_token();
        ColumnPosition::First
    } else if word_is(parser, 0, "AFTER") {
        parser.next_token();
        ColumnPosition::After(parser.parse_identifier()?.value)
    } else {
        ColumnPosition::Unsaid
    };
    Ok(SchemaEdit::Column {
        column,
        modify,
        position,
    })
}

/// A column type, in Flink's one spelling of it (see [`super::types`]): Flink types (`ROW<a INT>`,
/// `MAP<K, V>`, `TIMESTAMP_LTZ(3)`) need no modelling beyond equality.
fn data_type(parser: &mut Parser) -> Result<String, ParserError> {
    let mut text = String::new();
    let mut depth: i32 = 0;
    loop {
        let token = parser.peek_token().token;
        let ends = match &token {
            Token::EOF => true,
            Token::Comma | Token::RParen if depth == 0 => true,
            Token::Word(w) if depth == 0 && w.quote_style.is_none() => {
                matches!(
                    w.value.to_uppercase().as_str(),
                    "METADATA" | "NOT" | "NULL" | "PRIMARY" | "COMMENT" | "FIRST" | "AFTER"
                )
            }
            _ => false,
        };
        if ends {
            break;
        }
        match token {
            Token::LParen | Token::Lt => depth += 1,
            Token::RParen | Token::Gt => depth -= 1,
            Token::ShiftRight => depth -= 2,
            _ => {}
        }
        if !text.is_empty()
            && !matches!(
                token,
                Token::LParen
                    | Token::RParen
                    | Token::Comma
                    | Token::Lt
                    | Token::Gt
                    | Token::ShiftRight
            )
            && !text.ends_with(['(', '<'])
        {
            text.push(' ');
        }
        text.push_str(&token.to_string());
        parser.next_token();
    }
    if text.is_empty() {
        return parser.expected("a column type or AS", parser.peek_token());
    }
    Ok(super::types::canonical_type(&text))
}

/// Marks a physical or metadata column's type `NOT NULL` (once).
fn set_not_null(kind: &mut ColumnKind) {
    if let ColumnKind::Physical { data_type } | ColumnKind::Metadata { data_type, .. } = kind {
        if !data_type.ends_with(" NOT NULL") {
            data_type.push_str(" NOT NULL");
        }
    }
}

/// Flink makes every column of a primary key `NOT NULL`: `a INT, PRIMARY KEY (a) NOT ENFORCED`
/// declares the same column as `a INT NOT NULL, PRIMARY KEY (a) NOT ENFORCED`.
fn primary_key_not_null(def: &mut TableDef) {
    let Some(key) = def.primary_key.clone() else {
        return;
    };
    for column in def.columns.iter_mut().filter(|c| key.contains(&c.name)) {
        set_not_null(&mut column.kind);
    }
}

fn not_enforced(parser: &mut Parser) -> Result<(), ParserError> {
    parser.expect_keyword(Keyword::NOT)?;
    if word_is(parser, 0, "ENFORCED") {
        parser.next_token();
        Ok(())
    } else {
        parser.expected(
            "ENFORCED (Flink only accepts PRIMARY KEY ... NOT ENFORCED)",
            parser.peek_token(),
        )
    }
}

fn identifier_list(parser: &mut Parser) -> Result<Vec<String>, ParserError> {
    parser.expect_token(&Token::LParen)?;
    let mut names = Vec::new();
    loop {
        names.push(parser.parse_identifier()?.value);
        if !parser.consume_token(&Token::Comma) {
            break;
        }
    }
    parser.expect_token(&Token::RParen)?;
    Ok(names)
}

/// The WITH options in order, and where each `'key' = 'value'` is written.
type Options = (Vec<(String, String)>, Vec<ByteSpan>);

fn options(file: &SourceFile, parser: &mut Parser) -> Result<Options, ParserError> {
    parser.expect_token(&Token::LParen)?;
    let (mut out, mut spans) = (Vec::new(), Vec::new());
    if parser.consume_token(&Token::RParen) {
        return Ok((out, spans));
    }
    loop {
        let start = parser.peek_token().span;
        let key = parser.parse_literal_string()?;
        parser.expect_token(&Token::Eq)?;
        let end = parser.peek_token().span;
        let value = parser.parse_literal_string()?;
        out.push((key, value));
        spans.push(file.span_of(start.union(&end)));
        if !parser.consume_token(&Token::Comma) {
            break;
        }
    }
    parser.expect_token(&Token::RParen)?;
    Ok((out, spans))
}

/// `(INCLUDING ALL EXCLUDING OPTIONS ...)` after `LIKE base`, the `(` consumed.
fn like_options(parser: &mut Parser) -> Result<Vec<LikeOption>, ParserError> {
    let mut out = Vec::new();
    while !parser.consume_token(&Token::RParen) {
        let strategy = match &parser.peek_token().token {
            Token::Word(w) if w.value.eq_ignore_ascii_case("INCLUDING") => LikeStrategy::Including,
            Token::Word(w) if w.value.eq_ignore_ascii_case("EXCLUDING") => LikeStrategy::Excluding,
            Token::Word(w) if w.value.eq_ignore_ascii_case("OVERWRITING") => {
                LikeStrategy::Overwriting
            }
            _ => {
                return parser.expected(
                    "INCLUDING, EXCLUDING, OVERWRITING or )",
                    parser.peek_token(),
                )
            }
        };
        parser.next_token();
        let feature = match &parser.peek_token().token {
            Token::Word(w) => LikeFeature::from_word(&w.value),
            _ => None,
        };
        let Some(feature) = feature else {
            return parser.expected(
                "ALL, CONSTRAINTS, GENERATED, METADATA, OPTIONS, PARTITIONS or WATERMARKS",
                parser.peek_token(),
            );
        };
        let allowed = strategy != LikeStrategy::Overwriting
            || !matches!(
                feature,
                LikeFeature::All | LikeFeature::Constraints | LikeFeature::Partitions
            );
        if !allowed {
            return parser.expected(
                "INCLUDING or EXCLUDING (OVERWRITING applies to GENERATED, METADATA, OPTIONS and WATERMARKS)",
                parser.peek_token(),
            );
        }
        parser.next_token();
        out.push(LikeOption { strategy, feature });
    }
    Ok(out)
}

/// `BY HASH(k) INTO 4 BUCKETS` after DISTRIBUTED (up to PARTITIONED BY, WITH, LIKE or the
/// end), its words in canonical case and spacing.
fn distribution(parser: &mut Parser) -> String {
    let mut words: Vec<String> = Vec::new();
    loop {
        let token = parser.peek_token().token;
        let ends = match &token {
            Token::EOF => true,
            Token::Word(w) => {
                w.quote_style.is_none()
                    && (w.keyword == Keyword::WITH
                        || w.keyword == Keyword::LIKE
                        || w.value.eq_ignore_ascii_case("PARTITIONED"))
            }
            _ => false,
        };
        if ends {
            break;
        }
        words.push(match &token {
            Token::Word(w) if w.quote_style.is_none() && w.keyword != Keyword::NoKeyword => {
                w.value.to_uppercase()
            }
            Token::Word(w) => w.value.clone(),
            other => other.to_string(),
        });
        parser.next_token();
    }
    words
        .join(" ")
        .replace(" ( ", "(")
        .replace(" (", "(")
        .replace("( ", "(")
        .replace(" )", ")")
        .replace(" ,", ",")
}

/// Flink reads every interval literal of a watermark when the table is created (`INTERVAL
/// '1x' SECOND` is refused), whether or not a later `ALTER TABLE` replaces the watermark.
fn valid_intervals(expr: &sqlparser::ast::Expr) -> Result<(), ParserError> {
    use sqlparser::ast::{visit_expressions, Expr};
    let mut invalid = None;
    let _ = visit_expressions(expr, |e| {
        if let Expr::Interval(interval) = e {
            if let Err(why) = super::interval::interval_value(interval) {
                invalid = Some(why);
                return std::ops::ControlFlow::Break(());
            }
        }
        std::ops::ControlFlow::Continue(())
    });
    match invalid {
        Some(why) => Err(ParserError::ParserError(format!(
            "the watermark's interval: {why}"
        ))),
        None => Ok(()),
    }
}

impl TableDef {
    /// A permanent table of that name declaring nothing yet.
    fn empty(name: Name) -> TableDef {
        TableDef {
            name,
            temporary: false,
            if_not_exists: false,
            columns: Vec::new(),
            watermark: None,
            primary_key: None,
            partitioned_by: Vec::new(),
            distribution: None,
            options: Vec::new(),
            option_spans: Vec::new(),
            like: None,
            like_options: Vec::new(),
            comments: Vec::new(),
            query: None,
        }
    }
}
