//! Flink spellings sqlparser reads in another form, rewritten token for token (each keeps its
//! place in the script): the row type `ROW<a INT>` or `ROW(a INT)` (after `AS` of a CAST or
//! inside another composite type) becomes sqlparser's `STRUCT<a INT>`, and the map
//! constructor `MAP[k1, v1]` the call `MAP(k1, v1)`. MATCH_RECOGNIZE's `PATTERN (p) WITHIN
//! INTERVAL 'n' unit` becomes `PATTERN ((p) `WITHIN INTERVAL 'n' unit`)`: the time constraint is
//! part of the pattern as the tool compares it. The clauses of JSON functions (`KEY k VALUE v`,
//! `DEFAULT x ON EMPTY`, `NULL ON NULL`) become arguments of the call. A Unicode string literal
//! `U&'\0041'` (optionally `UESCAPE '#'`) becomes the plain literal it denotes (`'A'`), and
//! MATCH_RECOGNIZE's `SUBSET S = (A, B)` a quoted variable at the end of the pattern. A
//! subquery's alias written before MATCH_RECOGNIZE (`FROM (SELECT ...) AS o MATCH_RECOGNIZE
//! (...)`, which Flink accepts) moves after its parentheses, where sqlparser reads it (before
//! MATCH_RECOGNIZE's input is lifted: `parse::lifting_parser`).

use sqlparser::tokenizer::{Location, Span, Token, TokenWithSpan, Word};

/// The tokens with Flink's row types and map constructors in sqlparser's spelling.
pub fn rewrite(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let tokens = symmetric_between(model_arguments(json_clauses(within_into_pattern(
        subset_into_pattern(unicode_strings(tokens)),
    ))));
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    // Per open bracket, what its closing token becomes; and how many of them open a type.
    let mut closers: Vec<(Token, bool)> = Vec::new();
    let mut in_type = 0usize;
    for token in tokens {
        let (previous, before) = last_two_words(&out);
        let opens_row = previous == "ROW" && (before == "AS" || in_type > 0);
        let opens = |t: &Token| {
            matches!(t, Token::LParen | Token::Lt | Token::LBracket)
                && (opens_row || (t == &Token::Lt && is_composite(&previous)))
        };
        match &token.token {
            t if opens(t) => {
                let _ = t;
                if opens_row {
                    rename_last_word(&mut out, "STRUCT");
                }
                // sqlparser reads a map type as `MAP(K, V)`.
                let map = !opens_row && previous == "MAP";
                let (open, close) = if map {
                    (Token::LParen, Token::RParen)
                } else {
                    (Token::Lt, Token::Gt)
                };
                closers.push((close, true));
                in_type += 1;
                out.push(replaced(&token, open));
            }
            Token::LParen => {
                closers.push((Token::RParen, false));
                out.push(token);
            }
            Token::LBracket => {
                let map = previous == "MAP";
                let (open, close) = if map {
                    (Token::LParen, Token::RParen)
                } else {
                    (Token::LBracket, Token::RBracket)
                };
                closers.push((close, false));
                out.push(replaced(&token, open));
            }
            // A `>` closes a type's angle bracket, else it is a comparison.
            Token::Gt if closers.last().is_some_and(|(_, is_type)| *is_type) => {
                out.push(close(&mut closers, &mut in_type, &token));
            }
            Token::RParen | Token::RBracket if !closers.is_empty() => {
                out.push(close(&mut closers, &mut in_type, &token));
            }
            Token::ShiftRight if closers.last().is_some_and(|(_, is_type)| *is_type) => {
                let (first, second) = split(&token);
                out.push(close(&mut closers, &mut in_type, &first));
                out.push(close(&mut closers, &mut in_type, &second));
            }
            _ => out.push(token),
        }
    }
    out
}

fn close(
    closers: &mut Vec<(Token, bool)>,
    in_type: &mut usize,
    token: &TokenWithSpan,
) -> TokenWithSpan {
    match closers.pop() {
        Some((with, is_type)) => {
            if is_type {
                *in_type = in_type.saturating_sub(1);
            }
            replaced(token, with)
        }
        None => token.clone(),
    }
}

