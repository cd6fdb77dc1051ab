//! `heartvale chat RESIDENT`: the player talks with a resident in the
//! terminal, one line of input per message (`/wait N` lets N game days
//! pass in town, `/quit` ends). A resident with `companion:` runs the full
//! system (affection, stages, key moments, profile); replies come from the
//! resident's model when one is configured (the layered prompt), else — or
//! when the model fails — from the built-in brain, in character. What the
//! player says about themselves is kept as facts; `--record`/`--replay`
//! reproduce a chat.

mod input;
mod record;
mod voice;

use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::sync::Arc;

use bevy::prelude::App;
use serde_json::{Value, json};

use super::files::Use;
use super::{ChatArgs, CliError};
use crate::base::time::GameTime;
use crate::companion::facts::Learnt;
use crate::companion::{Affection, Turn};
use crate::headless::headless_app;
use crate::llm::cassette::Cassette;
use crate::llm::companion::CompanionMind;
use crate::llm::embed::BlockingEmbedder;
use crate::scenario::ResidentId;
use crate::sim::RunSettings;
use crate::sim::clock::Clock;
use crate::sim::companion::{Companions, chat_turn};
use crate::sim::event_log::EventLog;
use crate::sim::memory::Memories;
use crate::sim::outcome::SimOutcome;
use crate::sim::residents::Roster;

