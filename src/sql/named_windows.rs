//! `OVER w` with `WINDOW w AS (...)` is `OVER (...)`: Flink plans a reference to a named window
//! as the window written inline (plan lab: cases/over_aggregate/named-window-*). Plain references
//! are inlined once, after parsing, so that every reader of the query, also one comparing it as
//! text (an OVER aggregate inside an expression, compared as a whole), sees one spelling; a
//! SELECT whose references are all inlined loses its WINDOW clause. A window that refines
//! another (`OVER (w ORDER BY ts)`, `WINDOW w2 AS (w1 ...)`) is left to the planner
//! (`plan::over::resolve_window`), which resolves it as Flink's validator does.

use sqlparser::ast::{
    Expr, NamedWindowDefinition, NamedWindowExpr, Query, Select, SetExpr, VisitMut, VisitorMut,
    WindowSpec, WindowType,
};
use std::ops::ControlFlow;

/// Inlines the plain named-window references of every SELECT of `query`.
pub fn inline(query: &mut Query) {
    struct Queries;
    impl VisitorMut for Queries {
        type Break = ();
        fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
            inline_set(&mut query.body);
            ControlFlow::Continue(())
        }
    }
    let _ = query.visit(&mut Queries);
}

fn inline_set(body: &mut SetExpr) {
    match body {
        SetExpr::Select(select) => inline_select(select),
        SetExpr::SetOperation { left, right, .. } => {
            inline_set(left);
            inline_set(right);
        }
        _ => {}
    }
}

/// The definition `name` stands for when it is a window written out (following `w AS v`
/// aliases); none for a refinement or an unknown name.
fn plain(named: &[NamedWindowDefinition], name: &str) -> Option<WindowSpec> {
    let mut current = name.to_string();
    for _ in 0..=named.len() {
        let NamedWindowDefinition(_, expr) = named.iter().find(|d| d.0.value == current)?;
        match expr {
            NamedWindowExpr::WindowSpec(spec) if spec.window_name.is_none() => {
                return Some(spec.clone())
            }
            NamedWindowExpr::WindowSpec(_) => return None,
            NamedWindowExpr::NamedWindow(next) => current = next.value.clone(),
        }
    }
    None
}

fn inline_select(select: &mut Select) {
    if select.named_window.is_empty() {
        return;
    }
    /// Rewrites the OVER clauses of this SELECT's own expressions (not those of subqueries,
    /// which have WINDOW clauses of their own).
    struct Calls<'n> {
        named: &'n [NamedWindowDefinition],
        depth: usize,
        left: usize,
    }
    impl VisitorMut for Calls<'_> {
        type Break = ();
        fn pre_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
            self.depth += 1;
            ControlFlow::Continue(())
        }
        fn post_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
            self.depth -= 1;
            ControlFlow::Continue(())
        }
        fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
            if self.depth > 0 {
                return ControlFlow::Continue(());
            }
            if let Expr::Function(f) = expr {
                match &f.over {
                    Some(WindowType::NamedWindow(name)) => match plain(self.named, &name.value) {
                        Some(spec) => f.over = Some(WindowType::WindowSpec(spec)),
                        None => self.left += 1,
                    },
                    Some(WindowType::WindowSpec(spec)) if spec.window_name.is_some() => {
                        self.left += 1
                    }
                    _ => {}
                }
            }
            ControlFlow::Continue(())
        }
    }
    let named = std::mem::take(&mut select.named_window);
    let mut calls = Calls {
        named: &named,
        depth: 0,
        left: 0,
    };
    let _ = select.projection.visit(&mut calls);
    let _ = select.selection.visit(&mut calls);
    let _ = select.having.visit(&mut calls);
    let _ = select.qualify.visit(&mut calls);
    let left = calls.left;
    if left > 0 {
        select.named_window = named;
    }
}

#[cfg(test)]
mod tests {
    use crate::sql::dialect::FlinkDialect;
    use sqlparser::parser::Parser;

    fn inlined(sql: &str) -> String {
        let mut query = Parser::new(&FlinkDialect)
            .try_with_sql(sql)
            .and_then(|mut p| p.parse_query())
            .expect("parses");
        super::inline(&mut query);
        query.to_string()
    }

    #[test]
    fn plain_references_are_the_window_written_out() {
        assert_eq!(
            inlined("SELECT COUNT(*) OVER w > 3 FROM t WINDOW w AS (PARTITION BY k ORDER BY ts)"),
            "SELECT COUNT(*) OVER (PARTITION BY k ORDER BY ts) > 3 FROM t"
        );
        // A refinement stays for the planner, with the WINDOW clause it reads.
        assert_eq!(
            inlined("SELECT COUNT(*) OVER (w ORDER BY ts) FROM t WINDOW w AS (PARTITION BY k)"),
            "SELECT COUNT(*) OVER (w ORDER BY ts) FROM t WINDOW w AS (PARTITION BY k)"
        );
    }
}
