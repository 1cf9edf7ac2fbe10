//! Function names as Flink resolves them: `` `UPPER`(x) `` is `UPPER(x)`. Flink looks a function
//! up by its name case-insensitively, quoted or not (plan oracle: `` `COUNT`(*) ``, `` `count`(DISTINCT
//! x) `` and `` `UPPER`(c) `` are planned as the built-ins), so the quotes of a plain name part
//! change nothing; they are dropped once, after parsing, for every reader of the query.

use sqlparser::ast::{Expr, ObjectNamePart, Query, VisitMut, VisitorMut};
use std::ops::ControlFlow;

/// A name part the quotes change nothing in: letters, digits and underscores, not starting
/// with a digit (a keyword is read as a function name before `(` as well).
fn plain(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Drops the backquotes around the plain parts of every function name called in `query`.
pub fn unquote(query: &mut Query) {
    struct Unquote;
    impl VisitorMut for Unquote {
        type Break = ();
        fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
            if let Expr::Function(function) = expr {
                for part in &mut function.name.0 {
                    if let ObjectNamePart::Identifier(ident) = part {
                        if ident.quote_style == Some('`') && plain(&ident.value) {
                            ident.quote_style = None;
                        }
                    }
                }
            }
            ControlFlow::Continue(())
        }
    }
    let _ = query.visit(&mut Unquote);
}

#[cfg(test)]
mod tests {
    use crate::sql::dialect::FlinkDialect;
    use sqlparser::parser::Parser;

    fn unquoted(sql: &str) -> String {
        let mut query = Parser::new(&FlinkDialect)
            .try_with_sql(sql)
            .and_then(|mut p| p.parse_query())
            .expect("parses");
        super::unquote(&mut query);
        query.to_string()
    }

    #[test]
    fn quoted_function_names_are_the_names() {
        assert_eq!(
            unquoted("SELECT `UPPER`(c), `count`(*), `my-f`(c), `a` FROM t"),
            "SELECT UPPER(c), count(*), `my-f`(c), `a` FROM t"
        );
    }
}
