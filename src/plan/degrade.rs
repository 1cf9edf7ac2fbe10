//! A query using a construct the tool does not model, planned as one opaque operator compared
//! by its whole lineage: the query's canonical text and that of every table, view and function
//! it reads (views followed to their own tables). Unchanged lineage is fully compatible; any
//! change is `unknown`, naming the construct. The rest of the job is judged as usual.

use super::{source_table, Operator, OperatorKind, QueryPlan};
use crate::catalog::{Catalog, QueryStatement};
use crate::notes::Notes;
use crate::source::{ByteSpan, SourceFile};
use crate::sql::{canonical_text, dialect::FlinkDialect};
use serde_json::json;
use sqlparser::tokenizer::{Token, Tokenizer};
use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};

/// The plan of `statement` as one opaque operator; `construct` is what the tool does not model
/// and `at` where the query uses it.
pub fn opaque_query(
    catalog: &Catalog,
    file: &SourceFile,
    notes: &mut Notes,
    statement: &QueryStatement,
    construct: &str,
    at: ByteSpan,
) -> QueryPlan {
    let query_text = statement.query.to_string();
    let lineage = Lineage::of(catalog, file, &query_text);
    let mut fingerprint = vec![canonical_text(&query_text)];
    fingerprint.extend(lineage.definitions.values().cloned());
    let fingerprint = fingerprint.join(" ;; ");
    let mut op = Operator::new(OperatorKind::Opaque, "stream-exec-query", statement.span);
    op.set("flink_kind", json!("query"));
    op.set("fingerprint", json!(fingerprint));
    op.set(
        "reason",
        json!(format!("it uses {construct}, compared as a whole")),
    );
    op.fact_spans.insert("fingerprint".into(), at);
    notes.assume(
        format!("this query uses {construct}, which the tool does not model: it is compared as a whole, by its lineage"),
        Some(at),
    );
    // Every column of the tables read counts as read: a change to any of them is judged.
    let reads: BTreeSet<(String, String)> = lineage
        .tables
        .iter()
        .filter_map(|t| catalog.tables.get(t))
        .flat_map(|t| {
            t.def
                .columns
                .iter()
                .map(|c| (t.name().to_string(), c.name.clone()))
        })
        .collect();
    let sink_table = statement
        .sink_identity
        .as_ref()
        .and_then(|s| catalog.tables.get(s));
    QueryPlan {
        name: match &statement.sink_identity {
            Some(sink) => sink.clone(),
            None => format!("query #{}", statement.ordinal),
        },
        sink: statement.sink_identity.clone(),
        span: statement.span,
        operators: vec![op],
        source_tables: source_table::source_operators(catalog, &lineage.tables, &reads, true),
        sources: lineage.tables,
        unions: Vec::new(),
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
        insert_columns: statement.columns.clone(),
    }
}

/// What a query's text reads, by name: tables (in order of first use), and the canonical
/// definitions of the tables, views and functions it names.
#[derive(Default)]
struct Lineage {
    tables: Vec<String>,
    definitions: BTreeMap<String, String>,
}

impl Lineage {
    fn of(catalog: &Catalog, file: &SourceFile, text: &str) -> Lineage {
        let mut lineage = Lineage::default();
        lineage.read(catalog, file, text, 0);
        lineage
    }

    fn read(&mut self, catalog: &Catalog, file: &SourceFile, text: &str, depth: usize) {
        if depth > crate::limits::MAX_VIEW_DEPTH {
            return;
        }
        let Ok(tokens) = Tokenizer::new(&FlinkDialect, text).tokenize() else {
            return;
        };
        for word in tokens.iter().filter_map(|t| match t {
            Token::Word(w) => Some(w.value.as_str()),
            _ => None,
        }) {
            let key = format!("view {word}");
            if let Some(view) = catalog.views.get(word) {
                if let Entry::Vacant(slot) = self.definitions.entry(key) {
                    let text = view.def.query.to_string();
                    slot.insert(format!(
                        "{word}({}) AS {}",
                        view.def.columns.join(", "),
                        canonical_text(&text)
                    ));
                    self.read(catalog, file, &text, depth + 1);
                }
            } else if let Some(table) = catalog.tables.get(word) {
                if !self.tables.iter().any(|t| t == word) {
                    self.tables.push(word.to_string());
                    let ddl = file
                        .text
                        .get(table.span.start..table.span.end)
                        .unwrap_or("");
                    self.definitions
                        .insert(format!("table {word}"), canonical_text(ddl));
                }
            } else if let Some(function) = catalog.function(word) {
                self.definitions.insert(
                    format!("function {}", word.to_uppercase()),
                    format!("{} {:?}", function.def.class, function.def.language),
                );
            }
        }
    }
}
