//! The time bounds of an interval join, normalized: `l.ts BETWEEN r.ts - INTERVAL '1' MINUTE
//! AND r.ts` and `l.ts >= r.ts - INTERVAL '60' SECOND AND l.ts <= r.ts` are the same bounds.

use super::expr::{interval_text, CExpr};
use crate::catalog::TimeKind;

pub struct TimeBounds {
    /// `left BETWEEN right + lower AND right + upper`, or a term kept as written.
    pub terms: Vec<String>,
    pub time_kind: TimeKind,
    /// `left - right` lies within `lower_ms ..= upper_ms`.
    pub lower_ms: i128,
    pub upper_ms: i128,
}

/// A time column plus a constant day-time interval.
fn offset(expr: &CExpr) -> Option<(String, i128)> {
    match expr {
        CExpr::Column { .. } => Some((expr.canonical(), 0)),
        CExpr::Binary { op, left, right } => match (op.as_str(), left.as_ref(), right.as_ref()) {
            ("+", CExpr::Column { .. }, CExpr::Interval { millis, months: 0 }) => {
                Some((left.canonical(), *millis))
            }
            ("+", CExpr::Interval { millis, months: 0 }, CExpr::Column { .. }) => {
                Some((right.canonical(), *millis))
            }
            ("-", CExpr::Column { .. }, CExpr::Interval { millis, months: 0 }) => {
                Some((left.canonical(), -millis))
            }
            _ => None,
        },
        _ => None,
    }
}

fn leaves(expr: &CExpr, out: &mut Vec<String>) {
    match expr {
        CExpr::Column { .. } => out.push(expr.canonical()),
        other => other.children().into_iter().for_each(|c| leaves(c, out)),
    }
}

/// `(lower, upper)` of `left - right` in ms that one term states, or None when not of that form.
fn term_bounds(term: &CExpr, left: &str, right: &str) -> Option<(Option<i128>, Option<i128>)> {
    // `a <= b` (or `<`) as a constraint on left - right.
    let less = |a: &CExpr, b: &CExpr, strict: bool| -> Option<(Option<i128>, Option<i128>)> {
        let (ca, oa) = offset(a)?;
        let (cb, ob) = offset(b)?;
        let gap = ob - oa - i128::from(strict);
        if ca == left && cb == right {
            Some((None, Some(gap)))
        } else if ca == right && cb == left {
            Some((Some(-gap), None))
        } else {
            None
        }
    };
    match term {
        CExpr::Call { name, args } if name == "BETWEEN" && args.len() == 3 => {
            let (lo, _) = less(&args[1], &args[0], false)?;
            let (_, hi) = less(&args[0], &args[2], false)?;
            let (lo2, hi2) = (
                less(&args[0], &args[1], false).and_then(|b| b.0),
                less(&args[2], &args[0], false).and_then(|b| b.1),
            );
            Some((lo.or(lo2), hi.or(hi2)))
        }
        CExpr::Binary {
            op,
            left: a,
            right: b,
        } => match op.as_str() {
            "<" => less(a, b, true),
            "<=" => less(a, b, false),
            // `l.ts = r.ts`: both bounds at once (plan lab: the interval join of
            // `BETWEEN r.ts AND r.ts`).
            "=" => {
                let (lo, hi) = (less(b, a, false)?, less(a, b, false)?);
                Some((lo.0.or(hi.0), lo.1.or(hi.1)))
            }
            ">" => less(b, a, true),
            ">=" => less(b, a, false),
            _ => None,
        },
        _ => None,
    }
}

