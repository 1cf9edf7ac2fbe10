//! Two scripts (the input cut at its first NUL byte) checked against each other with the
//! built-in rules, and both reports rendered.
#![no_main]

use flink_compat::check::compare;
use flink_compat::report::{human, json};
use flink_compat_fuzz::{on_planner_stack, plan, rules};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let (old, new) = text.split_once('\0').unwrap_or((text, text));
    let (old, new) = (old.to_string(), new.to_string());
    on_planner_stack(move || {
        if let (Some(old), Some(new)) = (plan("old.sql", &old), plan("new.sql", &new)) {
            let report = compare(&old, &new, rules());
            human::render(&report);
            json::render(&report);
        }
    });
});
