//! Picking a line: among those whose conditions hold for this speaker,
//! listener and moment and whose slots can all be filled, one not said
//! today if there is one, by a seeded draw.

use crate::builtin::address::address;
use crate::scenario::PhraseBank;
use crate::scenario::dialogue::{Cond, Exchange, Feeling, Line, Situation, without_mention};
use crate::sim::brain::LineContext;
use crate::sim::residents::{ActivityKind, Needs};
use crate::sim::social::Cue;
use crate::sim::social::spoken::line_hash;

/// Below this, a need is felt.
const LOW: f32 = 35.0;
/// Above this, energy is "rested".
const RESTED: f32 = 70.0;
/// Hungry only this long after the last meal…
const HUNGRY_AFTER: i64 = 120;
/// …and fed for this long after it.
const FED_FOR: i64 = 90;
/// Hunger (the need, 100 = full) above which one at a meal has had its fill.
const SATED: f32 = 85.0;
/// Minutes after its last meal that one has eaten (「吃过了」) and is not yet due another.
const ATE_WITHIN: i64 = 180;

/// The one about to speak, and the moment.
pub(super) struct Speaker<'a, 'c> {
    pub(super) cx: &'a LineContext<'c>,
    feels: Vec<Feeling>,
    /// Someone comforted the speaker earlier in this talk.
    comforted: bool,
    /// How the speaker calls the listener (the `{you}` slot), worked out
    /// once for the line rather than at every pick.
    you: String,
    /// The talk's lines so far without their @, trimmed once: each
    /// candidate line is weighed against them.
    history: Vec<&'a str>,
}

impl<'a, 'c> Speaker<'a, 'c> {
    pub(super) fn new(cx: &'a LineContext<'c>) -> Self {
        let comforted = cx.history.iter().any(|m| {
            m.cue == Some(Cue::Comfort)
                && m.speaker != cx.speaker_idx
                && m.to.is_none_or(|t| t == cx.speaker_idx)
        });
        Self {
            cx,
            feels: feelings(cx),
            comforted,
            you: address(&cx.phrases.address, cx),
            history: cx
                .history
                .iter()
                .map(|m| without_mention(&m.text))
                .collect(),
        }
    }

    /// Whether the speaker feels `f` now.
    pub(super) fn feels(&self, f: Feeling) -> bool {
        self.feels.contains(&f)
    }

    pub(super) fn bank(&self) -> &PhraseBank {
        self.cx.phrases
    }

    /// A deterministic draw in 0..1 for this speaker, moment, turn and purpose.
    pub(super) fn roll(&self, salt: u64) -> f32 {
        let cx = self.cx;
        crate::builtin::roll(
            cx.seed,
            cx.speaker.id.as_str(),
            cx.now.0,
            cx.turn as u64 * 64 + salt,
        )
    }

