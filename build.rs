//! Builds the list of rule files shipped inside the binary from `rules/<profile>/*.yaml`, so a
//! new profile or rule file needs no change to the Rust code.

use std::fmt::Write;
use std::path::{Path, PathBuf};

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "yaml" || x == "yml") {
            out.push(path);
        }
    }
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let rules = root.join("rules");
    println!("cargo:rerun-if-changed=rules");
    let mut files = Vec::new();
    yaml_files(&rules, &mut files);
    files.sort();
    let mut code = String::from("&[\n");
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
        let relative = file
            .strip_prefix(&root)
            .expect("under the crate")
            .to_string_lossy()
            .replace('\\', "/");
        let _ = writeln!(
            code,
            "    ({relative:?}, include_str!({:?})),",
            file.display().to_string()
        );
    }
    code.push(']');
    let out =
        PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("builtin_rules.rs");
    std::fs::write(out, code).expect("OUT_DIR is writable");
}
