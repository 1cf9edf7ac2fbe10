//! Comparisons of one expression with integer literals, combined as Flink's optimizer combines
//! them into one search argument (Calcite's Sarg; plan oracle, each pair planned alike by Flink
//! 2.3): `x IN (1, 2) AND x IN (2, 3)` is `x = 2`, `x BETWEEN 1 AND 10 OR x BETWEEN 5 AND 15` is
//! `x BETWEEN 1 AND 15`, `x >= 1 AND x <= 10 AND x <> 20` is `x BETWEEN 1 AND 10`.
//!
//! Every term is NULL exactly when the expression is, so the combination holds in every
//! context. Integer literals count (a value between two integers may still be one of a
//! DECIMAL expression, so `x <= 5 OR x >= 6` stays two ranges), and text literals compared by
//! `=` or `<>` (`s IN ('a', 'b') AND s <> 'a'` is `s = 'b'`). A combination that covers every
//! value is `x IS NOT NULL` in a condition (`x <> 'a' OR x = 'a'`, as Flink plans it), and left
//! as written elsewhere.

use super::expr::CExpr;

/// A literal a comparison names: an integer, or a text (compared only by `=` and `<>`: sets of
/// points and of all values but points are the same under any total order, so the order of
/// texts, which depends on the collation, does not matter).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Value {
    Int(i128),
    Text(String),
}

impl Value {
    fn literal(&self) -> String {
        match self {
            Value::Int(v) => v.to_string(),
            Value::Text(t) => t.clone(),
        }
    }
}

/// One end of a range: the value and whether it is included.
type End = Option<(Value, bool)>;

/// A range of values, `None` ends unbounded.
#[derive(Debug, Clone, PartialEq)]
struct Range {
    low: End,
    high: End,
}

/// Sorted, disjoint, not touching ranges.
type Set = Vec<Range>;

/// At most this many comparisons are combined into one set (a longer list, e.g. a NOT IN of
/// thousands of values, is left as written: combining is quadratic in it).
const MAX_COMPARISONS: usize = 64;

/// The values a comparison `expr op literal`, or an AND / OR of such comparisons of one
/// expression, admits: the expression's canonical text, the expression, its set. `budget`
/// counts the comparisons still allowed.
fn term_set(term: &CExpr, budget: &mut usize) -> Option<(String, CExpr, Set)> {
    let CExpr::Binary { op, left, right } = term else {
        return None;
    };
    if op == "AND" || op == "OR" {
        let (l, r) = (term_set(left, budget)?, term_set(right, budget)?);
        if l.0 != r.0 {
            return None;
        }
        let set = if op == "AND" {
            intersection(&l.2, &r.2)
        } else {
            union(&l.2, &r.2)
        };
        return Some((l.0, l.1, set));
    }
    let CExpr::Literal(text) = right.as_ref() else {
        return None;
    };
    if matches!(left.as_ref(), CExpr::Literal(_) | CExpr::Interval { .. }) {
        return None;
    }
    *budget = budget.checked_sub(1)?;
    let v = match text.parse::<i128>() {
        Ok(v) if v.to_string() == *text => Value::Int(v),
        // A text literal, without trailing blanks (a CHAR comparison may pad them), with `=`
        // and `<>` only.
        _ if text.starts_with('\'')
            && text.ends_with('\'')
            && text.len() >= 2
            && !text[..text.len() - 1].ends_with(' ')
            && matches!(op.as_str(), "=" | "<>") =>
        {
            Value::Text(text.clone())
        }
        _ => return None,
    };
    let v_kind = v.clone();
    let at = |low: End, high: End| vec![Range { low, high }];
    let set = match op.as_str() {
        "=" => at(Some((v.clone(), true)), Some((v, true))),
        "<>" => vec![
            Range {
                low: None,
                high: Some((v.clone(), false)),
            },
            Range {
                low: Some((v, false)),
                high: None,
            },
        ],
        "<" => at(None, Some((v, false))),
        "<=" => at(None, Some((v, true))),
        ">" => at(Some((v, false)), None),
        ">=" => at(Some((v, true)), None),
        _ => return None,
    };
    let kind = if matches!(v_kind, Value::Int(_)) {
        "int"
    } else {
        "text"
    };
    Some((
        format!("{}#{kind}", left.canonical()),
        (**left).clone(),
        set,
    ))
}

/// Whether the low end `a` starts below the low end `b`.
fn low_before(a: &End, b: &End) -> bool {
    match (a, b) {
        (None, _) => true,
        (_, None) => false,
        (Some((x, xi)), Some((y, yi))) => x < y || (x == y && *xi && !*yi),
    }
}

/// Whether the high end `a` ends above the high end `b`.
fn high_after(a: &End, b: &End) -> bool {
    match (a, b) {
        (None, _) => true,
        (_, None) => false,
        (Some((x, xi)), Some((y, yi))) => x > y || (x == y && *xi && !*yi),
    }
}

