//! The modules depend on each other one way only: the graph of `crate::<module>` uses between
//! all the top-level modules of `src/` (the pipeline's and the others) has no cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The pipeline's top-level modules (`src/lib.rs`): `sql` → `catalog` → `plan` → `diff` →
/// `rules` → `report` (with `facts`, the typed facts `plan` writes, and `fact_schema`, read by
/// `facts`, `diff` and `rules`), and `check` and `cli`
/// running it. A module of `src/lib.rs` listed neither here nor in `OUTSIDE` fails the test,
/// so that a new one is placed.
const MODULES: &[&str] = &[
    "sql",
    "catalog",
    "facts",
    "plan",
    "diff",
    "fact_schema",
    "rules",
    "report",
    "check",
    "cli",
];

/// Top-level modules outside the pipeline (utilities, batch runs and their configuration); they
/// are in the graph too.
const OUTSIDE: &[&str] = &[
    "batch",
    "cases",
    "config_file",
    "error",
    "input",
    "limits",
    "notes",
    "out_of_memory",
    "paths",
    "source",
    "suggest",
    "suppress",
    "verdict",
    "yaml",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("src/ is readable")
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file of `src/` belongs to (`src/diff/schema.rs` → `diff`).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("under src/");
    let first = rel.components().next().expect("a path component");
    let name = first.as_os_str().to_string_lossy();
    name.trim_end_matches(".rs").to_string()
}

/// The modules named as `crate::<module>` in the code (comments left out).
fn uses(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            let after = &rest[i + "crate::".len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let before = rest[..i].chars().last();
            // `flink_compat::crate::` does not occur; `$crate::` is a macro path.
            if !name.is_empty() && before != Some('$') {
                out.insert(name);
            }
            rest = after;
        }
    }
    out
}

/// module → (module it uses → files that use it).
fn graph() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for file in files {
        let from = module_of(&src, &file);
        let text = fs::read_to_string(&file).expect("a readable source file");
        for to in uses(&text) {
            if to != from {
                let rel = file.strip_prefix(root).expect("under the crate");
                graph
                    .entry(from.clone())
                    .or_default()
                    .entry(to)
                    .or_default()
                    .insert(rel.display().to_string());
            }
        }
    }
    graph
}

/// Every elementary cycle's modules, found once each (starting at its smallest module).
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    fn walk(
        start: &str,
        at: &str,
        path: &mut Vec<String>,
        edges: &BTreeMap<String, BTreeSet<String>>,
        out: &mut Vec<Vec<String>>,
    ) {
        for next in edges.get(at).into_iter().flatten() {
            if next == start {
                out.push(path.clone());
            } else if next.as_str() > start && !path.contains(next) {
                path.push(next.clone());
                walk(start, next, path, edges, out);
                path.pop();
            }
        }
    }
    let mut out = Vec::new();
    for start in edges.keys() {
        walk(start, start, &mut vec![start.clone()], edges, &mut out);
    }
    out
}

fn describe(
    cycle: &[String],
    graph: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
) -> String {
    let mut text = format!("{} -> {}", cycle.join(" -> "), cycle[0]);
    for (i, from) in cycle.iter().enumerate() {
        let to = &cycle[(i + 1) % cycle.len()];
        let files: Vec<&str> = graph[from][to].iter().map(String::as_str).collect();
        text.push_str(&format!("\n    {from} -> {to}: {}", files.join(", ")));
    }
    text
}

#[test]
fn every_top_level_module_is_placed() {
    let lib = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .expect("src/lib.rs");
    let declared: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod "))
        .map(|l| l.trim_end_matches(';'))
        .collect();
    for module in &declared {
        assert!(
            MODULES.contains(module) || OUTSIDE.contains(module),
            "top-level module `{module}` is neither a pipeline module nor listed outside it \
             (tests/architecture.rs)"
        );
    }
    for module in MODULES.iter().chain(OUTSIDE) {
        assert!(
            declared.contains(module),
            "`{module}` is no module of src/lib.rs"
        );
    }
}

#[test]
fn the_modules_have_no_import_cycle() {
    let graph = graph();
    let edges: BTreeMap<String, BTreeSet<String>> = graph
        .iter()
        .map(|(from, tos)| (from.clone(), tos.keys().cloned().collect()))
        .collect();
    let found: Vec<String> = cycles(&edges).iter().map(|c| describe(c, &graph)).collect();
    assert!(
        found.is_empty(),
        "import cycles between the modules of src/:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_cycle_finder_names_a_cycle() {
    let edges: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a", "d"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(str::to_string).collect()))
    .collect();
    assert_eq!(cycles(&edges), vec![vec!["a", "b", "c"]]);
    let acyclic: BTreeMap<String, BTreeSet<String>> =
        [("a".to_string(), ["b".to_string()].into_iter().collect())]
            .into_iter()
            .collect();
    assert!(cycles(&acyclic).is_empty());
}

#[test]
fn uses_leave_out_comments_and_macro_paths() {
    let text = "use crate::diff::Job; // crate::rules\n/// crate::report\nlet x = $crate::plan::X;";
    assert_eq!(uses(text), ["diff".to_string()].into_iter().collect());
}
