//! A resident running a HEART RULE skill in a town conversation (a scenario's
//! `converse:`): the skill's AI lines are that resident's turns, and the
//! partner answers as the HUMAN role through the built-in playtester persona,
//! in its own words and memories. The skill's LLM steps take the engine's
//! offline answers, so the town stays deterministic whatever the brain.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use bevy::prelude::*;

use crate::sim::residents::roster::RosterIdx;
use rand::RngExt;

use super::{Conversation, LineInputs, SocialRng, SocialState, TalkerView};
use crate::scenario::RelationKind;
use crate::script::engine::{EngineError, Script};
use crate::script::host::{Host, Prompt, Shown};
use crate::script::runner::{Human, Persona};

/// Engine calls one line may take before the run counts as stuck.
const MAX_CALLS: usize = 64;

/// A HEART RULE skill a resident runs in a conversation, one engine per conversation.
/// A save keeps everything but the script set, which is the runner's
/// `converse:` set in the scenario (`ScriptedTalk::reattach`).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ScriptedTalk {
    /// The skill's name.
    pub(crate) skill: String,
    #[serde(skip)]
    script: Arc<Script>,
    host: Host,
    persona: Persona,
    /// Roster index of the resident running the skill (the AI role).
    pub(crate) ai: RosterIdx,
    /// Roster index of the partner (the HUMAN role).
    pub(crate) human: RosterIdx,
    /// `host.shown` entries already turned into lines.
    seen: usize,
    queue: VecDeque<(RosterIdx, String)>,
    /// The skill ran to its end.
    pub(crate) finished: bool,
    /// Why it stopped early (an engine error).
    pub(crate) error: Option<String>,
    /// The partner's name: a line about them is said to their face.
    #[serde(default)]
    partner_name: String,
}

impl ScriptedTalk {
    /// Starts `skill` with its variables set from `inputs`; `partner` is the
    /// partner's name and persona text (see
    /// [`crate::scenario::Profile::persona_text`]).
    pub fn start(
        script: Arc<Script>,
        skill: &str,
        inputs: BTreeMap<String, String>,
        (ai, human): (RosterIdx, RosterIdx),
        (name, partner): (&str, &str),
        now: &str,
    ) -> Result<Self, EngineError> {
        let host = Host::start_skill(&script, skill, inputs, now)?;
        let mut talk = Self {
            skill: skill.to_string(),
            script,
            host,
            persona: Persona::new(partner),
            ai,
            human,
            seen: 0,
            queue: VecDeque::new(),
            finished: false,
            error: None,
            partner_name: name.to_string(),
        };
        talk.drain();
        Ok(talk)
    }

    /// Gives a loaded talk its script set back.
    pub(crate) fn reattach(&mut self, script: Arc<Script>) {
        self.script = script;
    }

    /// The next turn, (speaker, text); `None` once the skill has ended or
    /// failed. A speaker's lines in a row make one turn: the engine runs on
    /// (the partner answering when asked) until someone else speaks.
    pub fn next_line(&mut self, now: &str) -> Option<(RosterIdx, String)> {
        for _ in 0..MAX_CALLS {
            let turn_over = self
                .queue
                .front()
                .is_some_and(|(first, _)| self.queue.iter().any(|(s, _)| s != first));
            if turn_over || self.finished || self.error.is_some() {
                return self.pop_turn();
            }
            self.step(now);
        }
        self.error
            .get_or_insert_with(|| format!("no line after {MAX_CALLS} engine calls"));
        self.pop_turn()
    }

    /// The front speaker's lines up to the next speaker, as one.
    fn pop_turn(&mut self) -> Option<(RosterIdx, String)> {
        let (speaker, mut text) = self.queue.pop_front()?;
        while let Some((_, more)) = self.queue.pop_front_if(|(s, _)| *s == speaker) {
            if !text.ends_with(['。', '！', '？', '…', '.', '!', '?', '~', '～']) {
                text.push('。');
            }
            text.push_str(&more);
        }
        Some((speaker, text))
    }

