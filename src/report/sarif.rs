//! SARIF 2.1.0 for code scanning: one result per finding, located in the new script (the old
//! script's clause as a related location), plus the warnings and assumptions as results.

use super::{FindingContext, Location, NoteReport, Report};
use crate::error::Error;
use crate::notes::NoteKind;
use crate::rules::RuleSet;
use crate::verdict::Verdict;
use serde_json::{json, Value};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// Rule ids of the results that are notes, not findings of a compatibility rule.
const WARNING_RULE: &str = "script-warning";
const ASSUMPTION_RULE: &str = "script-assumption";

/// The SARIF level of a verdict: what cannot restore is an error, what needs a look a warning.
fn level(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Incompatible => "error",
        Verdict::Unknown | Verdict::PartiallyCompatible => "warning",
        Verdict::FullyCompatible => "note",
    }
}

/// A URI reference for a path as the user gave it (relative paths stay relative).
fn uri(path: &str) -> String {
    let mut out = String::new();
    for c in path.replace('\\', "/").chars() {
        if c.is_ascii_alphanumeric() || "-._~/:".contains(c) {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for byte in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{byte:02X}"));
            }
        }
    }
    out
}

fn physical_location(location: &Location) -> Value {
    let (end_line, end_column) = location.end();
    json!({
        "physicalLocation": {
            "artifactLocation": {"uri": uri(&location.file)},
            "region": {
                "startLine": location.line,
                "startColumn": location.column,
                "endLine": end_line,
                "endColumn": end_column,
                "snippet": {"text": location.text},
            }
        }
    })
}

/// A location at the start of a file, for results that concern a script as a whole.
fn file_location(file: &str) -> Value {
    json!({
        "physicalLocation": {
            "artifactLocation": {"uri": uri(file)},
            "region": {"startLine": 1, "startColumn": 1}
        }
    })
}

fn rule_descriptor(id: &str, rules: &RuleSet) -> Value {
    let Some(rule) = rules.get(id) else {
        let text = match id {
            WARNING_RULE => "Something in a script is probably a mistake",
            ASSUMPTION_RULE => "The tool assumed something a script does not say",
            _ => "A change no rule explains is never called compatible (fail-safe)",
        };
        return json!({"id": id, "shortDescription": {"text": text}});
    };
    let mut help = Vec::new();
    if let Some(rationale) = &rule.rationale {
        help.push(rationale.clone());
    }
    if let Some(reference) = &rule.reference {
        help.push(format!("Reference: {reference}"));
    }
    if let Some(source) = &rule.source {
        help.push(format!("Source: {source}"));
    }
    if let Some(derived) = &rule.derived {
        help.push(format!("Derived: {derived}"));
    }
    let short = match &rule.description {
        Some(description) => description.clone(),
        None => format!(
            "{} ({} change): {}",
            rule.operator.replace('_', " "),
            rule.change,
            rule.verdict_text()
        ),
    };
    let mut descriptor = json!({
        "id": rule.id,
        "shortDescription": {"text": short},
        "fullDescription": {"text": rule.rationale.clone().unwrap_or_else(|| short.clone())},
        "help": {"text": if help.is_empty() { short } else { help.join("\n") }},
        "properties": {
            "operator": rule.operator,
            "change": rule.change,
            "verdict": rule.verdict_text(),
        },
    });
    if let Some(uri) = rule
        .reference
        .as_deref()
        .filter(|r| r.starts_with("https://"))
    {
        descriptor["helpUri"] = json!(uri);
    }
    descriptor
}

struct Results {
    rule_ids: Vec<String>,
    results: Vec<Value>,
    /// Whether the old script is a file of the checkout (not a git revision's blob): only then
    /// can a result be located in it; otherwise it is located at the new script's start.
    old_is_artifact: bool,
}

impl Results {
    fn rule_index(&mut self, id: &str) -> usize {
        match self.rule_ids.iter().position(|r| r == id) {
            Some(i) => i,
            None => {
                self.rule_ids.push(id.to_string());
                self.rule_ids.len() - 1
            }
        }
    }

