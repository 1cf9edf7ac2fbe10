//! The facts of the aggregating operators: group aggregates, legacy group windows, window TVF
//! aggregates and OVER aggregates.

use super::Filters;

facts! {
    /// Every aggregating operator's aggregates and where their functions come from.
    pub struct Aggregates {
        /// every aggregate call, canonical (e.g. SUM(b), COUNT(DISTINCT c)), in order
        #[group = "aggregates"]
        pub aggregates: Vec<String>,
        /// the aggregates without DISTINCT
        #[group = "aggregates"]
        pub plain_aggregates: Vec<String>,
        /// the aggregates with DISTINCT
        #[group = "aggregates"]
        pub distinct_aggregates: Vec<String>,
        /// aggregates whose function is declared LANGUAGE PYTHON
        #[group = "aggregates"]
        pub python_udafs: Vec<String>,
        /// aggregates whose function is neither built in nor declared
        #[group = "aggregates"]
        pub undeclared_aggregates: Vec<String>,
        /// aggregates whose function is declared with CREATE FUNCTION
        #[group = "aggregates"]
        pub udafs: Vec<String>,
    }
}

impl Aggregates {
    /// Keeps, in every list, the calls `keep` accepts.
    pub fn retain_calls(&mut self, keep: impl Fn(&String) -> bool) {
        for list in [
            &mut self.aggregates,
            &mut self.plain_aggregates,
            &mut self.distinct_aggregates,
            &mut self.python_udafs,
            &mut self.undeclared_aggregates,
            &mut self.udafs,
        ] {
            list.retain(&keep);
        }
    }
}

facts! {
    /// The early/late-fire configuration in force for a window.
    pub struct Emit {
        pub early_fire: bool,
        pub early_fire_delay: Option<String>,
        pub late_fire: bool,
        pub late_fire_delay: Option<String>,
        pub allow_lateness: Option<String>,
    }
}

facts! {
    /// A legacy group window (`GROUP BY TUMBLE(time, size)`).
    pub struct GroupWindow {
        /// tumble, hop or session
        pub kind: String,
        pub size_ms: Option<i128>,
        pub slide_ms: Option<i128>,
        pub gap_ms: Option<i128>,
        pub time_attribute: String,
        /// rowtime or proctime
        pub time_kind: Option<String>,
    }
}

facts! {
    /// A window TVF (`TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), ...))`).
    pub struct WindowTvf {
        /// tumble, hop, cumulate or session
        pub kind: String,
        pub size_ms: Option<i128>,
        pub slide_ms: Option<i128>,
        pub step_ms: Option<i128>,
        pub gap_ms: Option<i128>,
        pub offset_ms: Option<i128>,
        pub time_attribute: String,
        pub time_kind: Option<String>,
        /// the keys of `TABLE t PARTITION BY k`
        pub partition: Vec<String>,
    }
}

facts! {
    /// The facts of a legacy group window aggregate (`GROUP BY TUMBLE(...)`).
    pub struct GroupWindowAggregateFacts {
        /// the group window: kind (tumble|hop|session), size_ms, slide_ms, gap_ms, time_attribute, time_kind (rowtime|proctime)
        pub window: GroupWindow,
        /// the GROUP BY keys other than the window, canonical, in order
        #[group = "keys"]
        pub keys: Vec<String>,
        /// the position of the window function among the GROUP BY items
        #[group = "keys"]
        pub window_key_position: usize,
        /// the window properties selected: start, end, rowtime, proctime
        pub window_properties: Vec<String>,
        /// early/late-fire configuration in force
        pub emit: Emit,
        #[serde(flatten)]
        pub aggregates: Aggregates,
        #[serde(flatten)]
        pub filters: Filters,
    }
}

