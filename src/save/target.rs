//! A save file claimed for a run before the run starts: the path checked
//! (its folder exists and takes new files; what is there already is a
//! Heartvale save this build can write) and locked, so a second Heartvale
//! writing the same file is refused at its start instead of losing its
//! whole run at its first save.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

use super::{SaveError, check_existing, check_version, open_to_read};

/// A save path this run may write, held for the run.
///
/// The lock is `flock` on the file itself (SQLite's own locks are `fcntl`
/// ones and do not see it); it ends when this is dropped or the process
/// ends, however it ends. Keep it until the last save is written.
#[derive(Debug)]
pub struct SaveTarget {
    path: PathBuf,
    /// Open for the lock's sake only.
    lock: File,
    /// The file did not exist: removed again if no save was ever written.
    created: bool,
}

impl SaveTarget {
    /// Claims `path` for this run's saves.
    pub fn claim(path: &Path) -> Result<Self, SaveError> {
        if path.is_dir() {
            return Err(io("this is a folder; name a file in it"));
        }
        let folder = crate::base::files::folder_of(path);
        if !folder.is_dir() {
            return Err(io(&format!(
                "the folder {} does not exist",
                folder.display()
            )));
        }
        check_existing(path)?;
        let existed = path.exists();
        let lock = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        let target = Self {
            path: path.to_path_buf(),
            lock,
            created: !existed,
        };
        match target.lock.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => return Err(SaveError::Busy),
            Err(TryLockError::Error(e)) => return Err(e.into()),
        }
        probe_folder(folder)?;
        if existed && target.lock.metadata()?.len() > 0 {
            check_version(&open_to_read(path)?)?;
        }
        Ok(target)
    }

    /// Where the saves go.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for SaveTarget {
    fn drop(&mut self) {
        // A run that ended before its first save leaves no empty file behind.
        if self.created && self.lock.metadata().is_ok_and(|m| m.len() == 0) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Whether new files can be made in `folder`: SQLite's journal goes beside
/// the save, so a file that can be written in a folder that cannot is no
/// place to save either.
fn probe_folder(folder: &Path) -> Result<(), SaveError> {
    let probe = folder.join(format!(".heartvale-probe-{}", std::process::id()));
    match OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(io(&format!(
            "new files cannot be made in the folder {} ({e})",
            folder.display()
        ))),
    }
}

fn io(why: &str) -> SaveError {
    SaveError::Io(std::io::Error::other(why.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_claim_is_refused_until_the_first_ends() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("town.db");
        let first = SaveTarget::claim(&path).unwrap();
        assert!(matches!(SaveTarget::claim(&path), Err(SaveError::Busy)));
        drop(first);
        assert!(!path.exists(), "nothing saved, nothing left behind");
        SaveTarget::claim(&path).unwrap();
    }

    #[test]
    fn a_missing_folder_a_folder_or_another_file_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let err = |p: &Path| SaveTarget::claim(p).unwrap_err().to_string();
        assert!(err(&dir.path().join("no/town.db")).contains("does not exist"));
        assert!(err(dir.path()).contains("is a folder"));
        let notes = dir.path().join("notes.txt");
        std::fs::write(&notes, "hello").unwrap();
        assert!(err(&notes).contains("not a Heartvale save"));
        assert_eq!(std::fs::read_to_string(&notes).unwrap(), "hello");
    }
}
