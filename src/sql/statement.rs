//! The statements of a Flink SQL deployment script, as the tool models them.

use crate::source::ByteSpan;
use sqlparser::ast::{Expr, Query};

#[derive(Debug, Clone)]
pub struct Statement {
    pub kind: StatementKind,
    pub span: ByteSpan,
    /// Optimizer hints (`/*+ STATE_TTL(...) */`), whitespace-normalized: they can change state.
    pub hints: Vec<String>,
}

#[derive(Debug, Clone)]
pub enum StatementKind {
    CreateTable(Box<TableDef>),
    CreateView(ViewDef),
    CreateFunction(FunctionDef),
    Set(Setting),
    Reset {
        key: Option<String>,
    },
    Insert(Insert),
    Query(Box<Query>),
    /// `BEGIN STATEMENT SET; ... END;` or `EXECUTE STATEMENT SET BEGIN ... END;`
    StatementSet(Vec<Statement>),
    /// `USE CATALOG c` (`catalog` true) or `USE [c.]db`: where unqualified names live.
    Use {
        catalog: bool,
        name: Name,
    },
    /// `ALTER TABLE [IF EXISTS] name ...`: the change, as far as the tool models it.
    AlterTable {
        name: Name,
        change: AlterChange,
        /// The leading words, for messages.
        words: String,
    },
    /// `ALTER VIEW name RENAME TO new_name` or `ALTER VIEW name AS query` (the two forms Flink
    /// has; any other is read past as `Other`).
    AlterView {
        name: Name,
        change: AlterViewChange,
        /// The leading words, for messages.
        words: String,
    },
    /// `EXPLAIN [details] PLAN FOR <statement>`, `EXPLAIN <statement>` or `EXPLAIN STATEMENT
    /// SET BEGIN ... END`: Flink prints a plan and submits no job, so what it explains is no
    /// query of the job (it is reported, never compared).
    Explain {
        /// The statement as written, for messages.
        words: String,
    },
    /// A statement the tool reads past without modelling it (DROP, SHOW, USE MODULES, ...).
    Other {
        words: String,
    },
}

/// What an `ALTER TABLE` does to the table, as Flink documents it.
#[derive(Debug, Clone)]
pub enum AlterChange {
    /// `SET ('k' = 'v', ...)`: options set or replaced.
    SetOptions(Vec<(String, String)>),
    /// `RESET ('k', ...)`: options removed.
    ResetOptions(Vec<String>),
    /// `RENAME TO new_name`.
    RenameTo(Name),
    /// `ADD`, `MODIFY` or `DROP` of columns, the watermark or the primary key, `RENAME col TO
    /// col2`: the schema changes, in order.
    Schema(Vec<SchemaEdit>),
    /// Partitions, distribution, ...: not modelled.
    Other,
}

/// One change of a table's schema by `ALTER TABLE`, as Flink documents them.
#[derive(Debug, Clone)]
pub enum SchemaEdit {
    /// `ADD col ...` (`modify` false) or `MODIFY col ...`, at a position.
    Column {
        column: ColumnDef,
        modify: bool,
        position: ColumnPosition,
    },
    /// `ADD WATERMARK ...` or `MODIFY WATERMARK ...`.
    Watermark {
        def: Box<WatermarkDef>,
        modify: bool,
    },
    /// `ADD [CONSTRAINT c] PRIMARY KEY (...) NOT ENFORCED`, or `MODIFY` of it.
    PrimaryKey { columns: Vec<String>, modify: bool },
    /// `DROP col` or `DROP (col, ...)`.
    DropColumns(Vec<String>),
    /// `DROP WATERMARK`.
    DropWatermark,
    /// `DROP PRIMARY KEY` or `DROP CONSTRAINT c`.
    DropPrimaryKey,
    /// `RENAME col TO col2`.
    RenameColumn { from: String, to: String },
}

/// Where `ADD` or `MODIFY` puts a column: `FIRST`, `AFTER col`, or (unsaid) at the end for
/// `ADD` and in its place for `MODIFY`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnPosition {
    Unsaid,
    First,
    After(String),
}

/// What an `ALTER VIEW` does to the view, as Flink documents it.
#[derive(Debug, Clone)]
pub enum AlterViewChange {
    /// `RENAME TO new_name`.
    RenameTo(Name),
    /// `AS query`: the view's new query (its columns are the query's own).
    As(Box<Query>),
}

/// A name as written, without quotes; identifiers are case-sensitive as in Flink.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Name {
    pub parts: Vec<String>,
    pub span: ByteSpan,
}

