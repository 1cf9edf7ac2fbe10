//! `MATCH_RECOGNIZE (PARTITION BY ... ORDER BY ... MEASURES ... PATTERN (...) DEFINE ...)`:
//! Flink's CEP operator keeps partial matches of its input rows in state.

use super::builder::Builder;
use super::expr::CExpr;
use super::scope::{Column, Relation};
use super::{Operator, OperatorKind};
use crate::error::Result;
use crate::facts::operators::MatchRecognizeFacts;
use crate::source::ByteSpan;
use sqlparser::ast::{
    Expr, MatchRecognizePattern, Measure, OrderByExpr, OrderBySort, RepetitionQuantifier,
    RowsPerMatch, SymbolDefinition, TableAlias, TableFactor,
};

/// The parts of a MATCH_RECOGNIZE clause.
pub struct Clause<'a> {
    pub partition_by: &'a [Expr],
    pub order_by: &'a [OrderByExpr],
    pub measures: &'a [Measure],
    pub rows_per_match: Option<&'a RowsPerMatch>,
    pub after_match: Option<String>,
    pub pattern: String,
    pub symbols: &'a [SymbolDefinition],
    pub alias: Option<&'a TableAlias>,
}

/// Canonical text (keywords and function names uppercased, whitespace normalized): pattern
/// variables and measures are not columns of the input, so they are compared as written.
fn text(node: &impl ToString) -> String {
    crate::sql::canonical_text(&node.to_string())
}

/// A DEFINE condition in a canonical spelling: the terms of an AND or OR chain sorted, the
/// operands of a comparison in one order (`10 < A.price` is `A.price > 10`), parentheses
/// dropped. The condition is a function of the rows it reads, evaluated by the CEP operator;
/// the state holds partial matches by pattern variable, never the condition, so equal
/// conditions spelled otherwise keep the same state (Flink 2.3 keeps the written order in the
/// compiled plan: lab/plan, pairs of cases/match_recognize/define-*).
fn condition(expr: &Expr) -> String {
    use sqlparser::ast::BinaryOperator as Op;
    match expr {
        Expr::Nested(inner) => condition(inner),
        Expr::BinaryOp { op, .. } if matches!(op, Op::And | Op::Or) => {
            let mut terms = Vec::new();
            chain(expr, op, &mut terms);
            let mut terms: Vec<String> = terms.into_iter().map(condition).collect();
            terms.sort();
            let joined = terms.join(&format!(" {op} "));
            format!("({joined})")
        }
        Expr::BinaryOp { left, op, right } => {
            let flipped = match op {
                Op::Lt => Some(Op::Gt),
                Op::LtEq => Some(Op::GtEq),
                Op::Gt => Some(Op::Lt),
                Op::GtEq => Some(Op::LtEq),
                Op::Eq => Some(Op::Eq),
                Op::NotEq => Some(Op::NotEq),
                _ => None,
            };
            let (l, r) = (condition(left), condition(right));
            match flipped {
                Some(flipped) if r < l => format!("{r} {flipped} {l}"),
                _ => format!("{l} {op} {r}"),
            }
        }
        other => text(other),
    }
}

/// `x BETWEEN a AND b` as `x >= a AND x <= b`, its two terms part of the AND chain around it:
/// Flink plans them alike (plan oracle: a DEFINE with BETWEEN and with the two comparisons
/// plans the same Match node).
fn between_expanded(expr: &Expr) -> Expr {
    use sqlparser::ast::{BinaryOperator as Op, VisitMut, VisitorMut};
    struct Expand;
    impl VisitorMut for Expand {
        type Break = ();
        fn post_visit_expr(&mut self, expr: &mut Expr) -> std::ops::ControlFlow<()> {
            if let Expr::Between {
                expr: value,
                negated: false,
                low,
                high,
            } = expr
            {
                let compare = |op: Op, bound: &Expr| Expr::BinaryOp {
                    left: value.clone(),
                    op,
                    right: Box::new(bound.clone()),
                };
                *expr = Expr::BinaryOp {
                    left: Box::new(compare(Op::GtEq, low)),
                    op: Op::And,
                    right: Box::new(compare(Op::LtEq, high)),
                };
            }
            std::ops::ControlFlow::Continue(())
        }
    }
    let mut copy = expr.clone();
    let _ = copy.visit(&mut Expand);
    copy
}

