//! Relations flowing between the clauses of a query, and how a column reference resolves.

pub use super::columns::Columns;
use super::expr::CExpr;
use crate::catalog::TimeKind;
use crate::source::ByteSpan;
use foldhash::HashSet;
use sqlparser::ast::{Expr, Visit, Visitor};
use std::collections::BTreeSet;
use std::ops::ControlFlow;

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
    /// Whether a correlate (UNNEST, LATERAL TABLE) reads the window's rows before what reads
    /// them here: Flink then keeps the window TVF a node of its own (see
    /// `aggregate::window_tvf::window_attached`).
    pub correlated: bool,
    /// Whether the window is read from the window_start / window_end of a window aggregate
    /// beneath (cascading windows): Flink's windowing strategy is then `WindowAttached`.
    pub inherited: bool,
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
    /// The tables the ranking's FROM reads, in its order (a join's left input first): the order
    /// of their columns in the ranking's input row.
    pub tables: Vec<String>,
    /// The columns of the ranking's FROM, in its order (a window TVF's row: what it reads, then
    /// its window columns), canonical.
    pub from_order: Vec<String>,
    /// The filter terms beneath the ranking (its own SELECT's WHERE and below), and that WHERE.
    pub beneath: Vec<CExpr>,
    pub where_span: Option<ByteSpan>,
    /// Conditions of the queries between the ranking and its rank filter: Flink runs them after
    /// the rank (a Calc above it), so the rank carries the columns they read.
    pub above: Vec<CExpr>,
    /// The lowest rank kept by a bound without an end in a query between the ranking and its
    /// rank filter (`WHERE rk > 1` beneath `WHERE rk <= 3`): Flink merges it into the range.
    pub start: Option<i64>,
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
        CExpr::Derived(rank_value_text(&self.function, &partition, &order))
    }
}

/// The text of a rank column's value: its function over its window, canonical keys.
pub fn rank_value_text(function: &str, partition: &[String], order: &[String]) -> String {
    format!(
        "{function}() OVER (PARTITION BY {} ORDER BY {})",
        partition.join(", "),
        order.join(", ")
    )
}

/// The output of a FROM item, a subquery or a whole SELECT.
#[derive(Debug, Clone, Default)]
pub struct Relation {
    /// Its columns in order, indexed by name and qualifier (`Columns`).
    pub columns: Columns,
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
    /// The Top-N beneath whose rank number a WHERE above still bounds.
    pub rank_below: Option<super::rank::RankBelow>,
    /// The inputs of a UNION ALL beneath, which a WHERE above still reaches.
    pub union_below: Vec<super::pushdown::UnionInputBelow>,
    /// Rankings nobody filtered, planned as a whole where this relation became a UNION ALL's
    /// input (their operator and rank number).
    pub opaque_ranks: Vec<(usize, CExpr)>,
    /// The inputs of the joins beneath that a WHERE above still reaches (not NULL-padded).
    pub sides_below: super::reachable::ReachableInputs,
    /// When this relation is a UNION ALL: its record in the builder's unions.
    pub union_slot: Option<usize>,
    /// The columns of `JOIN ... USING (c)`: what an unqualified `c` reads (not two columns).
    pub using: Vec<Column>,
    /// Whether it is the scan of one declared table, as declared: its columns are the
    /// table's, NULL only where the declaration allows it (no join pads them, no grouping set
    /// rolls them up).
    pub scan_only: bool,
    /// The primary key of the one declared table beneath when only projections and filters are
    /// in between (no join, correlate or window TVF multiplies its rows): each row is unique on
    /// these columns.
    pub unique_key: Option<Vec<CExpr>>,
    /// Columns each row is unique on as Flink's outer-join removal sees them, where its
    /// aggregate removal does not: through a ranking or an OVER aggregate of a unique input, a
    /// UNION (distinct), and a join whose other input is unique on its keys (plan lab: a LEFT
    /// JOIN of such an input read by nothing above is removed; a GROUP BY on those columns above
    /// it stays). `unique_for_join_removal` reads both.
    pub removal_key: Option<Vec<CExpr>>,
    /// A CTE's: the operators planned for it, once, where the WITH defines it (positions in
    /// the query's operators); a join input reading it holds them (`Builder::cte_reads`).
    pub cte_operators: Option<CtePlanned>,
    /// A CTE's definition, to plan it again where the query reads it again
    /// (`Builder::named_relation`).
    pub cte_definition: Option<std::sync::Arc<CteDefinition>>,
}

