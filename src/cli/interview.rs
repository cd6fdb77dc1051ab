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
use crate::sim::event_log::EventLog;
use crate::sim::interview::{Answer, Interview};
use crate::sim::residents::{Roster, RosterIdx};

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
    let iv = Interview::of(world, idx)
        .ok_or_else(|| CliError::failed("the resident has no facts, ties or memories"))?;
    let builtin = crate::builtin::interview::answer(&iv, question);
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
