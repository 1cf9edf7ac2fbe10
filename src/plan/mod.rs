//! The normalized plan: per query (INSERT or bare SELECT), the stateful operators Flink would
//! plan for it, each described by neutral facts over canonical lineage.

pub mod aggregate;
pub mod builder;
pub mod columns;
pub mod convert;
pub mod correlate;
pub mod decorrelate;
pub mod degrade;
pub mod dialect_names;
pub mod expr;
pub mod fold;
pub mod functions;
pub mod grouping_sets;
pub mod insert_order;
pub mod instance_names;
pub use crate::sql::interval;
pub mod join;
pub mod join_bounds;
pub mod join_finish;
pub mod join_nulls;
pub mod join_prune;
pub mod join_side;
pub mod join_transpose;
pub mod literals;
pub mod match_recognize;
pub mod normalize;
pub mod options_hint;
pub mod over;
mod over_row;
pub mod prune;
pub mod pushdown;
pub mod ranges;
pub mod rank;
pub mod reachable;
pub mod read_names;
pub mod reuse;
pub mod scope;
pub mod set_inputs;
pub mod sort;
pub mod source_table;
pub mod stored_columns;
pub mod sub_plan_reuse;
pub mod subquery;
pub mod top_n;
pub mod unmodelled;
pub mod window;

use crate::catalog::Catalog;
use crate::facts::aggregate::Aggregates;
use crate::facts::join::Lookup;
use crate::facts::operators::{OpaqueFacts, SourceContext, SourceFacts};
pub use crate::facts::OperatorKind;
use crate::facts::{FactError, FactName, FactTyped, Filters};
use crate::notes::Notes;
use crate::source::{ByteSpan, SourceFile};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The input an outer join pads with NULLs, unique on `key`.
#[derive(Debug, Clone, PartialEq)]
pub struct PaddedInput {
    /// Its unique key, canonical columns.
    pub key: Vec<String>,
    /// The id its operators carry in `Operator::join_inputs`: they go with the join.
    pub id: usize,
    /// The table instances it reads (`t`, `t#2`): their scans go with the join.
    pub instances: Vec<String>,
    /// Where it is written: its own WHEREs are read by nothing above the join.
    pub span: Option<ByteSpan>,
}

/// One stateful operator with the facts that describe its state.
#[derive(Debug, Clone)]
pub struct Operator {
    pub kind: OperatorKind,
    /// Flink's name for the node (e.g. `stream-exec-deduplicate`), for comparing with real plans.
    pub flink_node: &'static str,
    /// The facts as the rules read them, written and read only through facts types
    /// (`put`, `read`, `update`). Shared by the copies of an operator until one is changed
    /// (a declared table's scan is copied into every query reading it).
    facts: std::sync::Arc<Map<String, Value>>,
    /// Facts that could not be read back through their type to be changed: a bug in the
    /// tool, which the fail-safe reports (`fact_error`).
    fact_errors: Vec<String>,
    /// Where the operator is written (its defining clause).
    pub span: ByteSpan,
    /// The clause behind each top-level fact (e.g. `window` → the TUMBLE(...) call).
    pub fact_spans: BTreeMap<FactName, ByteSpan>,
    /// The clause behind each canonical item of a list fact (an aggregate, a key).
    pub item_spans: BTreeMap<String, ByteSpan>,
    /// How each canonical item is shown to users (columns without their table when unambiguous).
    pub display: BTreeMap<String, String>,
    /// The pieces of state the operator keeps separately (its aggregates), canonical.
    pub state_items: Vec<String>,
    /// The names of the fields it outputs, where they are the author's (an aggregate's keys and
    /// calls, by the select item's alias): Flink computes an operator once for several queries
    /// of a job only under the same field names. `(canonical item, name)`, in output order.
    pub field_names: Vec<(String, String)>,
    /// What Flink's digest of an aggregate's sub-plan holds that its facts do not: the filter
    /// terms beneath in the order written, the names of the input fields it reads, its calls
    /// and keys as written (`aggregate::written_digest`). Two queries of a job alike in their
    /// facts but not in this share nothing.
    pub written_digest: Vec<String>,
    /// Stored fields compared by their type rather than their text, `(canonical, typed)`:
    /// applied by `rank::compare_fields_by_type` once the query is planned.
    pub retyped: Vec<(String, String)>,
    /// For an outer join: the side it pads with NULLs, when that side is unique on a key;
    /// `join_prune` removes the join when nothing reads that side but the join's own condition.
    pub padded_input: Option<PaddedInput>,
    /// The join inputs the operator is planned in (see [`PaddedInput::id`]).
    pub join_inputs: Vec<usize>,
    /// The join inputs reading the operator's CTE where the query reads that CTE elsewhere too:
    /// Flink plans the CTE in each, so such an input's removal removes one copy; the operator
    /// stays for the others.
    pub cte_read_by: Vec<usize>,
    /// The set operations' inputs it is planned in, innermost first.
    pub set_inputs: Vec<set_inputs::InputOf>,
    /// What surrounds a source table's scan (e.g. which of its columns the query reads): rules
    /// may read it through the pair's derived facts, but it is not the operator's own.
    pub context: SourceContext,
}

