//! Flink's duration syntax (`TimeUtils.parseDuration`): a whole number and an optional unit,
//! blanks allowed between them; no unit means milliseconds.

/// The duration in milliseconds (a positive duration below one millisecond reads as 1), or
/// `None` when the text is not a duration.
pub fn millis(text: &str) -> Option<u64> {
    let text = text.trim().to_lowercase();
    let digits = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let number: u64 = text.get(..digits)?.parse().ok()?;
    let unit = text.get(digits..)?.trim();
    let (times, per) = match unit {
        "" | "ms" | "milli" | "millis" | "millisecond" | "milliseconds" => (1, 1),
        "ns" | "nano" | "nanos" | "nanosecond" | "nanoseconds" => (1, 1_000_000),
        "µs" | "micro" | "micros" | "microsecond" | "microseconds" => (1, 1_000),
        "s" | "sec" | "secs" | "second" | "seconds" => (1_000, 1),
        "m" | "min" | "minute" | "minutes" => (60_000, 1),
        "h" | "hour" | "hours" => (3_600_000, 1),
        "d" | "day" | "days" => (86_400_000, 1),
        _ => return None,
    };
    let ms = number.checked_mul(times)?;
    Some(if ms > 0 && ms < per { 1 } else { ms / per })
}

#[cfg(test)]
mod tests {
    use super::millis;

    #[test]
    fn flink_durations_read_as_milliseconds() {
        assert_eq!(millis("1 d"), Some(86_400_000));
        assert_eq!(millis("2d"), Some(172_800_000));
        assert_eq!(millis(" 90 MIN "), Some(5_400_000));
        assert_eq!(millis("500"), Some(500));
        assert_eq!(millis("0 ms"), Some(0));
        assert_eq!(millis("10 ns"), Some(1), "positive stays positive");
        assert_eq!(millis("1 fortnight"), None);
        assert_eq!(millis("-1 s"), None);
        assert_eq!(millis(""), None);
        assert_eq!(millis("99999999999999999999 d"), None);
    }
}
