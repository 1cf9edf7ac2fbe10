//! Statements Flink accepts that define a pipeline the tool does not model (e.g. `CREATE
//! MATERIALIZED TABLE ... AS SELECT`): each is a query of its own, holding one opaque operator
//! whose fingerprint is the statement's canonical text. It is never left out of the comparison:
//! unchanged it restores as before, any change to it is `unknown`, a new one has state to build.

use super::{Operator, OperatorKind, QueryPlan};
use crate::catalog::Catalog;
use crate::facts::operators::OpaqueFacts;
use crate::source::SourceFile;

/// The pipelines of the script's unmodelled statements that read a query (`... AS SELECT`).
pub fn pipelines(catalog: &Catalog, file: &SourceFile) -> Vec<QueryPlan> {
    catalog
        .ignored
        .iter()
        .filter_map(|(words, span)| {
            let text = crate::sql::canonical_text(file.slice(*span));
            if !text.split(' ').any(|word| word == "SELECT") {
                return None;
            }
            // Named by its canonical leading words (e.g. `CREATE MATERIALIZED TABLE mt`).
            let leading: Vec<&str> = text.split(' ').take(4).collect();
            let name = format!("statement `{}`", leading.join(" "));
            let mut op = Operator::new(OperatorKind::Opaque, "unmodelled-statement", *span);
            op.put(&OpaqueFacts {
                flink_kind: "unmodelled_statement".into(),
                fingerprint: text,
                reason: format!("`{words} ...` defines a pipeline the tool does not model"),
                ..Default::default()
            });
            op.fact_spans.insert(OpaqueFacts::fingerprint, *span);
            Some(QueryPlan {
                name: name.clone(),
                // Not placed among the queries: judged by the configuration at the end.
                config_version: usize::MAX,
                ordinal: usize::MAX,
                job: usize::MAX,
                // Old and new pipelines of the same statement pair through this name.
                sink: Some(name),
                span: *span,
                operators: vec![op],
                sources: Vec::new(),
                source_tables: Vec::new(),
                unions: Vec::new(),
                union_order: Vec::new(),
                union_read_by_state: false,
                removed_joins: Vec::new(),
                removed_joins_span: None,
                sink_options: None,
                sink_columns: None,
                output: Vec::new(),
                output_names: Vec::new(),
                rows: String::new(),
                rows_span: None,
                insert_columns: Vec::new(),
                hints: Vec::new(),
                views: Vec::new(),
            })
        })
        .collect()
}
