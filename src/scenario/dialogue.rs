//! The built-in brain's phrase bank (`dialogue.yaml` in a scenario): openings
//! by situation, staff exchanges, topics as exchanges (a line and the replies
//! that answer it), moods (a grumble answered by comfort or an argument),
//! closings, the storyline lines (invitations, meetings, a host's welcome)
//! and forms of address. Checked like every scenario file: `file:line:col`,
//! the field, a hint. A scenario without one speaks with the default town's.

use std::path::Path;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::LocationKind;
use crate::base::{Diagnostic, Diagnostics, load_checked, parse_checked};

/// The file's name in a scenario folder.
pub const FILE: &str = "dialogue.yaml";

/// Lines (templates with `{slot}`s), with where the list stands in the file.
pub type Lines = Spanned<Vec<String>>;

/// Slots a line may use; each is filled for the speaker and the moment.
pub const SLOTS: [&str; 8] = [
    "you", "me", "place", "period", "job", "title", "when", "topic",
];

/// The whole bank.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhraseBank {
    /// How a talk opens, and how an opening is answered.
    pub greetings: Greetings,
    /// Staff on shift and their customers.
    pub staff: Staff,
    /// What people talk about.
    pub topics: Vec<TopicBank>,
    /// Bad moods and how they are met.
    pub moods: Moods,
    /// Goodbyes.
    pub closings: Closings,
    /// Invitations, meetings, a host's welcome.
    pub storylines: Storylines,
    /// How one calls the other.
    pub address: Address,
}

/// Openings by situation and their answers.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Greetings {
    /// Strangers meeting for the first time: introductions.
    pub first: Lines,
    /// Strangers who have met before.
    pub stranger: Lines,
    /// Acquaintances.
    pub acquaintance: Lines,
    /// Friends and close friends.
    pub friend: Lines,
    /// Family.
    pub family: Lines,
    /// Bumping into someone: the first meeting of the day, where neither works.
    pub chance: Lines,
    /// Meeting as agreed.
    pub appointment: Lines,
    /// Answering a greeting.
    pub back: Lines,
    /// Answering family.
    pub back_family: Lines,
    /// Opening with the last talk (on an earlier day), by how it went
    /// (`{topic}`: what it was about).
    pub recall: Recall,
    /// Answering such an opening.
    pub recall_back: RecallBack,
}

/// Openings that bring up the last talk, by how it went.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recall {
    /// They quarrelled: making up.
    pub argued: Lines,
    /// The other was low: asking after them.
    pub down: Lines,
    /// It went well: taking it up again.
    pub warm: Lines,
    /// Nothing much: picking up the thread.
    pub plain: Lines,
}

/// Answers to an opening that brings up the last talk.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecallBack {
    /// Accepting an apology…
    pub argued: Lines,
    /// …or, short-tempered, not yet.
    pub argued_cold: Lines,
    /// Thanks for asking.
    pub down: Lines,
    /// Glad to go on.
    pub warm: Lines,
    /// Curious what comes.
    pub plain: Lines,
}

/// The three greeting roles.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Staff {
    /// Waiting at an eatery.
    pub waiter: StaffRole,
    /// Teaching, lending books.
    pub teacher: StaffRole,
    /// Selling, mending.
    pub seller: StaffRole,
}

/// One role's exchange: the greeting, the customer's answer, the service.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StaffRole {
    /// The staff member's greeting.
    pub greet: Lines,
    /// The customer's answer (an order, an errand).
    pub reply: Lines,
    /// The staff member's answer to that.
    pub serve: Lines,
}

/// A subject: when it comes up, and its exchanges.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopicBank {
    /// Unique within the bank.
    pub id: Spanned<String>,
    /// Its Chinese name (`{topic}`).
    pub label: String,
    /// Residents' `topics` that bring it up (either speaker's).
    #[serde(default)]
    pub interests: Vec<String>,
    /// Kinds of place where it comes up; with neither, it comes up anywhere.
    #[serde(default)]
    pub places: Vec<LocationKind>,
    /// Said only between friends (a tie of 60 or more): what one tells few.
    #[serde(default)]
    pub close: bool,
    /// A line and the replies that answer it.
    pub exchanges: Spanned<Vec<Exchange>>,
}

/// A line (a question, news, a thought) and the answers it may get.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exchange {
    /// What one says.
    pub say: Spanned<String>,
    /// What the other answers.
    pub replies: Lines,
}

