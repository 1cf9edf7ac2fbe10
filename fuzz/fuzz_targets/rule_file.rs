//! Any text as a rule file, loaded beside the built-in rules.
#![no_main]

use flink_compat::rules::{load, RuleSet};
use flink_compat::source::SourceFile;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let mut set = RuleSet::default();
    let _ = load::load_file(&SourceFile::new("fuzz.yaml", text), &mut set);
});
