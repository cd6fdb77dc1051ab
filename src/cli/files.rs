//! The files a command is given, checked against each other before anything
//! is opened: a log named like the save it runs from would be emptied by
//! its first line.

use std::path::{Path, PathBuf};

use super::CliError;

/// How a command uses a file it is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Use {
    /// Only read (`--load`, `--input`).
    Read,
    /// Written in place, keeping what it holds until then (`--save`): may be
    /// the file read.
    Update,
    /// Emptied and written from the start (`--log`, `--transcript`).
    Replace,
}

/// Refuses two flags that name one file where one of them would destroy
/// what the other needs. Devices and pipes (`/dev/null`, a FIFO) are no
/// such file.
pub(super) fn refuse_clashes(files: &[(&str, Option<&Path>, Use)]) -> Result<(), CliError> {
    let named: Vec<(&str, PathBuf, Use)> = files
        .iter()
        .filter_map(|&(flag, path, usage)| Some((flag, identity(path?)?, usage)))
        .collect();
    for (i, (a, path, a_use)) in named.iter().enumerate() {
        for (b, other, b_use) in &named[i + 1..] {
            let harmless = matches!(
                (a_use, b_use),
                (Use::Read, Use::Read | Use::Update) | (Use::Update, Use::Read)
            );
            if path == other && !harmless {
                return Err(CliError::failed(format!(
                    "{a} and {b} name the same file ({}): {}; choose another file for one of them",
                    path.display(),
                    why(*a_use, *b_use, a, b)
                )));
            }
        }
    }
    Ok(())
}

/// What would happen, said for the user.
fn why(a_use: Use, b_use: Use, a: &str, b: &str) -> String {
    match (a_use, b_use) {
        (Use::Replace, _) => format!("writing {a} would empty what {b} needs"),
        (_, Use::Replace) => format!("writing {b} would empty what {a} needs"),
        _ => format!("{a} and {b} would both write it"),
    }
}

/// The file a path names, the same however it is spelled (`./x`, `d/../x`,
/// a link); `None` for devices and pipes.
fn identity(path: &Path) -> Option<PathBuf> {
    if let Ok(meta) = std::fs::metadata(path) {
        return meta.is_file().then(|| path.canonicalize().ok()).flatten();
    }
    // Not there yet: the same folder and name.
    let folder = crate::base::files::folder_of(path);
    Some(folder.canonicalize().ok()?.join(path.file_name()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_or_transcript_over_the_save_or_input_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let save = dir.path().join("town.db");
        std::fs::write(&save, "").unwrap();
        let spelled = dir.path().join(".").join("town.db");
        let clash = |a: (&str, Use), b: (&str, Use)| {
            refuse_clashes(&[(a.0, Some(&save), a.1), (b.0, Some(&spelled), b.1)])
        };
        // Going on from a save and saving over it is the window's default.
        clash(("--load", Use::Read), ("--save", Use::Update)).unwrap();
        let err = clash(("--load", Use::Read), ("--log", Use::Replace)).unwrap_err();
        assert!(
            err.to_string()
                .contains("--load and --log name the same file"),
            "{err}"
        );
        assert!(err.to_string().contains("writing --log would empty"));
        assert!(clash(("--input", Use::Read), ("--transcript", Use::Replace)).is_err());
        // Not there yet is the same file too.
        let new = dir.path().join("new.db");
        let both = [
            ("--save", Some(new.as_path()), Use::Update),
            ("--log", Some(new.as_path()), Use::Replace),
        ];
        assert!(refuse_clashes(&both).is_err());
        // Different files, and devices, are fine.
        let log = dir.path().join("log.jsonl");
        let null = Path::new("/dev/null");
        refuse_clashes(&[
            ("--save", Some(&save), Use::Update),
            ("--log", Some(&log), Use::Replace),
            ("--transcript", Some(null), Use::Replace),
            ("--input", Some(null), Use::Read),
        ])
        .unwrap();
    }
}