impl Operator {
    pub fn new(kind: OperatorKind, flink_node: &'static str, span: ByteSpan) -> Operator {
        Operator {
            kind,
            flink_node,
            facts: Default::default(),
            fact_errors: Vec::new(),
            span,
            fact_spans: BTreeMap::new(),
            item_spans: BTreeMap::new(),
            display: BTreeMap::new(),
            state_items: Vec::new(),
            field_names: Vec::new(),
            written_digest: Vec::new(),
            retyped: Vec::new(),
            padded_input: None,
            join_inputs: Vec::new(),
            cte_read_by: Vec::new(),
            set_inputs: Vec::new(),
            context: SourceContext::default(),
        }
    }

    /// Whether the operator keeps state: every operator the plan records does, except a
    /// synchronous lookup join (not async, not under TRY_RESOLVE). The one notion of
    /// "stateful" every rule and fact uses. Facts that do not read count as state (the safer
    /// answer; `fact_error` makes the query `unknown`).
    pub fn keeps_state(&self) -> bool {
        self.kind != OperatorKind::LookupJoin || self.read::<Lookup>().map_or(true, |l| l.stateful)
    }

    /// Whether the operator can work on event time (a time attribute's watermark): every kind
    /// but the ones whose state and plan never depend on one (group aggregate, Top-N, regular
    /// and lookup joins, limit). Flink materializes a time attribute such operators read.
    pub fn may_use_event_time(&self) -> bool {
        !matches!(
            self.kind,
            OperatorKind::GroupAggregate
                | OperatorKind::TopN
                | OperatorKind::Join
                | OperatorKind::LookupJoin
                | OperatorKind::Limit
                | OperatorKind::Source
        )
    }

    /// What Flink plans for an operator compared as a whole (its `flink_kind`); None for the
    /// kinds the tool models.
    pub fn flink_kind(&self) -> Option<String> {
        let opaque = (self.kind == OperatorKind::Opaque).then(|| self.read::<OpaqueFacts>());
        opaque.and_then(Result::ok).map(|f| f.flink_kind)
    }

    /// A source table's facts (name, whether declared, ...); None for the other kinds.
    pub fn source_facts(&self) -> Option<SourceFacts> {
        let source = (self.kind == OperatorKind::Source).then(|| self.read::<SourceFacts>());
        source.and_then(Result::ok)
    }

    /// A source table's name, read without the rest of its facts; None for the other kinds.
    pub fn source_name(&self) -> Option<&str> {
        (self.kind == OperatorKind::Source)
            .then(|| self.facts.get(SourceFacts::name.name()))
            .flatten()
            .and_then(Value::as_str)
    }