/// Takes the time-bound terms out of `conditions` when they bound a time attribute of one input
/// by the other's from below and from above (Flink's interval join); None otherwise.
pub fn time_bounds(
    left_times: &[(String, TimeKind)],
    right_times: &[(String, TimeKind)],
    conditions: &mut Vec<CExpr>,
) -> Option<TimeBounds> {
    let mut found: Option<(String, String, TimeKind)> = None;
    let mut bound_terms = Vec::new();
    for term in conditions.iter() {
        let is_comparison = matches!(term, CExpr::Call { name, .. } if name == "BETWEEN")
            || matches!(term, CExpr::Binary { op, .. } if matches!(op.as_str(), "<" | "<=" | ">" | ">=" | "="));
        let mut read = Vec::new();
        leaves(term, &mut read);
        let l = left_times.iter().find(|(c, _)| read.contains(c));
        let r = right_times.iter().find(|(c, _)| read.contains(c));
        if let (true, Some((lc, lk)), Some((rc, _))) = (is_comparison, l, r) {
            found.get_or_insert((lc.clone(), rc.clone(), *lk));
            bound_terms.push(term.clone());
        }
    }
    let (left, right, time_kind) = found?;
    let mut lower: Option<i128> = None;
    let mut upper: Option<i128> = None;
    let mut terms = Vec::new();
    for term in &bound_terms {
        match term_bounds(term, &left, &right) {
            Some((lo, hi)) => {
                lower = match (lower, lo) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    (a, b) => a.or(b),
                };
                upper = match (upper, hi) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
            }
            None => terms.push(term.canonical()),
        }
    }
    let (Some(lower), Some(upper)) = (lower, upper) else {
        return None;
    };
    conditions.retain(|t| !bound_terms.contains(t));
    let side = |ms: i128| match ms {
        0 => right.clone(),
        ms if ms < 0 => format!("{right} - {}", interval_text(-ms, 0)),
        ms => format!("{right} + {}", interval_text(ms, 0)),
    };
    terms.push(format!(
        "{left} BETWEEN {} AND {}",
        side(lower),
        side(upper)
    ));
    terms.sort();
    Some(TimeBounds {
        terms,
        time_kind,
        lower_ms: lower,
        upper_ms: upper,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shifted(c: CExpr, op: &str, millis: i128) -> CExpr {
        CExpr::Binary {
            op: op.into(),
            left: Box::new(c),
            right: Box::new(CExpr::Interval { millis, months: 0 }),
        }
    }

    fn bounds(mut conditions: Vec<CExpr>) -> Vec<String> {
        let l = [("o.ts".to_string(), TimeKind::Rowtime)];
        let r = [("s.ts".to_string(), TimeKind::Rowtime)];
        time_bounds(&l, &r, &mut conditions)
            .map(|b| b.terms)
            .unwrap_or_default()
    }

    #[test]
    fn between_and_two_comparisons_are_the_same_bounds() {
        let between = CExpr::Call {
            name: "BETWEEN".into(),
            args: vec![
                CExpr::column("o", "ts"),
                shifted(CExpr::column("s", "ts"), "-", 60_000),
                CExpr::column("s", "ts"),
            ],
        };
        let ge = CExpr::Binary {
            op: ">=".into(),
            left: Box::new(CExpr::column("o", "ts")),
            right: Box::new(shifted(CExpr::column("s", "ts"), "-", 60_000)),
        };
        let le = CExpr::Binary {
            op: "<=".into(),
            left: Box::new(CExpr::column("o", "ts")),
            right: Box::new(CExpr::column("s", "ts")),
        };
        assert_eq!(bounds(vec![between]), bounds(vec![ge, le]));
        assert_eq!(
            bounds(vec![CExpr::Call {
                name: "BETWEEN".into(),
                args: vec![
                    CExpr::column("o", "ts"),
                    shifted(CExpr::column("s", "ts"), "-", 60_000),
                    CExpr::column("s", "ts")
                ],
            }]),
            vec!["o.ts BETWEEN s.ts - INTERVAL '1' MINUTE AND s.ts"]
        );
    }

    #[test]
    fn a_bound_on_one_side_only_is_a_regular_join_condition() {
        let lt = CExpr::Binary {
            op: "<".into(),
            left: Box::new(CExpr::column("o", "ts")),
            right: Box::new(CExpr::column("s", "ts")),
        };
        assert!(bounds(vec![lt]).is_empty());
    }

    #[test]
    fn a_condition_without_both_time_attributes_is_not_a_bound() {
        let eq = CExpr::Binary {
            op: "=".into(),
            left: Box::new(CExpr::column("o", "id")),
            right: Box::new(CExpr::column("s", "id")),
        };
        assert!(bounds(vec![eq]).is_empty());
    }
}
