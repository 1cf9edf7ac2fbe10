//! Flink's data types, one spelling each: the type a DDL column or a CAST names, written as
//! Flink's `LogicalType#asSummaryString` writes it (checked with Flink 2.3's planner). Synonyms
//! and defaults Flink resolves are resolved: `INTEGER` is `INT`, `VARCHAR(2147483647)` and
//! `VARCHAR` are `STRING`, `VARBINARY(2147483647)` is `BYTES`, `DOUBLE PRECISION` is `DOUBLE`,
//! `NUMERIC(p, s)` and `DEC(p, s)` are `DECIMAL(p, s)` (`DECIMAL` is `DECIMAL(10, 0)`),
//! `CHARACTER VARYING(n)` is `VARCHAR(n)`, `CHAR` is `CHAR(1)`, `TIMESTAMP` is `TIMESTAMP(6)`
//! (`WITHOUT TIME ZONE` is the default), `TIMESTAMP(3) WITH LOCAL TIME ZONE` is
//! `TIMESTAMP_LTZ(3)`, `TIME` is `TIME(0)`, `INT ARRAY` is `ARRAY<INT>`, `ROW(a INT)` is
//! `ROW<`a` INT>` (a field's description is not part of it), `x NULL` is `x`. Different types
//! stay different: a field name keeps its case, nullability inside a composite type counts.
//! A type the tool does not know is kept as written (whitespace and keyword case aside), so
//! spellings it does not resolve compare as different (the safe side).

/// Flink's `VARCHAR` / `VARBINARY` length when none is given (`STRING`, `BYTES`).
const MAX_LENGTH: u64 = 2_147_483_647;

/// The canonical spelling of a Flink type written as `text`.
pub fn canonical_type(text: &str) -> String {
    let tokens = tokenize(text);
    let mut parser = TypeParser { tokens, at: 0 };
    match parser.full_type() {
        Some(t) if parser.at == parser.tokens.len() => t,
        _ => as_written(text),
    }
}

/// The text with its whitespace collapsed and uppercased outside quotes: the spelling of a type
/// the tool does not resolve.
fn as_written(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    words.join(" ").to_uppercase()
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    /// An unquoted word, uppercased.
    Word(String),
    /// An unquoted word as written (a field name keeps its case).
    Quoted(String),
    Number(u64),
    /// A string literal (a field's description, a RAW type's class).
    Text(String),
    Symbol(char),
}

fn tokenize(text: &str) -> Vec<Tok> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            tokens.push(Tok::Word(word));
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let digits: String = chars[start..i].iter().collect();
            match digits.parse() {
                Ok(n) => tokens.push(Tok::Number(n)),
                Err(_) => tokens.push(Tok::Text(digits)),
            }
        } else if c == '`' || c == '"' || c == '\'' {
            // Quoted: a doubled quote is the quote itself.
            let mut value = String::new();
            i += 1;
            loop {
                match chars.get(i) {
                    None => break,
                    Some(&q) if q == c && chars.get(i + 1) == Some(&c) => {
                        value.push(c);
                        i += 2;
                    }
                    Some(&q) if q == c => {
                        i += 1;
                        break;
                    }
                    Some(&other) => {
                        value.push(other);
                        i += 1;
                    }
                }
            }
            tokens.push(if c == '\'' {
                Tok::Text(value)
            } else {
                Tok::Quoted(value)
            });
        } else {
            tokens.push(Tok::Symbol(c));
            i += 1;
        }
    }
    tokens
}

struct TypeParser {
    tokens: Vec<Tok>,
    at: usize,
}

impl TypeParser {
    fn peek_word(&self, ahead: usize) -> Option<String> {
        match self.tokens.get(self.at + ahead) {
            Some(Tok::Word(w)) => Some(w.to_uppercase()),
            _ => None,
        }
    }

