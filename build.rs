//! Embeds the golden case files (cases/**/*.yaml) so `flink-compat rules show ID` can print, as
//! the rule's example, a case that fires it, wherever the binary runs.

use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|x| x == "yaml" || x == "yml") {
            out.push(path);
        }
    }
}

fn main() {
    println!("cargo:rerun-if-changed=cases");
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let mut files = Vec::new();
    collect(&root.join("cases"), &mut files);
    files.sort();
    let mut code = String::from("/// The case files built into the binary: (path, contents).\npub const CASES: &[(&str, &str)] = &[\n");
    for file in &files {
        let relative = file.strip_prefix(&root).unwrap_or(file);
        code.push_str(&format!(
            "    ({:?}, include_str!({:?})),\n",
            relative.display().to_string(),
            file.display().to_string()
        ));
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("cases.rs");
    std::fs::write(out, code).expect("write the embedded cases");
}
