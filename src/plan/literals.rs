//! Literals of one value written several ways: the DATE, TIME and TIMESTAMP layouts Flink
//! reads alike, casts of literals it reduces to the literal, and the order of two bounds.

use super::expr::CExpr;

/// The order of two literal bounds when it is known without a type: two numbers, or two
/// DATE / TIME / TIMESTAMP literals of one type written in one layout.
pub fn literal_order(a: &CExpr, b: &CExpr) -> Option<std::cmp::Ordering> {
    let (CExpr::Literal(a), CExpr::Literal(b)) = (a, b) else {
        return None;
    };
    if let (Ok(x), Ok(y)) = (a.parse::<f64>(), b.parse::<f64>()) {
        // Two texts of one double may be two DECIMAL values: their order is unknown.
        return x.partial_cmp(&y).filter(|o| o.is_ne() || a == b);
    }
    let ((ka, va), (kb, vb)) = (typed(a)?, typed(b)?);
    // Digits in the same places: the text order is the time order.
    let layout = |v: &str| -> String {
        v.chars()
            .map(|c| if c.is_ascii_digit() { '9' } else { c })
            .collect()
    };
    (ka == kb && layout(va) == layout(vb)).then(|| va.cmp(vb))
}

/// A DATE literal in its one layout (`DATE '2024-1-1'` is `DATE '2024-01-01'`, as Flink reads
/// it); other literals as written.
pub fn typed_literal(text: String) -> String {
    match typed(&text) {
        Some(("DATE", value)) => match canonical_date(value.trim()) {
            Some(date) => format!("DATE '{date}'"),
            None => text,
        },
        _ => text,
    }
}

/// The literal a compared constant is: an integer cast to an integer type that holds it, a
/// text cast to TIMESTAMP, a TIMESTAMP literal (without fractional zeros, fields padded).
/// Only in a comparison: as a value, the type of `CAST(100 AS BIGINT)` is not that of `100`.
pub fn compared_literal(expr: CExpr) -> CExpr {
    let timestamp = |text: &str| -> Option<String> {
        let (date, time) = text.trim().split_once(' ')?;
        let (time, fraction) = match time.split_once('.') {
            Some((time, fraction)) => (time, fraction),
            None => (time, ""),
        };
        if !fraction.bytes().all(|b| b == b'0') {
            return None;
        }
        Some(format!(
            "TIMESTAMP '{} {}'",
            canonical_date(date)?,
            canonical_time(time)?
        ))
    };
    match &expr {
        CExpr::Call { name, args } if name == "CAST" && args.len() == 2 => {
            let (CExpr::Literal(value), CExpr::Literal(target)) = (&args[0], &args[1]) else {
                return expr;
            };
            let range = match target.as_str() {
                "TINYINT" => Some(i128::from(i8::MIN)..=i128::from(i8::MAX)),
                "SMALLINT" => Some(i128::from(i16::MIN)..=i128::from(i16::MAX)),
                "INT" | "INTEGER" => Some(i128::from(i32::MIN)..=i128::from(i32::MAX)),
                "BIGINT" => Some(i128::from(i64::MIN)..=i128::from(i64::MAX)),
                _ => None,
            };
            if let Some(range) = range {
                return match value.parse::<i128>() {
                    Ok(n) if range.contains(&n) => CExpr::Literal(n.to_string()),
                    _ => expr,
                };
            }
            let is_timestamp = target == "TIMESTAMP"
                || target
                    .strip_prefix("TIMESTAMP(")
                    .and_then(|p| p.strip_suffix(')'))
                    .is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()));
            let text = value.strip_prefix('\'').and_then(|v| v.strip_suffix('\''));
            match text.filter(|_| is_timestamp).and_then(timestamp) {
                Some(literal) => CExpr::Literal(literal),
                None => expr,
            }
        }
        CExpr::Literal(text) => match typed(text) {
            Some(("TIMESTAMP", value)) => timestamp(value).map_or(expr, CExpr::Literal),
            _ => expr,
        },
        _ => expr,
    }
}

/// A DATE / TIME / TIMESTAMP literal: its type and its quoted text.
fn typed(literal: &str) -> Option<(&str, &str)> {
    let (kind, value) = literal.split_once(' ')?;
    let value = value.strip_prefix('\'')?.strip_suffix('\'')?;
    matches!(kind, "DATE" | "TIME" | "TIMESTAMP").then_some((kind, value))
}

