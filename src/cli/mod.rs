//! The command line: `heartvale [window|sim|check|replay|script|memory|chat]`. Each
//! command returns its exit code or a [`CliError`]; `main` prints errors, once.
//!
//! - `args`: what each command takes;
//! - `sim`, `report`: the headless run and its summary tables;
//! - `check`: scenario and script folders;
//! - `script`: HEART RULE sessions in the terminal;
//! - `replay`: an event log, told;
//! - `memory`: retrieval's bench, and search in a save;
//! - `chat`: the player talks with a resident (the companion system);
//! - `date`: Cupid's dates between two residents, in the terminal;
//! - `interview`: ask a resident something, answered from what it knows.

mod args;
mod chat;
mod check;
mod course;
mod date;
mod files;
mod interview;
mod memory;
mod replay;
mod report;
mod script;
mod sim;
mod typing;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

pub use args::{
    ChatArgs, Cli, Command, DateArgs, InterviewArgs, MemoryCommand, ScriptCommand, SessionArgs,
    SimArgs, TownArgs, WindowArgs,
};

use crate::base::Diagnostics;
use crate::llm::{LlmArgs, LlmSettings};
use crate::save::{TownSnapshot, TownSource};
use crate::scenario::{ResidentId, Scenario, generate::generated_town};
use crate::sim::RunSettings;
use crate::sim::event_log::EventLog;

/// Why a command failed. Its text is what the user reads (`main` prints it).
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A scenario with problems: every one, then how many.
    #[error("{0}error: the scenario has {n} problem(s)", n = .0.len())]
    Scenario(Diagnostics),
    /// Problems already printed on stdout (`check`): how many.
    #[error("{0} problem(s) found")]
    Problems(usize),
    /// A script set with errors: each, one per line.
    #[error("{}", .0.join("\n"))]
    Script(Vec<String>),
    /// Anything else, said in a sentence.
    #[error("error: {0}")]
    Failed(String),
}

impl CliError {
    fn failed(message: impl std::fmt::Display) -> Self {
        CliError::Failed(message.to_string())
    }
}

/// Runs the CLI; returns the process exit code, or the error to print.
pub fn run(cli: Cli) -> Result<ExitCode, CliError> {
    // The window where one can open; headless where none can (a server, CI,
    // an X server that refuses us).
    let problem = match cli.command {
        None => crate::window::display_problem(),
        Some(_) => None,
    };
    match cli.command {
        None if problem.is_none() => window(WindowArgs {
            screenshot: PathBuf::from("screenshot.png"),
            llm: cli.llm,
            ..WindowArgs::default()
        }),
        None => {
            eprintln!(
                "no display found ({}): running the town headless (`heartvale sim`); `heartvale window` needs one",
                problem.unwrap_or_default()
            );
            sim::sim(SimArgs {
                llm: cli.llm,
                ..SimArgs::default()
            })
        }
        Some(Command::Sim(args)) => sim::sim(args),
        Some(Command::Check { paths }) => check::check(&paths),
        Some(Command::Script { command }) => script::script(command),
        Some(Command::Window(args)) => window(args),
        Some(Command::Memory { command }) => memory::memory(command),
        Some(Command::Chat(args)) => chat::chat(args),
        Some(Command::Date(args)) => date::date(args),
        Some(Command::Interview(args)) => interview::interview(args),
        Some(Command::Replay {
            file,
            kind,
            resident,
        }) => replay::replay(&file, &kind, resident.as_deref()),
    }
}

/// A town ready to run: its scenario, seed and length, where its log goes,
/// and its LLM settings; for a loaded save, the state it goes on from.
struct Town {
    scenario: Scenario,
    /// The scenario folder (none for a generated town or a loaded save).
    dir: Option<PathBuf>,
    settings: RunSettings,
    /// `--log`: opened by [`open_log`], last.
    log: Option<PathBuf>,
    llm: Option<LlmSettings>,
    /// The saved state a loaded town resumes from.
    resume: Option<TownSnapshot>,
    /// Where the scenario came from, for saves (a folder's files are read
    /// when a save is written, so hot-reloaded edits are kept).
    source: Option<TownSource>,
    /// `--date A,B`: a date booked at the start.
    date: Option<(ResidentId, ResidentId)>,
}

/// The app with `--date`'s request in, for its first step.
fn book_date(app: &mut bevy::prelude::App, date: Option<(ResidentId, ResidentId)>) {
    if let Some(pair) = date {
        let mut requests = app
            .world_mut()
            .resource_mut::<crate::sim::dating::DateRequests>();
        requests.0.push(pair);
    }
}

