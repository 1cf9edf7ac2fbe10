//! The facts of a job (its configuration), of a query, of the pairs the rules judge as a
//! whole (query, source table), and of the changed items judged one by one.

facts! {
    /// Configuration facts every rule may read (`config.*`).
    pub struct ConfigFacts {
        /// table.optimizer.state-compatibility.ignore-filter, in force at every query of the new job (a SET after the last query applies to none)
        pub ignore_filter: bool,
        /// table.optimizer.state-compatibility.ignore-sink, in force at every query of the new job
        pub ignore_sink: bool,
        /// execution.state-recovery.ignore-unclaimed-state (open-source Flink: restore without the state no operator claims)
        pub ignore_unclaimed_state: bool,
        /// table.exec.uid.generation of the new job, upper case (PLAN_ONLY by default; open-source Flink: ALWAYS sets operator uids from the plan)
        pub uid_generation: String,
        /// engine.version differs between old and new
        pub engine_version_changed: bool,
        /// table.exec.mini-batch.enabled is true in the old job
        pub mini_batch_old: bool,
        /// table.exec.mini-batch.enabled is true in the new job
        pub mini_batch_new: bool,
        /// configuration keys whose value in force at a query differs, except those that cannot change state
        pub changed_keys: Vec<String>,
        /// the statements the tool reads past (DROP, USE, ALTER, ...) differ
        pub unmodelled_statements_changed: bool,
        /// functions of the old job removed or declared again with another class, language or resources (USING JAR), and functions the new job declares that the old one calls without declaring them (a temporary system function replacing a built-in)
        pub changed_functions: Vec<String>,
        /// tables no query of either job reads or writes, and views no query reads, that were added, removed or declared otherwise
        pub unused_tables_changed: Vec<String>,
        /// warnings of the new script the old one does not have: mistakes Flink's planner rejects (a column its subquery does not select, an unknown table alias), resolved as the author evidently meant
        pub warnings_added: Vec<String>,
        /// functions the new job declares and the old one did not
        pub added_functions: Vec<String>,
        /// names whose `CREATE ... IF NOT EXISTS` statements that Flink skips (the name is already declared) differ
        pub skipped_definitions_changed: Vec<String>,
        /// names whose catalog tables or views, created while a TEMPORARY one of the name is in force and hidden by it to the end of the script, differ (added, removed or declared otherwise)
        pub hidden_definitions_changed: Vec<String>,
        /// the DROP TABLE and DROP VIEW statements of declared names, and the DROP ... IF EXISTS statements of names no query of the script reads, that one script has and the other has not (names resolved)
        pub drops_changed: Vec<String>,
        /// tables and views the queries of both jobs read or write whose declarations differ in what no operator reads (COMMENT clauses, TEMPORARY, IF NOT EXISTS), and functions declared TEMPORARY or SYSTEM on one side only (same class, language, resources; SYSTEM under a name no built-in function has)
        pub metadata_changed: Vec<String>,
    }
}

facts! {
    /// Facts of one side of a query (one INSERT or bare SELECT).
    pub struct QueryFacts {
        /// whether the query exists on this side
        pub exists: bool,
        /// the sink table's name (null for a bare query)
        pub sink: Option<String>,
        /// the kinds of its stateful operators, upstream first
        pub operators: Vec<String>,
        /// the lookup tables of its lookup joins, synchronous or async, upstream first
        #[judged_by = "the lookup_join rules, on each lookup join's pair"]
        pub lookup_joins: Vec<String>,
        /// the source tables it reads
        #[judged_by = "the source rules, on each source table's pair"]
        pub sources: Vec<String>,
        /// the source tables Flink normalizes for it in a ChangelogNormalize keyed by their primary key (an upsert source, or a CDC source under table.exec.source.cdc-events-duplicate): state the query keeps even without a stateful operator
        #[judged_by = "the source rules (source-normalized-*), on each source table's pair; a new query's by query-added-normalized-source"]
        pub normalized_sources: Vec<String>,
        /// the inputs of its UNION ALLs, canonical, sorted (their order does not matter)
        #[group = "union_inputs"]
        pub union_inputs: Vec<String>,
        /// the same inputs in the order they are written, each UNION's in turn (the old side's read with the new side's table names)
        #[group = "union_inputs"]
        pub union_order: Vec<String>,
        /// whether a stateful operator reads the output of one of its UNION ALLs (is above it; when unsure, true)
        pub union_read_by_state: bool,
        /// the outer joins Flink removes from it, because their padded input is unique on the join keys and nothing above reads it, as `LEFT JOIN table ON terms` (canonical), sorted: they plan no operator
        pub removed_joins: Vec<String>,
        /// the sink table's primary key, partitioning (PARTITIONED BY, DISTRIBUTED BY) and WITH options (null when undeclared)
        pub sink_options: Option<String>,
        /// the sink table's columns as declared
        pub sink_columns: Vec<String>,
        /// the column list of INSERT INTO sink (a, b), empty without one
        pub insert_columns: Vec<String>,
        /// the sink's CREATE TABLE is in the old script and not in the new one
        pub sink_deleted: bool,
        /// optimizer hints (/*+ ... */) of the query and the views it reads
        pub hints: Vec<String>,
    }
}

