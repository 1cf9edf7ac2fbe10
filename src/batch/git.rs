//! The git baseline of `check --against REV`: each job's old script read from the revision's
//! tree (with gix), its new script from the work tree; files paired by path, renames followed
//! by content (see [`super::similar`]).

use super::{pair_up, Job, JobFilter, Side};
use crate::error::{Error, Result};
use crate::input::{decode, read_text};
use crate::source::SourceFile;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

fn git_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Usage(format!("git: {what}: {e}"))
}

/// The jobs that differ between `rev` and the work tree of the repository around `cwd`: with
/// `paths`, those files (also unchanged ones) and the job files under those directories.
pub fn against(rev: &str, cwd: &Path, paths: &[PathBuf], filter: &JobFilter) -> Result<Vec<Job>> {
    let repo = gix::discover(cwd).map_err(|e| git_error("no repository here", e))?;
    let root = repo
        .workdir()
        .ok_or_else(|| Error::Usage("git: the repository has no work tree".into()))?;
    let root = root.canonicalize().map_err(|e| git_error("work tree", e))?;
    let tree = repo
        .rev_parse_single(rev)
        .map_err(|e| git_error(&format!("cannot resolve `{rev}`"), e))?
        .object()
        .map_err(|e| git_error(&format!("cannot read `{rev}`"), e))?
        .peel_to_tree()
        .map_err(|e| git_error(&format!("`{rev}` has no tree"), e))?;
    let entries = tree
        .traverse()
        .breadthfirst
        .files()
        .map_err(|e| git_error(&format!("cannot list the files of `{rev}`"), e))?;
    let cwd = cwd
        .canonicalize()
        .map_err(|e| git_error("working directory", e))?;
    let selection = Selection::new(&root, &cwd, paths)?;
    let is_job = |rel: &str| selection.named(rel) || filter.matches(&root.join(rel));

    let mut old: BTreeMap<String, Side> = BTreeMap::new();
    for entry in entries.iter().filter(|e| e.mode.is_blob()) {
        let rel = entry.filepath.to_string();
        if is_job(&rel) {
            let shown = format!("{rev}:{rel}");
            let text = repo
                .find_blob(entry.oid)
                .map_err(|e| git_error(&format!("cannot read {shown}"), e))
                .and_then(|blob| decode(&shown, blob.data.clone()))
                .map(|text| SourceFile::new(shown, text));
            old.insert(rel, text);
        }
    }
    let mut on_disk: BTreeSet<String> = tracked_files(&repo, &root, filter)?;
    on_disk.extend(
        selection
            .files
            .iter()
            .filter(|rel| root.join(rel).is_file())
            .cloned(),
    );
    for rel in &selection.files {
        if !old.contains_key(rel) && !on_disk.contains(rel) {
            return Err(Error::Usage(format!(
                "{rel} is neither in the work tree nor in `{rev}`"
            )));
        }
    }
    let new: BTreeMap<String, (PathBuf, Side)> = on_disk
        .into_iter()
        .map(|rel| {
            let location = root.join(&rel);
            let text = read_text(&location).map(|text| SourceFile::new(rel.clone(), text));
            (rel, (location, text))
        })
        .collect();
    Ok(pair_up(
        old,
        new,
        &|rel| root.join(rel),
        &|rel| selection.files.contains(rel),
        &|rel| selection.includes(rel),
    ))
}

/// The PATHs given on the command line, relative to the repository's root.
struct Selection {
    /// Named files (checked even when unchanged).
    files: BTreeSet<String>,
    /// Named directories (their changed job files are checked).
    dirs: Vec<String>,
    /// Nothing named: every changed job file.
    all: bool,
}

impl Selection {
    fn new(root: &Path, cwd: &Path, paths: &[PathBuf]) -> Result<Selection> {
        let mut selection = Selection {
            files: BTreeSet::new(),
            dirs: Vec::new(),
            all: paths.is_empty(),
        };
        for path in paths {
            let rel = repo_relative(root, cwd, path).ok_or_else(|| {
                Error::Usage(format!(
                    "{} is outside the repository at {}",
                    path.display(),
                    root.display()
                ))
            })?;
            if cwd.join(path).is_dir() {
                selection.dirs.push(rel);
            } else {
                selection.files.insert(rel);
            }
        }
        Ok(selection)
    }

    fn named(&self, rel: &str) -> bool {
        self.files.contains(rel)
    }

    fn includes(&self, rel: &str) -> bool {
        self.all
            || self.files.contains(rel)
            || self
                .dirs
                .iter()
                .any(|d| d.is_empty() || rel.starts_with(&format!("{d}/")))
    }
}

/// `path` (relative to `cwd`, or absolute) relative to `root`, `/`-separated, resolved lexically
/// (it may name a file that only the revision has).
fn repo_relative(root: &Path, cwd: &Path, path: &Path) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    for component in cwd.join(path).components() {
        match component {
            Component::ParentDir => {
                parts.pop();
            }
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
        }
    }
    let absolute: PathBuf = std::iter::once(PathBuf::from("/"))
        .chain(parts.iter().map(PathBuf::from))
        .collect();
    super::relative(&absolute, root)
}

/// The job files of the work tree that git tracks (in the index: committed or staged), as
/// `git diff REV` sees them: untracked and ignored files (build output) are not jobs.
fn tracked_files(
    repo: &gix::Repository,
    root: &Path,
    filter: &JobFilter,
) -> Result<BTreeSet<String>> {
    let index = repo
        .index_or_empty()
        .map_err(|e| git_error("cannot read the index", e))?;
    Ok(index
        .entries()
        .iter()
        .map(|entry| entry.path(&index).to_string())
        .filter(|rel| {
            let file = root.join(rel);
            filter.matches(&file) && file.is_file()
        })
        .collect())
}
