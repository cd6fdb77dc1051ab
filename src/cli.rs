//! The command line: `heartvale [window|sim|check|replay|script]`.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::{Args, Parser, Subcommand};
use comfy_table::{Table, presets::UTF8_FULL_CONDENSED};
use indicatif::{ProgressBar, ProgressStyle};

use crate::headless::{headless_app_with_llm, run_to_end};
use crate::llm::{LlmArgs, LlmBrain, LlmSettings};
use crate::scenario::{Scenario, generate::generated_town};
use crate::sim::clock::Clock;
use crate::sim::end::{SimFailure, SimOutcome, StopSim};
use crate::sim::event_log::{EventLog, LogNames, SimEvent, narrate};
use crate::sim::residents::{Needs, Resident, Tally};

#[derive(Parser, Debug)]
#[command(
    name = "heartvale",
    version,
    about = "Heartvale — a generative-agent town. Without a subcommand, opens the window on the default town (headless `sim` when there is no display)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub llm: LlmArgs,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run a town headless, as fast as possible, and print a summary.
    Sim(SimArgs),
    /// Validate scenario folders and HEART RULE script folders; prints one
    /// `file:line:col: …` line per problem (exit 1 if any error).
    Check {
        /// Scenario folders (with town.yaml) or script folders (YAML with `sessions:`, `skills:` …).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// HEART RULE conversation scripts: play a session, or play-test it with a persona.
    Script {
        #[command(subcommand)]
        command: ScriptCommand,
    },
    /// Open the window on a town: the animated map and the panels (the
    /// default when a display is available).
    Window(WindowArgs),
    /// Print a readable timeline of an event log (JSON Lines).
    Replay {
        file: PathBuf,
        /// Only events of these kinds (comma-separated, e.g. `plan,message`).
        #[arg(long, value_delimiter = ',')]
        kind: Vec<String>,
        /// Only events about this resident id.
        #[arg(long)]
        resident: Option<String>,
    },
}

/// What a run is of: the town, its seed and length, where its log goes.
#[derive(Args, Debug, Clone)]
pub struct TownArgs {
    /// Scenario folder.
    #[arg(long, default_value = "scenarios/heartvale")]
    pub scenario: PathBuf,
    /// Days to run (default: the scenario's).
    #[arg(long)]
    pub days: Option<u32>,
    /// Random seed (default: the scenario's).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Write the event log (JSON Lines) here.
    #[arg(long)]
    pub log: Option<PathBuf>,
    /// Instead of a scenario, run a generated town of N residents.
    #[arg(long, value_name = "N")]
    pub generate: Option<usize>,
}

impl Default for TownArgs {
    fn default() -> Self {
        Self {
            scenario: PathBuf::from("scenarios/heartvale"),
            days: None,
            seed: None,
            log: None,
            generate: None,
        }
    }
}

/// A town ready to run, or the exit code after its errors were printed.
struct Town {
    scenario: Scenario,
    /// The scenario folder (none for a generated town).
    dir: Option<PathBuf>,
    settings: crate::sim::RunSettings,
    log: Option<EventLog>,
    llm: Option<LlmSettings>,
}

impl TownArgs {
    fn open(&self, llm: &LlmArgs) -> Result<Town, i32> {
        let fail = |e: String| {
            eprintln!("error: {e}");
            1
        };
        let (scenario, dir) = match self.generate {
            Some(n) => (generated_town(n, self.seed.unwrap_or(42)), None),
            None => {
                let dir = locate(&self.scenario);
                match Scenario::load(&dir) {
                    Ok(s) => (s, Some(dir)),
                    Err(diags) => {
                        eprint!("{diags}");
                        return Err(fail(format!("the scenario has {} problem(s)", diags.len())));
                    }
                }
            }
        };
        let log = match &self.log {
            Some(path) => Some(
                EventLog::to_file(path)
                    .map_err(|e| fail(format!("cannot create log file {}: {e}", path.display())))?,
            ),
            None => None,
        };
        let llm = LlmSettings::resolve(
            llm,
            &crate::llm::config::process_env,
            scenario.llm.as_ref(),
            &scenario.residents,
        )
        .map_err(fail)?;
        let settings = crate::sim::RunSettings {
            seed: self.seed.unwrap_or(scenario.seed),
            days: self.days.unwrap_or(scenario.days).max(1),
        };
        Ok(Town {
            scenario,
            dir,
            settings,
            log,
            llm,
        })
    }
}

