//! The operator kinds the tool knows: what each kind's facts are keyed by.

/// The operator kinds the tool knows, named after Flink's stream exec nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OperatorKind {
    GroupWindowAggregate,
    GroupAggregate,
    WindowAggregate,
    OverAggregate,
    Deduplicate,
    /// A source table read by the query (its scan): connector, keys, changelog mode, columns.
    Source,
    /// `ROW_NUMBER() | RANK() | DENSE_RANK()` filtered on its rank, other than a deduplication.
    TopN,
    /// A Top-N partitioned by `window_start, window_end` of a window TVF (Flink's window rank).
    WindowTopN,
    /// A regular (unbounded) join: INNER, LEFT, RIGHT or FULL.
    Join,
    /// A join bounded by the time attributes of both inputs.
    IntervalJoin,
    /// `JOIN t FOR SYSTEM_TIME AS OF l.rowtime`: an event-time temporal join.
    TemporalJoin,
    /// `JOIN t FOR SYSTEM_TIME AS OF l.proctime`: a lookup join, stateless unless async or
    /// under TRY_RESOLVE.
    LookupJoin,
    /// Two window TVFs joined on `window_start`, `window_end` (and keys): both inputs' rows kept
    /// per key and window until the window fires.
    WindowJoin,
    /// `MATCH_RECOGNIZE (...)`: complex event processing over its input rows.
    MatchRecognize,
    /// `ORDER BY time ASC` without a limit: rows buffered until their time is complete.
    TemporalSort,
    /// `LIMIT` / `OFFSET` / `FETCH`, with or without ORDER BY (Flink's Limit and SortLimit).
    Limit,
    /// A stateful operator the tool recognizes but does not model in detail yet: it is compared
    /// as a whole (its fingerprint), so any change to it is `unknown`.
    Opaque,
}

impl OperatorKind {
    pub const ALL: [OperatorKind; 17] = [
        OperatorKind::GroupWindowAggregate,
        OperatorKind::GroupAggregate,
        OperatorKind::WindowAggregate,
        OperatorKind::OverAggregate,
        OperatorKind::Deduplicate,
        OperatorKind::Source,
        OperatorKind::TopN,
        OperatorKind::WindowTopN,
        OperatorKind::Join,
        OperatorKind::IntervalJoin,
        OperatorKind::TemporalJoin,
        OperatorKind::LookupJoin,
        OperatorKind::WindowJoin,
        OperatorKind::MatchRecognize,
        OperatorKind::TemporalSort,
        OperatorKind::Limit,
        OperatorKind::Opaque,
    ];

    pub fn name(self) -> &'static str {
        match self {
            OperatorKind::GroupWindowAggregate => "group_window_aggregate",
            OperatorKind::GroupAggregate => "group_aggregate",
            OperatorKind::WindowAggregate => "window_aggregate",
            OperatorKind::OverAggregate => "over_aggregate",
            OperatorKind::Deduplicate => "deduplicate",
            OperatorKind::Source => "source",
            OperatorKind::TopN => "top_n",
            OperatorKind::WindowTopN => "window_top_n",
            OperatorKind::Join => "join",
            OperatorKind::IntervalJoin => "interval_join",
            OperatorKind::TemporalJoin => "temporal_join",
            OperatorKind::LookupJoin => "lookup_join",
            OperatorKind::WindowJoin => "window_join",
            OperatorKind::MatchRecognize => "match_recognize",
            OperatorKind::TemporalSort => "temporal_sort",
            OperatorKind::Limit => "limit",
            OperatorKind::Opaque => "opaque",
        }
    }

    pub fn from_name(name: &str) -> Option<OperatorKind> {
        OperatorKind::ALL.into_iter().find(|k| k.name() == name)
    }
}
