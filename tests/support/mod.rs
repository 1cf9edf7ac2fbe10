//! Helpers shared by the integration tests (and the benchmarks).

pub mod cli;
pub mod deployment;
pub mod repo;
pub mod schema;
pub mod snapshot;
