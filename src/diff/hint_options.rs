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

/// The names (uppercased) of the hints one side has and the other does not, sorted, once each.
pub fn names_changed(old: &[String], new: &[String]) -> Vec<String> {
    let mut out: Vec<String> = old
        .iter()
        .filter(|h| !new.contains(h))
        .chain(new.iter().filter(|h| !old.contains(h)))
        .map(|h| h.split('(').next().unwrap_or(h).trim().to_uppercase())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The STATE_TTL hints of the two sides that differ: the `STATE_TTL.table` options they name
/// (sorted, as in [`changed`]), and for each side the smallest time-to-live in milliseconds
/// those tables' operators keep their state: the side's STATE_TTL hint for the table, else the
/// side's `table.exec.state.ttl` (`old_global`, `new_global`, in milliseconds), which the hint
/// overrides (0 for a value that is not a Flink duration; 0 when no STATE_TTL hint differs).
pub fn state_ttl(
    old: &[String],
    new: &[String],
    old_global: u64,
    new_global: u64,
) -> (Vec<String>, u64, u64) {
    let is_ttl = |h: &&String| {
        h.split_once('(')
            .is_some_and(|(name, _)| name.trim().eq_ignore_ascii_case("STATE_TTL"))
    };
    let mut tables: Vec<String> = old
        .iter()
        .filter(|h| !new.contains(h))
        .chain(new.iter().filter(|h| !old.contains(h)))
        .filter(is_ttl)
        .flat_map(|h| arguments(h))
        .map(|(table, _)| table)
        .collect();
    tables.sort();
    tables.dedup();
    let smallest = |side: &[String], global: u64| -> u64 {
        let given: Vec<(String, String)> = side
            .iter()
            .filter(is_ttl)
            .flat_map(|h| arguments(h))
            .collect();
        tables
            .iter()
            .map(|table| match given.iter().find(|(t, _)| t == table) {
                Some((_, v)) => crate::catalog::duration::millis(v).unwrap_or(0),
                None => global,
            })
            .min()
            .unwrap_or(0)
    };
    let (old_min, new_min) = (smallest(old, old_global), smallest(new, new_global));
    let names = tables.iter().map(|t| format!("STATE_TTL.{t}")).collect();
    (names, old_min, new_min)
}

/// The `'key' = 'value'` arguments of a hint, unquoted.
fn arguments(hint: &str) -> Vec<(String, String)> {
    let Some((_, args)) = hint.split_once('(') else {
        return Vec::new();
    };
    let args = args.trim_end().strip_suffix(')').unwrap_or(args);
    let unquote = |t: &str| {
        t.trim()
            .trim_matches(|c| c == '\'' || c == '"' || c == '`')
            .to_string()
    };
    crate::sql::quoted::split_outside_quotes(args)
        .iter()
        .filter_map(|arg| arg.split_once('=').map(|(k, v)| (unquote(k), unquote(v))))
        .collect()
}

/// `LOOKUP('table'='dim', 'max-attempts'='3')` -> [`LOOKUP.table`, `LOOKUP.max-attempts`].
fn options(hint: &str) -> Vec<String> {
    let (name, args) = match hint.split_once('(') {
        Some((name, args)) => (name.trim().to_uppercase(), args),
        None => return vec![hint.trim().to_uppercase()],
    };
    let args = args.trim_end().strip_suffix(')').unwrap_or(args);
    let mut keys: Vec<String> = crate::sql::quoted::split_outside_quotes(args)
        .iter()
        .filter_map(|arg| {
            let key = arg.split_once('=').map_or(*arg, |(k, _)| k);
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

    #[test]
    fn state_ttl_hints_give_their_smallest_changed_ttl() {
        let old = vec!["STATE_TTL('o' = '1d', 'u' = '2h')".to_string()];
        let new = vec!["STATE_TTL('o' = '7d', 'u' = '2h')".to_string()];
        assert_eq!(
            state_ttl(&old, &new, 0, 0),
            (
                vec!["STATE_TTL.o".to_string(), "STATE_TTL.u".to_string()],
                7_200_000,
                7_200_000
            )
        );
        let removed = state_ttl(&old, &[], 0, 0);
        assert_eq!(removed.2, 0, "no hint on the new side, TTL off there");
        let global = state_ttl(&old, &[], 0, 86_400_000);
        assert_eq!(
            (global.1, global.2),
            (3_600_000 * 2, 86_400_000),
            "without a hint, a table's operators keep the global TTL"
        );
        assert_eq!(state_ttl(&old, &old, 5, 5), (Vec::new(), 0, 0));
        let odd = vec!["STATE_TTL('o' = 'soon')".to_string()];
        assert_eq!(state_ttl(&old, &odd, 9, 9).2, 0, "not a duration");
    }
}
