//! The plan oracle: the tool's plan against the plan Flink built for the same script.
//!
//! `lab/plan/plan_lab.py` (run by hand with PyFlink, never by `cargo test`) planned every side of
//! every case file and every script of `../shared/corpus` with Flink's own planner and recorded,
//! per query, the stateful exec nodes of the optimized plan with their state-relevant attributes
//! (`lab/plan/observations/flink-<version>.yaml`). This test plans the same scripts with the tool
//! and compares, per query, the node kinds and the attributes both sides name (normalized:
//! `plan_oracle/normal.rs`, `plan_oracle/kinds.rs`). Every disagreement fails the test unless
//! `lab/plan/allow.yaml` lists it with the reason the tool differs on purpose; an entry that
//! matches no disagreement fails it too, so the list cannot go stale. A script that changed since
//! it was recorded, or that was never recorded, fails it: re-record it (lab/plan/README.md).

#[path = "plan_oracle/kinds.rs"]
mod kinds;
#[path = "plan_oracle/normal.rs"]
mod normal;

use flink_compat::check::plan_script;
use flink_compat::source::SourceFile;
use normal::Normal;
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const OBSERVATIONS: &str = "lab/plan/observations";
const ALLOW: &str = "lab/plan/allow.yaml";
const CORPUS: &str = "../shared/corpus";

#[derive(Deserialize)]
struct Observations {
    flink_version: String,
    scripts: Vec<Script>,
}

#[derive(Deserialize)]
struct Script {
    id: String,
    fingerprint: String,
    #[serde(default)]
    queries: Vec<Query>,
    #[serde(default)]
    error: Option<String>,
}

#[derive(Deserialize)]
struct Query {
    #[serde(default)]
    sink: Option<String>,
    #[serde(default)]
    nodes: Option<Vec<Value>>,
    #[serde(default)]
    error: Option<String>,
    /// When the lab compiled the query's statement set as one job: its stateful nodes the job
    /// computes once for it and other queries.
    #[serde(default)]
    shared: Option<Vec<SharedNode>>,
}

#[derive(Deserialize)]
struct SharedNode {
    node: String,
    /// The other queries it feeds (1-based).
    with: Vec<usize>,
}

#[derive(Deserialize)]
struct Allow {
    /// Flink exec nodes the tool does not model as operators at all, each with why.
    #[serde(default)]
    not_compared: Vec<NotCompared>,
    #[serde(default)]
    disagreements: Vec<Allowed>,
}

#[derive(Deserialize)]
struct NotCompared {
    node: String,
    reason: String,
}

#[derive(Deserialize, Clone)]
struct Allowed {
    script: String,
    query: usize,
    attribute: String,
    reason: String,
}

#[derive(Deserialize)]
struct Case {
    #[serde(default)]
    old: Option<String>,
    #[serde(default)]
    new: Option<String>,
    #[serde(default)]
    set: BTreeMap<String, Value>,
}

/// One input the lab planned: its text and configuration.
struct Input {
    text: String,
    set: Vec<(String, String)>,
}

/// FNV-1a (64 bits) in hex, as `plan_lab.py` computes it.
fn fingerprint(text: &str) -> String {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in text.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x100000001b3);
    }
    format!("{h:016x}")
}

