//! Evaluates the rules on every matched pair: which change kinds happened, which rules fire,
//! and a fail-safe `unknown` for any change no fired rule explains.

use super::{lookup, Rule, RuleSet};
use crate::diff::{self, Job, OperatorPair, QueryPair};
use crate::plan::{Operator, OperatorKind, Plan};
use crate::report::{Finding, Location, OperatorReport, QueryReport, QueryStatus, StateFate};
use crate::source::{ByteSpan, SourceFile};
use crate::verdict::Verdict;
use serde_json::Value;

/// Id of the built-in finding for a change that no rule explains.
pub const UNEXPLAINED: &str = "unexplained-change";

pub fn location(file: &SourceFile, span: ByteSpan) -> Option<Location> {
    if span.is_empty() && span.start == 0 {
        return None;
    }
    let span = file.balanced(span);
    let pos = file.line_col(span.start);
    Some(Location {
        file: file.name.clone(),
        line: pos.line,
        column: pos.column,
        offset: span.start,
        length: span.len(),
        text: file.slice(span).to_string(),
    })
}

/// Where the script sets the first of these configuration keys, if it does.
fn setting_span(plan: &Plan, keys: &[&str]) -> Option<ByteSpan> {
    keys.iter()
        .find_map(|key| match plan.catalog.config.origin(key) {
            Some(crate::catalog::config::Origin::Script(span)) => Some(*span),
            _ => None,
        })
}

fn status_of(old: bool, new: bool, changed: bool) -> QueryStatus {
    match (old, new) {
        (true, false) => QueryStatus::Removed,
        (false, true) => QueryStatus::Added,
        _ if changed => QueryStatus::Changed,
        _ => QueryStatus::Unchanged,
    }
}

/// Which rules fire on these facts, with the paths each fired rule looked at.
pub(super) fn fire<'r>(
    rules: &'r RuleSet,
    operator: &'r str,
    facts: &Value,
) -> Vec<(&'r Rule, Vec<String>)> {
    let changes = rules
        .changes
        .get(operator)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let detected: Vec<&(String, super::dsl::Predicate)> =
        changes.iter().filter(|(_, p)| p.eval(facts)).collect();
    let mut fired = Vec::new();
    for rule in rules.for_operator(operator) {
        let change = if rule.change == "any" {
            None
        } else {
            detected.iter().find(|(n, _)| *n == rule.change)
        };
        if rule.change != "any" && change.is_none() {
            continue;
        }
        if rule.when.eval(facts) {
            let mut paths = rule.when.paths();
            if let Some((_, p)) = change {
                paths.extend(p.paths());
            }
            fired.push((rule, paths));
        }
    }
    fired
}

