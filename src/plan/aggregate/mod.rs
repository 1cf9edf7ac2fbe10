//! Aggregating queries: legacy group windows (`GROUP BY TUMBLE(...)`, `group_window`), window
//! TVF aggregates (`window_tvf`), non-windowed GROUP BY and SELECT DISTINCT (`group`). This
//! module reads the GROUP BY and the SELECT list, which they share, and decides the kind.

mod group;
mod group_window;
pub(super) mod phases;
pub(super) mod reduce;
pub(super) mod window_tvf;
pub mod written_digest;
pub use group::keys_of_sets;

pub use group::{distinct_rows, select_distinct};

use super::builder::{default_name, Builder};
use super::convert::{AggCall, FunctionOrigin};
use super::dialect_names::{WINDOW_END, WINDOW_START, WINDOW_TIME};
use super::expr::CExpr;
use super::functions::{is_builtin_aggregate, window_property, GroupWindowKind};
use super::scope::{Column, Relation, WindowTvf};
use super::{Operator, OperatorKind};
use crate::catalog::config::Origin;
use crate::catalog::TimeKind;
use crate::error::{Error, Result};
use crate::facts::aggregate::{Aggregates, Emit};
use crate::facts::{facts_of, Filters};
use crate::source::ByteSpan;
use crate::sql::Language;
use group_window::GroupWindow;
use sqlparser::ast::{
    Expr, Function, FunctionArguments, GroupByExpr, Select, SelectItem, Visit, Visitor,
};
use std::ops::ControlFlow;

/// Whether the SELECT list or HAVING calls a built-in aggregate (without OVER).
pub fn has_aggregates(select: &Select) -> bool {
    !every_aggregate_call(select, |_| false)
}

/// The aggregate calls whose value over a group of one row is that row's value: a GROUP BY on a
/// unique key with only these calls is removed by Flink (FlinkAggregateRemoveRule; not COUNT,
/// AVG, FIRST_VALUE, LAST_VALUE, LISTAGG, COLLECT, nor a call with FILTER: red team round 17).
pub const ONE_ROW_CALLS: [&str; 3] = ["SUM", "MIN", "MAX"];

/// Whether every aggregate call of `select` (its SELECT list and HAVING) is a built-in SUM,
/// MIN or MAX of one value without FILTER (none at all included).
pub fn removable_calls(select: &Select) -> bool {
    every_aggregate_call(select, |f| {
        let name = f.name.to_string().to_uppercase();
        let one_arg = matches!(&f.args, FunctionArguments::List(l) if l.args.len() == 1);
        ONE_ROW_CALLS.contains(&name.as_str()) && f.filter.is_none() && one_arg
    })
}

