//! Any text as a case file, run with the built-in rules.
#![no_main]

use flink_compat::cases;
use flink_compat::source::SourceFile;
use flink_compat_fuzz::{on_planner_stack, rules};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let text = text.to_string();
    on_planner_stack(move || cases::run(&SourceFile::new("fuzz.yaml", text), rules()).is_ok());
});