    fn word(&mut self, expected: &str) -> bool {
        let found = self.peek_word(0).is_some_and(|w| w == expected);
        if found {
            self.at += 1;
        }
        found
    }

    fn words(&mut self, expected: &[&str]) -> bool {
        let found = expected
            .iter()
            .enumerate()
            .all(|(i, e)| self.peek_word(i).is_some_and(|w| w == *e));
        if found {
            self.at += expected.len();
        }
        found
    }

    fn symbol(&mut self, c: char) -> bool {
        let found = self.tokens.get(self.at) == Some(&Tok::Symbol(c));
        if found {
            self.at += 1;
        }
        found
    }

    fn number(&mut self) -> Option<u64> {
        match self.tokens.get(self.at) {
            Some(Tok::Number(n)) => {
                let n = *n;
                self.at += 1;
                Some(n)
            }
            _ => None,
        }
    }

    /// `(n)`, if written.
    fn one_argument(&mut self) -> Option<Option<u64>> {
        if !self.symbol('(') {
            return Some(None);
        }
        let n = self.number()?;
        self.symbol(')').then_some(Some(n))
    }

    /// `(p)` or `(p, s)`, if written.
    fn two_arguments(&mut self) -> Option<(Option<u64>, Option<u64>)> {
        if !self.symbol('(') {
            return Some((None, None));
        }
        let p = self.number()?;
        let s = if self.symbol(',') {
            Some(self.number()?)
        } else {
            None
        };
        self.symbol(')').then_some((Some(p), s))
    }

    /// A type with its suffixes (`ARRAY`, `MULTISET`) and nullability, as written inside a
    /// composite type or as a whole.
    fn full_type(&mut self) -> Option<String> {
        let mut t = self.base_type()?;
        loop {
            if self.word("ARRAY") {
                t = format!("ARRAY<{t}>");
            } else if self.word("MULTISET") {
                t = format!("MULTISET<{t}>");
            } else {
                break;
            }
        }
        if self.words(&["NOT", "NULL"]) {
            t.push_str(" NOT NULL");
        } else {
            let _ = self.word("NULL");
        }
        Some(t)
    }

    fn base_type(&mut self) -> Option<String> {
        let word = self.peek_word(0)?;
        self.at += 1;
        Some(match word.as_str() {
            "BOOLEAN" | "TINYINT" | "SMALLINT" | "BIGINT" | "FLOAT" | "DATE" | "VARIANT" => word,
            "INT" | "INTEGER" => "INT".into(),
            "DOUBLE" => {
                let _ = self.word("PRECISION");
                "DOUBLE".into()
            }
            "DECIMAL" | "DEC" | "NUMERIC" => {
                let (p, s) = self.two_arguments()?;
                format!("DECIMAL({}, {})", p.unwrap_or(10), s.unwrap_or(0))
            }
            "CHAR" | "CHARACTER" => {
                if self.word("VARYING") {
                    varchar(self.one_argument()?)
                } else {
                    format!("CHAR({})", self.one_argument()?.unwrap_or(1))
                }
            }
            "VARCHAR" => varchar(self.one_argument()?),
            "STRING" => varchar(None),
            "BINARY" => {
                if self.word("VARYING") {
                    varbinary(self.one_argument()?)
                } else {
                    format!("BINARY({})", self.one_argument()?.unwrap_or(1))
                }
            }
            "VARBINARY" => varbinary(self.one_argument()?),
            "BYTES" => varbinary(None),
            "TIME" => {
                let p = self.one_argument()?.unwrap_or(0);
                let _ = self.words(&["WITHOUT", "TIME", "ZONE"]);
                format!("TIME({p})")
            }
            "TIMESTAMP" => {
                let p = self.one_argument()?.unwrap_or(6);
                if self.words(&["WITH", "LOCAL", "TIME", "ZONE"]) {
                    format!("TIMESTAMP_LTZ({p})")
                } else if self.words(&["WITH", "TIME", "ZONE"]) {
                    // Not supported by Flink: kept apart from the other timestamps.
                    format!("TIMESTAMP({p}) WITH TIME ZONE")
                } else {
                    let _ = self.words(&["WITHOUT", "TIME", "ZONE"]);
                    format!("TIMESTAMP({p})")
                }
            }
            "TIMESTAMP_LTZ" => format!("TIMESTAMP_LTZ({})", self.one_argument()?.unwrap_or(6)),
            "ARRAY" | "MULTISET" => {
                let element = self.bracketed(|p| p.full_type())?;
                format!("{word}<{element}>")
            }
            "MAP" => {
                let (key, value) = self.bracketed(|p| {
                    let key = p.full_type()?;
                    p.symbol(',').then_some(())?;
                    Some((key, p.full_type()?))
                })?;
                format!("MAP<{key}, {value}>")
            }
            // sqlparser's spelling of Flink's row type (see `flink_syntax`).
            "ROW" | "STRUCT" => {
                let fields = self.bracketed(|p| {
                    let mut fields = Vec::new();
                    if p.tokens.get(p.at) == Some(&Tok::Symbol('>'))
                        || p.tokens.get(p.at) == Some(&Tok::Symbol(')'))
                    {
                        return Some(fields);
                    }
                    loop {
                        fields.push(p.field()?);
                        if !p.symbol(',') {
                            return Some(fields);
                        }
                    }
                })?;
                format!("ROW<{}>", fields.join(", "))
            }
            _ => return None,
        })
    }