/// `CAST('2024-1-1' AS DATE)` is the literal `DATE '2024-01-01'` (Flink reduces the cast to
/// the literal; plan oracle: the plans are equal), `CAST(' 10:00:00' AS TIME)` is `TIME
/// '10:00:00'`, `CAST(100 AS INT)` is `100`: the value and its type are the literal's.
pub fn literal_cast(value: &CExpr, target: &CExpr) -> Option<CExpr> {
    let (CExpr::Literal(value), CExpr::Literal(target)) = (value, target) else {
        return None;
    };
    match target.as_str() {
        "DATE" | "TIME" => {
            let text = value.strip_prefix('\'')?.strip_suffix('\'')?;
            let canonical = if target == "DATE" {
                canonical_date(text.trim())?
            } else {
                canonical_time(text.trim())?
            };
            Some(CExpr::Literal(format!("{target} '{canonical}'")))
        }
        "INT" | "INTEGER" => {
            let n: i32 = value.parse().ok()?;
            Some(CExpr::Literal(n.to_string()))
        }
        _ => None,
    }
}

/// `y-m-d` as `YYYY-MM-DD`, for a real day.
fn canonical_date(text: &str) -> Option<String> {
    let mut parts = text.split('-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some()
        || [y, m, d]
            .iter()
            .any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let (y, m, d): (u32, u32, u32) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    ((1..=9999).contains(&y) && (1..=days).contains(&d)).then(|| format!("{y:04}-{m:02}-{d:02}"))
}

/// `h:m:s` (whole seconds) as `HH:MM:SS`.
fn canonical_time(text: &str) -> Option<String> {
    let parts: Vec<&str> = text.split(':').collect();
    let [h, m, s] = parts.as_slice() else {
        return None;
    };
    if [h, m, s]
        .iter()
        .any(|p| p.is_empty() || p.len() > 2 || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let (h, m, s): (u32, u32, u32) = (h.parse().ok()?, m.parse().ok()?, s.parse().ok()?);
    (h < 24 && m < 60 && s < 60).then(|| format!("{h:02}:{m:02}:{s:02}"))
}

/// `expr` with every literal replaced by its SQL type (`2` by `INT`, `2.50` by `DECIMAL(3, 2)`,
/// `'HIGH'` by `CHAR(4)`): what a field computed from it looks like to a state serializer,
/// which keeps the field's type, not the literal's value.
pub fn with_literal_types(expr: &CExpr) -> CExpr {
    match expr {
        CExpr::Literal(text) => CExpr::Literal(literal_type(text)),
        CExpr::Call { name, args } => CExpr::Call {
            name: name.clone(),
            args: match name.as_str() {
                // A cast's target is its type, not a value.
                "CAST" | "TRY_CAST" => match args.as_slice() {
                    [value, target] => vec![with_literal_types(value), target.clone()],
                    _ => args.iter().map(with_literal_types).collect(),
                },
                _ => args.iter().map(with_literal_types).collect(),
            },
        },
        CExpr::Binary { op, left, right } => CExpr::Binary {
            op: op.clone(),
            left: Box::new(with_literal_types(left)),
            right: Box::new(with_literal_types(right)),
        },
        CExpr::Unary { op, operand } => CExpr::Unary {
            op: op.clone(),
            operand: Box::new(with_literal_types(operand)),
        },
        CExpr::Opaque { text, args } => CExpr::Opaque {
            text: text.clone(),
            args: args.iter().map(with_literal_types).collect(),
        },
        other => other.clone(),
    }
}

/// The SQL type of a literal as the tool writes it; other texts as they are.
fn literal_type(text: &str) -> String {
    if let Some(body) = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
        return format!("CHAR({})", body.replace("''", "'").chars().count());
    }
    let digits = text.trim_start_matches('-');
    if !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit()) {
        return match digits.parse::<i64>() {
            Ok(n) if i32::try_from(n).is_ok() => "INT".into(),
            Ok(_) => "BIGINT".into(),
            Err(_) => format!("DECIMAL({}, 0)", digits.len()),
        };
    }
    if let Some((whole, fraction)) = digits.split_once('.') {
        if (whole.bytes().chain(fraction.bytes())).all(|c| c.is_ascii_digit()) {
            let whole = whole.trim_start_matches('0');
            let precision = (whole.len() + fraction.len()).max(1);
            return format!("DECIMAL({precision}, {})", fraction.len());
        }
    }
    if digits.contains(['e', 'E']) && digits.parse::<f64>().is_ok() {
        return "DOUBLE".into();
    }
    match text {
        "TRUE" | "FALSE" => "BOOLEAN".into(),
        _ => text.to_string(),
    }
}