/// Every input the lab plans, by id (as `plan_lab.py inputs()`); the corpus ones only when
/// `../shared/corpus` is beside the checkout.
fn inputs() -> BTreeMap<String, Input> {
    let mut out = BTreeMap::new();
    let mut cases = Vec::new();
    collect(Path::new("cases"), "yaml", &mut cases);
    for path in cases {
        let text = std::fs::read_to_string(&path).expect("case readable");
        let case: Case = serde_saphyr::from_str(&text).expect("case parses");
        let set: Vec<(String, String)> = case
            .set
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    v.as_str().map_or_else(|| v.to_string(), str::to_string),
                )
            })
            .collect();
        let id = path.to_string_lossy().replace('\\', "/");
        for (side, script) in [("old", case.old), ("new", case.new)] {
            if let Some(text) = script {
                let set = set.clone();
                out.insert(format!("{id}#{side}"), Input { text, set });
            }
        }
    }
    let tests = Path::new(CORPUS).join("flink-tests");
    let mut scripts = Vec::new();
    collect(&tests, "sql", &mut scripts);
    for path in scripts {
        let rel = path.strip_prefix(&tests).expect("under the corpus");
        let id = format!("flink-tests/{}", rel.to_string_lossy().replace('\\', "/"));
        let text = std::fs::read_to_string(&path).expect("script readable");
        out.insert(id, Input { text, set: vec![] });
    }
    let realworld = Path::new(CORPUS).join("realworld");
    if let Ok(index) = std::fs::read_to_string(realworld.join("index.json")) {
        let index: Vec<Value> = serde_json::from_str(&index).expect("index.json parses");
        for entry in index {
            if entry.get("flink_sql").and_then(Value::as_str) != Some("valid") {
                continue;
            }
            let file = entry["file"].as_str().expect("file");
            let text = std::fs::read_to_string(realworld.join(file)).expect("script readable");
            out.insert(format!("realworld/{file}"), Input { text, set: vec![] });
        }
    }
    out
}

fn collect(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            collect(&path, ext, out);
        } else if path.extension().is_some_and(|x| x == ext) {
            out.push(path);
        }
    }
}

/// The computed columns of the script's tables, as normalized fields (`table.column`).
fn computed_columns(plan: &flink_compat::plan::Plan) -> BTreeSet<String> {
    use flink_compat::sql::statement::ColumnKind;
    let mut out = BTreeSet::new();
    for table in plan.catalog.tables.values() {
        for column in &table.def.columns {
            if matches!(column.kind, ColumnKind::Computed { .. }) {
                out.insert(normal::field(&format!("{}.{}", table.name(), column.name)));
            }
        }
    }
    out
}

/// A difference between the tool's plan and Flink's for one query.
struct Disagreement {
    script: String,
    query: usize,
    attribute: String,
    detail: String,
}

impl Disagreement {
    /// The class it belongs to: the attribute without the node's ordinal (`rank.partition`).
    fn class(&self) -> String {
        match self.attribute.split_once('#') {
            Some((kind, rest)) => {
                let attr = rest.split_once('.').map_or("", |(_, a)| a);
                format!("{kind}.{attr}")
            }
            None => self.attribute.clone(),
        }
    }
}

#[derive(Default)]
struct Tally {
    scripts_planned: usize,
    queries_compared: usize,
    queries_refused: usize,
    compared: usize,
    agreed: usize,
}

/// Compares the stateful nodes Flink computes once for a query and others of its job (a
/// statement set) with those the tool believes shared; pushes the difference.
fn compare_sharing(
    script: &str,
    query: usize,
    mut flink: Vec<(String, Vec<usize>)>,
    mut tool: Vec<(String, Vec<usize>)>,
    tally: &mut Tally,
    out: &mut Vec<Disagreement>,
) {
    if flink.is_empty() && tool.is_empty() {
        return;
    }
    flink.sort();
    tool.sort();
    tally.compared += 1;
    if flink == tool {
        tally.agreed += 1;
        return;
    }
    out.push(Disagreement {
        script: script.into(),
        query,
        attribute: "shared".into(),
        detail: format!("Flink shares {flink:?} with other queries, the tool {tool:?}"),
    });
}

/// Compares the normalized nodes of one query; pushes what differs.
fn compare_query(
    script: &str,
    query: usize,
    flink: &[Normal],
    tool: &[Normal],
    tally: &mut Tally,
    out: &mut Vec<Disagreement>,
) {
    let kinds = |ns: &[Normal]| {
        let mut k: Vec<String> = ns.iter().map(|n| n.kind.clone()).collect();
        k.sort();
        k
    };
    let (fk, tk) = (kinds(flink), kinds(tool));
    tally.compared += 1;
    if fk == tk {
        tally.agreed += 1;
    } else {
        out.push(Disagreement {
            script: script.into(),
            query,
            attribute: "nodes".into(),
            detail: format!("Flink plans {fk:?}, the tool {tk:?}"),
        });
    }
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for f in flink {
        let n = seen.entry(f.kind.as_str()).or_default();
        let Some(t) = tool.iter().filter(|t| t.kind == f.kind).nth(*n) else {
            continue;
        };
        *n += 1;
        for (attr, fv) in &f.attrs {
            let Some(tv) = t.attrs.get(attr) else {
                continue;
            };
            tally.compared += 1;
            if fv == tv {
                tally.agreed += 1;
            } else {
                out.push(Disagreement {
                    script: script.into(),
                    query,
                    attribute: format!("{}#{}.{attr}", f.kind, *n),
                    detail: format!("Flink `{fv}`, the tool `{tv}`"),
                });
            }
        }
    }
}

