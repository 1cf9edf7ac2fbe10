//! The inputs of the joins beneath a relation that a WHERE above them still reaches (those no
//! join pads with NULLs), and, for each, the other inputs of the joins it is beneath: a term
//! reading only one input's columns, and none of another input's, is pushed into it.
//!
//! The other inputs are kept once per join, not once per input and join: a join hangs the
//! groups of its two inputs under two new groups (one per side, naming the side's other
//! input), so a chain of n joins takes memory linear in n, and a term's check walks the
//! groups above one input only when it reads nothing but that input.

use super::expr::CExpr;
use super::join_side::Side;
use super::pushdown::JoinInputBelow;
use std::collections::BTreeSet;

/// The other input of one join, for the inputs of one of its sides; `parent` is the group of
/// the join above, if any.
#[derive(Debug, Clone)]
struct Group {
    other: Side,
    parent: Option<usize>,
}

#[derive(Debug, Clone, Default)]
pub struct ReachableInputs {
    /// Each input with the group of the join right above it.
    inputs: Vec<(JoinInputBelow, usize)>,
    groups: Vec<Group>,
    /// The groups without a parent yet: those of the last join.
    roots: Vec<usize>,
}

impl ReachableInputs {
    pub fn is_empty(&self) -> bool {
        self.inputs.is_empty()
    }

    /// The inputs `side` reaches through one more join, whose other input is `other`:
    /// `below` (those of the side's own joins) and, unless it holds nothing, `own` (the side
    /// itself).
    pub fn through_join(
        below: ReachableInputs,
        own: JoinInputBelow,
        other: Side,
    ) -> ReachableInputs {
        if below.is_empty() && own.holds_nothing() {
            return ReachableInputs::default();
        }
        let mut reach = below;
        let group = reach.groups.len();
        reach.groups.push(Group {
            other,
            parent: None,
        });
        for root in std::mem::take(&mut reach.roots) {
            reach.groups[root].parent = Some(group);
        }
        reach.roots.push(group);
        if !own.holds_nothing() {
            reach.inputs.push((own, group));
        }
        reach
    }

    /// The inputs of both sides of a join, side by side (the smaller moved into the larger).
    pub fn beside(self, other: ReachableInputs) -> ReachableInputs {
        let (mut large, small) =
            if self.inputs.len() + self.groups.len() >= other.inputs.len() + other.groups.len() {
                (self, other)
            } else {
                (other, self)
            };
        let offset = large.groups.len();
        large.groups.extend(small.groups.into_iter().map(|g| Group {
            other: g.other,
            parent: g.parent.map(|p| p + offset),
        }));
        large
            .inputs
            .extend(small.inputs.into_iter().map(|(i, g)| (i, g + offset)));
        large
            .roots
            .extend(small.roots.into_iter().map(|r| r + offset));
        large
    }

    /// Each input with the terms that read only its columns (and none of another input of a
    /// join it is beneath), where there are any.
    pub fn reached_by<'a>(
        &'a mut self,
        terms: &[CExpr],
    ) -> impl Iterator<Item = (&'a mut JoinInputBelow, Vec<CExpr>)> + 'a {
        let atoms: Vec<BTreeSet<String>> = terms
            .iter()
            .map(|t| {
                let mut atoms = BTreeSet::new();
                super::join::collect_atoms(t, &mut atoms);
                atoms
            })
            .collect();
        let terms = terms.to_vec();
        let groups = &self.groups;
        self.inputs.iter_mut().filter_map(move |(input, group)| {
            let reaching: Vec<CExpr> = terms
                .iter()
                .zip(&atoms)
                .filter(|(_, atoms)| {
                    !atoms.is_empty()
                        && atoms.iter().all(|a| input.own.contains_atom(a))
                        && !others_read(groups, *group, atoms)
                })
                .map(|(t, _)| t.clone())
                .collect();
            (!reaching.is_empty()).then_some((input, reaching))
        })
    }
}

/// Whether any of `atoms` is a column of the other input of a join from `group` up.
fn others_read(groups: &[Group], group: usize, atoms: &BTreeSet<String>) -> bool {
    let mut at = Some(group);
    while let Some(g) = at.and_then(|g| groups.get(g)) {
        if atoms.iter().any(|a| g.other.contains_atom(a)) {
            return true;
        }
        at = g.parent;
    }
    false
}
