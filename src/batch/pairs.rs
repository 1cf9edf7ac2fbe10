//! `check OLD_DIR NEW_DIR` or `check 'old/*.sql' 'new/*.sql'`: the job files of two trees (two
//! directories, or the files two globs match) paired by their path relative to each tree's root
//! (the directory, or the glob's literal base).

use super::glob::Glob;
use super::{pair_up, walk_files, Job, JobFilter, Side};
use crate::error::{Error, Result};
use crate::input::read_text;
use crate::source::SourceFile;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Whether `check OLD NEW` compares trees rather than two scripts.
pub fn is_tree(arg: &Path) -> bool {
    arg.is_dir() || Glob::is_glob(&arg.to_string_lossy())
}

/// One side: its root and the job files under it, by relative path.
fn side(arg: &Path, jobs: &[String]) -> Result<(PathBuf, Vec<(String, PathBuf)>)> {
    let text = arg.to_string_lossy().replace('\\', "/");
    let (root, filter) = if arg.is_dir() {
        (arg.to_path_buf(), JobFilter::new(arg.to_path_buf(), jobs))
    } else {
        let base = Glob::literal_base(&text);
        let root = PathBuf::from(if base.is_empty() { "." } else { &base });
        let pattern = text[base.len()..].trim_start_matches('/').to_string();
        let base = root.canonicalize().unwrap_or_else(|_| root.clone());
        (
            root,
            JobFilter {
                base,
                globs: vec![Glob::anchored(&pattern)],
            },
        )
    };
    if !root.is_dir() {
        return Err(Error::Io {
            path: root.display().to_string(),
            reason: "not a directory".into(),
        });
    }
    let files = walk_files(&root)
        .into_iter()
        .filter(|f| filter.matches(&f.canonicalize().unwrap_or_else(|_| f.clone())))
        .filter_map(|f| super::relative(&f, &root).map(|rel| (rel, f)))
        .collect();
    Ok((root, files))
}

/// The pairs of two trees, every file reported (unchanged ones too).
pub fn trees(old: &Path, new: &Path, jobs: &[String]) -> Result<Vec<Job>> {
    let (old_root, old_files) = side(old, jobs)?;
    let (_, new_files) = side(new, jobs)?;
    let read = |path: &Path| -> Side {
        Ok(SourceFile::new(
            path.display().to_string(),
            read_text(path)?,
        ))
    };
    let old_map: BTreeMap<String, Side> = old_files
        .iter()
        .map(|(rel, path)| (rel.clone(), read(path)))
        .collect();
    let new_map: BTreeMap<String, (PathBuf, Side)> = new_files
        .into_iter()
        .map(|(rel, path)| {
            let text = read(&path);
            (rel, (path, text))
        })
        .collect();
    Ok(pair_up(
        old_map,
        new_map,
        &|rel| old_root.join(rel),
        &|_| true,
        &|_| true,
    ))
}
