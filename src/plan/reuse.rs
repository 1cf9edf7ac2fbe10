//! A query of the new script planned as the old script planned it, without planning it again.
//!
//! A plan is a function of its statement's text, the catalog and database names resolve from,
//! the configuration in force, and the definitions its planning looks up (tables, views,
//! functions: `crate::catalog::reads`). When a new statement reads as an old one and every
//! lookup the old planning made finds a definition alike in the new catalog (both absent, or
//! made by statements of the same text: see [`crate::catalog::Table::origins`]), the old plan
//! is the new one, its places moved to where the new script writes those statements. A place
//! outside them (a SET, another statement) cannot be moved: the query is then planned again.
//! Most queries of a changed deployment are unchanged; this halves the planning of a check.

use super::{Operator, Plan, QueryPlan};
use crate::catalog::config::Config;
use crate::catalog::names::NamePath;
use crate::catalog::reads::{Read, ReadKind};
use crate::catalog::{Catalog, QueryStatement};
use crate::notes::Note;
use crate::source::{ByteSpan, SourceFile};
use crate::sql::FunctionDef;
use std::collections::HashMap;

/// What the old script's planning of one query looked at, to tell whether a new statement
/// plans alike.
#[derive(Debug, Clone)]
pub struct QueryRecord {
    /// The query's place in the old plan's `queries`.
    index: usize,
    statement: ByteSpan,
    path: NamePath,
    hints: Vec<String>,
    columns: Vec<String>,
    sink_identity: Option<String>,
    ordinal: usize,
    config_version: usize,
    reads: Vec<Read>,
    /// The notes its planning made (those another query made first included).
    notes: Vec<Note>,
}

impl QueryRecord {
    pub fn new(
        index: usize,
        statement: &QueryStatement,
        reads: Vec<Read>,
        notes: Vec<Note>,
    ) -> QueryRecord {
        QueryRecord {
            index,
            statement: statement.span,
            path: statement.path.clone(),
            hints: statement.hints.clone(),
            columns: statement.columns.clone(),
            sink_identity: statement.sink_identity.clone(),
            ordinal: statement.ordinal,
            config_version: statement.config_version,
            reads,
            notes,
        }
    }
}

/// The old plan's records by their statement's text.
pub struct Reuser<'a> {
    old: &'a Plan,
    by_text: HashMap<&'a str, Vec<&'a QueryRecord>>,
}

