//! What the query reads of an operator planned in one input of a set operation. The query
//! above reads the set operation's output, whose column j is every input's column j in one
//! `UNION(...)` call (`Relation::union_all`). For an operator in one input, a read of that
//! column is a read of this input's column j; the other inputs, with their filters and
//! operators, are not above it. Read as a whole, a CTE read both beside a join in one input
//! and alone in another looks read through the join (red team round 33, plan lab: Flink
//! removes the LEFT JOIN of the first input when nothing there reads the CTE, and keeps it
//! when that input's own column reads it).

use super::expr::CExpr;
use super::Operator;
use crate::source::ByteSpan;

/// One set operation of a query (UNION ALL, UNION, INTERSECT or EXCEPT) and its two inputs.
#[derive(Debug, Clone)]
pub struct SetOperationInputs {
    /// Its output columns.
    pub output: Vec<CExpr>,
    pub inputs: [SetInput; 2],
}

#[derive(Debug, Clone)]
pub struct SetInput {
    /// Its columns, in the order of the output's.
    pub columns: Vec<CExpr>,
    /// Where it is written.
    pub span: ByteSpan,
}

impl SetOperationInputs {
    /// Its columns as the query's output is read above a filter `c IS NULL`
    /// (`fold::under_null_columns`), so they are written as the query's reads are.
    pub fn under_null_columns(&mut self, null: &[String]) {
        let inputs = self.inputs.iter_mut().map(|i| &mut i.columns);
        for exprs in std::iter::once(&mut self.output).chain(inputs) {
            for expr in exprs.iter_mut() {
                *expr = super::fold::under_null_columns(expr, null);
            }
        }
    }
}

/// An operator's place among the query's set operations: input `input` of set operation
/// `set` (an index in the builder's list, innermost first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputOf {
    pub set: usize,
    pub input: usize,
}

/// How the query above is read from inside one input of its set operations.
pub struct InputView {
    /// Each set operation's output column, with the input's column it is there, outermost
    /// set operation first (an inner one's output is an input column of the outer).
    rewrites: Vec<Vec<(String, String)>>,
    /// The other inputs of those set operations.
    others: Vec<InputOf>,
    other_spans: Vec<ByteSpan>,
}

impl InputView {
    /// The view from `op`, planned inside the inputs it carries (`Operator::set_inputs`); none
    /// for an operator planned in no set operation's input.
    pub fn of(op: &Operator, sets: &[SetOperationInputs]) -> Option<InputView> {
        let mut view = InputView {
            rewrites: Vec::new(),
            others: Vec::new(),
            other_spans: Vec::new(),
        };
        for place in op.set_inputs.iter().rev() {
            let set = sets.get(place.set)?;
            let own = set.inputs.get(place.input)?;
            let texts = |exprs: &[CExpr]| exprs.iter().map(CExpr::canonical).collect::<Vec<_>>();
            view.rewrites
                .push(column_rewrites(&texts(&set.output), &texts(&own.columns)));
            for (input, other) in set.inputs.iter().enumerate() {
                if input != place.input {
                    view.others.push(InputOf {
                        set: place.set,
                        input,
                    });
                    view.other_spans.push(other.span);
                }
            }
        }
        (!view.rewrites.is_empty()).then_some(view)
    }

    /// The rewrites, outermost first, for [`super::read_names::ReadNames::rewriting`].
    pub fn rewrites(&self) -> Vec<Vec<(String, String)>> {
        self.rewrites.clone()
    }

    /// Whether `op` may be above the viewing operator: it is planned in no other input.
    pub fn sees(&self, op: &Operator) -> bool {
        !op.set_inputs
            .iter()
            .any(|place| self.others.contains(place))
    }

    /// Whether a clause written at `place` may be above the viewing operator: it is written
    /// in no other input.
    pub fn sees_place(&self, place: ByteSpan) -> bool {
        !self
            .other_spans
            .iter()
            .any(|other| !other.is_empty() && other.start <= place.start && place.end <= other.end)
    }

    /// Whether a term the query reads may be read above the viewing operator: it is no filter
    /// written only in other inputs (a UNION ALL's filters are the query's, from every input).
    pub fn sees_term(&self, text: &str, reads: &super::prune::QueryReads) -> bool {
        let mut places = reads
            .filter_texts
            .iter()
            .zip(&reads.filter_places)
            .filter(|(t, _)| **t == text)
            .peekable();
        places.peek().is_none() || places.any(|(_, place)| self.sees_place(*place))
    }
}

/// Output column → the input's column. Output columns written alike (`UNION(0, 0)` twice)
/// read every input column they stand for.
fn column_rewrites(output: &[String], columns: &[String]) -> Vec<(String, String)> {
    let mut rewrites: Vec<(String, Vec<&str>)> = Vec::new();
    for (out, column) in output.iter().zip(columns) {
        match rewrites.iter_mut().find(|(o, _)| o == out) {
            Some((_, read)) => read.push(column),
            None => rewrites.push((out.clone(), vec![column])),
        }
    }
    rewrites
        .into_iter()
        .filter(|(out, read)| !(read.len() == 1 && read[0] == out))
        .map(|(out, read)| match read.as_slice() {
            [one] => (out, (*one).to_string()),
            many => (out, format!("ROW({})", many.join(", "))),
        })
        .collect()
}

/// `text` as read from inside the input: each output column replaced by the input's.
pub fn rewrite(text: &str, rewrites: &[Vec<(String, String)>]) -> String {
    let mut text = text.to_string();
    for level in rewrites {
        for (from, to) in level {
            if text.contains(from.as_str()) {
                text = text.replace(from.as_str(), to);
            }
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::{column_rewrites, rewrite};

    #[test]
    fn an_output_column_reads_as_the_inputs_column() {
        let output = vec![
            "UNION(0, orders.id)".to_string(),
            "UNION(NULL, x.k)".to_string(),
        ];
        let left = vec!["orders.id".to_string(), "NULL".to_string()];
        let rewrites = vec![column_rewrites(&output, &left)];
        assert_eq!(
            rewrite("UNION(NULL, x.k) + UNION(0, orders.id)", &rewrites),
            "NULL + orders.id"
        );
        let right = vec!["0".to_string(), "x.k".to_string()];
        assert_eq!(
            rewrite("UNION(NULL, x.k) > 1", &[column_rewrites(&output, &right)]),
            "x.k > 1"
        );
    }

    #[test]
    fn output_columns_written_alike_read_every_input_column() {
        let output = vec!["UNION(0, 0)".to_string(), "UNION(0, 0)".to_string()];
        let left = vec!["0".to_string(), "t.a".to_string()];
        let rewrites = vec![column_rewrites(&output, &left)];
        assert_eq!(rewrite("UNION(0, 0)", &rewrites), "ROW(0, t.a)");
    }

    #[test]
    fn an_inner_set_operation_is_read_through_the_outer() {
        let outer = column_rewrites(
            &["UNION(a.k, b.k, c.k)".to_string()],
            &["UNION(a.k, b.k)".to_string()],
        );
        let inner = column_rewrites(&["UNION(a.k, b.k)".to_string()], &["b.k".to_string()]);
        assert_eq!(
            rewrite("UNION(a.k, b.k, c.k) = 1", &[outer, inner]),
            "b.k = 1"
        );
    }
}
