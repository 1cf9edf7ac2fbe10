//! Embeds the rule files (`rules/<profile>/*.yaml`) and the golden case files
//! (`cases/**/*.yaml`) in the binary: a new profile, rule file or case needs no change to the
//! Rust code, and `flink-compat rules show ID` can print a case that fires the rule anywhere.
//!
//! Each built-in rule file is also read here, once, into the rule-file model
//! (`src/rules/model.rs`) and embedded as compact JSON: a check deserializes that instead of
//! parsing the YAML on every run. A file that does not read is embedded as YAML only, so that
//! loading it reports the mistake at its place in the file (and the tests fail). The connector
//! tables are embedded as JSON the same way.

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

/// `(path relative to the crate, include_str!(absolute path))` for every YAML file under `dir`.
fn embedded(root: &Path, dir: &str) -> String {
    println!("cargo:rerun-if-changed={dir}");
    let mut files = Vec::new();
    yaml_files(&root.join(dir), &mut files);
    files.sort();
    let mut code = String::from("&[\n");
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
        let relative = file
            .strip_prefix(root)
            .unwrap_or(file)
            .to_string_lossy()
            .replace('\\', "/");
        let _ = writeln!(
            code,
            "    ({relative:?}, include_str!({:?})),",
            file.display().to_string()
        );
    }
    code.push(']');
    code
}

#[allow(dead_code)]
#[path = "src/rules/model.rs"]
mod model;

/// `(path relative to the root, text)` of every YAML file under `rules/`, in path order.
fn rule_yaml_texts(root: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    yaml_files(&root.join("rules"), &mut files);
    files.sort();
    files
        .iter()
        .filter_map(|file| {
            let relative = file
                .strip_prefix(root)
                .unwrap_or(file)
                .to_string_lossy()
                .replace('\\', "/");
            Some((relative, std::fs::read_to_string(file).ok()?))
        })
        .collect()
}

fn is_connector_table(text: &str) -> bool {
    text.lines().any(|l| l.starts_with("connector:"))
}

/// The table of configuration keys (`rules/config/keys.yaml`): data, not a rule file.
fn is_config_table(text: &str) -> bool {
    text.lines().any(|l| l.starts_with("config_keys:"))
}

/// `&[(path, JSON), ...]` of the built-in files `keep` selects, read as `T`: a file that does not
/// read is left out (it is loaded from its YAML, with located errors).
fn as_json<T: serde::de::DeserializeOwned + serde::Serialize>(
    root: &Path,
    keep: impl Fn(&str, &str) -> bool,
) -> String {
    let mut code = String::from("&[\n");
    for (relative, text) in rule_yaml_texts(root) {
        if !keep(&relative, &text) {
            continue;
        }
        let Ok(parsed) = serde_saphyr::from_str::<T>(&text) else {
            continue;
        };
        let Ok(json) = serde_json::to_string(&parsed) else {
            continue;
        };
        let _ = writeln!(code, "    ({relative:?}, {json:?}),");
    }
    code.push(']');
    code
}

/// `(path, JSON)` for every built-in rule file (not a profile or connector table) that reads
/// into the rule-file model.
fn precompiled(root: &Path) -> String {
    as_json::<model::RuleFile>(root, |relative, text| {
        !relative.ends_with("/profile.yaml") && !is_connector_table(text) && !is_config_table(text)
    })
}

/// `(path, JSON)` for every built-in connector table (a file with a top-level `connector:`)
/// that reads as YAML: a check deserializes these instead of parsing the YAML.
fn connector_tables(root: &Path) -> String {
    as_json::<serde_json::Value>(root, |_, text| is_connector_table(text))
}

/// `(path, JSON)` of the table of configuration keys, read as YAML here: a check deserializes
/// this instead of parsing the YAML.
fn config_table(root: &Path) -> String {
    as_json::<serde_json::Value>(root, |_, text| is_config_table(text))
}

fn main() {
    // The executables are linked without position independence on Linux: as a PIE, a small
    // check spent about a third of its CPU time in the dynamic loader, applying the binary's
    // tens of thousands of relative relocations at every start.
    let env = |key: &str| std::env::var(key).unwrap_or_default();
    if env("CARGO_CFG_TARGET_OS") == "linux" && env("CARGO_CFG_TARGET_ENV") == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    std::fs::write(out.join("builtin_rules.rs"), embedded(&root, "rules"))
        .expect("OUT_DIR is writable");
    std::fs::write(out.join("builtin_rules_json.rs"), precompiled(&root))
        .expect("OUT_DIR is writable");
    std::fs::write(
        out.join("builtin_connectors_json.rs"),
        connector_tables(&root),
    )
    .expect("OUT_DIR is writable");
    std::fs::write(out.join("builtin_config_keys_json.rs"), config_table(&root))
        .expect("OUT_DIR is writable");
    let cases = format!(
        "/// The case files built into the binary: (path, contents).\npub const CASES: &[(&str, &str)] = {};\n",
        embedded(&root, "cases")
    );
    std::fs::write(out.join("cases.rs"), cases).expect("OUT_DIR is writable");
}