impl Name {
    /// The object's own name (the last part of `catalog.db.name`).
    pub fn last(&self) -> &str {
        self.parts.last().map(String::as_str).unwrap_or("")
    }
    pub fn dotted(&self) -> String {
        self.parts.join(".")
    }
}

#[derive(Debug, Clone)]
pub struct TableDef {
    pub name: Name,
    pub temporary: bool,
    /// `IF NOT EXISTS`: a table of that name already declared keeps its definition
    pub if_not_exists: bool,
    pub columns: Vec<ColumnDef>,
    pub watermark: Option<WatermarkDef>,
    pub primary_key: Option<Vec<String>>,
    pub partitioned_by: Vec<String>,
    /// `DISTRIBUTED BY HASH(k) INTO 4 BUCKETS` (how the table is sharded into buckets), as
    /// written, whitespace and keyword case aside.
    pub distribution: Option<String>,
    pub options: Vec<(String, String)>,
    /// Where each option of `options` is written (`'key' = 'value'`), in the same order (an
    /// option inherited through LIKE where its base writes it); empty when unknown.
    pub option_spans: Vec<ByteSpan>,
    pub like: Option<Name>,
    /// The LIKE clause's options in order (`INCLUDING ALL`, `EXCLUDING OPTIONS`, ...).
    pub like_options: Vec<LikeOption>,
    /// The COMMENT clauses, as written: the table's (`COMMENT 'text'`) and each column's
    /// (`name COMMENT 'text'`), in declaration order. No operator reads them.
    pub comments: Vec<String>,
    /// `CREATE TABLE t ... AS SELECT ...` (CTAS): the query that fills the table; the table's
    /// columns not declared in the statement are the query's.
    pub query: Option<Box<Query>>,
}

/// One option of `CREATE TABLE ... LIKE base (...)`, as Flink documents them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LikeOption {
    pub strategy: LikeStrategy,
    pub feature: LikeFeature,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LikeStrategy {
    Including,
    Excluding,
    Overwriting,
}

/// What of the base table a LIKE option is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LikeFeature {
    All,
    Constraints,
    Generated,
    Metadata,
    Options,
    Partitions,
    Watermarks,
}

impl LikeFeature {
    pub fn from_word(word: &str) -> Option<LikeFeature> {
        Some(match word.to_uppercase().as_str() {
            "ALL" => LikeFeature::All,
            "CONSTRAINTS" => LikeFeature::Constraints,
            "GENERATED" => LikeFeature::Generated,
            "METADATA" => LikeFeature::Metadata,
            "OPTIONS" => LikeFeature::Options,
            "PARTITIONS" => LikeFeature::Partitions,
            "WATERMARKS" => LikeFeature::Watermarks,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone)]
pub struct ColumnDef {
    pub name: String,
    pub kind: ColumnKind,
    pub span: ByteSpan,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ColumnKind {
    Physical {
        data_type: String,
    },
    Computed {
        expr: Box<Expr>,
    },
    Metadata {
        data_type: String,
        /// The metadata key: `FROM 'key'`, or the column's name when FROM is left out.
        key: String,
        is_virtual: bool,
    },
}

#[derive(Debug, Clone)]
pub struct WatermarkDef {
    pub column: String,
    pub expr: Expr,
    pub span: ByteSpan,
}

#[derive(Debug, Clone)]
pub struct ViewDef {
    pub name: Name,
    pub temporary: bool,
    /// `IF NOT EXISTS`: a view of that name already declared keeps its definition
    pub if_not_exists: bool,
    pub columns: Vec<String>,
    /// The view's `COMMENT 'text'`, as written. No operator reads it.
    pub comment: Option<String>,
    pub query: Box<Query>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    Java,
    Scala,
    Python,
}

#[derive(Debug, Clone)]
pub struct FunctionDef {
    pub name: Name,
    pub class: String,
    pub language: Language,
    pub temporary: bool,
    /// `CREATE TEMPORARY SYSTEM FUNCTION`: it replaces a built-in function of its name.
    pub system: bool,
    /// `USING JAR '...'` resources, as written (`JAR 'path'`), in order.
    pub resources: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Setting {
    pub key: String,
    pub value: String,
    pub key_span: ByteSpan,
}

#[derive(Debug, Clone)]
pub struct Insert {
    pub sink: Name,
    pub columns: Vec<String>,
    pub overwrite: bool,
    pub query: Box<Query>,
    /// `ON CONFLICT DO ...` (Flink 2.3), canonical.
    pub on_conflict: Option<String>,
}