    /// `<...>` or `(...)` around what `inner` reads.
    fn bracketed<T>(&mut self, inner: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        let close = if self.symbol('<') {
            '>'
        } else if self.symbol('(') {
            ')'
        } else {
            return None;
        };
        let value = inner(self)?;
        self.symbol(close).then_some(value)
    }

    /// A row field: its name (case kept), its type; a description is not part of the type.
    fn field(&mut self) -> Option<String> {
        let name = match self.tokens.get(self.at)? {
            Tok::Word(w) | Tok::Quoted(w) => w.clone(),
            _ => return None,
        };
        self.at += 1;
        let t = self.full_type()?;
        if let Some(Tok::Text(_)) = self.tokens.get(self.at) {
            self.at += 1;
        }
        Some(format!("`{}` {t}", name.replace('`', "``")))
    }
}

fn varchar(length: Option<u64>) -> String {
    match length.unwrap_or(MAX_LENGTH) {
        MAX_LENGTH => "STRING".into(),
        n => format!("VARCHAR({n})"),
    }
}

fn varbinary(length: Option<u64>) -> String {
    match length.unwrap_or(MAX_LENGTH) {
        MAX_LENGTH => "BYTES".into(),
        n => format!("VARBINARY({n})"),
    }
}

#[cfg(test)]
mod tests {
    use super::canonical_type as c;

