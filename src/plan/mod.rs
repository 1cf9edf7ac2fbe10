//! The normalized plan: per query (INSERT or bare SELECT), the stateful operators Flink would
//! plan for it, each described by neutral facts over canonical lineage.

pub mod aggregate;
pub mod builder;
pub mod columns;
pub mod convert;
pub mod correlate;
pub mod degrade;
pub mod dialect_names;
pub mod expr;
pub mod functions;
pub mod interval;
pub mod join;
pub mod join_bounds;
pub mod join_finish;
pub mod join_nulls;
pub mod join_side;
pub mod match_recognize;
pub mod normalize;
pub mod over;
pub mod pushdown;
pub mod rank;
pub mod scope;
pub mod sort;
pub mod source_table;
pub mod subquery;
pub mod top_n;
pub mod unmodelled;
pub mod window;

use crate::catalog::Catalog;
use crate::notes::Notes;
use crate::source::{ByteSpan, SourceFile};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The operator kinds the tool knows, named after Flink's stream exec nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OperatorKind {
    GroupWindowAggregate,
    GroupAggregate,
    WindowAggregate,
    OverAggregate,
    Deduplicate,
    /// A source table read by the query (its scan): connector, keys, changelog mode, columns.
    Source,
    /// `ROW_NUMBER() | RANK() | DENSE_RANK()` filtered on its rank, other than a deduplication.
    TopN,
    /// A Top-N partitioned by `window_start, window_end` of a window TVF (Flink's window rank).
    WindowTopN,
    /// A regular (unbounded) join: INNER, LEFT, RIGHT or FULL.
    Join,
    /// A join bounded by the time attributes of both inputs.
    IntervalJoin,
    /// `JOIN t FOR SYSTEM_TIME AS OF l.rowtime`: an event-time temporal join.
    TemporalJoin,
    /// `JOIN t FOR SYSTEM_TIME AS OF l.proctime`: a lookup join, stateless unless async or
    /// under TRY_RESOLVE.
    LookupJoin,
    /// `MATCH_RECOGNIZE (...)`: complex event processing over its input rows.
    MatchRecognize,
    /// `ORDER BY time ASC` without a limit: rows buffered until their time is complete.
    TemporalSort,
    /// `LIMIT` / `OFFSET` / `FETCH`, with or without ORDER BY (Flink's Limit and SortLimit).
    Limit,
    /// A stateful operator the tool recognizes but does not model in detail yet: it is compared
    /// as a whole (its fingerprint), so any change to it is `unknown`.
    Opaque,
}

impl OperatorKind {
    pub const ALL: [OperatorKind; 16] = [
        OperatorKind::GroupWindowAggregate,
        OperatorKind::GroupAggregate,
        OperatorKind::WindowAggregate,
        OperatorKind::OverAggregate,
        OperatorKind::Deduplicate,
        OperatorKind::Source,
        OperatorKind::TopN,
        OperatorKind::WindowTopN,
        OperatorKind::Join,
        OperatorKind::IntervalJoin,
        OperatorKind::TemporalJoin,
        OperatorKind::LookupJoin,
        OperatorKind::MatchRecognize,
        OperatorKind::TemporalSort,
        OperatorKind::Limit,
        OperatorKind::Opaque,
    ];