    /// What a line's conditions are checked against.
    fn situation(&self) -> Situation<'_> {
        let cx = self.cx;
        let apart_days = cx
            .relation
            .and_then(|r| r.last_interaction.get())
            .map(|t| (cx.now.0 - t.0).div_euclid(86_400));
        Situation {
            speaker: cx.speaker,
            listener: cx.listener,
            minute: cx.now.minute_of_day(),
            feels: &self.feels,
            apart_days,
            at_home: cx.place.kind == crate::scenario::LocationKind::Home
                && cx.speaker.home == cx.listener.home,
            staying: cx.stays,
            comforted: self.comforted,
            working: cx.speaker_at_work,
            arrived: cx.arrived,
            listener_arrived: cx.listener_arrived,
            listener_working: cx.listener_at_work,
            sky: Some(cx.sky),
        }
    }

    /// Whether conditions `cond` hold now.
    pub(super) fn holds(&self, cond: &Cond) -> bool {
        cond.holds(&self.situation())
    }

    /// Whether `line` may be said now with `slots`.
    pub(super) fn fits(&self, line: &Line, slots: &[(&str, &str)]) -> bool {
        line.cond.holds(&self.situation()) && crate::builtin::speech::fillable(&line.text, slots)
    }

    /// A line of `list` that fits, its slots filled (`slots` first, then
    /// the speaker's own), one not said today if there is one.
    pub(super) fn pick(&self, list: &[Line], salt: u64, slots: &[(&str, &str)]) -> Option<String> {
        let all = self.slots(slots);
        let fitting: Vec<&str> = list
            .iter()
            .filter(|l| self.fits(l, &all))
            .map(|l| l.text.as_str())
            .collect();
        self.fresh(&fitting, salt, &all)
    }

    /// An exchange of `list` whose line fits: its index and its line filled.
    pub(super) fn pick_exchange(
        &self,
        list: &[Exchange],
        salt: u64,
        slots: &[(&str, &str)],
        keep: impl Fn(&Exchange) -> bool,
    ) -> Option<(usize, String)> {
        let all = self.slots(slots);
        let situation = self.situation();
        let fitting: Vec<(usize, &str)> = list
            .iter()
            .enumerate()
            .filter(|(_, x)| {
                keep(x)
                    && x.cond.holds(&situation)
                    && crate::builtin::speech::fillable(&x.say.value, &all)
            })
            .map(|(i, x)| (i, x.say.value.as_str()))
            .collect();
        let texts: Vec<&str> = fitting.iter().map(|(_, t)| *t).collect();
        let (at, line) = self.fresh_at(&texts, salt, &all)?;
        Some((fitting[at].0, line))
    }

    /// The given slots, then the speaker's own: how it calls the other, its
    /// name, the place, the time of day, its trade, its favourite dish.
    pub(super) fn slots<'s>(&'s self, extra: &[(&'s str, &'s str)]) -> Vec<(&'s str, &'s str)> {
        let cx = self.cx;
        let mut all = Vec::with_capacity(extra.len() + 6);
        all.extend_from_slice(extra);
        all.extend([
            ("you", self.you.as_str()),
            ("me", cx.speaker.name.as_str()),
            ("place", cx.place.name.as_str()),
            ("period", cx.now.period()),
            ("job", cx.speaker.occupation.as_str()),
        ]);
        if let Some(dish) = cx.speaker.food.first() {
            all.push(("dish", dish.as_str()));
        }
        all
    }

    /// One of `templates` filled, preferring those not said today and not
    /// naming either speaker (a line about 林小溪 is not said to her face).
    fn fresh(&self, templates: &[&str], salt: u64, slots: &[(&str, &str)]) -> Option<String> {
        self.fresh_at(templates, salt, slots).map(|(_, line)| line)
    }

    /// [`Self::fresh`] and the index of the first template that gives its
    /// line. Each template is filled into one buffer to be weighed (its
    /// line's hash and whether it was said); only the chosen is kept.
    fn fresh_at(
        &self,
        templates: &[&str],
        salt: u64,
        pairs: &[(&str, &str)],
    ) -> Option<(usize, String)> {
        let (me, you) = (&self.cx.speaker.name, &self.cx.listener.name);
        let mut line = String::new();
        // Each fitting template: its index, its line's hash, whether said.
        let mut fitting: Vec<(usize, u64, bool)> = Vec::with_capacity(templates.len());
        for (i, t) in templates.iter().enumerate() {
            if t.contains(me.as_str()) || t.contains(you.as_str()) {
                continue;
            }
            line.clear();
            crate::builtin::speech::fill_into(&mut line, t, pairs);
            let hash = line_hash(&line);
            fitting.push((i, hash, self.used_hashed(&line, hash)));
        }
        if fitting.is_empty() {
            return None;
        }
        let any_unused = fitting.iter().any(|&(_, _, used)| !used);
        let from: Vec<&(usize, u64, bool)> = fitting
            .iter()
            .filter(|&&(_, _, used)| !(any_unused && used))
            .collect();
        // Not one the town has heard far more often today than another
        // (only the worn ones go: rare lines are not made common).
        let heard: Vec<u32> = match from.len() {
            0 | 1 => vec![0; from.len()],
            _ => from
                .iter()
                .map(|&&(_, hash, _)| self.cx.town_spoken.heard_today(hash))
                .collect(),
        };
        let least = heard.iter().copied().min().unwrap_or(0);
        let from: Vec<&(usize, u64, bool)> = from
            .into_iter()
            .zip(heard)
            .filter(|&(_, n)| n <= least + WORN)
            .map(|(l, _)| l)
            .collect();
        let i = ((self.roll(salt) * from.len() as f32) as usize).min(from.len() - 1);
        let (chosen, hash, _) = *from[i];
        // Templates may repeat a line: the first that gives it counts.
        let first = fitting
            .iter()
            .find(|&&(_, h, _)| h == hash)
            .map_or(chosen, |&(j, _, _)| j);
        Some((
            first,
            crate::builtin::speech::fill(templates[chosen], pairs),
        ))
    }

    /// Said already: lately by the speaker, or by anyone in this conversation.
    pub(super) fn used(&self, line: &str) -> bool {
        self.used_hashed(line, line_hash(line))
    }

    /// [`Self::used`] with the line's hash at hand.
    fn used_hashed(&self, line: &str, hash: u64) -> bool {
        let cx = self.cx;
        // Said in this talk, also after a name (「石松，这两天太阳晒得人暖洋洋的」
        // is not said again bare half a minute later).
        let whole = line.chars().count() >= MIN_SAID_AFTER_NAME;
        cx.spoken.iter().any(|&(_, h)| h == hash)
            || self
                .history
                .iter()
                .any(|&h| h == line || (whole && h.ends_with(line)))
    }
}