    /// Each pair is one type in Flink 2.3 (`LogicalType#asSummaryString` of the column).
    #[test]
    fn spellings_of_one_type_are_equal() {
        for (a, b) in [
            ("VARCHAR(2147483647)", "STRING"),
            ("varchar", "STRING"),
            ("INTEGER", "INT"),
            ("DOUBLE PRECISION", "DOUBLE"),
            ("NUMERIC(10,2)", "DECIMAL(10, 2)"),
            ("DEC(10, 2)", "DECIMAL(10,2)"),
            ("DECIMAL", "DECIMAL(10, 0)"),
            ("DECIMAL(5)", "DECIMAL(5, 0)"),
            ("BYTES", "VARBINARY(2147483647)"),
            ("VARBINARY", "BYTES"),
            ("CHARACTER VARYING(20)", "VARCHAR(20)"),
            ("CHAR VARYING(20)", "VARCHAR(20)"),
            ("CHARACTER(3)", "CHAR(3)"),
            ("TIMESTAMP", "TIMESTAMP(6)"),
            ("TIMESTAMP WITHOUT TIME ZONE", "TIMESTAMP"),
            ("TIMESTAMP(3) WITHOUT TIME ZONE", "TIMESTAMP(3)"),
            ("TIMESTAMP_LTZ(3)", "TIMESTAMP(3) WITH LOCAL TIME ZONE"),
            ("TIMESTAMP_LTZ", "TIMESTAMP WITH LOCAL TIME ZONE"),
            ("TIME", "TIME(0)"),
            ("TIME WITHOUT TIME ZONE", "TIME(0)"),
            ("CHAR", "CHAR(1)"),
            ("BINARY", "BINARY(1)"),
            ("ARRAY<INT>", "INT ARRAY"),
            ("BIGINT ARRAY ARRAY", "ARRAY<ARRAY<BIGINT>>"),
            ("MULTISET<INT>", "INT MULTISET"),
            ("ROW<a INT>", "ROW(a INT)"),
            ("ROW<a INT, b STRING>", "ROW(`a` INT, b VARCHAR)"),
            ("ROW<a INT 'the a'>", "ROW<a INT>"),
            ("STRUCT<a INT>", "ROW<a INT>"),
            ("MAP<STRING, INT>", "MAP<VARCHAR(2147483647), INTEGER>"),
            ("MAP(STRING, INT)", "MAP<STRING, INT>"),
            ("ARRAY<INT NULL>", "ARRAY<INT>"),
            (
                "ROW<a INT, b ROW<c STRING>>",
                "ROW(a INTEGER, b ROW(c STRING))",
            ),
        ] {
            assert_eq!(c(a), c(b), "{a} vs {b}");
        }
        assert_eq!(c("varchar(2147483647)"), "STRING");
        assert_eq!(c("TIMESTAMP(3) WITH LOCAL TIME ZONE"), "TIMESTAMP_LTZ(3)");
        assert_eq!(c("ROW(a INT, b STRING)"), "ROW<`a` INT, `b` STRING>");
        assert_eq!(c("NUMERIC(10,2)"), "DECIMAL(10, 2)");
    }

    #[test]
    fn different_types_stay_different() {
        for (a, b) in [
            ("VARCHAR(20)", "STRING"),
            ("CHAR(1)", "VARCHAR(1)"),
            ("DECIMAL(10, 2)", "DECIMAL(10, 0)"),
            ("DECIMAL", "DECIMAL(38, 0)"),
            ("TIMESTAMP(3)", "TIMESTAMP"),
            ("TIMESTAMP(3)", "TIMESTAMP_LTZ(3)"),
            ("TIME(3)", "TIME"),
            ("FLOAT", "DOUBLE"),
            ("FLOAT", "REAL"),
            ("INT", "BIGINT"),
            ("BINARY(1)", "VARBINARY(1)"),
            ("ARRAY<INT>", "ARRAY<INT NOT NULL>"),
            ("ARRAY<INT>", "MULTISET<INT>"),
            ("ROW<a INT>", "ROW<A INT>"),
            ("ROW<a INT>", "ROW<b INT>"),
            ("ROW<a INT, b INT>", "ROW<b INT, a INT>"),
            ("MAP<STRING, INT>", "MAP<INT, STRING>"),
            ("INTERVAL DAY", "INTERVAL SECOND"),
        ] {
            assert_ne!(c(a), c(b), "{a} vs {b}");
        }
    }

    #[test]
    fn unknown_types_are_kept_as_written() {
        assert_eq!(c("interval   day"), "INTERVAL DAY");
        assert_eq!(
            c("RAW('java.lang.String', 'abc')"),
            "RAW('JAVA.LANG.STRING', 'ABC')"
        );
        assert_eq!(c("my_type"), "MY_TYPE");
        assert_eq!(c("DECIMAL(10"), "DECIMAL(10");
    }
}
