//! Canonical expressions: lineage over source columns, rendered the same way whatever the
//! spelling of the SQL (aliases inlined, function names uppercased, intervals in milliseconds).

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CExpr {
    /// A column of a source table (a computed column is inlined as its expression).
    Column {
        table: String,
        column: String,
    },
    /// Every column of a table whose columns are not declared (`SELECT *` on a bare table).
    AllColumns {
        table: String,
    },
    /// A value produced by an upstream stateful operator, described canonically.
    Derived(String),
    Literal(String),
    /// A day-time interval in milliseconds, or a year-month interval in months.
    Interval {
        millis: i128,
        months: i128,
    },
    Call {
        name: String,
        args: Vec<CExpr>,
    },
    /// `l op r` for arithmetic, comparison and logic operators.
    Binary {
        op: String,
        left: Box<CExpr>,
        right: Box<CExpr>,
    },
    Unary {
        op: String,
        operand: Box<CExpr>,
    },
    /// A construct kept as text, its column references replaced by `$n` and resolved in `args`.
    Opaque {
        text: String,
        args: Vec<CExpr>,
    },
}

/// `a IS NOT DISTINCT FROM b` of two columns, as the converter keeps it (`Converter::opaque`).
const NULL_SAFE_EQUALITY: &str = "$$0 IS NOT DISTINCT FROM $$1";

impl CExpr {
    pub fn column(table: &str, column: &str) -> CExpr {
        CExpr::Column {
            table: table.to_string(),
            column: column.to_string(),
        }
    }

    pub fn call(name: &str, args: Vec<CExpr>) -> CExpr {
        CExpr::Call {
            name: name.to_uppercase(),
            args,
        }
    }

    /// The two sides of an equality Flink keys a join by: `a = b`, or the null-safe `a IS NOT
    /// DISTINCT FROM b` (kept as written text; Flink's join spec holds it as a key that does not
    /// filter nulls).
    pub fn equality_sides(&self) -> Option<(&CExpr, &CExpr)> {
        match self {
            CExpr::Binary { op, left, right } if op == "=" => Some((left, right)),
            CExpr::Opaque { text, args } if text == NULL_SAFE_EQUALITY => match args.as_slice() {
                [left, right] => Some((left, right)),
                _ => None,
            },
            _ => None,
        }
    }

    /// The canonical text: equal texts mean equal computations.
    pub fn canonical(&self) -> String {
        let mut out = String::new();
        self.write_canonical(&mut out);
        out
    }

    /// [`CExpr::canonical`], written at the end of `out`.
    pub fn write_canonical(&self, out: &mut String) {
        self.write(out, true);
    }

    /// The text shown to users: columns without their table when `qualify` is false.
    pub fn display(&self, qualify: bool) -> String {
        let mut out = String::new();
        self.write(&mut out, qualify);
        out
    }

    pub fn as_column(&self) -> Option<(&str, &str)> {
        match self {
            CExpr::Column { table, column } => Some((table, column)),
            _ => None,
        }
    }

    /// The expressions directly beneath this one.
    pub fn children(&self) -> Vec<&CExpr> {
        match self {
            CExpr::Call { args, .. } | CExpr::Opaque { args, .. } => args.iter().collect(),
            CExpr::Binary { left, right, .. } => vec![left, right],
            CExpr::Unary { operand, .. } => vec![operand],
            CExpr::Column { .. }
            | CExpr::AllColumns { .. }
            | CExpr::Derived(_)
            | CExpr::Literal(_)
            | CExpr::Interval { .. } => Vec::new(),
        }
    }

    /// Whether the expression reads nothing of a row: literals, intervals and calls or
    /// operators over them only (`CAST(0 AS BIGINT)`, `'x' || 'y'`). Flink computes such a
    /// value in the projection after an operator, never in the rows the operator keeps.
    pub fn is_row_free(&self) -> bool {
        match self {
            CExpr::Literal(_) | CExpr::Interval { .. } => true,
            CExpr::Call { .. } | CExpr::Binary { .. } | CExpr::Unary { .. } => {
                self.children().into_iter().all(CExpr::is_row_free)
            }
            CExpr::Column { .. }
            | CExpr::AllColumns { .. }
            | CExpr::Derived(_)
            | CExpr::Opaque { .. } => false,
        }
    }

