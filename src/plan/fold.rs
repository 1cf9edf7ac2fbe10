//! Constant expressions Flink's optimizer reduces to their value before it plans (plan oracle,
//! each pair planned alike by Flink 2.3): `x > 2 * 3 - 1` is `x > 5`, `x > -(2 + 3)` is `x > -5`,
//! `x > 7 / 2` is `x > 3`, `s = 'a' || 'b'` and `s = CONCAT('a', 'b')` are `s = 'ab'`,
//! `s = UPPER('ab')` is `s = 'AB'`, `s = TRIM(' a ')` (LTRIM, RTRIM, `TRIM(BOTH 'x' FROM ...)`
//! of one character) is `s = 'a'`, and compared with a value, `TIMESTAMP '2024-01-01 00:00:00' +
//! INTERVAL '1' DAY` is `TIMESTAMP '2024-01-02 00:00:00'`.
//!
//! Only values computed exactly as Flink computes them, in the type the written literal would
//! have, are reduced: INT arithmetic that does not overflow, texts of literals, UPPER / LOWER of
//! ASCII text, a TIMESTAMP of whole seconds moved by a day-time interval. Anything else keeps its
//! form (DECIMAL arithmetic, whose result type differs from the written literal's; a division by
//! zero; a year-month interval): two spellings of one value then differ, the safe side.

use super::expr::CExpr;

/// The value of an INT literal: a number without a fraction, written as Flink writes it back
/// (no `+`, no leading zero), within INT's range.
fn int_literal(expr: &CExpr) -> Option<i32> {
    let CExpr::Literal(text) = expr else {
        return None;
    };
    let value: i32 = text.parse().ok()?;
    (value.to_string() == *text).then_some(value)
}

/// `left op right` for two INT literals, when the INT result is exact: Flink reduces it with
/// Java's `int` arithmetic, which truncates a quotient toward zero, as Rust does; an overflow
/// or a division by zero is left to Flink (not reduced here).
pub fn arithmetic(op: &str, left: &CExpr, right: &CExpr) -> Option<CExpr> {
    let (a, b) = (int_literal(left)?, int_literal(right)?);
    let value = match op {
        "+" => a.checked_add(b),
        "-" => a.checked_sub(b),
        "*" => a.checked_mul(b),
        "/" => a.checked_div(b),
        _ => None,
    }?;
    Some(CExpr::Literal(value.to_string()))
}

/// `-n` of an INT literal (`-(2 + 3)` is `-5`).
pub fn negated(operand: &CExpr) -> Option<CExpr> {
    let value = int_literal(operand)?.checked_neg()?;
    Some(CExpr::Literal(value.to_string()))
}

/// The body of a text literal, between its quotes (`''` as written).
fn text_literal(expr: &CExpr) -> Option<&str> {
    let CExpr::Literal(text) = expr else {
        return None;
    };
    text.strip_prefix('\'')?.strip_suffix('\'')
}

fn text(body: &str) -> CExpr {
    CExpr::Literal(format!("'{body}'"))
}

/// `'a' || 'b'` is `'ab'` (two CHAR literals give the CHAR of both, as writing it does).
pub fn concatenated(left: &CExpr, right: &CExpr) -> Option<CExpr> {
    Some(text(&format!(
        "{}{}",
        text_literal(left)?,
        text_literal(right)?
    )))
}

/// Whether [`builtin_call`] may reduce a call of the built-in function `name`.
pub fn reduces(name: &str) -> bool {
    matches!(name, "CONCAT" | "UPPER" | "LOWER" | "LTRIM" | "RTRIM")
}

/// `TRIM(side what FROM value)` of text literals: `what` (a single character, a blank when
/// none is given) removed from the start (LEADING), the end (TRAILING) or both ends of `value`.
pub fn trimmed(side: &str, what: Option<&CExpr>, value: &CExpr) -> Option<CExpr> {
    let body = text_literal(value)?;
    let what = match what {
        Some(what) => text_literal(what)?,
        None => " ",
    };
    let mut chars = what.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return None;
    };
    if c == '\'' {
        return None;
    }
    let body = match side {
        "LEADING" => body.trim_start_matches(c),
        "TRAILING" => body.trim_end_matches(c),
        _ => body.trim_matches(c),
    };
    Some(text(body))
}

/// A built-in function of text literals reduced to its value: CONCAT of texts, UPPER and LOWER
/// of ASCII text (other letters change case by rules that depend on the locale).
pub fn builtin_call(name: &str, args: &[CExpr]) -> Option<CExpr> {
    match (name, args) {
        ("CONCAT", [_, _, ..]) => {
            let bodies: Option<Vec<&str>> = args.iter().map(text_literal).collect();
            Some(text(&bodies?.concat()))
        }
        ("LTRIM", [arg]) => trimmed("LEADING", None, arg),
        ("RTRIM", [arg]) => trimmed("TRAILING", None, arg),
        ("UPPER" | "LOWER", [arg]) => {
            let body = text_literal(arg)?;
            if !body.is_ascii() {
                return None;
            }
            Some(text(&if name == "UPPER" {
                body.to_ascii_uppercase()
            } else {
                body.to_ascii_lowercase()
            }))
        }
        _ => None,
    }
}