/// Whether `holds` holds for every call of a built-in aggregate (without OVER) in the SELECT
/// list and HAVING of `select` (true when there is none); stops at the first that fails.
fn every_aggregate_call(select: &Select, holds: impl Fn(&Function) -> bool) -> bool {
    struct Finder<F>(F, bool);
    impl<F: Fn(&Function) -> bool> Visitor for Finder<F> {
        type Break = ();
        fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
            if let Expr::Function(f) = expr {
                if f.over.is_none() && is_builtin_aggregate(&f.name.to_string()) && !(self.0)(f) {
                    self.1 = false;
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        }
    }
    let mut finder = Finder(holds, true);
    for item in &select.projection {
        let _ = item.visit(&mut finder);
    }
    if let Some(having) = &select.having {
        let _ = having.visit(&mut finder);
    }
    finder.1
}

/// Whether every row of `relation` is unique on the columns it outputs: they hold the primary
/// key of the one table beneath (only projections and filters in between).
pub fn unique_rows(relation: &Relation) -> bool {
    relation.window.is_none()
        && relation.open_tables.is_empty()
        && relation.unique_key.as_ref().is_some_and(|key| {
            key.iter()
                .all(|k| relation.columns.iter().any(|c| c.expr == *k))
        })
}

/// Whether a plain GROUP BY (no grouping sets, no group window) of `select` over `input` holds
/// the primary key of the one table beneath: each group is one row.
pub fn groups_unique_rows(b: &mut Builder, select: &Select, input: &Relation) -> bool {
    let GroupByExpr::Expressions(exprs, modifiers) = &select.group_by else {
        return false;
    };
    if !modifiers.is_empty() || input.window.is_some() || !input.open_tables.is_empty() {
        return false;
    }
    let Some(key) = &input.unique_key else {
        return false;
    };
    let mut keys = Vec::new();
    for expr in exprs {
        match expr {
            Expr::GroupingSets(_) | Expr::Rollup(_) | Expr::Cube(_) => return false,
            Expr::Function(f) if GroupWindowKind::from_name(&f.name.to_string()).is_some() => {
                return false
            }
            _ => {}
        }
        match b.converter().expr(input, expr) {
            Ok(k) => keys.push(k),
            Err(_) => return false,
        }
    }
    key.iter().all(|k| keys.contains(k))
}

pub fn build(b: &mut Builder, select: &Select, input: Relation) -> Result<Relation> {
    let span = b.span(select);
    let group_exprs: Vec<&Expr> = match &select.group_by {
        GroupByExpr::Expressions(exprs, modifiers) => {
            if !modifiers.is_empty() {
                return Err(Error::sql(
                    b.file,
                    span,
                    "GROUP BY modifiers (WITH ROLLUP, ...) are not supported",
                ));
            }
            // `GROUPING SETS ((a, b))`, one set, is the plain GROUP BY a, b: Calcite plans no
            // Expand for it (plan lab, red team round 26: a window aggregate alike).
            exprs
                .iter()
                .flat_map(|e| match e {
                    Expr::GroupingSets(sets) if sets.len() == 1 => sets[0].iter().collect(),
                    other => vec![other],
                })
                .collect()
        }
        GroupByExpr::All(_) => {
            return Err(Error::sql(
                b.file,
                span,
                "GROUP BY ALL is not supported by Flink",
            ))
        }
    };
    let mut window: Option<GroupWindow> = None;
    let mut keys: Vec<(CExpr, ByteSpan)> = Vec::new();
    let mut seen_keys = foldhash::HashSet::default();
    let mut window_keys: Vec<(String, usize)> = Vec::new();
    let has_sets = group_exprs
        .iter()
        .any(|e| matches!(e, Expr::GroupingSets(_) | Expr::Rollup(_) | Expr::Cube(_)));
    let has_group_window = group_exprs.iter().any(|e| {
        matches!(e, Expr::Function(f) if GroupWindowKind::from_name(&f.name.to_string()).is_some())
    });
    if has_sets && (input.window.is_some() || has_group_window) {
        return group::grouping_sets(
            b,
            select,
            &input,
            &group_exprs,
            "GROUPING SETS, ROLLUP and CUBE of a window aggregate are not modelled in detail: compared by their whole lineage",
        );
    }
    // A non-windowed GROUP BY with grouping sets: a group aggregate keyed by every key of its
    // sets (and the set's id), whose sets are a fact of their own.
    let mut grouping_sets = String::new();
    let plain_exprs: &[&Expr] = if has_sets {
        let (set_keys, grouping) = group::grouping_keys(b, &input, &group_exprs)?;
        keys = set_keys;
        grouping_sets = grouping;
        &[]
    } else {
        &group_exprs
    };
    // Flink plans a window aggregate only when the GROUP BY holds both `window_start` and
    // `window_end` of the window TVF beneath; otherwise a group aggregate over the TVF's rows,
    // keyed by the window columns it groups by like any other key (plan lab:
    // cases/window_aggregate/group-by-window-start-only-is-group-aggregate.yaml).
    let window_column = |key: &CExpr| {
        [WINDOW_START, WINDOW_END, WINDOW_TIME]
            .into_iter()
            .find(|n| {
                key.canonical()
                    .starts_with(&format!("{}(", n.to_uppercase()))
            })
    };
    let inherited = match (&input.window, has_group_window) {
        (None, false) => inherited_window(b, &input, plain_exprs),
        _ => None,
    };
    let window_column = |key: &CExpr| match &inherited {
        Some(w) => inherited_bound(key, w),
        None => window_column(key),
    };
    let window_source = input.window.clone().or_else(|| inherited.clone());
    let both_bounds = window_source.is_some() && {
        let mut found: Vec<&str> = Vec::new();
        for expr in plain_exprs {
            if let Ok(key) = b.converter().expr(&input, expr) {
                found.extend(window_column(&key));
            }
        }
        found.contains(&WINDOW_START) && found.contains(&WINDOW_END)
    };
    for (position, expr) in plain_exprs.iter().enumerate() {
        if let Expr::Function(f) = expr {
            if let Some(kind) = GroupWindowKind::from_name(&f.name.to_string()) {
                if window.is_some() {
                    return Err(Error::sql(
                        b.file,
                        b.span(*expr),
                        "a GROUP BY may have only one group window",
                    ));
                }
                window = Some(group_window::group_window(
                    b,
                    &input,
                    f,
                    kind,
                    position,
                    b.span(*expr),
                )?);
                continue;
            }
        }
        let key = b.converter().expr(&input, expr)?;
        if both_bounds {
            if let Some(name) = window_column(&key) {
                window_keys.push((name.to_string(), position));
                continue;
            }
        }
        // A key written twice is one key of Flink's grouping (a set of columns).
        if seen_keys.insert(key.canonical()) {
            keys.push((key, b.span(*expr)));
        }
    }
    if grouping_sets.is_empty() {
        drop_constant_keys(&mut keys, window.is_some() || !window_keys.is_empty());
    }
    let tvf = if window_keys.is_empty() {
        None
    } else {
        window_source
    };
    let (kind, node) = match (&window, &tvf) {
        (Some(_), _) => (
            OperatorKind::GroupWindowAggregate,
            "stream-exec-group-window-aggregate",
        ),
        (None, Some(_)) => (
            OperatorKind::WindowAggregate,
            "stream-exec-window-aggregate",
        ),
        (None, None) => (OperatorKind::GroupAggregate, "stream-exec-group-aggregate"),
    };
    let qualify = input.base_tables.len() > 1;
    let key_texts: Vec<String> = keys.iter().map(|(k, _)| k.canonical()).collect();
    let properties = window
        .as_ref()
        .map(|w| group_window::window_properties(b, select, w))
        .unwrap_or_default();

    let mut output = Relation {
        base_tables: input.base_tables.clone(),
        ..Default::default()
    };
    let mut conv = b.converter();
    conv.aggregates = Some(Vec::new());
    conv.group_keys = key_texts.clone();
    conv.qualify_display = qualify;
    let mut projection_span = ByteSpan::default();
    for (index, item) in select.projection.iter().enumerate() {
        let (expr, name) = match item {
            SelectItem::UnnamedExpr(e) => (e, default_name(e, index)),
            SelectItem::ExprWithAlias { expr, alias } => (expr, alias.value.clone()),
            other => {
                return Err(Error::sql(
                    conv.file,
                    conv.span(other),
                    "`*` cannot be selected in an aggregating query",
                ))
            }
        };
        let item_span = conv.span(expr);
        projection_span = projection_span.union(item_span);
        let value = conv.expr(&input, expr)?;
        // A window TVF aggregate grouped by window_time outputs it as a time attribute
        // (cascading windows, an OVER or MATCH_RECOGNIZE ordered by it: Flink plans them).
        let time = property_time(&value).or_else(|| {
            let tvf = tvf.as_ref()?;
            matches!(&value, CExpr::Derived(text) if text.starts_with("WINDOW_TIME("))
                .then_some(tvf.time_kind)
                .flatten()
        });
        output.columns.push(Column {
            name,
            qualifier: None,
            expr: value,
            time,
            span: item_span,
        });
    }
    if let Some(having) = &select.having {
        let filter = conv.condition(&input, having)?;
        output.filters.extend(filter.conjuncts());
    }
    let aggregates = conv.aggregates.take().unwrap_or_default();
    let call_types: Vec<(String, String)> = aggregates
        .iter()
        .filter_map(|call| {
            Some((
                call.canonical.clone(),
                crate::plan::convert::aggregate_type(&conv, call)?,
            ))
        })
        .collect();

    let mut op = Operator::new(kind, node, span);
    // A group aggregate's calls named as written too: Flink's digest keeps `SUM(amount + 0)`
    // apart from `SUM(amount)`, not its keys' `user_id + 0` from `user_id`, nor a window
    // aggregate's (red team round 27, plan lab job compiles).
    let written: Vec<String> = select
        .projection
        .iter()
        .map(|item| match crate::sql::item_expr(item) {
            Some(expr) if kind == OperatorKind::GroupAggregate => {
                written_digest::written_expr(b, &input, expr)
            }
            _ => String::new(),
        })
        .collect();
    op.field_names = output
        .columns
        .iter()
        .zip(written.iter().chain(std::iter::repeat(&String::new())))
        .map(|(c, written)| {
            let item = c.expr.canonical();
            match key_texts.contains(&item) {
                true => (item, c.name.clone()),
                false => (item, format!("{} = {written}", c.name)),
            }
        })
        .filter(|(item, _)| {
            key_texts.contains(item) || aggregates.iter().any(|a| &a.canonical == item)
        })
        .collect();
    op.written_digest = written_digest::written_digest(b, select, &input);
    let keys_span = keys
        .iter()
        .fold(ByteSpan::default(), |acc, (_, s)| acc.union(*s));
    op.fact_spans.insert(
        crate::facts::aggregate::GroupAggregateFacts::keys,
        keys_span,
    );
    if !grouping_sets.is_empty() {
        let written = group_exprs
            .iter()
            .fold(ByteSpan::default(), |acc, e| acc.union(b.span(*e)));
        op.fact_spans.insert(
            crate::facts::aggregate::GroupAggregateFacts::grouping_sets,
            written,
        );
    }
    for (key, key_span) in &keys {
        op.item_spans.insert(key.canonical(), *key_span);
        op.display.insert(key.canonical(), key.display(qualify));
    }
    let grouped = Grouped {
        keys: key_texts.clone(),
        aggregates: aggregate_facts(&mut op, &aggregates, projection_span),
        filters: op.filter_facts(
            &if tvf.is_none() {
                crate::plan::window::with_expansion(&input)
            } else {
                input.filters.clone()
            },
            select.selection.as_ref().map(|w| b.span(w)),
        ),
        projection_span,
    };
    match (&window, &tvf) {
        (Some(w), _) => group_window::put_facts(b, &mut op, w, &properties, grouped),
        (None, Some(t)) => {
            let steps = if t.inherited { 0 } else { input.window_steps };
            window_tvf::put_facts(b, &mut op, t, &window_keys, steps, grouped)
        }
        (None, None) => group::put_facts(&mut op, grouped, grouping_sets.clone()),
    }
    // With grouping sets every output depends on the set a row was aggregated for (a key is
    // NULL in the sets without it).
    let heading = if grouping_sets.is_empty() {
        format!("{}[{}]", kind.name(), key_texts.join(", "))
    } else {
        format!(
            "{}[{} BY {grouping_sets}]",
            kind.name(),
            key_texts.join(", ")
        )
    };
    output.columns.iter_mut().for_each(|c| match &c.expr {
        CExpr::Derived(text) => {
            let output = format!("{heading}:{text}");
            if grouping_sets.is_empty() {
                if let Some((_, t)) = call_types.iter().find(|(call, _)| call == text) {
                    b.derived_types.insert(output.clone(), t.clone());
                }
            }
            c.expr = CExpr::Derived(output)
        }
        other if !grouping_sets.is_empty() => {
            c.expr = CExpr::Derived(format!("{heading}:{}", other.canonical()))
        }
        _ => {}
    });
    if let (None, Some(t)) = (&window, &tvf) {
        b.window_aggregates.push((b.operators.len(), t.clone()));
        crate::plan::window::session_consumed(b, t);
    }
    // A plain GROUP BY's rows are unique on its keys: a GROUP BY above on them groups one row
    // each (plan lab: Flink removes it, red team round 17 FS3 `agg-over-agg`).
    if window.is_none() && tvf.is_none() && grouping_sets.is_empty() && !keys.is_empty() {
        output.unique_key = Some(keys.iter().map(|(k, _)| k.clone()).collect());
    }
    // A global aggregate's one row is unique on no column at all (plan lab: Flink removes a
    // LEFT JOIN of one that nothing above reads, red team round 29).
    if window.is_none() && tvf.is_none() && grouping_sets.is_empty() && keys.is_empty() {
        output.removal_key = Some(Vec::new());
    }
    // A window TVF aggregate's rows are unique on its keys and the window's start (or end) as
    // it outputs them (plan lab: Flink removes a GROUP BY above on them, red team round 17 FS3
    // `agg-over-window-agg`).
    if let (None, Some(t)) = (&window, &tvf) {
        let bound = |name: &str| {
            let suffix = format!(":{}({})", name.to_uppercase(), t.describe());
            output
                .columns
                .iter()
                .find(|c| matches!(&c.expr, CExpr::Derived(text) if text.ends_with(&suffix)))
                .map(|c| c.expr.clone())
        };
        let bound = bound(WINDOW_START).or_else(|| bound(WINDOW_END));
        if let (Some(bound), true) = (bound, grouping_sets.is_empty()) {
            let mut key: Vec<CExpr> = keys.iter().map(|(k, _)| k.clone()).collect();
            key.push(bound);
            output.unique_key = Some(key);
        }
    }
    b.operators.push(op);
    Ok(output)
}

/// The window of a window TVF aggregate beneath whose window_start and window_end the GROUP BY
/// both holds, as they come out of it: Flink plans the GROUP BY as a window aggregate over the
/// same window (cascading windows: the window properties of its input), whose state is kept
/// per window read from the rows (plan lab: cases/window_aggregate/cascade-*.yaml).
fn inherited_window(b: &mut Builder, input: &Relation, exprs: &[&Expr]) -> Option<WindowTvf> {
    let keys: Vec<CExpr> = exprs
        .iter()
        .filter_map(|e| b.converter().expr(input, e).ok())
        .filter(|k| matches!(k, CExpr::Derived(text) if text.starts_with(WINDOW_AGGREGATE_OUTPUT)))
        .collect();
    let described = crate::plan::top_n::partition_window(&keys)?;
    let window = b
        .window_aggregates
        .iter()
        .map(|(_, w)| w)
        .find(|w| w.describe() == described)?;
    // Flink keeps the window properties of an event-time TUMBLE, HOP or CUMULATE window only
    // (plan lab: over a processing-time or a SESSION window aggregate the GROUP BY is a group
    // aggregate).
    let aligned = ["tumble", "hop", "cumulate"].contains(&window.kind.as_str());
    if !aligned || window.time_kind != Some(TimeKind::Rowtime) {
        return None;
    }
    Some(WindowTvf {
        inherited: true,
        correlated: false,
        ..window.clone()
    })
}

/// How a window aggregate's output columns begin (its heading: `window_aggregate[keys]:`).
const WINDOW_AGGREGATE_OUTPUT: &str = "window_aggregate[";

/// `window_start` or `window_end` when the key is that bound of `window` as a window aggregate
/// beneath outputs it.
fn inherited_bound(key: &CExpr, window: &WindowTvf) -> Option<&'static str> {
    let CExpr::Derived(text) = key else {
        return None;
    };
    let (name, described) = crate::plan::top_n::window_column(key)?;
    let bound = [WINDOW_START, WINDOW_END].contains(&name);
    (bound && text.starts_with(WINDOW_AGGREGATE_OUTPUT) && described == window.describe())
        .then_some(name)
}

