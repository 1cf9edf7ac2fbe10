use clap::Parser;

fn main() {
    let cli = flink_compat::cli::Cli::parse();
    // The whole command runs on a thread with the planner's stack: deep SQL recurses while it
    // is planned, compared, rendered and finally dropped, not only while it is parsed.
    let command = std::thread::Builder::new()
        .name("flink-compat".into())
        .stack_size(flink_compat::limits::PARSER_STACK_BYTES)
        .spawn(move || flink_compat::cli::run(cli));
    let code = match command.map(|handle| handle.join()) {
        Ok(Ok(code)) => code,
        Ok(Err(_)) => 2,
        Err(e) => {
            eprintln!("cannot start: {e}");
            2
        }
    };
    std::process::exit(code);
}
