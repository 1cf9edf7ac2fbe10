//! Benchmarks of one check (divan): the documentation-sized example pair, generated deployments
//! of 100, 1,000 and 10,000 INSERT statements end to end, and the same deployments stage by
//! stage (parse, normalize, diff, evaluate). Run with `cargo bench`; see README, "Performance".

#[path = "../tests/support/deployment.rs"]
mod deployment;

use divan::{black_box, Bencher};
use flink_compat::check::{check, diff, evaluate};
use flink_compat::diff as facts;
use flink_compat::plan::builder::build_plan;
use flink_compat::plan::Plan;
use flink_compat::rules::RuleSet;
use flink_compat::source::SourceFile;
use flink_compat::sql::{parse_script, Script};

const SIZES: [usize; 3] = [100, 1_000, 10_000];

/// The inputs compared with parsing alone: deployments of 10, 1,000 and 10,000 queries, and
/// a join of 2,000 tables.
const RATIO_SIZES: [usize; 3] = [10, 1_000, 10_000];
const JOIN_TABLES: usize = 2_000;

fn main() {
    divan::main();
    ratios();
}

/// The whole check against parsing alone (the front end: tokenize, split, sqlparser's
/// parser), on the same inputs, in the same run: the best of 5 of each (wall time), and their
/// ratio.
fn ratios() {
    let rules = rules();
    let mut inputs: Vec<(String, SourceFile, SourceFile)> = RATIO_SIZES
        .iter()
        .map(|&n| {
            let (old, new) = generated(n);
            (format!("{n} queries"), old, new)
        })
        .collect();
    let join = deployment::join_chain(JOIN_TABLES);
    inputs.push((
        format!("join of {JOIN_TABLES} tables"),
        SourceFile::new("old.sql", join.clone()),
        SourceFile::new("new.sql", join),
    ));
    println!(
        "\nwhole check / parse alone (wall time, best of 5 each, same inputs, same run; the \
         check plans scripts of 64 KiB or more side by side, on two threads, the parse is one \
         script after the other; benches/cli.sh also gives the CPU time):"
    );
    for (name, old, new) in inputs {
        let parse = best_of_5(|| {
            black_box((parsed(old.clone()), parsed(new.clone())));
        });
        let whole = best_of_5(|| {
            black_box(check(old.clone(), new.clone(), &[], &rules).expect("checks"));
        });
        println!(
            "  {name:<22} parse {parse:>10.2?}  check {whole:>10.2?}  ratio {:.2}",
            whole.as_secs_f64() / parse.as_secs_f64()
        );
    }
}

