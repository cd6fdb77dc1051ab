//! Writing a file a user edits so that a crash or a full disk never leaves it
//! half-written: the new text goes to a temporary file beside it, is synced,
//! and replaces the old one by a rename (atomic on one file system). The
//! previous version is kept as `NAME.bak`.

use std::io::Write;
use std::path::{Path, PathBuf};

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

#[cfg(test)]
mod tests {
    use super::*;

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
