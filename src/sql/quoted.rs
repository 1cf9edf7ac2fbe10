//! Text split outside quotes: a hint's arguments (`'a' = 'x,y', 'b' = '1'`).

/// `text` split at the commas outside single, double and back quotes (a doubled quote closes
/// and reopens, so it stays inside).
pub fn split_outside_quotes(text: &str) -> Vec<&str> {
    let (mut parts, mut start, mut quote) = (Vec::new(), 0, None::<char>);
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"' | '`') => quote = Some(c),
            (None, ',') => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commas_inside_quotes_stay() {
        assert_eq!(
            split_outside_quotes("'a' = 'x,y', \"b\"='1',c"),
            vec!["'a' = 'x,y'", " \"b\"='1'", "c"]
        );
        assert_eq!(split_outside_quotes("'it''s', b"), vec!["'it''s'", " b"]);
        assert_eq!(split_outside_quotes(""), vec![""]);
    }
}