impl<'a> Reuser<'a> {
    pub fn new(old: &'a Plan) -> Reuser<'a> {
        let mut by_text: HashMap<&str, Vec<&QueryRecord>> = HashMap::new();
        for record in &old.records {
            by_text
                .entry(old.file.slice(record.statement))
                .or_default()
                .push(record);
        }
        Reuser { old, by_text }
    }

    /// The plan of `statement` of the new script (`catalog`, `file`) and its notes, when an old
    /// query plans alike; None when it must be planned.
    pub fn plan_of(
        &self,
        statement: &QueryStatement,
        catalog: &Catalog,
        file: &SourceFile,
    ) -> Option<(QueryPlan, Vec<Note>)> {
        self.by_text
            .get(file.slice(statement.span))?
            .iter()
            .find_map(|record| self.reuse(record, statement, catalog, file))
    }

    fn reuse(
        &self,
        record: &QueryRecord,
        statement: &QueryStatement,
        catalog: &Catalog,
        file: &SourceFile,
    ) -> Option<(QueryPlan, Vec<Note>)> {
        let old = self.old;
        let same_statement = record.path == statement.path
            && record.hints == statement.hints
            && record.columns == statement.columns
            && record.sink_identity == statement.sink_identity
            && config_at(&old.catalog, record.config_version)
                .same_values(config_at(catalog, statement.config_version));
        if !same_statement {
            return None;
        }
        let mut places = Places::default();
        places.add(record.statement, statement.span);
        for read in &record.reads {
            let (name, old_file) = (read.name.as_str(), &old.file);
            let alike = match read.kind {
                ReadKind::Table => alike(
                    old.catalog.table_at(name, record.ordinal),
                    catalog.table_at(name, statement.ordinal),
                    |a, b| {
                        a.open == b.open
                            && a.altered == b.altered
                            && places.add_origins(&a.origins, &b.origins, old_file, file)
                    },
                ),
                ReadKind::View => alike(
                    old.catalog.view_at(name, record.ordinal),
                    catalog.view_at(name, statement.ordinal),
                    |a, b| {
                        a.path == b.path
                            && a.hints == b.hints
                            && places.add_origins(&a.origins, &b.origins, old_file, file)
                    },
                ),
                ReadKind::Function => alike(
                    old.catalog.function(name),
                    catalog.function(name),
                    |a, b| same_function(&a.def, &b.def),
                ),
            };
            if !alike {
                return None;
            }
        }
        let mut query = old.queries.get(record.index)?.clone();
        query.name = super::builder::query_name(statement);
        query.ordinal = statement.ordinal;
        query.config_version = statement.config_version;
        query.job = statement.job;
        query.span = places.moved(query.span)?;
        query.rows_span = match query.rows_span {
            Some(span) => Some(places.moved(span)?),
            None => None,
        };
        query.removed_joins_span = match query.removed_joins_span {
            Some(span) => Some(places.moved(span)?),
            None => None,
        };
        for op in query.operators.iter_mut().chain(&mut query.source_tables) {
            places.move_operator(op)?;
        }
        let mut notes = record.notes.clone();
        for note in &mut notes {
            if let Some(span) = note.span {
                note.span = Some(places.moved(span)?);
            }
        }
        Some((query, notes))
    }
}

/// Whether two lookups found alike definitions: both none, or both one for which `same` holds.
fn alike<T>(old: Option<&T>, new: Option<&T>, same: impl FnOnce(&T, &T) -> bool) -> bool {
    match (old, new) {
        (None, None) => true,
        (Some(a), Some(b)) => same(a, b),
        _ => false,
    }
}

/// Whether two functions are declared alike, wherever the scripts write them (every field is
/// named: a new one must be compared).
fn same_function(a: &FunctionDef, b: &FunctionDef) -> bool {
    let FunctionDef {
        name,
        class,
        language,
        temporary,
        system,
        resources,
    } = a;
    name.parts == b.name.parts
        && *class == b.class
        && *language == b.language
        && *temporary == b.temporary
        && *system == b.system
        && *resources == b.resources
}

fn config_at(catalog: &Catalog, version: usize) -> &Config {
    catalog
        .config_versions
        .get(version)
        .unwrap_or(&catalog.config)
}

/// The statements of the old script a reused plan may point into, each with where the new
/// script writes the same text.
#[derive(Default)]
struct Places {
    moves: Vec<(ByteSpan, isize)>,
}

impl Places {
    fn add(&mut self, old: ByteSpan, new: ByteSpan) {
        let by = new.start as isize - old.start as isize;
        if !self.moves.contains(&(old, by)) {
            self.moves.push((old, by));
        }
    }

    /// Adds the statements of two definitions; false when their texts differ.
    fn add_origins(
        &mut self,
        old: &[ByteSpan],
        new: &[ByteSpan],
        old_file: &SourceFile,
        new_file: &SourceFile,
    ) -> bool {
        if old.len() != new.len() {
            return false;
        }
        for (&a, &b) in old.iter().zip(new) {
            if old_file.slice(a) != new_file.slice(b) {
                return false;
            }
            self.add(a, b);
        }
        true
    }

    /// Where the new script writes what `span` points to in the old; None when it lies in no
    /// statement known alike. The empty span at 0 is "no place" and stays so.
    fn moved(&self, span: ByteSpan) -> Option<ByteSpan> {
        if span == ByteSpan::default() {
            return Some(span);
        }
        self.moves
            .iter()
            .find(|(within, _)| within.start <= span.start && span.end <= within.end)
            .map(|&(_, by)| {
                let shift = |at: usize| at.checked_add_signed(by).unwrap_or(at);
                ByteSpan::new(shift(span.start), shift(span.end))
            })
    }

    fn move_operator(&self, op: &mut Operator) -> Option<()> {
        op.span = self.moved(op.span)?;
        for span in op.fact_spans.values_mut() {
            *span = self.moved(*span)?;
        }
        for span in op.item_spans.values_mut() {
            *span = self.moved(*span)?;
        }
        if let Some(span) = op.padded_input.as_mut().and_then(|p| p.span.as_mut()) {
            *span = self.moved(*span)?;
        }
        Some(())
    }
}
