//! The HTML report in a real browser: headless Chromium loads the reports of several checks (a
//! partially compatible one, an incompatible one, a statement set of several queries, an
//! unknown one, and a run over two jobs), and the test asserts on the rendered page: the
//! elements are there, the console is silent (no script error, nothing refused by the page's
//! Content Security Policy), every graph is drawn with a size and every label fits its box.
//! Screenshots are kept in `target/browser-test/` (CI artifacts).
//!
//! Chromium is found as `FLINK_COMPAT_CHROMIUM`, else `chromium`, `chromium-browser`,
//! `google-chrome` on the PATH. Without it the test is skipped with a message, unless
//! `FLINK_COMPAT_BROWSER_TEST=required` (set by `.ci/run`, which installs Debian's `chromium`):
//! then it fails.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_flink-compat");

fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("FLINK_COMPAT_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ]
    .iter()
    .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
    .find(|candidate| candidate.is_file())
}

/// The browser, or `None` when the test is to be skipped (never when it is required).
fn browser() -> Option<PathBuf> {
    let required = std::env::var("FLINK_COMPAT_BROWSER_TEST").is_ok_and(|v| v == "required");
    match chromium() {
        Some(path) => Some(path),
        None if required => panic!(
            "FLINK_COMPAT_BROWSER_TEST=required but no Chromium was found \
             (install Debian's `chromium`, or set FLINK_COMPAT_CHROMIUM)"
        ),
        None => {
            eprintln!("browser test skipped: no Chromium (set FLINK_COMPAT_CHROMIUM, or install `chromium`)");
            None
        }
    }
}

/// `target/browser-test/<name>/`, emptied.
fn work_dir(name: &str) -> PathBuf {
    let target = Path::new(BIN)
        .parent()
        .and_then(Path::parent)
        .expect("the binary is in target/<profile>/");
    let dir = target.join("browser-test").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the test's directory");
    dir
}

/// The old and new scripts of a case file.
fn case_scripts(path: &str) -> (String, String) {
    let text = std::fs::read_to_string(path).expect("the case file");
    let file = flink_compat::source::SourceFile::new(path, text);
    let case = flink_compat::cases::load(&file).expect("the case loads");
    (case.old, case.new)
}

/// Runs Chromium headless with `args` on `page`; its standard error (where `--enable-logging`
/// writes the console) and output. Killed after a minute.
fn chromium_run(browser: &Path, dir: &Path, page: &Path, args: &[&str]) -> (String, String) {
    let profile = dir.join("profile");
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-extensions",
            "--no-first-run",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("Chromium starts");
    let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
    let read = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_string(&mut text);
            }
            text
        })
    };
    let out = read(stdout.map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    let err = read(stderr.map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    let start = Instant::now();
    loop {
        match child.try_wait().expect("wait for Chromium") {
            Some(_) => break,
            None if start.elapsed() > Duration::from_secs(90) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("Chromium did not finish within 90 s on {}", page.display());
            }
            None => std::thread::sleep(Duration::from_millis(100)),
        }
    }
    (
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default(),
    )
}

/// Measures the drawn page, in the page: written into the DOM for `--dump-dom` to return.
const MEASURE: &str = r#"<script>
(function () {
  var graphs = document.querySelectorAll("svg.graph");
  var result = { graphs: [], marks: document.querySelectorAll("mark.hl").length,
    findings: document.querySelectorAll("li.finding").length,
    verdicts: document.querySelectorAll(".verdict").length, overflowing: [], fills: {} };
  for (var i = 0; i < graphs.length; i++) {
    var box = graphs[i].getBoundingClientRect();
    result.graphs.push({ width: box.width, height: box.height,
      nodes: graphs[i].querySelectorAll("g.node").length,
      items: graphs[i].querySelectorAll(".item").length,
      edges: graphs[i].querySelectorAll("path.edge").length });
    var texts = graphs[i].querySelectorAll("text");
    for (var j = 0; j < texts.length; j++) {
      var rect = texts[j].parentNode.querySelector("rect");
      if (!rect) { continue; }
      var t = texts[j].getBBox(), r = rect.getBBox();
      if (t.x + t.width > r.x + r.width + 0.5 || t.width === 0) {
        result.overflowing.push(texts[j].textContent);
      }
    }
    var items = graphs[i].querySelectorAll(".item rect");
    for (var k = 0; k < items.length; k++) {
      result.fills[items[k].parentNode.getAttribute("class")] = getComputedStyle(items[k]).fill;
    }
  }
  var pre = document.createElement("pre");
  pre.id = "browser-test";
  pre.textContent = JSON.stringify(result);
  document.body.appendChild(pre);
})();
</script>
</body>"#;

fn unescape(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// Loads the report at `page` in Chromium: the measurements, and a screenshot `<name>.png`.
fn load(browser: &Path, dir: &Path, page: &Path, name: &str) -> Value {
    let html = std::fs::read_to_string(page).expect("the report");
    let measured = dir.join("measured.html");
    std::fs::write(&measured, html.replacen("</body>", MEASURE, 1)).expect("write");
    let (dom, log) = chromium_run(browser, dir, &measured, &["--dump-dom"]);
    let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE")).collect();
    assert!(
        console.is_empty(),
        "{name}: the console is not silent: {console:#?}"
    );
    let start = dom
        .find("<pre id=\"browser-test\">")
        .unwrap_or_else(|| panic!("{name}: the page did not run its scripts:\n{log}"));
    let json = &dom[start + "<pre id=\"browser-test\">".len()..];
    let json = &json[..json.find("</pre>").expect("closed")];
    let shot = dir.join(format!("{name}.png"));
    let (_, log) = chromium_run(
        browser,
        dir,
        page,
        &[
            "--window-size=1280,1600",
            &format!("--screenshot={}", shot.display()),
        ],
    );
    let size = std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0);
    assert!(
        size > 10_000,
        "{name}: no screenshot ({size} bytes):\n{log}"
    );
    let _ = std::fs::remove_dir_all(dir.join("profile"));
    let measurements: Value = serde_json::from_str(&unescape(json)).expect("measurements");
    eprintln!("{name}: {measurements}");
    measurements
}