fn best_of_5(mut run: impl FnMut()) -> std::time::Duration {
    (0..5)
        .map(|_| {
            let started = std::time::Instant::now();
            run();
            started.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// Parsing alone, for the ratio: the same inputs as `whole_check`.
#[divan::bench(args = RATIO_SIZES, sample_count = 5, sample_size = 1)]
fn parse_only(bencher: Bencher, queries: usize) {
    let (old, new) = generated(queries);
    bencher.bench(|| (parsed(old.clone()), parsed(new.clone())));
}

/// The whole check of the inputs of `parse_only`.
#[divan::bench(args = RATIO_SIZES, sample_count = 5, sample_size = 1)]
fn whole_check(bencher: Bencher, queries: usize) {
    let rules = rules();
    let (old, new) = generated(queries);
    bencher.bench(|| check(old.clone(), new.clone(), &[], &rules).expect("checks"));
}

/// Parsing alone of a script joining 2,000 tables (against itself).
#[divan::bench(sample_count = 5, sample_size = 1)]
fn join_parse_only(bencher: Bencher) {
    let file = SourceFile::new("join.sql", deployment::join_chain(JOIN_TABLES));
    bencher.bench(|| (parsed(file.clone()), parsed(file.clone())));
}

/// The whole check of a script joining 2,000 tables against itself.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn join_whole_check(bencher: Bencher) {
    let rules = rules();
    let file = SourceFile::new("join.sql", deployment::join_chain(JOIN_TABLES));
    bencher.bench(|| check(file.clone(), file.clone(), &[], &rules).expect("checks"));
}

fn rules() -> RuleSet {
    RuleSet::load(&[] as &[&str]).expect("the built-in rules load")
}

fn example(name: &str) -> SourceFile {
    let path = format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("the bundled example is readable");
    SourceFile::new(path, text)
}

fn generated(queries: usize) -> (SourceFile, SourceFile) {
    let (old, new) = deployment::pair(queries);
    (
        SourceFile::new("old.sql", old),
        SourceFile::new("new.sql", new),
    )
}

fn parsed(file: SourceFile) -> Script {
    parse_script(file).expect("the generated script parses")
}

fn planned(file: SourceFile) -> Plan {
    build_plan(parsed(file), &[]).expect("the generated script plans")
}

#[divan::bench(sample_count = 200)]
fn documentation_pair(bencher: Bencher) {
    let rules = rules();
    let (old, new) = (example("old.sql"), example("new.sql"));
    bencher.bench(|| check(old.clone(), new.clone(), &[], &rules).expect("checks"));
}

#[divan::bench(args = SIZES, sample_count = 5, sample_size = 1)]
fn deployment_check(bencher: Bencher, queries: usize) {
    let rules = rules();
    let (old, new) = generated(queries);
    bencher.bench(|| check(old.clone(), new.clone(), &[], &rules).expect("checks"));
}

/// Stage 1: tokenize, split and parse both scripts.
#[divan::bench(args = SIZES, sample_count = 5, sample_size = 1)]
fn stage_parse(bencher: Bencher, queries: usize) {
    let (old, new) = generated(queries);
    bencher.bench(|| (parsed(old.clone()), parsed(new.clone())));
}

/// Stage 2: catalog and normalized operators of both parsed scripts.
#[divan::bench(args = SIZES, sample_count = 5, sample_size = 1)]
fn stage_normalize(bencher: Bencher, queries: usize) {
    let (old, new) = generated(queries);
    let (old, new) = (parsed(old), parsed(new));
    bencher
        .with_inputs(|| (old.clone(), new.clone()))
        .bench_values(|(old, new)| {
            (
                build_plan(old, &[]).expect("plans"),
                build_plan(new, &[]).expect("plans"),
            )
        });
}

/// Stage 3: matching the queries and operators of the two plans.
#[divan::bench(args = SIZES, sample_count = 5, sample_size = 1)]
fn stage_diff(bencher: Bencher, queries: usize) {
    let (old, new) = generated(queries);
    let (old, new) = (planned(old), planned(new));
    bencher.bench(|| black_box(diff(&old, &new)).len());
}

/// Part of stage 4 measured on its own: the facts of each matched pair (both sides' facts and
/// the relations between their lists). The rules' own cost is `stage_evaluate` minus this.
#[divan::bench(args = SIZES, sample_count = 5, sample_size = 1)]
fn stage_facts(bencher: Bencher, queries: usize) {
    let (old, new) = generated(queries);
    let (old, new) = (planned(old), planned(new));
    let pairs = diff(&old, &new);
    bencher.bench(|| {
        let job = facts::Job::new(&old, &new);
        for pair in &pairs {
            black_box(facts::query_facts(pair, &job));
            for operator in &pair.operators {
                black_box(facts::operator_facts(operator, &[], &job));
            }
        }
    });
}

/// Stage 4: facts of each pair, the rules fired on them, the report.
#[divan::bench(args = SIZES, sample_count = 5, sample_size = 1)]
fn stage_evaluate(bencher: Bencher, queries: usize) {
    let rules = rules();
    let (old, new) = generated(queries);
    let (old, new) = (planned(old), planned(new));
    let pairs = diff(&old, &new);
    bencher.bench(|| evaluate(&pairs, &old, &new, &rules));
}

/// Tables of the join chains and columns of the wide SELECTs of `one_large_query`: a join of
/// 4,000 tables and a SELECT of 20,000 columns (README, "Performance": each within 2 s).
const LARGE_TABLES: usize = 4_000;
const LARGE_COLUMNS: usize = 20_000;

/// The whole check of one large query against itself: a join chain of declared tables
/// (`join`) and of tables without DDL (`open-join`), a SELECT of a declared table's columns
/// (`select`) and of a table without DDL (`open-select`).
#[divan::bench(
    args = ["join", "open-join", "select", "open-select"],
    sample_count = 3,
    sample_size = 1
)]
fn one_large_query(bencher: Bencher, shape: &str) {
    let rules = rules();
    let sql = match shape {
        "join" => deployment::join_chain(LARGE_TABLES),
        "open-join" => deployment::open_join_chain(LARGE_TABLES),
        "select" => deployment::wide_select(LARGE_COLUMNS, true),
        _ => deployment::wide_select(LARGE_COLUMNS, false),
    };
    let file = SourceFile::new("large.sql", sql);
    bencher.bench(|| check(file.clone(), file.clone(), &[], &rules).expect("checks"));
}
