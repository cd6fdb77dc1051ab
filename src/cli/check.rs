//! `heartvale check`: scenario folders (with their script sets) and script
//! folders; every problem on stdout, one line each.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::CliError;
use crate::scenario::Scenario;
use crate::script::check::{check_dir, has_yaml};
use crate::script::diag::Severity;

/// Checks every path; fails with the number of problems found.
pub(super) fn check(paths: &[PathBuf]) -> Result<ExitCode, CliError> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut problems = 0;
    for path in paths {
        // A folder without town.yaml but with YAML files is a script set,
        // however broken; anything else is checked as a scenario.
        problems += if !path.join("town.yaml").exists() && has_yaml(path) {
            check_scripts(path, &mut out)
        } else {
            check_scenario(path, &mut out)
        };
    }
    if problems > 0 {
        return Err(CliError::Problems(problems));
    }
    Ok(ExitCode::SUCCESS)
}

/// A scenario folder, the script sets under its `scripts/` and its Cupid
/// scene bank; the problem count.
fn check_scenario(path: &Path, out: &mut impl Write) -> usize {
    let mut problems = 0;
    let mut sets: Vec<PathBuf> = std::fs::read_dir(path.join("scripts"))
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir() && has_yaml(p))
        .collect();
    sets.sort();
    for set in &sets {
        problems += check_scripts(set, out);
    }
    let scenes = path.join("cupid").join("scenes.yaml");
    let loaded = Scenario::load(path);
    // The scenes are checked against the town when it loads (places,
    // residents named), on their own otherwise.
    let bank = match &loaded {
        Ok(town) => crate::cupid::SceneBank::load_for(&scenes, town),
        Err(_) => crate::cupid::SceneBank::load(&scenes),
    };
    if scenes.exists()
        && let Err(diags) = bank
    {
        problems += diags.len();
        for d in diags.iter() {
            let _ = writeln!(out, "{d}");
        }
    }
    match loaded {
        Ok(s) => eprintln!(
            "ok: {} — {} ({} residents, {} locations)",
            path.display(),
            s.name,
            s.residents.len(),
            s.town.len()
        ),
        Err(diags) => {
            problems += diags.len();
            for d in diags.iter() {
                let _ = writeln!(out, "{d}");
            }
        }
    }
    problems
}

/// Checks one HEART RULE script folder; prints every diagnostic; returns the error count.
fn check_scripts(path: &Path, out: &mut impl Write) -> usize {
    let (src, diags) = check_dir(path);
    let errors = diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    for d in &diags {
        let _ = writeln!(out, "{d}");
    }
    if errors == 0 {
        let warnings = if diags.is_empty() {
            String::new()
        } else {
            format!(", {} warning(s)", diags.len())
        };
        eprintln!(
            "ok: {} — script set of {} document(s){warnings}",
            path.display(),
            src.docs.len(),
        );
    }
    errors
}
