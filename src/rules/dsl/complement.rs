//! Whether two predicates are each other's negation: the same conjuncts but one, and that one
//! negated (`a and b` / `a and not b`, `count(x) > 0` / `count(x) == 0`). Two rules of one
//! operator and change kind with such predicates are one idea written twice: a rule with
//! `variants:` writes it once.

use super::ast::{CompareOp, Expr, ExprKind};

/// The expression as canonical text: spans left out, every operand of `not`, `and` and `or`
/// in parentheses, a count compared with 0 as `!= 0` / `== 0` (a count is never negative).
fn canon(expr: &Expr) -> String {
    let join = |items: &[Expr], word: &str| {
        items
            .iter()
            .map(|e| format!("({})", canon(e)))
            .collect::<Vec<_>>()
            .join(word)
    };
    match &expr.kind {
        ExprKind::Null => "null".into(),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Number(n) => n.to_string(),
        ExprKind::String(s) => format!("{s:?}"),
        ExprKind::List(items) => format!("[{}]", join(items, ", ")),
        ExprKind::Path(path) => path.clone(),
        ExprKind::Call { function, args } => format!("{}({})", function.name(), join(args, ", ")),
        ExprKind::Not(operand) => format!("not ({})", canon(operand)),
        ExprKind::And(items) => join(items, " and "),
        ExprKind::Or(items) => join(items, " or "),
        ExprKind::Compare { op, left, right } => {
            let (left, right) = (canon(left), canon(right));
            let op = match op {
                CompareOp::Gt if is_count(&left) && right == "0" => CompareOp::Ne,
                CompareOp::Le if is_count(&left) && right == "0" => CompareOp::Eq,
                op => *op,
            };
            format!("{left} {} {right}", op.symbol())
        }
        ExprKind::Arith { first, rest } => {
            let mut out = canon(first);
            for (op, operand) in rest {
                out.push_str(&format!(" {} {}", op.symbol(), canon(operand)));
            }
            out
        }
    }
}

fn is_count(text: &str) -> bool {
    text.starts_with("count(")
}

/// The conjuncts of an expression (`and` flattened).
fn conjuncts<'e>(expr: &'e Expr, out: &mut Vec<&'e Expr>) {
    match &expr.kind {
        ExprKind::And(items) => items.iter().for_each(|e| conjuncts(e, out)),
        _ => out.push(expr),
    }
}

/// The negation of a conjunct as canonical text.
fn negation(expr: &Expr) -> String {
    let flipped = |op: &CompareOp| match op {
        CompareOp::Eq => Some(CompareOp::Ne),
        CompareOp::Ne => Some(CompareOp::Eq),
        CompareOp::Lt => Some(CompareOp::Ge),
        CompareOp::Ge => Some(CompareOp::Lt),
        CompareOp::Gt => Some(CompareOp::Le),
        CompareOp::Le => Some(CompareOp::Gt),
        CompareOp::In => None,
    };
    match &expr.kind {
        ExprKind::Not(operand) => canon(operand),
        ExprKind::Bool(b) => (!b).to_string(),
        ExprKind::Compare { op, left, right } => match flipped(op) {
            Some(op) => canon(&Expr {
                kind: ExprKind::Compare {
                    op,
                    left: left.clone(),
                    right: right.clone(),
                },
                span: expr.span,
            }),
            None => format!("not ({})", canon(expr)),
        },
        _ => format!("not ({})", canon(expr)),
    }
}

/// Whether `a` and `b` have the same conjuncts but one each, one the other's negation.
pub(super) fn complementary(a: &Expr, b: &Expr) -> bool {
    let (mut ca, mut cb) = (Vec::new(), Vec::new());
    conjuncts(a, &mut ca);
    conjuncts(b, &mut cb);
    let (ta, tb): (Vec<String>, Vec<String>) = (
        ca.iter().map(|c| canon(c)).collect(),
        cb.iter().map(|c| canon(c)).collect(),
    );
    let only = |texts: &[String], others: &[String]| -> Vec<usize> {
        (0..texts.len())
            .filter(|&i| !others.contains(&texts[i]))
            .collect()
    };
    match (only(&ta, &tb).as_slice(), only(&tb, &ta).as_slice()) {
        ([x], [y]) => negation(ca[*x]) == tb[*y] || negation(cb[*y]) == ta[*x],
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::complementary;
    use crate::rules::dsl::parser::parse_predicate;

    fn pair(a: &str, b: &str) -> bool {
        match (parse_predicate(a), parse_predicate(b)) {
            (Ok(a), Ok(b)) => complementary(&a, &b),
            _ => panic!("{a} / {b} do not parse"),
        }
    }

    #[test]
    fn predicates_negating_each_other_in_one_conjunct_are_complementary() {
        assert!(pair("a.b", "not a.b"));
        assert!(pair("x and old.k == new.k", "old.k != new.k and x"));
        assert!(pair(
            "count(k.added) > 0 and y",
            "y and count(k.added) == 0"
        ));
        assert!(pair("x and (p or q)", "not (p or q) and x"));
        assert!(pair("old.n < 3", "old.n >= 3"));
        assert!(!pair("x and y", "x and not z"));
        assert!(!pair("x and y", "not x and not y"));
        assert!(!pair("x", "x"));
        assert!(!pair("contains(l, 'a')", "contains(l, 'b')"));
    }
}
