//! Path globs as in `.gitignore` and ruff's configuration: `*` and `?` within one path segment,
//! `[abc]` / `[a-z]` / `[!a]` classes, `**` for any number of segments. A pattern without `/`
//! matches a file name in any directory; a pattern that matches a directory matches every file
//! under it. Paths are `/`-separated and relative.

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    pub text: String,
    segments: Vec<Vec<char>>,
    /// No `/` in the pattern: it is matched against each path segment (`*.sql`).
    anywhere: bool,
}

const META: [char; 3] = ['*', '?', '['];

impl Glob {
    pub fn new(text: &str) -> Glob {
        let trimmed = text.trim_start_matches("./").trim_end_matches('/');
        Glob {
            text: text.to_string(),
            segments: trimmed.split('/').map(|s| s.chars().collect()).collect(),
            anywhere: !trimmed.contains('/'),
        }
    }

    /// A pattern matched from the root even without a `/` (`*.sql` matches `a.sql`, not
    /// `x/a.sql`): a glob given on the command line below its literal directory.
    pub fn anchored(text: &str) -> Glob {
        Glob {
            anywhere: false,
            ..Glob::new(text)
        }
    }

    /// Whether `path` (relative, `/`-separated), or a directory it is in, matches.
    pub fn matches(&self, path: &str) -> bool {
        let path = path.replace('\\', "/");
        let parts: Vec<Vec<char>> = path
            .trim_start_matches("./")
            .split('/')
            .map(|s| s.chars().collect())
            .collect();
        if self.anywhere {
            return parts.iter().any(|part| segment(&self.segments[0], part));
        }
        (1..=parts.len()).any(|n| segments(&self.segments, &parts[..n]))
    }

    /// Whether the text has any glob character (else it names one path).
    pub fn is_glob(text: &str) -> bool {
        text.contains(META)
    }

    /// The directory before the first segment with a glob character (`jobs` for `jobs/**/*.sql`).
    pub fn literal_base(text: &str) -> String {
        let literal: Vec<&str> = text.split('/').take_while(|s| !s.contains(META)).collect();
        literal.join("/")
    }
}

/// Whether a whole name (no path: `/` is a character like any) matches a one-segment pattern:
/// `*`, `?`, classes and literal characters (a connector's option value, `*debezium*`).
pub fn matches_name(pattern: &str, name: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let name: Vec<char> = name.chars().collect();
    segment(&pattern, &name)
}

fn segments(pattern: &[Vec<char>], path: &[Vec<char>]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((first, rest)) if first.as_slice() == ['*', '*'] => {
            (0..=path.len()).any(|skip| segments(rest, &path[skip..]))
        }
        Some((first, rest)) => match path.split_first() {
            Some((part, path_rest)) => segment(first, part) && segments(rest, path_rest),
            None => false,
        },
    }
}

/// One segment: `*`, `?`, classes and literal characters.
fn segment(pattern: &[char], text: &[char]) -> bool {
    match pattern.split_first() {
        None => text.is_empty(),
        Some(('*', rest)) => (0..=text.len()).any(|skip| segment(rest, &text[skip..])),
        Some(('?', rest)) => !text.is_empty() && segment(rest, &text[1..]),
        Some(('[', rest)) => match (class(rest), text.split_first()) {
            (Some((matches, after)), Some((c, text_rest))) => {
                matches(*c) && segment(after, text_rest)
            }
            (None, Some((c, text_rest))) => *c == '[' && segment(rest, text_rest),
            (_, None) => false,
        },
        Some((p, rest)) => text.first() == Some(p) && segment(rest, &text[1..]),
    }
}

type ClassMatch<'a> = (Box<dyn Fn(char) -> bool + 'a>, &'a [char]);

/// A `[...]` class after its `[`: a matcher and the pattern after `]`, or `None` if unclosed.
fn class(pattern: &[char]) -> Option<ClassMatch<'_>> {
    let (negated, body) = match pattern.first() {
        Some('!' | '^') => (true, &pattern[1..]),
        _ => (false, pattern),
    };
    // A `]` right after `[` (or `[!`) is a literal member.
    let close = body
        .iter()
        .enumerate()
        .skip(1)
        .find(|(_, c)| **c == ']')
        .map(|(i, _)| i)?;
    let members = &body[..close];
    let after = &body[close + 1..];
    let matcher = move |c: char| {
        let mut i = 0;
        let mut found = false;
        while i < members.len() {
            if i + 2 < members.len() && members[i + 1] == '-' {
                found |= members[i] <= c && c <= members[i + 2];
                i += 3;
            } else {
                found |= members[i] == c;
                i += 1;
            }
        }
        found != negated
    };
    Some((Box::new(matcher), after))
}

#[cfg(test)]
mod tests {
    use super::Glob;

    #[test]
    fn a_pattern_without_a_slash_matches_a_name_in_any_directory() {
        let g = Glob::new("*.sql");
        assert!(g.matches("a.sql"));
        assert!(g.matches("jobs/team/a.sql"));
        assert!(!g.matches("jobs/a.sql.bak"));
    }

    #[test]
    fn double_star_spans_directories_and_single_star_does_not() {
        assert!(Glob::new("jobs/**/*.sql").matches("jobs/a.sql"));
        assert!(Glob::new("jobs/**/*.sql").matches("jobs/x/y/a.sql"));
        assert!(!Glob::new("jobs/*.sql").matches("jobs/x/a.sql"));
        assert!(!Glob::new("jobs/*.sql").matches("other/a.sql"));
    }

    #[test]
    fn a_directory_pattern_matches_the_files_under_it() {
        assert!(Glob::new("jobs/legacy").matches("jobs/legacy/a.sql"));
        assert!(Glob::new("jobs/legacy/").matches("jobs/legacy/x/a.sql"));
        assert!(!Glob::new("jobs/legacy").matches("jobs/legacy2/a.sql"));
    }

    #[test]
    fn classes_and_question_marks_match_one_character() {
        assert!(Glob::new("jobs/v[0-9].sql").matches("jobs/v3.sql"));
        assert!(!Glob::new("jobs/v[!0-9].sql").matches("jobs/v3.sql"));
        assert!(Glob::new("jobs/?.sql").matches("jobs/a.sql"));
        assert!(Glob::new("jobs/[a.sql").matches("jobs/[a.sql"));
    }

    #[test]
    fn the_literal_base_is_the_directory_before_the_first_glob() {
        assert_eq!(Glob::literal_base("jobs/**/*.sql"), "jobs");
        assert_eq!(Glob::literal_base("*.sql"), "");
        assert!(Glob::is_glob("jobs/*.sql") && !Glob::is_glob("jobs/a.sql"));
    }
}
