//! What the tool knows of Flink's built-in functions: aggregates, group windows, their properties.

pub use crate::sql::aggregate_names::{
    BUILTIN_AGGREGATES, UNMERGEABLE_AGGREGATES, VARIANCE_AGGREGATES,
};

/// Flink's built-in scalar functions called by name in SQL (names uppercased; from the "System
/// (Built-in) Functions" page of Flink 2.x and `SHOW FUNCTIONS`): stateless, never aggregates,
/// even around an aggregate (`DATE_FORMAT(MAX(ts), ...)`). A function neither here nor among the
/// aggregates nor declared is taken as an aggregate of unknown state (fail-safe).
#[rustfmt::skip]
pub const BUILTIN_SCALAR_FUNCTIONS: &[&str] = &[
    // comparison, conditional, type
    "COALESCE", "IF", "IFNULL", "NULLIF", "GREATEST", "LEAST", "IS_ALPHA", "IS_DECIMAL",
    "IS_DIGIT", "CAST", "TRY_CAST", "TYPEOF", "DEFAULT",
    // arithmetic
    "ABS", "MOD", "POWER", "POW", "SQRT", "LN", "LOG", "LOG10", "LOG2", "EXP", "CEIL",
    "CEILING", "FLOOR", "SIN", "SINH", "COS", "COSH", "TAN", "TANH", "COT", "ASIN", "ACOS",
    "ATAN", "ATAN2", "DEGREES", "RADIANS", "SIGN", "ROUND", "TRUNCATE", "PI", "E", "RAND",
    "RAND_INTEGER", "UUID", "BIN", "HEX", "UNHEX", "AGG_DECIMAL_PLUS", "AGG_DECIMAL_MINUS",
    // string
    "CHAR_LENGTH", "CHARACTER_LENGTH", "UPPER", "LOWER", "POSITION", "TRIM", "LTRIM", "RTRIM",
    "BTRIM", "REPEAT", "REGEXP", "REGEXP_REPLACE", "REGEXP_EXTRACT", "REGEXP_EXTRACT_ALL",
    "REGEXP_COUNT", "REGEXP_INSTR", "REGEXP_SUBSTR", "OVERLAY", "SUBSTRING", "SUBSTR",
    "REPLACE", "TRANSLATE", "TRANSLATE3", "INITCAP", "CONCAT", "CONCAT_WS", "LPAD", "RPAD",
    "FROM_BASE64", "TO_BASE64", "ASCII", "CHR", "DECODE", "ENCODE", "INSTR", "LEFT", "RIGHT",
    "LOCATE", "PARSE_URL", "URL_DECODE", "URL_ENCODE", "SPLIT_INDEX", "SPLIT", "STR_TO_MAP",
    "REVERSE", "ELT", "PRINTF", "STARTSWITH", "ENDSWITH", "MD5", "SHA1", "SHA2", "SHA224",
    "SHA256", "SHA384", "SHA512", "INET_ATON", "INET_NTOA", "LIKE", "SIMILAR",
    // temporal
    "DATE_FORMAT", "TIMESTAMPADD", "TIMESTAMPDIFF", "CONVERT_TZ", "FROM_UNIXTIME",
    "UNIX_TIMESTAMP", "TO_DATE", "TO_TIMESTAMP", "TO_TIMESTAMP_LTZ", "EXTRACT", "YEAR",
    "QUARTER", "MONTH", "WEEK", "DAYOFYEAR", "DAYOFMONTH", "DAYOFWEEK", "HOUR", "MINUTE",
    "SECOND", "NOW", "CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP",
    "CURRENT_ROW_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP", "CURRENT_WATERMARK",
    "SOURCE_WATERMARK", "PROCTIME", "DATE", "TIME", "TIMESTAMP",
    // grouping sets: computed after the aggregate from the grouping set's id
    "GROUPING", "GROUPING_ID", "GROUP_ID",
    // collections, JSON, structured values
    "CARDINALITY", "ELEMENT", "ARRAY", "MAP", "ROW", "ARRAY_APPEND", "ARRAY_CONCAT",
    "ARRAY_CONTAINS", "ARRAY_DISTINCT", "ARRAY_EXCEPT", "ARRAY_INTERSECT", "ARRAY_JOIN",
    "ARRAY_MAX", "ARRAY_MIN", "ARRAY_POSITION", "ARRAY_PREPEND", "ARRAY_REMOVE",
    "ARRAY_REVERSE", "ARRAY_SLICE", "ARRAY_SORT", "ARRAY_UNION", "MAP_ENTRIES",
    "MAP_FROM_ARRAYS", "MAP_KEYS", "MAP_UNION", "MAP_VALUES", "IS_JSON", "JSON_EXISTS",
    "JSON_STRING", "JSON_VALUE", "JSON_QUERY", "JSON_OBJECT", "JSON_ARRAY", "JSON_QUOTE",
    "JSON_UNQUOTE", "JSON", "PARSE_JSON", "TRY_PARSE_JSON", "OBJECT_OF", "OBJECT_UPDATE",
    "BITMAP_AND", "BITMAP_ANDNOT", "BITMAP_BUILD", "BITMAP_CARDINALITY", "BITMAP_FROM_BYTES",
    "BITMAP_OR", "BITMAP_TO_ARRAY", "BITMAP_TO_BYTES", "BITMAP_TO_STRING", "BITMAP_XOR",
];