/// Bad moods.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Moods {
    /// Complaints of the tired, hungry or short-tempered.
    pub grumble: Spanned<Vec<MoodExchange>>,
    /// Sighs of the anxious.
    pub sad: Spanned<Vec<MoodExchange>>,
    /// Smoothing over a sharp answer.
    pub soothe: Lines,
    /// Answering a sharp answer in kind, and walking off.
    pub storm_off: Lines,
}

/// A mood's line and how it is met.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoodExchange {
    /// The grumble or sigh.
    pub say: Spanned<String>,
    /// The kind answer.
    pub comfort: Lines,
    /// The sharp answer (the prickly, the tired): an argument.
    #[serde(default)]
    pub argue: Vec<String>,
}

/// Goodbyes by tie, and the answer to one.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Closings {
    /// Strangers and acquaintances.
    pub stranger: Lines,
    /// Friends.
    pub friend: Lines,
    /// Family.
    pub family: Lines,
    /// Staff seeing a customer off.
    pub staff: Lines,
    /// Answering a goodbye.
    pub answer: Lines,
}

/// The lines that move storylines on.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Storylines {
    /// An organiser inviting to a gathering (`{title}`, `{when}`, `{place}`).
    pub invite: Lines,
    /// Answering an invitation: yes or no, by the reason.
    pub answer_invite: InviteAnswers,
    /// Proposing to meet (`{when}`, `{place}`).
    pub propose: Lines,
    /// Accepting that.
    pub accept: Lines,
    /// An organiser's welcome to the guests (`{title}`, `{place}`).
    pub welcome: Lines,
    /// A guest's thanks to the organiser.
    pub thank_host: Lines,
    /// Telling another of a gathering one is going to (`{title}`, `{when}`, `{place}`).
    pub going: Lines,
    /// Answering that.
    pub going_replies: Lines,
}

/// Answers to an invitation, by the reason the guest gives.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InviteAnswers {
    /// Yes: the organiser is a friend.
    pub friend: Lines,
    /// Yes: one likes a crowd.
    pub lively: Lines,
    /// Yes: one simply means to come.
    pub keen: Lines,
    /// No: a work shift falls on it (`{job}`).
    pub shift: Lines,
    /// No: crowds are not for one.
    pub crowds: Lines,
    /// No: something else is on.
    pub busy: Lines,
}

/// Forms of address, by tie and age; `{surname}` and `{given}` are filled
/// from the name (its first character and the rest).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Address {
    /// To one's father.
    pub father: String,
    /// To one's mother.
    pub mother: String,
    /// To a son or daughter (a pet name).
    pub child: String,
    /// To a man a generation older, not family.
    pub elder_man: String,
    /// To a woman a generation older, not family.
    pub elder_woman: String,
}

impl PhraseBank {
    /// Reads and checks a scenario's `dialogue.yaml`.
    pub fn load(path: &Path) -> Result<PhraseBank, Diagnostics> {
        load_checked(path, Self::problems)
    }

    /// The default town's bank, built in: what a town without its own
    /// `dialogue.yaml` (a generated one) speaks with.
    pub fn builtin() -> PhraseBank {
        const TEXT: &str = include_str!("../../scenarios/heartvale/dialogue.yaml");
        Self::parse(TEXT, Path::new("scenarios/heartvale/dialogue.yaml"))
            .expect("the shipped phrase bank is valid (tested)")
    }

    /// [`PhraseBank::builtin`], parsed once and shared.
    pub fn shared_builtin() -> std::sync::Arc<PhraseBank> {
        static BANK: std::sync::LazyLock<std::sync::Arc<PhraseBank>> =
            std::sync::LazyLock::new(|| std::sync::Arc::new(PhraseBank::builtin()));
        BANK.clone()
    }

    /// Checks bank text read from `path`.
    fn parse(text: &str, path: &Path) -> Result<PhraseBank, Diagnostics> {
        parse_checked(text, path, Self::problems)
    }

