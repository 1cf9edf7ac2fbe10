//! Relations flowing between the clauses of a query, and how a column reference resolves.

use super::expr::CExpr;
use crate::catalog::TimeKind;
use crate::source::ByteSpan;

#[derive(Debug, Clone)]
pub struct Column {
    pub name: String,
    /// The table alias (or name) that qualifies this column in the current scope.
    pub qualifier: Option<String>,
    pub expr: CExpr,
    pub time: Option<TimeKind>,
    pub span: ByteSpan,
}

/// A window TVF in FROM: `TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), size))`.
#[derive(Debug, Clone)]
pub struct WindowTvf {
    pub kind: String,
    pub time: CExpr,
    pub time_kind: Option<TimeKind>,
    /// size, slide (hop) / step (cumulate) / gap, offset: in milliseconds.
    pub params: Vec<(String, i128)>,
    pub partition: Vec<CExpr>,
    pub span: ByteSpan,
}

impl WindowTvf {
    pub fn describe(&self) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        format!(
            "{}({}; {})",
            self.kind.to_uppercase(),
            self.time.canonical(),
            params.join(", ")
        )
    }
}

/// `ROW_NUMBER() OVER (...) AS rk` waiting for a filter on `rk` by a query reading it (the one
/// enclosing it, or any query above it: through subqueries, CTEs and views, however `rk` is
/// renamed on the way).
#[derive(Debug, Clone)]
pub struct PendingRank {
    pub column: String,
    pub function: String,
    pub partition: Vec<(CExpr, ByteSpan)>,
    pub order: Vec<(CExpr, bool, Option<TimeKind>, ByteSpan)>,
    pub span: ByteSpan,
    /// The columns of the SELECT that holds the ROW_NUMBER (set once its output is known).
    pub input: Vec<Column>,
    pub input_open_tables: Vec<String>,
    /// The filter terms beneath the ranking (its own SELECT's WHERE and below), and that WHERE.
    pub beneath: Vec<CExpr>,
    pub where_span: Option<ByteSpan>,
    /// Conditions of the queries between the ranking and its rank filter: Flink runs them after
    /// the rank (a Calc above it), so the rank carries the columns they read.
    pub above: Vec<CExpr>,
}

impl PendingRank {
    /// An output of the rank with the rank number named by its function alone: the window of
    /// the ranking is the operator's own fact, not a property of each field computed from `rk`.
    pub fn output_value(&self, expr: &CExpr) -> CExpr {
        expr.replaced(
            &self.placeholder(),
            &CExpr::Derived(format!("{}()", self.function)),
        )
    }

    /// The value of the rank column, as the queries above see it: the ranking with its window.
    pub fn placeholder(&self) -> CExpr {
        let partition: Vec<String> = self.partition.iter().map(|(p, _)| p.canonical()).collect();
        let order: Vec<String> = self
            .order
            .iter()
            .map(|(o, descending, ..)| {
                format!(
                    "{} {}",
                    o.canonical(),
                    if *descending { "DESC" } else { "ASC" }
                )
            })
            .collect();
        CExpr::Derived(format!(
            "{}() OVER (PARTITION BY {} ORDER BY {})",
            self.function,
            partition.join(", "),
            order.join(", ")
        ))
    }
}

/// The output of a FROM item, a subquery or a whole SELECT.
#[derive(Debug, Clone, Default)]
pub struct Relation {
    pub columns: Vec<Column>,
    /// Tables without DDL (documentation style): any column name resolves to them.
    pub open_tables: Vec<(Option<String>, String)>,
    /// The tables beneath, to resolve a reference the author evidently meant (seed mistakes).
    pub base_tables: Vec<String>,
    /// Filter terms applied upstream, canonical.
    pub filters: Vec<CExpr>,
    pub window: Option<WindowTvf>,
    /// Projections between the window TVF and this relation.
    pub window_steps: usize,
    /// Rankings not yet filtered on (one per input of a join at most).
    pub ranks: Vec<PendingRank>,
    /// Regular joins beneath that a WHERE above still reaches (an outer one may become inner).
    pub joins_below: Vec<super::join_nulls::PlannedJoin>,
    /// The group aggregate beneath whose keys a WHERE above still filters.
    pub aggregate_below: Option<super::pushdown::PlannedAggregate>,
    /// When this relation is a UNION ALL: its record in the builder's unions.
    pub union_slot: Option<usize>,
    /// The columns of `JOIN ... USING (c)`: what an unqualified `c` reads (not two columns).
    pub using: Vec<Column>,
}

pub enum Resolved {
    Column(Column),
    Missing,
    Ambiguous,
}