    /// Whether the operator's kind keeps aggregates (its facts type has the `Aggregates`).
    pub fn has_aggregates(&self) -> bool {
        // Asked of every operator pair: the kinds' fact lists are built once.
        static KINDS: std::sync::OnceLock<Vec<OperatorKind>> = std::sync::OnceLock::new();
        KINDS
            .get_or_init(|| {
                OperatorKind::ALL
                    .into_iter()
                    .filter(|&kind| {
                        crate::facts::has::<Aggregates>(&crate::facts::operator_facts(kind))
                    })
                    .collect()
            })
            .contains(&self.kind)
    }

    /// Writes facts of a facts type (`crate::facts`: the kind's whole facts, or a part of them
    /// the kind's type flattens in) into the operator's facts, the JSON the rules read.
    pub fn put<T: FactTyped + Serialize>(&mut self, facts: &T) {
        std::sync::Arc::make_mut(&mut self.facts).extend(crate::facts::to_map(facts));
    }

    /// Reads facts of a facts type back (those the operator does not have at their default).
    /// An error is a bug in the tool: a fact written with another type than `T` declares.
    pub fn read<T: FactTyped + DeserializeOwned + Default>(&self) -> Result<T, FactError> {
        crate::facts::from_map(&self.facts)
    }

    /// Whether the fact `name` holds a list (is written, and not null), without reading the
    /// facts of its type.
    pub fn has_list(&self, name: FactName) -> bool {
        matches!(self.facts.get(name.name()), Some(Value::Array(_)))
    }

    /// Changes facts of a facts type written before (e.g. the filters pushed into an operator).
    /// Facts that cannot be read back are left as they are, and the error kept (`fact_error`).
    pub fn update<T: FactTyped + Serialize + DeserializeOwned + Default>(
        &mut self,
        change: impl FnOnce(&mut T),
    ) {
        match self.read::<T>() {
            Ok(mut facts) => {
                change(&mut facts);
                self.put(&facts);
            }
            Err(error) => self.fact_errors.push(error.to_string()),
        }
    }

    /// Why the operator's facts cannot be trusted, if they cannot: a fact could not be read back
    /// through its type, or the facts do not read as the kind's facts type. The parts of a kind's
    /// facts type read back whenever the whole type does, so a failed `read` of a part shows here
    /// too: the fail-safe turns it into `unknown`.
    pub fn fact_error(&self) -> Option<String> {
        self.fact_error_checking(true)
    }

    /// [`Operator::fact_error`], without reading the facts through the kind's type unless
    /// `check_type` (they were, on an operator with the same facts).
    pub fn fact_error_checking(&self, check_type: bool) -> Option<String> {
        self.fact_errors
            .first()
            .cloned()
            .or_else(|| {
                if !check_type {
                    return None;
                }
                crate::facts::operators::check(self.kind, &self.facts)
                    .err()
                    .map(|e| e.0)
            })
            .map(|e| {
                format!(
                    "the facts of {} do not read as their type: {e}",
                    self.kind.name()
                )
            })
    }

    /// The facts as the JSON object the rules read (the generated layer's output).
    pub fn rule_facts(&self) -> &Map<String, Value> {
        &self.facts
    }

    /// Whether two operators have the same facts.
    pub fn same_facts(&self, other: &Operator) -> bool {
        std::sync::Arc::ptr_eq(&self.facts, &other.facts) || self.facts == other.facts
    }

    /// The facts as one JSON text, to search for the canonical items they mention.
    pub fn facts_text(&self) -> String {
        serde_json::to_string(&*self.facts).unwrap_or_default()
    }

    /// Adds to `names` every text of the facts and the context (object keys and strings, at
    /// any depth), as [`Operator::searchable_text`] would, without writing them out; the
    /// strings of the list facts `lists` for which `left_out` holds are not added (the
    /// operator as it would be with them removed).
    pub fn read_texts(
        &self,
        names: &mut read_names::ReadNames,
        lists: &[FactName],
        left_out: impl Fn(&str) -> bool,
    ) {
        for (key, value) in self.facts.iter() {
            names.add(key);
            match value {
                Value::Array(items) if lists.iter().any(|l| l.name() == key) => {
                    for item in items {
                        match item {
                            Value::String(s) if left_out(s) => {}
                            other => add_texts(names, other),
                        }
                    }
                }
                other => add_texts(names, other),
            }
        }
        if self.context != SourceContext::default() {
            if let Ok(context) = serde_json::to_value(&self.context) {
                add_texts(names, &context);
            }
        }
    }

