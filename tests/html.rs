//! The HTML report (`--format html`): a well-formed, self-contained page whose links resolve,
//! with every text of the scripts escaped, an operator graph per query, the findings marked in
//! both scripts; snapshot-tested (the page's `<main>`, without the inline style and script).
//! Run with `UPDATE_SNAPSHOTS=1` to rewrite a snapshot after an intended change. The page in a
//! real browser is tests/browser.rs.

#[allow(dead_code)]
mod support;
use flink_compat::cases;
use flink_compat::check::check;
use flink_compat::report::html;
use flink_compat::rules::RuleSet;
use flink_compat::source::SourceFile;
use std::collections::BTreeSet;
use support::cli::{run, run_in};

fn rules() -> RuleSet {
    RuleSet::load(&[] as &[&str]).expect("the built-in rules load")
}

fn read(path: &str) -> SourceFile {
    SourceFile::new(path, std::fs::read_to_string(path).expect("readable"))
}

fn page_of(old: SourceFile, new: SourceFile) -> String {
    let report = check(old.clone(), new.clone(), &[], &rules()).expect("the pair checks");
    html::render(&report, &[&old, &new])
}

fn case_page(path: &str) -> String {
    let case = cases::load(&read(path)).expect("the case loads");
    page_of(
        SourceFile::new("old.sql", case.old),
        SourceFile::new("new.sql", case.new),
    )
}

/// The values of `attr="..."` in the page, in order.
fn attributes(page: &str, attr: &str) -> Vec<String> {
    let needle = format!(" {attr}=\"");
    page.match_indices(&needle)
        .map(|(at, _)| {
            let rest = &page[at + needle.len()..];
            rest[..rest.find('"').expect("a closed attribute")].to_string()
        })
        .collect()
}

/// What every page must be: one document, self-contained, tags balanced, ids unique, every
/// in-page link resolving, one script (its own).
fn assert_well_formed(page: &str) {
    assert!(
        page.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"),
        "{page}"
    );
    assert!(page.trim_end().ends_with("</html>"));
    assert!(
        !page.contains(" src=") && !page.contains("<link"),
        "the page loads nothing"
    );
    assert!(
        !page.contains("http://") && !page.contains("https://"),
        "no network address"
    );
    assert!(page.contains("Content-Security-Policy\" content=\"default-src 'none'"));
    for tag in [
        "section", "svg", "mark", "a", "div", "ol", "table", "figure", "g", "main",
    ] {
        let opened =
            page.matches(&format!("<{tag} ")).count() + page.matches(&format!("<{tag}>")).count();
        let closed = page.matches(&format!("</{tag}>")).count();
        assert_eq!(
            opened, closed,
            "<{tag}> opened {opened} times, closed {closed}"
        );
    }
    assert_eq!(
        page.matches("<script>").count(),
        1,
        "one script, the page's own"
    );
    let ids = attributes(page, "id");
    let unique: BTreeSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "ids are unique: {ids:?}");
    for href in attributes(page, "href") {
        let target = href.strip_prefix('#').expect("only in-page links");
        assert!(
            unique.contains(&target.to_string()),
            "#{target} has no element"
        );
    }
}

/// The page without its inline style and script: what the snapshots keep.
fn main_of(page: &str) -> &str {
    let start = page.find("<main>").expect("a main");
    let end = page.find("</main>").expect("a main") + "</main>".len();
    &page[start..end]
}

fn assert_snapshot(name: &str, actual: &str) {
    support::snapshot::assert_snapshot(&format!("tests/snapshots/{name}.html"), actual);
}

#[test]
fn the_example_page_has_the_verdict_a_graph_the_findings_and_both_scripts_marked() {
    let page = page_of(read("examples/old.sql"), read("examples/new.sql"));
    assert_well_formed(&page);
    assert!(page.contains("<div class=\"verdict v-partially_compatible\" role=\"status\"><strong>PARTIALLY COMPATIBLE</strong>"));
    assert_eq!(page.matches("<svg class=\"graph\"").count(), 1);
    // The graph: the source, the window aggregate and the sink, each piece of state by fate.
    assert!(page.contains("source page_views"));
    assert!(page.contains("group window aggregate"));
    assert!(page.contains("sink views_per_minute"));
    assert!(page.contains("class=\"item fate-starts_empty\" data-label=\"MAX(bytes)\""));
    assert!(page.contains("class=\"item fate-reused\" data-label=\"COUNT(*)\""));
    // The added aggregate's pill names the rule that decided it, and links to the finding.
    let pill = &page[page.find("data-label=\"MAX(bytes)\"").expect("the pill")..];
    let title = &pill[..pill.find("</title>").expect("a title")];
    assert!(
        title.contains("gwa-aggregate-added: aggregate MAX(bytes) added"),
        "{title}"
    );
    // Both scripts, the clause of each finding marked and anchored.
    assert!(page.contains("id=\"old-L18\""));
    assert!(page.contains("id=\"new-L23\""));
    assert!(page.contains("<mark class=\"hl v-partially_compatible\""));
    assert!(page.contains(">MAX(bytes)</mark>"));
    assert_snapshot("html-example", main_of(&page));
}