    fn finding(&mut self, report: &Report, context: FindingContext, f: &super::Finding) {
        let index = self.rule_index(&f.rule);
        let old_primary = f.old.as_ref().filter(|_| self.old_is_artifact);
        let primary = f.new.as_ref().or(old_primary);
        let mut related = Vec::new();
        if let (Some(old), true) = (&f.old, primary.is_none() || f.new.is_some()) {
            let mut location = physical_location(old);
            location["id"] = json!(0);
            location["message"] = json!({"text": "the same clause in the old script"});
            related.push(location);
        }
        let operator = context.operator.map(|o| o.kind.as_str());
        let where_ = match operator {
            Some(kind) => format!("{}, {}", super::query_title(&context.query.name), kind),
            None => super::query_title(&context.query.name),
        };
        let mut result = json!({
            "ruleId": f.rule,
            "ruleIndex": index,
            "level": level(f.verdict),
            "message": {"text": format!("{} ({}; {}): {}", f.verdict, f.rule, where_, f.message)},
            "locations": [primary.map(physical_location).unwrap_or_else(|| file_location(&report.new_file))],
            "properties": {
                "verdict": f.verdict,
                "query": context.query.name,
                "operator": operator,
            },
        });
        if !related.is_empty() {
            result["relatedLocations"] = Value::Array(related);
        }
        if let Some(suppressed) = &f.suppressed {
            let kind = match suppressed.kind {
                crate::report::suppression::SuppressionKind::Inline => "inSource",
                crate::report::suppression::SuppressionKind::Config => "external",
            };
            result["suppressions"] = json!([{
                "kind": kind,
                "justification": suppressed.reason,
                "properties": {"origin": suppressed.origin},
            }]);
        }
        self.results.push(result);
    }

    fn note(&mut self, report: &Report, note: &NoteReport) {
        let (id, level) = match note.kind {
            NoteKind::Warning => (WARNING_RULE, "warning"),
            NoteKind::Assumption => (ASSUMPTION_RULE, "note"),
        };
        let index = self.rule_index(id);
        let old_side = note.side == "old";
        let file = if old_side && self.old_is_artifact {
            &report.old_file
        } else {
            &report.new_file
        };
        let location = note
            .location
            .as_ref()
            .filter(|_| !old_side || self.old_is_artifact)
            .map(physical_location)
            .unwrap_or_else(|| file_location(file));
        self.results.push(json!({
            "ruleId": id,
            "ruleIndex": index,
            "level": level,
            "message": {"text": format!("{}: {}", note.origin(), note.message)},
            "locations": [location],
        }));
    }
}

fn driver(rules: Vec<Value>) -> Value {
    json!({
        "name": "flink-compat",
        "version": env!("CARGO_PKG_VERSION"),
        "rules": rules,
    })
}

impl Results {
    fn report(&mut self, report: &Report) {
        for (context, finding) in report.findings_in_context() {
            self.finding(report, context, finding);
        }
        for note in &report.notes {
            self.note(report, note);
        }
    }

    /// A result about a whole job file (added or removed), at its first line.
    fn job(&mut self, id: &str, file: &str, message: String) {
        let index = self.rule_index(id);
        self.results.push(json!({
            "ruleId": id,
            "ruleIndex": index,
            "level": "note",
            "message": {"text": message},
            "locations": [file_location(file)],
        }));
    }
}

/// The category of every run, so that code scanning replaces the previous upload.
const AUTOMATION_ID: &str = "flink-compat/";

fn log(
    results: Results,
    describe: &dyn Fn(&str) -> Value,
    invocation: Value,
    properties: Value,
) -> String {
    let descriptors = results.rule_ids.iter().map(|id| describe(id)).collect();
    let log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver(descriptors)},
            "automationDetails": {"id": AUTOMATION_ID},
            "columnKind": "unicodeCodePoints",
            "invocations": [invocation],
            "results": results.results,
            "properties": properties,
        }]
    });
    serde_json::to_string_pretty(&log).unwrap_or_default()
}

