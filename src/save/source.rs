//! Where a saved town came from, kept in the save so that the file alone
//! opens it: the scenario folder's files (with the script sets its residents
//! name, wherever they lie), or the size and seed of a generated town.

use std::path::{Component, Path, PathBuf};

use crate::scenario::Scenario;
use crate::scenario::generate::generated_town;

/// The scenario of a saved town.
#[derive(Debug, Clone, PartialEq)]
pub enum TownSource {
    /// A scenario folder: every file, by its path relative to the folder
    /// (script sets outside it start with `../`).
    Folder {
        /// (relative path, contents)
        files: Vec<(String, Vec<u8>)>,
    },
    /// `--generate N`.
    Generated {
        /// Residents.
        residents: usize,
        /// The generator's seed.
        seed: u64,
    },
}

impl TownSource {
    /// The files of the scenario in `dir` and of the script sets it names.
    pub fn folder(dir: &Path, scenario: &Scenario) -> std::io::Result<Self> {
        let mut files = Vec::new();
        collect(dir, dir, &mut files)?;
        for p in &scenario.residents {
            let sets = [
                p.counsel.as_ref().map(|c| c.dir.clone()),
                p.converse.as_ref().map(|c| c.dir.clone()),
            ];
            for set in sets.into_iter().flatten() {
                let set = if set.is_absolute() {
                    set
                } else {
                    dir.join(set)
                };
                if !normalize(&set).starts_with(normalize(dir)) {
                    collect(dir, &set, &mut files)?;
                }
            }
        }
        files.sort();
        files.dedup_by(|a, b| a.0 == b.0);
        Ok(Self::Folder { files })
    }

    /// Loads the scenario: a folder's files are written to a fresh temporary
    /// folder, loaded and checked as any scenario, and removed again. A
    /// phrase bank an older Heartvale wrote (the rest of the town loads) is
    /// left out, with a note: the town speaks with the built-in bank rather
    /// than the save being lost.
    pub fn load(&self) -> Result<Scenario, String> {
        match self {
            Self::Generated { residents, seed } => Ok(generated_town(*residents, *seed)),
            Self::Folder { files } => {
                let root = temp_root();
                let result = materialize(&root, files)
                    .and_then(|dir| Scenario::load(&dir).or_else(|e| older_bank(&dir, e)));
                let _ = std::fs::remove_dir_all(&root);
                result
            }
        }
    }
}

/// The scenario without its phrase bank, when the bank is all that failed.
fn older_bank(dir: &Path, problems: crate::base::Diagnostics) -> Result<Scenario, String> {
    let bank = crate::scenario::dialogue::FILE;
    let only_bank = problems
        .iter()
        .all(|d| d.file.file_name().is_some_and(|n| n == bank));
    let fail = |e: &crate::base::Diagnostics| format!("the saved scenario does not load:\n{e}");
    if !only_bank {
        return Err(fail(&problems));
    }
    std::fs::remove_file(dir.join(bank)).map_err(|e| e.to_string())?;
    let scenario = Scenario::load(dir).map_err(|e| fail(&e))?;
    eprintln!(
        "note: the save's {bank} is from an older Heartvale ({} problem(s)); the town speaks with the built-in phrase bank",
        problems.len()
    );
    Ok(scenario)
}

/// Adds the files under `from`, named relative to `base`.
fn collect(base: &Path, from: &Path, out: &mut Vec<(String, Vec<u8>)>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(from)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        if path.is_dir() {
            collect(base, &path, out)?;
        } else {
            out.push((relative(base, &path), std::fs::read(&path)?));
        }
    }
    Ok(())
}

/// `path` relative to `base`, with `..` where it lies outside, `/`-separated.
fn relative(base: &Path, path: &Path) -> String {
    let (base, path) = (normalize(base), normalize(path));
    let common = base
        .components()
        .zip(path.components())
        .take_while(|(a, b)| a == b)
        .count();
    let ups = base.components().count() - common;
    let mut parts: Vec<String> = vec!["..".into(); ups];
    parts.extend(
        path.components()
            .skip(common)
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// An absolute path with `.` and `..` resolved lexically.
fn normalize(path: &Path) -> PathBuf {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

fn temp_root() -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    std::env::temp_dir().join(format!("heartvale-save-{}-{nanos}", std::process::id()))
}

/// Writes the files under `root` and returns the scenario folder: nested as
/// deep as the deepest `../` needs, so every path stays inside `root`.
fn materialize(root: &Path, files: &[(String, Vec<u8>)]) -> Result<PathBuf, String> {
    let depth = files
        .iter()
        .map(|(p, _)| p.split('/').take_while(|s| *s == "..").count())
        .max()
        .unwrap_or(0);
    let mut dir = root.to_path_buf();
    for i in 0..depth {
        dir.push(format!("up{i}"));
    }
    dir.push("town");
    for (rel, bytes) in files {
        if rel
            .split('/')
            .skip_while(|s| *s == "..")
            .any(|s| s == ".." || s.is_empty())
        {
            return Err(format!("the save names a file outside its town: {rel}"));
        }
        let path = normalize(&dir.join(rel));
        let write = || -> std::io::Result<()> {
            std::fs::create_dir_all(path.parent().unwrap_or(root))?;
            std::fs::write(&path, bytes)
        };
        write().map_err(|e| {
            format!(
                "cannot unpack the saved scenario to {}: {e}",
                path.display()
            )
        })?;
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_outside_the_folder_go_up() {
        let base = Path::new("/a/b/town");
        assert_eq!(relative(base, Path::new("/a/b/town/x.yaml")), "x.yaml");
        assert_eq!(
            relative(base, Path::new("/a/scripts/s.yaml")),
            "../../scripts/s.yaml"
        );
    }

    #[test]
    fn the_default_town_comes_back_from_its_files() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/heartvale");
        let scenario = Scenario::load(&dir).unwrap();
        let source = TownSource::folder(&dir, &scenario).unwrap();
        let again = source.load().unwrap();
        assert_eq!(again.residents.len(), scenario.residents.len());
        assert_eq!(again.name, scenario.name);
    }
}