/// The last two significant words before here, uppercased (empty when not a plain word).
fn last_two_words(out: &[TokenWithSpan]) -> (String, String) {
    let mut words = out
        .iter()
        .rev()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .map(|t| match &t.token {
            Token::Word(w) if w.quote_style.is_none() => w.value.to_uppercase(),
            _ => String::new(),
        });
    let last = words.next().unwrap_or_default();
    let before = words.next().unwrap_or_default();
    (last, before)
}

fn rename_last_word(out: &mut [TokenWithSpan], to: &str) {
    if let Some(t) = out
        .iter_mut()
        .rev()
        .find(|t| !matches!(t.token, Token::Whitespace(_)))
    {
        if matches!(t.token, Token::Word(_)) {
            t.token = Token::Word(Word {
                value: to.to_string(),
                quote_style: None,
                keyword: sqlparser::keywords::Keyword::STRUCT,
            });
        }
    }
}

fn is_composite(previous: &str) -> bool {
    matches!(previous, "ARRAY" | "MAP" | "MULTISET")
}

fn replaced(token: &TokenWithSpan, with: Token) -> TokenWithSpan {
    TokenWithSpan {
        token: with,
        span: token.span,
    }
}

/// `>>` as two `>`, each with its own column.
fn split(token: &TokenWithSpan) -> (TokenWithSpan, TokenWithSpan) {
    let start = token.span.start;
    let middle = Location::new(start.line, start.column + 1);
    let first = TokenWithSpan {
        token: Token::Gt,
        span: Span::new(start, middle),
    };
    let second = TokenWithSpan {
        token: Token::Gt,
        span: Span::new(middle, token.span.end),
    };
    (first, second)
}

/// `PATTERN (p) WITHIN INTERVAL '1' HOUR DEFINE` as `PATTERN ((p) `WITHIN INTERVAL '1' HOUR`)
/// DEFINE`: sqlparser has no WITHIN; a pattern variable carries it.
fn within_into_pattern(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    if !tokens.iter().any(|t| is_word(t, "WITHIN")) {
        return tokens;
    }
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len() + 4);
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        let after_pattern = is_word(token, "WITHIN") && pattern_open(&out).is_some();
        if !after_pattern {
            out.push(token.clone());
            i += 1;
            continue;
        }
        let Some(open) = pattern_open(&out) else {
            out.push(token.clone());
            i += 1;
            continue;
        };
        // The constraint runs to DEFINE (or the end of the clause); parentheses of its own
        // (`INTERVAL '1800' SECOND(4)`, a precision) belong to it.
        let mut end = i + 1;
        let mut depth = 0usize;
        while end < tokens.len()
            && !is_word(&tokens[end], "DEFINE")
            && !matches!(tokens[end].token, Token::EOF)
        {
            match tokens[end].token {
                Token::LParen => depth += 1,
                Token::RParen if depth == 0 => break,
                Token::RParen => depth -= 1,
                _ => {}
            }
            end += 1;
        }
        let text = tokens[i..end]
            .iter()
            .filter(|t| !matches!(t.token, Token::Whitespace(_)))
            .map(|t| t.token.to_string().to_uppercase())
            .collect::<Vec<_>>()
            .join(" ");
        let close = out.len() - 1;
        let mut rewritten: Vec<TokenWithSpan> = out[..=open].to_vec();
        rewritten.push(replaced(&out[open], Token::LParen));
        rewritten.extend_from_slice(&out[open + 1..=close]);
        rewritten.push(replaced(
            token,
            Token::Whitespace(sqlparser::tokenizer::Whitespace::Space),
        ));
        rewritten.push(replaced(
            token,
            Token::Word(Word {
                value: text,
                quote_style: Some('`'),
                keyword: sqlparser::keywords::Keyword::NoKeyword,
            }),
        ));
        rewritten.push(replaced(&out[close], Token::RParen));
        out = rewritten;
        i = end;
    }
    out
}

