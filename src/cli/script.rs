//! `heartvale script …`: play a HEART RULE session in the terminal (the
//! human typing, an input file, or a persona playtesting), replay a
//! transcript, print the schema.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

mod clock;

use super::{CliError, ScriptCommand, SessionArgs};
use crate::base::closest;
use crate::context::{Budgeting, PromptBudget};
use crate::llm::LlmSettings;
use crate::llm::calls::Calls;
use crate::llm::script::{LlmPersona, Remote};
use crate::scenario::Scenario;
use crate::script::check::check_dir;
use crate::script::diag::Severity;
use crate::script::engine::{Engine, Script};
use crate::script::runner::{
    self, Human, Mind, Offline, Outcome, Persona, Played, Players, Scripted,
};
use clock::PromptClock;

/// Who answers as the HUMAN role.
enum HumanSource {
    /// Lines typed in the terminal.
    Terminal,
    /// Lines read from a file, one per reply.
    InputFile(PathBuf),
    /// A persona described in words: an automatic playtest.
    Persona(String),
}

/// Runs a `script` subcommand.
pub(super) fn script(cmd: ScriptCommand) -> Result<ExitCode, CliError> {
    let (args, human) = match cmd {
        ScriptCommand::Schema => {
            print!("{}", crate::script::schema::json_schema_text());
            return Ok(ExitCode::SUCCESS);
        }
        ScriptCommand::Replay { dir, transcript } => return script_replay(&dir, &transcript),
        ScriptCommand::New { dir, template } => return script_new(dir, template),
        ScriptCommand::Run { session, input } => {
            let source = input.map_or(HumanSource::Terminal, HumanSource::InputFile);
            (session, source)
        }
        ScriptCommand::Play {
            session,
            persona,
            resident,
            scenario,
        } => {
            let text = persona_text(persona, resident, &scenario).map_err(CliError::Failed)?;
            (session, HumanSource::Persona(text))
        }
    };
    play(args, human)
}

