//! `heartvale sim`: a town headless, as fast as it goes, with a progress bar;
//! then the summary.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use bevy::prelude::App;
use indicatif::{ProgressBar, ProgressStyle};

use super::report::{first_embed_failure, first_llm_failure, llm_line, summary};
use super::{CliError, SimArgs};
use crate::base::time::GameTime;
use crate::headless::{headless_app_with_llm, run_to_end};
use crate::llm::embed::EmbedSettings;
use crate::llm::embed::town::TownEmbeddings;
use crate::sim::clock::Clock;
use crate::sim::event_log::EndReason;
use crate::sim::event_log::EventLog;
use crate::sim::outcome::{SimFailure, SimOutcome, StopSim};

/// Runs the town to its end; prints the summary (and the step timings when asked).
pub(super) fn sim(args: SimArgs) -> Result<ExitCode, CliError> {
    crate::headless::use_threads(args.threads.unwrap_or_else(crate::headless::all_cores));
    let town = args.town.open(&args.llm)?;
    super::files::refuse_clashes(&[
        ("--load", args.town.load.as_deref(), super::files::Use::Read),
        ("--save", args.save.as_deref(), super::files::Use::Update),
        (
            "--log",
            args.town.log.as_deref(),
            super::files::Use::Replace,
        ),
    ])?;
    let saver = match &args.save {
        Some(path) => Some(Saver::new(super::claim_save(path)?, town.source()?)),
        None => None,
    };
    let (seed, days) = (town.settings.seed, town.settings.days);
    let scenario = Arc::new(town.scenario);
    let log_file = town.log.clone();
    let mut app =
        headless_app_with_llm(scenario.clone(), seed, days, EventLog::default(), town.llm)
            .map_err(CliError::Failed)?;
    super::book_date(&mut app, town.date);
    if let Some(settings) = EmbedSettings::resolve(&args.embed).map_err(CliError::failed)? {
        let embeddings = TownEmbeddings::start(settings).map_err(CliError::failed)?;
        app.insert_resource(embeddings);
    }
    if let Some(snap) = town.resume {
        crate::save::restore(app.world_mut(), snap).map_err(CliError::Failed)?;
    }
    // Last: nothing is logged before the first step.
    if let Some(log) = super::open_log(log_file.as_deref())? {
        app.insert_resource(log);
    }
    if !args.quiet
        && let Some(line) = llm_line(app.world(), scenario.residents.len())
    {
        eprintln!("{line}");
    }
    if args.timings {
        crate::sim::timings::enable(&mut app);
    }
    let steps = days as u64 * 1440 / scenario.tuning.step_minutes.max(1) as u64;
    let started = Instant::now();
    let steps = steps.saturating_sub(app.world().resource::<Clock>().steps);
    if let Some(until) = args.until {
        let start = app.world().resource::<Clock>().now;
        if until <= start {
            return Err(CliError::failed(format!(
                "--until {until} is not after the town's time {start}"
            )));
        }
    }
    drive(&mut app, steps, args.until, args.quiet, saver.as_ref())?;
    let wall = started.elapsed();
    if let Some(saver) = &saver {
        // A stopped run does not wait long on the embeddings server.
        let stopped = app.world().resource::<SimOutcome>().0 == Some(EndReason::Stopped);
        let wait = Duration::from_secs(if stopped { 2 } else { 60 });
        crate::llm::embed::town::flush(app.world_mut(), wait);
        saver.save(&mut app)?;
    }
    let world = app.world_mut();
    if let Some(e) = &world.resource::<EventLog>().error {
        return Err(CliError::failed(e));
    }
    if let Some(e) = &world.resource::<SimFailure>().0 {
        return Err(CliError::failed(e));
    }
    if let Some(t) = world.get_resource::<crate::sim::timings::StepTimings>() {
        println!("{}", crate::sim::timings::table(t));
    }
    if !args.quiet {
        println!("{}", summary(world, &scenario.name, seed, wall));
        if let Some(path) = &args.town.log {
            println!("event log: {}", path.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Steps the town until it ends (or `steps` and a few more, as a guard),
/// the progress bar on stderr; Ctrl-C (or SIGTERM, SIGHUP) is a manual stop:
/// the step in progress finishes and `end` is logged.
fn drive(
    app: &mut App,
    steps: u64,
    until: Option<GameTime>,
    quiet: bool,
    saver: Option<&Saver>,
) -> Result<(), CliError> {
    let first = app.world().resource::<Clock>().steps;
    let bar = progress_bar(steps, quiet);
    let stop = stop_on_signal();
    let mut frames = 0u64;
    let (mut warned, mut embed_warned) = (false, false);
    while !app.world().resource::<SimOutcome>().ended()
        && app.world().resource::<Clock>().steps - first < steps + 10
    {
        // `--until`: the run is paused there, not ended (no `end` event).
        if until.is_some_and(|t| app.world().resource::<Clock>().now >= t) {
            app.world_mut().resource_mut::<EventLog>().flush();
            bar.finish_and_clear();
            return Ok(());
        }
        let day = app.world().resource::<Clock>().now.day_number();
        if stop.load(Ordering::SeqCst) {
            app.world_mut().write_message(StopSim);
        }
        app.update();
        if let Some(msg) = first_llm_failure(app.world_mut(), &mut warned) {
            bar.suspend(|| eprintln!("{msg}"));
        }
        if let Some(msg) = first_embed_failure(app.world_mut(), &mut embed_warned) {
            bar.suspend(|| eprintln!("{msg}"));
        }
        // While the step waits for LLM replies, sleep until one comes.
        crate::llm::wait_if_gated(app.world(), Duration::from_millis(50));
        if let Some(saver) = saver
            && app.world().resource::<Clock>().now.day_number() != day
        {
            saver.save(app)?;
        }
        frames += 1;
        if frames.is_multiple_of(60) {
            let clock = app.world().resource::<Clock>();
            bar.set_position((clock.steps - first).min(steps));
            bar.set_message(clock.now.to_string());
        }
    }
    run_to_end(app, 0);
    bar.finish_and_clear();
    Ok(())
}

/// Ctrl-C (or SIGTERM, SIGHUP) sets the flag: the run stops after the step
/// under way, waiting on no server; a second one ends the process at once.
fn stop_on_signal() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let _ = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            eprintln!("stopped at once (the second Ctrl-C); the last save stays as it was");
            std::process::exit(130);
        }
        eprintln!("stopping after this step (Ctrl-C again to quit at once)");
    });
    stop
}

/// Writes the town to `--save` (at game midnight and at the end).
struct Saver {
    target: crate::save::SaveTarget,
    source: crate::save::TownSource,
}

impl Saver {
    fn new(target: crate::save::SaveTarget, source: crate::save::TownSource) -> Self {
        Self { target, source }
    }

    fn save(&self, app: &mut App) -> Result<(), CliError> {
        let path = self.target.path();
        crate::save::save_world(app.world_mut(), path, &self.source)
            .map_err(|e| CliError::failed(format!("cannot save to {}: {e}", path.display())))
    }
}

/// A bar over the run's steps (hidden with `-q`, and when stderr is no terminal).
fn progress_bar(steps: u64, quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    ProgressBar::new(steps).with_style(
        ProgressStyle::with_template("{spinner} {msg} [{bar:40}] {pos}/{len} steps ({elapsed})")
            .expect("valid template")
            .progress_chars("=> "),
    )
}
