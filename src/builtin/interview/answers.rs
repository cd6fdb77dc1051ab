//! Answers in the resident's words, from what it knows: the phrase bank's
//! `interview:` lines filled with its facts, ties and memories.

use super::{Asked, Aspect};
use crate::scenario::RelationKind;
use crate::scenario::dialogue::Line;
use crate::sim::interview::{Answer, Interview};
use crate::sim::knowledge::words::day_from;
use crate::sim::knowledge::{About, Fact, Source};
use crate::sim::memory::MemoryKind;
use crate::sim::residents::RosterIdx;

/// A tie this strong is a close friend's…
const CLOSE: f32 = 70.0;
/// …this a friend's…
const FRIEND: f32 = 45.0;
/// …this an acquaintance's.
const ACQUAINTED: f32 = 20.0;
/// A quarrel this recent (days) colours what one says of someone.
const RECENT_QUARREL: i64 = 3;

/// The answer to what `question` was read as asking.
pub(super) fn answer(iv: &Interview<'_>, asked: &Asked, question: &str) -> Answer {
    Answering { iv }.answer(asked, question)
}

/// Answers for one asked.
struct Answering<'i, 'a> {
    iv: &'i Interview<'a>,
}

impl Answering<'_, '_> {
    fn answer(&self, asked: &Asked, question: &str) -> Answer {
        let mut a = Answer {
            asked: asked.kind().to_string(),
            text: String::new(),
            facts: Vec::new(),
            memories: Vec::new(),
        };
        a.text = match asked {
            Asked::TalkedWith { day } => self.talked_with(*day),
            Asked::HeardFrom { about, thing } => self.heard_from(about, thing, &mut a),
            Asked::Knows { about, thing } => self.knows_of(about, thing, &mut a),
            Asked::Opinion { who } => self.opinion(*who, &mut a),
            Asked::Day { day } => self.day(*day, &mut a),
            Asked::Person { who, aspect } => self.person(*who, *aspect, &mut a),
            Asked::Myself { aspect } => self.myself(*aspect),
            Asked::Mood => self.mood(),
            Asked::Other => self.recalled(question, &mut a),
        };
        a
    }

    /// A line of `list` whose conditions hold for the one asked and whose
    /// slots `slots` fill, varied by the seed and the moment.
    fn say(&self, list: &[Line], slots: &[(&str, &str)]) -> String {
        let feels = self.feelings();
        let me = self.iv.who.me;
        let situation = crate::scenario::dialogue::Situation {
            speaker: me,
            listener: me,
            minute: self.iv.now.minute_of_day(),
            feels: &feels,
            apart_days: None,
            at_home: false,
            staying: false,
            comforted: false,
            working: false,
            arrived: false,
            listener_arrived: false,
            listener_working: false,
            sky: None,
        };
        let mut fillable: Vec<&Line> = list
            .iter()
            .filter(|l| {
                l.cond.holds(&situation) && crate::builtin::speech::fillable(&l.text, slots)
            })
            .collect();
        // What is true of the one asked now first (tired: says so).
        if fillable.iter().any(|l| !l.cond.is_always()) {
            fillable.retain(|l| !l.cond.is_always());
        }
        let Some(first) = fillable.first() else {
            // Nothing fits (a slot without a value): a plain "don't know".
            let plain = self
                .lines()
                .dont_know
                .value
                .iter()
                .find(|l| !l.text.contains('{'));
            return plain.map_or_else(|| "这我不太清楚。".into(), |l| l.text.clone());
        };
        let pick =
            crate::builtin::roll(self.iv.seed, self.iv.who.me.id.as_str(), self.iv.now.0, 77);
        let i = ((pick * fillable.len() as f32) as usize).min(fillable.len() - 1);
        crate::builtin::speech::fill(&fillable.get(i).unwrap_or(first).text, slots)
    }

    /// How the one asked feels, from its needs.
    fn feelings(&self) -> Vec<crate::scenario::dialogue::Feeling> {
        self.iv.who.needs.map_or_else(Vec::new, |n| {
            crate::builtin::speech::feelings(n, self.iv.now)
        })
    }

    /// How one is: by how one feels.
    fn mood(&self) -> String {
        self.say(&self.lines().mood.value, &[])
    }

    fn lines(&self) -> &crate::scenario::dialogue::InterviewLines {
        &self.iv.bank.interview
    }

    /// Whom one talked with on `day`, by name, the closest first.
    fn talked_with(&self, day: i64) -> String {
        let mut who: Vec<(f32, &str)> = self
            .iv
            .who
            .ties
            .iter()
            .filter(|r| r.talked_on(day))
            .map(|r| (r.strength, self.iv.words.roster.name_of(r.with_idx)))
            .collect();
        who.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        let names: Vec<&str> = who.iter().map(|(_, n)| *n).collect();
        let day_words = day_from(self.now_social(), day);
        if names.is_empty() {
            return self.say(&self.lines().talked_none.value, &[("day", &day_words)]);
        }
        let names = names.join("、");
        self.say(
            &self.lines().talked.value,
            &[("day", &day_words), ("names", &names)],
        )
    }

