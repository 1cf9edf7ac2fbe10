//! Non-windowed GROUP BY and SELECT DISTINCT (Flink's group aggregate), and GROUPING SETS,
//! ROLLUP and CUBE (compared as a whole).

use super::super::builder::{default_name, Builder};
use super::super::expr::CExpr;
use super::super::scope::{Column, Relation};
use super::super::{Operator, OperatorKind};
use super::Grouped;
use crate::error::{Error, Result};
use crate::facts::aggregate::GroupAggregateFacts;
use crate::plan::grouping_sets;
use crate::source::ByteSpan;
use sqlparser::ast::{Expr, Select, SelectItem};

/// The facts of a group aggregate.
pub fn put_facts(op: &mut Operator, grouped: Grouped, grouping_sets: String) {
    op.put(&GroupAggregateFacts {
        keys: grouped.keys,
        grouping_sets,
        aggregates: grouped.aggregates,
        filters: grouped.filters,
        beneath_unique_join: false,
        // Told once the query is planned: `phases::mark_two_phase`.
        two_phase: false,
    });
}

/// SELECT DISTINCT: Flink plans a group aggregate keyed by every selected column.
pub fn select_distinct(b: &mut Builder, select: &Select, relation: Relation) -> Result<Relation> {
    let where_span = select.selection.as_ref().map(|w| b.span(w));
    distinct_rows(b, b.span(select), &relation, where_span, true);
    let mut relation = relation;
    // Its rows are unique on its columns (plan lab: Flink removes a LEFT JOIN of a DISTINCT
    // subquery on all its columns when nothing above reads them).
    if let Some(key) = relation.all_columns_key() {
        relation.unique_key = Some(key);
    }
    Ok(relation)
}

/// The group aggregate keyed by every column of `relation` that makes its rows distinct
/// (SELECT DISTINCT, UNION without ALL), its filters those beneath it. SELECT DISTINCT is a
/// plain grouping whose constant columns Flink takes out (`constants_pulled_up`); a UNION's
/// constant columns it keeps (plan lab).
pub fn distinct_rows(
    b: &mut Builder,
    span: ByteSpan,
    relation: &Relation,
    where_span: Option<ByteSpan>,
    constants_pulled_up: bool,
) {
    // Every column is a key: used, whether or not anything above reads it.
    for column in relation.columns.iter() {
        b.reads.record(column);
    }
    let mut op = Operator::new(
        OperatorKind::GroupAggregate,
        "stream-exec-group-aggregate",
        span,
    );
    let mut keys: Vec<(CExpr, ())> = relation
        .columns
        .iter()
        .map(|c| (c.expr.clone(), ()))
        .collect();
    if constants_pulled_up {
        super::drop_constant_keys(&mut keys, false);
    }
    // A column selected twice is one key (plan oracle: `SELECT DISTINCT level, level`).
    let mut seen = foldhash::HashSet::default();
    let keys: Vec<String> = keys
        .iter()
        .map(|(k, _)| k.canonical())
        .filter(|k| seen.insert(k.clone()))
        .collect();
    let aggregates = super::aggregate_facts(&mut op, &[], ByteSpan::default());
    let filters = op.filter_facts(&relation.filters, where_span);
    put_facts(
        &mut op,
        Grouped {
            keys,
            aggregates,
            filters,
            projection_span: ByteSpan::default(),
        },
        String::new(),
    );
    b.operators.push(op);
}

/// The keys of a GROUP BY with GROUPING SETS, ROLLUP or CUBE (each once, in the order they
/// first appear, with where each is written) and its grouping sets, canonical: Flink plans an
/// Expand of each input row per grouping set and a group aggregate keyed by those keys and the
/// set's id.
pub fn grouping_keys(
    b: &mut Builder,
    input: &Relation,
    group_exprs: &[&Expr],
) -> Result<(Vec<(CExpr, ByteSpan)>, String)> {
    let mut keys: Vec<(CExpr, ByteSpan)> = Vec::new();
    let mut elements = Vec::new();
    let mut written = Vec::new();
    let key = |b: &mut Builder, expr: &Expr, keys: &mut Vec<(CExpr, ByteSpan)>| {
        let value = b.converter().expr(input, expr)?;
        let text = value.canonical();
        if !keys.iter().any(|(k, _)| k.canonical() == text) {
            keys.push((value, b.span(expr)));
        }
        Ok::<String, Error>(text)
    };
    for expr in group_exprs {
        let (name, sets) = match expr {
            Expr::GroupingSets(sets) => ("GROUPING SETS", sets),
            Expr::Rollup(sets) => ("ROLLUP", sets),
            Expr::Cube(sets) => ("CUBE", sets),
            other => {
                let text = key(b, other, &mut keys)?;
                written.push(text.clone());
                elements.push(grouping_sets::Element::Key(text));
                continue;
            }
        };
        let mut listed = Vec::new();
        for set in sets {
            let items = set
                .iter()
                .map(|item| key(b, item, &mut keys))
                .collect::<Result<Vec<String>>>()?;
            listed.push(items);
        }
        let texts: Vec<String> = listed
            .iter()
            .map(|i| format!("({})", i.join(", ")))
            .collect();
        written.push(format!("{name} ({})", texts.join(", ")));
        elements.push(match name {
            "ROLLUP" => grouping_sets::Element::Rollup(listed),
            "CUBE" => grouping_sets::Element::Cube(listed),
            _ => grouping_sets::Element::GroupingSets(listed),
        });
    }
    // The grouping sets Flink plans, however they are spelled (as written beyond the limit);
    // one set is a plain GROUP BY.
    let grouping = if grouping_sets::single_set(&elements) {
        String::new()
    } else {
        grouping_sets::canonical(&elements).unwrap_or_else(|| written.join(", "))
    };
    Ok((keys, grouping))
}

