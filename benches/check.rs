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

fn main() {
    divan::main();
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
                black_box(facts::operator_facts(operator, &job));
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
