//! The syntax tree of a predicate.
//!
//! Chains of `or`, `and` and `+`/`-` are kept flat (one node with many
//! operands) so that the tree is only as deep as the source's nesting, which
//! the parser caps.

use super::Span;

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum ExprKind {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    List(Vec<Expr>),
    /// A dotted fact path such as `old.window.kind`.
    Path(String),
    Call {
        function: Function,
        args: Vec<Expr>,
    },
    Not(Box<Expr>),
    /// Two or more operands.
    And(Vec<Expr>),
    /// Two or more operands.
    Or(Vec<Expr>),
    Compare {
        op: CompareOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    /// `first op1 e1 op2 e2 ...`, evaluated left to right.
    Arith {
        first: Box<Expr>,
        rest: Vec<(ArithOp, Expr)>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CompareOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    In,
}

impl CompareOp {
    pub fn from_symbol(symbol: &str) -> Option<CompareOp> {
        Some(match symbol {
            "==" => CompareOp::Eq,
            "!=" => CompareOp::Ne,
            "<" => CompareOp::Lt,
            "<=" => CompareOp::Le,
            ">" => CompareOp::Gt,
            ">=" => CompareOp::Ge,
            "in" => CompareOp::In,
            _ => return None,
        })
    }

    pub fn symbol(self) -> &'static str {
        match self {
            CompareOp::Eq => "==",
            CompareOp::Ne => "!=",
            CompareOp::Lt => "<",
            CompareOp::Le => "<=",
            CompareOp::Gt => ">",
            CompareOp::Ge => ">=",
            CompareOp::In => "in",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ArithOp {
    Add,
    Sub,
}

impl ArithOp {
    pub fn from_symbol(symbol: &str) -> Option<ArithOp> {
        match symbol {
            "+" => Some(ArithOp::Add),
            "-" => Some(ArithOp::Sub),
            _ => None,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
        }
    }
}

/// The built-in functions; there are no others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Function {
    Count,
    Empty,
    Contains,
    SetEq,
    ListEq,
    Subset,
    Minus,
    Intersect,
    Lower,
    StartsWith,
}

impl Function {
    pub const ALL: [Function; 10] = [
        Function::Count,
        Function::Empty,
        Function::Contains,
        Function::SetEq,
        Function::ListEq,
        Function::Subset,
        Function::Minus,
        Function::Intersect,
        Function::Lower,
        Function::StartsWith,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Function::Count => "count",
            Function::Empty => "empty",
            Function::Contains => "contains",
            Function::SetEq => "set_eq",
            Function::ListEq => "list_eq",
            Function::Subset => "subset",
            Function::Minus => "minus",
            Function::Intersect => "intersect",
            Function::Lower => "lower",
            Function::StartsWith => "starts_with",
        }
    }

    pub fn from_name(name: &str) -> Option<Function> {
        Function::ALL
            .into_iter()
            .find(|function| function.name() == name)
    }
}

impl Expr {
    /// Appends the paths read by this expression, in source order, skipping
    /// those already in `out`.
    pub fn collect_paths(&self, out: &mut Vec<String>) {
        match &self.kind {
            ExprKind::Null | ExprKind::Bool(_) | ExprKind::Number(_) | ExprKind::String(_) => {}
            ExprKind::Path(path) => {
                if !out.contains(path) {
                    out.push(path.clone());
                }
            }
            ExprKind::List(items)
            | ExprKind::And(items)
            | ExprKind::Or(items)
            | ExprKind::Call { args: items, .. } => {
                items.iter().for_each(|item| item.collect_paths(out));
            }
            ExprKind::Not(operand) => operand.collect_paths(out),
            ExprKind::Compare { left, right, .. } => {
                left.collect_paths(out);
                right.collect_paths(out);
            }
            ExprKind::Arith { first, rest } => {
                first.collect_paths(out);
                rest.iter()
                    .for_each(|(_, operand)| operand.collect_paths(out));
            }
        }
    }
}