/// Characters a line needs before a line that ends with it counts as it
/// said after a name (「好。」 ends many a line).
const MIN_SAID_AFTER_NAME: usize = 6;

/// Times more than the town's least-heard fitting line a line may have
/// been heard today and still be said.
const WORN: u32 = 3;

/// What the speaker feels, from its needs and what it is doing: one at a
/// meal is not hungry, one who ate lately is fed.
fn feelings(cx: &LineContext<'_>) -> Vec<Feeling> {
    let mut out = Vec::new();
    let Some(n) = cx.needs else {
        return out;
    };
    // One who does not eat (the willow spirit) feels neither hunger nor a
    // meal: it does not say 「待会儿去吃」.
    if cx.speaker.eats() {
        meal_feelings(cx, n, &mut out);
    }
    if n.energy < LOW {
        out.push(Feeling::Tired);
    } else if n.energy > RESTED {
        out.push(Feeling::Rested);
    }
    if n.social < LOW {
        out.push(Feeling::Lonely);
    }
    if n.fun < LOW {
        out.push(Feeling::Bored);
    }
    out
}

/// Hunger, a meal lately or not, an appetite: what one who eats feels.
fn meal_feelings(cx: &LineContext<'_>, n: &Needs, out: &mut Vec<Feeling>) {
    let eating = cx.doing == Some(ActivityKind::Eat);
    let since_meal = n.last_meal.minutes_until(cx.now);
    let ate = n.last_meal.0 > 0;
    if !eating && n.hunger < LOW + 5.0 && (!ate || since_meal >= HUNGRY_AFTER) {
        out.push(Feeling::Hungry);
    }
    if eating || (ate && since_meal < FED_FOR) {
        out.push(Feeling::Fed);
    }
    let lately = ate && since_meal < ATE_WITHIN;
    out.push(if eating || lately {
        Feeling::Ate
    } else {
        Feeling::Unfed
    });
    // Near the end of a meal (eating this minute, the need met) one has had
    // one's fill; one who has just come for a meal has not.
    let sated = since_meal <= 1 && n.hunger >= SATED;
    out.push(if (eating && !sated) || !lately {
        Feeling::Appetite
    } else {
        Feeling::Full
    });
}