    /// "Now" as a resident counts days (after midnight, still the evening's day).
    fn now_social(&self) -> crate::base::time::GameTime {
        crate::base::time::GameTime(self.iv.now.social_day() * 86_400 + 12 * 3600)
    }

    /// Where one first heard of it.
    fn heard_from(&self, about: &[About], thing: &str, a: &mut Answer) -> String {
        let Some(f) = self.first_fact(about) else {
            return self.say(&self.lines().unknown.value, &[("thing", thing)]);
        };
        a.facts.push(self.iv.words.with_source(&f));
        let h = &self.lines().heard;
        let organised = match f.about {
            About::Gathering { gathering } => self
                .iv
                .words
                .gatherings
                .get(gathering.i())
                .filter(|g| g.organiser == self.iv.who.me.id)
                .map(|g| g.title.clone()),
            _ => None,
        };
        if let Some(title) = organised {
            return self.say(&h.organised.value, &[("title", &title)]);
        }
        match f.source {
            Source::Notice { .. } => self.say(&h.notice.value, &[]),
            Source::Told { by } => {
                let name = self.iv.words.roster.name_of(by);
                self.say(&h.told.value, &[("a", name)])
            }
            Source::Saw => self.say(&h.saw.value, &[]),
            Source::Lived => self.say(&h.lived.value, &[]),
            Source::Known => self.say(&h.known.value, &[]),
        }
    }

    /// The most telling fact of these that one holds.
    fn first_fact(&self, about: &[About]) -> Option<Fact> {
        about
            .iter()
            .filter_map(|x| self.iv.who.knows.get(x))
            .max_by_key(|f| (f.importance, f.learned))
            .copied()
    }

    /// Whether one has heard of it: the fact, or not heard of it.
    fn knows_of(&self, about: &[About], thing: &str, a: &mut Answer) -> String {
        let Some(f) = self.first_fact(about) else {
            return self.say(&self.lines().unknown.value, &[("thing", thing)]);
        };
        a.facts.push(self.iv.words.with_source(&f));
        let me = self.iv.who.idx;
        let fact = self.iv.words.fact_as(&f.about, me);
        let list = if f.about.people().contains(&me) {
            &self.lines().knows_mine
        } else {
            &self.lines().knows
        };
        self.say(&list.value, &[("fact", &fact)])
    }

    /// What one thinks of someone: the tie's impression, by how close; a
    /// recent quarrel said too.
    fn opinion(&self, who: RosterIdx, a: &mut Answer) -> String {
        let name = self.iv.words.roster.name_of(who);
        let o = &self.lines().opinion;
        let Some(tie) = self.iv.who.ties.by_idx(who) else {
            return self.say(&o.stranger.value, &[("a", name)]);
        };
        let impression = if tie.impression.is_empty() {
            "人挺好的".to_string()
        } else {
            tie.impression.to_string()
        };
        let list = match tie.kind {
            RelationKind::Family => &o.family,
            _ if tie.strength >= CLOSE => &o.close,
            _ if tie.strength >= FRIEND => &o.friend,
            _ if tie.strength >= ACQUAINTED => &o.acquaintance,
            _ => &o.stranger,
        };
        let mut text = self.say(&list.value, &[("a", name), ("impression", &impression)]);
        let today = self.iv.now.social_day();
        let quarrel = self.iv.who.knows.facts().iter().find(|f| {
            matches!(f.about, About::Quarrel { a, b, day, .. }
                if (a == who || b == who) && (a == self.iv.who.idx || b == self.iv.who.idx)
                    && today - i64::from(day) <= RECENT_QUARREL)
        });
        if let Some(f) = quarrel {
            a.facts.push(self.iv.words.with_source(f));
            let day = day_from(self.now_social(), f.about.day().unwrap_or(today));
            text.push_str(&self.say(&o.quarrel.value, &[("day", &day)]));
        }
        text
    }

    /// What a day was like: the night's summary of it, else its most
    /// important memory so far.
    fn day(&self, day: i64, a: &mut Answer) -> String {
        let day_words = day_from(self.now_social(), day);
        let of_day = |m: &&crate::sim::memory::Memory| m.time.social_day() == day;
        let summary = self
            .iv
            .who
            .memories
            .iter()
            .rfind(|m| of_day(m) && m.kind == MemoryKind::Summary)
            .and_then(|m| crate::builtin::speech::most_of_all(&m.text).map(|g| (m, g.to_string())));
        let lived = || {
            self.iv
                .who
                .memories
                .iter()
                .filter(of_day)
                .filter(|m| !matches!(m.kind, MemoryKind::Initial | MemoryKind::Chat))
                .max_by_key(|m| (m.importance, m.time))
                .map(|m| (m, crate::builtin::speech::gist(&m.text)))
        };
        match summary.or_else(lived) {
            Some((m, gist)) => {
                a.memories.push(m.line());
                self.say(
                    &self.lines().day.value,
                    &[("day", &day_words), ("gist", &gist)],
                )
            }
            None => self.say(&self.lines().day_none.value, &[("day", &day_words)]),
        }
    }

