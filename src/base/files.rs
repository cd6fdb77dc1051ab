//! Reading a user's file with bounds (regular files only, a size limit), and
//! writing one so that a crash or a full disk never leaves it half-written: the new text goes to a temporary file beside it, is synced,
//! and replaces the old one by a rename (atomic on one file system). The
//! previous version is kept as `NAME.bak`.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The folder `path`'s file is (or would be) in: `.` for a bare name.
pub(crate) fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Where the previous version of `path` is kept.
pub(crate) fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".bak");
    path.with_file_name(name)
}

/// Replaces `path` with `text`: written to a temporary file beside it, synced,
/// the previous version copied to [`backup_path`], then renamed into place.
pub(crate) fn replace_keeping_previous(path: &Path, text: &str) -> std::io::Result<()> {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.tmp", std::process::id()));
    let temp = path.with_file_name(name);
    let written = (|| {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(e);
    }
    if path.is_file() {
        std::fs::copy(path, backup_path(path))?;
    }
    std::fs::rename(&temp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })
}

/// The largest file a scenario or script set may have: far beyond any town
/// written by hand or generated, small enough to read into memory.
pub(crate) const MAX_FILE: u64 = 64 * 1024 * 1024;

/// A file's text, refusing what is not a regular file (a FIFO would block
/// the reader forever, a device never end) or is over `limit` bytes.
pub(crate) fn read_text(path: &Path, limit: u64) -> std::io::Result<String> {
    use std::io::Read;
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(std::io::Error::other(
            "not a regular file (a folder, pipe or device)",
        ));
    }
    let too_big = || {
        std::io::Error::other(format!(
            "{} MiB is over the limit of {} MiB",
            meta.len().div_ceil(1024 * 1024),
            limit / (1024 * 1024)
        ))
    };
    if meta.len() > limit {
        return Err(too_big());
    }
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(limit + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > limit {
        return Err(too_big());
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_within_the_limit_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.yaml");
        std::fs::write(&path, "a: 1\n").unwrap();
        assert_eq!(read_text(&path, 100).unwrap(), "a: 1\n");
        let e = read_text(&path, 3).unwrap_err();
        assert!(e.to_string().contains("over the limit"), "{e}");
        let e = read_text(dir.path(), 100).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        let missing = read_text(&dir.path().join("b.yaml"), 100).unwrap_err();
        assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
        #[cfg(unix)]
        {
            let fifo = dir.path().join("fifo.yaml");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                let e = read_text(&fifo, 100).unwrap_err();
                assert!(e.to_string().contains("not a regular file"), "{e}");
            }
        }
    }

    #[test]
    fn the_file_is_replaced_whole_and_the_previous_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tuning.yaml");
        replace_keeping_previous(&path, "a: 1\n").unwrap();
        assert!(!backup_path(&path).exists(), "nothing to keep yet");
        replace_keeping_previous(&path, "a: 2\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a: 2\n");
        assert_eq!(
            std::fs::read_to_string(backup_path(&path)).unwrap(),
            "a: 1\n"
        );
        // No temporary file is left behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn a_failed_write_leaves_the_file_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing").join("tuning.yaml");
        assert!(replace_keeping_previous(&path, "a: 1\n").is_err());
        let path = dir.path().join("tuning.yaml");
        std::fs::write(&path, "a: 1\n").unwrap();
        // A folder where the temporary file would go makes its creation fail.
        let temp = format!("tuning.yaml.{}.tmp", std::process::id());
        std::fs::create_dir(dir.path().join(temp)).unwrap();
        assert!(replace_keeping_previous(&path, "a: 2\n").is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a: 1\n");
    }
}