/// Flink takes a constant GROUP BY key (`'web'`, `CAST(1 AS INT) + 1`) out of a plain grouping
/// (Calcite's AggregateProjectPullUpConstantsRule) and computes it after the aggregate: the
/// state is keyed by the other keys. A grouping keeps at least one key: when every key is
/// constant (and there is no window), the first stays. Only a constant Flink reduces to a
/// plain literal is taken out ([`super::fold::pulled_up`]): `SUBSTRING('abcdef', 2, 3)`
/// reduces to a cast of `'bcd'` to the call's nullable VARCHAR(6), which stays a key (plan
/// oracle).
pub fn drop_constant_keys<T>(keys: &mut Vec<(CExpr, T)>, other_keys: bool) {
    let constant = |k: &CExpr| k.is_constant() && super::fold::pulled_up(k);
    if !other_keys && keys.iter().all(|(k, _)| constant(k)) {
        keys.truncate(1);
        return;
    }
    keys.retain(|(k, _)| !constant(k));
}

fn property_time(expr: &CExpr) -> Option<TimeKind> {
    match expr {
        CExpr::Call { name, .. } => match window_property(name) {
            Some((_, "rowtime")) => Some(TimeKind::Rowtime),
            Some((_, "proctime")) => Some(TimeKind::Proctime),
            _ => None,
        },
        _ => None,
    }
}

