//! Table instances in canonical texts: a table read more than once has one instance per read,
//! numbered in reading order (`t`, `` `t#2` ``, ...). Renaming one (a source renamed, reads
//! renumbered) rewrites the column references `instance.column` of a text.

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '`' | '$')
}

/// `text` with every column reference `old.` (at a name boundary, outside quotes) as `new.`.
pub fn rename_in(text: &str, old: &str, new: &str) -> String {
    let prefix = format!("{old}.");
    let mut out = String::with_capacity(text.len());
    let mut quote: Option<char> = None;
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        let Some(c) = rest.chars().next() else { break };
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' => quote = Some(c),
            None => {
                let boundary = !text[..at].chars().next_back().is_some_and(is_name_char);
                if boundary && rest.starts_with(&prefix) {
                    out.push_str(new);
                    out.push('.');
                    at += prefix.len();
                    continue;
                }
            }
        }
        out.push(c);
        at += c.len_utf8();
    }
    out
}

/// `text` with the renames applied in order.
pub fn rename_text(text: &str, renames: &[(String, String)]) -> String {
    renames.iter().fold(text.to_string(), |text, (old, new)| {
        rename_in(&text, old, new)
    })
}

/// `a -> b` for each pair, through placeholders so that a swap does not undo itself.
pub fn two_phase(perm: &[(String, String)]) -> Vec<(String, String)> {
    let placeholder = |i: usize| format!("\u{1}{i}");
    let mut out: Vec<(String, String)> = perm
        .iter()
        .enumerate()
        .map(|(i, (a, _))| (a.clone(), placeholder(i)))
        .collect();
    out.extend(
        perm.iter()
            .enumerate()
            .map(|(i, (_, b))| (placeholder(i), b.clone())),
    );
    out
}

/// The renames that number the instances of each table a text reads by where they first
/// appear in it: a text reading only `` `t#2` `` reads `t`, one reading `` `t#3` `` then `t`
/// reads `t` then `` `t#2` ``. Two operators planned alike for two reads of one view are then
/// written alike.
pub fn renumbered_by_appearance(text: &str) -> Vec<(String, String)> {
    let mut tables: Vec<&str> = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find('`') {
        let after = &rest[at + 1..];
        let Some(end) = after.find('`') else { break };
        let name = &after[..end];
        if let Some((table, n)) = name.rsplit_once('#') {
            if !table.is_empty()
                && n.parse::<u32>().is_ok_and(|n| n >= 2)
                && !tables.contains(&table)
            {
                tables.push(table);
            }
        }
        rest = &after[end + 1..];
    }
    let mut renames = Vec::new();
    for table in tables {
        let mut found: Vec<(usize, String)> = Vec::new();
        let plain = format!("{table}.");
        let mut from = 0;
        while let Some(at) = text[from..].find(&plain) {
            let at = from + at;
            if !text[..at].chars().next_back().is_some_and(is_name_char) {
                found.push((at, table.to_string()));
                break;
            }
            from = at + plain.len();
        }
        let numbered = format!("`{table}#");
        let mut from = 0;
        while let Some(at) = text[from..].find(&numbered) {
            let at = from + at;
            let after = &text[at + numbered.len()..];
            if let Some(end) = after.find('`') {
                let instance = format!("{numbered}{}`", &after[..end]);
                if !found.iter().any(|(_, i)| *i == instance) {
                    found.push((at, instance));
                }
            }
            from = at + numbered.len();
        }
        found.sort();
        for (k, (_, instance)) in found.into_iter().enumerate() {
            let canonical = match k {
                0 => table.to_string(),
                k => format!("`{table}#{}`", k + 1),
            };
            if instance != canonical {
                renames.push((instance, canonical));
            }
        }
    }
    two_phase(&renames)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_of_the_renamed_table_takes_the_new_name_and_nothing_else_does() {
        assert_eq!(
            rename_in(
                "SUM(MyTable.b) + XMyTable.c + 'MyTable.d'",
                "MyTable",
                "Events"
            ),
            "SUM(Events.b) + XMyTable.c + 'MyTable.d'"
        );
        assert_eq!(
            rename_in("cat.MyTable.b", "MyTable", "Events"),
            "cat.MyTable.b"
        );
    }

    #[test]
    fn instances_are_numbered_by_where_they_first_appear() {
        let text = "SUM(`orders#2`.amount) BY `orders#2`.k";
        assert_eq!(
            rename_text(text, &renumbered_by_appearance(text)),
            "SUM(orders.amount) BY orders.k"
        );
        let text = "`t#3`.k = t.k AND `t#3`.v > 1";
        assert_eq!(
            rename_text(text, &renumbered_by_appearance(text)),
            "t.k = `t#2`.k AND t.v > 1"
        );
        assert!(renumbered_by_appearance("t.k = `t#2`.k").is_empty());
    }
}
