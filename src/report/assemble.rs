//! Assembles the report of every matched pair from the rules' decisions
//! (`crate::rules::engine`): findings with their locations, statuses, verdicts and state fates.

use super::spans::spans_for;
use super::state_fate::state_fate;
use super::{Finding, Location, OperatorReport, QueryReport, QueryStatus};
use crate::diff::item_facts::{self, Item};
use crate::diff::{self, Job, OperatorPair, QueryPair};
use crate::facts::job::{ConfigFacts, QueryFacts, QueryPairFacts};
use crate::facts::{pair, FactName};
use crate::plan::{Operator, OperatorKind, Plan};
use crate::rules::items;
use crate::rules::{engine, Rule, RuleSet};
use crate::source::{ByteSpan, SourceFile};
use crate::verdict::Verdict;
use serde_json::Value;

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

/// The finding of a rule that fired on `facts`, its message written with `shown` (the facts as
/// users read them).
fn rule_finding(
    rule: &Rule,
    facts: &Value,
    shown: &Value,
    old: Option<Location>,
    new: Option<Location>,
) -> Finding {
    Finding {
        rule: rule.id.clone(),
        verdict: rule.verdict_for(facts),
        message: rule.message.render(shown),
        derived: rule.derived.clone(),
        failure_mode: rule.failure_mode_for(facts),
        suppressed: None,
        old,
        new,
    }
}

/// The findings of every changed item, in order: one per fired rule, or one
/// `unexplained-change` when none fires.
fn item_findings(
    rules: &RuleSet,
    operator: &str,
    items: &[Item],
    old_file: &SourceFile,
    new_file: &SourceFile,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (item, fired) in items.iter().zip(items::decide(rules, operator, items)) {
        let at = |file: &SourceFile, span: Option<ByteSpan>| span.and_then(|s| location(file, s));
        if fired.is_empty() {
            findings.push(Finding {
                rule: engine::UNEXPLAINED.into(),
                verdict: Verdict::Unknown,
                message: format!("{} changed and no rule covers this change", item.label),
                derived: Some(engine::FAIL_SAFE.into()),
                failure_mode: None,
                old: at(old_file, item.old_span),
                new: at(new_file, item.new_span),
                suppressed: None,
            });
        }
        for rule in fired {
            findings.push(rule_finding(
                rule,
                &item.facts,
                &item.facts,
                at(old_file, item.old_span),
                at(new_file, item.new_span),
            ));
        }
    }
    findings
}

