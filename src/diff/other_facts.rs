//! The facts of MATCH_RECOGNIZE, temporal sorts and limits.

use super::schema::strings;
use crate::fact_schema::FactType;
use crate::plan::OperatorKind;

pub fn facts(kind: OperatorKind) -> Vec<(&'static str, FactType, &'static str)> {
    use FactType::*;
    match kind {
        OperatorKind::MatchRecognize => vec![
            (
                "partition_keys",
                strings(),
                "PARTITION BY expressions, canonical, in order",
            ),
            (
                "order",
                strings(),
                "ORDER BY items, canonical, each `expr ASC|DESC`",
            ),
            (
                "measures",
                strings(),
                "MEASURES expressions as written (whitespace collapsed), without their aliases",
            ),
            (
                "rows_per_match",
                String,
                "ONE ROW PER MATCH or ALL ROWS PER MATCH",
            ),
            ("after_match", String, "the AFTER MATCH SKIP strategy"),
            ("pattern", String, "the PATTERN, with its WITHIN"),
            ("pattern_body", String, "the PATTERN without its WITHIN"),
            (
                "within_ms",
                Number,
                "the PATTERN's WITHIN in milliseconds: 0 without one, -1 when its interval is not read",
            ),
            (
                "defines",
                strings(),
                "the DEFINE clauses, `VAR AS condition`, as written",
            ),
            (
                "input_schema",
                strings(),
                "the columns of the input rows the operator keeps, canonical",
            ),
            (
                "filters",
                strings(),
                "filter terms applied upstream of the operator, canonical",
            ),
        ],
        OperatorKind::TemporalSort => vec![
            (
                "time_kind",
                String,
                "rowtime or proctime: the time attribute sorted on first",
            ),
            (
                "sort_keys",
                strings(),
                "ORDER BY items, canonical, each `expr ASC|DESC`, in order",
            ),
            (
                "sort_keys_selected",
                strings(),
                "the sort keys the query also selects",
            ),
            (
                "fields",
                strings(),
                "the selected fields other than the sort keys, canonical, in order",
            ),
            (
                "filters",
                strings(),
                "filter terms applied upstream of the operator, canonical",
            ),
        ],
        OperatorKind::Limit => vec![
            (
                "fetch",
                Any,
                "the number of rows kept (LIMIT n / FETCH FIRST n ROWS)",
            ),
            (
                "offset",
                Any,
                "the number of rows skipped (OFFSET m), 0 without OFFSET",
            ),
            (
                "order",
                strings(),
                "ORDER BY items, canonical, each `expr ASC|DESC`; empty for a plain LIMIT",
            ),
            (
                "fields",
                strings(),
                "the selected fields, canonical, in order",
            ),
            (
                "filters",
                strings(),
                "filter terms applied upstream of the operator, canonical",
            ),
        ],
        _ => Vec::new(),
    }
}
