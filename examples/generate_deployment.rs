//! Writes a generated deployment pair (`old.sql`, `new.sql`) with N INSERT statements, the one
//! the benchmarks and robustness tests use, for timing the command line:
//! `cargo run --release --example generate_deployment -- 1000 /tmp/deployment`. With `join`
//! after DIR, both scripts are instead one INSERT joining N declared tables in a chain; with
//! `open-join`, the same chain over tables without DDL; with `select` (`open-select`), one
//! INSERT selecting N columns of a declared table (of a table without DDL).

#[path = "../tests/support/deployment.rs"]
mod deployment;

use std::path::PathBuf;

fn main() {
    let mut args = std::env::args().skip(1);
    let queries: usize = match args.next().map(|n| n.parse()) {
        Some(Ok(n)) => n,
        _ => {
            eprintln!("usage: generate_deployment N DIR [join|open-join|select|open-select]");
            std::process::exit(2);
        }
    };
    let dir = PathBuf::from(args.next().unwrap_or_else(|| ".".into()));
    let single = match args.next().as_deref() {
        Some("join") => Some(deployment::join_chain(queries)),
        Some("open-join") => Some(deployment::open_join_chain(queries)),
        Some("select") => Some(deployment::wide_select(queries, true)),
        Some("open-select") => Some(deployment::wide_select(queries, false)),
        Some(other) => {
            eprintln!("unknown shape {other}: join, open-join, select or open-select");
            std::process::exit(2);
        }
        None => None,
    };
    let (old, new) = match single {
        Some(script) => (script.clone(), script),
        None => deployment::pair(queries),
    };
    let written = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(dir.join("old.sql"), old))
        .and_then(|()| std::fs::write(dir.join("new.sql"), new));
    if let Err(e) = written {
        eprintln!("cannot write to {}: {e}", dir.display());
        std::process::exit(2);
    }
}