/// The terms of a chain of one operator (`a AND (b AND c)` is `a`, `b`, `c`).
fn chain<'e>(expr: &'e Expr, op: &sqlparser::ast::BinaryOperator, out: &mut Vec<&'e Expr>) {
    match expr {
        Expr::Nested(inner) => chain(inner, op, out),
        Expr::BinaryOp { left, op: o, right } if o == op => {
            chain(left, op, out);
            chain(right, op, out);
        }
        other => out.push(other),
    }
}

/// The pattern without its WITHIN, and WITHIN's time in milliseconds (0 without one, -1 when
/// its interval is not read). The pattern reads `( p ) \`WITHIN INTERVAL 'n' UNIT\``
/// (crate::sql::flink_syntax).
fn split_within(pattern: &str) -> (String, f64) {
    let Some(at) = pattern.find("`WITHIN INTERVAL") else {
        return (pattern.trim().to_string(), 0.0);
    };
    let body = pattern[..at].trim();
    let body = body
        .strip_prefix('(')
        .and_then(|b| b.strip_suffix(')'))
        .unwrap_or(body)
        .trim()
        .to_string();
    let rest = pattern[at + "`WITHIN INTERVAL".len()..].trim_end_matches('`');
    let mut parts = rest.split('\'');
    let (_, value, unit) = (parts.next(), parts.next(), parts.next());
    // The unit is one word, perhaps with a precision (`SECOND(4)`); anything else (`HOURx`,
    // `HOUR TO MINUTE`) is not read.
    let unit = unit
        .map(|u| u.trim().trim_end_matches('`').to_ascii_uppercase())
        .unwrap_or_default();
    let word: String = unit
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    let rest = unit[word.len()..].trim();
    if !(rest.is_empty() || rest.starts_with('(')) {
        return (body, -1.0);
    }
    let unit_ms = match word.strip_suffix('S').unwrap_or(&word) {
        "MILLISECOND" => 1.0,
        "SECOND" => 1_000.0,
        "MINUTE" => 60_000.0,
        "HOUR" => 3_600_000.0,
        "DAY" => 86_400_000.0,
        _ => return (body, -1.0),
    };
    match value.and_then(|v| v.trim().parse::<f64>().ok()) {
        Some(v) => (body, v * unit_ms),
        None => (body, -1.0),
    }
}

/// The pattern with its WITHIN in the largest unit that holds it whole, so that a WITHIN written
/// in another unit (`'1' HOUR`, `'60' MINUTE`) is the same pattern, as in Flink's plan (the
/// match node keeps the interval in milliseconds). A WITHIN not read stays as written.
/// The pattern with each quantifier in one spelling, as Calcite reads them (a minimum and a
/// maximum): `B{1,}` is `B+`, `B{0,}` is `B*`, `B{0,1}` is `B?`, and a group of one variable
/// is the variable (`(B)+` is `B+`: red team round 25, Flink plans the same MATCH node).
pub fn canonical_quantifiers(pattern: &MatchRecognizePattern) -> MatchRecognizePattern {
    use MatchRecognizePattern as P;
    use RepetitionQuantifier as Q;
    fn quantifier(q: &Q) -> Q {
        match q {
            Q::AtLeast(1) => Q::OneOrMore,
            Q::AtLeast(0) => Q::ZeroOrMore,
            Q::Range(0, 1) => Q::AtMostOne,
            Q::Reluctant(inner) => Q::Reluctant(Box::new(quantifier(inner))),
            other => other.clone(),
        }
    }
    match pattern {
        P::Group(inner) => match canonical_quantifiers(inner) {
            symbol @ P::Symbol(_) => symbol,
            other => P::Group(Box::new(other)),
        },
        P::Concat(items) => P::Concat(items.iter().map(canonical_quantifiers).collect()),
        P::Alternation(items) => P::Alternation(items.iter().map(canonical_quantifiers).collect()),
        P::Repetition(inner, q) => {
            P::Repetition(Box::new(canonical_quantifiers(inner)), quantifier(q))
        }
        other => other.clone(),
    }
}