#[derive(Args, Debug, Default, Clone)]
pub struct SimArgs {
    #[command(flatten)]
    pub town: TownArgs,
    /// No progress bar and no summary table.
    #[arg(long, short)]
    pub quiet: bool,
    /// Time each phase of the step and print where the time went (also with -q).
    #[arg(long)]
    pub timings: bool,
    #[command(flatten)]
    pub llm: LlmArgs,
}

#[derive(Args, Debug, Default, Clone)]
pub struct WindowArgs {
    /// The scenario folder is watched: edits apply live (not for `--generate`).
    #[command(flatten)]
    pub town: TownArgs,
    /// Starting speed multiplier (1, 5, 20, 60, 300 are the keys' speeds).
    #[arg(long)]
    pub speed: Option<f32>,
    /// Start with this resident (id) selected, in the inspector, followed.
    #[arg(long, value_name = "ID")]
    pub select: Option<String>,
    /// Start with only these panels open: inspector, events, relations,
    /// notices, tuning, help (comma-separated; default: inspector,events).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub panels: Option<Vec<String>>,
    /// Save a screenshot this many real seconds after the start.
    #[arg(long, value_name = "SECONDS")]
    pub screenshot_after: Option<f32>,
    /// Where the screenshot goes.
    #[arg(long, default_value = "screenshot.png")]
    pub screenshot: PathBuf,
    /// Quit once the screenshot is saved.
    #[arg(long)]
    pub exit: bool,
    /// Measure frame times for this many seconds (after 3 s of warm-up),
    /// print median and 99th percentile, and quit.
    #[arg(long, value_name = "SECONDS")]
    pub frame_stats: Option<f32>,
    #[command(flatten)]
    pub llm: LlmArgs,
}

#[derive(Subcommand, Debug)]
pub enum ScriptCommand {
    /// Play a session in the terminal: roles named, options numbered; replies from
    /// stdin or `--input` (one per line: an option's key or number, or free text;
    /// `user_say` lines are clicked automatically).
    Run {
        #[command(flatten)]
        session: SessionArgs,
        /// Read the human's replies from this file instead of stdin.
        #[arg(long)]
        input: Option<PathBuf>,
    },
    /// Let a persona play the HUMAN role (an automatic playtest): the LLM, when
    /// one is configured, else the built-in playtester answering with the
    /// persona's own sentences; prints the final variables and forms.
    #[command(group(clap::ArgGroup::new("who").required(true).args(["persona", "resident"])))]
    Play {
        #[command(flatten)]
        session: SessionArgs,
        /// A text file describing who the human is.
        #[arg(long)]
        persona: Option<PathBuf>,
        /// Or a resident of a town plays the human, as its persona describes it.
        #[arg(long)]
        resident: Option<String>,
        /// The town of `--resident`.
        #[arg(long, default_value = "scenarios/heartvale")]
        scenario: PathBuf,
    },
    /// Run a transcript's recorded inputs through the engine again and compare
    /// every effect: exit 0 when the run is the same, 1 with the first difference.
    Replay {
        /// The script folder.
        dir: PathBuf,
        /// A transcript written by `script run|play --transcript`.
        transcript: PathBuf,
    },
    /// Print the JSON Schema (draft-07) of script files, for editors:
    /// `heartvale script schema > DIR/yaml_schema.json`.
    Schema,
}

