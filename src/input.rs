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
    if bytes.len() > MAX_SCRIPT_BYTES {
        return Err(Error::Limit {
            message: format!("{shown} is larger than {MAX_SCRIPT_BYTES} bytes"),
            help: Some("check that this is a Flink SQL script".into()),
        });
    }
    if bytes.contains(&0) {
        return Err(Error::Io {
            path: shown,
            reason: "it is a binary file (it contains NUL bytes), not SQL text".into(),
        });
    }
    String::from_utf8(bytes).map_err(|e| Error::Io {
        path: shown,
        reason: format!(
            "it is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ),
    })
}
