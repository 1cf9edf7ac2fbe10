//! Each piece of an operator's state with its fate on restore and the findings that decided
//! it: the graph colours the piece by its fate and names those rules on hover.

use crate::report::{Finding, OperatorReport, QueryReport, QueryStatus};
use crate::verdict::Verdict;

/// What happens to one piece of state on restore.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    Reused,
    StartsEmpty,
    Discarded,
    Undetermined,
}

impl Fate {
    pub const ALL: [Fate; 4] = [
        Fate::Reused,
        Fate::StartsEmpty,
        Fate::Discarded,
        Fate::Undetermined,
    ];

    /// The CSS class of the fate (`fate-starts_empty`).
    pub fn class(self) -> &'static str {
        match self {
            Fate::Reused => "fate-reused",
            Fate::StartsEmpty => "fate-starts_empty",
            Fate::Discarded => "fate-discarded",
            Fate::Undetermined => "fate-undetermined",
        }
    }

    pub fn words(self) -> &'static str {
        match self {
            Fate::Reused => "reused",
            Fate::StartsEmpty => "starts empty",
            Fate::Discarded => "discarded",
            Fate::Undetermined => "undetermined",
        }
    }

    /// A mark beside the colour, so that the fate does not rest on colour alone.
    pub fn symbol(self) -> &'static str {
        match self {
            Fate::Reused => "✓",
            Fate::StartsEmpty => "+",
            Fate::Discarded => "✗",
            Fate::Undetermined => "?",
        }
    }

    pub fn meaning(self) -> &'static str {
        match self {
            Fate::Reused => "restored from the savepoint",
            Fate::StartsEmpty => "nothing in the savepoint: it starts from empty at restart",
            Fate::Discarded => "in the savepoint but not restored",
            Fate::Undetermined => "the tool cannot tell whether it is restored",
        }
    }

    /// The fate of an operator's state as a whole (`StateFate::operator`).
    fn of_operator(name: &str) -> Fate {
        match name {
            "reused" | "partially_reused" => Fate::Reused,
            "starts_empty" => Fate::StartsEmpty,
            "discarded" => Fate::Discarded,
            _ => Fate::Undetermined,
        }
    }
}

/// One piece of state of one operator.
#[derive(Debug, Clone)]
pub struct StateItem<'r> {
    /// The aggregate (or `(all of its state)` for an operator kept as a whole).
    pub label: String,
    pub fate: Fate,
    /// Why it has this fate, in words.
    pub why: String,
    /// The findings that decided it, the most specific first.
    pub decided_by: Vec<&'r Finding>,
}

/// The label of an operator's state taken as a whole.
pub const WHOLE: &str = "(all of its state)";

/// The verdict of what surrounds the query's operators (its own findings and its sources):
/// from `unknown` up it decides the fate of every operator's state, as the engine does.
fn surrounding(query: &QueryReport) -> Verdict {
    query
        .findings
        .iter()
        .map(|f| f.verdict)
        .chain(query.sources.iter().map(|s| s.verdict))
        .max()
        .unwrap_or(Verdict::FullyCompatible)
}

fn surrounding_findings(query: &QueryReport, verdict: Verdict) -> Vec<&Finding> {
    query
        .findings
        .iter()
        .chain(query.sources.iter().flat_map(|s| s.findings.iter()))
        .filter(|f| f.verdict == verdict)
        .collect()
}

/// Whether a finding points at this piece of state on the side where it matters.
fn points_at(f: &Finding, item: &str, fate: Fate) -> bool {
    let sides = match fate {
        Fate::StartsEmpty => [&f.new, &None],
        Fate::Discarded => [&f.old, &None],
        Fate::Reused | Fate::Undetermined => [&f.old, &f.new],
    };
    sides
        .into_iter()
        .flatten()
        .any(|l| l.text.trim() == item || (item.len() > 3 && l.text.contains(item)))
}

/// The pieces of state of an operator (or a source table) of `query`, with their fates and
/// the findings that decided them.
pub fn items<'r>(query: &'r QueryReport, op: &'r OperatorReport) -> Vec<StateItem<'r>> {
    let s = &op.state;
    let mut listed: Vec<(String, Fate)> = Vec::new();
    for (fate, list) in [
        (Fate::Reused, &s.reused),
        (Fate::StartsEmpty, &s.starts_empty),
        (Fate::Discarded, &s.discarded),
        (Fate::Undetermined, &s.undetermined),
    ] {
        for item in list {
            // One fate per piece: the first list that names it.
            if !listed.iter().any(|(l, _)| l == item) {
                listed.push((item.clone(), fate));
            }
        }
    }
    if listed.is_empty() {
        listed.push((WHOLE.to_string(), Fate::of_operator(&s.operator)));
    }
    let is_source = op.table.is_some();
    let around = surrounding(query);
    let overridden = !is_source
        && op.status != QueryStatus::Added
        && op.status != QueryStatus::Removed
        && around >= Verdict::Unknown
        && around > op.verdict;
    listed
        .into_iter()
        .map(|(label, fate)| {
            let (why, decided_by) = decide(query, op, &label, fate, overridden, around);
            StateItem {
                label,
                fate,
                why,
                decided_by,
            }
        })
        .collect()
}

fn decide<'r>(
    query: &'r QueryReport,
    op: &'r OperatorReport,
    label: &str,
    fate: Fate,
    overridden: bool,
    around: Verdict,
) -> (String, Vec<&'r Finding>) {
    match op.status {
        QueryStatus::Added => {
            return (
                "the operator is new: the savepoint holds nothing of it".into(),
                Vec::new(),
            )
        }
        QueryStatus::Removed => {
            return (
                "the operator is gone: its state in the savepoint is not restored".into(),
                Vec::new(),
            )
        }
        _ => {}
    }
    if overridden {
        return (
            format!(
                "decided by the query as a whole ({}): {}",
                around.name().replace('_', " "),
                if around == Verdict::Incompatible {
                    "none of its state can be restored"
                } else {
                    "the tool cannot tell what is restored"
                }
            ),
            surrounding_findings(query, around),
        );
    }
    let specific: Vec<&Finding> = op
        .findings
        .iter()
        .filter(|f| points_at(f, label, fate))
        .collect();
    if !specific.is_empty() {
        return (
            format!("{} by the rule that names it", fate.words()),
            specific,
        );
    }
    let worst: Vec<&Finding> = op
        .findings
        .iter()
        .filter(|f| f.verdict == op.verdict)
        .collect();
    if !worst.is_empty() {
        return (
            format!("{} under the operator's verdict", fate.words()),
            worst,
        );
    }
    let why = match (op.status, fate) {
        (QueryStatus::Unchanged, Fate::Reused) => "unchanged: restored as it was",
        (_, Fate::Reused) => "no rule changes it: restored as it was",
        _ => "no finding about it",
    };
    (why.into(), Vec::new())
}
