//! Reading user files: size-capped, and refusing binary or non-UTF-8 content with a clear error.

use crate::error::{Error, Result};
use crate::limits::MAX_SCRIPT_BYTES;
use std::io::Read;
use std::path::Path;

/// Reads a text file (or standard input for `-`), at most the script size limit.
pub fn read_text(path: &Path) -> Result<String> {
    let shown = path.display().to_string();
    let io = |e: std::io::Error| Error::Io {
        path: shown.clone(),
        reason: e.to_string(),
    };
    let mut bytes = Vec::new();
    let limit = (MAX_SCRIPT_BYTES + 1) as u64;
    if shown == "-" {
        std::io::stdin()
            .take(limit)
            .read_to_end(&mut bytes)
            .map_err(io)?;
    } else {
        std::fs::File::open(path)
            .map_err(io)?
            .take(limit)
            .read_to_end(&mut bytes)
            .map_err(io)?;
    }
    decode(&shown, bytes)
}

/// Checks bytes read from `shown` (a file, standard input, a git blob) as a script's text:
/// at most the size limit, no NUL bytes, UTF-8.
pub fn decode(shown: &str, bytes: Vec<u8>) -> Result<String> {
    if bytes.len() > MAX_SCRIPT_BYTES {
        return Err(Error::Limit {
            message: format!("{shown} is larger than {MAX_SCRIPT_BYTES} bytes"),
            help: Some("check that this is a Flink SQL script".into()),
        });
    }
    if bytes.contains(&0) {
        return Err(Error::Io {
            path: shown.to_string(),
            reason: "it is a binary file (it contains NUL bytes), not SQL text".into(),
        });
    }
    String::from_utf8(bytes).map_err(|e| Error::Io {
        path: shown.to_string(),
        reason: format!(
            "it is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ),
    })
}

/// The rule files a `--rules` argument names: the file itself, or every `*.yaml` / `*.yml`
/// under the directory, recursively (hidden directories and `profile.yaml` skipped), sorted.
/// Naming nothing is an error: a mistyped or empty directory must not pass silently.
pub fn rule_files(path: &Path) -> Result<Vec<std::path::PathBuf>> {
    let shown = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| Error::Io {
        path: shown.clone(),
        reason: e.to_string(),
    })?;
    if meta.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let files: Vec<_> = crate::paths::walk_files(path)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .filter(|p| p.file_name().is_some_and(|n| n != "profile.yaml"))
        .collect();
    if files.is_empty() {
        return Err(Error::Io {
            path: shown,
            reason: "it has no rule files (*.yaml or *.yml, searched recursively)".into(),
        });
    }
    Ok(files)
}