/// Whether `t` is the unquoted word `word` (any case).
fn is_word(t: &TokenWithSpan, word: &str) -> bool {
    matches!(&t.token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
}

/// The parenthesis closing the one at `open`.
fn closing_paren(tokens: &[TokenWithSpan], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(open) {
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether `t` is more than whitespace.
fn significant(t: &TokenWithSpan) -> bool {
    !matches!(t.token, Token::Whitespace(_))
}

/// `PATTERN (A B+ C) SUBSET S = (A, B) DEFINE` as `PATTERN (A B+ C `SUBSET S = (A, B)`) DEFINE`
/// (before a WITHIN, which follows the pattern): sqlparser has no SUBSET; a pattern variable
/// carries it, so that a changed SUBSET is a changed pattern, as MATCH_RECOGNIZE's rules judge it.
fn subset_into_pattern(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    if !tokens.iter().any(|t| is_word(t, "SUBSET")) {
        return tokens;
    }
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len() + 2);
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        // The pattern's parentheses: the last PATTERN before the SUBSET, then its group.
        let group = is_word(token, "SUBSET")
            .then(|| out.iter().rposition(|t| is_word(t, "PATTERN")))
            .flatten()
            .and_then(|at| {
                let open = (at + 1..out.len()).find(|&k| significant(&out[k]))?;
                if out[open].token != Token::LParen {
                    return None;
                }
                closing_paren(&out, open)
            });
        let Some(close) = group else {
            out.push(token.clone());
            i += 1;
            continue;
        };
        // The clause runs to DEFINE (or the end of MATCH_RECOGNIZE's parentheses), its own
        // parentheses included.
        let mut end = i + 1;
        let mut depth = 0usize;
        while end < tokens.len() {
            match tokens[end].token {
                Token::EOF => break,
                Token::LParen => depth += 1,
                Token::RParen if depth == 0 => break,
                Token::RParen => depth -= 1,
                _ if depth == 0 && is_word(&tokens[end], "DEFINE") => break,
                _ => {}
            }
            end += 1;
        }
        let text = tokens[i..end]
            .iter()
            .filter(|t| significant(t))
            .map(|t| t.token.to_string().to_uppercase())
            .collect::<Vec<_>>()
            .join(" ");
        let word = replaced(
            token,
            Token::Word(Word {
                value: text,
                quote_style: Some('`'),
                keyword: sqlparser::keywords::Keyword::NoKeyword,
            }),
        );
        let space = replaced(
            token,
            Token::Whitespace(sqlparser::tokenizer::Whitespace::Space),
        );
        out.insert(close, word);
        out.insert(close, space);
        i = end;
    }
    out
}

/// When `out` ends with `PATTERN ( ... )`: the index of that `(`.
fn pattern_open(out: &[TokenWithSpan]) -> Option<usize> {
    let last = out
        .iter()
        .rposition(|t| !matches!(t.token, Token::Whitespace(_)))?;
    if out[last].token != Token::RParen {
        return None;
    }
    let mut depth = 0i32;
    for index in (0..=last).rev() {
        match out[index].token {
            Token::RParen => depth += 1,
            Token::LParen => {
                depth -= 1;
                if depth == 0 {
                    let word = out[..index]
                        .iter()
                        .rev()
                        .find(|t| !matches!(t.token, Token::Whitespace(_)))?;
                    return matches!(&word.token, Token::Word(w) if w.value.eq_ignore_ascii_case("PATTERN"))
                        .then_some(index);
                }
            }
            _ => {}
        }
    }
    None
}

/// Flink's JSON function clauses as plain arguments: `JSON_OBJECT(KEY 'k' VALUE v NULL ON NULL)`
/// becomes `JSON_OBJECT('k', v, 'NULL ON NULL')`, `JSON_VALUE(j, '$.a' DEFAULT 'x' ON EMPTY)`
/// becomes `JSON_VALUE(j, '$.a', 'DEFAULT', 'x', 'ON EMPTY')`: each clause stays in the call.
fn json_clauses(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let word = |t: &TokenWithSpan| match &t.token {
        Token::Word(w) if w.quote_style.is_none() => w.value.to_uppercase(),
        _ => String::new(),
    };
    if !tokens.iter().any(|t| word(t).starts_with("JSON_")) {
        return tokens;
    }
    let significant: Vec<usize> = (0..tokens.len())
        .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
        .collect();
    let next_word = |at: usize, n: usize| {
        significant
            .iter()
            .position(|&i| i == at)
            .and_then(|p| significant.get(p + n))
            .map(|&i| word(&tokens[i]))
            .unwrap_or_default()
    };
    let text = |s: &str, like: &TokenWithSpan| replaced(like, Token::SingleQuotedString(s.into()));
    let comma = |like: &TokenWithSpan| replaced(like, Token::Comma);
    // The depth of each open JSON_ call (in parentheses) and whether it takes KEY ... VALUE
    // pairs (JSON_OBJECT, JSON_OBJECTAGG), innermost last.
    let mut calls: Vec<(usize, bool)> = Vec::new();
    let mut depth = 0usize;
    let mut out = Vec::with_capacity(tokens.len());
    let mut skip = 0usize;
    for (i, token) in tokens.iter().enumerate() {
        if skip > 0 {
            if !matches!(token.token, Token::Whitespace(_)) {
                skip -= 1;
            }
            continue;
        }
        match &token.token {
            Token::LParen => {
                depth += 1;
                let callee = out
                    .iter()
                    .rev()
                    .find(|t: &&TokenWithSpan| !matches!(t.token, Token::Whitespace(_)))
                    .map(word)
                    .unwrap_or_default();
                if callee.starts_with("JSON_") {
                    calls.push((depth, callee.starts_with("JSON_OBJECT")));
                }
                out.push(token.clone());
                continue;
            }
            Token::RParen => {
                if calls.last().is_some_and(|(d, _)| *d == depth) {
                    calls.pop();
                }
                depth = depth.saturating_sub(1);
                out.push(token.clone());
                continue;
            }
            _ => {}
        }
        let pairs = match calls.last() {
            Some((d, pairs)) if *d == depth => *pairs,
            _ => {
                out.push(token.clone());
                continue;
            }
        };
        // `t.value` is a column, not a clause.
        let after_dot = out
            .iter()
            .rev()
            .find(|t: &&TokenWithSpan| !matches!(t.token, Token::Whitespace(_)))
            .is_some_and(|t| t.token == Token::Period);
        let w = if after_dot {
            String::new()
        } else {
            word(token)
        };
        let on = next_word(i, 1) == "ON";
        let target = next_word(i, 2);
        match w.as_str() {
            "KEY" if pairs => {}
            "VALUE" if pairs => out.push(comma(token)),
            // JSON_QUERY: `WITH [CONDITIONAL | UNCONDITIONAL] [ARRAY] WRAPPER`, `WITHOUT [ARRAY] WRAPPER`.
            "WITH" | "WITHOUT" if wrapper_words(&next_word, i).is_some() => {
                let words = wrapper_words(&next_word, i).unwrap_or_default();
                out.push(comma(token));
                out.push(text(&format!("{w} {}", words.join(" ")), token));
                skip = words.len();
            }
            // JSON_QUERY: `EMPTY ARRAY ON EMPTY`, `EMPTY OBJECT ON ERROR`.
            "EMPTY"
                if matches!(next_word(i, 1).as_str(), "ARRAY" | "OBJECT")
                    && next_word(i, 2) == "ON"
                    && matches!(next_word(i, 3).as_str(), "EMPTY" | "ERROR") =>
            {
                out.push(comma(token));
                out.push(text(
                    &format!("EMPTY {} ON {}", next_word(i, 1), next_word(i, 3)),
                    token,
                ));
                skip = 3;
            }
            // JSON_EXISTS: `TRUE | FALSE | UNKNOWN ON ERROR`.
            "TRUE" | "FALSE" | "UNKNOWN" if on && target == "ERROR" => {
                out.push(comma(token));
                out.push(text(&format!("{w} ON ERROR"), token));
                skip = 2;
            }
            "NULL" | "ABSENT" | "ERROR" | "EMPTY"
                if on && matches!(target.as_str(), "NULL" | "EMPTY" | "ERROR") =>
            {
                out.push(comma(token));
                out.push(text(&format!("{w} ON {target}"), token));
                skip = 2;
            }
            "RETURNING" => {
                // The type runs to the next clause or the end of the call.
                let mut words = Vec::new();
                let mut nested = 0usize;
                for t in tokens[i + 1..].iter() {
                    match &t.token {
                        Token::Whitespace(_) => continue,
                        Token::LParen => nested += 1,
                        Token::RParen if nested == 0 => break,
                        Token::RParen => nested -= 1,
                        Token::Comma if nested == 0 => break,
                        Token::Word(_)
                            if nested == 0
                                && matches!(
                                    word(t).as_str(),
                                    "NULL"
                                        | "ERROR"
                                        | "DEFAULT"
                                        | "EMPTY"
                                        | "ABSENT"
                                        | "WITH"
                                        | "WITHOUT"
                                ) =>
                        {
                            break
                        }
                        _ => {}
                    }
                    words.push(t.token.to_string().to_uppercase());
                }
                skip = words.len();
                out.push(comma(token));
                out.push(text(&format!("RETURNING {}", words.join(" ")), token));
            }
            "DEFAULT" => {
                out.push(comma(token));
                out.push(text("DEFAULT", token));
                out.push(comma(token));
            }
            "ON" if matches!(next_word(i, 1).as_str(), "EMPTY" | "ERROR" | "NULL") => {
                out.push(comma(token));
                out.push(text(&format!("ON {}", next_word(i, 1)), token));
                skip = 1;
            }
            _ => out.push(token.clone()),
        }
    }
    out
}

/// The words after `WITH` / `WITHOUT` (at `at`) up to and including `WRAPPER`, when they are
/// a JSON_QUERY wrapper clause.
fn wrapper_words(next_word: &dyn Fn(usize, usize) -> String, at: usize) -> Option<Vec<String>> {
    let mut words = Vec::new();
    for n in 1..=3 {
        let word = next_word(at, n);
        match word.as_str() {
            "WRAPPER" => {
                words.push(word);
                return Some(words);
            }
            "CONDITIONAL" | "UNCONDITIONAL" | "ARRAY" => words.push(word),
            _ => return None,
        }
    }
    None
}

/// A model argument of a call (`ML_PREDICT(TABLE t, MODEL m, DESCRIPTOR(c))`, Flink 2.x) as
/// the call `MODEL(m)`: sqlparser has no model arguments; the query holding it is compared as a
/// whole.
fn model_arguments(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let is_model = |t: &TokenWithSpan| is_word(t, "MODEL");
    if !tokens.iter().any(is_model) {
        return tokens;
    }
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len() + 4);
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        let previous = out.iter().rev().find(|t| significant(t)).map(|t| &t.token);
        let opens = matches!(previous, Some(Token::LParen | Token::Comma | Token::RArrow));
        let name_at = tokens[i + 1..]
            .iter()
            .position(significant)
            .map(|p| i + 1 + p)
            .filter(|&n| matches!(tokens[n].token, Token::Word(_)));
        let (true, true, Some(start)) = (is_model(token), opens, name_at) else {
            out.push(token.clone());
            i += 1;
            continue;
        };
        // The dotted name after MODEL.
        let mut end = start + 1;
        while end + 1 < tokens.len()
            && tokens[end].token == Token::Period
            && matches!(tokens[end + 1].token, Token::Word(_))
        {
            end += 2;
        }
        out.push(token.clone());
        out.push(replaced(token, Token::LParen));
        out.extend(tokens[start..end].iter().cloned());
        out.push(replaced(&tokens[end - 1], Token::RParen));
        i = end;
    }
    out
}

