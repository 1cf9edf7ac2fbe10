//! The source tables a query reads, as operators of kind `source`: what of their DDL decides
//! whether the new job can restore the old one's state (connector, keys, changelog mode, the
//! columns the query reads, the watermark).

use super::options_hint::OptionsHint;
use super::{Operator, OperatorKind};
use crate::catalog::config::Config;
use crate::catalog::{Catalog, Table};
use crate::facts::operators::{ColumnDefinition, SourceFacts};
use crate::source::ByteSpan;
use crate::sql::{ColumnDef, ColumnKind};

use foldhash::HashMap;
use std::collections::{BTreeMap, BTreeSet};

/// The scan of each declared table, built once per definition (a name and the version of its
/// DDL) and copied into every query that reads it: a deployment's queries read a few tables.
#[derive(Default)]
pub struct Scans(HashMap<(String, usize), Operator>);

impl Scans {
    fn declared(&mut self, table: &Table, name: &str) -> Operator {
        let definition = (name.to_string(), std::ptr::from_ref(table) as usize);
        self.0
            .entry(definition)
            .or_insert_with(|| declared(table, name))
            .clone()
    }
}

/// The configuration key with which Flink normalizes a CDC source with a primary key as it
/// normalizes an upsert source (`StreamPhysicalTableSourceScanRule`: a ChangelogNormalize
/// keyed by the primary key, dropping duplicate change events).
pub const CDC_EVENTS_DUPLICATE: &str = "table.exec.source.cdc-events-duplicate";

/// Whether the configuration in force at a query makes Flink normalize its CDC sources.
pub fn cdc_events_duplicate(config: &Config) -> bool {
    config.is_true(CDC_EVENTS_DUPLICATE)
}

/// How a query reads its source tables: whether a stateful operator reads them
/// (`feeds_state`), and whether Flink normalizes its CDC sources (`cdc_duplicate`,
/// [`cdc_events_duplicate`] of the configuration in force at the query).
#[derive(Debug, Clone, Copy)]
pub struct Reading {
    pub feeds_state: bool,
    pub cdc_duplicate: bool,
}

/// The columns of its tables a query uses: what Flink's plan keeps after pruning (a column a
/// view or subquery only passes on, and nothing above reads, is pruned), the row a
/// ChangelogNormalize stores.
pub struct Read<'r> {
    pub used: &'r BTreeSet<(String, String)>,
    /// The tables read as the versioned side of an event-time temporal join: the join keeps
    /// their versions itself, and Flink does not normalize them (plan lab:
    /// cases/top_n/first-row-by-proctime-over-temporal-join-upsert.yaml has no
    /// ChangelogNormalize).
    pub versioned: &'r BTreeSet<String>,
}