fn canonical_pattern(pattern: &str, body: &str, within_ms: f64) -> String {
    if within_ms <= 0.0 || within_ms.fract() != 0.0 {
        return pattern.to_string();
    }
    let units = [
        (86_400_000.0, "DAY"),
        (3_600_000.0, "HOUR"),
        (60_000.0, "MINUTE"),
        (1_000.0, "SECOND"),
        (1.0, "MILLISECOND"),
    ];
    let (size, unit) = units
        .into_iter()
        .find(|(size, _)| (within_ms / size).fract() == 0.0)
        .unwrap_or((1.0, "MILLISECOND"));
    format!("( {body} ) `WITHIN INTERVAL '{}' {unit}`", within_ms / size)
}

pub fn build(
    b: &mut Builder,
    input: Relation,
    clause: &Clause,
    factor: &TableFactor,
) -> Result<Relation> {
    let span = b.span(factor);
    let mut partition = Vec::new();
    let mut output = Relation {
        base_tables: input.base_tables.clone(),
        filters: input.filters.clone(),
        ..Default::default()
    };
    let qualifier = clause.alias.map(|a| a.name.value.clone());
    for expr in clause.partition_by {
        let value = b.converter().window_key(&input, expr)?;
        partition.push(value.canonical());
        let name = super::builder::default_name(expr, output.columns.len());
        output.columns.push(Column {
            name,
            qualifier: qualifier.clone(),
            expr: value,
            time: None,
            span: b.span(expr),
        });
    }
    let mut order = Vec::new();
    for OrderByExpr { expr, options, .. } in clause.order_by {
        let value = b.converter().window_key(&input, expr)?;
        let direction = if matches!(options.sort, Some(OrderBySort::Desc)) {
            "DESC"
        } else {
            "ASC"
        };
        order.push(format!("{} {direction}", value.canonical()));
    }
    let ordinal = b
        .operators
        .iter()
        .filter(|o| o.kind == OperatorKind::MatchRecognize)
        .count()
        + 1;
    let measures: Vec<String> = clause.measures.iter().map(|m| text(&m.expr)).collect();
    for (measure, canonical) in clause.measures.iter().zip(&measures) {
        output.columns.push(Column {
            name: measure.alias.value.clone(),
            qualifier: qualifier.clone(),
            expr: CExpr::Derived(format!("match_recognize#{ordinal}:{canonical}")),
            time: None,
            span: b.span(&measure.expr),
        });
    }
    if matches!(clause.rows_per_match, Some(RowsPerMatch::AllRows(_))) {
        output
            .columns
            .extend(input.columns.iter().cloned().map(|mut c| {
                c.qualifier = qualifier.clone();
                c
            }));
        output.open_tables.extend(
            input
                .open_tables
                .iter()
                .map(|(_, t)| (qualifier.clone(), t.clone())),
        );
    }
    // In the order of the pattern variables: Flink keeps the definitions by variable (its
    // compiled plan lists them sorted), so their order in DEFINE changes nothing.
    let mut defines: Vec<String> = clause
        .symbols
        .iter()
        .map(|s| {
            format!(
                "{} AS {}",
                s.symbol.value,
                condition(&between_expanded(&s.definition))
            )
        })
        .collect();
    defines.sort();
    // The operator keeps whole input rows (its MEASURES and DEFINE read pattern variables'
    // columns by name, as text): every input column is read, so a change of its type counts.
    for column in &input.columns {
        b.reads.record(column);
    }
    let mut input_schema: Vec<String> = input.columns.iter().map(|c| c.expr.canonical()).collect();
    input_schema.extend(input.open_tables.iter().map(|(_, t)| format!("{t}.*")));

    let mut op = Operator::new(OperatorKind::MatchRecognize, "stream-exec-match", span);
    let (body, within_ms) = split_within(&clause.pattern);
    let filters = op.filter_facts(&super::window::with_expansion(&input), None);
    op.put(&MatchRecognizeFacts {
        partition_keys: partition.clone(),
        order: order.clone(),
        measures: measures.clone(),
        rows_per_match: clause
            .rows_per_match
            .map(text)
            .unwrap_or_else(|| "ONE ROW PER MATCH".into()),
        after_match: clause
            .after_match
            .clone()
            .unwrap_or_else(|| "AFTER MATCH SKIP TO NEXT ROW".into()),
        pattern: canonical_pattern(&clause.pattern, &body, within_ms),
        pattern_body: body,
        within_ms,
        defines,
        input_schema,
        filters,
    });
    let spans = |exprs: &mut dyn Iterator<Item = ByteSpan>| {
        exprs.fold(ByteSpan::default(), |acc, s| acc.union(s))
    };
    let partition_span = spans(&mut clause.partition_by.iter().map(|e| b.span(e)));
    let order_span = spans(&mut clause.order_by.iter().map(|o| b.span(&o.expr)));
    let measures_span = spans(&mut clause.measures.iter().map(|m| b.span(&m.expr)));
    let defines_span = spans(&mut clause.symbols.iter().map(|s| b.span(&s.definition)));
    for (fact, fact_span) in [
        (MatchRecognizeFacts::partition_keys, partition_span),
        (MatchRecognizeFacts::order, order_span),
        (MatchRecognizeFacts::measures, measures_span),
        (MatchRecognizeFacts::defines, defines_span),
    ] {
        if !fact_span.is_empty() {
            op.fact_spans.insert(fact, fact_span);
        }
    }
    b.operators.push(op);
    Ok(output)
}