/// `--date A,B` checked against the town: two different residents, neither
/// the host, in a town that has one.
fn date_pair(names: &[String], scenario: &Scenario) -> Result<(ResidentId, ResidentId), CliError> {
    let [a, b] = names else {
        return Err(CliError::failed("--date takes two residents: --date A,B"));
    };
    // The same lookup (id or name, a suggestion when unknown) as `heartvale date`.
    let find = |who: &str| date::resident(scenario, who.trim(), &scenario.dir);
    let (pa, pb) = (find(a)?, find(b)?);
    if let Some(why) = crate::cupid::refusal(pa, pb) {
        return Err(CliError::failed(format!("--date: {why}")));
    }
    let host = crate::sim::dating::host_of(scenario).map(|(i, _)| &scenario.residents[i.i()].id);
    match host {
        None => Err(CliError::failed(
            "--date: this town has no host for dates (a resident with `host: cupid`, or one who works at a `food` place)",
        )),
        Some(h) if *h == pa.id || *h == pb.id => Err(CliError::failed(format!(
            "--date: {} hosts the dates and cannot go on one",
            if *h == pa.id { &pa.name } else { &pb.name }
        ))),
        Some(_) => Ok((pa.id.clone(), pb.id.clone())),
    }
}

/// The event log of `--log`, created (emptied) only now: a command calls
/// it once every option, file and display has been checked, so a run that
/// cannot start never empties an existing log.
/// A scenario's `cupid/scenes.yaml`, when it has one, must load as `check`
/// loads it: the town would otherwise date with the built-in scenes, and
/// say so nowhere a headless run shows.
fn check_scenes(dir: &Path, scenario: &Scenario) -> Result<(), CliError> {
    let scenes = dir.join("cupid").join("scenes.yaml");
    if scenes.is_file() {
        crate::cupid::SceneBank::load_for(&scenes, scenario).map_err(CliError::Scenario)?;
    }
    Ok(())
}

/// Claims `--save`'s file for this run (see [`crate::save::SaveTarget`]).
fn claim_save(path: &Path) -> Result<crate::save::SaveTarget, CliError> {
    crate::save::SaveTarget::claim(path)
        .map_err(|e| CliError::failed(format!("cannot save to {}: {e}", path.display())))
}

fn open_log(path: Option<&Path>) -> Result<Option<EventLog>, CliError> {
    let Some(path) = path else {
        return Ok(None);
    };
    EventLog::to_file(path)
        .map(Some)
        .map_err(|e| CliError::failed(format!("cannot create log file {}: {e}", path.display())))
}

impl Town {
    /// The scenario as a save keeps it.
    fn source(&self) -> Result<TownSource, CliError> {
        match (&self.source, &self.dir) {
            (Some(source), _) => Ok(source.clone()),
            (None, Some(dir)) => TownSource::folder(dir, &self.scenario).map_err(|e| {
                CliError::failed(format!(
                    "cannot read the scenario folder {}: {e}",
                    dir.display()
                ))
            }),
            (None, None) => Err(CliError::failed("this town cannot be saved")),
        }
    }
}

impl TownArgs {
    /// Loads the town (a scenario, a generated town or a save) and checks the
    /// LLM settings. The log is not opened here: see [`open_log`].
    fn open(&self, llm: &LlmArgs) -> Result<Town, CliError> {
        let mut town = match &self.load {
            Some(path) => self.resume(path)?,
            None => self.fresh()?,
        };
        town.llm = LlmSettings::resolve(
            llm,
            &crate::llm::config::process_env,
            town.scenario.llm.as_ref(),
            &town.scenario.residents,
        )
        .map_err(CliError::failed)?;
        for note in town.llm.iter().flat_map(|s| &s.notes) {
            eprintln!("note: {note}");
        }
        town.log = self.log.clone();
        if let Some(names) = &self.date {
            town.date = Some(date_pair(names, &town.scenario)?);
        }
        Ok(town)
    }

    /// A new run of a scenario folder or a generated town.
    fn fresh(&self) -> Result<Town, CliError> {
        let (scenario, dir, source) = match self.generate {
            Some(n) => {
                let seed = self.seed.unwrap_or(42);
                let source = TownSource::Generated { residents: n, seed };
                (generated_town(n, seed), None, Some(source))
            }
            None => {
                let dir = locate(&self.scenario);
                let scenario = Scenario::load(&dir).map_err(CliError::Scenario)?;
                check_scenes(&dir, &scenario)?;
                (scenario, Some(dir), None)
            }
        };
        let settings = RunSettings {
            seed: self.seed.unwrap_or(scenario.seed),
            days: self.days.unwrap_or(scenario.days).max(1),
        };
        Ok(Town {
            scenario,
            dir,
            settings,
            log: None,
            llm: None,
            resume: None,
            source,
            date: None,
        })
    }