/// What `script run` and `script play` share.
#[derive(Args, Debug, Clone)]
pub struct SessionArgs {
    /// The script folder.
    pub dir: PathBuf,
    /// Session to play (default: the first).
    #[arg(long)]
    pub session: Option<String>,
    /// Write every shown line, input and effect here (JSON Lines).
    #[arg(long)]
    pub transcript: Option<PathBuf>,
    #[command(flatten)]
    pub llm: LlmArgs,
}

/// Runs the CLI; returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    match cli.command {
        // The window where one can open; headless where none can (a server, CI).
        None if crate::window::has_display() => window(WindowArgs {
            screenshot: PathBuf::from("screenshot.png"),
            llm: cli.llm,
            ..WindowArgs::default()
        }),
        None => {
            eprintln!(
                "no display found: running the town headless (`heartvale sim`); `heartvale window` needs one"
            );
            sim(SimArgs {
                llm: cli.llm,
                ..SimArgs::default()
            })
        }
        Some(Command::Sim(args)) => sim(args),
        Some(Command::Check { paths }) => check(&paths),
        Some(Command::Script { command }) => script_command(command),
        Some(Command::Window(args)) => window(args),
        Some(Command::Replay {
            file,
            kind,
            resident,
        }) => replay(&file, &kind, resident.as_deref()),
    }
}

fn window(args: WindowArgs) -> i32 {
    let town = match args.town.open(&args.llm) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let options = crate::window::WindowOptions {
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
        log: town.log,
        speed: args.speed,
        select: args.select,
        panels: args.panels,
    };
    crate::window::run(Arc::new(town.scenario), town.settings, options)
}

/// Finds a scenario folder given relative to the working directory or the crate.
fn locate(path: &Path) -> PathBuf {
    if path.exists() || path.is_absolute() {
        return path.to_path_buf();
    }
    let beside = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    if beside.exists() {
        beside
    } else {
        path.to_path_buf()
    }
}

