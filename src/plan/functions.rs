//! What the tool knows of Flink's built-in functions: aggregates, group windows, their properties.

/// Flink's built-in aggregate functions (names uppercased).
pub const BUILTIN_AGGREGATES: &[&str] = &[
    "COUNT",
    "SUM",
    "SUM0",
    "MIN",
    "MAX",
    "AVG",
    "STDDEV",
    "STDDEV_POP",
    "STDDEV_SAMP",
    "VARIANCE",
    "VAR_POP",
    "VAR_SAMP",
    "COLLECT",
    "LISTAGG",
    "FIRST_VALUE",
    "LAST_VALUE",
    "ARRAY_AGG",
    "JSON_OBJECTAGG",
    "JSON_ARRAYAGG",
    "SINGLE_VALUE",
    "APPROX_COUNT_DISTINCT",
    "BIT_AND",
    "BIT_OR",
    "BIT_XOR",
    "BOOL_AND",
    "BOOL_OR",
    "EVERY",
    "SOME",
    "ANY_VALUE",
    "MODE",
    "PERCENTILE",
];

/// Functions only valid with OVER (ranking and offset functions).
pub const WINDOW_ONLY_FUNCTIONS: &[&str] = &[
    "ROW_NUMBER",
    "RANK",
    "DENSE_RANK",
    "PERCENT_RANK",
    "CUME_DIST",
    "NTILE",
    "LAG",
    "LEAD",
];

pub fn is_builtin_aggregate(name: &str) -> bool {
    let upper = name.to_uppercase();
    BUILTIN_AGGREGATES.contains(&upper.as_str())
}

pub fn is_window_only(name: &str) -> bool {
    let upper = name.to_uppercase();
    WINDOW_ONLY_FUNCTIONS.contains(&upper.as_str())
}

/// The legacy group window functions of `GROUP BY`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupWindowKind {
    Tumble,
    Hop,
    Session,
}

impl GroupWindowKind {
    pub fn from_name(name: &str) -> Option<GroupWindowKind> {
        match name.to_uppercase().as_str() {
            "TUMBLE" => Some(GroupWindowKind::Tumble),
            "HOP" => Some(GroupWindowKind::Hop),
            "SESSION" => Some(GroupWindowKind::Session),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            GroupWindowKind::Tumble => "tumble",
            GroupWindowKind::Hop => "hop",
            GroupWindowKind::Session => "session",
        }
    }
}

/// `TUMBLE_START(...)` → (tumble, "start"): the window property functions.
pub fn window_property(name: &str) -> Option<(GroupWindowKind, &'static str)> {
    let upper = name.to_uppercase();
    let (kind, property) = upper.split_once('_')?;
    let kind = GroupWindowKind::from_name(kind)?;
    let property = match property {
        "START" => "start",
        "END" => "end",
        "ROWTIME" => "rowtime",
        "PROCTIME" => "proctime",
        _ => return None,
    };
    Some((kind, property))
}

/// Functions whose first argument is a time unit keyword (`TIMESTAMPADD(HOUR, 1, ts)`).
pub fn takes_time_unit(name: &str) -> bool {
    matches!(
        name.to_uppercase().as_str(),
        "TIMESTAMPADD" | "TIMESTAMPDIFF" | "TIMESTAMP_ADD" | "TIMESTAMP_DIFF"
    )
}

/// The time units of TIMESTAMPADD / TIMESTAMPDIFF (also Calcite's `SQL_TSI_` spellings).
pub fn is_time_unit(word: &str) -> bool {
    let upper = word.to_uppercase();
    let unit = upper.strip_prefix("SQL_TSI_").unwrap_or(&upper);
    matches!(
        unit,
        "NANOSECOND"
            | "MICROSECOND"
            | "MILLISECOND"
            | "SECOND"
            | "MINUTE"
            | "HOUR"
            | "DAY"
            | "WEEK"
            | "MONTH"
            | "QUARTER"
            | "YEAR"
    )
}