/// A CTE as the WITH defines it.
#[derive(Debug)]
pub struct CteDefinition {
    pub query: sqlparser::ast::Query,
    /// The names its alias gives its columns.
    pub columns: Vec<String>,
    /// The CTEs of its WITH it sees (those defined before it).
    pub earlier: Vec<String>,
}

/// What the WITH planned for a CTE: positions in the query's operators and UNION ALLs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CtePlanned {
    /// Which planning of which CTE (two CTEs, one nested in the other, may plan the same
    /// operators).
    pub id: usize,
    pub operators: std::ops::Range<usize>,
    pub unions: std::ops::Range<usize>,
}

pub enum Resolved {
    Column(Column),
    Missing,
    Ambiguous,
}

impl Relation {
    /// All its columns, as the key of rows made distinct (SELECT DISTINCT, UNION, INTERSECT,
    /// EXCEPT); none over a window TVF or a table without DDL.
    pub fn all_columns_key(&self) -> Option<Vec<CExpr>> {
        (self.window.is_none() && self.open_tables.is_empty())
            .then(|| self.columns.iter().map(|c| c.expr.clone()).collect())
    }

    /// The columns Flink's outer-join removal sees each row unique on (`removal_key`).
    pub fn unique_for_join_removal(&self) -> Option<&Vec<CExpr>> {
        self.unique_key.as_ref().or(self.removal_key.as_ref())
    }

    /// Resolves `name` or `qualifier.name`. Identifiers are case-sensitive as in Flink.
    pub fn resolve(&self, qualifier: Option<&str>, name: &str) -> Resolved {
        let mut matches = self.columns.named(qualifier, name);
        if let Some(first) = matches.next() {
            let mut rest = matches.peekable();
            if rest.peek().is_none() || rest.all(|c| c.expr == first.expr) {
                return Resolved::Column(first.clone());
            }
            if qualifier.is_none() {
                if let Some(merged) = self.using.iter().rev().find(|c| c.name == name) {
                    return Resolved::Column(merged.clone());
                }
            }
            return Resolved::Ambiguous;
        }
        let mut open = self.open_tables.iter().filter(|(q, t)| {
            qualifier.is_none() || q.as_deref() == qualifier || Some(t.as_str()) == qualifier
        });
        match (open.next(), open.next()) {
            (Some((q, table)), None) => Resolved::Column(open_column(q.clone(), table, name)),
            (Some(_), Some(_)) => Resolved::Ambiguous,
            (None, _) => Resolved::Missing,
        }
    }

    /// The relation's whole canonical lineage: its columns (source columns, computations and
    /// the stateful results they come from), the filters beneath it, its window TVF and the
    /// tables without DDL it reads. Equal lineages mean the same rows, however the SQL is
    /// written (views, CTEs and subqueries are inlined, aliases dropped).
    pub fn lineage(&self) -> String {
        let parts = self.columns_canonical();
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
        self.columns.named(qualifier, name).count()
    }

    pub fn has_qualifier(&self, qualifier: &str) -> bool {
        self.columns.has_qualifier(qualifier)
            || self
                .open_tables
                .iter()
                .any(|(q, t)| q.as_deref() == Some(qualifier) || t == qualifier)
    }

    /// The relation with its columns renamed, in order (`AS t(a, b)`, a view's or CTE's column
    /// list); columns past the names keep theirs.
    pub fn renamed(mut self, names: &[String]) -> Relation {
        for (column, name) in self.columns.iter_mut().zip(names) {
            column.name = name.clone();
        }
        self
    }

