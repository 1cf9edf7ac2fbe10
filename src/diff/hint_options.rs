//! Which options of which optimizer hints changed: a rule can tell a LOOKUP hint's retry options
//! (stateless) from its `async` or `output-mode` (another operator) or another hint altogether.

/// `NAME.option` for every option of the hints one side has and the other does not; `NAME` for
/// such a hint without options. Sorted, without duplicates.
pub fn changed(old: &[String], new: &[String]) -> Vec<String> {
    let mut out: Vec<String> = old
        .iter()
        .filter(|h| !new.contains(h))
        .chain(new.iter().filter(|h| !old.contains(h)))
        .flat_map(|h| options(h))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// `LOOKUP('table'='dim', 'max-attempts'='3')` -> [`LOOKUP.table`, `LOOKUP.max-attempts`].
fn options(hint: &str) -> Vec<String> {
    let (name, args) = match hint.split_once('(') {
        Some((name, args)) => (name.trim().to_uppercase(), args),
        None => return vec![hint.trim().to_uppercase()],
    };
    let args = args.trim_end().strip_suffix(')').unwrap_or(args);
    let mut keys: Vec<String> = split_top(args)
        .iter()
        .filter_map(|arg| {
            let key = arg.split_once('=').map_or(arg.as_str(), |(k, _)| k);
            let key = key
                .trim()
                .trim_matches(|c| c == '\'' || c == '"' || c == '`');
            (!key.is_empty()).then(|| format!("{name}.{key}"))
        })
        .collect();
    if keys.is_empty() {
        keys.push(name);
    }
    keys
}

/// The arguments split at commas outside quotes.
fn split_top(args: &str) -> Vec<String> {
    let (mut parts, mut current, mut quote) = (Vec::new(), String::new(), None::<char>);
    for c in args.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"' | '`') => quote = Some(c),
            (None, ',') => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    parts.push(current);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retry_hint_added_names_its_options() {
        let hint = "LOOKUP('table'='dim', 'retry-predicate'='lookup_miss', 'max-attempts'='3')"
            .to_string();
        assert_eq!(
            changed(&[], &[hint]),
            [
                "LOOKUP.max-attempts",
                "LOOKUP.retry-predicate",
                "LOOKUP.table"
            ]
        );
        assert_eq!(changed(&["BROADCAST(d)".into()], &[]), ["BROADCAST.d"]);
        assert!(changed(&["X('a'='1')".into()], &["X('a'='1')".into()]).is_empty());
    }
}