/// `script new`: the templates listed, or one copied into a new folder.
fn script_new(dir: Option<PathBuf>, template: Option<String>) -> Result<ExitCode, CliError> {
    use crate::script::templates::{Template, list};
    let (Some(dir), Some(name)) = (dir, template) else {
        println!(
            "templates (heartvale script new DIR --template NAME):\n{}",
            list()
        );
        return Ok(ExitCode::SUCCESS);
    };
    let t = Template::find(&name).map_err(CliError::Failed)?;
    let written = t.write(&dir).map_err(CliError::Failed)?;
    for path in &written {
        println!("wrote {}", path.display());
    }
    println!(
        "the {} set is in {}: edit it, then `heartvale check {1}` and `heartvale script run {1}`",
        t.problem,
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Plays a session to its end with `source` as the human; a playtest prints
/// every variable's last value and the forms.
fn play(args: SessionArgs, source: HumanSource) -> Result<ExitCode, CliError> {
    let playtest = matches!(source, HumanSource::Persona(_));
    let input = match &source {
        HumanSource::InputFile(path) => Some(path.as_path()),
        _ => None,
    };
    use super::files::{Use, refuse_clashes};
    refuse_clashes(&[
        ("--input", input, Use::Read),
        ("--course", args.course.as_deref(), Use::Update),
        ("--transcript", args.transcript.as_deref(), Use::Replace),
    ])?;
    let script = load_script(&args.dir)?;
    let course = args
        .course
        .as_deref()
        .map(super::course::read)
        .transpose()?;
    let session = session_to_play(&args, &script, course.as_ref())?;
    let settings = LlmSettings::resolve(&args.llm, &crate::llm::config::process_env, None, &[])
        .map_err(CliError::failed)?;
    // One set of calls for the engine and the persona: one recording.
    let calls = match settings.as_ref().filter(|s| s.default.is_some()) {
        Some(s) => Some(Arc::new(Calls::start(s).map_err(|e| {
            CliError::failed(format!("cannot start the LLM client: {e}"))
        })?)),
        None => None,
    };
    let model = settings.as_ref().zip(calls.as_ref());
    let mut mind = mind(model);
    let mut human = human(source, model)?;
    let mut sink = transcript(args.transcript.as_deref())?;
    let budget = PromptBudget::default();
    let clock = PromptClock::for_run(args.llm.record.as_deref(), args.llm.replay.as_deref())?;
    let engine = Engine {
        script: &script,
        now: clock.now(),
        // Cut to the default budget in the endpoint's tokens.
        budgeting: Budgeting::for_endpoint(
            &budget,
            settings
                .as_ref()
                .and_then(|s| s.default.as_ref())
                .map(|e| e.model()),
        ),
    };
    let stdout = std::io::stdout();
    let mut show = stdout.lock();
    let players = Players {
        human: human.as_mut(),
        mind: mind.as_mut(),
    };
    let played = runner::play(
        &engine,
        &|| clock.now(),
        (&session, course.as_ref()),
        players,
        &mut show,
        &mut sink,
    )
    .map_err(CliError::failed)?;
    let _ = sink.flush();
    if playtest {
        show_playtest(&engine, &played, &mut show);
    }
    match played.outcome {
        Outcome::Done => {
            keep_record(args.course.as_deref(), course, played.record)?;
            Ok(ExitCode::SUCCESS)
        }
        Outcome::OutOfInput => Err(CliError::failed("the input ended before the session did")),
    }
}

/// `--session`, else the set's first session, or with a course the first
/// of the set it has not played yet (once all have been, the last again).
fn session_to_play(
    args: &SessionArgs,
    script: &Script,
    course: Option<&crate::script::engine::Course>,
) -> Result<String, CliError> {
    if let Some(s) = &args.session {
        return Ok(s.clone());
    }
    let order: Vec<String> = script
        .sessions
        .iter()
        .map(|s| s.session.value.clone())
        .collect();
    let next = match course {
        Some(c) => c.next_session(&order),
        None => order.first().map(String::as_str),
    };
    next.map(str::to_string)
        .ok_or_else(|| CliError::failed(format!("{}: no session to play", args.dir.display())))
}

/// A finished course session's record, added to the course file.
fn keep_record(
    path: Option<&Path>,
    course: Option<crate::script::engine::Course>,
    record: Option<crate::script::engine::SessionRecord>,
) -> Result<(), CliError> {
    let (Some(path), Some(course), Some(record)) = (path, course, record) else {
        return Ok(());
    };
    let n = super::course::append(path, course, record)?;
    eprintln!("(course: session {n} recorded in {})", path.display());
    Ok(())
}

/// The settings with a model, and the calls to it.
type Model<'a> = Option<(&'a LlmSettings, &'a Arc<Calls>)>;

/// The model for the AI steps, or the offline answers.
fn mind(model: Model<'_>) -> Box<dyn Mind> {
    match model.and_then(|(s, calls)| Remote::for_settings(s, calls)) {
        Some(r) => Box::new(r),
        None => {
            eprintln!("(offline: the built-in brain answers the AI steps)");
            Box::new(Offline)
        }
    }
}

/// The human: the terminal, an input file, or a persona (played by the same
/// model in character when there is one, else by the built-in playtester).
fn human(source: HumanSource, model: Model<'_>) -> Result<Box<dyn Human>, CliError> {
    Ok(match source {
        HumanSource::Terminal => Box::new(Scripted {
            lines: std::io::stdin().lines().map_while(Result::ok),
        }),
        HumanSource::InputFile(f) => {
            let text = crate::base::files::read_text(&f, crate::base::files::MAX_FILE)
                .map_err(|e| CliError::failed(format!("{}: {e}", f.display())))?;
            let lines: Vec<String> = text.lines().map(str::to_string).collect();
            Box::new(Scripted {
                lines: lines.into_iter(),
            })
        }
        HumanSource::Persona(persona) => {
            match model.and_then(|(s, calls)| Remote::for_settings(s, calls)) {
                Some(remote) => Box::new(LlmPersona::new(remote, &persona)),
                None => Box::new(Persona::new(&persona)),
            }
        }
    })
}

/// Where the transcript goes (nowhere without `--transcript`).
fn transcript(path: Option<&Path>) -> Result<Box<dyn Write>, CliError> {
    match path {
        Some(p) => std::fs::File::create(p)
            // Line by line, so a killed run keeps what happened.
            .map(|f| Box::new(std::io::LineWriter::new(f)) as Box<dyn Write>)
            .map_err(|e| CliError::failed(format!("{}: {e}", p.display()))),
        None => Ok(Box::new(std::io::sink())),
    }
}

/// A playtest's results: every variable's last value, then the forms.
fn show_playtest(engine: &Engine, played: &Played, show: &mut impl Write) {
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
    for (form, fields) in engine.filled_forms(&played.state) {
        let _ = writeln!(show, "== {form}");
        for (field, value) in fields {
            let value = value.unwrap_or_else(|| "（未填）".into());
            let _ = writeln!(show, "{field}：{value}");
        }
    }
}

/// The persona of `script play`: a file's text, or a town resident's.
fn persona_text(
    file: Option<PathBuf>,
    resident: Option<String>,
    scenario: &Path,
) -> Result<String, String> {
    if let Some(f) = file {
        return crate::base::files::read_text(&f, crate::base::files::MAX_FILE)
            .map_err(|e| format!("{}: {e}", f.display()));
    }
    let id = resident.unwrap_or_default();
    let town = Scenario::load(super::locate(scenario))
        .map_err(|e| e.to_string().trim_end().to_string())?;
    // An id or a name, as `date` and `chat` take them.
    if let Some(p) = town
        .residents
        .iter()
        .find(|p| p.id.as_str() == id || p.name == id)
    {
        return Ok(p.persona_text());
    }
    let ids: Vec<&str> = town.residents.iter().map(|p| p.id.as_str()).collect();
    let hint = closest(&id, ids.iter().copied())
        .map_or(String::new(), |c| format!(" (did you mean `{c}`?)"));
    Err(format!(
        "{}: no resident `{id}`{hint}; residents: {}",
        scenario.display(),
        ids.join(", ")
    ))
}

/// `heartvale script replay`.
fn script_replay(dir: &Path, transcript: &Path) -> Result<ExitCode, CliError> {
    let script = load_script(dir)?;
    let failed =
        |e: &dyn std::fmt::Display| CliError::failed(format!("{}: {e}", transcript.display()));
    let text = crate::base::files::read_text(transcript, crate::base::files::MAX_FILE)
        .map_err(|e| failed(&e))?;
    let r = runner::replay(&script, &text).map_err(|e| failed(&e))?;
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
    Ok(ExitCode::SUCCESS)
}

/// Loads a script folder for running; its errors (each a line) if it has any.
fn load_script(dir: &Path) -> Result<Script, CliError> {
    let (src, diags) = check_dir(dir);
    let errors: Vec<String> = diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.to_string())
        .collect();
    if errors.is_empty() {
        Ok(Script::from_sources(&src))
    } else {
        Err(CliError::Script(errors))
    }
}
