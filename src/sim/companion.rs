//! The player's chats with residents: each resident's [`CompanionState`]
//! (affection, key moments, the player's profile, the chat so far), kept for
//! the save, and a turn of chat run against the world — what the resident
//! recalls comes from its memories, and what the player said becomes one.

use std::collections::BTreeMap;
use std::sync::Arc;

use bevy::prelude::*;

use super::clock::Clock;
use super::memory::MemorySearch;
use super::memory::store::{Memories, MemoryKind};
use super::residents::roster::{Roster, RosterIdx};
use super::residents::{Persona, Relationships};
use super::town::ActiveTuning;
use crate::base::time::GameTime;
use crate::companion::moments::KeyMomentSpec;
use crate::companion::said::{Act, Said, Topic};
use crate::companion::session::{Acquaintance, Opened, ReplyContext, Setting};
use crate::companion::{ChatBank, CompanionSpec, CompanionState, Stage, StageSpec, Turn, Voice};
use crate::recall;
use crate::scenario::{Profile, ResidentId};

/// Every resident's relationship with the player (only those talked with).
#[derive(Resource, Debug, Clone, Default)]
pub struct Companions(pub BTreeMap<ResidentId, CompanionState>);

/// The player's counselling courses: with each counsellor resident (a
/// `counsel:` script set), the sessions played so far, for the next one.
#[derive(Resource, Debug, Clone, Default)]
pub struct CounselCourses(pub BTreeMap<ResidentId, crate::script::engine::Course>);

/// How many memories a reply may draw on.
const RECALLED: usize = 5;
/// Importance of what the player said, as the resident remembers it.
const SAID_IMPORTANCE: u8 = 40;
/// … when it stated something about the player: what recall must find.
const TOLD_IMPORTANCE: u8 = 75;
/// … when it only asked: a question states nothing worth recalling.
const ASKED_IMPORTANCE: u8 = 10;
/// … when it was a key moment.
const MOMENT_IMPORTANCE: u8 = 90;

/// The companion system of a resident: its own `companion:`, or for anyone
/// else a plain one from its persona (its quote, trade and tastes, no key
/// moments).
pub fn spec_of(profile: &Profile) -> Arc<CompanionSpec> {
    if let Some(spec) = &profile.companion {
        return spec.clone();
    }
    let quote = profile.quote.trim().trim_end_matches(['。', '！']);
    let lines = vec![
        format!("{quote}。{{称呼}}，你说是不是？"),
        "嗯，{称呼}，你接着说。{记忆}".to_string(),
        format!(
            "我这几天忙着{}的事，听你说说话正好歇一歇。",
            profile.occupation
        ),
    ];
    let stage = StageSpec {
        prompt: String::new(),
        lines,
    };
    let hobbies: Vec<String> = profile
        .hobbies
        .iter()
        .filter_map(|h| h.does.as_deref().map(str::to_owned))
        .collect();
    let likes = match (hobbies.is_empty(), profile.food.first()) {
        (false, Some(f)) => format!("闲下来喜欢{}，嘴馋了就想吃{f}。", hobbies.join("、")),
        (false, None) => format!("闲下来喜欢{}。", hobbies.join("、")),
        (true, Some(f)) => format!("我呀，最爱吃{f}。"),
        (true, None) => "说不上特别喜欢什么，日子过得踏实就好。".into(),
    };
    let about = [
        (Topic::Name, format!("我叫{}。", profile.name)),
        (Topic::Age, format!("我今年{}岁了。", profile.age)),
        (Topic::Likes, likes),
        (
            Topic::Doing,
            format!("还能忙什么，{}的活儿呗。", profile.occupation),
        ),
        (Topic::How, format!("还行，{}。", quote)),
    ]
    .into_iter()
    .map(|(t, line)| (t, vec![line]))
    .collect();
    Arc::new(CompanionSpec {
        core: profile.persona_text(),
        stages: Stage::ALL.into_iter().map(|s| (s, stage.clone())).collect(),
        key_moments: Vec::new(),
        gestures: Vec::new(),
        about,
    })
}

