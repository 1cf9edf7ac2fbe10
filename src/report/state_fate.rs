//! What happens to each piece of an operator's state on restore, from its verdict and facts.

use super::StateFate;
use crate::diff::AggregatesPair;
use crate::plan::Operator;
use crate::verdict::Verdict;

pub(super) fn state_fate(
    verdict: Verdict,
    changed: bool,
    aggregates: &AggregatesPair,
    old: Option<&Operator>,
    new: Option<&Operator>,
) -> StateFate {
    let show = |op: Option<&Operator>, items: &[String]| -> Vec<String> {
        items
            .iter()
            .map(|s| op.map(|o| o.display_of(s)).unwrap_or_else(|| s.clone()))
            .collect()
    };
    let relation = &aggregates.relation;
    let has_aggregates =
        old.is_some_and(Operator::has_aggregates) || new.is_some_and(Operator::has_aggregates);
    let mut fate = StateFate::default();
    match verdict {
        Verdict::FullyCompatible | Verdict::PartiallyCompatible
            if old.is_some() && new.is_some() =>
        {
            if has_aggregates {
                fate.reused = show(old, &relation.kept);
                fate.starts_empty = show(new, &relation.added);
                fate.discarded = show(old, &relation.removed);
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
                let mut all = show(old, &aggregates.old);
                all.extend(
                    show(new, &aggregates.new)
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
                fate.discarded = show(old, &aggregates.old);
                fate.starts_empty = show(new, &aggregates.new);
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
