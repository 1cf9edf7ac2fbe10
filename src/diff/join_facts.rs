//! The facts of regular, interval, temporal and lookup joins.

use super::schema::strings;
use crate::fact_schema::FactType;
use crate::plan::OperatorKind;

pub fn facts(kind: OperatorKind) -> Vec<(&'static str, FactType, &'static str)> {
    use FactType::*;
    let mut facts = vec![
        ("join_type", String, "INNER, LEFT, RIGHT or FULL"),
        (
            "conditions",
            strings(),
            "the join condition's terms that read both inputs (or cannot be pushed into one), canonical, `=` sides ordered, sorted as a set; a temporal join's FOR SYSTEM_TIME AS OF is one of them",
        ),
        (
            "join_keys",
            strings(),
            "the condition's equalities between a column of each input (what the join's state is keyed by), canonical, sorted as a set",
        ),
        (
            "left_input",
            strings(),
            "the columns the join carries from its left input (those used above it or in its condition), canonical",
        ),
        (
            "filters",
            strings(),
            "filters applied to the join's inputs: upstream WHERE clauses and condition terms that read one input and are pushed into it, canonical",
        ),
    ];
    if kind != OperatorKind::LookupJoin {
        facts.push((
            "right_input",
            strings(),
            "the columns the join carries from its right input, canonical",
        ));
    }
    match kind {
        OperatorKind::IntervalJoin => facts.extend([
            (
                "time_bounds",
                strings(),
                "the time bounds between the inputs' time attributes, normalized to `l BETWEEN r - INTERVAL .. AND r + INTERVAL ..` in the largest exact unit",
            ),
            ("time_kind", String, "rowtime or proctime"),
            (
                "lower_bound_ms",
                Number,
                "the lower bound of left time - right time, in ms (-60000 for `l BETWEEN r - INTERVAL '1' MINUTE AND r`)",
            ),
            (
                "upper_bound_ms",
                Number,
                "the upper bound of left time - right time, in ms",
            ),
        ]),
        OperatorKind::LookupJoin => facts.extend([
            ("lookup_table", String, "the dimension table looked up"),
            (
                "async",
                Bool,
                "an async lookup (LOOKUP('async'='true') hint or the table's lookup.async option)",
            ),
            (
                "try_resolve",
                Bool,
                "table.optimizer.non-deterministic-update.strategy is TRY_RESOLVE",
            ),
            ("stateful", Bool, "async or try_resolve: the lookup keeps state"),
        ]),
        _ => {}
    }
    facts
}