fn sim(args: SimArgs) -> i32 {
    let Town {
        scenario,
        settings: crate::sim::RunSettings { seed, days },
        log,
        llm,
        ..
    } = match args.town.open(&args.llm) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let log = log.unwrap_or_default();
    let scenario = Arc::new(scenario);
    let mut app = match headless_app_with_llm(scenario.clone(), seed, days, log, llm) {
        Ok(app) => app,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    if let Some(brain) = app.world().get_resource::<LlmBrain>()
        && !args.quiet
    {
        let ep = brain.endpoints().first();
        eprintln!(
            "LLM: {} of {} residents on {} ({}), timeout {:?}, {} in flight at most{}",
            brain.routed(),
            scenario.residents.len(),
            ep.map_or("-", |e| e.base_url.as_str()),
            ep.map_or("-", |e| e.model.as_str()),
            brain.settings().timeout,
            brain.settings().concurrency,
            match &brain.settings().cassette {
                Some(crate::llm::cassette::CassetteMode::Record(d)) =>
                    format!(", recording to {}", d.display()),
                Some(crate::llm::cassette::CassetteMode::Replay(d)) =>
                    format!(", replaying {}", d.display()),
                None => String::new(),
            }
        );
    }
    if args.timings {
        crate::sim::timings::enable(&mut app);
    }
    let step = scenario.tuning.step_minutes.max(1) as u64;
    let total = days as u64 * 1440 / step;
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(total).with_style(
            ProgressStyle::with_template(
                "{spinner} {msg} [{bar:40}] {pos}/{len} steps ({elapsed})",
            )
            .expect("valid template")
            .progress_chars("=> "),
        )
    };
    let started = std::time::Instant::now();
    // Ctrl-C is a manual stop: the step in progress finishes, `end` is logged.
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    let mut frames = 0u64;
    let mut warned = false;
    while !app.world().resource::<SimOutcome>().ended()
        && app.world().resource::<Clock>().steps < total + 10
    {
        if stop.load(Ordering::SeqCst) {
            app.world_mut().write_message(StopSim);
        }
        app.update();
        if let Some(msg) = first_llm_failure(app.world_mut(), &mut warned) {
            bar.suspend(|| eprintln!("{msg}"));
        }
        // While the step waits for LLM replies, sleep until one comes.
        crate::llm::wait_if_gated(app.world(), std::time::Duration::from_millis(50));
        frames += 1;
        if frames.is_multiple_of(60) {
            let clock = app.world().resource::<Clock>();
            bar.set_position(clock.steps.min(total));
            bar.set_message(clock.now.to_string());
        }
    }
    run_to_end(&mut app, 0);
    bar.finish_and_clear();
    let wall = started.elapsed();
    let world = app.world_mut();
    if let Some(e) = &world.resource::<EventLog>().error {
        eprintln!("error: {e}");
        return 1;
    }
    if let Some(e) = &world.resource::<SimFailure>().0 {
        eprintln!("error: {e}");
        return 1;
    }
    if let Some(t) = world.get_resource::<crate::sim::timings::StepTimings>() {
        println!("{}", crate::sim::timings::table(t));
    }
    if args.quiet {
        return 0;
    }
    let clock = world.resource::<Clock>().clone();
    let outcome = world.resource::<SimOutcome>().0;
    let lines = world.resource::<EventLog>().lines;
    let mut rows: Vec<(u32, Vec<String>)> = world
        .query::<(&Resident, &crate::sim::residents::Persona, &Tally, &Needs)>()
        .iter(world)
        .map(|(r, p, t, n)| {
            (
                r.idx,
                vec![
                    r.id.to_string(),
                    p.name.clone(),
                    t.plans.to_string(),
                    t.conversations.to_string(),
                    t.notices.to_string(),
                    t.nights.to_string(),
                    format!("{:.0}", n.energy),
                    format!("{:.0}", n.hunger),
                    format!("{:.0}", n.social),
                    format!("{:.0}", n.fun),
                ],
            )
        })
        .collect();
    rows.sort_by_key(|r| r.0);
    let mut table = Table::new();
    table.load_style(UTF8_FULL_CONDENSED).set_header(vec![
        "id",
        "name",
        "plans",
        "conversations",
        "notices",
        "nights",
        "energy",
        "hunger",
        "social",
        "fun",
    ]);
    for (_, row) in rows.iter().take(50) {
        table.add_row(row.clone());
    }
    println!("{table}");
    if rows.len() > 50 {
        println!("… and {} more residents", rows.len() - 50);
    }
    println!(
        "{}: {} steps to {} ({:?}), {} events, {:.2}s wall, seed {}",
        scenario.name,
        clock.steps,
        clock.now,
        outcome.map(|o| format!("{o:?}")).unwrap_or_default(),
        lines,
        wall.as_secs_f64(),
        seed
    );
    if let Some(brain) = world.get_resource::<LlmBrain>() {
        println!("{}", llm_table(world, brain));
    }
    if let Some(path) = &args.town.log {
        println!("event log: {}", path.display());
    }
    0
}

/// The first failed LLM call, as a warning for the user (once per run; the run
/// goes on with the built-in brain).
fn first_llm_failure(world: &mut bevy::prelude::World, warned: &mut bool) -> Option<String> {
    let mut brain = world.get_resource_mut::<LlmBrain>()?;
    let failures = brain.take_failures();
    if failures.is_empty() {
        return None;
    }
    if *warned {
        return None;
    }
    *warned = true;
    Some(format!(
        "warning: LLM call failed: {}\n         residents fall back to the built-in brain when a call fails; every call is an `llm_call` event in the log",
        failures[0]
    ))
}