    /// Someone's trade, pastime, taste or family, as far as one knows it.
    fn person(&self, who: RosterIdx, aspect: Aspect, a: &mut Answer) -> String {
        let name = self.iv.words.roster.name_of(who);
        let known: Vec<Fact> = self
            .iv
            .who
            .knows
            .facts()
            .iter()
            .filter(|f| match (aspect, f.about) {
                (Aspect::Job, About::Job { who: w }) => w == who,
                (Aspect::Hobby, About::Hobby { who: w, .. }) => w == who,
                (Aspect::Food, About::Food { who: w }) => w == who,
                (Aspect::Family, About::Family { who: w, of }) => of == who || w == who,
                _ => false,
            })
            .copied()
            .collect();
        if known.is_empty() {
            return self.say(&self.lines().dont_know.value, &[]);
        }
        a.facts
            .extend(known.iter().map(|f| self.iv.words.with_source(f)));
        let p = self.iv.words.residents.get(who.i());
        let l = &self.lines().person;
        match aspect {
            Aspect::Job => {
                let job = p.map_or("", |p| p.occupation.as_str());
                self.say(&l.job.value, &[("a", name), ("job", job)])
            }
            Aspect::Hobby => {
                let h = match known[0].about {
                    About::Hobby { hobby, .. } => self.iv.words.hobby(who, hobby as usize),
                    _ => String::new(),
                };
                self.say(&l.hobby.value, &[("a", name), ("hobby", &h)])
            }
            Aspect::Food => {
                let dish = p.map_or(String::new(), |p| p.food.join("、"));
                self.say(&l.food.value, &[("a", name), ("dish", &dish)])
            }
            Aspect::Family => {
                let kin = self.family_of(who, &known);
                self.say(&l.family.value, &[("a", name), ("names", &kin)])
            }
        }
    }

    /// Names of `who`'s family among `known` facts, with what they are to them.
    fn family_of(&self, who: RosterIdx, known: &[Fact]) -> String {
        let mut kin = Vec::new();
        for f in known {
            if let About::Family { who: w, of } = f.about {
                let other = if of == who { w } else { of };
                let what = self.iv.words.kin(other, who);
                kin.push(format!("{what}{}", self.iv.words.roster.name_of(other)));
            }
        }
        kin.dedup();
        kin.join("、")
    }

    /// One's own trade, pastime, taste or family.
    fn myself(&self, aspect: Aspect) -> String {
        let me = self.iv.who.me;
        let l = &self.lines().me;
        match aspect {
            Aspect::Job => self.say(&l.job.value, &[("job", &me.occupation)]),
            Aspect::Hobby => {
                let h = self.iv.words.hobby(self.iv.who.idx, 0);
                if h.is_empty() {
                    return self.say(&self.lines().dont_know.value, &[]);
                }
                self.say(&l.hobby.value, &[("hobby", &h)])
            }
            Aspect::Food => match me.food.first() {
                Some(d) => self.say(&l.food.value, &[("dish", d)]),
                None => self.say(&self.lines().dont_know.value, &[]),
            },
            Aspect::Family => {
                let kin: Vec<String> = self
                    .iv
                    .who
                    .ties
                    .iter()
                    .filter(|r| r.kind == RelationKind::Family)
                    .map(|r| {
                        let what = self.iv.words.kin(r.with_idx, self.iv.who.idx);
                        format!("{what}{}", self.iv.words.roster.name_of(r.with_idx))
                    })
                    .collect();
                if kin.is_empty() {
                    return self.say(&self.lines().dont_know.value, &[]);
                }
                self.say(&l.family.value, &[("names", &kin.join("、"))])
            }
        }
    }

    /// Anything else: the memory that shares most with the question, told
    /// as remembered; nothing: "I don't know".
    fn recalled(&self, question: &str, a: &mut Answer) -> String {
        // A copy: asking changes nothing, not even what counts as recalled.
        let mut memories =
            crate::sim::memory::Memories::from_entries(self.iv.who.memories.to_vec());
        let q = crate::recall::Query {
            text: question,
            now: self.iv.now,
            as_of: None,
            vector: None,
            k: 1,
        };
        let tuning = crate::recall::RecallTuning::default();
        let hits = memories.search(self.iv.segmenter, &q, &tuning);
        let best = hits
            .iter()
            .find(|h| h.relevance > 0.0)
            .map(|h| h.doc as usize);
        match best.and_then(|i| self.iv.who.memories.get(i)) {
            Some(m) => {
                a.memories.push(m.line());
                format!("我记得，{}。", closest_clause(&m.text, question))
            }
            None => self.say(&self.lines().dont_know.value, &[]),
        }
    }
}

/// The clause of `text` (a night's summary holds several) that shares the
/// most characters with `question`, without its trailing stop.
fn closest_clause<'a>(text: &'a str, question: &str) -> &'a str {
    let shared = |c: &str| c.chars().filter(|ch| question.contains(*ch)).count();
    text.split(['：', '；', '。'])
        .map(|c| c.trim())
        .filter(|c| c.chars().count() >= 4)
        .max_by_key(|c| shared(c))
        .unwrap_or(text)
        .trim_end_matches(['，', '。'])
}