/// The chat phrase bank of the loaded scenario (hot-reloaded with it).
fn chat_bank(world: &World) -> Arc<ChatBank> {
    world
        .get_resource::<super::LoadedScenario>()
        .map_or_else(ChatBank::shared_builtin, |s| s.0.chat.clone())
}

/// One turn of the player's chat with `who` at the clock's time; `voice`
/// writes the answer (the built-in brain unless a model is asked). With the
/// message's embedding (`vector`), recall is semantic too.
pub fn chat_turn(
    world: &mut World,
    who: &ResidentId,
    message: (&str, Option<&[f32]>),
    voice: &mut dyn Voice,
) -> Option<Turn> {
    let turn = chat_context(world, who, message, voice)?;
    let candidates = turn.candidates();
    let reply = voice.reply(&turn.reply_context(&candidates));
    chat_answered(world, turn, &reply, voice)
}

/// What the resident keeps of the player's message: a memory, ranked by
/// what the message did (stated something, only asked, or was a key moment).
fn remember(
    world: &mut World,
    entity: Entity,
    name: &str,
    (message, said): (&str, &Said),
    turn: &Turn,
) -> Option<()> {
    let now = world.resource::<Clock>().now;
    // What the player stated is what recall must find; a question states
    // nothing, and ranks below the answer it asks for.
    let asked = said.question.is_some() && !said.does(Act::Feels);
    let (importance, verb) = match (turn.learnt.is_empty(), asked) {
        (false, _) => (TOLD_IMPORTANCE, "告诉我"),
        (true, true) => (ASKED_IMPORTANCE, "问我"),
        (true, false) => (SAID_IMPORTANCE, "对我说"),
    };
    let importance = if turn.moments.is_empty() {
        importance
    } else {
        MOMENT_IMPORTANCE
    };
    let facts: Vec<_> = turn.learnt.iter().map(|(f, _)| f.clone()).collect();
    let tags = crate::companion::said::fact_tags(&facts);
    let text = format!("{name}{verb}：「{message}」{tags}");
    let mut memories = world.get_mut::<Memories>(entity)?;
    memories.push(now, MemoryKind::Chat, importance, text);
    Some(())
}

/// A chat turn taken in on a copy of the resident's state, with all its
/// reply is written from (recall included), computed once: a model is asked
/// from [`ChatContext::reply_context`] while the town runs on, and
/// [`chat_answered`] ends the turn with the answer. The world is not
/// touched until then.
pub struct ChatContext {
    who: ResidentId,
    entity: Entity,
    speaker: String,
    spec: Arc<CompanionSpec>,
    bank: Arc<ChatBank>,
    now: GameTime,
    recalled: Vec<String>,
    people: Vec<Acquaintance>,
    /// The resident's state with the message taken in.
    state: CompanionState,
    opened: Opened,
}

impl ChatContext {
    /// The key moments the message may decide: hand them to
    /// [`ChatContext::reply_context`].
    pub fn candidates(&self) -> Vec<&KeyMomentSpec> {
        self.opened.candidates(&self.spec)
    }

    /// What the reply is written from.
    pub fn reply_context<'a>(&'a self, candidates: &'a [&'a KeyMomentSpec]) -> ReplyContext<'a> {
        let at = self.setting();
        self.opened
            .context(&at, &self.state, candidates, &self.recalled)
    }

    /// The resident answering.
    pub fn who(&self) -> &ResidentId {
        &self.who
    }

    /// Its name.
    pub fn speaker(&self) -> &str {
        &self.speaker
    }

    /// What the player said.
    pub fn message(&self) -> &str {
        self.opened.message()
    }

    fn setting(&self) -> Setting<'_> {
        Setting {
            spec: &self.spec,
            bank: &self.bank,
            speaker: &self.speaker,
            now: self.now,
            people: &self.people,
        }
    }
}