/// One operator per source table read, in order of first use.
/// A table read with an OPTIONS hint (`hinted`) has the hint's options over its WITH options.
/// Tables are read as declared at the statement of the query of this ordinal.
pub fn source_operators(
    catalog: &Catalog,
    scans: &mut Scans,
    ordinal: usize,
    hinted: &BTreeMap<String, OptionsHint>,
    sources: &[String],
    read: Read,
    reading: Reading,
) -> Vec<Operator> {
    let Read { used, versioned } = read;
    let Reading {
        feeds_state,
        cdc_duplicate,
    } = reading;
    sources
        .iter()
        .map(|name| {
            let table = catalog.table_at(name, ordinal);
            let mut op = match (table, hinted.get(name)) {
                (Some(table), Some(hint)) => {
                    let (hinted, overridden) = with_hint(table, hint);
                    let mut op = declared(&hinted, name);
                    let texts = overridden.iter().map(|(text, _)| text.clone()).collect();
                    op.item_spans.extend(overridden);
                    op.update(|facts: &mut SourceFacts| facts.overridden_options = Some(texts));
                    let mut options = sorted_options(&hint.options);
                    options.dedup();
                    op.context.options_hint = hint
                        .text
                        .get(..7)
                        .map(|name| format!("{name}({})", options.join(", ")));
                    op
                }
                (Some(table), None) => scans.declared(table, name),
                (None, _) => undeclared(name),
            };
            op.context.feeds_state = feeds_state;
            if let Some(table) = table {
                op.context.read = table
                    .def
                    .columns
                    .iter()
                    .map(|c| c.name.clone())
                    .filter(|c| used.contains(&(name.to_string(), c.clone())))
                    .collect();
                if normalized(&table.def, cdc_duplicate) && !versioned.contains(name) {
                    // Keyed by the primary key, the state's row holds it whether read or not.
                    let key = table.def.primary_key.as_deref().unwrap_or_default();
                    // In the order of the scan's row: its layout is the state's (plan lab:
                    // the ChangelogNormalize's row type after a DDL column reorder).
                    // The ChangelogNormalize sits on the scan: a computed column is computed
                    // after it, from the columns it reads (plan lab: red team round 18, TS9).
                    let used = |c: &ColumnDef| {
                        !matches!(c.kind, ColumnKind::Computed { .. })
                            && used.contains(&(name.to_string(), c.name.clone()))
                    };
                    let mut read: Vec<&ColumnDef> = table
                        .def
                        .columns
                        .iter()
                        .filter(|c| key.contains(&c.name) || used(c))
                        .collect();
                    read.sort_by_key(|c| scan_position(&table.def, &c.name));
                    let read: Vec<String> = read.into_iter().map(|c| c.name.clone()).collect();
                    // The key is read too (the state is keyed by it), named by the query or not.
                    for column in key {
                        if !op.context.read.contains(column) {
                            op.context.read.push(column.clone());
                        }
                    }
                    op.update(|facts: &mut SourceFacts| facts.normalized_read = Some(Some(read)));
                }
            }
            op
        })
        .collect()
}

/// Where a column of a table comes in the row its scan produces: the physical columns in the
/// order of the DDL, then the metadata columns in theirs (Flink's scan appends the metadata),
/// then the computed ones (a Calc after the scan computes them). `None` for an unknown column.
/// (The ChangelogNormalize sits on the scan itself; the operators above see the DDL order.)
fn scan_position(def: &crate::sql::TableDef, column: &str) -> Option<(u8, usize)> {
    let at = def.columns.iter().position(|c| c.name == column)?;
    let kind = match def.columns[at].kind {
        ColumnKind::Physical { .. } => 0,
        ColumnKind::Metadata { .. } => 1,
        ColumnKind::Computed { .. } => 2,
    };
    Some((kind, at))
}

/// The filter terms of a query without another stateful operator, on each source Flink
/// normalizes (`normalized_read` set): Flink pushes them into the ChangelogNormalize, whose state
/// holds only the rows they let through. Beneath another stateful operator they are that
/// operator's input filter.
pub fn normalized_filters(sources: &mut [Operator], rows: &[String]) {
    for op in sources.iter_mut() {
        if op.has_list(SourceFacts::normalized_read) {
            // Beneath another stateful operator the filter is that operator's input filter.
            let mut terms = if op.context.feeds_state {
                Vec::new()
            } else {
                rows.to_vec()
            };
            terms.sort();
            op.update(|facts: &mut SourceFacts| facts.normalized_filters = Some(Some(terms)));
        }
    }
}

/// The table as the query reads it: each hinted option replaces the WITH option of the same
/// key (keys are case-sensitive, as in Flink) or is added, pointing at the hint. Also the WITH
/// options replaced, `key=value` as declared with where they are declared, sorted (a change to
/// one of them still differs).
pub fn with_hint(table: &Table, hint: &OptionsHint) -> (Table, Vec<(String, ByteSpan)>) {
    let mut table = table.clone();
    let mut overridden = Vec::new();
    let def = &mut table.def;
    for (key, value) in &hint.options {
        match def.options.iter().position(|(k, _)| k == key) {
            Some(at) => {
                let declared_at = def.option_spans.get(at).copied().unwrap_or(table.span);
                overridden.push((format!("{key}={}", def.options[at].1), declared_at));
                def.options[at].1 = value.clone();
                if let Some(span) = def.option_spans.get_mut(at) {
                    *span = hint.span;
                }
            }
            None => {
                def.options.push((key.clone(), value.clone()));
                def.option_spans.push(hint.span);
            }
        }
    }
    overridden.sort_by(|a, b| a.0.cmp(&b.0));
    (table, overridden)
}