/// The facts with canonical items replaced by their display text, for messages.
fn displayed(facts: &Value, old: Option<&Operator>, new: Option<&Operator>) -> Value {
    match facts {
        Value::String(s) => {
            let shown = new
                .and_then(|o| o.display.get(s))
                .or_else(|| old.and_then(|o| o.display.get(s)));
            Value::String(shown.cloned().unwrap_or_else(|| s.clone()))
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| displayed(v, old, new)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), displayed(v, old, new)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The top-level facts that differ between the two sides.
fn differing(facts: &Value) -> Vec<String> {
    let empty = serde_json::Map::new();
    let old = facts
        .get("old")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let new = facts
        .get("new")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut keys: Vec<String> = old
        .keys()
        .chain(new.keys())
        .filter(|k| old.get(*k) != new.get(*k))
        .cloned()
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

/// Whether a fired rule that read `paths` explains a change of the fact `key`.
fn explains(paths: &[String], key: &str) -> bool {
    let group = crate::diff::schema::coverage_group(key);
    paths.iter().any(|p| {
        let parts: Vec<&str> = p.split('.').collect();
        let read = match parts.as_slice() {
            ["old" | "new", k, ..] => *k,
            [k, ..] => *k,
            [] => return false,
        };
        crate::diff::schema::coverage_group(read) == group
    })
}

/// Spans in old and new of what a finding is about: the clauses behind the facts it read,
/// narrowed to the items added (new) and removed (old) where the rule read such a relation.
fn spans_for(
    paths: &[String],
    facts: &Value,
    old: Option<&Operator>,
    new: Option<&Operator>,
) -> (ByteSpan, ByteSpan) {
    let mut old_span = ByteSpan::default();
    let mut new_span = ByteSpan::default();
    // The items added (new) or removed (old) are the exact clause; the whole fact is a fallback.
    let mut old_items = ByteSpan::default();
    let mut new_items = ByteSpan::default();
    for path in paths {
        let parts: Vec<&str> = path.split('.').collect();
        let (key, relation) = match parts.as_slice() {
            ["old" | "new" | "config", key, ..] => (*key, None),
            [key, relation, ..] => (*key, Some(*relation)),
            [key] => (*key, None),
            [] => continue,
        };
        let items = |side: &str| -> Vec<String> {
            lookup(facts, &format!("{key}.{side}"))
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        let narrow = |op: Option<&Operator>, wanted: &[String]| -> ByteSpan {
            let Some(op) = op else {
                return ByteSpan::default();
            };
            let spans: Vec<ByteSpan> = wanted
                .iter()
                .filter_map(|i| op.item_spans.get(i).copied())
                .collect();
            if spans.is_empty() {
                op.fact_spans.get(key).copied().unwrap_or(op.span)
            } else {
                spans.into_iter().fold(ByteSpan::default(), ByteSpan::union)
            }
        };
        match relation {
            Some("added") => new_items = new_items.union(narrow(new, &items("added"))),
            Some("removed") => old_items = old_items.union(narrow(old, &items("removed"))),
            // A whole-list relation (equal_as_set, ...) is about the items that differ.
            Some(_) => {
                old_items = old_items.union(narrow(old, &items("removed")));
                new_items = new_items.union(narrow(new, &items("added")));
            }
            // A pair-level list of items (e.g. the names of changed columns).
            None if parts.len() == 1 && lookup(facts, key).is_some_and(Value::is_array) => {
                let items: Vec<String> = lookup(facts, key)
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default();
                old_items = old_items.union(narrow(old, &items));
                new_items = new_items.union(narrow(new, &items));
            }
            // A pair-level value (e.g. `feeds_state`) has no clause of its own.
            None if parts.len() == 1 => {}
            None => {
                if let Some(op) = old {
                    old_span = old_span.union(op.fact_spans.get(key).copied().unwrap_or(op.span));
                }
                if let Some(op) = new {
                    new_span = new_span.union(op.fact_spans.get(key).copied().unwrap_or(op.span));
                }
            }
        }
    }
    let exact = |items: ByteSpan, whole: ByteSpan, op: Option<&Operator>| {
        if !(items.is_empty() && items.start == 0) {
            items
        } else if !(whole.is_empty() && whole.start == 0) {
            whole
        } else {
            op.map(|o| o.span).unwrap_or(whole)
        }
    };
    (
        exact(old_items, old_span, old),
        exact(new_items, new_span, new),
    )
}

fn state_fate(
    verdict: Verdict,
    changed: bool,
    facts: &Value,
    old: Option<&Operator>,
    new: Option<&Operator>,
) -> StateFate {
    let show = |op: Option<&Operator>, items: &[Value]| -> Vec<String> {
        items
            .iter()
            .filter_map(Value::as_str)
            .map(|s| op.map(|o| o.display_of(s)).unwrap_or_else(|| s.to_string()))
            .collect()
    };
    let list = |path: &str| {
        lookup(facts, path)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let has_aggregates = old.is_some_and(|o| o.facts.contains_key("aggregates"))
        || new.is_some_and(|o| o.facts.contains_key("aggregates"));
    let mut fate = StateFate::default();
    match verdict {
        Verdict::FullyCompatible | Verdict::PartiallyCompatible
            if old.is_some() && new.is_some() =>
        {
            if has_aggregates {
                fate.reused = show(old, &list("aggregates.kept"));
                fate.starts_empty = show(new, &list("aggregates.added"));
                fate.discarded = show(old, &list("aggregates.removed"));
            }
            fate.operator = if !changed
                || (fate.starts_empty.is_empty() && verdict == Verdict::FullyCompatible)
            {
                "reused"
            } else {
                "partially_reused"
            }
            .into();
        }
        Verdict::Unknown => {
            if has_aggregates {
                let mut all = show(old, &list("old.aggregates"));
                all.extend(
                    show(new, &list("new.aggregates"))
                        .into_iter()
                        .filter(|a| !all.contains(a))
                        .collect::<Vec<_>>(),
                );
                fate.undetermined = all;
            }
            fate.operator = "undetermined".into();
        }
        _ => {
            if has_aggregates {
                fate.discarded = show(old, &list("old.aggregates"));
                fate.starts_empty = show(new, &list("new.aggregates"));
            }
            fate.operator = match (old, new) {
                (Some(_), None) => "discarded",
                (None, Some(_)) => "starts_empty",
                _ => "discarded",
            }
            .into();
        }
    }
    fate
}

fn evaluate_operator(rules: &RuleSet, pair: &OperatorPair, job: &Job) -> OperatorReport {
    let (old_plan, new_plan) = (job.old, job.new);
    let facts = diff::operator_facts(pair, job);
    let kind = pair.kind();
    let operator = kind.name();
    // Compared as the rules see them (a column read through a UNION ALL aligned with its input).
    let changed = pair.old.is_none() || pair.new.is_none() || facts.get("old") != facts.get("new");
    let mut findings = Vec::new();
    if changed && pair.old.is_some() && pair.new.is_some() {
        let fired = fire(rules, operator, &facts);
        let shown = displayed(&facts, pair.old, pair.new);
        let mut explained: Vec<String> = Vec::new();
        for (rule, paths) in &fired {
            let (old_span, new_span) = spans_for(paths, &facts, pair.old, pair.new);
            findings.push(Finding {
                rule: rule.id.clone(),
                verdict: rule.verdict_for(&facts),
                message: rule.message.render(&shown),
                derived: rule.derived.clone(),
                failure_mode: rule.failure_mode_for(&facts),
                suppressed: None,
                old: location(&old_plan.file, old_span),
                new: location(&new_plan.file, new_span),
            });
            explained.extend(paths.iter().cloned());
        }
        if kind == OperatorKind::Source {
            // Options of one table declared on both sides (a renamed or undeclared table is
            // judged as a whole by the source rules).
            let comparable = lookup(&facts, "both_declared") == Some(&Value::Bool(true))
                && lookup(&facts, "old.name") == lookup(&facts, "new.name");
            if let (Some(old), Some(new), true) = (pair.old, pair.new, comparable) {
                let feeds_state = facts.get("feeds_state") == Some(&Value::Bool(true));
                let items = diff::item_facts::option_items(
                    old,
                    new,
                    feeds_state,
                    &rules.connectors,
                    &job.config,
                );
                findings.extend(super::items::evaluate(
                    rules,
                    "table_option",
                    &items,
                    &old_plan.file,
                    &new_plan.file,
                ));
            }
            explained.push("options".into());
        }
        let unexplained: Vec<String> = differing(&facts)
            .into_iter()
            .filter(|k| !explains(&explained, k))
            .collect();
        if !unexplained.is_empty() {
            let (old_span, new_span) = spans_for(&unexplained, &facts, pair.old, pair.new);
            findings.push(Finding {
                rule: UNEXPLAINED.into(),
                verdict: Verdict::Unknown,
                message: format!(
                    "{} changed ({}) and no rule covers this change",
                    operator.replace('_', " "),
                    unexplained.join(", ")
                ),
                derived: Some(
                    "fail-safe: a change the rules do not explain is never called compatible"
                        .into(),
                ),
                failure_mode: None,
                suppressed: None,
                old: location(&old_plan.file, old_span),
                new: location(&new_plan.file, new_span),
            });
        }
    }
    let verdict = findings
        .iter()
        .map(|f| f.verdict)
        .max()
        .unwrap_or(Verdict::FullyCompatible);
    let status = status_of(pair.old.is_some(), pair.new.is_some(), changed);
    let node = pair
        .old
        .or(pair.new)
        .map(|o| o.flink_node)
        .unwrap_or_default();
    OperatorReport {
        kind: match pair
            .old
            .or(pair.new)
            .and_then(|o| o.facts.get("flink_kind"))
            .and_then(Value::as_str)
        {
            Some(flink_kind) => format!("{operator}:{flink_kind}"),
            None => operator.to_string(),
        },
        table: (kind == OperatorKind::Source)
            .then(|| {
                pair.new
                    .or(pair.old)
                    .and_then(|o| o.facts.get("name"))
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .flatten(),
        flink_node: node.to_string(),
        status,
        verdict,
        findings,
        state: state_fate(verdict, changed, &facts, pair.old, pair.new),
        old: pair.old.and_then(|o| location(&old_plan.file, o.span)),
        new: pair.new.and_then(|o| location(&new_plan.file, o.span)),
    }
}

pub fn evaluate_query(rules: &RuleSet, pair: &QueryPair, job: &Job) -> QueryReport {
    let (old_plan, new_plan) = (job.old, job.new);
    let operators: Vec<OperatorReport> = pair
        .operators
        .iter()
        .map(|p| evaluate_operator(rules, p, job))
        .collect();
    let sources: Vec<OperatorReport> = pair
        .sources
        .iter()
        .map(|p| evaluate_operator(rules, p, job))
        .collect();
    let facts = diff::query_facts(pair, job);
    let mut findings = Vec::new();
    let config_changed = lookup(&facts, "config.changed_keys")
        .and_then(Value::as_array)
        .is_some_and(|keys| !keys.is_empty())
        || lookup(&facts, "config.engine_version_changed") == Some(&Value::Bool(true))
        || lookup(&facts, "config.unmodelled_statements_changed") == Some(&Value::Bool(true))
        || [
            "config.changed_functions",
            "config.added_functions",
            "config.unused_tables_changed",
            "config.warnings_added",
        ]
        .iter()
        .any(|path| {
            lookup(&facts, path)
                .and_then(Value::as_array)
                .is_some_and(|f| !f.is_empty())
        });
    let changed = operators
        .iter()
        .chain(&sources)
        .any(|o| o.status != QueryStatus::Unchanged)
        || facts.get("old") != facts.get("new")
        || facts.get("projection_changed") == Some(&Value::Bool(true))
        || facts.get("rows_changed") == Some(&Value::Bool(true))
        || lookup(&facts, "renamed_outputs")
            .and_then(Value::as_array)
            .is_some_and(|r| !r.is_empty())
        || config_changed;
    // A query can also be affected by a change elsewhere in the job: its operators' generated
    // ids follow the job's stream graph and the order of its queries (rules on
    // `topology_changed_elsewhere`, `moved_among_queries`).
    let neighbours_changed =
        !pair.topology_changed_elsewhere.is_empty() || pair.moved_among_queries;
    if changed || neighbours_changed {
        let fired = fire(rules, "query", &facts);
        let explained: Vec<String> = fired.iter().flat_map(|(_, p)| p.iter().cloned()).collect();
        for (rule, paths) in fired {
            // A finding about configuration points at the SET statements that differ.
            let mut keys: Vec<&str> = Vec::new();
            if paths.iter().any(|p| p.starts_with("config.changed_keys")) {
                keys.extend(
                    lookup(&facts, "config.changed_keys")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str),
                );
            }
            if paths.iter().any(|p| p.starts_with("config.engine_version"))
                && lookup(&facts, "config.engine_version_changed") == Some(&Value::Bool(true))
            {
                keys.push("engine.version");
            }
            // A finding about the filters after the operators points at their WHERE or HAVING.
            let on_rows = paths.iter().any(|p| p == "rows_changed");
            let at = |plan: &Plan, query: Option<&crate::plan::QueryPlan>| {
                setting_span(plan, &keys)
                    .or(query.and_then(|q| q.rows_span.filter(|_| on_rows)))
                    .or(query.map(|q| q.span))
                    .and_then(|span| location(&plan.file, span))
            };
            findings.push(Finding {
                rule: rule.id.clone(),
                verdict: rule.verdict_for(&facts),
                message: rule.message.render(&facts),
                derived: rule.derived.clone(),
                failure_mode: rule.failure_mode_for(&facts),
                suppressed: None,
                old: at(old_plan, pair.old),
                new: at(new_plan, pair.new),
            });
        }
        if config_changed {
            findings.extend(super::items::evaluate(
                rules,
                "config_key",
                &job.config_items,
                &old_plan.file,
                &new_plan.file,
            ));
        }
        // The fail-safe of operators, for a query present on both sides: its source tables
        // are judged as their own pairs.
        if let (Some(old), Some(new)) = (pair.old, pair.new) {
            let unexplained: Vec<String> = differing(&facts)
                .into_iter()
                .filter(|k| k != "sources" && !explains(&explained, k))
                .collect();
            if !unexplained.is_empty() {
                findings.push(Finding {
                    rule: UNEXPLAINED.into(),
                    verdict: Verdict::Unknown,
                    message: format!(
                        "the query changed ({}) and no rule covers this change",
                        unexplained.join(", ")
                    ),
                    derived: Some(
                        "fail-safe: a change the rules do not explain is never called compatible"
                            .into(),
                    ),
                    failure_mode: None,
                    suppressed: None,
                    old: location(&old_plan.file, old.span),
                    new: location(&new_plan.file, new.span),
                });
            }
        }
    }
    let verdict = findings
        .iter()
        .map(|f| f.verdict)
        .chain(
            operators
                .iter()
                .chain(&sources)
                .filter(|o| o.status != QueryStatus::Removed && o.status != QueryStatus::Added)
                .map(|o| o.verdict),
        )
        .max()
        .unwrap_or(Verdict::FullyCompatible);
    // A finding about the whole query or its sources decides the fate of every operator's state.
    let surrounding = findings
        .iter()
        .map(|f| f.verdict)
        .chain(sources.iter().map(|s| s.verdict))
        .max()
        .unwrap_or(Verdict::FullyCompatible);
    let operators = operators
        .into_iter()
        .map(|mut op| {
            if op.status != QueryStatus::Added
                && op.status != QueryStatus::Removed
                && surrounding >= Verdict::Unknown
                && surrounding > op.verdict
            {
                op.state = op.state.under(surrounding);
            }
            op
        })
        .collect();
    let status = status_of(pair.old.is_some(), pair.new.is_some(), changed);
    let name = pair
        .new
        .or(pair.old)
        .map(|q| q.name.clone())
        .unwrap_or_default();
    QueryReport {
        name,
        old_name: pair.old.map(|q| q.name.clone()),
        new_name: pair.new.map(|q| q.name.clone()),
        status,
        verdict,
        findings,
        operators,
        sources,
    }
}