/// What every GROUP BY operator shares: its keys, aggregates and filters, and where its
/// SELECT list is written.
pub struct Grouped {
    pub keys: Vec<String>,
    pub aggregates: Aggregates,
    pub filters: Filters,
    pub projection_span: ByteSpan,
}

/// Facts every aggregating operator shares: its aggregates and where their functions come from
/// (their clauses, display and state items recorded on the operator).
pub fn aggregate_facts(op: &mut Operator, aggregates: &[AggCall], span: ByteSpan) -> Aggregates {
    let texts = |f: &dyn Fn(&AggCall) -> bool| -> Vec<String> {
        aggregates
            .iter()
            .filter(|a| f(a))
            .map(|a| a.canonical.clone())
            .collect()
    };
    let facts = Aggregates {
        aggregates: texts(&|_| true),
        plain_aggregates: texts(&|a| !a.distinct),
        distinct_aggregates: texts(&|a| a.distinct),
        python_udafs: texts(&|a| a.origin == FunctionOrigin::Declared(Language::Python)),
        undeclared_aggregates: texts(&|a| a.origin == FunctionOrigin::Undeclared),
        udafs: texts(&|a| matches!(a.origin, FunctionOrigin::Declared(_))),
    };
    for fact in facts_of::<Aggregates>() {
        op.fact_spans.insert(fact.key(), span);
    }
    for agg in aggregates {
        op.item_spans.insert(agg.canonical.clone(), agg.span);
        op.display
            .insert(agg.canonical.clone(), agg.display.clone());
        op.state_items.push(agg.canonical.clone());
    }
    facts
}

