//! Helpers shared by the integration tests (and the benchmarks).

pub mod deployment;