    /// The topic most of `lines` come from (its label), if any does.
    pub fn subject_of<'a>(&self, lines: impl Iterator<Item = &'a str>) -> Option<&str> {
        let mut counts = vec![0usize; self.topics.len()];
        for line in lines {
            let line = without_mention(line);
            let found = self.topics.iter().position(|t| {
                t.exchanges.value.iter().any(|x| {
                    x.say.value == line
                        || x.replies.value.iter().any(|r| line.starts_with(r.as_str()))
                })
            });
            if let Some(i) = found {
                counts[i] += 1;
            }
        }
        let (best, n) = counts
            .iter()
            .enumerate()
            .max_by_key(|&(i, n)| (*n, usize::MAX - i))?;
        (*n > 0).then(|| self.topics[best].label.as_str())
    }

    /// Every list with its field path, for the checks.
    fn lists(&self) -> Vec<(String, &Lines)> {
        let g = &self.greetings;
        let mut out: Vec<(String, &Lines)> = vec![
            ("greetings.first".into(), &g.first),
            ("greetings.stranger".into(), &g.stranger),
            ("greetings.acquaintance".into(), &g.acquaintance),
            ("greetings.friend".into(), &g.friend),
            ("greetings.family".into(), &g.family),
            ("greetings.chance".into(), &g.chance),
            ("greetings.appointment".into(), &g.appointment),
            ("greetings.back".into(), &g.back),
            ("greetings.back_family".into(), &g.back_family),
            ("greetings.recall.argued".into(), &g.recall.argued),
            ("greetings.recall.down".into(), &g.recall.down),
            ("greetings.recall.warm".into(), &g.recall.warm),
            ("greetings.recall.plain".into(), &g.recall.plain),
            ("greetings.recall_back.argued".into(), &g.recall_back.argued),
            (
                "greetings.recall_back.argued_cold".into(),
                &g.recall_back.argued_cold,
            ),
            ("greetings.recall_back.down".into(), &g.recall_back.down),
            ("greetings.recall_back.warm".into(), &g.recall_back.warm),
            ("greetings.recall_back.plain".into(), &g.recall_back.plain),
        ];
        let s = &self.staff;
        for (role, r) in [
            ("waiter", &s.waiter),
            ("teacher", &s.teacher),
            ("seller", &s.seller),
        ] {
            out.push((format!("staff.{role}.greet"), &r.greet));
            out.push((format!("staff.{role}.reply"), &r.reply));
            out.push((format!("staff.{role}.serve"), &r.serve));
        }
        for (i, t) in self.topics.iter().enumerate() {
            for (j, x) in t.exchanges.value.iter().enumerate() {
                out.push((format!("topics[{i}].exchanges[{j}].replies"), &x.replies));
            }
        }
        let m = &self.moods;
        for (name, list) in [("grumble", &m.grumble), ("sad", &m.sad)] {
            for (j, x) in list.value.iter().enumerate() {
                out.push((format!("moods.{name}[{j}].comfort"), &x.comfort));
            }
        }
        out.push(("moods.soothe".into(), &m.soothe));
        out.push(("moods.storm_off".into(), &m.storm_off));
        let c = &self.closings;
        for (name, l) in [
            ("stranger", &c.stranger),
            ("friend", &c.friend),
            ("family", &c.family),
            ("staff", &c.staff),
            ("answer", &c.answer),
        ] {
            out.push((format!("closings.{name}"), l));
        }
        let st = &self.storylines;
        for (name, l) in [
            ("invite", &st.invite),
            ("answer_invite.friend", &st.answer_invite.friend),
            ("answer_invite.lively", &st.answer_invite.lively),
            ("answer_invite.keen", &st.answer_invite.keen),
            ("answer_invite.shift", &st.answer_invite.shift),
            ("answer_invite.crowds", &st.answer_invite.crowds),
            ("answer_invite.busy", &st.answer_invite.busy),
            ("propose", &st.propose),
            ("accept", &st.accept),
            ("welcome", &st.welcome),
            ("thank_host", &st.thank_host),
            ("going", &st.going),
            ("going_replies", &st.going_replies),
        ] {
            out.push((format!("storylines.{name}"), l));
        }
        out
    }

    fn problems(&self, path: &Path) -> Diagnostics {
        let mut out = Diagnostics::default();
        for (field, list) in self.lists() {
            if list.value.is_empty() {
                let mut d = Diagnostic::at(path, list, &field, "the list is empty".into());
                d.hint = Some("give it at least one line".into());
                out.push(d);
            }
            for (k, line) in list.value.iter().enumerate() {
                if let Some(slot) = unknown_slot(line) {
                    out.push(slot_problem(path, list, &format!("{field}[{k}]"), &slot));
                }
            }
        }
        self.topic_problems(path, &mut out);
        out
    }

    fn topic_problems(&self, path: &Path, out: &mut Diagnostics) {
        let mut ids = std::collections::HashSet::new();
        for (i, t) in self.topics.iter().enumerate() {
            if !ids.insert(t.id.value.as_str()) {
                let msg = format!("topic id `{}` is used twice", t.id.value);
                out.push(Diagnostic::at(path, &t.id, &format!("topics[{i}].id"), msg));
            }
            if t.exchanges.value.is_empty() {
                let field = format!("topics[{i}].exchanges");
                let mut d = Diagnostic::at(path, &t.exchanges, &field, "no exchanges".into());
                d.hint = Some("add `- {say: …, replies: [ … ]}`".into());
                out.push(d);
            }
            for (j, x) in t.exchanges.value.iter().enumerate() {
                if let Some(slot) = unknown_slot(&x.say.value) {
                    let field = format!("topics[{i}].exchanges[{j}].say");
                    out.push(slot_problem(path, &x.say, &field, &slot));
                }
            }
        }
        let m = &self.moods;
        for (name, list) in [("grumble", &m.grumble), ("sad", &m.sad)] {
            for (j, x) in list.value.iter().enumerate() {
                let lines = std::iter::once(&x.say.value).chain(&x.argue);
                if let Some(slot) = lines.filter_map(|l| unknown_slot(l)).next() {
                    let field = format!("moods.{name}[{j}]");
                    out.push(slot_problem(path, &x.say, &field, &slot));
                }
            }
        }
        if self.topics.is_empty() {
            out.push(Diagnostic::file(
                path,
                "no topics",
                Some("add `topics:` with at least one `{id, label, exchanges}`"),
            ));
        }
    }
}