/// The end-of-run LLM accounting: per resident, then totals and latency percentiles.
fn llm_table(world: &bevy::prelude::World, brain: &LlmBrain) -> String {
    let roster = world.resource::<crate::sim::residents::Roster>();
    let stats = brain.stats();
    let days = stats.days.max(1);
    let mut table = Table::new();
    table.load_style(UTF8_FULL_CONDENSED).set_header(vec![
        "LLM",
        "calls",
        "plan",
        "repair",
        "line",
        "summary",
        "recap",
        "calls/day",
        "prompt tok",
        "completion tok",
        "used plans",
        "used lines",
        "fallbacks",
        "skipped",
    ]);
    let mut total = crate::llm::accounting::ResidentUsage::default();
    for (i, u) in stats.residents.iter().enumerate() {
        if u.total_calls() + u.skipped == 0 {
            continue;
        }
        table.add_row(vec![
            roster.names[i].clone(),
            u.total_calls().to_string(),
            u.calls[0].to_string(),
            u.calls[1].to_string(),
            u.calls[2].to_string(),
            u.calls[3].to_string(),
            u.calls[4].to_string(),
            format!("{:.1}", u.total_calls() as f64 / days as f64),
            u.prompt_tokens.to_string(),
            u.completion_tokens.to_string(),
            u.llm_plans.to_string(),
            u.llm_lines.to_string(),
            u.fallbacks.to_string(),
            u.skipped.to_string(),
        ]);
        for (t, c) in total.calls.iter_mut().zip(u.calls) {
            *t += c;
        }
        total.prompt_tokens += u.prompt_tokens;
        total.completion_tokens += u.completion_tokens;
        total.fallbacks += u.fallbacks;
        total.skipped += u.skipped;
    }
    let (p50, p90, p99) = stats.latency_percentiles();
    let routed = brain.routed().max(1) as f64;
    format!(
        "{table}\nLLM total: {} calls over {} game day(s) = {:.1} per resident per day; {} prompt + {} completion tokens; median prompt {} tokens; latency p50 {} ms, p90 {} ms, p99 {} ms; {} fallbacks, {} skipped",
        total.total_calls(),
        days,
        total.total_calls() as f64 / days as f64 / routed,
        total.prompt_tokens,
        total.completion_tokens,
        stats.median_prompt_tokens(),
        p50,
        p90,
        p99,
        total.fallbacks,
        total.skipped
    )
}

fn check(paths: &[PathBuf]) -> i32 {
    let mut problems = 0;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for path in paths {
        if !path.join("town.yaml").exists() && crate::script::check::is_script_dir(path) {
            problems += check_scripts(path, &mut out);
            continue;
        }
        // A scenario's script sets (scripts/NAME/) are checked with it.
        let mut sets: Vec<PathBuf> = std::fs::read_dir(path.join("scripts"))
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir() && crate::script::check::is_script_dir(p))
            .collect();
        sets.sort();
        for set in &sets {
            problems += check_scripts(set, &mut out);
        }
        match Scenario::load(path) {
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
    }
    if problems > 0 {
        eprintln!("{problems} problem(s) found");
        1
    } else {
        0
    }
}

/// The persona of `script play`: a file's text, or a town resident's.
fn persona_text(
    file: Option<PathBuf>,
    resident: Option<String>,
    scenario: &Path,
) -> Result<String, String> {
    if let Some(f) = file {
        return std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()));
    }
    let id = resident.unwrap_or_default();
    let town = crate::scenario::Scenario::load(scenario).map_err(|e| e.to_string())?;
    let found = town.residents.iter().find(|p| &*p.id.0 == id.as_str());
    match found {
        Some(p) => Ok(p.persona_text()),
        None => {
            let ids: Vec<&str> = town.residents.iter().map(|p| &*p.id.0).collect();
            let hint = crate::base::closest(&id, ids.iter().copied())
                .map_or(String::new(), |c| format!(" (did you mean `{c}`?)"));
            Err(format!(
                "{}: no resident `{id}`{hint}; residents: {}",
                scenario.display(),
                ids.join(", ")
            ))
        }
    }
}