/// The town's people as the resident at `entity` knows them: each one's
/// name and trade, and its impression where it has one.
fn people_known(world: &mut World, entity: Entity) -> Vec<Acquaintance> {
    let ties: Vec<(RosterIdx, String)> = world
        .get::<Relationships>(entity)
        .map(|r| {
            r.iter()
                .map(|t| (t.with_idx, t.impression.to_string()))
                .collect()
        })
        .unwrap_or_default();
    let roster = world.resource::<Roster>();
    let others: Vec<(RosterIdx, Entity, String)> = roster
        .indices()
        .map(|i| (i, roster.entity_of(i), roster.name_of(i).to_string()))
        .filter(|(_, e, _)| *e != entity)
        .collect();
    others
        .into_iter()
        .map(|(i, e, name)| {
            let trade = world
                .get::<Persona>(e)
                .map(|p| p.0.occupation.clone())
                .unwrap_or_default();
            let impression = ties
                .iter()
                .find(|(w, _)| *w == i)
                .map(|(_, text)| text.clone())
                .unwrap_or_default();
            Acquaintance {
                name,
                trade,
                impression,
            }
        })
        .collect()
}

/// The player's `message` to `who` taken in (its facts read by `voice`),
/// nothing in the world changed yet: see [`ChatContext`].
pub fn chat_context(
    world: &mut World,
    who: &ResidentId,
    (message, vector): (&str, Option<&[f32]>),
    voice: &mut dyn Voice,
) -> Option<ChatContext> {
    let entity = world.resource::<Roster>().entity(who)?;
    let profile = world.get::<Persona>(entity)?.0.clone();
    let spec = spec_of(&profile);
    let bank = chat_bank(world);
    let now = world.resource::<Clock>().now;
    let recalled = recall_for(world, entity, message, vector);
    let people = people_known(world, entity);
    let mut state = world
        .get_resource::<Companions>()
        .and_then(|c| c.0.get(who).cloned())
        .unwrap_or_default();
    let at = Setting {
        spec: &spec,
        bank: &bank,
        speaker: &profile.name,
        now,
        people: &people,
    };
    let opened = state.open(&at, message, voice);
    Some(ChatContext {
        who: who.clone(),
        entity,
        speaker: profile.name.clone(),
        spec,
        bank,
        now,
        recalled,
        people,
        state,
        opened,
    })
}

/// Ends the turn `cx` with `reply` (a model's, or the built-in brain's from
/// the same context; `voice` rewrites the profile when it is due): the
/// resident's state becomes the one the turn was taken in on, and it
/// remembers the message.
pub fn chat_answered(
    world: &mut World,
    cx: ChatContext,
    reply: &str,
    voice: &mut dyn Voice,
) -> Option<Turn> {
    let ChatContext {
        who,
        entity,
        speaker,
        spec,
        bank,
        now,
        mut state,
        opened,
        ..
    } = cx;
    let (message, said) = (opened.message().to_string(), opened.said().clone());
    let at = Setting {
        spec: &spec,
        bank: &bank,
        speaker: &speaker,
        now,
        people: &[],
    };
    let turn = state.close(&at, opened, reply, voice);
    let name = state.profile.address().to_string();
    world.init_resource::<Companions>();
    world.resource_mut::<Companions>().0.insert(who, state);
    remember(world, entity, &name, (&message, &said), &turn)?;
    Some(turn)
}

/// The resident's memories most worth recalling for the message.
fn recall_for(
    world: &mut World,
    entity: Entity,
    message: &str,
    vector: Option<&[f32]>,
) -> Vec<String> {
    let search = world.resource::<MemorySearch>().clone();
    let tuning = world.resource::<ActiveTuning>().0.memory.clone();
    let now = world.resource::<Clock>().now;
    let Some(mut memories) = world.get_mut::<Memories>(entity) else {
        return Vec::new();
    };
    let text = crate::companion::said::search_text(message);
    let q = recall::Query {
        text: &text,
        now,
        as_of: None,
        vector,
        k: RECALLED,
    };
    memories
        .recall_relevant(search.segmenter(), &q, &tuning)
        .into_iter()
        .map(|m| m.line())
        .collect()
}