/// `x BETWEEN ASYMMETRIC a AND b` is `x BETWEEN a AND b` (the default); `x BETWEEN SYMMETRIC a
/// AND b` (either order of the bounds) becomes `x BETWEEN SYMMETRIC(a) AND b`: sqlparser has no
/// SYMMETRIC, and the marked bound keeps the two forms apart.
fn symmetric_between(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let word = |t: &TokenWithSpan| match &t.token {
        Token::Word(w) if w.quote_style.is_none() => w.value.to_uppercase(),
        _ => String::new(),
    };
    if !tokens
        .iter()
        .any(|t| matches!(word(t).as_str(), "SYMMETRIC" | "ASYMMETRIC"))
    {
        return tokens;
    }
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len() + 2);
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        let w = word(token);
        let after_between = out
            .iter()
            .rev()
            .find(|t| significant(t))
            .is_some_and(|t| word(t) == "BETWEEN");
        if !after_between || !matches!(w.as_str(), "SYMMETRIC" | "ASYMMETRIC") {
            out.push(token.clone());
            i += 1;
            continue;
        }
        if w == "ASYMMETRIC" {
            i += 1;
            continue;
        }
        // The low bound runs to the AND at this depth.
        let mut depth = 0usize;
        let mut end = i + 1;
        while end < tokens.len() {
            match &tokens[end].token {
                Token::LParen => depth += 1,
                Token::RParen if depth == 0 => break,
                Token::RParen => depth -= 1,
                _ if depth == 0 && word(&tokens[end]) == "AND" => break,
                _ => {}
            }
            end += 1;
        }
        out.push(token.clone());
        out.push(replaced(token, Token::LParen));
        out.extend(tokens[i + 1..end].iter().cloned());
        out.push(replaced(
            &tokens[end.saturating_sub(1).max(i)],
            Token::RParen,
        ));
        i = end;
    }
    out
}

