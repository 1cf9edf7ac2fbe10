//! Parses two scripts and nothing more — the front end of a check (tokenize, split, sqlparser's
//! parser), on the planner's stack, as `flink-compat check OLD NEW` runs it — and exits: the
//! whole-process baseline that `benches/cli.sh` compares the check's time and peak memory with.
//! `cargo run --release --example parse_only -- OLD NEW`

use flink_compat::check::on_planner_stack;
use flink_compat::out_of_memory::ReportingAllocator;
use flink_compat::source::SourceFile;
use flink_compat::sql::parse_script;

// The check's allocator: the baseline allocates as the check does.
#[global_allocator]
static ALLOCATOR: ReportingAllocator = ReportingAllocator;

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    let parsed = on_planner_stack(move || {
        let mut scripts = Vec::new();
        for path in &paths {
            let text = flink_compat::input::read_text(std::path::Path::new(path))?;
            scripts.push(parse_script(SourceFile::new(path.clone(), text))?);
        }
        let statements: usize = scripts.iter().map(|s| s.statements.len()).sum();
        // Like the check, the process exits without freeing what it parsed.
        std::mem::forget(scripts);
        Ok(statements)
    });
    match parsed {
        Ok(statements) => {
            println!("{statements} statements");
            std::process::exit(0)
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2)
        }
    }
}
