//! A query using a construct the tool does not model, planned as one opaque operator compared
//! by its whole lineage: the query's canonical text and that of every table, view and function
//! it reads (views followed to their own tables). Unchanged lineage is fully compatible; any
//! change is `unknown`, naming the construct. The rest of the job is judged as usual.

use super::{source_table, Operator, OperatorKind, QueryPlan};
use crate::catalog::{names::NamePath, Catalog, QueryStatement};
use crate::facts::operators::OpaqueFacts;
use crate::notes::Notes;
use crate::source::{ByteSpan, SourceFile};
use crate::sql::{canonical_text, dialect::FlinkDialect};
use sqlparser::tokenizer::{Token, Tokenizer};
use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};

/// The plan of `statement` as one opaque operator; `construct` is what the tool does not model
/// and `at` where the query uses it.
pub fn opaque_query(
    catalog: &Catalog,
    scans: &mut source_table::Scans,
    file: &SourceFile,
    notes: &mut Notes,
    statement: &QueryStatement,
    construct: &str,
    at: ByteSpan,
) -> QueryPlan {
    let query_text = statement.query.to_string();
    let lineage = Lineage::of(
        catalog,
        file,
        &statement.path,
        &query_text,
        statement.ordinal,
    );
    let mut fingerprint = vec![canonical_text(&query_text)];
    fingerprint.extend(lineage.definitions.values().cloned());
    let fingerprint = fingerprint.join(" ;; ");
    let mut op = Operator::new(OperatorKind::Opaque, "stream-exec-query", statement.span);
    op.put(&OpaqueFacts {
        flink_kind: "query".into(),
        fingerprint,
        reason: format!("it uses {construct}, compared as a whole"),
        ..Default::default()
    });
    op.fact_spans.insert(OpaqueFacts::fingerprint, at);
    notes.assume(
        format!("this query uses {construct}, which the tool does not model: it is compared as a whole, by its lineage"),
        Some(at),
    );
    // Every column of the tables read counts as read: a change to any of them is judged.
    let reads: BTreeSet<(String, String)> = lineage
        .tables
        .iter()
        .filter_map(|identity| {
            catalog
                .table_at(identity, statement.ordinal)
                .map(|t| (identity, t))
        })
        .flat_map(|(identity, t)| {
            t.def
                .columns
                .iter()
                .map(|c| (identity.clone(), c.name.clone()))
        })
        .collect();
    let sink_table = statement
        .sink_identity
        .as_ref()
        .and_then(|s| catalog.table_at(s, statement.ordinal));
    QueryPlan {
        name: match &statement.sink_identity {
            Some(sink) => sink.clone(),
            None => format!("query #{}", statement.ordinal),
        },
        sink: statement.sink_identity.clone(),
        span: statement.span,
        operators: vec![op],
        source_tables: source_table::source_operators(
            catalog,
            scans,
            statement.ordinal,
            &Default::default(),
            &lineage.tables,
            source_table::Read {
                used: &reads,
                versioned: &Default::default(),
            },
            source_table::Reading {
                feeds_state: true,
                cdc_duplicate: source_table::cdc_events_duplicate(
                    catalog
                        .config_versions
                        .get(statement.config_version)
                        .unwrap_or(&catalog.config),
                ),
            },
        ),
        sources: lineage.tables,
        unions: Vec::new(),
        union_order: Vec::new(),
        union_read_by_state: false,
        removed_joins: Vec::new(),
        removed_joins_span: None,
        sink_options: sink_table.map(source_table::sink_options),
        sink_columns: sink_table.map(source_table::columns_text),
        output: vec![canonical_text(&query_text)],
        hints: statement.hints.clone(),
        views: lineage
            .definitions
            .keys()
            .filter_map(|k| k.strip_prefix("view "))
            .map(str::to_string)
            .collect(),
        output_names: Vec::new(),
        rows: String::new(),
        rows_span: None,
        insert_columns: statement.columns.clone(),
        config_version: statement.config_version,
        ordinal: statement.ordinal,
        job: statement.job,
    }
}