    /// Its columns' canonical texts and its tables without DDL (`t.*`), comma-separated.
    /// Its columns' canonical texts, in order.
    pub fn columns_canonical(&self) -> Vec<String> {
        self.columns.iter().map(|c| c.expr.canonical()).collect()
    }

    /// Its columns' values, in order.
    pub fn column_exprs(&self) -> Vec<CExpr> {
        self.columns.iter().map(|c| c.expr.clone()).collect()
    }

    pub fn columns_text(&self) -> String {
        let mut parts = self.columns_canonical();
        parts.extend(self.open_tables.iter().map(|(_, t)| format!("{t}.*")));
        parts.join(", ")
    }

    /// The columns of both inputs of a join, side by side (this relation's first): extends this
    /// relation, so a chain of joins grows one relation and its index.
    pub fn beside(mut self, right: Relation) -> Relation {
        self.scan_only = false;
        self.unique_key = None;
        self.removal_key = None;
        self.columns.extend(right.columns);
        self.open_tables.extend(right.open_tables);
        self.base_tables.extend(right.base_tables);
        self.filters.extend(right.filters);
        self.window = None;
        self.rank_below = None;
        self.ranks.extend(right.ranks);
        self
    }

    /// UNION ALL: column i is any input's column i; the order of the inputs does not matter.
    pub fn union_all(self, mut right: Relation) -> Relation {
        let mut out = Relation {
            base_tables: self.base_tables,
            ..Default::default()
        };
        out.base_tables.extend(right.base_tables);
        let exprs = |r: &Columns| -> Vec<CExpr> { r.iter().map(|c| c.expr.clone()).collect() };
        let mut inputs_below = [
            (
                exprs(&self.columns),
                self.union_below,
                self.aggregate_below,
                self.joins_below,
                self.rank_below,
                self.opaque_ranks,
            ),
            (
                exprs(&right.columns),
                std::mem::take(&mut right.union_below),
                right.aggregate_below.take(),
                std::mem::take(&mut right.joins_below),
                right.rank_below.take(),
                std::mem::take(&mut right.opaque_ranks),
            ),
        ];
        let mut right_columns = std::mem::take(&mut right.columns).into_iter();
        for l in self.columns {
            let r = right_columns.next();
            let time = r
                .as_ref()
                .and_then(|r| if r.time == l.time { l.time } else { None });
            // A chain of UNION ALLs is one flat, sorted UNION call: nesting it would make each
            // level copy and sort the whole chain below it.
            let mut args = union_inputs(l.expr);
            for input in r.map(|r| union_inputs(r.expr)).unwrap_or_default() {
                let at = args.partition_point(|a| a <= &input);
                args.insert(at, input);
            }
            out.columns.push(Column {
                name: l.name,
                qualifier: None,
                expr: CExpr::Call {
                    name: "UNION".into(),
                    args,
                },
                time,
                span: l.span,
            });
        }
        for (columns, below, aggregate, joins, rank, opaque_ranks) in &mut inputs_below {
            if below.is_empty()
                && (aggregate.is_some()
                    || !joins.is_empty()
                    || rank.is_some()
                    || !opaque_ranks.is_empty())
            {
                below.push(super::pushdown::UnionInputBelow {
                    columns: Vec::new(),
                    aggregate: aggregate.take(),
                    joins: std::mem::take(joins),
                    rank: rank.take(),
                    opaque_ranks: std::mem::take(opaque_ranks),
                });
            }
            let layer: Vec<(CExpr, CExpr)> = out
                .columns
                .iter()
                .zip(columns.iter())
                .map(|(u, i)| (u.expr.clone(), i.clone()))
                .collect();
            for mut input in std::mem::take(below) {
                input.columns.splice(0..0, layer.iter().cloned());
                out.union_below.push(input);
            }
        }
        let mut filters: Vec<CExpr> = self.filters.into_iter().chain(right.filters).collect();
        filters.sort();
        filters.dedup();
        out.filters = filters;
        out.open_tables = self
            .open_tables
            .into_iter()
            .chain(right.open_tables)
            .collect();
        out
    }