/// Every key of a GROUP BY (of any grouping set, or plain), each once, with whether every
/// grouping set groups by it (every key does without grouping sets). A key some set leaves out
/// is NULL in that set's rows after the Expand: Flink keeps a filter on it above the Expand
/// (plan lab), where it drops those rows, not beneath it.
pub fn keys_of_sets(
    b: &mut Builder,
    input: &Relation,
    group_exprs: &[&Expr],
) -> Result<Vec<(CExpr, bool)>> {
    let mut out: Vec<(CExpr, bool)> = Vec::new();
    let mut add = |key: CExpr, in_every_set: bool| match out.iter_mut().find(|(k, _)| *k == key) {
        // The cross product of the GROUP BY's elements: a key of every set of one element is
        // in every set of the whole.
        Some((_, every)) => *every |= in_every_set,
        None => out.push((key, in_every_set)),
    };
    for expr in group_exprs {
        match expr {
            // Both expand to the empty set too.
            Expr::Rollup(sets) | Expr::Cube(sets) => {
                for item in sets.iter().flatten() {
                    add(b.converter().expr(input, item)?, false);
                }
            }
            Expr::GroupingSets(sets) => {
                let mut converted: Vec<Vec<CExpr>> = Vec::with_capacity(sets.len());
                for set in sets {
                    converted.push(
                        set.iter()
                            .map(|item| b.converter().expr(input, item))
                            .collect::<Result<Vec<CExpr>>>()?,
                    );
                }
                for key in converted.iter().flatten() {
                    let every = converted.iter().all(|set| set.contains(key));
                    add(key.clone(), every);
                }
            }
            other => add(b.converter().expr(input, other)?, true),
        }
    }
    Ok(out)
}

/// A query the tool cannot describe in detail (GROUPING SETS, ROLLUP, CUBE): compared by its
/// whole lineage: its grouping, SELECT list and HAVING, canonical, over its input's lineage.
pub fn grouping_sets(
    b: &mut Builder,
    select: &Select,
    input: &Relation,
    group_exprs: &[&Expr],
    reason: &str,
) -> Result<Relation> {
    let span = b.span(select);
    let (set_keys, grouping) = grouping_keys(b, input, group_exprs)?;
    let keys: Vec<String> = set_keys.iter().map(|(k, _)| k.canonical()).collect();
    // One grouping set is the plain GROUP BY of its keys.
    let grouping = if grouping.is_empty() {
        keys.join(", ")
    } else {
        grouping
    };
    let mut conv = b.converter();
    conv.aggregates = Some(Vec::new());
    conv.group_keys = keys;
    let mut output = Relation::default();
    let mut items = Vec::new();
    for (i, item) in select.projection.iter().enumerate() {
        let (expr, name) = match item {
            SelectItem::ExprWithAlias { expr, alias } => (expr, alias.value.clone()),
            SelectItem::UnnamedExpr(e) => (e, default_name(e, i)),
            other => {
                return Err(Error::sql(
                    conv.file,
                    conv.span(other),
                    "`*` cannot be selected in an aggregating query",
                ))
            }
        };
        let value = conv.expr(input, expr)?.canonical();
        output.columns.push(Column {
            name,
            qualifier: None,
            expr: CExpr::Derived(format!("{value} BY {grouping}")),
            time: None,
            span: conv.span(expr),
        });
        items.push(value);
    }
    let having = match &select.having {
        Some(h) => format!(" HAVING {}", conv.condition(input, h)?.canonical()),
        None => String::new(),
    };
    let description = format!(
        "GROUP BY {grouping} SELECT {}{having} over ({})",
        items.join(", "),
        input.rows_lineage().trim_start()
    );
    b.opaque(
        "group_aggregate",
        "stream-exec-group-aggregate",
        span,
        description,
        reason,
    );
    Ok(output)
}
