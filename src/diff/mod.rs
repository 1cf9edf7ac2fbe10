//! Matches the queries and operators of the old and new plans, and assembles the facts of each
//! pair: both sides' facts, the relations between their lists, the configuration.

pub mod hint_options;
pub mod instances;
pub mod item_facts;
pub mod job_facts;
pub mod matching;
pub mod pair_facts;
pub mod relations;
pub mod schema;
pub mod script_facts;
pub mod shared_operators;
pub mod source_renames;
pub mod topology;
pub mod union_lineage;

pub use job_facts::Job;
pub use matching::{match_queries, operator_kinds, OperatorPair, QueryPair};
pub use pair_facts::{
    operator_facts, query_facts, unchanged_operator, AggregatesPair, OperatorPairFacts,
    QueryPairSides,
};
