//! Rewrites that spell the same job another way (issue 14): names qualified with their catalog
//! and database (or found through `USE`), identifiers quoted, predicates written in a form
//! Flink's optimizer plans alike, an unused CTE, the query moved into a subquery, a CTE or a
//! view. Each works on sqlparser's tokens, one statement at a time.

use super::Tokens;
use flink_compat::source::SourceFile;
use flink_compat::sql::split::split;
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::Token;
use std::collections::BTreeSet;

/// The statements of a script, each rewritten by `f` (given its text and leading words).
fn per_statement(sql: &str, f: impl Fn(&str, &[String]) -> String) -> String {
    let file = SourceFile::new("script.sql", sql.to_string());
    let statements = split(&file).expect("a corpus script splits");
    statements
        .iter()
        .map(|raw| {
            let words = raw.leading_words(6);
            format!("{};\n", f(file.slice(raw.span), &words))
        })
        .collect()
}

fn is_word(token: &Token, keyword: Keyword) -> bool {
    matches!(token, Token::Word(w) if w.keyword == keyword && w.quote_style.is_none())
}

/// The names a statement defines as CTEs (`WITH name AS (`, `, name (cols) AS (`): a
/// qualified name never means a CTE, so they keep their spelling.
fn cte_names(sql: &str) -> BTreeSet<String> {
    let tokens = Tokens::of(sql);
    let mut out = BTreeSet::new();
    for (i, (token, _)) in tokens.items.iter().enumerate() {
        let Token::Word(w) = token else { continue };
        let Some(next) = tokens.next_significant(i) else {
            continue;
        };
        let after = tokens.next_significant(next);
        let defines = is_word(&tokens.items[next].0, Keyword::AS)
            && after.is_some_and(|a| tokens.items[a].0 == Token::LParen);
        let previous = tokens.previous_significant(i).map(|p| &tokens.items[p].0);
        let in_with =
            matches!(previous, Some(t) if is_word(t, Keyword::WITH) || *t == Token::Comma);
        if defines && in_with {
            out.insert(w.value.clone());
        }
    }
    out
}