fn undeclared(name: &str) -> Operator {
    let mut op = Operator::new(
        OperatorKind::Source,
        "stream-exec-table-source-scan",
        Default::default(),
    );
    op.put(&SourceFacts {
        name: name.to_string(),
        declared: false,
        ..Default::default()
    });
    op
}

/// The scan of a declared table, without what the query around it decides (its `context`'s
/// columns read and whether it feeds state).
fn declared(table: &Table, name: &str) -> Operator {
    let def = &table.def;
    let mut op = Operator::new(
        OperatorKind::Source,
        "stream-exec-table-source-scan",
        table.span,
    );
    // How the table is sharded: its sharding options, `DISTRIBUTED BY ...` (buckets) and its
    // partition columns (the splits a filesystem or lake source reads, by partition).
    let mut sharding: Vec<String> = def
        .options
        .iter()
        .filter(|(k, _)| k.to_lowercase().contains("shard"))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    if let Some(distribution) = &def.distribution {
        sharding.push(format!("DISTRIBUTED {distribution}"));
    }
    if !def.partitioned_by.is_empty() {
        sharding.push(format!(
            "PARTITIONED BY ({})",
            def.partitioned_by.join(", ")
        ));
    }
    // Every WITH option is a fact: each one that differs is judged by a `table_option` rule.
    let options = sorted_options(&def.options);
    for ((key, value), span) in def.options.iter().zip(&def.option_spans) {
        op.item_spans.insert(format!("{key}={value}"), *span);
    }
    op.context.options = def.options.iter().cloned().collect();
    let mut columns = Vec::new();
    for column in &def.columns {
        // Read from, a VIRTUAL column is the same column: VIRTUAL only keeps it out of writes.
        let text = column_text_as(column, Use::Read);
        op.item_spans.insert(text.clone(), column.span);
        op.item_spans.insert(column.name.clone(), column.span);
        let stored = !matches!(column.kind, ColumnKind::Computed { .. })
            || table.time_kind(&column.name).is_some();
        op.context.columns.insert(
            column.name.clone(),
            ColumnDefinition {
                text: text.clone(),
                stored,
            },
        );
        columns.push(text);
    }
    // The scan's state does not depend on the order of the declared columns; where the order
    // reaches the output (`SELECT *`), the operators and the query's output carry it.
    columns.sort();
    if let Some(w) = &def.watermark {
        op.fact_spans.insert(SourceFacts::watermark, w.span);
        op.fact_spans.insert(SourceFacts::watermark_column, w.span);
    }
    op.put(&SourceFacts {
        name: name.to_string(),
        declared: true,
        connector: Some(option(def, "connector").map(str::to_string)),
        changelog: Some(changelog_mode(def)),
        primary_key: Some(def.primary_key.clone().unwrap_or_default()),
        sharding: Some(sharding),
        options: Some(options),
        overridden_options: Some(Vec::new()),
        columns: Some(columns),
        watermark_column: Some(def.watermark.as_ref().map(|w| w.column.clone())),
        watermark: Some(
            def.watermark
                .as_ref()
                .map(|w| crate::sql::canonical_text(&w.expr.to_string())),
        ),
        // A declared source Flink does not normalize (null): set below for one it does.
        normalized_read: Some(None),
        normalized_filters: Some(None),
    });
    op
}

fn option<'d>(def: &'d crate::sql::TableDef, key: &str) -> Option<&'d str> {
    def.options
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(key))
        .map(|(_, v)| v.as_str())
}