/// Whether a range ending at `high` meets or overlaps one starting at `low` (no value between).
fn meets(high: &End, low: &End) -> bool {
    match (high, low) {
        (None, _) | (_, None) => true,
        (Some((h, hi)), Some((l, li))) => h > l || (h == l && (*hi || *li)),
    }
}

fn is_empty(r: &Range) -> bool {
    match (&r.low, &r.high) {
        (Some((l, li)), Some((h, hi))) => l > h || (l == h && !(*li && *hi)),
        _ => false,
    }
}

/// The ranges in order, overlapping or touching ones merged.
fn normalized(mut ranges: Vec<Range>) -> Set {
    ranges.retain(|r| !is_empty(r));
    ranges.sort_by(|a, b| {
        if low_before(&a.low, &b.low) {
            std::cmp::Ordering::Less
        } else if low_before(&b.low, &a.low) {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    });
    let mut out: Set = Vec::with_capacity(ranges.len());
    for r in ranges {
        match out.last_mut() {
            Some(last) if meets(&last.high, &r.low) => {
                if high_after(&r.high, &last.high) {
                    last.high = r.high;
                }
            }
            _ => out.push(r),
        }
    }
    out
}

fn union(a: &Set, b: &Set) -> Set {
    normalized(a.iter().chain(b).cloned().collect())
}

fn intersection(a: &Set, b: &Set) -> Set {
    let mut out = Vec::new();
    for x in a {
        for y in b {
            let low = if low_before(&x.low, &y.low) {
                y.low.clone()
            } else {
                x.low.clone()
            };
            let high = if high_after(&x.high, &y.high) {
                y.high.clone()
            } else {
                x.high.clone()
            };
            out.push(Range { low, high });
        }
    }
    normalized(out)
}

fn comparison(op: &str, expr: &CExpr, value: &Value) -> CExpr {
    CExpr::Binary {
        op: op.into(),
        left: Box::new(expr.clone()),
        right: Box::new(CExpr::Literal(value.literal())),
    }
}

/// The terms (all must hold) of one range.
fn range_terms(expr: &CExpr, r: &Range) -> Vec<CExpr> {
    if let (Some((l, true)), Some((h, true))) = (&r.low, &r.high) {
        if l == h {
            return vec![comparison("=", expr, l)];
        }
    }
    let mut out = Vec::new();
    if let Some((l, inclusive)) = &r.low {
        out.push(comparison(if *inclusive { ">=" } else { ">" }, expr, l));
    }
    if let Some((h, inclusive)) = &r.high {
        out.push(comparison(if *inclusive { "<=" } else { "<" }, expr, h));
    }
    out
}

/// How a set is written: a range (its bounds), the values but some points (`x <> p AND ...`),
/// or ranges (each one's terms, OR-ed): `(op, terms)` where `op` joins the terms. None: every
/// value (left as written).
fn written(expr: &CExpr, set: &Set) -> Option<(&'static str, Vec<Vec<CExpr>>)> {
    match set.as_slice() {
        [] => Some(("AND", vec![vec![CExpr::Literal("FALSE".into())]])),
        [only] if only.low.is_none() && only.high.is_none() => None,
        [only] => Some(("AND", vec![range_terms(expr, only)])),
        [first, .., last] => {
            // Every value but some points: unbounded at both ends, each gap one excluded point.
            let points: Option<Vec<&Value>> = set
                .windows(2)
                .map(|w| match (&w[0].high, &w[1].low) {
                    (Some((h, false)), Some((l, false))) if h == l => Some(h),
                    _ => None,
                })
                .collect();
            match points {
                Some(points) if first.low.is_none() && last.high.is_none() => Some((
                    "AND",
                    points
                        .into_iter()
                        .map(|p| vec![comparison("<>", expr, p)])
                        .collect(),
                )),
                _ => Some(("OR", set.iter().map(|r| range_terms(expr, r)).collect())),
            }
        }
    }
}

/// The terms of an `op` chain with the comparisons of one expression with integer literals
/// combined (see the module): for each expression two or more terms compare, their set written
/// once. `build` joins terms into a chain of an operator (the normalizer's junction).
///
/// In a condition (`condition`: NULL and FALSE both reject), a combination that admits every
/// value is `expr IS NOT NULL`, as Flink plans it (`x <> 'a' OR x = 'a'`; plan oracle);
/// elsewhere it is left as written (it is NULL where the expression is).
pub fn combine(
    op: &str,
    terms: Vec<CExpr>,
    build: &dyn Fn(&str, Vec<CExpr>) -> CExpr,
    condition: bool,
) -> Vec<CExpr> {
    let mut budget = MAX_COMPARISONS;
    let sets: Vec<Option<(String, CExpr, Set)>> =
        terms.iter().map(|t| term_set(t, &mut budget)).collect();
    let mut groups: Vec<(String, CExpr, Set, usize)> = Vec::new();
    for (key, expr, set) in sets.iter().flatten() {
        match groups.iter_mut().find(|g| g.0 == *key) {
            Some(group) => {
                group.2 = if op == "AND" {
                    intersection(&group.2, set)
                } else {
                    union(&group.2, set)
                };
                group.3 += 1;
            }
            None => groups.push((key.clone(), expr.clone(), set.clone(), 1)),
        }
    }
    let mut combined: Vec<(String, Vec<CExpr>)> = Vec::new();
    for (key, expr, set, count) in &groups {
        if *count < 2 {
            continue;
        }
        let Some((joined, parts)) = written(expr, set).or_else(|| {
            condition.then(|| {
                let not_null = CExpr::Call {
                    name: "IS NOT NULL".into(),
                    args: vec![expr.clone()],
                };
                ("AND", vec![vec![not_null]])
            })
        }) else {
            continue;
        };
        let terms = if joined == op && op == "AND" {
            parts.into_iter().flatten().collect()
        } else {
            let as_terms: Vec<CExpr> = parts.into_iter().map(|part| build("AND", part)).collect();
            if joined == op {
                as_terms
            } else {
                vec![build(joined, as_terms)]
            }
        };
        combined.push((key.clone(), terms));
    }
    if combined.is_empty() {
        return terms;
    }
    let mut out = Vec::with_capacity(terms.len());
    for (term, set) in terms.into_iter().zip(&sets) {
        match set {
            Some((key, ..)) if combined.iter().any(|(k, _)| k == key) => {}
            _ => out.push(term),
        }
    }
    for (_, terms) in combined {
        out.extend(terms);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmp(op: &str, v: &str) -> CExpr {
        CExpr::Binary {
            op: op.into(),
            left: Box::new(CExpr::Column {
                table: "t".into(),
                column: "x".into(),
            }),
            right: Box::new(CExpr::Literal(v.into())),
        }
    }

    fn chain(op: &str, terms: Vec<CExpr>) -> CExpr {
        let mut it = terms.into_iter();
        let first = it.next().unwrap_or(CExpr::Literal("TRUE".into()));
        it.fold(first, |acc, t| CExpr::Binary {
            op: op.into(),
            left: Box::new(acc),
            right: Box::new(t),
        })
    }

    fn texts(terms: &[CExpr]) -> Vec<String> {
        let mut v: Vec<String> = terms.iter().map(CExpr::canonical).collect();
        v.sort();
        v
    }

    #[test]
    fn in_lists_intersect() {
        let a = chain("OR", vec![cmp("=", "1"), cmp("=", "2")]);
        let b = chain("OR", vec![cmp("=", "2"), cmp("=", "3")]);
        assert_eq!(
            texts(&combine("AND", vec![a, b], &chain, false)),
            texts(&[cmp("=", "2")])
        );
    }

    #[test]
    fn ranges_unite_only_where_they_meet() {
        let a = chain("AND", vec![cmp(">=", "1"), cmp("<=", "10")]);
        let b = chain("AND", vec![cmp(">=", "5"), cmp("<=", "15")]);
        let united = combine("OR", vec![a, b], &chain, false);
        assert_eq!(
            texts(&united),
            texts(&[chain("AND", vec![cmp(">=", "1"), cmp("<=", "15")])])
        );
        // 5 < x < 6 holds for a DECIMAL x: two ranges stay two.
        let apart = combine("OR", vec![cmp("<=", "5"), cmp(">=", "6")], &chain, false);
        assert_eq!(apart.len(), 2);
        // Every value: left as written.
        let all = combine("OR", vec![cmp("<=", "5"), cmp(">", "5")], &chain, false);
        assert_eq!(texts(&all), texts(&[cmp("<=", "5"), cmp(">", "5")]));
    }

    #[test]
    fn excluded_points_stay_exclusions() {
        let terms = vec![cmp("<>", "1"), cmp("<>", "2")];
        assert_eq!(
            texts(&combine("AND", terms.clone(), &chain, false)),
            texts(&terms)
        );
        // An exclusion outside a range is no condition.
        let bounded = vec![cmp(">=", "1"), cmp("<=", "10"), cmp("<>", "20")];
        assert_eq!(
            texts(&combine("AND", bounded, &chain, false)),
            texts(&[cmp(">=", "1"), cmp("<=", "10")])
        );
        // No value: FALSE.
        let none = combine("AND", vec![cmp("=", "1"), cmp("=", "2")], &chain, false);
        assert_eq!(texts(&none), vec!["FALSE".to_string()]);
    }

    #[test]
    fn other_literals_are_left_alone() {
        let terms = vec![cmp(">", "1.5"), cmp(">", "2")];
        assert_eq!(
            texts(&combine("AND", terms.clone(), &chain, false)),
            texts(&terms)
        );
    }
}
