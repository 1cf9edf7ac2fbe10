//! What happens to each piece of an operator's state on restore, from its verdict and facts.

use super::StateFate;
use crate::plan::Operator;
use crate::rules::lookup;
use crate::verdict::Verdict;
use serde_json::Value;

pub(super) fn state_fate(
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
    let has_aggregates =
        old.is_some_and(Operator::has_aggregates) || new.is_some_and(Operator::has_aggregates);
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