/// What a query's text reads, by name: tables (in order of first use), and the canonical
/// definitions of the tables, views and functions it names.
#[derive(Default)]
struct Lineage {
    /// The ordinal of the query read: names resolve to the definitions in force at it.
    ordinal: usize,
    tables: Vec<String>,
    definitions: BTreeMap<String, String>,
}

impl Lineage {
    fn of(
        catalog: &Catalog,
        file: &SourceFile,
        path: &NamePath,
        text: &str,
        ordinal: usize,
    ) -> Lineage {
        let mut lineage = Lineage {
            ordinal,
            ..Lineage::default()
        };
        lineage.read(catalog, file, path, text, 0);
        lineage
    }

    /// Reads the names in `text` (each dotted name resolved from `path`, the catalog and
    /// database current where the text is declared, as Flink resolves it).
    fn read(
        &mut self,
        catalog: &Catalog,
        file: &SourceFile,
        path: &NamePath,
        text: &str,
        depth: usize,
    ) {
        if depth > crate::limits::MAX_VIEW_DEPTH {
            return;
        }
        let Ok(tokens) = Tokenizer::new(&FlinkDialect, text).tokenize() else {
            return;
        };
        for name in dotted_names(&tokens) {
            // `db.t`, `t.column`, `alias.column.field`: the longest leading part that names an
            // object of the catalog is the object read.
            let Some(found) = (1..=name.len().min(3))
                .rev()
                .find_map(|k| self.object(catalog, path, &name[..k]))
            else {
                continue;
            };
            match found {
                Object::View(identity) => {
                    let key = format!("view {identity}");
                    let Some(view) = catalog.view_at(&identity, self.ordinal) else {
                        continue;
                    };
                    if let Entry::Vacant(slot) = self.definitions.entry(key) {
                        let text = view.def.query.to_string();
                        slot.insert(format!(
                            "{identity}({}) AS {}",
                            view.def.columns.join(", "),
                            canonical_text(&text)
                        ));
                        self.read(catalog, file, &view.path, &text, depth + 1);
                    }
                }
                Object::Table(identity) => {
                    if self.tables.contains(&identity) {
                        continue;
                    }
                    let Some(table) = catalog.table_at(&identity, self.ordinal) else {
                        continue;
                    };
                    let ddl = file
                        .text
                        .get(table.span.start..table.span.end)
                        .unwrap_or("");
                    // Options as an ALTER TABLE left them.
                    self.definitions.insert(
                        format!("table {identity}"),
                        format!("{} {:?}", canonical_text(ddl), table.def.options),
                    );
                    self.tables.push(identity);
                }
                Object::Function(word) => {
                    if let Some(function) = catalog.function(&word) {
                        self.definitions.insert(
                            format!("function {}", word.to_uppercase()),
                            format!("{} {:?}", function.def.class, function.def.language),
                        );
                    }
                }
            }
        }
    }

    fn object(&self, catalog: &Catalog, path: &NamePath, parts: &[String]) -> Option<Object> {
        let identity = path.identity(parts);
        if catalog.view_at(&identity, self.ordinal).is_some() {
            Some(Object::View(identity))
        } else if catalog.table_at(&identity, self.ordinal).is_some() {
            Some(Object::Table(identity))
        } else {
            let last = parts.last()?;
            catalog
                .function(last)
                .map(|_| Object::Function(last.clone()))
        }
    }
}

enum Object {
    View(String),
    Table(String),
    Function(String),
}

/// The dotted names of a token stream (`a`, `db.t`, `` `c`.`db`.`t` ``), each as its parts.
fn dotted_names(tokens: &[Token]) -> Vec<Vec<String>> {
    let mut names: Vec<Vec<String>> = Vec::new();
    let mut after_period = false;
    for token in tokens.iter().filter(|t| !matches!(t, Token::Whitespace(_))) {
        match token {
            Token::Word(w) => {
                match names.last_mut() {
                    Some(name) if after_period => name.push(w.value.clone()),
                    _ => names.push(vec![w.value.clone()]),
                }
                after_period = false;
            }
            Token::Period => after_period = true,
            _ => {
                after_period = false;
                names.push(Vec::new());
            }
        }
    }
    names.retain(|n| !n.is_empty());
    names
}
