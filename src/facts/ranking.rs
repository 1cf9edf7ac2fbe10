//! The facts of deduplications, Top-N and window Top-N operators.

use super::aggregate::TimeOrder;
use super::Filters;

facts! {
    /// The other terms of a WHERE bounding a rank: written after the ranking is planned.
    pub struct FiltersAfter {
        /// the other terms of the WHERE bounding the rank (`rk = 1 AND x > 0`), canonical, sorted: they run after the ranking
        #[serde(skip_serializing_if = "Option::is_none")]
        pub filters_after: Option<Vec<String>>,
    }
}

facts! {
    /// The facts of a deduplication (ROW_NUMBER() kept at 1, ordered by a time attribute).
    pub struct DeduplicateFacts {
        /// proctime_asc (keep first), proctime_desc (keep last) or rowtime
        #[group = "row"]
        pub mode: String,
        /// ORDER BY: key, direction (asc|desc), time_kind
        #[group = "row"]
        pub order: TimeOrder,
        /// first or last
        #[group = "row"]
        pub keep: String,
        /// PARTITION BY expressions, canonical, in order
        #[group = "row"]
        pub partition_keys: Vec<String>,
        /// the columns flowing into the deduplication, as Flink prunes them
        #[group = "row"]
        pub input_schema: Vec<String>,
        /// input_schema without the partition keys and the order key
        #[group = "row"]
        pub value_fields: Vec<String>,
        /// what the enclosing query selects, canonical, in order
        #[group = "row"]
        pub outputs: Vec<String>,
        #[serde(flatten)]
        pub filters: Filters,
        #[serde(flatten)]
        pub filters_after: FiltersAfter,
    }
}

facts! {
    /// The ranking of a Top-N or window Top-N.
    pub struct Ranking {
        /// ROW_NUMBER, RANK or DENSE_RANK
        pub function: String,
        /// PARTITION BY expressions, canonical, in order (without window_start / window_end for a window Top-N)
        #[group = "row"]
        pub partition_keys: Vec<String>,
        /// ORDER BY items, canonical, each `expr ASC|DESC`, in order
        #[group = "row"]
        pub order: Vec<String>,
        /// the first rank kept (1 for `rk <= N`)
        pub rank_start: i64,
        /// the last rank kept: N
        pub rank_end: i64,
        /// input_schema without the partition keys and the order keys
        #[group = "row"]
        pub value_fields: Vec<String>,
        /// the columns flowing into the rank, as Flink prunes them
        #[group = "row"]
        pub input_schema: Vec<String>,
        /// the partition and order key expressions, canonical: the fields that are not values
        #[group = "row"]
        pub key_fields: Vec<String>,
    }
}

facts! {
    /// What the query enclosing a Top-N selects.
    pub struct RankOutputs {
        /// whether the enclosing query selects the rank number
        pub rank_output: bool,
        /// what the enclosing query selects other than the rank number (and window bounds), canonical, in order
        #[group = "row"]
        pub outputs: Vec<String>,
    }
}

facts! {
    /// The facts of a Top-N.
    pub struct TopNFacts {
        #[serde(flatten)]
        pub ranking: Ranking,
        #[serde(flatten)]
        pub filters_after: FiltersAfter,
        #[serde(flatten)]
        pub outputs: RankOutputs,
        #[serde(flatten)]
        pub filters: Filters,
    }
}

facts! {
    /// The window a window Top-N ranks over.
    pub struct RankWindow {
        /// the window TVF ranked over: kind, time attribute, sizes in ms
        pub window: String,
        /// the aggregates of the window aggregate the rank reads, canonical (empty over a bare window TVF)
        pub inner_aggregates: Vec<String>,
    }
}

facts! {
    /// Which window bounds the query enclosing a window Top-N selects.
    pub struct WindowOutputs {
        /// which of window_start, window_end, window_time the enclosing query selects
        pub window_outputs: Vec<String>,
    }
}

facts! {
    /// The facts of a window Top-N (or window deduplication).
    pub struct WindowTopNFacts {
        #[serde(flatten)]
        pub top_n: TopNFacts,
        #[serde(flatten)]
        pub window: RankWindow,
        #[serde(flatten)]
        pub window_outputs: WindowOutputs,
    }
}