facts! {
    /// The facts of a window TVF aggregate.
    pub struct WindowAggregateFacts {
        /// the window TVF: kind (tumble|hop|cumulate|session), its sizes in ms, time_attribute, time_kind, partition (the keys of `TABLE t PARTITION BY k`)
        pub window: WindowTvf,
        /// the GROUP BY keys other than window_start / window_end / window_time, in order
        #[group = "keys"]
        pub keys: Vec<String>,
        /// which of window_end, window_start, window_time are GROUP BY keys (sorted)
        #[group = "keys"]
        pub window_keys: Vec<String>,
        /// positions of the window columns among the GROUP BY items, in the order of window_keys
        #[group = "keys"]
        pub window_key_positions: Vec<usize>,
        /// projections between the window TVF and the GROUP BY
        pub steps_after_window: usize,
        /// whether Flink keeps the window TVF a node of its own beneath the aggregate, which then keeps its state per window (windowing strategy WindowAttached) instead of per slice of the time attribute (TimeAttribute, SliceAttached): a correlate between them, or a filter term, a computed GROUP BY key or an aggregate argument on window_start, window_end or window_time
        pub window_attached: bool,
        /// whether Flink splits it into a local and a global aggregate (an event-time TUMBLE, HOP or CUMULATE window, every call able to merge partial results — not FIRST_VALUE, LAST_VALUE, JSON_ARRAYAGG or a user-defined one — and table.optimizer.agg-phase-strategy not ONE_PHASE); the global half is another operator than a one-phase aggregate
        pub two_phase: bool,
        /// early/late-fire configuration in force
        pub emit: Emit,
        #[serde(flatten)]
        pub aggregates: Aggregates,
        #[serde(flatten)]
        pub filters: Filters,
    }
}

facts! {
    /// The facts of a non-windowed GROUP BY (or SELECT DISTINCT).
    pub struct GroupAggregateFacts {
        /// the GROUP BY keys, canonical, in order
        #[group = "keys"]
        pub keys: Vec<String>,
        /// the grouping sets of GROUPING SETS / ROLLUP / CUBE, canonical (`GROUPING SETS ((a), (a, b))`: each set's keys in GROUP BY order, the sets sorted; `ROLLUP (a, b)` and its GROUPING SETS spelling are equal), empty for a plain GROUP BY; Flink expands each input row once per set and keys the state by the keys and the set's id
        pub grouping_sets: String,
        #[serde(flatten)]
        pub aggregates: Aggregates,
        #[serde(flatten)]
        pub filters: Filters,
        /// whether it reads an inner regular join with an input unique on the join's keys (a table's primary key): Flink's cost-based planner may then plan the aggregate, or a partial one, beneath the join (FlinkAggregateJoinTransposeRule), and the join stores its rows
        pub beneath_unique_join: bool,
        /// whether Flink splits it into a local and a global aggregate (mini-batch on, every call able to merge partial results — not FIRST_VALUE, LAST_VALUE, JSON_ARRAYAGG or a user-defined one — and table.optimizer.agg-phase-strategy not ONE_PHASE); the global half is another operator than a one-phase aggregate
        pub two_phase: bool,
    }
}

facts! {
    /// The ORDER BY of an OVER window or a deduplication.
    pub struct TimeOrder {
        pub key: String,
        /// asc or desc
        pub direction: String,
        pub time_kind: Option<String>,
    }
}

facts! {
    /// The frame of an OVER window.
    pub struct Frame {
        /// rows or range
        pub units: String,
        /// "unbounded", a row count, or milliseconds
        pub preceding: serde_json::Value,
    }
}

facts! {
    /// The facts of an OVER aggregate.
    pub struct OverAggregateFacts {
        /// PARTITION BY expressions, canonical, in order
        #[group = "row"]
        pub partition_keys: Vec<String>,
        /// ORDER BY: key, direction (asc), time_kind
        #[group = "row"]
        pub order: TimeOrder,
        /// the frame: units (rows|range) and preceding bound ("unbounded", a row count, or milliseconds)
        pub frame: Frame,
        /// the columns flowing into the operator (it stores and outputs its input rows)
        #[group = "row"]
        pub input_schema: Vec<String>,
        #[serde(flatten)]
        pub aggregates: Aggregates,
        #[serde(flatten)]
        pub filters: Filters,
    }
}
