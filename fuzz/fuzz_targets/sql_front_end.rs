//! Any text through the SQL front end and the planner: an error is fine, a panic is a bug.
#![no_main]

use flink_compat_fuzz::{on_planner_stack, plan};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let text = text.to_string();
    on_planner_stack(move || plan("fuzz.sql", &text).is_some());
});