#[test]
fn the_tools_plan_agrees_with_flinks_on_every_recorded_script() {
    let allow: Allow =
        serde_saphyr::from_str(&std::fs::read_to_string(ALLOW).expect("allow.yaml readable"))
            .expect("allow.yaml parses");
    for a in &allow.disagreements {
        assert!(
            !a.reason.trim().is_empty(),
            "{ALLOW}: {}/{}/{} has no reason",
            a.script,
            a.query,
            a.attribute
        );
    }
    let not_compared: BTreeSet<&str> = allow.not_compared.iter().map(|n| n.node.as_str()).collect();
    let inputs = inputs();
    let corpus_here = Path::new(CORPUS).is_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(OBSERVATIONS)
        .expect("lab/plan/observations exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no recorded observations");
    let mut problems = Vec::new();
    let mut disagreements = Vec::new();
    let mut tally = Tally::default();
    let mut not_compared_seen = BTreeSet::new();
    for file in files {
        let recorded: Observations =
            serde_saphyr::from_str(&std::fs::read_to_string(&file).expect("readable"))
                .expect("observations parse");
        let recorded_ids: BTreeSet<&str> = recorded.scripts.iter().map(|s| s.id.as_str()).collect();
        for id in inputs.keys() {
            if !recorded_ids.contains(id.as_str()) {
                problems.push(format!(
                    "{id}: not recorded for Flink {} (run lab/plan/plan_lab.py record {id})",
                    recorded.flink_version
                ));
            }
        }
        for script in &recorded.scripts {
            let Some(input) = inputs.get(&script.id) else {
                if corpus_here || script.id.starts_with("cases/") {
                    problems.push(format!("{}: recorded, but no such input now", script.id));
                }
                continue;
            };
            if fingerprint(&input.text) != script.fingerprint {
                problems.push(format!(
                    "{}: changed since it was recorded (run lab/plan/plan_lab.py record {})",
                    script.id, script.id
                ));
                continue;
            }
            if script.error.is_some() || script.queries.iter().all(|q| q.nodes.is_none()) {
                continue;
            }
            tally.scripts_planned += 1;
            let plan = match plan_script(
                SourceFile::new(script.id.clone(), input.text.clone()),
                &input.set,
            ) {
                Ok(plan) => plan,
                Err(e) => {
                    disagreements.push(Disagreement {
                        script: script.id.clone(),
                        query: 0,
                        attribute: "script".into(),
                        detail: format!("Flink plans it, the tool refuses it: {e}"),
                    });
                    continue;
                }
            };
            let computed = computed_columns(&plan);
            if plan.queries.len() != script.queries.len() {
                disagreements.push(Disagreement {
                    script: script.id.clone(),
                    query: 0,
                    attribute: "queries".into(),
                    detail: format!(
                        "Flink has {} queries, the tool {}",
                        script.queries.len(),
                        plan.queries.len()
                    ),
                });
                continue;
            }
            let tool_shared = flink_compat::diff::shared_operators::shared_operators(&plan);
            for (i, (fq, tq)) in script.queries.iter().zip(&plan.queries).enumerate() {
                if let Some(shared) = &fq.shared {
                    let flink: Vec<(String, Vec<usize>)> = shared
                        .iter()
                        .map(|s| (normal::flink_kind(&s.node), s.with.clone()))
                        .filter(|(kind, _)| !not_compared.contains(kind.as_str()))
                        .collect();
                    let tool: Vec<(String, Vec<usize>)> = tool_shared[i]
                        .iter()
                        .filter_map(|(op, with)| {
                            let kind = kinds::from_tool(op)?.kind;
                            Some((kind, with.iter().map(|q| q + 1).collect()))
                        })
                        .collect();
                    compare_sharing(
                        &script.id,
                        i + 1,
                        flink,
                        tool,
                        &mut tally,
                        &mut disagreements,
                    );
                }
                let Some(nodes) = &fq.nodes else {
                    tally.queries_refused += 1;
                    let _ = &fq.error;
                    continue;
                };
                if let (Some(fs), Some(ts)) = (&fq.sink, &tq.sink) {
                    let last = ts.rsplit('.').next().unwrap_or(ts).trim_matches('`');
                    if !fs.eq_ignore_ascii_case(last) {
                        disagreements.push(Disagreement {
                            script: script.id.clone(),
                            query: i + 1,
                            attribute: "sink".into(),
                            detail: format!("Flink writes {fs}, the tool {ts}"),
                        });
                        continue;
                    }
                }
                tally.queries_compared += 1;
                let flink: Vec<Normal> = nodes
                    .iter()
                    .map(kinds::from_flink)
                    .enumerate()
                    .map(|(i, mut n)| {
                        // Flink's record has the filters down to the next stateful node, the
                        // tool's the filters of the whole lineage: alike for the first node only.
                        if i > 0 {
                            n.attrs.remove("filter_columns");
                        }
                        n
                    })
                    .filter(|n| {
                        let skip = not_compared.contains(n.kind.as_str());
                        if skip {
                            not_compared_seen.insert(n.kind.clone());
                        }
                        !skip
                    })
                    .collect();
                let tool: Vec<Normal> = tq
                    .operators
                    .iter()
                    .filter_map(kinds::from_tool)
                    .map(|n| n.masking(&computed))
                    .collect();
                compare_query(
                    &script.id,
                    i + 1,
                    &flink,
                    &tool,
                    &mut tally,
                    &mut disagreements,
                );
            }
        }
    }
    let mut used = vec![false; allow.disagreements.len()];
    let mut unexplained = Vec::new();
    let mut by_class: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for d in &disagreements {
        let hit = allow
            .disagreements
            .iter()
            .position(|a| a.script == d.script && a.query == d.query && a.attribute == d.attribute);
        let entry = by_class.entry(d.class()).or_default();
        entry.0 += 1;
        match hit {
            Some(i) => used[i] = true,
            None => {
                entry.1 += 1;
                unexplained.push(format!(
                    "- script: {}\n  query: {}\n  attribute: {}\n  reason: \"\"  # {}",
                    d.script, d.query, d.attribute, d.detail
                ));
            }
        }
    }
    for (a, used) in allow.disagreements.iter().zip(&used) {
        if !used {
            problems.push(format!(
                "{ALLOW}: {} / query {} / {} matches no disagreement any more (remove it)",
                a.script, a.query, a.attribute
            ));
        }
    }
    for n in &allow.not_compared {
        if corpus_here && !not_compared_seen.contains(&n.node) {
            problems.push(format!(
                "{ALLOW}: not_compared {} ({}) is planned by no recorded query (remove it)",
                n.node, n.reason
            ));
        }
    }
    eprintln!(
        "plan oracle: {} scripts planned by Flink, {} queries compared ({} refused by Flink), {} comparisons, {} agree, {} disagree ({} allowed)",
        tally.scripts_planned,
        tally.queries_compared,
        tally.queries_refused,
        tally.compared,
        tally.agreed,
        disagreements.len(),
        disagreements.len() - unexplained.len(),
    );
    for (class, (all, unexplained)) in &by_class {
        eprintln!("  {class}: {all} ({unexplained} unexplained)");
    }
    if let Ok(path) = std::env::var("PLAN_ORACLE_UNEXPLAINED") {
        std::fs::write(path, unexplained.join("\n")).expect("writable");
    }
    assert!(
        tally.scripts_planned >= 10,
        "only {} scripts planned",
        tally.scripts_planned
    );
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(
        unexplained.is_empty(),
        "{} unexplained disagreement(s) with Flink's plan (fix the tool, or add to {ALLOW} with why):\n{}",
        unexplained.len(),
        unexplained.join("\n")
    );
}