    /// One engine call: the offline answer to an LLM step, or the partner's
    /// click, choice or words.
    fn step(&mut self, now: &str) {
        let script = &*self.script;
        let host = &mut self.host;
        let done = match host.prompt.clone() {
            Prompt::Done => {
                self.finished = true;
                Ok(())
            }
            Prompt::Thinking => host.reply_offline(script, now),
            Prompt::Continue(_) => host.click(script, now),
            Prompt::Choose(options) => {
                let key = self
                    .persona
                    .choose(&options, &host.state)
                    .or_else(|| options.first().map(|(k, _)| k.clone()))
                    .unwrap_or_default();
                host.choose(script, now, &key)
            }
            Prompt::Type => {
                let text = self
                    .persona
                    .answer(&host.state, false)
                    .unwrap_or_else(|| "嗯。".into());
                host.say(script, now, &text)
            }
        };
        if let Err(e) = done {
            self.error = Some(e.to_string());
        }
        self.drain();
    }

    /// New chat entries become lines: the AI role's for the runner, the
    /// player's for the partner. Notes (warnings, the end marker) are not said.
    fn drain(&mut self) {
        for s in &self.host.shown[self.seen..] {
            let line = match s {
                Shown::Line { text, .. } => (self.ai, to_face(text.trim(), &self.partner_name)),
                Shown::Player { text } => (self.human, text.trim().to_string()),
                Shown::Note { .. } => continue,
            };
            if !line.1.is_empty() {
                self.queue.push_back(line);
            }
        }
        self.seen = self.host.shown.len();
    }

    /// The variables the run set, by name, last value (the skill's findings).
    pub fn results(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        for (_, name, value) in &self.host.vars {
            let text = value.text();
            match out.iter_mut().find(|(n, _)| n == name) {
                Some(v) => v.1 = text,
                None => out.push((name.clone(), text)),
            }
        }
        out.retain(|(_, v)| !v.is_empty());
        out
    }

    /// Warnings the engine raised (a value missing from a prompt, …).
    pub fn warnings(&self) -> Vec<String> {
        self.host
            .warnings
            .iter()
            .map(|w| format!("⚠ {w}"))
            .collect()
    }
}

/// A line that speaks of `name` in the third person as its subject
/// (「林小溪最近在忙什么？」) said to them: 「你最近在忙什么？」. A name
/// called out (「林小溪，…」) stays.
fn to_face(line: &str, name: &str) -> String {
    match line.strip_prefix(name) {
        Some(rest) if !name.is_empty() && !rest.starts_with(['，', ',', '！', '!', '、', '：']) =>
        {
            format!("你{rest}")
        }
        _ => line.to_string(),
    }
}

/// Before a two-person conversation's first line: whether one of the two (the
/// opener first) has a `converse:` skill due with the other, and if the dice
/// agree, that skill started with its inputs filled in. Storyline talks
/// (invitations, proposals) are left alone; a customer greeted by staff
/// starts its skill after the greeting.
pub(super) fn begin(
    c: &Conversation,
    inputs: &LineInputs,
    state: &SocialState,
    rng: &mut SocialRng,
    q: &Query<TalkerView>,
) -> Option<Began> {
    if c.participants.len() != 2 || c.invite.is_some() || c.proposal.is_some() {
        return None;
    }
    let view = |i: RosterIdx| q.get(inputs.roster.entity_of(i)).ok();
    let [a, b] = [c.participants[0], c.participants[1]];
    // Staff greet first and do not run skills while greeting.
    let order = if c.role.is_some() {
        vec![(b, a)]
    } else {
        vec![(a, b), (b, a)]
    };
    let (ai, human, converse, skill) = order.into_iter().find_map(|(me, other)| {
        let v = view(me)?;
        let converse = v.1.converse.as_ref()?;
        let kind = v.3.by_idx(other).map_or(RelationKind::Stranger, |r| r.kind);
        if !converse.with.is_empty() && !converse.with.contains(&kind) {
            return None;
        }
        let skill = converse
            .skills
            .iter()
            .find(|s| !state.skills_done.contains(&(me, other, s.skill.clone())))?;
        Some((me, other, converse, skill))
    })?;
    if rng.random::<f32>() >= converse.chance {
        return None;
    }
    let (me, partner) = (view(ai)?, view(human)?);
    let names = &inputs.roster.names();
    let ties = close_ties(&partner, ai, inputs.census.standing_at(c.place));
    // A skill about the partner's ties waits for a place where one of them
    // can be spoken of (not all standing by).
    if ties.is_empty() && skill.input.iter().any(|(_, t)| t.contains("{对方亲友")) {
        return None;
    }
    let fields = converse_fields(
        (ai, human),
        (&me, &partner),
        names,
        (inputs.town.name(c.place), ties.first().copied()),
    );
    let values = skill_inputs(&skill.input, &fields);
    let now = c.next_turn.max(inputs.clock.now).seconds_text();
    let talk = ScriptedTalk::start(
        std::sync::Arc::clone(&converse.script),
        &skill.skill,
        values.clone(),
        (ai, human),
        (
            &names[human.i()],
            &partner_persona(
                &partner,
                names,
                inputs,
                &ties,
                inputs.census.standing_at(c.place),
            ),
        ),
        &now,
    )
    .map_err(|e| e.to_string());
    Some(Began {
        ai,
        human,
        skill: skill.skill.clone(),
        inputs: values,
        talk,
    })
}