#[test]
fn every_text_of_the_scripts_is_escaped() {
    let old = "-- a < b && c > d \"quoted\" 'single'\n\
        SELECT a, COUNT(*) FROM T WHERE c <> '<script>alert(1)</script>' GROUP BY a;\n";
    let new = "-- a < b && c > d \"quoted\" 'single'\n\
        SELECT a, COUNT(*), MAX(b) FROM T WHERE c <> '<script>alert(1)</script>' GROUP BY a;\n";
    let page = page_of(
        SourceFile::new("<old>&.sql", old),
        SourceFile::new("<new>&.sql", new),
    );
    assert_well_formed(&page);
    assert!(!page.contains("<script>alert"), "{page}");
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(page.contains("-- a &lt; b &amp;&amp; c &gt; d &quot;quoted&quot; &#39;single&#39;"));
    assert!(page.contains("<code>&lt;old&gt;&amp;.sql</code>"));
    assert!(!page.contains("<old>"));
}

#[test]
fn a_statement_set_draws_one_graph_per_query_the_changed_first() {
    let page = case_page("cases/job/statement-set-stateful-query-added.yaml");
    assert_well_formed(&page);
    assert_eq!(page.matches("<svg class=\"graph\"").count(), 3);
    let added = page.find("query latest_order").expect("the added query");
    let unchanged = page.find("query user_totals").expect("an unchanged query");
    assert!(added < unchanged, "the changed query first");
    assert!(page.contains("node operator status-added"));
    assert!(page.contains("<strong>INCOMPATIBLE</strong>"));
    assert_snapshot("html-statement-set", main_of(&page));
}

#[test]
fn state_that_the_query_as_a_whole_decides_names_the_query_s_finding() {
    let page = case_page("cases/group_window_aggregate/variant-python-udaf-add-aggregate.yaml");
    assert_well_formed(&page);
    assert!(page.contains("<strong>UNKNOWN</strong>"));
    assert!(page.contains("class=\"item fate-undetermined\""));
    assert!(!page.contains("class=\"item fate-reused\" data-label=\"SUM(b)\""));
    // The undetermined aggregates name the rule that made the operator unknown.
    let pill = &page[page.find("data-label=\"SUM(b)\"").expect("the pill")..];
    let title = &pill[..pill.find("</title>").expect("a title")];
    assert!(title.contains("SUM(b): undetermined"), "{title}");
    assert!(title.contains("gwa-python-udaf:"), "{title}");
    // The assumptions are listed with a link to where they point.
    assert!(page.contains("<li class=\"assumption\""));
}

#[test]
fn the_cli_writes_the_page_to_the_output_file_and_a_batch_is_one_page() {
    let dir = std::env::temp_dir().join(format!("flink-compat-html-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for side in ["old", "new"] {
        std::fs::create_dir_all(dir.join(side)).expect("dir");
        for job in ["a.sql", "b.sql"] {
            std::fs::copy(format!("examples/{side}.sql"), dir.join(side).join(job)).expect("copy");
        }
    }
    std::fs::write(dir.join("new").join("b.sql"), "SELECT FROM WHERE;").expect("write");
    let (code, stdout, _) = run_in(
        &dir,
        &[
            "check",
            "old",
            "new",
            "--format",
            "html",
            "--output-file",
            "report.html",
        ],
    );
    assert_eq!(code, 2, "a job that cannot be parsed");
    assert!(stdout.is_empty());
    let page = std::fs::read_to_string(dir.join("report.html")).expect("the page is written");
    assert_well_formed(&page);
    assert!(page.contains("<h2 id=\"jobs\">2 jobs</h2>"));
    assert!(page.contains("<article class=\"job\" id=\"j1\""));
    assert!(
        page.contains("id=\"j1-new-L23\""),
        "ids of each job are its own"
    );
    assert!(page.contains("<div class=\"verdict error\""));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_error_is_a_page_too() {
    let (code, stdout, stderr) = run(&[
        "check",
        "examples/old.sql",
        "no-such-file.sql",
        "--format",
        "html",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert_well_formed(&stdout);
    assert!(stdout.contains("<strong>ERROR</strong>"));
    assert!(stdout.contains("no-such-file.sql"));
}