facts! {
    /// Facts of a query pair as a whole, beside `old`, `new`, the relations and `config`.
    pub struct QueryPairFacts {
        /// the items of this query changed at once: the aggregates, the filter (WHERE) of each stateful operator, the sink
        pub changed_items: Vec<String>,
        /// what the query writes changed while its stateful operators and source tables did not (a projection after them)
        pub projection_changed: bool,
        /// which rows the query writes changed while its stateful operators and source tables did not (a filter after them: a HAVING, a WHERE over their output)
        pub rows_changed: bool,
        /// output columns computing the same thing under another name, `old -> new`
        pub renamed_outputs: Vec<String>,
        /// when this query changed an item: the items changed in the whole deployment, `query: item` (VVR counts them per deployment)
        pub deployment_changed_items: Vec<String>,
        /// when the query's sink table was deleted: the other TEMPORARY TABLEs removed or declared otherwise
        pub other_temporary_tables_changed: Vec<String>,
        /// the other queries of the job added, removed, or with other UNION ALL inputs, stateful operators or source tables (the first 10): the job's stream graph changed around this query
        pub topology_changed_elsewhere: Vec<String>,
        /// those of topology_changed_elsewhere translated before this query (earlier in the old or the new script)
        pub topology_changed_before: Vec<String>,
        /// the query's place among the queries both jobs have changed: the INSERTs were reordered
        pub moved_among_queries: bool,
        /// the query shares its job with another query both scripts have in one script and not in the other: an INSERT moved into or out of a statement set (each INSERT outside one is a job of its own)
        pub regrouped: bool,
        /// the query's stateful operators it computed once with other queries of its job (a statement set plans a sub-plan they compute alike once: one operator, one state) and no longer computes with some of them, as `kind shared with a, b -> with c`
        pub shared_operators_split: Vec<String>,
        /// the query's stateful operators it now computes once with other queries of its job, which it did not before (two operators become one), as in shared_operators_split
        pub shared_operators_merged: Vec<String>,
        /// for a query only the new script has: its stateful operators the new job computes once with queries both scripts have, which computed them alike in the old job (the state is in the savepoint), as `kind computed with a, b`
        pub operators_already_computed: Vec<String>,
        /// the hints added or removed (a hint changed is both), as `NAME.option` per option (`LOOKUP.max-attempts`), `NAME` for a hint without options
        pub hints_changed: Vec<String>,
        /// the names of the hints added or removed (`BROADCAST`, `STATE_TTL`, ...; a changed ON CONFLICT clause or INSERT OVERWRITE by its first words), sorted
        pub hint_names_changed: Vec<String>,
        /// the tables named by the STATE_TTL hints added or removed, as `STATE_TTL.table` (as in hints_changed)
        pub state_ttl_changed: Vec<String>,
        /// the smallest time-to-live (ms) the old query keeps those tables' state with: their STATE_TTL hint, else the table.exec.state.ttl in force at the query, which the hint overrides (0: TTL off, a value that is not a duration, or no STATE_TTL change)
        pub state_ttl_old_min_millis: u64,
        /// the same for the new query
        pub state_ttl_new_min_millis: u64,
    }
}