/// A skill's inputs: each template with the converse fields filled in.
fn skill_inputs(
    input: &[(String, String)],
    fields: &[(&'static str, String)],
) -> BTreeMap<String, String> {
    input
        .iter()
        .map(|(var, template)| {
            let mut v = template.clone();
            for (f, text) in fields {
                v = v.replace(&format!("{{{f}}}"), text);
            }
            (var.clone(), v)
        })
        .collect()
}

/// The partner's ties it would speak of to the runner `ai`, closest first:
/// known ones (an impression, not strangers), neither the runner nor anyone
/// in `earshot` (roster indices, sorted) — one is not asked about 阿朵 with
/// 阿朵 standing by.
fn close_ties<'a>(
    partner: &'a TalkerView,
    ai: RosterIdx,
    earshot: &[RosterIdx],
) -> Vec<&'a crate::sim::residents::Relationship> {
    let mut close: Vec<_> = partner
        .3
        .iter()
        .filter(|r| r.with_idx != ai && earshot.binary_search(&r.with_idx).is_err())
        .filter(|r| !r.impression.is_empty() && r.kind != RelationKind::Stranger)
        .collect();
    close.sort_by(|a, b| {
        b.strength
            .total_cmp(&a.strength)
            .then(a.with_idx.cmp(&b.with_idx))
    });
    close
}

