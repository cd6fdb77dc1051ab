//! `heartvale interview RESIDENT "QUESTION"`: a resident answers, frozen in
//! time (a save as it was, or a scenario at its start) and without side
//! effects — nothing steps, nothing is written. Offline the built-in brain
//! answers from the resident's facts, memories and ties; with a model, its
//! prompt carries them with their sources (a failed call: the built-in
//! answer, said on stderr).

use std::process::ExitCode;
use std::sync::Arc;

use bevy::prelude::World;
use serde_json::json;

use super::{CliError, InterviewArgs};
use crate::headless::headless_app;
use crate::sim::LoadedScenario;
use crate::sim::clock::Clock;
use crate::sim::event_log::EventLog;
use crate::sim::interview::{Answer, Interview, Subject};
use crate::sim::knowledge::{FactWords, Knowledge};
use crate::sim::memory::{Memories, MemorySearch};
use crate::sim::residents::{Relationships, Roster, RosterIdx};
use crate::sim::town::Gatherings;

/// Asks, prints the answer (or `--json`); exit 1 for an unknown resident.
pub(super) fn interview(args: InterviewArgs) -> Result<ExitCode, CliError> {
    let town = args.town.open(&args.llm)?;
    let profile = town
        .scenario
        .resident(&args.resident)
        .cloned()
        .ok_or_else(|| CliError::failed(format!("no resident {:?} in this town", args.resident)))?;
    let llm = town.llm.clone();
    let mut app = headless_app(
        Arc::new(town.scenario),
        town.settings.seed,
        town.settings.days,
        EventLog::default(),
    );
    if let Some(snap) = town.resume {
        crate::save::restore(app.world_mut(), snap).map_err(CliError::Failed)?;
    }
    let world = app.world();
    let idx = world
        .resource::<Roster>()
        .idx(&profile.id)
        .ok_or_else(|| CliError::failed("the resident is not in the town"))?;
    let (answer, source) = ask(world, idx, &args.question, llm.as_ref())?;
    if args.json {
        let out = json!({
            "resident": profile.id.as_str(),
            "name": profile.name,
            "question": args.question,
            "answer": answer.text,
            "asked": answer.asked,
            "source": source,
            "facts": answer.facts,
            "memories": answer.memories,
        });
        println!("{out}");
    } else {
        println!("{}：{}", profile.name, answer.text);
    }
    Ok(ExitCode::SUCCESS)
}

/// The answer and who gave it (`builtin` or `llm`).
fn ask(
    world: &World,
    idx: RosterIdx,
    question: &str,
    llm: Option<&crate::llm::LlmSettings>,
) -> Result<(Answer, &'static str), CliError> {
    let roster = world.resource::<Roster>();
    let entity = roster.entity_of(idx);
    let get = |what: &str| CliError::failed(format!("the resident has no {what}"));
    let scenario = &world.resource::<LoadedScenario>().0;
    let iv = Interview {
        who: Subject {
            idx,
            me: &scenario.residents[idx.i()],
            knows: world
                .get::<Knowledge>(entity)
                .ok_or_else(|| get("knowledge"))?,
            ties: world
                .get::<Relationships>(entity)
                .ok_or_else(|| get("ties"))?,
            memories: world
                .get::<Memories>(entity)
                .ok_or_else(|| get("memories"))?
                .entries(),
            needs: world.get::<crate::sim::residents::Needs>(entity),
        },
        words: FactWords {
            roster,
            town: world.resource::<crate::scenario::Town>(),
            gatherings: &world.resource::<Gatherings>().0,
            residents: &scenario.residents,
        },
        now: world.resource::<Clock>().now,
        bank: &scenario.dialogue,
        segmenter: world.resource::<MemorySearch>().segmenter(),
        seed: world.resource::<crate::sim::RunSettings>().seed,
    };
    let builtin = crate::brain::interview::answer(&iv, question);
    let Some(settings) = llm else {
        return Ok((builtin, "builtin"));
    };
    match crate::llm::interview::answer(settings, &iv, question) {
        Ok(text) => Ok((Answer { text, ..builtin }, "llm")),
        Err(why) => {
            eprintln!(
                "（{}的模型没有回答：{why}；由内置大脑回答）",
                iv.who.me.name
            );
            Ok((builtin, "builtin"))
        }
    }
}
