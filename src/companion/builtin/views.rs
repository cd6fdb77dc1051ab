//! Answers that give the companion's view: what the player should do, what
//! it makes of them, of their plan or of someone in town, an idea, and what
//! it says of itself.

use super::{Vars, Writer, holding_value};
use crate::companion::facts::FactKind;
use crate::companion::said::Topic;

impl Writer<'_> {
    /// What to do about the worry told last, or a question back about which.
    pub(super) fn advice(&self) -> Option<String> {
        let cx = self.cx;
        // 「你觉得我该怎么办？老是一个人有点闷」: the worry is in the question.
        let here = (cx.learnt.iter().map(|(f, _)| f))
            .find(|f| f.kind == FactKind::Worry)
            .map(|f| self.vars(f))
            .or_else(|| {
                let felt = cx.said.feeling.as_ref().filter(|f| !f.good)?;
                Some(Vars {
                    fact: felt.clause.clone(),
                    ..Vars::default()
                })
            });
        if let Some(v) = here.filter(|_| !self.bank.advice_here.is_empty()) {
            return self.pick(&self.bank.advice_here, &v);
        }
        // 「我是不是该去省城跟儿子住？」: the choice itself, even after a worry
        // (a sore knee told before is not what the question weighs).
        if let Some(choice) = crate::companion::said::choice(cx.message)
            && !self.bank.advice_choice.is_empty()
        {
            let v = Vars {
                fact: choice,
                ..Vars::default()
            };
            return self.pick(&self.bank.advice_choice, &v);
        }
        // A plan told after the last worry (an interview, after the lost
        // job): how to go about it.
        let latest = (cx.state.facts.0.iter().rev())
            .find(|f| matches!(f.kind, FactKind::Worry | FactKind::Plan));
        if let Some(plan) = latest.filter(|f| f.kind == FactKind::Plan)
            && !self.bank.advice_plan.is_empty()
        {
            return self.pick(&self.bank.advice_plan, &self.vars(plan));
        }
        let worry = cx.state.facts.first(FactKind::Worry);
        let v = worry.map(|f| self.vars(f)).unwrap_or_default();
        // A worry told: a line about it; none: a line asking which.
        let lines: Vec<String> = (self.bank.advice.iter())
            .filter(|l| l.contains("{事实}") == worry.is_some())
            .cloned()
            .collect();
        self.pick(&lines, &v)
    }

    /// 「你觉得我是个什么样的人」: what its profile of the player says.
    pub(super) fn opinion(&self) -> String {
        let p = &self.cx.state.profile;
        let said = crate::companion::profile::personality_of(self.cx.state);
        let text = if p.personality.is_empty() {
            said
        } else {
            p.personality.clone()
        };
        let v = Vars {
            fact: text.replace('；', "，").replace("TA", "你"),
            ..Vars::default()
        };
        self.pick(&self.bank.opinion, &v).unwrap_or_default()
    }

    /// A question about itself: its own answer, else the bank's (「你去过成都吗」:
    /// `{话题}` is the place).
    pub(super) fn about_me(&self, topic: Topic) -> String {
        let cx = self.cx;
        let lines_of = |t: &Topic| {
            (cx.spec.about.get(t).filter(|l| !l.is_empty())).or_else(|| self.bank.about_me.get(t))
        };
        // 「你喜欢下雨天吗」 to one who likes 下雨前的泥土味: that, in its words.
        if topic == Topic::LikesThis
            && let Some(own) = self.own_like(lines_of(&Topic::Likes))
        {
            return own;
        }
        // Nothing written for a thing liked or for food: what it likes at all.
        let lines = lines_of(&topic)
            .or_else(|| {
                matches!(topic, Topic::LikesThis | Topic::Food)
                    .then(|| lines_of(&Topic::Likes))
                    .flatten()
            })
            .or_else(|| self.bank.about_me.get(&Topic::Other))
            .map(Vec::as_slice)
            .unwrap_or_default();
        let v = match topic {
            Topic::Been => Vars {
                topic: been_where(cx.message),
                ..Vars::default()
            },
            Topic::LikesThis => self.liked_here(),
            _ => Vars::default(),
        };
        let lines = holding_value(lines, &v);
        self.pick(&lines, &v).unwrap_or_default()
    }

    /// Of its `likes` lines, one that speaks of the thing asked about (two
    /// characters of it in a row).
    fn own_like(&self, likes: Option<&Vec<String>>) -> Option<String> {
        let thing: Vec<char> = crate::companion::said::liked_thing(self.cx.message)?
            .chars()
            .collect();
        let pairs: Vec<String> = thing.windows(2).map(|w| w.iter().collect()).collect();
        let speaking: Vec<String> = (likes?.iter())
            .filter(|l| pairs.iter().any(|p| l.contains(p.as_str())))
            .cloned()
            .collect();
        self.pick(&speaking, &Vars::default())
    }

    /// 「你喜欢猫吗」: the thing (`{话题}`), and the player's own pet of that
    /// kind by name (`{值}`), if it has one.
    fn liked_here(&self) -> Vars {
        let thing = crate::companion::said::liked_thing(self.cx.message).unwrap_or_default();
        let pet = (self.cx.state.facts.0.iter().rev())
            .filter(|f| f.kind == FactKind::Pet && !f.value.is_empty() && !f.about.is_empty())
            .filter(|_| !thing.is_empty())
            .find(|f| f.about.contains(thing.as_str()) || thing.contains(f.about.as_str()));
        Vars {
            value: pet.map(|f| f.value.clone()).unwrap_or_default(),
            topic: thing,
            ..Vars::default()
        }
    }

    /// What it thinks of someone in town the message names (by its
    /// impression of them, or only their trade when it has none), else of
    /// what the message told, else of the plan told last; nothing to judge:
    /// another answer.
    pub(super) fn judge(&self, subject: &str) -> Option<String> {
        let cx = self.cx;
        let named = cx
            .people
            .iter()
            .filter(|p| p.name.chars().count() >= 2 && cx.message.contains(p.name.as_str()))
            .max_by_key(|p| p.name.len())
            .or_else(|| self.by_title());
        if let Some(p) = named {
            let v = Vars {
                value: p.name.clone(),
                fact: p.impression.clone(),
                about: p.trade.clone(),
                ..Vars::default()
            };
            let lines = match p.impression.is_empty() {
                true => &self.bank.judge_stranger,
                false => &self.bank.judge_person,
            };
            return self.pick(lines, &v);
        }
        let told = cx.learnt.iter().map(|(f, _)| f).find(|f| {
            matches!(
                f.kind,
                FactKind::Plan | FactKind::Job | FactKind::Likes | FactKind::Food
            )
        });
        let earlier = || {
            subject
                .is_empty()
                .then(|| cx.state.facts.first(FactKind::Plan))
                .flatten()
        };
        let f = told.or_else(earlier)?;
        self.pick(&self.bank.judge, &self.vars(f))
    }

    /// Someone in town the message names by surname and trade (「何医生」 for
    /// 何青 the doctor).
    fn by_title(&self) -> Option<&crate::companion::session::Acquaintance> {
        let m = self.cx.message;
        self.cx.people.iter().find(|p| {
            let Some(surname) = p.name.chars().next() else {
                return false;
            };
            let trade: Vec<char> = p.trade.chars().collect();
            let tail: String = trade[trade.len().saturating_sub(2)..].iter().collect();
            [p.trade.as_str(), tail.as_str()]
                .iter()
                .filter(|t| t.chars().count() >= 2)
                .any(|t| m.contains(&format!("{surname}{t}")))
        })
    }

    /// Who in town is the most `most`: one it has an impression of (a
    /// different one for a different question), else that it cannot say.
    pub(super) fn who(&self, most: &str) -> Option<String> {
        // 「谁最会做饭」 asks a skill: only one whose trade or impression
        // speaks of it is named; 「谁最有意思」, anyone it knows.
        let skill = most.strip_prefix('会').filter(|s| !s.is_empty());
        let shows = |p: &&crate::companion::session::Acquaintance| {
            skill.is_none_or(|s| {
                let known = format!("{}{}", p.trade, p.impression);
                s.chars().any(|c| known.contains(c))
            })
        };
        let known: Vec<_> = (self.cx.people.iter())
            .filter(|p| !p.impression.is_empty())
            .filter(shows)
            .collect();
        let Some(p) = known.get(self.salt() as usize % known.len().max(1)) else {
            let v = Vars {
                topic: most.to_owned(),
                ..Vars::default()
            };
            return self.pick(&self.bank.judge_who_none, &v);
        };
        let v = Vars {
            topic: most.to_owned(),
            value: p.name.clone(),
            fact: p.impression.clone(),
            about: p.trade.clone(),
            ..Vars::default()
        };
        self.pick(&self.bank.judge_who, &v)
    }

    /// An idea wanted: one from what the player likes, when it knows.
    pub(super) fn suggest(&self) -> Option<String> {
        let facts = &self.cx.state.facts;
        // A favourite food or drink names things well (a tea house, a cat).
        let liked = facts
            .first(FactKind::Food)
            .or_else(|| facts.first(FactKind::Likes));
        let v = Vars {
            value: liked.map(|f| f.value.clone()).unwrap_or_default(),
            ..Vars::default()
        };
        // Something it knows they like makes the idea theirs: such a line first.
        self.pick(&holding_value(&self.bank.suggest, &v), &v)
    }
}

/// Where a 「你去过…吗」 asks about (成都), or nothing.
fn been_where(message: &str) -> String {
    ["去过", "到过", "见过"]
        .iter()
        .find_map(|w| message.split_once(w))
        .map(|(_, rest)| {
            rest.split(['吗', '？', '?', '，', '。', '没', '呀', '呢'])
                .next()
                .unwrap_or_default()
                .trim()
                .to_string()
        })
        .filter(|p| (2..=8).contains(&p.chars().count()))
        .unwrap_or_default()
}