    /// Its columns that `exprs` reference (or all of them for a wildcard), in its order;
    /// columns of tables without DDL follow in order of first reference.
    pub fn referenced_columns<'e>(
        &self,
        exprs: impl IntoIterator<Item = &'e Expr>,
        wildcard: bool,
    ) -> Vec<Column> {
        /// The names referenced, `(qualifier, name)`, each with whether it is the head of a
        /// compound name (`c` of `c.f`, perhaps a table rather than a column).
        #[derive(Default)]
        struct Names(Vec<(Option<String>, String, bool)>);
        impl Visitor for Names {
            type Break = ();
            fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
                match expr {
                    Expr::Identifier(i) => self.0.push((None, i.value.clone(), false)),
                    Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
                        // `t.c`, or `c.f` a field of `c` (also `t.c.f`): any may be meant.
                        self.0
                            .push((Some(parts[0].value.clone()), parts[1].value.clone(), false));
                        self.0.push((None, parts[0].value.clone(), true));
                        self.0.push((
                            Some(parts[parts.len() - 2].value.clone()),
                            parts[parts.len() - 1].value.clone(),
                            false,
                        ));
                    }
                    _ => {}
                }
                ControlFlow::Continue(())
            }
        }
        let mut visited = Names::default();
        for expr in exprs {
            let _ = expr.visit(&mut visited);
        }
        // `t.c` with `t` an input of this relation names `t`'s column, not a field of a column
        // `t` of every table without DDL (one such column per table would make each join of a
        // chain carry all the tables' columns).
        let tables: HashSet<&str> = visited
            .0
            .iter()
            .filter(|(_, name, head)| *head && self.has_qualifier(name))
            .map(|(_, name, _)| name.as_str())
            .collect();
        let names = &visited.0;
        let mut out: Vec<Column> = Vec::new();
        // What is already in `out`, found without a scan of it (wide SELECTs).
        let mut seen: BTreeSet<CExpr> = BTreeSet::new();
        let named: HashSet<(Option<&str>, &str)> = names
            .iter()
            .map(|(q, n, _)| (q.as_deref(), n.as_str()))
            .collect();
        for column in &self.columns {
            let used = wildcard
                || named.contains(&(None, column.name.as_str()))
                || (column.qualifier.is_some()
                    && named.contains(&(column.qualifier.as_deref(), column.name.as_str())));
            if used && seen.insert(column.expr.clone()) {
                out.push(column.clone());
            }
        }
        for (q, table) in &self.open_tables {
            if wildcard {
                out.push(Column {
                    name: "*".into(),
                    qualifier: q.clone(),
                    expr: CExpr::AllColumns {
                        table: table.clone(),
                    },
                    time: None,
                    span: ByteSpan::default(),
                });
                continue;
            }
            // `t2.v` is a column of `t2` only; a bare `v` of any table without DDL (which one
            // cannot be told), unless a declared column has that name.
            for (qualifier, name, head) in names {
                if *head && tables.contains(name.as_str()) {
                    continue;
                }
                let declared = self
                    .columns
                    .named(qualifier.as_deref(), name)
                    .next()
                    .is_some();
                let this_table = qualifier
                    .as_deref()
                    .is_none_or(|n| q.as_deref() == Some(n) || table == n);
                if declared || !this_table {
                    continue;
                }
                let column = open_column(q.clone(), table, name);
                if seen.insert(column.expr.clone()) {
                    out.push(column);
                }
            }
        }
        out
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

/// The inputs of a column of a UNION ALL (already sorted), or the column itself.
fn union_inputs(expr: CExpr) -> Vec<CExpr> {
    match expr {
        CExpr::Call { name, args } if name == "UNION" => args,
        other => vec![other],
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