    /// Whether Flink's planner reduces the expression to a literal: it reads nothing of a row
    /// and calls only built-in functions that are not dynamic (`'web'`, `CAST(1 AS INT) + 1`,
    /// `UPPER('a')`; not `NOW()` or `RAND()`, nor a user function).
    pub fn is_constant(&self) -> bool {
        let foldable = match self {
            CExpr::Literal(_) | CExpr::Interval { .. } => return true,
            CExpr::Call { name, .. } => super::functions::folds_to_constant(name),
            CExpr::Binary { .. } | CExpr::Unary { .. } => true,
            CExpr::Column { .. }
            | CExpr::AllColumns { .. }
            | CExpr::Derived(_)
            | CExpr::Opaque { .. } => false,
        };
        foldable && self.children().into_iter().all(CExpr::is_constant)
    }

    /// The expression with every occurrence of `from` replaced by `to`.
    pub fn replaced(&self, from: &CExpr, to: &CExpr) -> CExpr {
        if self == from {
            return to.clone();
        }
        let mut out = self.clone();
        match &mut out {
            CExpr::Call { args, .. } | CExpr::Opaque { args, .. } => {
                for arg in args.iter_mut() {
                    *arg = arg.replaced(from, to);
                }
            }
            CExpr::Binary { left, right, .. } => {
                **left = left.replaced(from, to);
                **right = right.replaced(from, to);
            }
            CExpr::Unary { operand, .. } => **operand = operand.replaced(from, to),
            CExpr::Column { .. }
            | CExpr::AllColumns { .. }
            | CExpr::Derived(_)
            | CExpr::Literal(_)
            | CExpr::Interval { .. } => {}
        }
        out
    }

    /// The source columns the expression reads: (table instance, column).
    pub fn source_columns(&self, out: &mut Vec<(String, String)>) {
        match self {
            CExpr::Column { table, column } => out.push((table.clone(), column.clone())),
            other => other
                .children()
                .into_iter()
                .for_each(|c| c.source_columns(out)),
        }
    }

    /// Whether this expression is or contains `part`.
    pub fn contains(&self, part: &CExpr) -> bool {
        self == part || self.children().into_iter().any(|c| c.contains(part))
    }

    /// The conjunction of `terms`, in their order (`a AND b AND c`, not normalized); none for
    /// no term.
    pub fn all_of(terms: impl IntoIterator<Item = CExpr>) -> Option<CExpr> {
        terms.into_iter().reduce(|left, right| CExpr::Binary {
            op: "AND".into(),
            left: Box::new(left),
            right: Box::new(right),
        })
    }

    /// Splits a conjunction into its terms.
    pub fn conjuncts(self) -> Vec<CExpr> {
        match self {
            CExpr::Binary { op, left, right } if op == "AND" => {
                let mut terms = left.conjuncts();
                terms.extend(right.conjuncts());
                terms
            }
            other => vec![other],
        }
    }