/// `U&'...'` (Flink's and Calcite's Unicode string literal, the escape `\XXXX` or `\+XXXXXX`,
/// `\\` a backslash; `UESCAPE 'c'` after it chooses another escape character) as the plain
/// string literal it denotes: `U&'\0041'` is `'A'`. sqlparser reads `U`, `&` and a string. A
/// literal whose escapes do not decode is left as written (and fails as SQL, as in Flink).
fn unicode_strings(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let is_u = |t: &TokenWithSpan| matches!(&t.token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("U"));
    if !tokens.iter().any(is_u) {
        return tokens;
    }
    let adjacent = |a: &TokenWithSpan, b: &TokenWithSpan| {
        a.span.end.line == b.span.start.line && a.span.end.column == b.span.start.column
    };
    let significant = |from: usize| {
        (from..tokens.len()).find(|&k| !matches!(tokens[k].token, Token::Whitespace(_)))
    };
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let literal = match (tokens.get(i), tokens.get(i + 1), tokens.get(i + 2)) {
            (Some(u), Some(amp), Some(text))
                if is_u(u)
                    && amp.token == Token::Ampersand
                    && adjacent(u, amp)
                    && adjacent(amp, text) =>
            {
                match &text.token {
                    Token::SingleQuotedString(body) => Some(body.clone()),
                    _ => None,
                }
            }
            _ => None,
        };
        let Some(body) = literal else {
            out.push(tokens[i].clone());
            i += 1;
            continue;
        };
        // `UESCAPE 'c'` after the literal.
        let mut end = i + 2;
        let mut escape = '\\';
        if let Some(k) = significant(i + 3) {
            if matches!(&tokens[k].token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("UESCAPE"))
            {
                match significant(k + 1).map(|c| (c, &tokens[c].token)) {
                    Some((c, Token::SingleQuotedString(e))) if e.chars().count() == 1 => {
                        escape = e.chars().next().unwrap_or('\\');
                        end = c;
                    }
                    _ => {
                        out.push(tokens[i].clone());
                        i += 1;
                        continue;
                    }
                }
            }
        }
        match decode_unicode(&body, escape) {
            Some(decoded) => {
                out.push(TokenWithSpan {
                    token: Token::SingleQuotedString(decoded),
                    span: Span::new(tokens[i].span.start, tokens[end].span.end),
                });
                i = end + 1;
            }
            None => {
                out.push(tokens[i].clone());
                i += 1;
            }
        }
    }
    out
}