fn evaluate_operator(
    rules: &RuleSet,
    pair: &OperatorPair,
    renames: &[(String, String)],
    job: &Job,
) -> OperatorReport {
    let (old_plan, new_plan) = (job.old, job.new);
    let kind = pair.kind();
    let operator = kind.name();
    // Facts that do not read as their type are a bug of the tool: the pair is never judged
    // safe on them. Most pairs of a large job are unchanged: nothing to assemble or fire, and
    // no rule reads their facts, which are read through the kind's type only where a rule
    // will read them (a fact that failed to read while planning counts on every pair; that
    // every planned operator's facts read as their type is tests/typed_facts.rs's).
    let unchanged = diff::unchanged_operator(pair, renames);
    let check_type = unchanged.is_none();
    let fault = pair
        .old
        .and_then(|old| old.fact_error_checking(check_type))
        .or_else(|| pair.new.and_then(|new| new.fact_error_checking(check_type)));
    if let (Some(aggregates), None) = (&unchanged, &fault) {
        return operator_report(pair, Vec::new(), false, aggregates, job);
    }
    let diff::OperatorPairFacts {
        json: facts,
        source: source_pair,
        aggregates,
    } = diff::operator_facts(pair, renames, job);
    // Compared as the rules see them (a column read through a UNION ALL aligned with its input).
    let changed = pair.old.is_none() || pair.new.is_none() || pair::sides_differ(&facts);
    let mut findings = Vec::new();
    if let Some(reason) = fault {
        findings.push(Finding {
            rule: engine::UNEXPLAINED.into(),
            verdict: Verdict::Unknown,
            message: format!(
                "{reason}; the tool cannot judge this {}",
                operator.replace('_', " ")
            ),
            derived: Some(engine::FAIL_SAFE.into()),
            failure_mode: None,
            suppressed: None,
            old: pair.old.and_then(|o| location(&old_plan.file, o.span)),
            new: pair.new.and_then(|o| location(&new_plan.file, o.span)),
        });
    }
    if changed && pair.old.is_some() && pair.new.is_some() {
        let fired = engine::fire(rules, operator, &facts);
        let shown = displayed(&facts, pair.old, pair.new);
        let mut explained: Vec<String> = Vec::new();
        for (rule, paths) in &fired {
            let (old_span, new_span) = spans_for(paths, &facts, pair.old, pair.new);
            findings.push(rule_finding(
                rule,
                &facts,
                &shown,
                location(&old_plan.file, old_span),
                location(&new_plan.file, new_span),
            ));
            explained.extend(paths.iter().cloned());
        }
        if kind == OperatorKind::Source {
            // Options of a table declared on both sides, also when it was renamed with the
            // same connector (its options still say what is read: red team round 19, FS3); an
            // undeclared table, or one renamed to another connector, is judged as a whole by
            // the source rules.
            let name = |op: Option<&Operator>| op.and_then(|o| o.source_facts()).map(|s| s.name);
            let connector =
                |op: Option<&Operator>| op.and_then(|o| o.source_facts()).map(|s| s.connector);
            let comparable = source_pair.as_ref().is_some_and(|s| s.both_declared)
                && (name(pair.old) == name(pair.new) || connector(pair.old) == connector(pair.new));
            if let (Some(old), Some(new), true) = (pair.old, pair.new, comparable) {
                let feeds_state = source_pair.as_ref().is_some_and(|s| s.feeds_state);
                let items = diff::item_facts::option_items(
                    old,
                    new,
                    feeds_state,
                    &rules.connectors,
                    &job.config,
                );
                findings.extend(item_findings(
                    rules,
                    "table_option",
                    &items,
                    &old_plan.file,
                    &new_plan.file,
                ));
            }
        }
        let unexplained = engine::unexplained(
            &facts,
            &explained,
            &diff::schema::judged_elsewhere(operator),
        );
        if !unexplained.is_empty() {
            let (old_span, new_span) = spans_for(&unexplained, &facts, pair.old, pair.new);
            findings.push(Finding {
                rule: engine::UNEXPLAINED.into(),
                verdict: Verdict::Unknown,
                message: format!(
                    "{} changed ({}) and no rule covers this change",
                    operator.replace('_', " "),
                    unexplained.join(", ")
                ),
                derived: Some(engine::FAIL_SAFE.into()),
                failure_mode: None,
                suppressed: None,
                old: location(&old_plan.file, old_span),
                new: location(&new_plan.file, new_span),
            });
        }
    }
    operator_report(pair, findings, changed, &aggregates, job)
}

/// The report of an operator pair judged by `findings`.
fn operator_report(
    pair: &OperatorPair,
    findings: Vec<Finding>,
    changed: bool,
    aggregates: &diff::AggregatesPair,
    job: &Job,
) -> OperatorReport {
    let (old_plan, new_plan) = (job.old, job.new);
    let kind = pair.kind();
    let operator = kind.name();
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
        kind: match pair.old.or(pair.new).and_then(Operator::flink_kind) {
            Some(flink_kind) => format!("{operator}:{flink_kind}"),
            None => operator.to_string(),
        },
        table: (kind == OperatorKind::Source)
            .then(|| {
                pair.new
                    .or(pair.old)
                    .and_then(Operator::source_name)
                    .map(str::to_string)
            })
            .flatten(),
        flink_node: node.to_string(),
        status,
        verdict,
        findings,
        state: state_fate(verdict, changed, aggregates, pair.old, pair.new),
        old: pair.old.and_then(|o| location(&old_plan.file, o.span)),
        new: pair.new.and_then(|o| location(&new_plan.file, o.span)),
    }
}

/// The configuration keys that differ only after the last query of a script
/// (`Job::settings_after_queries`), judged once for the whole job: `the job`, none when there is
/// none.
pub fn settings_after_queries(rules: &RuleSet, job: &Job) -> Option<QueryReport> {
    if job.settings_after_queries.is_empty() {
        return None;
    }
    let findings = item_findings(
        rules,
        "config_key",
        &job.settings_after_queries,
        &job.old.file,
        &job.new.file,
    );
    let verdict = findings
        .iter()
        .map(|f| f.verdict)
        .max()
        .unwrap_or(Verdict::FullyCompatible);
    Some(QueryReport {
        name: "the job".into(),
        old_name: None,
        new_name: None,
        status: QueryStatus::Changed,
        verdict,
        findings,
        operators: Vec::new(),
        sources: Vec::new(),
    })
}

