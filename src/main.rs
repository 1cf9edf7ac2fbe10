use clap::Parser;

fn main() {
    let cli = flink_compat::cli::Cli::parse();
    std::process::exit(flink_compat::cli::run(cli));
}
