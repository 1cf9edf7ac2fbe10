//! The catalog a script builds: tables with their time attributes, views, functions, configuration.

pub mod config;
pub mod connectors;
pub mod names;

use crate::error::{Error, Result};
use crate::notes::Notes;
use crate::source::{ByteSpan, SourceFile};
use crate::sql::{
    ColumnKind, FunctionDef, Language, Script, Statement, StatementKind, TableDef, ViewDef,
};
use config::{Config, Origin};
use names::NamePath;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeKind {
    Rowtime,
    Proctime,
}

impl TimeKind {
    pub fn name(self) -> &'static str {
        match self {
            TimeKind::Rowtime => "rowtime",
            TimeKind::Proctime => "proctime",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Table {
    pub def: TableDef,
    pub span: ByteSpan,
}

impl Table {
    pub fn name(&self) -> &str {
        self.def.name.last()
    }

    /// The time attribute kind of a column: WATERMARK FOR x makes x rowtime, PROCTIME() proctime.
    pub fn time_kind(&self, column: &str) -> Option<TimeKind> {
        self.def
            .columns
            .iter()
            .find(|c| c.name == column)
            .and_then(|c| self.time_kind_of(c))
            .or_else(|| self.watermark_on(column).then_some(TimeKind::Rowtime))
    }

    /// The time attribute a declared column of this table is, if any.
    pub fn time_kind_of(&self, column: &crate::sql::ColumnDef) -> Option<TimeKind> {
        if self.watermark_on(&column.name) {
            return Some(TimeKind::Rowtime);
        }
        match &column.kind {
            ColumnKind::Computed { expr } if is_proctime_call(expr.as_ref()) => {
                Some(TimeKind::Proctime)
            }
            _ => None,
        }
    }

    fn watermark_on(&self, column: &str) -> bool {
        self.def
            .watermark
            .as_ref()
            .is_some_and(|w| w.column == column)
    }
}

pub fn is_proctime_call(expr: &sqlparser::ast::Expr) -> bool {
    matches!(expr, sqlparser::ast::Expr::Function(f) if f.name.to_string().eq_ignore_ascii_case("PROCTIME"))
}

#[derive(Debug, Clone)]
pub struct View {
    pub def: ViewDef,
    pub span: ByteSpan,
    pub hints: Vec<String>,
    /// The catalog and database current where the view is declared: its query's names
    /// resolve from there.
    pub path: NamePath,
}

#[derive(Debug, Clone)]
pub struct Function {
    pub def: FunctionDef,
}

impl Function {
    pub fn language(&self) -> Language {
        self.def.language
    }
}

/// One INSERT (or bare query) of the script, in order.
#[derive(Debug, Clone)]
pub struct QueryStatement {
    pub sink: Option<crate::sql::Name>,
    /// The sink's identity (its full path without the default parts).
    pub sink_identity: Option<String>,
    /// The catalog and database current at the statement: its names resolve from there.
    pub path: NamePath,
    pub columns: Vec<String>,
    pub query: Box<sqlparser::ast::Query>,
    pub span: ByteSpan,
    /// Index among the script's queries, from 1.
    pub ordinal: usize,
    pub hints: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct Catalog {
    /// Tables and views by their identity (see [`names`]).
    pub tables: BTreeMap<String, Table>,
    pub views: BTreeMap<String, View>,
    /// The current catalog and database (`USE CATALOG`, `USE`).
    pub path: NamePath,
    /// Keyed by the uppercased name: function names are case-insensitive.
    pub functions: BTreeMap<String, Function>,
    pub config: Config,
    pub queries: Vec<QueryStatement>,
    pub notes: Notes,
    /// Statements read past without modelling them.
    pub ignored: Vec<(String, ByteSpan)>,
}

impl Catalog {
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.get(&name.to_uppercase())
    }
}

/// Reads the script's statements in order; `overrides` are `--set` values, applied last.
/// The statements move into the catalog: a deployment's ASTs are not copied.
pub fn build(script: Script, overrides: &[(String, String)]) -> Result<Catalog> {
    let mut catalog = Catalog::default();
    for statement in script.statements {
        add(&script.file, &mut catalog, statement)?;
    }
    for (key, value) in overrides {
        catalog.config.set(key, value, Origin::CommandLine);
    }
    for (key, _) in catalog
        .config
        .entries()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect::<Vec<_>>()
    {
        if let Some(known) = config::likely_typo(&key) {
            let span = match catalog.config.origin(&key) {
                Some(Origin::Script(span)) => Some(*span),
                _ => None,
            };
            catalog.notes.warn(
                format!("unknown configuration key '{key}': did you mean '{known}'?"),
                span,
            );
        }
    }
    Ok(catalog)
}

fn add(file: &SourceFile, catalog: &mut Catalog, statement: Statement) -> Result<()> {
    match statement.kind {
        StatementKind::CreateTable(def) => {
            let def = with_like(file, catalog, *def)?;
            validate_table(file, &def)?;
            catalog.tables.insert(
                catalog.path.identity(&def.name.parts),
                Table {
                    def,
                    span: statement.span,
                },
            );
        }
        StatementKind::CreateView(def) => {
            catalog.views.insert(
                catalog.path.identity(&def.name.parts),
                View {
                    def,
                    span: statement.span,
                    hints: statement.hints,
                    path: catalog.path.clone(),
                },
            );
        }
        StatementKind::CreateFunction(def) => {
            catalog
                .functions
                .insert(def.name.last().to_uppercase(), Function { def });
        }
        StatementKind::Set(setting) => {
            catalog.config.set(
                &setting.key,
                &setting.value,
                Origin::Script(setting.key_span),
            );
        }
        StatementKind::Reset { key } => catalog.config.reset(key.as_deref()),
        StatementKind::Insert(insert) => {
            let ordinal = catalog.queries.len() + 1;
            catalog.queries.push(QueryStatement {
                sink_identity: Some(catalog.path.identity(&insert.sink.parts)),
                path: catalog.path.clone(),
                sink: Some(insert.sink),
                columns: insert.columns,
                query: insert.query,
                span: statement.span,
                ordinal,
                hints: statement.hints,
            });
        }
        StatementKind::Query(query) => {
            let ordinal = catalog.queries.len() + 1;
            catalog.queries.push(QueryStatement {
                sink: None,
                sink_identity: None,
                path: catalog.path.clone(),
                columns: Vec::new(),
                query,
                span: statement.span,
                ordinal,
                hints: statement.hints,
            });
        }
        StatementKind::StatementSet(inner) => {
            for statement in inner {
                add(file, catalog, statement)?;
            }
        }
        StatementKind::Use {
            catalog: true,
            name,
        } => catalog.path.use_catalog(name.last()),
        StatementKind::Use { name, .. } => catalog.path.use_database(&name.parts),
        StatementKind::Other { words } => {
            catalog.notes.warn(
                format!("statement `{words} ...` is not modelled and was ignored"),
                Some(statement.span),
            );
            catalog.ignored.push((words, statement.span));
        }
    }
    Ok(())
}

/// `CREATE TABLE t (...) WITH (...) LIKE base`: the base's columns, then the table's own; its
/// watermark, key and partitioning unless the table declares them; its options, overwritten by
/// the table's own (Flink's default, INCLUDING ALL OVERWRITING OPTIONS).
fn with_like(file: &SourceFile, catalog: &Catalog, mut def: TableDef) -> Result<TableDef> {
    let Some(like) = def.like.clone() else {
        return Ok(def);
    };
    let located = |message: &str| Error::located("sql", file, like.span, message, "here", None);
    if def.like_options {
        return Err(located("LIKE with its own options (INCLUDING / EXCLUDING / OVERWRITING) is not modelled: declare the columns instead"));
    }
    let Some(base) = catalog.tables.get(&catalog.path.identity(&like.parts)) else {
        return Err(located(
            "LIKE a table the script does not declare: its columns are unknown",
        ));
    };
    let base = &base.def;
    let mut columns = base.columns.clone();
    columns.append(&mut def.columns);
    def.columns = columns;
    def.watermark = def.watermark.or_else(|| base.watermark.clone());
    def.primary_key = def.primary_key.or_else(|| base.primary_key.clone());
    if def.partitioned_by.is_empty() {
        def.partitioned_by = base.partitioned_by.clone();
    }
    let mut options = base.options.clone();
    for (key, value) in std::mem::take(&mut def.options) {
        options.retain(|(k, _)| *k != key);
        options.push((key, value));
    }
    def.options = options;
    Ok(def)
}

fn validate_table(file: &SourceFile, def: &TableDef) -> Result<()> {
    if let Some(watermark) = &def.watermark {
        if !def.columns.iter().any(|c| c.name == watermark.column) {
            return Err(Error::located(
                "sql",
                file,
                watermark.span,
                format!(
                    "WATERMARK FOR `{}`: the table has no such column",
                    watermark.column
                ),
                "unknown column",
                None,
            ));
        }
    }
    let mut declared = std::collections::HashSet::new();
    for column in &def.columns {
        if !declared.insert(column.name.as_str()) {
            return Err(Error::located(
                "sql",
                file,
                column.span,
                format!("column `{}` is declared twice", column.name),
                "second declaration",
                None,
            ));
        }
    }
    Ok(())
}