/// Whether Flink normalizes the table's changelog in a ChangelogNormalize keyed by its primary
/// key: its state stores the last row the query reads. Flink does for a source with a primary
/// key that produces upserts (updates without their before-image), and, with
/// `table.exec.source.cdc-events-duplicate` (`cdc_duplicate`), for one that produces any
/// change (a CDC connector or format), to drop duplicated change events (plan lab: the
/// ChangelogNormalize of a `debezium-json` or `mysql-cdc` source under that key).
fn normalized(def: &crate::sql::TableDef, cdc_duplicate: bool) -> bool {
    let keyed = def.primary_key.as_ref().is_some_and(|k| !k.is_empty());
    normalized_mode(&changelog_mode(def), keyed, cdc_duplicate)
}

/// [`normalized`] of a table whose changelog mode ([`changelog_mode`]) is `mode` and which has
/// a primary key or not (`keyed`).
fn normalized_mode(mode: &str, keyed: bool, cdc_duplicate: bool) -> bool {
    if !keyed {
        return false;
    }
    if mode == "upsert" {
        return true;
    }
    if mode.starts_with("changelog:") {
        return cdc_duplicate;
    }
    match mode.strip_prefix("changelog-mode:") {
        Some(kinds) => {
            let kinds: Vec<String> = kinds.split(',').map(|k| k.trim().to_uppercase()).collect();
            let has = |k: &str| kinds.iter().any(|x| x == k);
            let upsert = has("UA") && !has("UB");
            let changes = kinds.iter().any(|k| k != "I" && !k.is_empty());
            upsert || (cdc_duplicate && changes)
        }
        None => false,
    }
}

/// Whether `table.exec.source.cdc-events-duplicate` decides if Flink normalizes the scanned
/// table: a CDC source with a primary key (normalized only under that key). A table the script
/// does not declare, or whose facts do not read, may be one.
pub fn normalized_by_cdc_duplicate(scan: &Operator) -> bool {
    let Some(facts) = scan.source_facts() else {
        return scan.kind == OperatorKind::Source;
    };
    let (Some(mode), Some(key)) = (facts.changelog, facts.primary_key) else {
        return true;
    };
    let keyed = !key.is_empty();
    normalized_mode(&mode, keyed, true) != normalized_mode(&mode, keyed, false)
}

/// Whether the table, scanned, produces changes (updates or deletes) rather than appends: an
/// upsert or CDC connector or format, or a declared changelog-mode other than inserts.
pub fn produces_changes(def: &crate::sql::TableDef) -> bool {
    let mode = changelog_mode(def);
    match mode.strip_prefix("changelog-mode:") {
        Some(kinds) => kinds
            .split(',')
            .map(|k| k.trim().to_uppercase())
            .any(|k| !k.is_empty() && k != "I"),
        None => mode != "insert-only",
    }
}

/// `insert-only`, `upsert`, `changelog:<format>` (`changelog:cdc` for a CDC connector) or
/// `changelog-mode:<kinds>`, as the connector tables say (`changelog:` in
/// `rules/connectors/*.yaml`).
fn changelog_mode(def: &crate::sql::TableDef) -> String {
    let keyed = def.primary_key.as_ref().is_some_and(|k| !k.is_empty());
    crate::catalog::connectors::builtin().changelog_mode(&def.options, keyed)
}

/// Whether a column is described as a query reads it or as the table's whole declaration
/// (which a sink is written through).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Use {
    Read,
    Declared,
}

/// A column as declared, whitespace and keyword case aside: `b BIGINT`, `c AS a + 1`,
/// `m TIMESTAMP(3) METADATA FROM 'timestamp' VIRTUAL`.
fn column_text(column: &ColumnDef) -> String {
    column_text_as(column, Use::Declared)
}