    /// A saved town, going on for `--days` more days (default: the rest of
    /// the saved run, or one day when it had ended).
    fn resume(&self, path: &Path) -> Result<Town, CliError> {
        let saved = crate::save::load(path)
            .map_err(|e| CliError::failed(format!("cannot load {}: {e}", path.display())))?;
        let snap = &saved.snapshot;
        let done = if snap.ended() {
            snap.days()
        } else {
            snap.days_elapsed(saved.scenario.start)
        };
        let more = self
            .days
            .unwrap_or_else(|| snap.days().saturating_sub(done))
            .max(1);
        let settings = RunSettings {
            seed: snap.seed(),
            days: done + more,
        };
        Ok(Town {
            scenario: saved.scenario,
            dir: None,
            settings,
            log: None,
            llm: None,
            resume: Some(saved.snapshot),
            source: Some(saved.source),
            date: None,
        })
    }
}

/// `heartvale window`.
fn window(args: WindowArgs) -> Result<ExitCode, CliError> {
    crate::headless::use_threads(args.threads.unwrap_or_else(crate::headless::all_cores));
    let town = args.town.open(&args.llm)?;
    let embed = crate::llm::embed::EmbedSettings::resolve(&args.embed).map_err(CliError::failed)?;
    // After the options, so a broken scenario is reported wherever it is run.
    if let Some(why) = crate::window::display_problem() {
        return Err(CliError::failed(format!(
            "{why}; or run the town headless with `heartvale sim`"
        )));
    }
    files::refuse_clashes(&[
        ("--load", args.town.load.as_deref(), files::Use::Read),
        ("--save", args.save.as_deref(), files::Use::Update),
        ("--log", args.town.log.as_deref(), files::Use::Replace),
        (
            "--screenshot",
            args.screenshot_after.map(|_| args.screenshot.as_path()),
            files::Use::Replace,
        ),
    ])?;
    // Autosave to `--save`, else back into the file loaded where it can be.
    let target = match (&args.save, &args.town.load) {
        (Some(path), _) => Some(claim_save(path)?),
        (None, Some(path)) => crate::save::SaveTarget::claim(path)
            .inspect_err(|e| {
                eprintln!(
                    "note: no autosave into {} ({e}); `--save FILE` keeps this run",
                    path.display()
                )
            })
            .ok(),
        (None, None) => None,
    };
    let autosave = match target {
        Some(target) => Some((target, town.source()?)),
        None => None,
    };
    let log = open_log(town.log.as_deref())?;
    let options = crate::window::WindowOptions {
        date: town.date.clone(),
        resume: town.resume,
        autosave,
        scenario_dir: town.dir,
        capture: args
            .screenshot_after
            .map(|after| crate::window::CapturePlan {
                after,
                path: args.screenshot.clone(),
                exit: args.exit,
            }),
        frame_stats: args
            .frame_stats
            .map(|seconds| crate::window::FrameStatsPlan {
                warmup: 3.0,
                seconds,
                out: None,
            }),
        llm: town.llm,
        embed,
        log,
        speed: args.speed,
        select: args.select,
        chat: args.chat,
        counsel: args.counsel,
        panels: args.panels,
        demo: args.demo,
    };
    crate::window::run(Arc::new(town.scenario), town.settings, options).map_err(CliError::Failed)
}

/// Finds a scenario folder: as given (relative to the working directory);
/// else relative to the executable's folder or any folder above it (a
/// desktop build keeps `scenarios/` beside the binary, and `target/release/`
/// lies inside the source tree); else in the source tree it was built from.
/// Not found anywhere: the path as given, for the loader to report.
fn locate(path: &Path) -> PathBuf {
    if path.exists() || path.is_absolute() {
        return path.to_path_buf();
    }
    let exe = std::env::current_exe().ok();
    let beside_exe = exe.iter().flat_map(|e| e.ancestors().skip(1));
    let source = Path::new(env!("CARGO_MANIFEST_DIR"));
    beside_exe
        .chain(std::iter::once(source))
        .map(|dir| dir.join(path))
        .find(|p| p.is_dir())
        .unwrap_or_else(|| path.to_path_buf())
}
