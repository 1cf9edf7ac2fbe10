//! Snapshot files under `tests/snapshots/`: compared, or rewritten with `UPDATE_SNAPSHOTS=1`.

/// Asserts that `actual` is the content of `path`, or writes it there under `UPDATE_SNAPSHOTS`.
pub fn assert_snapshot(path: &str, actual: &str) {
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(path, actual).expect("write the snapshot");
        return;
    }
    let expected = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        expected == actual,
        "{path} differs (UPDATE_SNAPSHOTS=1 to accept):\n--- expected\n{expected}\n--- actual\n{actual}"
    );
}