#[cfg(test)]
mod within_tests {
    use super::{canonical_pattern, split_within};

    #[test]
    fn within_is_written_in_the_largest_whole_unit() {
        let (body, ms) = split_within("( A B+ ) `WITHIN INTERVAL '60' MINUTE`");
        assert_eq!(
            canonical_pattern("", &body, ms),
            "( A B+ ) `WITHIN INTERVAL '1' HOUR`"
        );
        let (body, ms) = split_within("( A ) `WITHIN INTERVAL '90' SECOND`");
        assert_eq!(
            canonical_pattern("", &body, ms),
            "( A ) `WITHIN INTERVAL '90' SECOND`"
        );
        assert_eq!(canonical_pattern("A B", "A B", 0.0), "A B");
    }

    #[test]
    fn within_is_read_apart_from_the_pattern() {
        assert_eq!(split_within("A B+ C"), ("A B+ C".to_string(), 0.0));
        assert_eq!(
            split_within("( A B+ C ) `WITHIN INTERVAL '2' SECOND`"),
            ("A B+ C".to_string(), 2_000.0)
        );
        assert_eq!(
            split_within("(A B) `WITHIN INTERVAL '1' HOUR`"),
            ("A B".to_string(), 3_600_000.0)
        );
        assert_eq!(split_within("(A) `WITHIN INTERVAL 'x' SECOND`").1, -1.0);
        assert_eq!(split_within("(A) `WITHIN INTERVAL '1' HOURx`").1, -1.0);
        assert_eq!(
            split_within("(A) `WITHIN INTERVAL '1' HOUR TO MINUTE`").1,
            -1.0
        );
        assert_eq!(
            split_within("(A) `WITHIN INTERVAL '90' SECOND(3)`").1,
            90_000.0
        );
    }
}