/// Checks two scripts with `--format html --output-file` and loads the page.
fn check_pair(name: &str, old: &str, new: &str, expected_code: i32) -> Option<Value> {
    let browser = browser()?;
    let dir = work_dir(name);
    std::fs::write(dir.join("old.sql"), old).expect("write");
    std::fs::write(dir.join("new.sql"), new).expect("write");
    let page = dir.join("report.html");
    let status = Command::new(BIN)
        .current_dir(&dir)
        .args([
            "check",
            "old.sql",
            "new.sql",
            "--format",
            "html",
            "--output-file",
            "report.html",
        ])
        .status()
        .expect("the binary runs");
    assert_eq!(status.code(), Some(expected_code), "{name}");
    Some(load(&browser, &dir, &page, name))
}

fn check_case(name: &str, case: &str, expected_code: i32) -> Option<Value> {
    let (old, new) = case_scripts(case);
    check_pair(name, &old, &new, expected_code)
}

/// Every graph drawn with a size, with its nodes, edges and pieces of state; no label past its box.
fn assert_drawn(m: &Value, graphs: usize) {
    let drawn = m["graphs"].as_array().expect("graphs");
    assert_eq!(drawn.len(), graphs, "{m}");
    for g in drawn {
        assert!(
            g["width"].as_f64() > Some(100.0) && g["height"].as_f64() > Some(30.0),
            "{g}"
        );
        let nodes = g["nodes"].as_u64().unwrap_or(0);
        assert!(
            nodes >= 2,
            "at least a source or operator, and the sink: {g}"
        );
        assert!(g["edges"].as_u64() >= Some(nodes - 1), "{g}");
        assert!(g["items"].as_u64() >= Some(1), "{g}");
    }
    assert_eq!(
        m["overflowing"],
        Value::Array(vec![]),
        "labels fit their boxes"
    );
    let fills = m["fills"].as_object().expect("fills");
    let distinct: std::collections::BTreeSet<String> =
        fills.values().map(|v| v.to_string()).collect();
    assert_eq!(
        distinct.len(),
        fills.len(),
        "each fate its own colour: {fills:?}"
    );
}

#[test]
fn a_partially_compatible_report_draws_its_graph_and_marks_the_sql() {
    let old = std::fs::read_to_string("examples/old.sql").expect("example");
    let new = std::fs::read_to_string("examples/new.sql").expect("example");
    let Some(m) = check_pair("partially-compatible", &old, &new, 0) else {
        return;
    };
    assert_drawn(&m, 1);
    assert_eq!(m["findings"], 2, "{m}");
    assert!(m["marks"].as_u64() > Some(4), "{m}");
    assert_eq!(
        m["fills"].as_object().map(|f| f.len()),
        Some(2),
        "reused and starts empty"
    );
}

#[test]
fn an_incompatible_report_renders() {
    let Some(m) = check_case("incompatible", "cases/window_top_n/order-changed.yaml", 1) else {
        return;
    };
    assert_drawn(&m, 1);
    assert!(m["findings"].as_u64() >= Some(1), "{m}");
}

#[test]
fn a_statement_set_draws_a_graph_per_query() {
    let Some(m) = check_case(
        "statement-set",
        "cases/job/statement-set-stateful-query-added.yaml",
        1,
    ) else {
        return;
    };
    assert_drawn(&m, 3);
}

#[test]
fn an_unknown_report_renders() {
    let Some(m) = check_case(
        "unknown",
        "cases/group_window_aggregate/variant-python-udaf-add-aggregate.yaml",
        1,
    ) else {
        return;
    };
    assert_drawn(&m, 1);
    assert!(m["fills"]
        .as_object()
        .is_some_and(|f| f.contains_key("item fate-undetermined")));
}

#[test]
fn a_run_over_two_jobs_is_one_page() {
    let Some(browser) = browser() else { return };
    let dir = work_dir("two-jobs");
    for side in ["old", "new"] {
        std::fs::create_dir_all(dir.join(side)).expect("dir");
        std::fs::copy(
            format!("examples/{side}.sql"),
            dir.join(side).join("views.sql"),
        )
        .expect("copy");
    }
    let (old, new) = case_scripts("cases/job/statement-set-stateful-query-added.yaml");
    std::fs::write(dir.join("old").join("orders.sql"), old).expect("write");
    std::fs::write(dir.join("new").join("orders.sql"), new).expect("write");
    let status = Command::new(BIN)
        .current_dir(&dir)
        .args([
            "check",
            "old",
            "new",
            "--format",
            "html",
            "--output-file",
            "report.html",
        ])
        .status()
        .expect("the binary runs");
    assert_eq!(status.code(), Some(1));
    let m = load(&browser, &dir, &dir.join("report.html"), "two-jobs");
    assert_drawn(&m, 4);
    assert_eq!(m["verdicts"], 3, "the run's verdict and each job's: {m}");
}
