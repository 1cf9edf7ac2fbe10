//! YAML files: the ones built into the binary (rules, profiles, connector tables), and parsing
//! one with errors located in it.

use crate::error::{Error, Result};
use crate::limits::MAX_YAML_BYTES;
use crate::source::{ByteSpan, SourceFile};
use serde_saphyr::Location;

/// The rule files built into the binary: every `rules/<profile>/*.yaml` (see `build.rs`).
pub const BUILTIN: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/builtin_rules.rs"));

/// The rest of the first line of `text` that starts with `key` (a top-level key such as
/// `operator:`), without reading the file: it tells the kinds of YAML files apart. A
/// vectorized substring search, not a scan line by line: a check asks this of every built-in
/// file.
pub fn top_level_line<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    let at = memchr::memmem::find_iter(text.as_bytes(), key.as_bytes())
        .find(|&at| at == 0 || text.as_bytes()[at - 1] == b'\n')?;
    let rest = text.get(at + key.len()..)?;
    Some(
        rest.split('\n')
            .next()
            .unwrap_or(rest)
            .trim_end_matches('\r'),
    )
}

/// Byte offset where a YAML parser location starts.
pub fn raw_offset(file: &SourceFile, location: &Location) -> usize {
    location
        .span()
        .byte_offset()
        .map(|o| o as usize)
        .unwrap_or_else(|| file.offset_of(location.line(), location.column()))
}

/// Parses a YAML file into `T`, converting a YAML error into a located diagnostic.
pub fn parse_yaml<T: serde::de::DeserializeOwned>(
    file: &SourceFile,
    kind: &'static str,
) -> Result<T> {
    if file.text.len() > MAX_YAML_BYTES {
        return Err(Error::Limit {
            message: format!("{} is larger than {MAX_YAML_BYTES} bytes", file.name),
            help: None,
        });
    }
    serde_saphyr::from_str::<T>(&file.text).map_err(|e| {
        let span = match e.location() {
            Some(location) => {
                let start = raw_offset(file, &location);
                ByteSpan::new(start, start + 1)
            }
            None => ByteSpan::new(0, file.text.len().min(1)),
        };
        let message = e.to_string();
        let message = message.lines().next().unwrap_or("invalid YAML").to_string();
        Error::located(
            kind,
            file,
            span,
            format!("invalid {kind} file: {message}"),
            "here",
            None,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::top_level_line;

    #[test]
    fn a_top_level_key_starts_a_line() {
        let text = "# operator: not this\ndescription: an operator: here\r\noperator: join # kind\r\nrules: []\n";
        assert_eq!(top_level_line(text, "operator:"), Some(" join # kind"));
        assert_eq!(top_level_line("family:\n", "family:"), Some(""));
        assert_eq!(top_level_line("rules:\n  family: x\n", "family:"), None);
        assert_eq!(top_level_line("", "family:"), None);
    }
}