/// Whether `line` is `template` filled in: its literal parts appear in order.
pub fn fits(template: &str, line: &str) -> bool {
    let mut rest = line;
    let mut parts = 0;
    for part in template
        .split(['{', '}'])
        .step_by(2)
        .filter(|p| !p.is_empty())
    {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
        parts += 1;
    }
    parts > 0
}

/// A line without a leading `@名字 ` (a group chat's mention), trimmed.
pub fn without_mention(text: &str) -> &str {
    match text.strip_prefix('@') {
        Some(rest) => rest.split_once(' ').map_or(rest, |(_, r)| r),
        None => text,
    }
    .trim()
}

fn slot_problem<T>(path: &Path, at: &Spanned<T>, field: &str, slot: &str) -> Diagnostic {
    let msg = format!("unknown slot `{{{slot}}}`");
    let mut d = Diagnostic::at(path, at, field, msg);
    d.hint = Some(format!(
        "slots are {}",
        SLOTS.map(|s| format!("{{{s}}}")).join(" ")
    ));
    d
}

/// The first `{slot}` in `line` that is not one of [`SLOTS`].
fn unknown_slot(line: &str) -> Option<String> {
    let mut rest = line;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let close = after.find('}')?;
        let slot = &after[..close];
        if !SLOTS.contains(&slot) {
            return Some(slot.to_string());
        }
        rest = &after[close + 1..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_bank_is_valid() {
        let bank = PhraseBank::builtin();
        assert!(bank.topics.len() >= 8, "{} topics", bank.topics.len());
    }

    #[test]
    fn unknown_slots_and_empty_lists_are_found_with_their_place() {
        let text = include_str!("../../scenarios/heartvale/dialogue.yaml")
            .replacen("\"{you}，{period}好！\"", "\"{yuo}，{period}好！\"", 1)
            .replacen("back_family: [", "back_family: [] #", 1);
        let err = PhraseBank::parse(&text, Path::new("dialogue.yaml")).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("unknown slot `{yuo}`"), "{text}");
        assert!(text.contains("greetings.back_family"), "{text}");
        assert!(text.contains("dialogue.yaml:"), "{text}");
    }

    #[test]
    fn a_misspelt_field_names_its_line() {
        let text = include_str!("../../scenarios/heartvale/dialogue.yaml").replacen(
            "greetings:",
            "greeting:",
            1,
        );
        let err = PhraseBank::parse(&text, Path::new("dialogue.yaml")).unwrap_err();
        assert!(err.to_string().contains("greeting"), "{err}");
    }
}