/// The words after a comma of a FROM list (`FROM a, b`): the later tables of the list.
fn from_list_items(tokens: &Tokens) -> BTreeSet<usize> {
    let ends = [
        Keyword::WHERE,
        Keyword::GROUP,
        Keyword::HAVING,
        Keyword::ORDER,
        Keyword::LIMIT,
        Keyword::UNION,
        Keyword::WINDOW,
        Keyword::ON,
        Keyword::JOIN,
        Keyword::EXCEPT,
        Keyword::INTERSECT,
    ];
    let mut out = BTreeSet::new();
    let mut depth = 0i32;
    let mut from_depth: Option<i32> = None;
    for (i, (token, _)) in tokens.items.iter().enumerate() {
        match token {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth -= 1;
                if from_depth.is_some_and(|d| depth < d) {
                    from_depth = None;
                }
            }
            // `METADATA FROM 'key'` names a metadata key, not a FROM list.
            Token::Word(w)
                if w.quote_style.is_none()
                    && w.keyword == Keyword::FROM
                    && !matches!(
                        tokens.next_significant(i).map(|n| &tokens.items[n].0),
                        Some(Token::SingleQuotedString(_))
                    ) =>
            {
                from_depth = Some(depth);
            }
            Token::Word(w)
                if w.quote_style.is_none()
                    && ends.contains(&w.keyword)
                    && from_depth == Some(depth) =>
            {
                from_depth = None;
            }
            Token::Word(_) if from_depth == Some(depth) => {
                let previous = tokens.previous_significant(i).map(|p| &tokens.items[p].0);
                if previous == Some(&Token::Comma) {
                    out.insert(i);
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether the script switches catalogs or databases: a fixed qualification would then mean
/// other tables.
pub fn uses_catalogs(sql: &str) -> bool {
    per_statement(sql, |_, words| {
        if words.first().is_some_and(|w| w == "USE") {
            "USE".into()
        } else {
            String::new()
        }
    })
    .contains("USE")
}

/// Qualifies every table and view name (after FROM, JOIN, INTO, OVERWRITE, TABLE, VIEW; a LIKE base) with
/// `prefix` (`default_catalog.default_database.`), leaving CTEs and qualified names alone.
/// Whether two CREATE FUNCTION statements of the script declare one name (case-insensitive).
pub fn declares_a_function_twice(sql: &str) -> bool {
    let mut names: Vec<String> = sql
        .split(';')
        .filter_map(|statement| {
            let words: Vec<String> = statement
                .split_whitespace()
                .map(str::to_uppercase)
                .collect();
            if words.first().map(String::as_str) != Some("CREATE") {
                return None;
            }
            let at = words.iter().position(|w| w == "FUNCTION")?;
            words[at + 1..]
                .iter()
                .find(|w| !matches!(w.as_str(), "IF" | "NOT" | "EXISTS"))
                .cloned()
        })
        .collect();
    let declared = names.len();
    names.sort();
    names.dedup();
    names.len() < declared
}

pub fn qualify_names(sql: &str, prefix: &str) -> String {
    if uses_catalogs(sql) {
        return sql.to_string();
    }
    let ctes = all_cte_names(sql);
    per_statement(sql, |statement, words| {
        let mut tokens = Tokens::of(statement);
        for (i, qualified) in table_names(&tokens, words, &ctes) {
            if !qualified {
                tokens.items[i].1 = format!("{prefix}{}", tokens.items[i].1);
            }
        }
        tokens.text()
    })
}

/// Whether some table or view name of the script is already qualified (`db1.orders`).
pub fn has_qualified_names(sql: &str) -> bool {
    let ctes = all_cte_names(sql);
    per_statement(sql, |statement, words| {
        let tokens = Tokens::of(statement);
        let any = table_names(&tokens, words, &ctes).iter().any(|(_, q)| *q);
        if any { "QUALIFIED" } else { "" }.to_string()
    })
    .contains("QUALIFIED")
}

fn all_cte_names(sql: &str) -> BTreeSet<String> {
    per_statement(sql, |s, _| s.to_string())
        .split(";\n")
        .flat_map(cte_names)
        .collect()
}

/// The first word of each table or view name of a statement (after FROM, JOIN, INTO, OVERWRITE, TABLE,
/// VIEW, a comma of a FROM list, a DDL's LIKE), and whether the name is qualified.
fn table_names(tokens: &Tokens, words: &[String], ctes: &BTreeSet<String>) -> Vec<(usize, bool)> {
    let ddl = words.first().is_some_and(|w| w == "CREATE");
    // `CREATE VIEW IF NOT EXISTS v`, `DROP TABLE IF EXISTS t`: the name follows EXISTS.
    let declares = words.first().is_some_and(|w| w == "CREATE" || w == "DROP");
    // `ALTER TABLE t ADD (c INT, WATERMARK FOR ...)` lists schema components, not tables.
    let alter = words.first().is_some_and(|w| w == "ALTER");
    let listed = if alter {
        BTreeSet::new()
    } else {
        from_list_items(tokens)
    };
    let structural = [
        Keyword::TABLE,
        Keyword::LATERAL,
        Keyword::UNNEST,
        Keyword::IF,
        Keyword::SELECT,
        Keyword::WITH,
        Keyword::VALUES,
    ];
    (0..tokens.items.len())
        .filter_map(|i| {
            let Token::Word(w) = &tokens.items[i].0 else {
                return None;
            };
            let previous = tokens.previous_significant(i).map(|p| &tokens.items[p].0);
            let next = tokens.next_significant(i).map(|n| &tokens.items[n].0);
            // `EXTRACT(HOUR FROM ts)`, `TRIM(BOTH ' ' FROM x)`, `SUBSTRING(x FROM 1)`: a FROM
            // inside such a call's parentheses is followed by a value, not a table.
            let in_call = tokens
                .previous_significant(i)
                .is_some_and(|p| inside_value_call(tokens, p));
            let after_name_keyword = !in_call
                && matches!(previous, Some(t)
                if [
                    Keyword::FROM,
                    Keyword::JOIN,
                    Keyword::INTO,
                    Keyword::OVERWRITE,
                    Keyword::TABLE,
                    Keyword::VIEW,
                ]
                .iter()
                    .any(|k| is_word(t, *k))
                    || (ddl && is_word(t, Keyword::LIKE))
                    || (declares && is_word(t, Keyword::EXISTS)));
            let name_like = w.quote_style.is_some() || !structural.contains(&w.keyword);
            let is_name = (after_name_keyword || listed.contains(&i))
                && name_like
                && !ctes.contains(&w.value);
            is_name.then_some((i, matches!(next, Some(Token::Period))))
        })
        .collect()
}

/// Statements the tool reads text of as written (pattern variables), left alone by rewrites
/// that re-spell expressions.
fn reads_text(tokens: &Tokens) -> bool {
    tokens.items.iter().any(
        |(t, _)| matches!(t, Token::Word(w) if w.value.eq_ignore_ascii_case("MATCH_RECOGNIZE")),
    )
}

/// Quotes every plain identifier with backticks (not keywords, function names or types).
pub fn quote_identifiers(sql: &str, declared: &BTreeSet<String>) -> String {
    per_statement(sql, |statement, _| {
        let mut tokens = Tokens::of(statement);
        if reads_text(&tokens) {
            return statement.to_string();
        }
        for i in 0..tokens.items.len() {
            let Token::Word(w) = &tokens.items[i].0 else {
                continue;
            };
            let next = tokens.next_significant(i).map(|n| &tokens.items[n].0);
            if w.quote_style.is_none()
                && w.keyword == Keyword::NoKeyword
                && declared.contains(&w.value)
                && next != Some(&Token::LParen)
            {
                tokens.items[i].1 = format!("`{}`", w.value);
            }
        }
        tokens.text()
    })
}

/// The names a script declares or reads: tables, views and columns of its DDL, and every word
/// before `AS` or after `FROM` (aliases, tables): what may be quoted.
pub fn identifiers(scripts: &[&str]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for sql in scripts {
        let tokens = Tokens::of(sql);
        for (i, (token, _)) in tokens.items.iter().enumerate() {
            let Token::Word(w) = token else { continue };
            if w.quote_style.is_some() || w.keyword != Keyword::NoKeyword {
                continue;
            }
            let previous = tokens.previous_significant(i).map(|p| &tokens.items[p].0);
            let next = tokens.next_significant(i).map(|n| &tokens.items[n].0);
            // A column of a DDL list: `(name TYPE` or `, name TYPE`; a table after FROM/JOIN;
            // a qualified column `t.c`.
            let column_def = matches!(previous, Some(Token::LParen) | Some(Token::Comma))
                && matches!(next, Some(Token::Word(n)) if n.quote_style.is_none());
            let after_from = matches!(previous, Some(t) if is_word(t, Keyword::FROM) || is_word(t, Keyword::JOIN));
            let qualified = matches!(previous, Some(Token::Period));
            let clause = ["WATERMARK", "PRIMARY", "CONSTRAINT", "PERIOD"]
                .iter()
                .any(|c| w.value.eq_ignore_ascii_case(c));
            if (column_def || after_from || qualified) && !clause {
                out.insert(w.value.clone());
            }
        }
    }
    out
}

/// The names of ranking columns (`ROW_NUMBER() OVER (...) AS rk`): their filter is read as
/// written (`rk <= 3`), so predicates on them keep their spelling.
fn rank_aliases(scripts: &[&str]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for sql in scripts {
        let tokens = Tokens::of(sql);
        let ranking = tokens.items.iter().any(|(t, _)| {
            matches!(t, Token::Word(w) if ["ROW_NUMBER", "RANK", "DENSE_RANK"]
                .iter()
                .any(|f| w.value.eq_ignore_ascii_case(f)))
        });
        if !ranking {
            continue;
        }
        for (i, (token, _)) in tokens.items.iter().enumerate() {
            if is_word(token, Keyword::AS) {
                if let Some(n) = tokens.next_significant(i) {
                    if let Token::Word(w) = &tokens.items[n].0 {
                        out.insert(w.value.clone());
                    }
                }
            }
        }
    }
    out
}

fn is_literal(token: &Token) -> bool {
    matches!(token, Token::Number(..) | Token::SingleQuotedString(_))
}

/// `column op literal` at `i` (a column: `c` or `t.c`): the indexes of its first and last
/// column tokens, the operator and the literal.
fn comparison_at(
    tokens: &Tokens,
    i: usize,
    skip: &BTreeSet<String>,
) -> Option<(usize, usize, usize, usize)> {
    let Token::Word(first) = &tokens.items[i].0 else {
        return None;
    };
    if first.keyword != Keyword::NoKeyword || first.quote_style.is_some() {
        return None;
    }
    let previous = tokens.previous_significant(i).map(|p| &tokens.items[p].0);
    // `OVER w > 3` compares the call over the named window `w`, not `w`.
    if matches!(previous, Some(Token::Period))
        || previous.is_some_and(|p| is_word(p, Keyword::OVER))
    {
        return None;
    }
    let mut last = i;
    if let Some(dot) = tokens.next_significant(i) {
        if tokens.items[dot].0 == Token::Period {
            let column = tokens.next_significant(dot)?;
            let Token::Word(_) = &tokens.items[column].0 else {
                return None;
            };
            last = column;
        }
    }
    let Token::Word(column) = &tokens.items[last].0 else {
        return None;
    };
    if skip.contains(&column.value) {
        return None;
    }
    let op = tokens.next_significant(last)?;
    let literal = tokens.next_significant(op)?;
    if !is_literal(&tokens.items[literal].0) {
        return None;
    }
    // `c = 5` and not `c = 5 + x`, `c = 5 || 'x'`, nor a bound of an arithmetic.
    let after = tokens.next_significant(literal).map(|n| &tokens.items[n].0);
    let bounded = matches!(
        after,
        None | Some(Token::RParen) | Some(Token::Comma) | Some(Token::SemiColon)
    ) || matches!(after, Some(Token::Word(w)) if w.keyword != Keyword::NoKeyword);
    let before_ok = !matches!(
        previous,
        Some(Token::Plus | Token::Minus | Token::Mul | Token::Div | Token::StringConcat)
    ) && !matches!(previous, Some(t) if is_word(t, Keyword::BETWEEN));
    if bounded && before_ok {
        Some((i, last, op, literal))
    } else {
        None
    }
}

/// Whether a script writes a comparison with a literal first (`0 < amount`). Flink keeps the
/// operands in the order written, and two INSERTs of a statement set filtering alike with the
/// operands in other orders compute an aggregate twice (plan lab): flipping only the comparisons
/// written column first would change which INSERTs share it.
pub fn writes_literal_first(sql: &str) -> bool {
    let tokens = Tokens::of(sql);
    (0..tokens.items.len()).any(|i| {
        is_literal(&tokens.items[i].0)
            && tokens.next_significant(i).is_some_and(|op| {
                matches!(
                    tokens.items[op].0,
                    Token::Eq | Token::Neq | Token::Lt | Token::Gt | Token::LtEq | Token::GtEq
                )
            })
    })
}

/// Spells comparisons another way: `c = 'x'` as `'x' = c`, `c < 5` as `5 > c`, `c <> 5` as
/// `NOT (c = 5)`; ranking filters and pattern definitions keep their spelling.
pub fn respell_predicates(sql: &str, skip: &BTreeSet<String>) -> String {
    per_statement(sql, |statement, words| {
        let mut tokens = Tokens::of(statement);
        if reads_text(&tokens) || words.first().is_some_and(|w| w == "SET") {
            return statement.to_string();
        }
        let in_between = |tokens: &Tokens, i: usize| {
            // A literal bound of BETWEEN ... AND is not a comparison of its own.
            tokens
                .previous_significant(i)
                .is_some_and(|p| is_word(&tokens.items[p].0, Keyword::AND))
                && (0..i)
                    .rev()
                    .take(12)
                    .any(|j| is_word(&tokens.items[j].0, Keyword::BETWEEN))
        };
        let mut i = 0;
        while i < tokens.items.len() {
            let Some((first, last, op, literal)) = comparison_at(&tokens, i, skip) else {
                i += 1;
                continue;
            };
            if in_between(&tokens, first) {
                i = literal + 1;
                continue;
            }
            let flipped = match &tokens.items[op].0 {
                Token::Eq => Some("="),
                Token::Lt => Some(">"),
                Token::Gt => Some("<"),
                Token::LtEq => Some(">="),
                Token::GtEq => Some("<="),
                Token::Neq => None,
                _ => {
                    i += 1;
                    continue;
                }
            };
            let column: String = tokens.items[first..=last]
                .iter()
                .map(|(_, text)| text.as_str())
                .collect();
            let value = tokens.items[literal].1.clone();
            let text = match flipped {
                Some(flipped) => format!("{value} {flipped} {column}"),
                None => format!("NOT ({column} = {value})"),
            };
            tokens.items[first].1 = text;
            for j in first + 1..=literal {
                tokens.items[j].1 = String::new();
            }
            i = literal + 1;
        }
        tokens.text()
    })
}

/// The last token of the column at `i` (`c` or `t.c`), when `i` starts one that is not an
/// operand of arithmetic and not a ranking column.
fn column_at(tokens: &Tokens, i: usize, skip: &BTreeSet<String>) -> Option<usize> {
    let Token::Word(first) = &tokens.items[i].0 else {
        return None;
    };
    if first.keyword != Keyword::NoKeyword || first.quote_style.is_some() {
        return None;
    }
    let previous = tokens.previous_significant(i).map(|p| &tokens.items[p].0);
    if matches!(
        previous,
        Some(
            Token::Period
                | Token::Plus
                | Token::Minus
                | Token::Mul
                | Token::Div
                | Token::StringConcat
        )
    ) {
        return None;
    }
    let mut last = i;
    if let Some(dot) = tokens.next_significant(i) {
        if tokens.items[dot].0 == Token::Period {
            last = tokens.next_significant(dot)?;
        }
    }
    match &tokens.items[last].0 {
        Token::Word(w) if !skip.contains(&w.value) => Some(last),
        _ => None,
    }
}

/// Spells ranges and lists another way: `c BETWEEN 1 AND 5` as `(c >= 1 AND c <= 5)`,
/// `c IN ('a', 'b')` as `(c = 'b' OR c = 'a')`, for literal bounds and items.
pub fn respell_ranges(sql: &str, skip: &BTreeSet<String>) -> String {
    per_statement(sql, |statement, words| {
        let mut tokens = Tokens::of(statement);
        if reads_text(&tokens) || words.first().is_some_and(|w| w == "SET") {
            return statement.to_string();
        }
        let mut i = 0;
        while i < tokens.items.len() {
            let Some(last) = column_at(&tokens, i, skip) else {
                i += 1;
                continue;
            };
            let column: String = tokens.items[i..=last]
                .iter()
                .map(|(_, t)| t.as_str())
                .collect();
            let Some(keyword) = tokens.next_significant(last) else {
                break;
            };
            let mut replaced = None;
            if is_word(&tokens.items[keyword].0, Keyword::BETWEEN) {
                let low = tokens.next_significant(keyword);
                let and = low.and_then(|l| tokens.next_significant(l));
                let high = and.and_then(|a| tokens.next_significant(a));
                if let (Some(low), Some(and), Some(high)) = (low, and, high) {
                    let after = tokens.next_significant(high).map(|n| &tokens.items[n].0);
                    let bounded = matches!(
                        after,
                        None | Some(Token::RParen | Token::Comma | Token::SemiColon)
                    ) || matches!(after, Some(Token::Word(w)) if w.keyword != Keyword::NoKeyword);
                    if is_literal(&tokens.items[low].0)
                        && is_word(&tokens.items[and].0, Keyword::AND)
                        && is_literal(&tokens.items[high].0)
                        && bounded
                    {
                        let (l, h) = (&tokens.items[low].1, &tokens.items[high].1);
                        replaced = Some((high, format!("({column} >= {l} AND {column} <= {h})")));
                    }
                }
            } else if is_word(&tokens.items[keyword].0, Keyword::IN) {
                let mut items = Vec::new();
                let mut at = tokens.next_significant(keyword);
                let mut end = None;
                if at.is_some_and(|a| tokens.items[a].0 == Token::LParen) {
                    while let Some(item) = at.and_then(|a| tokens.next_significant(a)) {
                        if !is_literal(&tokens.items[item].0) {
                            break;
                        }
                        items.push(tokens.items[item].1.clone());
                        match tokens.next_significant(item) {
                            Some(n) if tokens.items[n].0 == Token::Comma => at = Some(n),
                            Some(n) if tokens.items[n].0 == Token::RParen => {
                                end = Some(n);
                                break;
                            }
                            _ => break,
                        }
                    }
                }
                if let Some(end) = end {
                    let terms: Vec<String> = items
                        .iter()
                        .rev()
                        .map(|v| format!("{column} = {v}"))
                        .collect();
                    replaced = Some((end, format!("({})", terms.join(" OR "))));
                }
            }
            match replaced {
                Some((end, text)) => {
                    tokens.items[i].1 = text;
                    for j in i + 1..=end {
                        tokens.items[j].1 = String::new();
                    }
                    i = end + 1;
                }
                None => i = last + 1,
            }
        }
        tokens.text()
    })
}

/// Where the query of an INSERT or a bare query starts (its SELECT or WITH), if it is one the
/// rewrites below may move.
fn query_start(tokens: &Tokens, words: &[String]) -> Option<usize> {
    let first = words.first()?;
    let significant = |t: &Token| !matches!(t, Token::Whitespace(_));
    let start = match first.as_str() {
        "SELECT" | "WITH" => tokens.items.iter().position(|(t, _)| significant(t))?,
        "INSERT" => tokens
            .items
            .iter()
            .position(|(t, _)| is_word(t, Keyword::SELECT) || is_word(t, Keyword::WITH))?,
        _ => return None,
    };
    // `INSERT INTO t (a, b) SELECT`: the first SELECT/WITH at depth 0 is the query.
    let mut depth = 0i32;
    for (t, _) in &tokens.items[..start] {
        match t {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            _ => {}
        }
    }
    (depth == 0).then_some(start)
}

/// Adds `WITH unused_cte AS (SELECT 1 AS one)` to each query (or to its WITH).
pub fn add_unused_cte(sql: &str) -> String {
    per_statement(sql, |statement, words| {
        let mut tokens = Tokens::of(statement);
        let Some(start) = query_start(&tokens, words) else {
            return statement.to_string();
        };
        let with = is_word(&tokens.items[start].0, Keyword::WITH);
        let text = &mut tokens.items[start].1;
        if with {
            text.push_str(" unused_cte AS (SELECT 1 AS one),");
        } else {
            *text = format!("WITH unused_cte AS (SELECT 1 AS one) {text}");
        }
        tokens.text()
    })
}

/// How a query is moved: into a subquery, a CTE, or a view declared before its statement.
#[derive(Clone, Copy)]
pub enum Moved {
    Subquery,
    Cte,
    View,
}

/// Moves the query of each INSERT or bare query into a subquery, a CTE or a view read with
/// `SELECT *`: the same rows, the same operators.
pub fn move_query(sql: &str, into: Moved) -> String {
    // A statement set holds only INSERTs: no view can be declared inside it.
    if matches!(into, Moved::View) && sql.to_uppercase().contains("STATEMENT SET") {
        return sql.to_string();
    }
    // `INSERT ... ON CONFLICT ...` ends with a clause of the INSERT, not of its query.
    if sql.to_uppercase().contains("ON CONFLICT") {
        return sql.to_string();
    }
    // Flink drops an ORDER BY without LIMIT in a subquery or a CTE, and a view's read there:
    // no equivalent rewrite where a statement sorts so.
    if !matches!(into, Moved::View) && unlimited_order_by(&Tokens::of(sql).items) {
        return sql.to_string();
    }
    let counter = std::cell::Cell::new(0);
    per_statement(sql, |statement, words| {
        let tokens = Tokens::of(statement);
        let Some(start) = query_start(&tokens, words) else {
            return statement.to_string();
        };
        let head: String = tokens.items[..start]
            .iter()
            .map(|(_, t)| t.as_str())
            .collect();
        // Flink rewrites the SELECT list of `INSERT INTO t (cols) SELECT ...` into the sink's
        // column order, and only the outer `SELECT *` of a moved query (checked with Flink
        // 2.3: the aggregates or LIMIT fields beneath keep their order): no equivalent rewrite.
        if head.contains('(') {
            return statement.to_string();
        }
        let query: String = tokens.items[start..]
            .iter()
            .map(|(_, t)| t.as_str())
            .collect();
        counter.set(counter.get() + 1);
        let name = format!("moved_query_{}", counter.get());
        match into {
            Moved::Subquery => format!("{head}SELECT * FROM ({query}) AS {name}"),
            Moved::Cte => format!("{head}WITH {name} AS ({query}) SELECT * FROM {name}"),
            Moved::View => {
                format!("CREATE TEMPORARY VIEW {name} AS {query};\n{head}SELECT * FROM {name}")
            }
        }
    })
}

/// Whether a query (or any statement of a script) ends in an ORDER BY without LIMIT, OFFSET
/// or FETCH (outside parentheses).
fn unlimited_order_by(query: &[(Token, String)]) -> bool {
    let mut depth = 0i32;
    let (mut ordered, mut limited) = (false, false);
    for (token, _) in query {
        match token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            Token::SemiColon if depth == 0 => {
                if ordered && !limited {
                    return true;
                }
                (ordered, limited) = (false, false);
            }
            t if depth == 0 && is_word(t, Keyword::ORDER) => ordered = true,
            t if depth == 0
                && (is_word(t, Keyword::LIMIT)
                    || is_word(t, Keyword::OFFSET)
                    || is_word(t, Keyword::FETCH)) =>
            {
                limited = true
            }
            _ => {}
        }
    }
    ordered && !limited
}

/// Whether the script selects `*` (or multiplies): the order of a table's columns may then
/// reach the output.
fn uses_star(sql: &str) -> bool {
    let tokens = Tokens::of(sql);
    tokens.items.iter().enumerate().any(|(i, (t, _))| {
        *t == Token::Mul
            && tokens
                .previous_significant(i)
                .is_none_or(|p| tokens.items[p].0 != Token::LParen)
    })
}

/// Whether the script may plan an operator that stores its input rows (OVER, joins, rankings,
/// sorts, MATCH_RECOGNIZE, the joins of IN / EXISTS / ANY subqueries): Flink lays those rows
/// out in the order of the table's columns (checked with Flink 2.3:
/// `OverAggregate(select=[price, ts, ...])` follows the DDL), so
/// reordering the DDL changes their state and is no equivalent rewrite there. So does the
/// ChangelogNormalize Flink plans after an upsert source (mongodb-cdc and Paimon primary-key tables too), or a CDC source under
/// `table.exec.source.cdc-events-duplicate`: it stores the last row per key, its columns in the
/// scan's order (plan lab: cases/source/upsert-ddl-columns-reordered.yaml).
fn stores_rows(sql: &str) -> bool {
    let tokens = Tokens::of(sql);
    let listed = !from_list_items(&tokens).is_empty();
    let normalized = tokens.items.iter().any(|(t, _)| {
        matches!(t, Token::SingleQuotedString(s)
            if s.to_lowercase().contains("upsert")
                || s.eq_ignore_ascii_case("mongodb-cdc")
                || s.eq_ignore_ascii_case("paimon")
                || s == "table.exec.source.cdc-events-duplicate")
    });
    listed
        || normalized
        || tokens.items.iter().any(|(t, _)| {
            matches!(t, Token::Word(w) if w.quote_style.is_none() && [
                "OVER", "JOIN", "MATCH_RECOGNIZE", "ORDER", "LIMIT", "FETCH", "OFFSET",
                "ROW_NUMBER", "RANK", "DENSE_RANK", "EXISTS", "IN", "UNION", "INTERSECT",
                "EXCEPT", "DISTINCT", "ANY", "SOME", "ALL",
            ]
            .iter()
            .any(|k| w.value.eq_ignore_ascii_case(k)))
        })
}

/// The tables a script writes (`INSERT INTO name`, `INSERT OVERWRITE name`): their column order
/// maps the output.
fn sinks(sql: &str) -> BTreeSet<String> {
    let tokens = Tokens::of(sql);
    (0..tokens.items.len())
        .filter(|&i| {
            let token = &tokens.items[i].0;
            is_word(token, Keyword::INTO) || is_word(token, Keyword::OVERWRITE)
        })
        .filter_map(|i| {
            // The last part of `INTO c.db.name`.
            let mut at = tokens.next_significant(i)?;
            while let Some(dot) = tokens.next_significant(at) {
                if tokens.items[dot].0 != Token::Period {
                    break;
                }
                at = tokens.next_significant(dot)?;
            }
            match &tokens.items[at].0 {
                Token::Word(w) => Some(w.value.clone()),
                _ => None,
            }
        })
        .collect()
}

/// Reverses the columns of each CREATE TABLE (its WATERMARK, keys and constraints stay after
/// them), except sinks and tables declared with LIKE, in scripts that never select `*`.
pub fn reorder_columns(sql: &str) -> String {
    if uses_star(sql) || stores_rows(sql) {
        return sql.to_string();
    }
    let written = sinks(sql);
    per_statement(sql, |statement, words| {
        let tokens = Tokens::of(statement);
        let is_table = words.first().is_some_and(|w| w == "CREATE")
            && words.iter().any(|w| w == "TABLE")
            && !tokens.items.iter().any(|(t, _)| is_word(t, Keyword::LIKE));
        let Some(open) = tokens.items.iter().position(|(t, _)| *t == Token::LParen) else {
            return statement.to_string();
        };
        let name = tokens
            .previous_significant(open)
            .and_then(|n| match &tokens.items[n].0 {
                Token::Word(w) => Some(w.value.clone()),
                _ => None,
            });
        if !is_table || name.is_none_or(|n| written.contains(&n)) {
            return statement.to_string();
        }
        let mut depth = 0;
        // The angle brackets of a composite type (`MAP<STRING, INT>`, `ROW<a INT, b INT>`).
        let mut angles = 0usize;
        let mut elements: Vec<String> = vec![String::new()];
        let mut close = None;
        for (i, (token, text)) in tokens.items.iter().enumerate().skip(open + 1) {
            let after_type =
                tokens
                    .previous_significant(i)
                    .is_some_and(|p| match &tokens.items[p].0 {
                        Token::Word(w) => ["ARRAY", "MAP", "ROW", "MULTISET"]
                            .contains(&w.value.to_uppercase().as_str()),
                        _ => false,
                    });
            match token {
                Token::Lt if after_type || angles > 0 => angles += 1,
                Token::Gt if angles > 0 => angles -= 1,
                Token::ShiftRight if angles > 0 => angles = angles.saturating_sub(2),
                Token::LParen => depth += 1,
                Token::RParen if depth == 0 => {
                    close = Some(i);
                    break;
                }
                Token::RParen => depth -= 1,
                Token::Comma if depth == 0 && angles == 0 => {
                    elements.push(String::new());
                    continue;
                }
                _ => {}
            }
            if let Some(last) = elements.last_mut() {
                last.push_str(text);
            }
        }
        let Some(close) = close else {
            return statement.to_string();
        };
        let is_clause = |e: &String| {
            let first = e
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_uppercase();
            ["WATERMARK", "PRIMARY", "CONSTRAINT", "PERIOD"].contains(&first.as_str())
        };
        let (clauses, mut columns): (Vec<String>, Vec<String>) =
            elements.into_iter().partition(is_clause);
        columns.reverse();
        columns.extend(clauses);
        let head: String = tokens.items[..=open]
            .iter()
            .map(|(_, t)| t.as_str())
            .collect();
        let tail: String = tokens.items[close..]
            .iter()
            .map(|(_, t)| t.as_str())
            .collect();
        let list: Vec<&str> = columns.iter().map(|c| c.trim()).collect();
        // One element a line: an element may end with a `--` comment.
        format!("{head}\n  {}\n{tail}", list.join(",\n  "))
    })
}

/// Moves the condition of an inner join into WHERE: `FROM a JOIN b ON c WHERE w` becomes
/// `FROM a, b WHERE (c) AND w`. Only a FROM with one inner join, not a temporal or lookup join.
pub fn join_condition_to_where(sql: &str) -> String {
    per_statement(sql, |statement, _| {
        let mut tokens = Tokens::of(statement);
        let n = tokens.items.len();
        let mut depth = vec![0i32; n];
        let mut d = 0;
        for (i, (t, _)) in tokens.items.iter().enumerate() {
            if *t == Token::RParen {
                d -= 1;
            }
            depth[i] = d;
            if *t == Token::LParen {
                d += 1;
            }
        }
        let joins: Vec<usize> = (0..n)
            .filter(|&i| is_word(&tokens.items[i].0, Keyword::JOIN))
            .collect();
        let [join] = joins.as_slice() else {
            return statement.to_string();
        };
        let join = *join;
        let at = depth[join];
        let previous = tokens.previous_significant(join);
        let inner = previous.filter(|&p| is_word(&tokens.items[p].0, Keyword::INNER));
        let outer = previous.is_some_and(|p| {
            [
                Keyword::LEFT,
                Keyword::RIGHT,
                Keyword::FULL,
                Keyword::OUTER,
                Keyword::CROSS,
            ]
            .iter()
            .any(|k| is_word(&tokens.items[p].0, *k))
        });
        let versioned = tokens
            .items
            .iter()
            .any(|(t, _)| is_word(t, Keyword::SYSTEM_TIME));
        let lateral = tokens
            .next_significant(join)
            .is_some_and(|j| is_word(&tokens.items[j].0, Keyword::LATERAL));
        if outer || versioned || lateral {
            return statement.to_string();
        }
        let Some(on) =
            (join..n).find(|&i| depth[i] == at && is_word(&tokens.items[i].0, Keyword::ON))
        else {
            return statement.to_string();
        };
        let stops = [
            Keyword::WHERE,
            Keyword::GROUP,
            Keyword::HAVING,
            Keyword::ORDER,
            Keyword::LIMIT,
            Keyword::UNION,
            Keyword::WINDOW,
        ];
        let end = (on + 1..n)
            .find(|&i| {
                depth[i] < at
                    || (depth[i] == at
                        && (stops.iter().any(|k| is_word(&tokens.items[i].0, *k))
                            || tokens.items[i].0 == Token::RParen))
            })
            .unwrap_or(n);
        let condition: String = tokens.items[on + 1..end]
            .iter()
            .map(|(_, t)| t.as_str())
            .collect();
        let condition = condition.trim().to_string();
        let has_where =
            end < n && is_word(&tokens.items[end].0, Keyword::WHERE) && depth[end] == at;
        for i in on..end {
            tokens.items[i].1 = String::new();
        }
        tokens.items[join].1 = ",".into();
        if let Some(inner) = inner {
            tokens.items[inner].1 = String::new();
        }
        if has_where {
            tokens.items[end].1 = format!("WHERE ({condition}) AND");
        } else if end < n {
            tokens.items[end].1 = format!("WHERE {condition} {}", tokens.items[end].1);
        } else {
            tokens.items.push((
                Token::Whitespace(sqlparser::tokenizer::Whitespace::Space),
                format!(" WHERE {condition}"),
            ));
        }
        tokens.text()
    })
}

pub fn ranking_names(scripts: &[&str]) -> BTreeSet<String> {
    rank_aliases(scripts)
}

/// Whether the paren group `open..=close` is a query that ranks: `(SELECT ... ROW_NUMBER() ...`
/// (or RANK, DENSE_RANK) with the ranking function in its own SELECT list, not deeper.
fn ranks_at_its_level(tokens: &Tokens, open: usize, close: usize) -> bool {
    let Some(first) = tokens.next_significant(open) else {
        return false;
    };
    if !is_word(&tokens.items[first].0, Keyword::SELECT) {
        return false;
    }
    let mut depth = 0i32;
    for i in first..close {
        match &tokens.items[i].0 {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            Token::Word(w)
                if depth == 0
                    && w.quote_style.is_none()
                    && ["ROW_NUMBER", "RANK", "DENSE_RANK"]
                        .iter()
                        .any(|k| w.value.eq_ignore_ascii_case(k)) =>
            {
                return true;
            }
            _ => {}
        }
    }
    false
}

/// The `(` ... `)` groups read as a table (after FROM, JOIN or a comma of a FROM list) whose
/// query ranks, outermost first, each with the index of its closing parenthesis.
fn ranking_subqueries(tokens: &Tokens, from: usize) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    let mut stack = Vec::new();
    for i in from..tokens.items.len() {
        match tokens.items[i].0 {
            Token::LParen => stack.push(i),
            Token::RParen => {
                let Some(open) = stack.pop() else { continue };
                let read_as_table = tokens.previous_significant(open).is_some_and(|p| {
                    let t = &tokens.items[p].0;
                    is_word(t, Keyword::FROM) || is_word(t, Keyword::JOIN)
                });
                if read_as_table && ranks_at_its_level(tokens, open, i) {
                    out.push((open, i));
                }
            }
            _ => {}
        }
    }
    // Only the outermost: a ranking inside another moved ranking moves with it.
    out.sort();
    let mut kept: Vec<(usize, usize)> = Vec::new();
    for (open, close) in out {
        if !kept.iter().any(|&(o, c)| o < open && close < c) {
            kept.push((open, close));
        }
    }
    kept
}

/// Moves each ranking written as a subquery of the main query (`FROM (SELECT ..., ROW_NUMBER()
/// OVER (...) AS rk FROM t) WHERE rk <= 3`) into a CTE or a view (issue 14: how production jobs
/// write deduplication and Top-N), read by the query that filters it: the same operators.
pub fn move_ranking(sql: &str, into: Moved) -> String {
    if matches!(into, Moved::View) && sql.to_uppercase().contains("STATEMENT SET") {
        return sql.to_string();
    }
    let counter = std::cell::Cell::new(0);
    per_statement(sql, |statement, words| {
        let mut tokens = Tokens::of(statement);
        let Some(start) = query_start(&tokens, words) else {
            return statement.to_string();
        };
        let with = is_word(&tokens.items[start].0, Keyword::WITH);
        // The main query: after the CTEs (a ranking inside a CTE's body stays where it is,
        // a later CTE could not be read there).
        let mut main = start;
        if with {
            let mut depth = 0i32;
            let found = (start..tokens.items.len()).find(|&i| {
                match tokens.items[i].0 {
                    Token::LParen => depth += 1,
                    Token::RParen => depth -= 1,
                    _ => {}
                }
                depth == 0 && is_word(&tokens.items[i].0, Keyword::SELECT)
            });
            match found {
                Some(i) => main = i,
                None => return statement.to_string(),
            }
            if matches!(into, Moved::View) {
                // A view cannot read the statement's CTEs.
                return statement.to_string();
            }
        }
        let groups = ranking_subqueries(&tokens, main);
        if groups.is_empty() {
            return statement.to_string();
        }
        let mut definitions = Vec::new();
        for &(open, close) in &groups {
            counter.set(counter.get() + 1);
            let name = format!("moved_ranking_{}", counter.get());
            let body: String = tokens.items[open + 1..close]
                .iter()
                .map(|(_, t)| t.as_str())
                .collect();
            definitions.push((name.clone(), body));
            for item in &mut tokens.items[open..=close] {
                item.1.clear();
            }
            tokens.items[open].1 = name;
        }
        match into {
            Moved::View => {
                let views: String = definitions
                    .iter()
                    .map(|(name, body)| format!("CREATE TEMPORARY VIEW {name} AS {body};\n"))
                    .collect();
                format!("{views}{}", tokens.text())
            }
            Moved::Cte | Moved::Subquery => {
                let ctes: Vec<String> = definitions
                    .iter()
                    .map(|(name, body)| format!("{name} AS ({body})"))
                    .collect();
                if with {
                    // After the last CTE: just before the main SELECT, after its comma-less end.
                    let text = &mut tokens.items[main].1;
                    *text = format!(", {} {text}", ctes.join(", "));
                    // `WITH a AS (...) , moved AS (...) SELECT`: the comma follows the last CTE.
                } else {
                    let text = &mut tokens.items[start].1;
                    *text = format!("WITH {} {text}", ctes.join(", "));
                }
                tokens.text()
            }
        }
    })
}

/// The paren depth of each token.
fn depths(tokens: &Tokens) -> Vec<usize> {
    let mut depth = 0usize;
    tokens
        .items
        .iter()
        .map(|(t, _)| match t {
            Token::LParen => {
                depth += 1;
                depth - 1
            }
            Token::RParen => {
                depth = depth.saturating_sub(1);
                depth
            }
            _ => depth,
        })
        .collect()
}

/// Whether the token after `i` ends a term of a condition (no `IS`, `NOT`, operator ... after).
fn ends_term(tokens: &Tokens, i: usize) -> bool {
    match tokens.next_significant(i).map(|n| &tokens.items[n].0) {
        None | Some(Token::RParen | Token::SemiColon) => true,
        Some(Token::Word(w)) => {
            w.keyword != Keyword::NoKeyword
                && !matches!(
                    w.keyword,
                    Keyword::IS
                        | Keyword::NOT
                        | Keyword::ESCAPE
                        | Keyword::COLLATE
                        | Keyword::LIKE
                        | Keyword::BETWEEN
                        | Keyword::IN
                        | Keyword::SIMILAR
                )
        }
        _ => false,
    }
}

/// Whether the token at `i` is a term of a WHERE: after WHERE, AND, OR or a parenthesis that
/// itself opens and closes such a term, the nearest clause word before it being WHERE (never
/// under NOT or IS: `NOT (c IS TRUE)` is not `NOT c`).
fn in_where(tokens: &Tokens, depth: &[usize], i: usize) -> bool {
    let word = |j: usize| match &tokens.items[j].0 {
        Token::Word(w) if w.quote_style.is_none() => w.keyword,
        _ => Keyword::NoKeyword,
    };
    let opens_term = |j: usize| {
        tokens.previous_significant(j).is_some_and(|p| {
            tokens.items[p].0 == Token::LParen
                || matches!(word(p), Keyword::WHERE | Keyword::AND | Keyword::OR)
        })
    };
    let Some(previous) = tokens.previous_significant(i) else {
        return false;
    };
    // The AND of `x BETWEEN a AND b` does not start a term.
    let between = (0..previous)
        .rev()
        .take_while(|&j| depth[j] >= depth[i])
        .filter(|&j| depth[j] == depth[i])
        .find(|&j| {
            matches!(
                word(j),
                Keyword::AND | Keyword::OR | Keyword::WHERE | Keyword::BETWEEN
            )
        })
        .is_some_and(|j| word(j) == Keyword::BETWEEN);
    if between && word(previous) == Keyword::AND {
        return false;
    }
    let after_paren = tokens.items[previous].0 == Token::LParen && opens_term(previous);
    if !after_paren && !matches!(word(previous), Keyword::WHERE | Keyword::AND | Keyword::OR) {
        return false;
    }
    let mut level = depth[i];
    for j in (0..i).rev() {
        if depth[j] > level {
            continue;
        }
        if depth[j] < level {
            let closing = (j + 1..tokens.items.len())
                .find(|&k| depth[k] == depth[j] && tokens.items[k].0 == Token::RParen);
            if tokens.items[j].0 == Token::LParen
                && opens_term(j)
                && closing.is_some_and(|k| ends_term(tokens, k))
            {
                level = depth[j];
                continue;
            }
            return false;
        }
        match word(j) {
            Keyword::WHERE => return true,
            // Words of the terms before this one.
            Keyword::AND
            | Keyword::OR
            | Keyword::NOT
            | Keyword::IS
            | Keyword::NULL
            | Keyword::TRUE
            | Keyword::FALSE
            | Keyword::IN
            | Keyword::LIKE
            | Keyword::BETWEEN
            | Keyword::NoKeyword => {}
            // A clause or an expression keyword (CASE, WHEN, ON, SELECT, ...): not a WHERE term.
            _ => return false,
        }
    }
    false
}

/// Spells comparisons of a WHERE as conditions: `c > 5` as `(c > CAST(5 AS INT)) IS TRUE`,
/// `c <> 'x'` as `(c = 'x') IS FALSE` (a filter keeps only TRUE: Flink plans them alike);
/// ranking filters keep their spelling.
pub fn respell_conditions(sql: &str, skip: &BTreeSet<String>) -> String {
    per_statement(sql, |statement, words| {
        let mut tokens = Tokens::of(statement);
        if reads_text(&tokens) || words.first().is_some_and(|w| w == "SET") {
            return statement.to_string();
        }
        let depth = depths(&tokens);
        let mut i = 0;
        while i < tokens.items.len() {
            let Some((first, last, op, literal)) = comparison_at(&tokens, i, skip) else {
                i += 1;
                continue;
            };
            let negated = match &tokens.items[op].0 {
                Token::Eq | Token::Lt | Token::Gt | Token::LtEq | Token::GtEq => false,
                Token::Neq => true,
                _ => {
                    i += 1;
                    continue;
                }
            };
            if !ends_term(&tokens, literal) || !in_where(&tokens, &depth, first) {
                i = literal + 1;
                continue;
            }
            let column: String = tokens.items[first..=last]
                .iter()
                .map(|(_, text)| text.as_str())
                .collect();
            let value = tokens.items[literal].1.clone();
            let value = match (&tokens.items[literal].0, value.parse::<i32>()) {
                (Token::Number(..), Ok(n)) => format!("CAST({n} AS INT)"),
                _ => value,
            };
            tokens.items[first].1 = if negated {
                format!("({column} = {value}) IS FALSE")
            } else {
                let op = tokens.items[op].1.clone();
                format!("({column} {op} {value}) IS TRUE")
            };
            for j in first + 1..=literal {
                tokens.items[j].1 = String::new();
            }
            i = literal + 1;
        }
        tokens.text()
    })
}

/// Spells a range between two numbers as its SYMMETRIC form with the bounds swapped: `c
/// BETWEEN 1 AND 5` as `c BETWEEN SYMMETRIC 5 AND 1`; ranking filters keep their spelling.
pub fn respell_symmetric(sql: &str, skip: &BTreeSet<String>) -> String {
    per_statement(sql, |statement, words| {
        let mut tokens = Tokens::of(statement);
        if reads_text(&tokens) || words.first().is_some_and(|w| w == "SET") {
            return statement.to_string();
        }
        let mut i = 0;
        while i < tokens.items.len() {
            let Some(last) = column_at(&tokens, i, skip) else {
                i += 1;
                continue;
            };
            let mut keyword = tokens.next_significant(last);
            if keyword.is_some_and(|k| is_word(&tokens.items[k].0, Keyword::NOT)) {
                keyword = keyword.and_then(|k| tokens.next_significant(k));
            }
            let Some(keyword) = keyword.filter(|&k| is_word(&tokens.items[k].0, Keyword::BETWEEN))
            else {
                i = last + 1;
                continue;
            };
            let low = tokens.next_significant(keyword);
            let and = low.and_then(|l| tokens.next_significant(l));
            let high = and.and_then(|a| tokens.next_significant(a));
            let (Some(low), Some(and), Some(high)) = (low, and, high) else {
                i = keyword + 1;
                continue;
            };
            let number = |j: usize| match &tokens.items[j].0 {
                Token::Number(n, _) => n.parse::<f64>().ok(),
                _ => None,
            };
            let after = tokens.next_significant(high).map(|n| &tokens.items[n].0);
            let bounded = !matches!(
                after,
                Some(Token::Plus | Token::Minus | Token::Mul | Token::Div | Token::Period)
            );
            match (number(low), number(high)) {
                (Some(l), Some(h))
                    if l <= h && bounded && is_word(&tokens.items[and].0, Keyword::AND) =>
                {
                    let (l, h) = (tokens.items[low].1.clone(), tokens.items[high].1.clone());
                    tokens.items[low].1 = format!("SYMMETRIC {h}");
                    tokens.items[high].1 = l;
                    i = high + 1;
                }
                _ => i = keyword + 1,
            }
        }
        tokens.text()
    })
}

/// Whether token `at` is inside the parentheses of EXTRACT, TRIM, SUBSTRING, OVERLAY or
/// POSITION (whose FROM reads a value).
fn inside_value_call(tokens: &Tokens, at: usize) -> bool {
    let mut depth = 0usize;
    for j in (0..at).rev() {
        match &tokens.items[j].0 {
            Token::RParen => depth += 1,
            Token::LParen if depth > 0 => depth -= 1,
            Token::LParen => {
                return tokens.previous_significant(j).is_some_and(|p| {
                    matches!(&tokens.items[p].0, Token::Word(w)
                        if ["EXTRACT", "TRIM", "SUBSTRING", "OVERLAY", "POSITION"]
                            .iter()
                            .any(|f| w.value.eq_ignore_ascii_case(f)))
                });
            }
            _ => {}
        }
    }
    false
}
