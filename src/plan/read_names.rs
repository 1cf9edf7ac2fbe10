//! The names a query's texts read, gathered once: the passes that prune what nothing reads
//! (`join_prune`, `stored_columns`) ask, per column, whether any text above names it. Asking
//! each text in turn would cost the texts' length per column (cubic in a chain of joins);
//! the texts are split once into their names instead.

use super::prune::{names, QueryReads};
use foldhash::HashSet;

/// A character of a name, as `prune::names` reads it.
fn part_of_name(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '.' || c == '`'
}

/// The names read by a growing set of texts.
#[derive(Default)]
pub struct ReadNames {
    /// Every maximal run of name characters of the texts.
    tokens: HashSet<String>,
    /// The texts themselves, for a column whose canonical name is not one run of name
    /// characters (then `prune::names` is asked).
    texts: Vec<String>,
    /// Applied to each text added: the query as read from inside a set operation's input
    /// (`set_inputs::InputView`).
    rewrites: Vec<Vec<(String, String)>>,
}

impl ReadNames {
    /// The names the query reads above its stateful operators: its output and filters.
    pub fn of_query(reads: &QueryReads) -> ReadNames {
        let mut read = ReadNames::default();
        let mut text = String::new();
        for expr in &reads.exprs {
            text.clear();
            expr.write_canonical(&mut text);
            read.add(&text);
        }
        for text in &reads.filter_texts {
            read.add(text);
        }
        read
    }

    /// Names read through `rewrites` (see the field).
    pub fn rewriting(rewrites: Vec<Vec<(String, String)>>) -> ReadNames {
        ReadNames {
            rewrites,
            ..Default::default()
        }
    }

    /// Adds the names `text` reads (kept whole too when it is not one name, for `reads`).
    pub fn add(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        if !self.rewrites.is_empty() {
            let text = super::set_inputs::rewrite(text, &self.rewrites);
            let rewrites = std::mem::take(&mut self.rewrites);
            self.add(&text);
            self.rewrites = rewrites;
            return;
        }
        self.add_tokens(text);
        if !text.chars().all(part_of_name) {
            self.texts.push(text.to_string());
        }
    }

    fn add_tokens(&mut self, text: &str) {
        for token in text.split(|c: char| !part_of_name(c)) {
            if !token.is_empty() && !self.tokens.contains(token) {
                self.tokens.insert(token.to_string());
            }
        }
    }

    /// Whether a text read names `column` as a whole (as `prune::names`).
    pub fn reads(&self, column: &str) -> bool {
        if !column.is_empty() && column.chars().all(part_of_name) {
            return self.tokens.contains(column);
        }
        self.texts.iter().any(|t| names(t, column))
    }
}

/// The qualified column references of a canonical term (`orders.amount`, `t#2.k`), in order.
pub fn column_references(term: &str) -> impl Iterator<Item = &str> {
    term.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '#' | '`' | '$')))
        .filter(|token| token.contains('.') && !token.starts_with(|c: char| c.is_ascii_digit()))
}

/// Whether a canonical term reads columns, all of them of a table instance one of `prefixes`
/// (`orders.`) names.
pub fn reads_only(term: &str, prefixes: &[String]) -> bool {
    let mut columns = column_references(term).peekable();
    columns.peek().is_some() && columns.all(|c| prefixes.iter().any(|p| c.starts_with(p)))
}

#[cfg(test)]
mod tests {
    use super::{column_references, reads_only, ReadNames};

    #[test]
    fn a_name_is_read_as_a_whole() {
        let mut read = ReadNames::default();
        read.add(r#"{"keys":["orders.status"],"aggregates":["SUM(orders.amount)"]}"#);
        assert!(read.reads("orders.status"));
        assert!(read.reads("orders.amount"));
        assert!(!read.reads("orders.amoun"));
        assert!(!read.reads("status"));
        read.add("UPPER(t#2.x) + 1");
        assert!(read.reads("t#2.x"));
        assert!(!read.reads("t#2.y"));
    }

    #[test]
    fn an_operator_is_read_without_the_list_items_left_out() {
        use crate::facts::ranking::DeduplicateFacts;
        use crate::plan::{Operator, OperatorKind};
        let mut op = Operator::new(
            OperatorKind::Deduplicate,
            "stream-exec-deduplicate",
            crate::source::ByteSpan::default(),
        );
        op.put(&DeduplicateFacts {
            partition_keys: vec!["UPPER(t.b)".into()],
            value_fields: vec!["t.b".into(), "t.c".into(), "t.d".into()],
            ..Default::default()
        });
        let mut read = ReadNames::default();
        op.read_texts(&mut read, &[DeduplicateFacts::value_fields], |c| {
            c == "t.b" || c == "t.c"
        });
        // `t.b` is left out of the list but still read by the key; `t.c` only by the list.
        assert!(read.reads("t.b"));
        assert!(!read.reads("t.c"));
        assert!(read.reads("t.d"));
        let mut all = ReadNames::default();
        op.read_texts(&mut all, &[], |_| true);
        assert!(all.reads("t.c"));
    }

    #[test]
    fn a_term_reads_only_the_tables_it_names() {
        let prefixes = vec!["users.".to_string()];
        assert!(reads_only("users.level > 1", &prefixes));
        assert!(!reads_only("users.level > orders.qty", &prefixes));
        assert!(!reads_only("TRUE", &prefixes));
        assert_eq!(
            column_references("`t#2`.k = 1.5 AND t.c").collect::<Vec<_>>(),
            vec!["`t#2`.k", "t.c"]
        );
    }
}