/// A compared constant reduced to its value: a TIMESTAMP literal (already in its one layout,
/// `TIMESTAMP 'YYYY-MM-DD HH:MM:SS'`) plus or minus a day-time interval of whole seconds.
/// Only in a comparison: as a value, the written literal's precision is part of its type.
pub fn compared(expr: CExpr) -> CExpr {
    let CExpr::Binary { op, left, right } = &expr else {
        return expr;
    };
    let shifted = match (op.as_str(), left.as_ref(), right.as_ref()) {
        ("+", stamp, CExpr::Interval { millis, months: 0 })
        | ("+", CExpr::Interval { millis, months: 0 }, stamp) => shift(stamp, *millis),
        ("-", stamp, CExpr::Interval { millis, months: 0 }) => {
            millis.checked_neg().and_then(|m| shift(stamp, m))
        }
        _ => None,
    };
    shifted.unwrap_or(expr)
}

/// `TIMESTAMP 'YYYY-MM-DD HH:MM:SS'` moved by `millis` (whole seconds), within years 1-9999.
fn shift(stamp: &CExpr, millis: i128) -> Option<CExpr> {
    let millis = i64::try_from(millis).ok()?;
    let CExpr::Literal(literal) = super::literals::compared_literal(stamp.clone()) else {
        return None;
    };
    let body = literal.strip_prefix("TIMESTAMP '")?.strip_suffix('\'')?;
    let (date, time) = body.split_once(' ')?;
    let number = |s: &str| -> Option<i64> {
        s.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| s.parse().ok())?
    };
    let mut d = date.split('-').map(number);
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let mut t = time.split(':').map(number);
    let (h, min, s) = (t.next()??, t.next()??, t.next()??);
    if millis % 1000 != 0 {
        return None;
    }
    let seconds = days_from_civil(y, m, day)?
        .checked_mul(86_400)?
        .checked_add(h * 3600 + min * 60 + s)?
        .checked_add(millis / 1000)?;
    let (days, second_of_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let (y, m, day) = civil_from_days(days);
    if !(1..=9999).contains(&y) {
        return None;
    }
    Some(CExpr::Literal(format!(
        "TIMESTAMP '{y:04}-{m:02}-{day:02} {:02}:{:02}:{:02}'",
        second_of_day / 3600,
        second_of_day % 3600 / 60,
        second_of_day % 60
    )))
}

/// Days since 1970-01-01 of a day of the proleptic Gregorian calendar (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> Option<i64> {
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let year_of_era = y.rem_euclid(400);
    let month = if m > 2 { m - 3 } else { m + 9 };
    let day_of_year = (153 * month + 2) / 5 + d - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    Some(era * 146_097 + day_of_era - 719_468)
}

/// The day `days` after 1970-01-01: (year, month, day).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let d = day_of_year - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = year_of_era + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(v: &str) -> CExpr {
        CExpr::Literal(v.into())
    }

    #[test]
    fn int_arithmetic_is_reduced_only_when_exact() {
        assert_eq!(arithmetic("*", &lit("2"), &lit("3")), Some(lit("6")));
        assert_eq!(arithmetic("/", &lit("7"), &lit("2")), Some(lit("3")));
        assert_eq!(arithmetic("/", &lit("-7"), &lit("2")), Some(lit("-3")));
        assert_eq!(arithmetic("/", &lit("7"), &lit("0")), None);
        assert_eq!(arithmetic("+", &lit("2147483647"), &lit("1")), None);
        // A DECIMAL or BIGINT literal is another type: not reduced here.
        assert_eq!(arithmetic("+", &lit("1.5"), &lit("1")), None);
        assert_eq!(arithmetic("+", &lit("3000000000"), &lit("1")), None);
        assert_eq!(arithmetic("%", &lit("7"), &lit("2")), None);
        assert_eq!(negated(&lit("5")), Some(lit("-5")));
    }

    #[test]
    fn texts_are_reduced() {
        assert_eq!(concatenated(&lit("'a'"), &lit("'b'")), Some(lit("'ab'")));
        assert_eq!(concatenated(&lit("'a'"), &lit("NULL")), None);
        assert_eq!(
            builtin_call("CONCAT", &[lit("'it''s'"), lit("' x'")]),
            Some(lit("'it''s x'"))
        );
        assert_eq!(builtin_call("UPPER", &[lit("'ab'")]), Some(lit("'AB'")));
        assert_eq!(builtin_call("LOWER", &[lit("'ÄB'")]), None);
        assert_eq!(builtin_call("TRIM", &[lit("' a '")]), None);
    }

    #[test]
    fn timestamps_move_by_whole_seconds() {
        let plus = |stamp: &str, millis: i128| {
            compared(CExpr::Binary {
                op: "+".into(),
                left: Box::new(lit(stamp)),
                right: Box::new(CExpr::Interval { millis, months: 0 }),
            })
        };
        assert_eq!(
            plus("TIMESTAMP '2024-02-28 23:00:00'", 86_400_000),
            lit("TIMESTAMP '2024-02-29 23:00:00'")
        );
        assert_eq!(
            plus("TIMESTAMP '2024-1-1 00:00:00.000'", -1000),
            lit("TIMESTAMP '2023-12-31 23:59:59'")
        );
        // A fraction of a second stays written as it is.
        assert!(matches!(
            plus("TIMESTAMP '2024-01-01 00:00:00'", 500),
            CExpr::Binary { .. }
        ));
        assert!(matches!(
            compared(CExpr::Binary {
                op: "+".into(),
                left: Box::new(lit("TIMESTAMP '2024-01-01 00:00:00'")),
                right: Box::new(CExpr::Interval {
                    millis: 0,
                    months: 1
                }),
            }),
            CExpr::Binary { .. }
        ));
    }
}
