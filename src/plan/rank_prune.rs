//! Columns a deduplication, Top-N or window Top-N carries that nothing above it reads. Flink
//! pushes the query's projection beneath the rank, however the query is written: a view or CTE
//! `SELECT * FROM (SELECT *, ROW_NUMBER() OVER (...) AS rn FROM t) WHERE rn = 1` read by a query
//! that selects two of its columns keeps those two (and the keys) in its state, as the same
//! ranking written inline does (plan oracle: the Deduplicate / Rank / WindowRank row type).
//! The rank is planned where its filter is, so it first carries every column that SELECT
//! passes on; this pass removes, per query, the value fields nothing above reads.

use super::prune::{names, QueryReads};
use super::{Operator, OperatorKind};
use crate::facts::ranking::{DeduplicateFacts, FiltersAfter, RankOutputs, Ranking};

/// Removes from each ranking of one query the value fields (columns other than its partition
/// and order keys) that neither the query's output and filters, nor the terms run after the
/// rank, nor an operator above it reads. Only where the tool sees everything the query reads
/// (no operator compared as a whole).
pub fn unread_rank_columns(operators: &mut [Operator], reads: &QueryReads) {
    if operators.iter().any(|op| op.kind == OperatorKind::Opaque) {
        return;
    }
    let query_texts: Vec<String> = reads
        .exprs
        .iter()
        .map(|e| e.canonical())
        .chain(reads.filter_texts.iter().map(|t| t.to_string()))
        .collect();
    for i in 0..operators.len() {
        let kind = operators[i].kind;
        let values = match kind {
            OperatorKind::Deduplicate => operators[i]
                .read::<DeduplicateFacts>()
                .map(|f| f.value_fields),
            OperatorKind::TopN | OperatorKind::WindowTopN => {
                operators[i].read::<Ranking>().map(|f| f.value_fields)
            }
            _ => continue,
        };
        let Ok(values) = values else { continue };
        let after = operators[i]
            .read::<FiltersAfter>()
            .ok()
            .and_then(|f| f.filters_after)
            .unwrap_or_default();
        let above: Vec<String> = operators[i + 1..]
            .iter()
            .flat_map(Operator::searchable_text)
            .collect();
        let read = |column: &String| {
            query_texts
                .iter()
                .chain(&after)
                .chain(&above)
                .any(|t| names(t, column))
        };
        let unread: Vec<String> = values.into_iter().filter(|c| !read(c)).collect();
        if unread.is_empty() {
            continue;
        }
        let kept = |c: &String| !unread.contains(c);
        let op = &mut operators[i];
        if kind == OperatorKind::Deduplicate {
            op.update(|f: &mut DeduplicateFacts| {
                f.input_schema.retain(kept);
                f.value_fields.retain(kept);
                f.outputs.retain(kept);
            });
        } else {
            op.update(|f: &mut Ranking| {
                f.input_schema.retain(kept);
                f.value_fields.retain(kept);
            });
            op.update(|f: &mut RankOutputs| f.outputs.retain(kept));
        }
    }
}
