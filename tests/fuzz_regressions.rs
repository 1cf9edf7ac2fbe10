//! Every input a fuzz target ever failed on (`tests/fuzz_regressions/<target>/`, copied there
//! minimized by `fuzz/run.sh`) replayed through the very function the target runs
//! (`fuzz/src/lib.rs`, included here): none may panic or overflow the stack any more.

#[allow(dead_code)]
#[path = "../fuzz/src/lib.rs"]
mod fuzz_targets;

use std::path::Path;

#[test]
fn every_input_a_fuzz_target_failed_on_passes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions");
    let mut replayed = 0;
    for (target, run) in fuzz_targets::TARGETS {
        let Ok(entries) = std::fs::read_dir(root.join(target)) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("the folder lists").path();
            let bytes = std::fs::read(&path).expect("the input reads");
            // The targets take `&str`: libFuzzer never hands them text that is not UTF-8.
            let Ok(text) = std::str::from_utf8(&bytes) else {
                continue;
            };
            eprintln!("{target}: {}", path.display());
            run(text);
            replayed += 1;
        }
    }
    eprintln!("{replayed} inputs replayed");
}
