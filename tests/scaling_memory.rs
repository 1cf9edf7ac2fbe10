//! The memory a plan takes while it is built (not only what it keeps) grows linearly with one
//! query's size: the peak of the bytes allocated while planning a query of twice the tables is
//! about twice as large (four times, were some structure of the planner quadratic, as the
//! inputs a WHERE could still reach were once copied into every join of a chain). Its own test
//! binary: the allocator it counts with sees no other test.

#[allow(dead_code)]
mod support;

use flink_compat::plan::builder::build_plan;
use flink_compat::source::SourceFile;
use flink_compat::sql::parse_script;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use support::deployment;

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed on to the system allocator unchanged; only sizes are counted.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The peak of the bytes allocated while `sql` is planned, above what was allocated before.
fn planning_peak(sql: String) -> usize {
    let script = parse_script(SourceFile::new("query.sql", sql)).expect("the script parses");
    let before = CURRENT.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let plan = build_plan(script, &[]).expect("the script plans");
    let peak = PEAK.load(Ordering::Relaxed) - before;
    drop(plan);
    peak
}

fn assert_linear(shape: &str, script: impl Fn(usize) -> String, n: usize) {
    let (small, large) = (planning_peak(script(n)), planning_peak(script(2 * n)));
    let ratio = large as f64 / small as f64;
    assert!(
        (1.5..=2.6).contains(&ratio),
        "{shape}: planning peaks at {small} bytes for {n}, {large} for {} (×{ratio:.2})",
        2 * n
    );
}

/// A chain of joins of aggregating subqueries: each input has an operator beneath it that a
/// WHERE above the joins may reach.
fn aggregate_join_chain(inputs: usize) -> String {
    let mut sql = String::new();
    for t in 0..inputs {
        sql.push_str(&format!(
            "CREATE TABLE t{t} (k BIGINT, v{t} BIGINT) WITH ('connector' = 'datagen');\n"
        ));
    }
    sql.push_str("INSERT INTO s SELECT s0.k FROM (SELECT k, COUNT(*) AS c0 FROM t0 GROUP BY k) s0");
    for t in 1..inputs {
        sql.push_str(&format!(
            " JOIN (SELECT k, COUNT(*) AS c{t} FROM t{t} GROUP BY k) s{t} ON s{}.k = s{t}.k",
            t - 1
        ));
    }
    sql.push_str(" WHERE s0.c0 > 1;\n");
    sql
}

#[test]
fn planning_a_query_takes_memory_linear_in_its_size() {
    assert_linear(
        "a join chain of declared tables",
        deployment::join_chain,
        800,
    );
    assert_linear(
        "a join chain of tables without DDL",
        deployment::open_join_chain,
        800,
    );
    assert_linear(
        "a join chain of aggregating subqueries",
        aggregate_join_chain,
        400,
    );
    assert_linear(
        "a SELECT of declared columns",
        |n| deployment::wide_select(n, true),
        4000,
    );
}