/// `heartvale script replay`.
fn script_replay(dir: &Path, transcript: &Path) -> i32 {
    let Some(script) = load_script(dir) else {
        return 1;
    };
    let text = match std::fs::read_to_string(transcript) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{}: {e}", transcript.display());
            return 1;
        }
    };
    match crate::script::runner::replay(&script, &text) {
        Ok(r) => {
            println!(
                "{}: replayed {} inputs; all {} effects are the same{}",
                transcript.display(),
                r.inputs,
                r.effects,
                if r.script_changed {
                    " (the script changed since the recording)"
                } else {
                    ""
                }
            );
            0
        }
        Err(e) => {
            eprintln!("{}: {e}", transcript.display());
            1
        }
    }
}

/// Loads a script folder for running; prints its errors and returns None if it has any.
fn load_script(dir: &Path) -> Option<crate::script::engine::Script> {
    let (src, diags) = crate::script::check::check_dir(dir);
    let errors: Vec<_> = diags
        .iter()
        .filter(|d| d.severity == crate::script::diag::Severity::Error)
        .collect();
    for d in &errors {
        eprintln!("{d}");
    }
    errors
        .is_empty()
        .then(|| crate::script::engine::Script::from_sources(&src))
}

/// `heartvale script run|play`.
fn script_command(cmd: ScriptCommand) -> i32 {
    use crate::llm::script::{LlmPersona, Remote};
    use crate::script::runner::{self, Human, Mind, Offline, Persona, Scripted};
    let (args, human_from) = match cmd {
        ScriptCommand::Schema => {
            print!("{}", crate::script::schema::json_schema_text());
            return 0;
        }
        ScriptCommand::Replay { dir, transcript } => return script_replay(&dir, &transcript),
        ScriptCommand::Run { session, input } => (session, Ok(input)),
        ScriptCommand::Play {
            session,
            persona,
            resident,
            scenario,
        } => match persona_text(persona, resident, &scenario) {
            Ok(text) => (session, Err(text)),
            Err(e) => {
                eprintln!("{e}");
                return 1;
            }
        },
    };
    let playtest = human_from.is_err();
    let SessionArgs {
        dir,
        session,
        transcript,
        llm,
    } = args;
    let Some(script) = load_script(&dir) else {
        return 1;
    };
    let Some(session) =
        session.or_else(|| script.sessions.first().map(|s| s.session.value.clone()))
    else {
        eprintln!("{}: no session to play", dir.display());
        return 1;
    };
    let settings = match LlmSettings::resolve(&llm, &crate::llm::config::process_env, None, &[]) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    // A synchronous client on its own small runtime (the terminal waits).
    let remote = || {
        let s = settings.as_ref()?;
        let endpoint = s.default.clone()?;
        Some(
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map(|runtime| Remote {
                    runtime,
                    client: crate::llm::client::Client::default(),
                    endpoint,
                    timeout: s.timeout,
                    temperature: s.temperature,
                }),
        )
    };
    let mut mind: Box<dyn Mind> = match remote() {
        Some(Ok(r)) => Box::new(r),
        Some(Err(e)) => {
            eprintln!("cannot start the LLM client: {e}");
            return 1;
        }
        None => {
            eprintln!("(offline: the built-in brain answers the AI steps)");
            Box::new(Offline)
        }
    };
    let mut human: Box<dyn Human> = match human_from {
        Ok(Some(f)) => match std::fs::read_to_string(&f) {
            Ok(t) => Box::new(Scripted {
                lines: t
                    .lines()
                    .map(str::to_string)
                    .collect::<Vec<_>>()
                    .into_iter(),
            }),
            Err(e) => {
                eprintln!("{}: {e}", f.display());
                return 1;
            }
        },
        Ok(None) => Box::new(Scripted {
            lines: std::io::stdin().lines().map_while(Result::ok),
        }),
        Err(persona) => match remote() {
            // The same model plays the visitor, in character.
            Some(Ok(remote)) => Box::new(LlmPersona::new(remote, &persona)),
            _ => Box::new(Persona::new(&persona)),
        },
    };
    let mut sink: Box<dyn Write> = match &transcript {
        Some(p) => match std::fs::File::create(p) {
            Ok(f) => Box::new(std::io::BufWriter::new(f)),
            Err(e) => {
                eprintln!("{}: {e}", p.display());
                return 1;
            }
        },
        None => Box::new(std::io::sink()),
    };
    let engine = crate::script::engine::Engine {
        script: &script,
        // The wall clock (UTC) to the second, for the prompts.
        now: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .and_then(|d| chrono::DateTime::from_timestamp(d.as_secs() as i64, 0))
            .map_or_else(String::new, |t| {
                t.format("%Y-%m-%d %H:%M:%S UTC").to_string()
            }),
    };
    let stdout = std::io::stdout();
    let mut show = stdout.lock();
    match runner::play(
        &engine,
        &session,
        human.as_mut(),
        mind.as_mut(),
        &mut show,
        &mut sink,
    ) {
        Ok(played) => {
            let _ = sink.flush();
            if playtest {
                let _ = writeln!(show, "== variables");
                let st = &played.state;
                let outer = [("global", &st.global), ("session", &st.session_vars)];
                for (place, vars) in outer {
                    for (name, value) in vars {
                        let _ = writeln!(show, "{place} · {name} = {}", value.text());
                    }
                }
                // Stage and goal variables are gone from the state: their last values.
                for (place, name, value) in played
                    .vars
                    .iter()
                    .filter(|(p, ..)| p.starts_with("goal") || p.starts_with("stage"))
                {
                    let _ = writeln!(show, "{place} · {name} = {}", value.text());
                }
            }
            if playtest {
                for (form, fields) in engine.filled_forms(&played.state) {
                    let _ = writeln!(show, "== {form}");
                    for (field, value) in fields {
                        let value = value.unwrap_or_else(|| "（未填）".into());
                        let _ = writeln!(show, "{field}：{value}");
                    }
                }
            }
            let outcome = played.outcome;
            match outcome {
                runner::Outcome::Done => 0,
                runner::Outcome::OutOfInput => {
                    eprintln!("the input ended before the session did");
                    1
                }
            }
        }
        Err(e) => {
            eprintln!("{e}");
            1
        }
    }
}