/// The early/late-fire configuration in force for a window operator (its clause recorded).
fn emit_facts(b: &Builder, op: &mut Operator) -> Emit {
    let config = b.config;
    let value = |key: &str| config.get(key).map(str::to_string);
    // A delay is read only when its fire is enabled (Flink's WindowEmitStrategy; plan lab, red
    // team round 22: a delay set while early-fire is off leaves the window the same).
    let early_fire = config.is_true("table.exec.emit.early-fire.enabled");
    let late_fire = config.is_true("table.exec.emit.late-fire.enabled");
    let facts = Emit {
        early_fire,
        early_fire_delay: value("table.exec.emit.early-fire.delay").filter(|_| early_fire),
        late_fire,
        late_fire_delay: value("table.exec.emit.late-fire.delay").filter(|_| late_fire),
        allow_lateness: value("table.exec.emit.allow-lateness"),
    };
    let keys = [
        "table.exec.emit.early-fire.enabled",
        "table.exec.emit.early-fire.delay",
        "table.exec.emit.late-fire.enabled",
        "table.exec.emit.late-fire.delay",
        "table.exec.emit.allow-lateness",
    ];
    let span = keys.iter().filter_map(|k| match config.origin(k) {
        Some(Origin::Script(span)) => Some(*span),
        _ => None,
    });
    let span = span.fold(ByteSpan::default(), ByteSpan::union);
    op.fact_spans
        .insert(crate::facts::aggregate::WindowAggregateFacts::emit, span);
    facts
}
