//! The keys of a STATE_TTL hint name the inputs of the block it follows by table name, by alias
//! or by view name (Flink's hint documentation): `STATE_TTL('o' = '1d') ... FROM orders o` and
//! `STATE_TTL('orders' = '1d') ... FROM orders` give the aggregate the same time-to-live (plan
//! lab: red team round 18, TS8). A key that is the alias of a table read once in the block is
//! written as the table's name, so both spellings are one hint.

use sqlparser::tokenizer::{Token, TokenWithSpan};

/// Words that end a FROM item: an alias is never one of them.
const NOT_AN_ALIAS: &[&str] = &[
    "JOIN",
    "LEFT",
    "RIGHT",
    "FULL",
    "INNER",
    "OUTER",
    "CROSS",
    "ON",
    "USING",
    "NATURAL",
    "WHERE",
    "GROUP",
    "HAVING",
    "WINDOW",
    "ORDER",
    "LIMIT",
    "UNION",
    "INTERSECT",
    "EXCEPT",
    "FOR",
    "LATERAL",
    "AS",
    "MATCH_RECOGNIZE",
    "TABLESAMPLE",
];

/// The hint with each key that is an alias of a table read once in its block written as that
/// table's name; the hint as it is when no key is one.
pub fn canonical(hint: &str, tokens: &[TokenWithSpan], at: usize) -> String {
    let aliases = block_aliases(tokens, at);
    if aliases.is_empty() {
        return hint.to_string();
    }
    let Some((name, rest)) = hint.split_once('(') else {
        return hint.to_string();
    };
    let Some(body) = rest.strip_suffix(')') else {
        return hint.to_string();
    };
    let mut changed = false;
    let pairs: Vec<String> = super::quoted::split_outside_quotes(body)
        .into_iter()
        .map(|pair| {
            let Some((key, value)) = pair.split_once('=') else {
                return pair.trim().to_string();
            };
            let bare = key
                .trim()
                .trim_matches(|c| c == '\'' || c == '"' || c == '`');
            match aliases
                .iter()
                .find(|(alias, _)| alias.eq_ignore_ascii_case(bare))
            {
                Some((_, table)) => {
                    changed = true;
                    format!("'{table}' = {}", value.trim())
                }
                None => format!("{} = {}", key.trim(), value.trim()),
            }
        })
        .collect();
    match changed {
        true => format!("{}({})", name.trim(), pairs.join(", ")),
        false => hint.to_string(),
    }
}

/// (alias, table) of each table the block after the hint at `at` reads under an alias, for
/// the tables it reads once (a self-join keeps its aliases).
fn block_aliases(tokens: &[TokenWithSpan], at: usize) -> Vec<(String, String)> {
    let words: Vec<&Token> = tokens[at + 1..]
        .iter()
        .map(|t| &t.token)
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .collect();
    let mut items: Vec<(String, Option<String>)> = Vec::new();
    let mut depth = 0usize;
    let mut in_from = false;
    let mut i = 0;
    while i < words.len() {
        let t = words[i];
        // After FROM, JOIN, or a comma in FROM (`FROM a x, b y`): a table and its alias.
        let item_follows = depth == 0
            && (keyword(t, "FROM") || keyword(t, "JOIN") || (in_from && *t == Token::Comma));
        if item_follows {
            in_from = true;
            if let Some((name, alias, next)) = from_item(&words, i + 1) {
                items.push((name, alias));
                i = next;
                continue;
            }
        }
        match t {
            Token::LParen => depth += 1,
            Token::RParen if depth == 0 => break,
            Token::RParen => depth -= 1,
            _ if depth > 0 => {}
            _ if ["WHERE", "GROUP", "HAVING", "WINDOW", "ORDER", "UNION"]
                .iter()
                .any(|k| keyword(t, k)) =>
            {
                in_from = false
            }
            _ => {}
        }
        i += 1;
    }
    items
        .iter()
        .filter_map(|(name, alias)| {
            let once = items.iter().filter(|(n, _)| n == name).count() == 1;
            alias.clone().filter(|_| once).map(|a| (a, name.clone()))
        })
        .collect()
}

/// Whether the token is the unquoted keyword `k`.
fn keyword(t: &Token, k: &str) -> bool {
    matches!(t, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(k))
}

/// The table name (its last part) and alias of the FROM item starting at `start`
/// (`db.orders AS o`, `orders o`, `orders`), and where what follows it starts; none for a
/// subquery or anything but a name.
fn from_item(words: &[&Token], start: usize) -> Option<(String, Option<String>, usize)> {
    let mut j = start;
    let mut name = None;
    while let Some(Token::Word(part)) = words.get(j) {
        name = Some(part.value.clone());
        j += 1;
        if words.get(j) != Some(&&Token::Period) {
            break;
        }
        j += 1;
    }
    let name = name?;
    if words.get(j).is_some_and(|w| keyword(w, "AS")) {
        j += 1;
    }
    let alias = match words.get(j) {
        Some(Token::Word(a)) if !NOT_AN_ALIAS.iter().any(|k| a.value.eq_ignore_ascii_case(k)) => {
            Some(a.value.clone())
        }
        _ => None,
    };
    Some((name, alias, j))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceFile;

    /// The hint of the first `/*+ ... */` comment of `sql`, canonical.
    fn hint_of(sql: &str) -> String {
        let tokens = crate::sql::split::tokenize(&SourceFile::new("t.sql", sql)).expect("tokens");
        let at = tokens
            .iter()
            .position(|t| matches!(&t.token, sqlparser::tokenizer::Token::Whitespace(sqlparser::tokenizer::Whitespace::MultiLineComment(c)) if c.starts_with('+')))
            .expect("a hint");
        let sqlparser::tokenizer::Token::Whitespace(
            sqlparser::tokenizer::Whitespace::MultiLineComment(text),
        ) = &tokens[at].token
        else {
            unreachable!()
        };
        canonical(text[1..].trim(), &tokens, at)
    }

    #[test]
    fn an_alias_key_is_the_table_it_names() {
        let aliased =
            "SELECT /*+ STATE_TTL('o' = '1d') */ o.k, COUNT(*) FROM orders o GROUP BY o.k";
        assert_eq!(hint_of(aliased), "STATE_TTL('orders' = '1d')");
        let joined = "SELECT /*+ STATE_TTL('o'='1d', 'u' = '2h') */ * FROM db.orders AS o JOIN users u ON o.id = u.id";
        assert_eq!(
            hint_of(joined),
            "STATE_TTL('orders' = '1d', 'users' = '2h')"
        );
        let comma = "SELECT /*+ STATE_TTL('u'='2h') */ * FROM orders o, users u WHERE o.id = u.id";
        assert_eq!(hint_of(comma), "STATE_TTL('users' = '2h')");
    }

    #[test]
    fn other_keys_stay_as_written() {
        let named = "SELECT /*+ STATE_TTL('orders'='1d') */ k, COUNT(*) FROM orders GROUP BY k";
        assert_eq!(hint_of(named), "STATE_TTL('orders'='1d')");
        // A self-join keeps its aliases: they tell its two inputs apart.
        let self_join =
            "SELECT /*+ STATE_TTL('a'='1d') */ * FROM orders a JOIN orders b ON a.id = b.id";
        assert_eq!(hint_of(self_join), "STATE_TTL('a'='1d')");
        // A subquery's alias names no table.
        let subquery = "SELECT /*+ STATE_TTL('s'='1d') */ k, COUNT(*) FROM (SELECT k FROM orders) s GROUP BY k";
        assert_eq!(hint_of(subquery), "STATE_TTL('s'='1d')");
    }
}
