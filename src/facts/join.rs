//! The facts of regular, interval, temporal and lookup joins.

facts! {
    /// What every join has.
    pub struct JoinBase {
        /// INNER, LEFT, RIGHT or FULL
        pub join_type: String,
        /// the join condition's terms that read both inputs (or cannot be pushed into one), canonical, `=` sides ordered, sorted as a set; a temporal join's FOR SYSTEM_TIME AS OF is one of them
        #[group = "conditions"]
        pub conditions: Vec<String>,
        /// the condition's equalities (`=` or `IS NOT DISTINCT FROM`) between a column of each input (what the join's state is keyed by), canonical, in the order the condition writes them (ON, then WHERE; Flink keys the state in that order)
        #[group = "conditions"]
        pub join_keys: Vec<String>,
        /// the columns the join carries from its left input (those used above it or in its condition), canonical
        pub left_input: Vec<String>,
        /// filters applied to the join's inputs: upstream WHERE clauses and condition terms that read one input and are pushed into it, canonical
        pub filters: Vec<String>,
    }
}

impl JoinBase {
    /// The columns (or expressions) on either side of its key equalities, canonical.
    pub fn key_columns(&self) -> Vec<&str> {
        self.join_keys
            .iter()
            .flat_map(|k| {
                k.split(" = ")
                    .flat_map(|s| s.split(" IS NOT DISTINCT FROM "))
            })
            .map(str::trim)
            .collect()
    }
}

facts! {
    /// The facts of a regular or temporal join (and the first of an interval join's).
    pub struct JoinFacts {
        #[serde(flatten)]
        pub base: JoinBase,
        /// the columns the join carries from its right input, canonical
        pub right_input: Vec<String>,
    }
}

facts! {
    /// The time bounds of an interval join.
    pub struct IntervalBounds {
        /// the time bounds between the inputs' time attributes, normalized to `l BETWEEN r - INTERVAL .. AND r + INTERVAL ..` in the largest exact unit
        #[group = "time_bounds"]
        pub time_bounds: Vec<String>,
        /// rowtime or proctime
        pub time_kind: String,
        /// the lower bound of left time - right time, in ms (-60000 for `l BETWEEN r - INTERVAL '1' MINUTE AND r`)
        #[group = "time_bounds"]
        pub lower_bound_ms: f64,
        /// the upper bound of left time - right time, in ms
        #[group = "time_bounds"]
        pub upper_bound_ms: f64,
    }
}

facts! {
    /// The facts of an interval join.
    pub struct IntervalJoinFacts {
        #[serde(flatten)]
        pub join: JoinFacts,
        #[serde(flatten)]
        pub bounds: IntervalBounds,
    }
}

facts! {
    /// How a lookup join looks its table up.
    pub struct Lookup {
        /// the dimension table looked up
        pub lookup_table: String,
        /// an async lookup (LOOKUP('async'='true') hint or the table's lookup.async option)
        pub r#async: bool,
        /// table.optimizer.non-deterministic-update.strategy is TRY_RESOLVE
        pub try_resolve: bool,
        /// async or try_resolve: the lookup keeps state
        pub stateful: bool,
    }
}

facts! {
    /// The facts of a lookup join (it carries no right input).
    pub struct LookupJoinFacts {
        #[serde(flatten)]
        pub base: JoinBase,
        #[serde(flatten)]
        pub lookup: Lookup,
    }
}

facts! {
    /// The facts of a window join: a join's, and the windows of its inputs.
    pub struct WindowJoinFacts {
        #[serde(flatten)]
        pub join: JoinFacts,
        /// the window TVF of each input, left then right (kind, time attribute, size, slide or step, offset); the `window_start` / `window_end` equalities that join them are not among the conditions
        pub windows: Vec<String>,
    }
}
