//! flink-compat: tells whether a changed Flink SQL job can restore from the old job's savepoint.
//!
//! The pipeline, one module each: `sql` (statements) → `catalog` → `plan` (normalized operators)
//! → `diff` (facts) → `rules` (YAML + predicate DSL) → `report`; `check` runs it end to end.

pub mod batch;
pub mod cases;
pub mod catalog;
pub mod check;
pub mod cli;
pub mod config_file;
pub mod diff;
pub mod error;
pub mod fact_schema;
pub mod facts;
pub mod input;
pub mod limits;
pub mod notes;
pub mod out_of_memory;
pub mod paths;
pub mod plan;
pub mod report;
pub mod rules;
pub mod source;
pub mod sql;
pub mod suggest;
pub mod suppress;
pub mod verdict;
pub mod yaml;