facts! {
    /// Facts of a source table pair as a whole, beside `old`, `new`, the relations and `config`.
    pub struct SourcePairFacts {
        /// whether both scripts declare the table with CREATE TABLE
        pub both_declared: bool,
        /// whether the query reading the table has stateful operators
        pub feeds_state: bool,
        /// whether a stateful operator of the query, old or new, can work on event time (all but group aggregates, Top-N, regular and lookup joins and limits; true when unsure)
        pub event_time_used: bool,
        /// columns the query reads, stored on both sides, whose type changed
        pub read_column_types_changed: Vec<String>,
        /// columns the query reads that were added, removed, or redefined (computed on one side, or another computation)
        pub read_columns_redefined: Vec<String>,
        /// columns the query does not read that were added, removed or changed
        pub unread_columns_changed: Vec<String>,
    }
}

facts! {
    /// Facts of one configuration key whose value in force differs (`config_key` rules).
    pub struct ConfigKeyItem {
        /// the key (one the tool does not know, however close to a known key, is its own key)
        pub key: String,
        /// the key as written in the script or --set
        pub written: String,
        /// its value in force in the old job (null: unset, no default)
        pub old_value: Option<String>,
        /// its value in force in the new job (null: unset, no default)
        pub new_value: Option<String>,
        /// old_value read as a Flink duration, in milliseconds (null: unset or not a duration)
        pub old_millis: Option<u64>,
        /// new_value read as a Flink duration, in milliseconds (null: unset or not a duration)
        pub new_millis: Option<u64>,
        /// old_value read as a whole number (null: unset or not a number)
        pub old_number: Option<i64>,
        /// new_value read as a whole number (null: unset or not a number)
        pub new_number: Option<i64>,
        /// whether the tool knows the key
        pub known: bool,
        /// whether some query of either job is planned under another value than a query of the other (false: every query reads the same value; it differs only after the last query of a script, where a SET applies to no query)
        pub at_query: bool,
        /// whether the query judged has a DISTINCT aggregate call in the old or the new job, or an operator the tool compares as a whole (true for a key judged for the whole job)
        pub query_distinct_aggregates: bool,
        /// whether the query judged reads, in the old or the new job, a source Flink normalizes only under table.exec.source.cdc-events-duplicate (a CDC connector or format, or a changelog-mode with updates or deletes, and a primary key), or a table the script does not declare (true for a key judged for the whole job)
        pub query_cdc_sources: bool,
        /// the kinds of the stateful operators of the query judged, in the old or the new job (`group_aggregate`, `window_aggregate`, ...; `changelog_normalize` for a source Flink normalizes), sorted; every query's, for a key judged for the whole job
        pub query_operators: Vec<String>,
    }
}

facts! {
    /// Facts of one WITH option of a source table that differs (`table_option` rules).
    pub struct TableOptionItem {
        /// the source (or dimension) table
        pub table: Option<String>,
        /// its 'connector' option (the new one when it changed)
        pub connector: String,
        /// the WITH option
        pub key: String,
        /// its value in the old script (null: absent)
        pub old_value: Option<String>,
        /// its value in the new script (null: absent)
        pub new_value: Option<String>,
        /// the option's role in the connector's table (rules/connectors/*.yaml): identity, consumer, startup, split, emits, lookup_async, lookup_cache, tuning, sink; null when the table does not list it
        pub role: Option<String>,
        /// why the option has this role, from the connector's table
        pub reason: Option<String>,
        /// whether a connector table describes the connector
        pub documented: bool,
        /// whether the query reading the table has stateful operators
        pub feeds_state: bool,
    }
}

impl ConfigFacts {
    /// Whether the job's configuration (settings, engine version, functions, unmodelled
    /// statements, unused tables, warnings) changed: what marks every query changed.
    pub fn changed(&self) -> bool {
        !self.changed_keys.is_empty()
            || self.engine_version_changed
            || self.unmodelled_statements_changed
            || !self.changed_functions.is_empty()
            || !self.added_functions.is_empty()
            || !self.unused_tables_changed.is_empty()
            || !self.skipped_definitions_changed.is_empty()
            || !self.hidden_definitions_changed.is_empty()
            || !self.drops_changed.is_empty()
            || !self.metadata_changed.is_empty()
            || !self.warnings_added.is_empty()
    }
}