    fn write(&self, out: &mut String, qualify: bool) {
        match self {
            CExpr::Column { table, column } => {
                if qualify {
                    write_ident(out, table);
                    out.push('.');
                }
                write_ident(out, column);
            }
            CExpr::AllColumns { table } => {
                write_ident(out, table);
                out.push_str(".*");
            }
            CExpr::Derived(text) | CExpr::Literal(text) => out.push_str(text),
            CExpr::Interval { millis, months } => out.push_str(&interval_text(*millis, *months)),
            CExpr::Call { name, args } => {
                out.push_str(name);
                out.push('(');
                for (i, arg) in args.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    arg.write(out, qualify);
                }
                out.push(')');
            }
            CExpr::Binary { op, left, right } => {
                write_operand(left, out, qualify);
                out.push(' ');
                out.push_str(op);
                out.push(' ');
                write_operand(right, out, qualify);
            }
            CExpr::Unary { op, operand } => {
                out.push_str(op);
                if op.chars().all(char::is_alphabetic) {
                    out.push(' ');
                }
                write_operand(operand, out, qualify);
            }
            CExpr::Opaque { text, args } => {
                let mut rest = text.as_str();
                while let Some(at) = rest.find("$$") {
                    out.push_str(&rest[..at]);
                    let after = &rest[at + 2..];
                    let digits: String = after.chars().take_while(|c| c.is_ascii_digit()).collect();
                    match digits.parse::<usize>().ok().and_then(|i| args.get(i)) {
                        Some(arg) => arg.write(out, qualify),
                        None => out.push_str("$$"),
                    }
                    rest = &after[digits.len()..];
                }
                out.push_str(rest);
            }
        }
    }
}

fn write_operand(expr: &CExpr, out: &mut String, qualify: bool) {
    if matches!(expr, CExpr::Binary { .. }) {
        out.push('(');
        expr.write(out, qualify);
        out.push(')');
    } else {
        expr.write(out, qualify);
    }
}

/// An identifier as written in canonical text: as it is when it is a plain word, else quoted
/// in backticks (a backtick in it doubled).
fn write_ident(out: &mut String, name: &str) {
    let plain = if name.is_ascii() {
        let bytes = name.as_bytes();
        bytes
            .first()
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
            && bytes
                .iter()
                .all(|c| c.is_ascii_alphanumeric() || *c == b'_')
    } else {
        name.chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_alphanumeric() || c == '_')
    };
    if plain {
        out.push_str(name);
    } else {
        out.push('`');
        out.push_str(&name.replace('`', "``"));
        out.push('`');
    }
}

/// `INTERVAL '1' MINUTE` style text in the largest unit that divides the value exactly.
pub fn interval_text(millis: i128, months: i128) -> String {
    if months != 0 {
        return if months % 12 == 0 {
            format!("INTERVAL '{}' YEAR", months / 12)
        } else {
            format!("INTERVAL '{months}' MONTH")
        };
    }
    const UNITS: [(i128, &str); 5] = [
        (86_400_000, "DAY"),
        (3_600_000, "HOUR"),
        (60_000, "MINUTE"),
        (1_000, "SECOND"),
        (1, "MILLISECOND"),
    ];
    for (size, unit) in UNITS {
        if millis % size == 0 {
            return format!("INTERVAL '{}' {unit}", millis / size);
        }
    }
    format!("INTERVAL '{millis}' MILLISECOND")
}

impl fmt::Display for CExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.canonical())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(c: &str) -> CExpr {
        CExpr::Column {
            table: "T".into(),
            column: c.into(),
        }
    }

    #[test]
    fn renders_nested_operators_unambiguously() {
        let sum = CExpr::Binary {
            op: "+".into(),
            left: Box::new(col("a")),
            right: Box::new(col("b")),
        };
        let product = CExpr::Binary {
            op: "*".into(),
            left: Box::new(sum),
            right: Box::new(col("c")),
        };
        assert_eq!(product.display(false), "(a + b) * c");
        assert_eq!(product.canonical(), "(T.a + T.b) * T.c");
    }

    #[test]
    fn intervals_use_the_largest_exact_unit() {
        assert_eq!(interval_text(60_000, 0), "INTERVAL '1' MINUTE");
        assert_eq!(interval_text(90_000, 0), "INTERVAL '90' SECOND");
        assert_eq!(interval_text(-6_000, 0), "INTERVAL '-6' SECOND");
        assert_eq!(interval_text(0, 24), "INTERVAL '2' YEAR");
    }

    #[test]
    fn opaque_text_substitutes_its_arguments() {
        let e = CExpr::Opaque {
            text: "JSON_VALUE($$0, '$.a')".into(),
            args: vec![col("c")],
        };
        assert_eq!(e.display(false), "JSON_VALUE(c, '$.a')");
    }
}
