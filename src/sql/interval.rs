//! Interval literals to exact values: `INTERVAL '1' MINUTE` == `INTERVAL '60' SECOND`.

use sqlparser::ast::{DateTimeField, Expr, Interval, UnaryOperator, Value};

/// Milliseconds (day-time) and months (year-month) of an interval literal, or why not.
pub fn interval_value(interval: &Interval) -> Result<(i128, i128), String> {
    let (text, negative) = literal_text(&interval.value)
        .ok_or_else(|| format!("the interval value `{}` is not a literal", interval.value))?;
    let field = interval
        .leading_field
        .clone()
        .unwrap_or(DateTimeField::Second);
    let value = match &interval.last_field {
        None => single(&text, &field)?,
        Some(last) => ranged(&text, &field, last)?,
    };
    Ok(if negative {
        (-value.0, -value.1)
    } else {
        value
    })
}

/// Whether `first TO last` is an interval range Flink's parser (Calcite) reads: YEAR TO MONTH,
/// DAY TO HOUR/MINUTE/SECOND, HOUR TO MINUTE/SECOND, MINUTE TO SECOND.
pub fn is_range(first: &DateTimeField, last: &DateTimeField) -> bool {
    if unit_months(first).is_some() {
        return matches!(first, DateTimeField::Year | DateTimeField::Years)
            && matches!(last, DateTimeField::Month | DateTimeField::Months);
    }
    let order = |f: &DateTimeField| match f {
        DateTimeField::Day | DateTimeField::Days => Some(0),
        DateTimeField::Hour | DateTimeField::Hours => Some(1),
        DateTimeField::Minute | DateTimeField::Minutes => Some(2),
        DateTimeField::Second | DateTimeField::Seconds => Some(3),
        _ => None,
    };
    matches!((order(first), order(last)), (Some(a), Some(b)) if a < b)
}

/// `FLOOR(ts + INTERVAL '1' YEAR TO DAY)`: sqlparser reads `YEAR TO DAY` as the interval's range,
/// Flink (Calcite) as `FLOOR((ts + INTERVAL '1' YEAR) TO DAY)`, as no interval ranges from YEAR
/// to DAY. The operand with the trailing interval's impossible range taken off, and that unit.
pub fn split_trailing_unit(expr: &Expr) -> Option<(Expr, DateTimeField)> {
    let mut copy = expr.clone();
    let mut at = &mut copy;
    loop {
        match at {
            Expr::BinaryOp { right, .. } => at = right.as_mut(),
            Expr::UnaryOp { expr, .. } => at = expr.as_mut(),
            Expr::Interval(interval) => {
                let first = interval.leading_field.clone()?;
                let last = interval.last_field.clone()?;
                if is_range(&first, &last) {
                    return None;
                }
                interval.last_field = None;
                return Some((copy, last));
            }
            _ => return None,
        }
    }
}

fn literal_text(expr: &Expr) -> Option<(String, bool)> {
    match expr {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) | Value::Number(s, _) => {
                let s = s.trim();
                match s.strip_prefix('-') {
                    Some(rest) => Some((rest.trim().to_string(), true)),
                    None => Some((s.trim_start_matches('+').to_string(), false)),
                }
            }
            _ => None,
        },
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => literal_text(expr).map(|(t, n)| (t, !n)),
        _ => None,
    }
}

fn unit_millis(field: &DateTimeField) -> Option<i128> {
    Some(match field {
        DateTimeField::Week(_) | DateTimeField::Weeks => 7 * 86_400_000,
        DateTimeField::Day | DateTimeField::Days => 86_400_000,
        DateTimeField::Hour | DateTimeField::Hours => 3_600_000,
        DateTimeField::Minute | DateTimeField::Minutes => 60_000,
        DateTimeField::Second | DateTimeField::Seconds => 1_000,
        DateTimeField::Millisecond | DateTimeField::Milliseconds => 1,
        _ => return None,
    })
}