    /// The facts and the context as JSON texts, to search for the canonical items they mention.
    pub fn searchable_text(&self) -> Vec<String> {
        let context = serde_json::to_string(&self.context).unwrap_or_default();
        vec![self.facts_text(), context]
    }

    pub fn display_of(&self, canonical: &str) -> String {
        self.display
            .get(canonical)
            .cloned()
            .unwrap_or_else(|| canonical.to_string())
    }

    /// The filter terms applied upstream of the operator, with the WHERE clause they come from
    /// recorded: the `filters` of the kind's facts.
    pub fn filter_facts(
        &mut self,
        filters: &[expr::CExpr],
        where_span: Option<ByteSpan>,
    ) -> Filters {
        if let Some(span) = where_span {
            self.fact_spans.insert(Filters::filters, span);
        }
        // A conjunction: its terms in any order, and however views split it, are one filter.
        let mut filters: Vec<String> = filters.iter().map(expr::CExpr::canonical).collect();
        filters.sort();
        filters.dedup();
        Filters { filters }
    }

    /// Writes the filter terms applied upstream of the operator (see `filter_facts`).
    pub fn set_filters(&mut self, filters: &[expr::CExpr], where_span: Option<ByteSpan>) {
        let facts = self.filter_facts(filters, where_span);
        self.put(&facts);
    }
}

fn add_texts(names: &mut read_names::ReadNames, value: &Value) {
    match value {
        Value::String(s) => names.add(s),
        Value::Array(items) => items.iter().for_each(|item| add_texts(names, item)),
        Value::Object(map) => {
            for (key, value) in map {
                names.add(key);
                add_texts(names, value);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// One INSERT (or bare query) and its stateful operators, upstream first.
#[derive(Debug, Clone)]
pub struct QueryPlan {
    /// `INSERT INTO sink` → the sink's name; a bare query → `query #n`.
    pub name: String,
    /// The configuration in force at its statement: an index into the catalog's
    /// `config_versions`.
    pub config_version: usize,
    /// Its place among the script's queries (from 1): the definitions of the names it reads
    /// are those in force at its statement (`Catalog::key_at`).
    pub ordinal: usize,
    /// The job it is submitted in (`QueryStatement::job`): a statement set's INSERTs share one.
    pub job: usize,
    pub sink: Option<String>,
    pub span: ByteSpan,
    pub operators: Vec<Operator>,
    /// Source tables read, in order of first use.
    pub sources: Vec<String>,
    /// The source tables as operators of kind `source`, in the same order.
    pub source_tables: Vec<Operator>,
    /// The inputs of each UNION ALL of the query, canonical and sorted.
    pub unions: Vec<Vec<String>>,
    /// The same, in the order they are written (`unions` before sorting).
    pub union_order: Vec<Vec<String>>,
    /// Whether a stateful operator may read the output of one of its UNION ALLs (is above it).
    pub union_read_by_state: bool,
    /// The outer joins Flink removes (`join_prune::removable_outer_join`), as
    /// `LEFT JOIN instance ON terms`, sorted.
    pub removed_joins: Vec<String>,
    /// Where the first of them is written.
    pub removed_joins_span: Option<ByteSpan>,
    /// The sink table's primary key, partitioning and WITH options, canonical; none when undeclared.
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
    /// What another script's planning may reuse of this plan (planned with `Reuse::Record`).
    pub records: Vec<reuse::QueryRecord>,
    /// How many queries were taken from another script's plan (`Reuse::From`).
    pub reused: usize,
}