/// Runs the chat; exit 0 when the input ends or says `/quit`.
pub(super) fn chat(mut args: ChatArgs) -> Result<ExitCode, CliError> {
    let mut tape = match (&args.llm.record, &args.llm.replay) {
        (Some(dir), _) => record::ChatTape::record(dir)?,
        (_, Some(dir)) => record::ChatTape::replay(dir)?,
        _ => record::ChatTape::Off,
    };
    // A chat the built-in brain answered has no calls to replay.
    if args
        .llm
        .replay
        .as_deref()
        .is_some_and(|d| Cassette::meta(d).is_none())
    {
        args.llm.replay = None;
    }
    let town = args.town.open(&args.llm)?;
    let profile = town
        .scenario
        .resident(&args.resident)
        .cloned()
        .ok_or_else(|| CliError::failed(format!("no resident {:?} in this town", args.resident)))?;
    super::files::refuse_clashes(&[
        ("--load", args.town.load.as_deref(), Use::Read),
        ("--input", args.input.as_deref(), Use::Read),
        ("--save", args.save.as_deref(), Use::Update),
        ("--log", args.town.log.as_deref(), Use::Replace),
        ("--transcript", args.transcript.as_deref(), Use::Replace),
    ])?;
    // Claimed now: a path that cannot take the save is said before the
    // conversation, not after it.
    let save = match &args.save {
        Some(path) => Some((super::claim_save(path)?, town.source()?)),
        None => None,
    };
    let mind = match &town.llm {
        Some(settings) => {
            CompanionMind::for_resident(settings, &profile).map_err(CliError::failed)?
        }
        None => None,
    };
    let embedder = BlockingEmbedder::from_args(&args.embed).map_err(CliError::failed)?;
    let budget = town.scenario.tuning.prompt;
    let days = town.settings.days;
    let mut app = headless_app(
        Arc::new(town.scenario),
        town.settings.seed,
        days + 3650,
        EventLog::default(),
    );
    if let Some(snap) = town.resume {
        crate::save::restore(app.world_mut(), snap).map_err(CliError::Failed)?;
    }
    // The input first: one that cannot be read leaves the transcript and
    // log files as they were.
    let lines: Box<dyn Iterator<Item = String>> = match tape.inputs() {
        Some(recorded) => Box::new(recorded.into_iter()),
        None => input_lines(args.input.as_deref())?,
    };
    let mut out = Transcript::open(args.transcript.as_deref())?;
    // Last: nothing is logged before the first step.
    if let Some(log) = super::open_log(town.log.as_deref())? {
        app.insert_resource(log);
    }
    let id = profile.id.clone();
    greet(&mut app, &id, &profile.name, profile.companion.is_some());
    if let Some(m) = &mind {
        println!("（{}的回答来自模型 {}）", profile.name, m.model());
    }
    let mut voice = voice::ChatVoice::new(mind.as_ref(), &profile.name, budget);
    let who = (&id, profile.name.as_str());
    let talk = Talk {
        voice: &mut voice,
        embedder: embedder.as_ref(),
        out: &mut out,
        tape: &mut tape,
    };
    talk.through(&mut app, who, lines)?;
    tape.finish()?;
    if let Some((target, source)) = &save {
        save_after(&mut app, days, target.path(), source)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// What a chat talks through: the resident's voice, the embedder, the
/// transcript and the recording.
struct Talk<'t, 'v> {
    voice: &'t mut voice::ChatVoice<'v>,
    embedder: Option<&'t BlockingEmbedder>,
    out: &'t mut Transcript,
    tape: &'t mut record::ChatTape,
}

impl Talk<'_, '_> {
    /// Each of the player's lines in turn: a message answered, `/wait N`,
    /// `/quit`; a line that is no command is said why and skipped.
    fn through(
        self,
        app: &mut App,
        who: (&ResidentId, &str),
        lines: impl Iterator<Item = String>,
    ) -> Result<(), CliError> {
        for line in lines {
            let line = line.trim();
            match line {
                "" => continue,
                "/quit" => break,
                _ if line.starts_with("/wait") => match wait_days(line) {
                    Ok(days) => {
                        wait(app, days, self.out)?;
                        self.tape.step(line, None)?;
                    }
                    // A typo loses nothing: say why and read on.
                    Err(why) => eprintln!("{why}"),
                },
                _ => {
                    let vector = self.embedder.and_then(|e| embed_turn(app, who.0, line, e));
                    let message = (line, vector.as_deref());
                    let reply = say(app, who, message, self.voice, self.out)?;
                    self.tape.step(line, Some(&reply))?;
                }
            }
        }
        Ok(())
    }
}

/// Saves the town after the chat; the run keeps its own length (longer
/// only if `/wait` went past it).
fn save_after(
    app: &mut bevy::prelude::App,
    days: u32,
    path: &std::path::Path,
    source: &crate::save::TownSource,
) -> Result<(), CliError> {
    let clock = app.world().resource::<Clock>();
    let elapsed = clock.now.day_number() - clock.start.day_number();
    app.world_mut().resource_mut::<RunSettings>().days = days.max(elapsed as u32 + 1);
    crate::save::save_world(app.world_mut(), path, source)
        .map_err(|e| CliError::failed(format!("{}: {e}", path.display())))
}

/// The player's lines, read as they come (bounded, see [`input`]).
fn input_lines(
    path: Option<&std::path::Path>,
) -> Result<Box<dyn Iterator<Item = String>>, CliError> {
    let read: Box<dyn BufRead> = match path {
        Some(p) => Box::new(std::io::BufReader::new(std::fs::File::open(p).map_err(
            |e| CliError::failed(format!("cannot read {}: {e}", p.display())),
        )?)),
        None => Box::new(std::io::stdin().lock()),
    };
    Ok(Box::new(input::InputLines::new(read)))
}

/// The resident's affection toward the player (none yet: zero).
fn affection_of(world: &bevy::prelude::World, id: &ResidentId) -> Affection {
    world
        .resource::<Companions>()
        .0
        .get(id)
        .map(|s| s.affection.clone())
        .unwrap_or_default()
}

/// Where the companion stands, before the first message.
fn greet(app: &mut App, id: &ResidentId, name: &str, companion: bool) {
    let w = app.world();
    let a = affection_of(w, id);
    let now = w.resource::<Clock>().now;
    println!(
        "和{name}聊天 · {} · 好感度 {}（第{}章：{}）{}",
        now.stamp(),
        a.value(),
        a.stage().chapter(),
        a.stage().name(),
        if companion {
            ""
        } else {
            " · 这位居民没有陪伴设定：只是闲聊"
        }
    );
}

/// Embeds the resident's memories that have no vector yet (kept for the
/// save) and the message as a query; on failure the chat goes on lexically.
fn embed_turn(
    app: &mut App,
    id: &ResidentId,
    message: &str,
    embedder: &BlockingEmbedder,
) -> Option<Vec<f32>> {
    let entity = app.world().resource::<Roster>().entity(id)?;
    let mut memories = app.world_mut().get_mut::<Memories>(entity)?;
    let embedded = embedder
        .embed_missing(&mut memories)
        .and_then(|_| embedder.embed(&[message.to_string()], true));
    match embedded {
        Ok(mut v) => v.pop(),
        Err(why) => {
            eprintln!("（没有取到向量，只按字词回忆：{why}）");
            None
        }
    }
}

/// One message (with its embedding, if any) and its reply, printed and
/// written to the transcript; the reply is returned.
fn say(
    app: &mut App,
    (id, name): (&ResidentId, &str),
    (text, vector): (&str, Option<&[f32]>),
    voice: &mut voice::ChatVoice<'_>,
    out: &mut Transcript,
) -> Result<String, CliError> {
    let now = app.world().resource::<Clock>().now;
    voice.town_answer = crate::builtin::interview::town_answer(app.world(), id, text);
    let turn = chat_turn(app.world_mut(), id, (text, vector), voice)
        .ok_or_else(|| CliError::failed(format!("{name} is not in town")))?;
    let a = affection_of(app.world(), id);
    let (affection, stage) = (a.value(), a.stage().name());
    println!("你：{text}");
    println!("{name}：{}", turn.reply);
    print_changes(&turn, affection);
    let common = |role: &str, content: &str| {
        json!({"kind": "message", "role": role, "content": content, "time": now.to_string(),
               "affection": affection, "stage": stage})
    };
    out.write(common("user", text))?;
    for (f, learnt) in &turn.learnt {
        let how = match learnt {
            Learnt::New => "new",
            Learnt::Replaced(_) => "replaced",
            Learnt::Known => "known",
        };
        out.write(json!({"kind": "fact", "fact": f.kind, "about": f.about, "value": f.value, "learnt": how}))?;
    }
    let mut answer = common("companion", &turn.reply);
    answer["source"] = json!(voice.source.as_str());
    answer["layers"] = json!(voice.layers);
    out.write(answer)?;
    for c in &turn.changes {
        out.write(
            json!({"kind": "affection", "delta": c.delta, "reason": c.reason.text(),
                         "before": c.before, "after": c.after}),
        )?;
    }
    for m in &turn.moments {
        out.write(
            json!({"kind": "key_moment", "id": m.id, "name": m.name, "chapter": m.chapter,
                         "status": m.status, "user": m.user, "reply": m.reply, "gained": m.gained}),
        )?;
    }
    if let Some(p) = &turn.profile {
        let mut v = json!(p);
        v["kind"] = json!("profile");
        out.write(v)?;
    }
    Ok(turn.reply)
}

fn print_changes(turn: &Turn, affection: i32) {
    let delta: i32 = turn.changes.iter().map(|c| c.delta).sum();
    let (before, after) = turn.stages;
    let stage = if before == after {
        after.name().to_string()
    } else {
        format!("{} → {}", before.name(), after.name())
    };
    println!("    （好感度 {delta:+} → {affection} · {stage}）");
    for m in &turn.moments {
        let how = match m.status {
            crate::companion::MomentStatus::Failed => "落空了",
            _ => "",
        };
        println!(
            "    ✨ 关键时刻{how}：{}（第{}章，好感度 {:+}）",
            m.name, m.chapter, m.gained
        );
    }
    for (f, learnt) in &turn.learnt {
        if !matches!(learnt, Learnt::Known) {
            println!("    （记下了：{}）", third_person(&f.to_you()));
        }
    }
    if let Some(p) = &turn.profile {
        println!("    （对你的印象更新了：第{}版）", p.version);
    }
}

/// The days of a `/wait N`, or why the line is not one.
fn wait_days(line: &str) -> Result<i64, String> {
    line.trim_start_matches("/wait")
        .trim()
        .parse()
        .ok()
        .filter(|d| (1..=MAX_WAIT_DAYS).contains(d))
        .ok_or_else(|| {
            format!(
                "（`{line}` 没看懂：写 /wait N，N 是 1 到 {MAX_WAIT_DAYS} 的游戏天数；聊天继续）"
            )
        })
}

/// The most game days one `/wait` lets pass (a year).
const MAX_WAIT_DAYS: i64 = 365;

/// `/wait N`: the town runs on for N game days.
fn wait(app: &mut App, days: i64, out: &mut Transcript) -> Result<(), CliError> {
    let until = app
        .world()
        .resource::<Clock>()
        .now
        .plus_minutes(days * 1440);
    while app.world().resource::<Clock>().now < until
        && !app.world().resource::<SimOutcome>().ended()
    {
        app.update();
    }
    let now: GameTime = app.world().resource::<Clock>().now;
    println!("    （{days} 天过去了，现在是 {}）", now.stamp());
    out.write(json!({"kind": "wait", "days": days, "time": now.to_string()}))
}

/// The JSON Lines transcript, when asked for.
struct Transcript(Option<std::io::BufWriter<std::fs::File>>);

impl Transcript {
    fn open(path: Option<&std::path::Path>) -> Result<Self, CliError> {
        let file = path
            .map(|p| {
                std::fs::File::create(p)
                    .map_err(|e| CliError::failed(format!("cannot create {}: {e}", p.display())))
            })
            .transpose()?;
        Ok(Self(file.map(std::io::BufWriter::new)))
    }

    fn write(&mut self, v: Value) -> Result<(), CliError> {
        if let Some(w) = &mut self.0 {
            writeln!(w, "{v}")
                .and_then(|_| w.flush())
                .map_err(|e| CliError::failed(format!("cannot write the transcript: {e}")))?;
        }
        Ok(())
    }
}

/// A fact told to the player (你男朋友下周来看你) as a note about them
/// (对方男朋友下周来看对方); 「让我叫你」 keeps its 你, the name it is called by.
fn third_person(told: &str) -> String {
    let first = told.replacen('你', "对方", 1);
    match first.contains("叫你") {
        true => first,
        false => first.replace('你', "对方"),
    }
}