fn unit_months(field: &DateTimeField) -> Option<i128> {
    match field {
        DateTimeField::Year | DateTimeField::Years => Some(12),
        DateTimeField::Month | DateTimeField::Months => Some(1),
        _ => None,
    }
}

/// A decimal number of `unit`s, exact to the millisecond.
fn scaled(text: &str, unit: i128) -> Result<i128, String> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let bad = || format!("`{text}` is not a number");
    if whole.is_empty() && fraction.is_empty() {
        return Err(bad());
    }
    let whole: i128 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| bad())?
    };
    let mut value = whole
        .checked_mul(unit)
        .ok_or_else(|| "the interval is too large".to_string())?;
    if !fraction.is_empty() {
        if !fraction.chars().all(|c| c.is_ascii_digit()) || fraction.len() > 9 {
            return Err(bad());
        }
        let digits: i128 = fraction.parse().map_err(|_| bad())?;
        let scale = 10i128.pow(fraction.len() as u32);
        value += digits * unit / scale;
    }
    Ok(value)
}

fn single(text: &str, field: &DateTimeField) -> Result<(i128, i128), String> {
    if let Some(months) = unit_months(field) {
        return Ok((0, scaled(text, months)?));
    }
    let unit =
        unit_millis(field).ok_or_else(|| format!("the interval unit {field} is not supported"))?;
    Ok((scaled(text, unit)?, 0))
}

/// `INTERVAL '1 02:03' DAY TO MINUTE`, `INTERVAL '1-6' YEAR TO MONTH`.
fn ranged(text: &str, first: &DateTimeField, last: &DateTimeField) -> Result<(i128, i128), String> {
    if unit_months(first).is_some() {
        let (years, months) = text
            .split_once('-')
            .ok_or_else(|| format!("`{text}` is not YEAR TO MONTH"))?;
        return Ok((0, scaled(years, 12)? + scaled(months, 1)?));
    }
    let order = [
        DateTimeField::Day,
        DateTimeField::Hour,
        DateTimeField::Minute,
        DateTimeField::Second,
    ];
    let position = |f: &DateTimeField| order.iter().position(|o| unit_millis(o) == unit_millis(f));
    let (Some(start), Some(end)) = (position(first), position(last)) else {
        return Err(format!(
            "the interval range {first} TO {last} is not supported"
        ));
    };
    let parts: Vec<&str> = text.split([' ', ':']).filter(|p| !p.is_empty()).collect();
    if end < start || parts.len() != end - start + 1 {
        return Err(format!("`{text}` does not match {first} TO {last}"));
    }
    let mut total = 0;
    for (part, field) in parts.iter().zip(&order[start..=end]) {
        total += scaled(part, unit_millis(field).unwrap_or(1))?;
    }
    Ok((total, 0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::dialect::FlinkDialect;
    use sqlparser::parser::Parser;

    fn value(sql: &str) -> (i128, i128) {
        let dialect = FlinkDialect;
        let expr = Parser::new(&dialect)
            .try_with_sql(sql)
            .and_then(|mut p| p.parse_expr())
            .expect("parses");
        match expr {
            Expr::Interval(i) => interval_value(&i).expect("valid"),
            other => panic!("not an interval: {other}"),
        }
    }

    #[test]
    fn units_are_normalized() {
        assert_eq!(value("INTERVAL '1' MINUTE"), value("INTERVAL '60' SECOND"));
        assert_eq!(value("INTERVAL '2' HOUR").0, 7_200_000);
        assert_eq!(value("INTERVAL '1.5' SECOND").0, 1_500);
        assert_eq!(value("INTERVAL '-6' SECOND").0, -6_000);
        assert_eq!(value("INTERVAL '1 01:00' DAY TO MINUTE").0, 90_000_000);
        assert_eq!(value("INTERVAL '1-6' YEAR TO MONTH").1, 18);
        assert_eq!(value("INTERVAL '10' DAY").0, 864_000_000);
    }
}
