//! File paths: globs, paths relative to a base, and the files under a directory (read by batch
//! runs, the configuration file, the allows and the input reader).

pub mod glob;

use std::path::{Path, PathBuf};

/// `path` relative to `base`, `/`-separated, if it is inside it.
pub fn relative(path: &Path, base: &Path) -> Option<String> {
    let rel = path.strip_prefix(base).ok()?;
    Some(
        rel.components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/"),
    )
}

/// Every file under `start` (or `start` itself when it is a file), hidden directories (`.git`)
/// skipped, symbolic links to directories not followed; sorted.
pub fn walk_files(start: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![start.to_path_buf()];
    while let Some(path) = stack.pop() {
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            let hidden = path != start
                && path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'));
            if hidden {
                continue;
            }
            if let Ok(entries) = std::fs::read_dir(&path) {
                stack.extend(entries.filter_map(|e| e.ok().map(|e| e.path())));
            }
        } else if path.is_file() {
            out.push(path);
        }
    }
    out.sort();
    out
}
