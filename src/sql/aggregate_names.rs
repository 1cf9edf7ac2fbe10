//! The names of Flink's built-in aggregate functions (uppercased): what the SQL front end and
//! the planner (`plan::functions`) both read.

/// Flink's built-in variance aggregates: with one of them, Calcite rewrites an aggregate's SUM,
/// AVG and variance calls (`plan::aggregate::reduce`).
pub const VARIANCE_AGGREGATES: &[&str] = &[
    "STDDEV",
    "STDDEV_POP",
    "STDDEV_SAMP",
    "VARIANCE",
    "VAR_POP",
    "VAR_SAMP",
];

/// Flink's built-in aggregate functions other than the variances (names uppercased).
pub const BUILTIN_AGGREGATES: &[&str] = &[
    "COUNT",
    "SUM",
    "SUM0",
    "MIN",
    "MAX",
    "AVG",
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

/// Flink's built-in aggregates that cannot merge two partial results: with one of them Flink
/// plans no local/global split of the aggregate (plan lab: FIRST_VALUE, LAST_VALUE and
/// JSON_ARRAYAGG plan one WindowAggregate, or one mini-batch GroupAggregate; LISTAGG, COLLECT,
/// ARRAY_AGG, JSON_OBJECTAGG, PERCENTILE and the DISTINCT calls keep the split).
pub const UNMERGEABLE_AGGREGATES: &[&str] = &["FIRST_VALUE", "LAST_VALUE", "JSON_ARRAYAGG"];