impl Relation {
    /// Resolves `name` or `qualifier.name`. Identifiers are case-sensitive as in Flink.
    pub fn resolve(&self, qualifier: Option<&str>, name: &str) -> Resolved {
        let matches: Vec<&Column> = self
            .columns
            .iter()
            .filter(|c| {
                c.name == name && (qualifier.is_none() || c.qualifier.as_deref() == qualifier)
            })
            .collect();
        match matches.as_slice() {
            [one] => return Resolved::Column((*one).clone()),
            [first, rest @ ..] => {
                if rest.iter().all(|c| c.expr == first.expr) {
                    return Resolved::Column((*first).clone());
                }
                if qualifier.is_none() {
                    if let Some(merged) = self.using.iter().rev().find(|c| c.name == name) {
                        return Resolved::Column(merged.clone());
                    }
                }
                return Resolved::Ambiguous;
            }
            [] => {}
        }
        let open: Vec<&(Option<String>, String)> = self
            .open_tables
            .iter()
            .filter(|(q, t)| {
                qualifier.is_none() || q.as_deref() == qualifier || Some(t.as_str()) == qualifier
            })
            .collect();
        if let [(q, table)] = open.as_slice() {
            return Resolved::Column(open_column(q.clone(), table, name));
        }
        if open.len() > 1 {
            return Resolved::Ambiguous;
        }
        Resolved::Missing
    }

    /// The relation's whole canonical lineage: its columns (source columns, computations and
    /// the stateful results they come from), the filters beneath it, its window TVF and the
    /// tables without DDL it reads. Equal lineages mean the same rows, however the SQL is
    /// written (views, CTEs and subqueries are inlined, aliases dropped).
    pub fn lineage(&self) -> String {
        let parts: Vec<String> = self.columns.iter().map(|c| c.expr.canonical()).collect();
        format!("[{}]{}", parts.join(", "), self.rows_lineage())
    }

    /// Which rows the relation holds, not which columns: the filters beneath it, its window
    /// TVF and the tables without DDL it reads. For an operator whose own description names
    /// the columns it reads (canonically), so an unread column never changes it.
    pub fn rows_lineage(&self) -> String {
        let mut text = String::new();
        for (_, table) in &self.open_tables {
            text.push_str(&format!(" FROM {table}.*"));
        }
        let mut filters: Vec<String> = self.filters.iter().map(CExpr::canonical).collect();
        filters.sort();
        filters.dedup();
        if !filters.is_empty() {
            text.push_str(" WHERE ");
            text.push_str(&filters.join(" AND "));
        }
        if let Some(window) = &self.window {
            text.push_str(" WINDOW ");
            text.push_str(&window.describe());
        }
        text
    }

    /// How many declared columns `qualifier.name` names (not counting tables without DDL).
    pub fn declared_matches(&self, qualifier: Option<&str>, name: &str) -> usize {
        self.columns
            .iter()
            .filter(|c| {
                c.name == name && (qualifier.is_none() || c.qualifier.as_deref() == qualifier)
            })
            .count()
    }

    pub fn has_qualifier(&self, qualifier: &str) -> bool {
        self.columns
            .iter()
            .any(|c| c.qualifier.as_deref() == Some(qualifier))
            || self
                .open_tables
                .iter()
                .any(|(q, t)| q.as_deref() == Some(qualifier) || t == qualifier)
    }

    pub fn requalify(mut self, qualifier: &str) -> Relation {
        for column in &mut self.columns {
            column.qualifier = Some(qualifier.to_string());
        }
        for (q, _) in &mut self.open_tables {
            *q = Some(qualifier.to_string());
        }
        self
    }
}

/// A column of a table without DDL. Its time attribute is inferred from its name; the caller
/// records the assumption when it relies on it.
pub fn open_column(qualifier: Option<String>, table: &str, name: &str) -> Column {
    Column {
        name: name.to_string(),
        qualifier,
        expr: CExpr::Column {
            table: table.to_string(),
            column: name.to_string(),
        },
        time: if name.eq_ignore_ascii_case("proctime") {
            Some(TimeKind::Proctime)
        } else {
            None
        },
        span: ByteSpan::default(),
    }
}

/// The table behind a scan instance (`orders#2` → `orders`).
pub fn base_table(instance: &str) -> &str {
    instance.split('#').next().unwrap_or(instance)
}

/// Whether a bare table's column looks like an event-time column (for ORDER BY inference).
pub fn looks_like_time(name: &str) -> bool {
    let lower = name.to_lowercase();
    lower == "ts"
        || lower.ends_with("_ts")
        || lower.starts_with("ts_")
        || lower.contains("time")
        || lower.contains("date")
}

impl Resolved {
    /// Whether the name resolves (to one column, or ambiguously to several).
    pub fn is_found(&self) -> bool {
        !matches!(self, Resolved::Missing)
    }

    pub fn into_column(self) -> Option<Column> {
        match self {
            Resolved::Column(c) => Some(c),
            Resolved::Missing | Resolved::Ambiguous => None,
        }
    }
}