pub fn evaluate_query(rules: &RuleSet, pair: &QueryPair, job: &Job) -> QueryReport {
    let (old_plan, new_plan) = (job.old, job.new);
    let operators: Vec<OperatorReport> = pair
        .operators
        .iter()
        .map(|p| evaluate_operator(rules, p, &pair.source_renames, job))
        .collect();
    let sources: Vec<OperatorReport> = pair
        .sources
        .iter()
        .map(|p| evaluate_operator(rules, p, &pair.source_renames, job))
        .collect();
    let sides = diff::query_facts(pair, job);
    let whole = &sides.whole;
    let mut findings = Vec::new();
    let config_changed = job.config.changed();
    let changed = operators
        .iter()
        .chain(&sources)
        .any(|o| o.status != QueryStatus::Unchanged)
        || sides.sides_differ()
        || whole.projection_changed
        || whole.rows_changed
        || !whole.renamed_outputs.is_empty()
        || config_changed;
    // A query can also be affected by a change elsewhere in the job: its operators' generated
    // ids follow the job's stream graph and the order of its queries, and the job it is
    // submitted in may hold other queries (rules on `topology_changed_elsewhere`,
    // `moved_among_queries`, `regrouped`).
    let neighbours_changed = !pair.topology_changed_elsewhere.is_empty()
        || pair.moved_among_queries
        || pair.regrouped
        || pair.sharing != Default::default();
    if changed || neighbours_changed {
        let facts = sides.json(job);
        let fired = engine::fire(rules, "query", &facts);
        let explained: Vec<String> = fired.iter().flat_map(|(_, p)| p.iter().cloned()).collect();
        for (rule, paths) in fired {
            // A finding about configuration points at the SET statements that differ.
            let mut keys: Vec<&str> = Vec::new();
            let reads = |fact: FactName| {
                let path = pair::config_path(fact);
                paths.iter().any(|p| p.starts_with(&path))
            };
            if reads(ConfigFacts::changed_keys) {
                keys.extend(job.config.changed_keys.iter().map(String::as_str));
            }
            if reads(ConfigFacts::engine_version_changed) && job.config.engine_version_changed {
                keys.push("engine.version");
            }
            // A finding about the filters after the operators points at their WHERE or HAVING.
            let on_rows = paths
                .iter()
                .any(|p| p == QueryPairFacts::rows_changed.name());
            // One about the outer joins Flink removes points at the first of them.
            let on_removed_joins = paths
                .iter()
                .any(|p| p.contains(QueryFacts::removed_joins.name()));
            let at = |plan: &Plan, query: Option<&crate::plan::QueryPlan>| {
                setting_span(plan, &keys)
                    .or(query.and_then(|q| q.rows_span.filter(|_| on_rows)))
                    .or(query.and_then(|q| q.removed_joins_span.filter(|_| on_removed_joins)))
                    .or(query.map(|q| q.span))
                    .and_then(|span| location(&plan.file, span))
            };
            findings.push(rule_finding(
                rule,
                &facts,
                &facts,
                at(old_plan, pair.old),
                at(new_plan, pair.new),
            ));
        }
        if config_changed {
            findings.extend(item_findings(
                rules,
                "config_key",
                &item_facts::config_items_for_query(&job.config_items, [pair.old, pair.new]),
                &old_plan.file,
                &new_plan.file,
            ));
        }
        // The fail-safe of operators, for a query present on both sides: its source tables
        // are judged as their own pairs.
        if let (Some(old), Some(new)) = (pair.old, pair.new) {
            let unexplained =
                engine::unexplained(&facts, &explained, &diff::schema::judged_elsewhere("query"));
            if !unexplained.is_empty() {
                findings.push(Finding {
                    rule: engine::UNEXPLAINED.into(),
                    verdict: Verdict::Unknown,
                    message: format!(
                        "the query changed ({}) and no rule covers this change",
                        unexplained.join(", ")
                    ),
                    derived: Some(engine::FAIL_SAFE.into()),
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
        .zip(&pair.operators)
        .map(|(mut op, op_pair)| {
            // An added query reading an operator a kept query computes alike in both jobs
            // reads the state that query restores.
            let already_computed = op_pair.new.zip(pair.new).is_some_and(|(o, query)| {
                pair.sharing
                    .already_computed_operators
                    .iter()
                    .any(|&i| query.operators.get(i).is_some_and(|q| std::ptr::eq(q, o)))
            });
            if already_computed && op.verdict <= Verdict::PartiallyCompatible {
                let mut reused = std::mem::take(&mut op.state.starts_empty);
                reused.append(&mut op.state.reused);
                op.state.reused = reused;
                op.state.operator = "reused".into();
            }
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