/// Checks one HEART RULE script folder; prints every diagnostic; returns the error count.
fn check_scripts(path: &Path, out: &mut impl Write) -> usize {
    let (src, diags) = crate::script::check::check_dir(path);
    let errors = diags
        .iter()
        .filter(|d| d.severity == crate::script::diag::Severity::Error)
        .count();
    for d in &diags {
        let _ = writeln!(out, "{d}");
    }
    if errors == 0 {
        eprintln!(
            "ok: {} — script set of {} document(s){}",
            path.display(),
            src.docs.len(),
            if diags.is_empty() {
                String::new()
            } else {
                format!(", {} warning(s)", diags.len())
            }
        );
    }
    errors
}

fn replay(file: &Path, kinds: &[String], resident: Option<&str>) -> i32 {
    let f = match std::fs::File::open(file) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: cannot open {}: {e}", file.display());
            return 1;
        }
    };
    let mut names = LogNames::default();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for (n, line) in std::io::BufReader::new(f).lines().enumerate() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                eprintln!("error: {}:{}: {e}", file.display(), n + 1);
                return 1;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let event: SimEvent = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => {
                eprintln!(
                    "error: {}:{}:{}: not an event of this version's log: {e}",
                    file.display(),
                    n + 1,
                    e.column()
                );
                return 1;
            }
        };
        names.learn(&event.body);
        if !kinds.is_empty() && !kinds.iter().any(|k| k == event.body.kind()) {
            continue;
        }
        let told = narrate(&event.body, &names);
        if let Some(r) = resident
            && !told.residents.iter().any(|x| x.as_str() == r)
        {
            continue;
        }
        if writeln!(out, "{}  {}", event.time, told.text).is_err() {
            return 0; // stdout closed (e.g. piped into `head`)
        }
    }
    0
}