/// The text of a Unicode literal's body: `<e>XXXX` (four hex digits), `<e>+XXXXXX` (six), `<e><e>`
/// the escape character itself; None for any other use of the escape character.
fn decode_unicode(body: &str, escape: char) -> Option<String> {
    let chars: Vec<char> = body.chars().collect();
    let mut out = String::with_capacity(body.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != escape {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let hex = |from: usize, n: usize| -> Option<char> {
            let digits: String = chars.get(from..from + n)?.iter().collect();
            if !digits.chars().all(|c| c.is_ascii_hexdigit()) {
                return None;
            }
            char::from_u32(u32::from_str_radix(&digits, 16).ok()?)
        };
        match chars.get(i + 1) {
            Some(c) if *c == escape => {
                out.push(escape);
                i += 2;
            }
            Some('+') => {
                out.push(hex(i + 2, 6)?);
                i += 8;
            }
            Some(_) => {
                out.push(hex(i + 1, 4)?);
                i += 5;
            }
            None => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod unicode_tests {
    use super::*;

    #[test]
    fn unicode_escapes_decode() {
        assert_eq!(decode_unicode(r"\0041", '\\').as_deref(), Some("A"));
        assert_eq!(
            decode_unicode(r"a\00e9\\b", '\\').as_deref(),
            Some("a\u{e9}\\b")
        );
        assert_eq!(
            decode_unicode(r"\+01F600", '\\').as_deref(),
            Some("\u{1F600}")
        );
        assert_eq!(decode_unicode("#0041#", '#'), None);
        assert_eq!(decode_unicode("#0041", '#').as_deref(), Some("A"));
        assert_eq!(decode_unicode(r"\00g1", '\\'), None);
        assert_eq!(decode_unicode(r"\D800", '\\'), None);
    }
}

/// `(subquery) [AS] o MATCH_RECOGNIZE (...)` as `(subquery) MATCH_RECOGNIZE (...) AS o` (red
/// team rounds 24 and 25: Flink 2.3 plans it, sqlparser refuses it), unless MATCH_RECOGNIZE
/// has an alias of its own (which then names its rows).
pub fn alias_after_match_recognize(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    if !tokens.iter().any(|t| is_word(t, "MATCH_RECOGNIZE")) {
        return tokens;
    }
    let mut tokens = tokens;
    let mut at = 0;
    while at < tokens.len() {
        if !is_word(&tokens[at], "MATCH_RECOGNIZE") {
            at += 1;
            continue;
        }
        let before =
            |k: usize, tokens: &[TokenWithSpan]| (0..k).rev().find(|&j| significant(&tokens[j]));
        let alias = before(at, &tokens).filter(|&j| {
            matches!(&tokens[j].token, Token::Word(w) if !w.value.eq_ignore_ascii_case("AS") && w.keyword == sqlparser::keywords::Keyword::NoKeyword || w.quote_style.is_some())
        });
        let as_word = alias
            .and_then(|j| before(j, &tokens))
            .filter(|&j| is_word(&tokens[j], "AS"));
        let paren = as_word.or(alias).and_then(|j| before(j, &tokens));
        let (Some(alias), Some(paren)) = (alias, paren) else {
            at += 1;
            continue;
        };
        if tokens[paren].token != Token::RParen {
            at += 1;
            continue;
        }
        // MATCH_RECOGNIZE's parentheses.
        let Some(open) = (at + 1..tokens.len()).find(|&k| significant(&tokens[k])) else {
            break;
        };
        if tokens[open].token != Token::LParen {
            at += 1;
            continue;
        }
        let Some(close) = closing_paren(&tokens, open) else {
            break;
        };
        let own_alias = (close + 1..tokens.len())
            .find(|&k| significant(&tokens[k]))
            .is_some_and(|k| {
                is_word(&tokens[k], "AS")
                    || matches!(&tokens[k].token, Token::Word(w) if w.keyword == sqlparser::keywords::Keyword::NoKeyword || w.quote_style.is_some())
            });
        let from = as_word.unwrap_or(alias);
        let moved: Vec<TokenWithSpan> = tokens[from..=alias].to_vec();
        let mut rebuilt: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len() + 1);
        rebuilt.extend_from_slice(&tokens[..from]);
        rebuilt.extend_from_slice(&tokens[alias + 1..=close]);
        if !own_alias {
            rebuilt.push(replaced(
                &tokens[alias],
                Token::Whitespace(sqlparser::tokenizer::Whitespace::Space),
            ));
            rebuilt.extend(moved);
        }
        let next = rebuilt.len();
        rebuilt.extend_from_slice(&tokens[close + 1..]);
        tokens = rebuilt;
        at = next;
    }
    tokens
}

#[cfg(test)]
mod alias_tests {
    use super::*;

    fn rewritten(sql: &str) -> String {
        let dialect = crate::sql::dialect::FlinkDialect {};
        let tokens = sqlparser::tokenizer::Tokenizer::new(&dialect, sql)
            .tokenize_with_location()
            .unwrap_or_default();
        alias_after_match_recognize(tokens)
            .iter()
            .map(|t| t.token.to_string())
            .collect()
    }

    #[test]
    fn a_subquery_alias_before_match_recognize_moves_after_it() {
        assert_eq!(
            rewritten("SELECT * FROM (SELECT a FROM t) AS o MATCH_RECOGNIZE (PATTERN (A)) ;"),
            "SELECT * FROM (SELECT a FROM t)  MATCH_RECOGNIZE (PATTERN (A)) AS o ;"
        );
        assert_eq!(
            rewritten("SELECT * FROM (SELECT a FROM t) o MATCH_RECOGNIZE (PATTERN (A)) AS m"),
            "SELECT * FROM (SELECT a FROM t)  MATCH_RECOGNIZE (PATTERN (A)) AS m"
        );
        assert_eq!(
            rewritten("SELECT * FROM t MATCH_RECOGNIZE (PATTERN (A)) AS m"),
            "SELECT * FROM t MATCH_RECOGNIZE (PATTERN (A)) AS m"
        );
    }
}
