use clap::Parser;
use flink_compat::cli::{self, Cli};
use flink_compat::error::Error;
use flink_compat::out_of_memory::{self, ReportingAllocator};

#[global_allocator]
static ALLOCATOR: ReportingAllocator = ReportingAllocator;

fn main() {
    let cli = Cli::parse();
    // The process exits once the command is done: the last check's plans are left to the exit.
    flink_compat::check::exit_after_report();
    let (format, output) = cli.error_output();
    out_of_memory::prepare(cli::render_error(
        format,
        &Error::Resource {
            message: "out of memory".into(),
            help: Some("raise the memory limit of the process".into()),
        },
    ));
    // The whole command runs on a thread with the planner's stack: deep SQL recurses while it
    // is planned, compared, rendered and finally dropped, not only while it is parsed. A stack
    // that cannot be reserved or a panic is reported in the asked format like any error.
    let code = flink_compat::check::on_planner_stack(move || Ok(cli::run(cli)))
        .unwrap_or_else(|error| cli::report_error(format, &output, error));
    std::process::exit(code);
}
