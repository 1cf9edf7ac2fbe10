//! Runs the built `flink-compat` binary, as a user would.

use std::path::Path;
use std::process::Command;

/// Exit code (-1 when killed by a signal), standard output and standard error.
pub fn run(args: &[&str]) -> (i32, String, String) {
    output(Command::new(env!("CARGO_BIN_EXE_flink-compat")).args(args))
}

/// [`run`] in the working directory `dir`.
pub fn run_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    output(
        Command::new(env!("CARGO_BIN_EXE_flink-compat"))
            .args(args)
            .current_dir(dir),
    )
}

fn output(command: &mut Command) -> (i32, String, String) {
    let output = command.output().expect("the binary runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}