/// The values of [`crate::scenario::CONVERSE_FIELDS`] for the runner `ai`
/// and its partner `human`, talking at `place`; `tie` is the partner's
/// closest it would speak of ([`close_ties`]).
fn converse_fields(
    (ai, human): (RosterIdx, RosterIdx),
    (me, partner): (&TalkerView, &TalkerView),
    names: &[String],
    (place, tie): (&str, Option<&crate::sim::residents::Relationship>),
) -> [(&'static str, String); 8] {
    let seen_as =
        me.3.by_idx(human)
            .map_or(RelationKind::Stranger, |r| r.kind);
    [
        ("我", names[ai.i()].clone()),
        ("对方", names[human.i()].clone()),
        ("对方职业", partner.1.occupation.clone()),
        ("对方年龄", partner.1.age.to_string()),
        ("地点", place.to_string()),
        ("关系", seen_as.label().to_string()),
        (
            "对方亲友",
            tie.map_or("家里人".to_string(), |r| names[r.with_idx.i()].clone()),
        ),
        (
            "对方亲友关系",
            tie.map_or(RelationKind::Family, |r| r.kind)
                .label()
                .to_string(),
        ),
    ]
}

/// What a resident is busy with these days, in its own words: an
/// appointment it means to keep, a gathering it means to go to, else its work
/// (「最近在忙…」 answers 「你最近在忙些什么？」).
fn busy_with(
    p: &crate::scenario::Profile,
    agenda: &crate::sim::residents::Agenda,
    (names, present): (&[String], &[RosterIdx]),
    inputs: &super::LineInputs,
) -> Option<String> {
    let now = inputs.clock.now;
    let work = p.work.as_ref().map(|w| inputs.town.name(w.place));
    let busy = match work {
        Some(place) => format!("最近在忙{place}的事"),
        None => "最近在忙自己的事".to_string(),
    };
    let meeting = (agenda.meetings.iter())
        .filter(|m| m.keep && m.at > now)
        .min_by_key(|m| m.at);
    if let Some(m) = meeting {
        let place = inputs.town.name(m.place);
        // One standing by is not spoken of as if away.
        if present.contains(&m.with) {
            return Some(format!("{busy}，晚些还约了人在{place}见面。"));
        }
        let who = &names[m.with.i()];
        return Some(format!("{busy}，还跟{who}约好了在{place}见面。"));
    }
    let gathering = (agenda.appointments.iter())
        .filter(|a| a.will_attend)
        .filter_map(|a| inputs.gatherings.at(a.gathering))
        .find(|g| g.starts > now);
    if let Some(g) = gathering {
        let title = &g.title;
        if g.organiser == p.id {
            return Some(format!("{busy}，还在张罗{title}。"));
        }
        let when = match g.starts.day_number() - now.day_number() {
            0 => "今天晚些",
            1 => "明天",
            _ => "过几天",
        };
        return Some(format!("{busy}，{when}还要去{title}。"));
    }
    work.map(|_| format!("{busy}，一天到晚闲不下来。"))
}

/// A skill chosen for a conversation, and its start (or why it failed).
pub(super) struct Began {
    pub(super) ai: RosterIdx,
    pub(super) human: RosterIdx,
    pub(super) skill: String,
    pub(super) inputs: BTreeMap<String, String>,
    pub(super) talk: Result<ScriptedTalk, String>,
}

/// A resident as it answers a skill: how it feels and what it is busy with
/// now, its closest ties in its own words, then its persona
/// ([`Profile::persona_text`](crate::scenario::Profile::persona_text)). First person, one sentence each.
fn partner_persona(
    partner: &crate::sim::social::TalkerView,
    names: &[String],
    inputs: &super::LineInputs,
    close: &[&crate::sim::residents::Relationship],
    present: &[RosterIdx],
) -> String {
    let town = &inputs.town;
    let (_, persona, _, _, agenda, needs, _) = partner;
    let p = &persona.0;
    let mut lines = Vec::new();
    lines.push(if needs.energy < 35.0 {
        "我有点累，这几天没睡够。".to_string()
    } else if needs.social < 35.0 || needs.fun < 35.0 || p.personality.neuroticism > 65.0 {
        "最近有点闷，心里有点烦。".to_string()
    } else {
        "最近还不错，每天都挺充实。".to_string()
    });
    lines.extend(busy_with(p, agenda, (names, present), inputs));
    if let Some(w) = &p.work {
        lines.push(format!(
            "我是{}，平时在{}上班。",
            p.occupation,
            town.name(w.place)
        ));
    }
    if let Some(does) = p.hobbies.iter().find_map(|h| h.does.as_ref()) {
        lines.push(format!("有空的时候我爱{does}。"));
    }
    for r in close.iter().take(3) {
        // 「阿朵是我的同事，手脚麻利的好帮手」: said, not a record.
        lines.push(format!(
            "{}是我的{}，{}。",
            names[r.with_idx.i()],
            r.kind.label(),
            r.impression.trim_end_matches('。')
        ));
    }
    for h in &p.hobbies {
        if let Some(says) = &h.says {
            lines.push(says.to_string());
        }
    }
    // The persona without its self-introduction: the guardian knows whom
    // it talks with, and 「我叫…，52岁」 answers nothing it asks.
    let persona = p.persona_text();
    lines.extend(persona.lines().skip(1).map(str::to_string));
    lines.join("\n")
}
