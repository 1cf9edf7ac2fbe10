//! The facts of Top-N and window Top-N operators.

use super::schema::strings;
use crate::fact_schema::FactType;
use crate::plan::OperatorKind;

pub fn facts(kind: OperatorKind) -> Vec<(&'static str, FactType, &'static str)> {
    use FactType::*;
    let mut facts = vec![
        ("function", String, "ROW_NUMBER, RANK or DENSE_RANK"),
        (
            "partition_keys",
            strings(),
            "PARTITION BY expressions, canonical, in order (without window_start / window_end for a window Top-N)",
        ),
        (
            "order",
            strings(),
            "ORDER BY items, canonical, each `expr ASC|DESC`, in order",
        ),
        ("rank_start", Number, "the first rank kept (1 for `rk <= N`)"),
        ("rank_end", Number, "the last rank kept: N"),
        (
            "filters_after",
            strings(),
            "the other terms of the WHERE bounding the rank, canonical, sorted: they run after the ranking",
        ),
        (
            "rank_output",
            Bool,
            "whether the enclosing query selects the rank number",
        ),
        (
            "outputs",
            strings(),
            "what the enclosing query selects other than the rank number (and window bounds), canonical, in order",
        ),
        (
            "input_schema",
            strings(),
            "the columns flowing into the rank, as Flink prunes them",
        ),
        (
            "value_fields",
            strings(),
            "input_schema without the partition keys and the order keys",
        ),
        (
            "key_fields",
            strings(),
            "the partition and order key expressions, canonical: the fields that are not values",
        ),
        (
            "filters",
            strings(),
            "filter terms applied upstream of the operator, canonical",
        ),
    ];
    if kind == OperatorKind::WindowTopN {
        facts.extend([
            (
                "window",
                String,
                "the window TVF ranked over: kind, time attribute, sizes in ms",
            ),
            (
                "window_outputs",
                strings(),
                "which of window_start, window_end, window_time the enclosing query selects",
            ),
            (
                "inner_aggregates",
                strings(),
                "the aggregates of the window aggregate the rank reads, canonical (empty over a bare window TVF)",
            ),
        ]);
    }
    facts
}