pub fn render(report: &Report, rules: &RuleSet) -> String {
    let mut results = Results {
        rule_ids: Vec::new(),
        results: Vec::new(),
        old_is_artifact: true,
    };
    results.report(report);
    log(
        results,
        &|id| rule_descriptor(id, rules),
        json!({"executionSuccessful": true}),
        json!({"verdict": report.verdict, "schema_version": report.schema_version}),
    )
}

/// Many jobs as one run: every job's results, added and removed job files as notes, and the
/// jobs that could not be checked as failed notifications.
pub fn render_batch(batch: &crate::report::jobs::Batch) -> String {
    use crate::report::jobs::JobStatus;
    use crate::report::jobs::Outcome;
    let mut results = Results {
        rule_ids: Vec::new(),
        results: Vec::new(),
        old_is_artifact: false,
    };
    let mut notifications = Vec::new();
    for job in &batch.jobs {
        match &job.outcome {
            Outcome::Checked(report) => results.report(report),
            Outcome::Failed(error) => notifications.extend(notifications_of(error)),
            Outcome::NotChecked => {
                let id = match job.job.status {
                    JobStatus::Removed => "job-removed",
                    _ => "job-added",
                };
                results.job(
                    id,
                    &job.job.path,
                    format!("{}: {}", job.job.path, job.words()),
                );
            }
        }
    }
    for warning in &batch.warnings {
        notifications.push(json!({"level": "warning", "message": {"text": warning}}));
    }
    let describe = |id: &str| match id {
        "job-added" => {
            json!({"id": id, "shortDescription": {"text": "A new job file: it starts without a savepoint"}})
        }
        "job-removed" => {
            json!({"id": id, "shortDescription": {"text": "A removed job file: its savepoint is not restored"}})
        }
        _ => batch
            .rule_sets
            .iter()
            .find(|set| set.get(id).is_some())
            .or(batch.rule_sets.first())
            .map(|set| rule_descriptor(id, set))
            .unwrap_or_else(|| json!({"id": id})),
    };
    let mut invocation = json!({"executionSuccessful": !batch.has_errors()});
    if !notifications.is_empty() {
        invocation["toolExecutionNotifications"] = Value::Array(notifications);
    }
    let jobs: Vec<Value> = batch
        .jobs
        .iter()
        .map(|j| json!({"path": j.job.path, "status": j.job.status, "verdict": j.verdict()}))
        .collect();
    log(
        results,
        &describe,
        invocation,
        json!({"verdict": batch.verdict(), "schema_version": super::SCHEMA_VERSION, "jobs": jobs}),
    )
}

fn notifications_of(error: &Error) -> Vec<Value> {
    let located = error.located_errors();
    if located.is_empty() {
        return vec![json!({"level": "error", "message": {"text": error.to_string()}})];
    }
    located
        .iter()
        .map(|e| {
            json!({
                "level": "error",
                "message": {"text": e.message},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri(&e.file)},
                        "region": {"startLine": e.line, "startColumn": e.column}
                    }
                }],
            })
        })
        .collect()
}

/// An input error as a SARIF log: the run failed, with one notification per located error.
pub fn render_error(error: &Error) -> String {
    let notifications = notifications_of(error);
    let log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver(Vec::new())},
            "columnKind": "unicodeCodePoints",
            "invocations": [{
                "executionSuccessful": false,
                "exitCode": 2,
                "toolExecutionNotifications": notifications,
            }],
            "results": [],
        }]
    });
    serde_json::to_string_pretty(&log).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::uri;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(uri("jobs/new job.sql"), "jobs/new%20job.sql");
        assert_eq!(uri(r"jobs\new.sql"), "jobs/new.sql");
        assert_eq!(uri("cases/a.yaml#new"), "cases/a.yaml%23new");
    }
}