/// Built-in functions whose value is not fixed by their arguments (random, the clock, the
/// watermark): Flink's planner never folds a call of them into a constant.
pub const DYNAMIC_FUNCTIONS: &[&str] = &[
    "RAND",
    "RAND_INTEGER",
    "UUID",
    "NOW",
    "CURRENT_DATE",
    "CURRENT_TIME",
    "CURRENT_TIMESTAMP",
    "CURRENT_ROW_TIMESTAMP",
    "LOCALTIME",
    "LOCALTIMESTAMP",
    "CURRENT_WATERMARK",
    "SOURCE_WATERMARK",
    "PROCTIME",
    "UNIX_TIMESTAMP",
];

/// Whether Flink's planner folds a call of this function over constants into a constant: a
/// built-in scalar function that is not dynamic.
pub fn folds_to_constant(name: &str) -> bool {
    is_builtin_scalar(name) && !is_one_of(name, DYNAMIC_FUNCTIONS)
}

/// A name upper-cased as Flink compares function names (ASCII names, the usual ones, the
/// cheap way).
fn upper(name: &str) -> String {
    if name.is_ascii() {
        name.to_ascii_uppercase()
    } else {
        name.to_uppercase()
    }
}

/// Whether `name`, upper-cased, is one of `names` (upper-case).
fn is_one_of(name: &str, names: &[&str]) -> bool {
    if name.is_ascii() {
        names.iter().any(|n| n.eq_ignore_ascii_case(name))
    } else {
        names.contains(&name.to_uppercase().as_str())
    }
}

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
    is_one_of(name, BUILTIN_AGGREGATES) || is_one_of(name, VARIANCE_AGGREGATES)
}

pub fn is_builtin_scalar(name: &str) -> bool {
    is_one_of(name, BUILTIN_SCALAR_FUNCTIONS)
}

pub fn is_window_only(name: &str) -> bool {
    is_one_of(name, WINDOW_ONLY_FUNCTIONS)
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
        match upper(name).as_str() {
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
    let upper = upper(name);
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
        upper(name).as_str(),
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

/// The one name Flink plans a built-in function written under another of its names as
/// (plan lab: `CEILING(x)` and `CEIL(x)`, `CHARACTER_LENGTH(s)` and `CHAR_LENGTH(s)` compile to
/// the same plan); None for a name that is its own.
pub fn builtin_spelling(name: &str) -> Option<&'static str> {
    match name {
        "CEILING" => Some("CEIL"),
        "CHARACTER_LENGTH" => Some("CHAR_LENGTH"),
        _ => None,
    }
}