/// [`column_text`], or as a query reads the column: a metadata column's `VIRTUAL` is then left
/// out (Flink reads a virtual metadata column as any other; VIRTUAL only excludes it from the
/// row written to the table).
fn column_text_as(column: &ColumnDef, usage: Use) -> String {
    // Quotes around a field name of a composite type change nothing; the type is spelled as
    // Flink spells it (`sql::types`), a field name keeps its case.
    let words = |s: &str| {
        s.replace('`', "")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    match &column.kind {
        ColumnKind::Physical { data_type } => {
            format!("{} {}", column.name, words(data_type))
        }
        ColumnKind::Computed { expr } => format!(
            "{} AS {}",
            column.name,
            crate::sql::canonical_text(&expr.to_string())
        ),
        ColumnKind::Metadata {
            data_type,
            key,
            is_virtual,
        } => {
            let mut text = format!("{} {} METADATA", column.name, words(data_type));
            text.push_str(&format!(" FROM '{key}'"));
            if *is_virtual && usage == Use::Declared {
                text.push_str(" VIRTUAL");
            }
            text
        }
    }
}

/// A sink table's primary key, partitioning (PARTITIONED BY, DISTRIBUTED BY) and WITH options,
/// canonical (options sorted).
pub fn sink_options(table: &Table) -> String {
    let def = &table.def;
    let mut options: Vec<String> = def
        .options
        .iter()
        .map(|(k, v)| format!("'{k}'='{v}'"))
        .collect();
    options.sort();
    // How rows are laid out in the sink, where declared: its partitions and buckets.
    let mut layout = String::new();
    if !def.partitioned_by.is_empty() {
        layout.push_str(&format!(
            " PARTITIONED BY ({})",
            def.partitioned_by.join(", ")
        ));
    }
    if let Some(distribution) = &def.distribution {
        layout.push_str(&format!(" DISTRIBUTED {distribution}"));
    }
    format!(
        "PRIMARY KEY ({}){layout} WITH ({})",
        def.primary_key.clone().unwrap_or_default().join(", "),
        options.join(", ")
    )
}

/// Every column of a table as declared.
pub fn columns_text(table: &Table) -> Vec<String> {
    table.def.columns.iter().map(column_text).collect()
}

/// Whether two tables have the same [`table_signature`], decided from the declarations
/// themselves where they are written alike (the signature is a function of what is compared
/// here), and from the signatures otherwise.
pub fn same_signature(a: &Table, b: &Table) -> bool {
    let (x, y) = (&a.def, &b.def);
    let alike = x.columns.len() == y.columns.len()
        && x.columns
            .iter()
            .zip(&y.columns)
            .all(|(c, d)| c.name == d.name && c.kind == d.kind)
        && match (&x.watermark, &y.watermark) {
            (Some(w), Some(v)) => w.column == v.column && w.expr == v.expr,
            (None, None) => true,
            _ => false,
        }
        && x.partitioned_by == y.partitioned_by
        && x.distribution == y.distribution
        && x.primary_key == y.primary_key
        && x.options == y.options
        && x.like == y.like;
    alike || table_signature(a) == table_signature(b)
}

/// A table's whole declaration without its name, canonical: columns, watermark, primary key,
/// partitioning and options (whitespace and keyword case aside).
pub fn table_signature(table: &Table) -> String {
    let def = &table.def;
    let watermark = def
        .watermark
        .as_ref()
        .map(|w| {
            format!(
                "WATERMARK FOR {} AS {}",
                w.column,
                crate::sql::canonical_text(&w.expr.to_string())
            )
        })
        .unwrap_or_default();
    format!(
        "({}) {watermark} PARTITIONED BY ({}) {} LIKE {}",
        columns_text(table).join(", "),
        def.partitioned_by.join(", "),
        sink_options(table),
        def.like.as_ref().map(|l| l.dotted()).unwrap_or_default()
    )
}

/// Options as `key=value`, sorted.
fn sorted_options(options: &[(String, String)]) -> Vec<String> {
    let mut texts: Vec<String> = options.iter().map(|(k, v)| format!("{k}={v}")).collect();
    texts.sort();
    texts
}