    pub fn name(self) -> &'static str {
        match self {
            OperatorKind::GroupWindowAggregate => "group_window_aggregate",
            OperatorKind::GroupAggregate => "group_aggregate",
            OperatorKind::WindowAggregate => "window_aggregate",
            OperatorKind::OverAggregate => "over_aggregate",
            OperatorKind::Deduplicate => "deduplicate",
            OperatorKind::Source => "source",
            OperatorKind::TopN => "top_n",
            OperatorKind::WindowTopN => "window_top_n",
            OperatorKind::Join => "join",
            OperatorKind::IntervalJoin => "interval_join",
            OperatorKind::TemporalJoin => "temporal_join",
            OperatorKind::LookupJoin => "lookup_join",
            OperatorKind::MatchRecognize => "match_recognize",
            OperatorKind::TemporalSort => "temporal_sort",
            OperatorKind::Limit => "limit",
            OperatorKind::Opaque => "opaque",
        }
    }

    pub fn from_name(name: &str) -> Option<OperatorKind> {
        OperatorKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// One stateful operator with the facts that describe its state.
#[derive(Debug, Clone)]
pub struct Operator {
    pub kind: OperatorKind,
    /// Flink's name for the node (e.g. `stream-exec-deduplicate`), for comparing with real plans.
    pub flink_node: &'static str,
    pub facts: Map<String, Value>,
    /// Where the operator is written (its defining clause).
    pub span: ByteSpan,
    /// The clause behind each top-level fact (e.g. `window` → the TUMBLE(...) call).
    pub fact_spans: BTreeMap<String, ByteSpan>,
    /// The clause behind each canonical item of a list fact (an aggregate, a key).
    pub item_spans: BTreeMap<String, ByteSpan>,
    /// How each canonical item is shown to users (columns without their table when unambiguous).
    pub display: BTreeMap<String, String>,
    /// The pieces of state the operator keeps separately (its aggregates), canonical.
    pub state_items: Vec<String>,
    /// What surrounds the operator (e.g. which of a source table's columns the query reads):
    /// rules may read it through the pair's derived facts, but it is not the operator's own.
    pub context: Map<String, Value>,
}

impl Operator {
    pub fn new(kind: OperatorKind, flink_node: &'static str, span: ByteSpan) -> Operator {
        Operator {
            kind,
            flink_node,
            facts: Map::new(),
            span,
            fact_spans: BTreeMap::new(),
            item_spans: BTreeMap::new(),
            display: BTreeMap::new(),
            state_items: Vec::new(),
            context: Map::new(),
        }
    }

    /// Whether the operator keeps state: every operator the plan records does, except a
    /// synchronous lookup join (not async, not under TRY_RESOLVE). The one notion of
    /// "stateful" every rule and fact uses.
    pub fn keeps_state(&self) -> bool {
        self.kind != OperatorKind::LookupJoin
            || self.facts.get("stateful") == Some(&Value::Bool(true))
    }

    /// A fact that is a list of strings (e.g. `filters`), empty when absent.
    pub fn strings(&self, key: &str) -> Vec<String> {
        self.facts
            .get(key)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn set(&mut self, key: &str, value: Value) {
        self.facts.insert(key.to_string(), value);
    }

    pub fn display_of(&self, canonical: &str) -> String {
        self.display
            .get(canonical)
            .cloned()
            .unwrap_or_else(|| canonical.to_string())
    }

    /// The filter terms applied upstream of the operator, and the WHERE clause they come from.
    pub fn set_filters(&mut self, filters: &[expr::CExpr], where_span: Option<ByteSpan>) {
        let terms: Vec<String> = filters.iter().map(expr::CExpr::canonical).collect();
        self.set("filters", Value::from(terms));
        if let Some(span) = where_span {
            self.fact_spans.insert("filters".into(), span);
        }
    }
}

/// One INSERT (or bare query) and its stateful operators, upstream first.
#[derive(Debug, Clone)]
pub struct QueryPlan {
    /// `INSERT INTO sink` → the sink's name; a bare query → `query #n`.
    pub name: String,
    pub sink: Option<String>,
    pub span: ByteSpan,
    pub operators: Vec<Operator>,
    /// Source tables read, in order of first use.
    pub sources: Vec<String>,
    /// The source tables as operators of kind `source`, in the same order.
    pub source_tables: Vec<Operator>,
    /// The inputs of each UNION ALL of the query, canonical and sorted.
    pub unions: Vec<Vec<String>>,
    /// The sink table's primary key and WITH options, canonical; none when undeclared.
    pub sink_options: Option<String>,
    /// The sink table's columns as declared; none when undeclared.
    pub sink_columns: Option<Vec<String>>,
    /// Canonical text of what the query writes (its output columns), to match renamed sinks.
    pub output: Vec<String>,
    /// The names of the output columns (their aliases), in order.
    pub output_names: Vec<String>,
    /// The filters the query applies after its stateful operators (a HAVING, a WHERE over
    /// their output), canonical: which of their results it writes.
    pub rows: String,
    /// Where those filters are written (their WHERE or HAVING clauses), when known.
    pub rows_span: Option<ByteSpan>,
    /// The column list of `INSERT INTO sink (a, b) ...`, empty without one.
    pub insert_columns: Vec<String>,
    /// Optimizer hints (`/*+ ... */`) of the query and of the views it reads.
    pub hints: Vec<String>,
    /// The views the query reads (their identities), also through other views.
    pub views: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Plan {
    pub file: SourceFile,
    pub catalog: Catalog,
    pub queries: Vec<QueryPlan>,
    pub notes: Notes,
}
