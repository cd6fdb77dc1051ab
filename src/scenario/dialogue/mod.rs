//! The built-in brain's phrase bank (`dialogue.yaml` in a scenario): openings
//! by situation, staff exchanges (an order and the serves that fit it),
//! topics as exchanges (a line and the replies that answer it), moods (a
//! grumble answered by comfort or an argument), news told and what two who
//! lived something together bring up, closings, the storyline lines
//! (invitations, meetings, a host's welcome), forms of address and what one
//! says with a plan (`plans:`, see [`PlanLines`]). Any line
//! may carry conditions (`if:`, see [`Cond`]) that keep it true of its
//! speaker. Checked like every scenario file: `file:line:col`, the field, a
//! hint. A scenario without one speaks with the default town's.

mod check;
mod line;
mod plans;
mod words;

use std::path::Path;
use std::sync::Arc;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::{LocationKind, WorkRole};
use crate::base::{Diagnostics, load_checked, parse_checked};
pub use line::{Cond, DayPart, Feeling, Line, Situation};
pub use plans::{PlanLines, PlanMoods};
pub use words::{PersonaWord, WordMemo};

/// The file's name in a scenario folder.
pub const FILE: &str = "dialogue.yaml";

/// Lines (templates with `{slot}`s, each with its conditions), with where the
/// list stands in the file.
pub type Lines = Spanned<Vec<Line>>;

/// Exchanges: lines that await an answer, each with the answers that fit it.
pub type Exchanges = Spanned<Vec<Exchange>>;

/// Slots a line may use; each is filled for the speaker and the moment
/// (`a`, `b`, `day`, `host`, `hobby`: in news and shared memories; `dish`:
/// a staff member's regular; `gist`: what a last talk was about; `names`,
/// `thing`, `fact`, `impression`, `kin`: in an interview's answers; `felt`:
/// how one of a date's two says it went; `home`, `mood`, `meal`, `friend`:
/// in plan lines).
pub const SLOTS: [&str; 25] = [
    "you",
    "me",
    "place",
    "period",
    "job",
    "title",
    "when",
    "topic",
    "gist",
    "dish",
    "a",
    "b",
    "day",
    "host",
    "hobby",
    "names",
    "thing",
    "fact",
    "impression",
    "kin",
    "felt",
    "home",
    "mood",
    "meal",
    "friend",
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
    /// News one tells another who has not heard it.
    pub news: News,
    /// Goodbyes.
    pub closings: Closings,
    /// Invitations, meetings, a host's welcome.
    pub storylines: Storylines,
    /// How one calls the other.
    pub address: Address,
    /// Answers to the player's questions (`heartvale interview`, 问问TA).
    pub interview: InterviewLines,
    /// What one says with a plan.
    pub plans: PlanLines,
    /// Words that name this town's own people and places besides their
    /// names (老钟, 柳溪 …): a town that borrows this bank (a generated one)
    /// leaves out every line that uses one.
    #[serde(default)]
    pub local_words: Vec<String>,
}

/// Openings by situation and their answers.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Greetings {
    /// Strangers meeting for the first time: introductions.
    pub first: Lines,
    /// Answering an introduction with one's own.
    pub first_back: Lines,
    /// Strangers who have met before.
    pub stranger: Lines,
    /// Acquaintances.
    pub acquaintance: Lines,
    /// Friends and close friends.
    pub friend: Lines,
    /// Acquaintances and friends asking after each other, with the answers.
    pub ask: Exchanges,
    /// Family: each greeting with the answers that fit it.
    pub family: Exchanges,
    /// Bumping into someone: the first meeting of the day, where neither works.
    pub chance: Lines,
    /// Meeting as agreed.
    pub appointment: Lines,
    /// Answering that greeting, come as agreed (optional: else `back`).
    #[serde(default = "no_lines")]
    pub appointment_back: Lines,
    /// One who has just joined a talk, before its first line there
    /// (「我也来凑个热闹。」). Optional.
    #[serde(default = "no_lines")]
    pub join: Lines,
    /// Answering a greeting.
    pub back: Lines,
    /// Opening with one already talked to today (「又碰上了」, not a second
    /// 「上午好」). Optional: else the greeting by the tie.
    #[serde(default = "no_lines")]
    pub again: Lines,
    /// Answering such an opening. Optional: else `back`.
    #[serde(default = "no_lines")]
    pub again_back: Lines,
    /// Opening with the last talk (on an earlier day), by how it went
    /// (`{gist}`: what was said then; `{topic}`: its subject).
    pub recall: Recall,
    /// Answering such an opening.
    pub recall_back: RecallBack,
    /// Opening with something the two lived, or one did to the other.
    pub shared: Shared,
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

/// Openings from what the two lived lately, or what one did to the other.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shared {
    /// Both were at a gathering (`{title}`, `{host}`, `{day}`).
    pub gathering: Exchanges,
    /// The listener organised a gathering the speaker went to.
    pub hosted: Exchanges,
    /// The speaker organised a gathering the listener came to.
    pub guest: Exchanges,
    /// The speaker went to a gathering the listener stayed away from.
    pub missed_gathering: Exchanges,
    /// The listener did not come to a meeting they had agreed (`{place}`, `{day}`).
    pub stood_up: Exchanges,
    /// The speaker did not come to such a meeting: it says sorry first
    /// (`{place}`, `{day}`); never brought up when left out.
    #[serde(default = "no_exchanges")]
    pub absent: Exchanges,
    /// The two went on a date (`{day}`).
    pub date: Exchanges,
    /// The two went on a date that went badly (`date` when left out).
    #[serde(default)]
    pub date_awkward: Option<Exchanges>,
}

/// What kind of shared memory an opening brings up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SharedKind {
    /// Both were at a gathering.
    Gathering,
    /// The listener hosted a gathering the speaker went to.
    Hosted,
    /// The speaker hosted a gathering the listener came to.
    Guest,
    /// The speaker went, the listener did not.
    MissedGathering,
    /// The listener did not come to meet the speaker.
    StoodUp,
    /// The speaker did not come to meet the listener.
    Absent,
    /// They went on a date.
    Date,
    /// They went on a date that went badly: an awkward opening.
    DateAwkward,
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

/// One role's exchange: the greeting, the customer's answer (an order, an
/// errand) with the staff member's answers that fit it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StaffRole {
    /// The staff member's greeting.
    pub greet: Lines,
    /// The customer's answers; each with the serves that fit it and, for a
    /// dish ordered, the dish (`dish:`).
    pub orders: Exchanges,
    /// A regular whose usual the staff member knows.
    #[serde(default)]
    pub usual: Option<Usual>,
}

/// A staff member offering a regular their usual (`{dish}`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Usual {
    /// The offer.
    pub say: Lines,
    /// The regular's yes.
    pub replies: Lines,
    /// Serving it.
    pub serve: Lines,
    /// The regular's no, when it has just eaten elsewhere: it then orders
    /// what fits (a drink) after it. Optional.
    #[serde(default = "no_lines")]
    pub decline: Lines,
}

/// A subject: when it comes up, and its exchanges.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopicBank {
    /// Unique within the bank.
    pub id: Spanned<String>,
    /// Its Chinese name (`{topic}`), shared with every tie whose last talk
    /// was on it.
    pub label: Arc<str>,
    /// Residents' `topics` that bring it up (either speaker's).
    #[serde(default)]
    pub interests: Vec<String>,
    /// Kinds of place where it comes up; with neither, it comes up anywhere.
    #[serde(default)]
    pub places: Vec<LocationKind>,
    /// Said only between friends (a tie of 60 or more): what one tells few.
    #[serde(default)]
    pub close: bool,
    /// Who may bring it up, and to whom (the lines' `if:` conditions, for
    /// the whole topic): a willow spirit does not talk of soup.
    #[serde(default, rename = "if")]
    pub cond: Cond,
    /// A line and the replies that answer it.
    pub exchanges: Exchanges,
}

/// A line that awaits an answer (a question, news, an order) and the answers
/// that fit it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exchange {
    /// What one says.
    pub say: Spanned<String>,
    /// When it may be said.
    #[serde(default, rename = "if")]
    pub cond: Cond,
    /// A topic line: what it was about in a few words, to bring up another
    /// day (「上回咱们说起{gist}」); shared as `label` is.
    #[serde(default)]
    pub gist: Option<Arc<str>>,
    /// A staff order: the dish it names (a regular's favourite is ordered by name).
    #[serde(default)]
    pub dish: Option<String>,
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
    /// When it may be said (a hungry grumble only from the hungry).
    #[serde(default, rename = "if")]
    pub cond: Cond,
    /// The kind answer.
    pub comfort: Lines,
    /// The sharp answer (the prickly, the tired): an argument.
    #[serde(default)]
    pub argue: Option<Lines>,
}

/// News told to one who has not heard it, by kind: the line (third person),
/// the line when the teller is part of it, and the reactions.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct News {
    /// A gathering coming up (`{title}`, `{when}`, `{place}`, `{host}`).
    pub gathering: NewsLines,
    /// Two who quarrelled (`{a}`, `{b}`, `{day}`, `{place}`).
    pub quarrel: NewsLines,
    /// Two who went on a date (`{a}`, `{b}`, `{day}`).
    pub date: NewsLines,
    /// Two whose date went badly (the same slots; `date` when left out).
    #[serde(default)]
    pub date_badly: Option<NewsLines>,
    /// One who did not come to a meeting (`{a}` stayed away, `{b}` waited; `{place}`, `{day}`).
    pub stood_up: NewsLines,
    /// Someone's pastime (`{a}`, `{hobby}`).
    pub hobby: NewsLines,
    /// A pastime one takes up now and then, not most days (`often` below
    /// one half: 石松 comes into town for a stew seldom, and 「石松常进镇」
    /// would be untrue); `hobby` when left out.
    #[serde(default)]
    pub hobby_seldom: Option<NewsLines>,
}

/// One kind of news.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewsLines {
    /// Telling it of others.
    pub say: Lines,
    /// Telling it when one is part of it (`{b}`: the other one).
    #[serde(default)]
    pub first: Option<FirstPerson>,
    /// Hearing it.
    pub replies: Lines,
}

/// News told of oneself, and how it is heard.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FirstPerson {
    /// Telling it.
    pub say: Lines,
    /// Hearing it.
    pub replies: Lines,
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
    /// A customer served, staying on for what it came for (none: a
    /// customer says a stranger's or a friend's goodbye).
    #[serde(default = "no_lines")]
    pub customer: Lines,
    /// Answering a goodbye.
    pub answer: Lines,
}

/// An empty list of exchanges, for a section a bank may leave out.
fn no_exchanges() -> Exchanges {
    Spanned::new(
        Vec::new(),
        serde_saphyr::Location::UNKNOWN,
        serde_saphyr::Location::UNKNOWN,
    )
}

/// An empty list of lines, for a section a bank may leave out.
fn no_lines() -> Lines {
    Spanned::new(
        Vec::new(),
        serde_saphyr::Location::UNKNOWN,
        serde_saphyr::Location::UNKNOWN,
    )
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
    /// Answering that, by what the one answering knows of it.
    pub going_replies: GoingReplies,
}

/// Answers to 「…你去不去？」, by the one answering.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoingReplies {
    /// It means to go.
    pub going: Lines,
    /// It knew, and means to stay away.
    pub not_going: Lines,
    /// It had not heard: news to it.
    pub new: Lines,
    /// It organises the gathering.
    pub host: Lines,
    /// It means to go, and has talked it over with others already
    /// (「这事儿大伙儿都在说呢」).
    #[serde(default = "no_lines")]
    pub asked_again: Lines,
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

/// A resident's answers to the player's questions, by what is asked.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InterviewLines {
    /// Whom one talked with on a day (`{day}`, `{names}`).
    pub talked: Lines,
    /// Nobody that day.
    pub talked_none: Lines,
    /// Where one heard of something, by the source.
    pub heard: HeardLines,
    /// Asked about something one has not heard of (`{thing}`).
    pub unknown: Lines,
    /// Asked what one cannot say.
    pub dont_know: Lines,
    /// Asked whether one has heard of something one knows (`{fact}`).
    pub knows: Lines,
    /// …when one is part of it.
    pub knows_mine: Lines,
    /// What one thinks of someone (`{a}`, `{impression}`), by how close.
    pub opinion: OpinionLines,
    /// What one's day was like (`{day}`, `{gist}`).
    pub day: Lines,
    /// A day with nothing to tell.
    pub day_none: Lines,
    /// How one is, by how one feels (`if: { feels: … }`).
    pub mood: Lines,
    /// What one knows of someone: trade, pastime, taste, family.
    pub person: AspectLines,
    /// The same of oneself.
    pub me: AspectLines,
}

/// Where one heard of something.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeardLines {
    /// One organised it (`{title}`).
    pub organised: Lines,
    /// From the notice board.
    pub notice: Lines,
    /// Someone told (`{a}`).
    pub told: Lines,
    /// One saw it.
    pub saw: Lines,
    /// One took part.
    pub lived: Lines,
    /// One always knew.
    pub known: Lines,
}

/// What one thinks of someone, by how close the tie is.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpinionLines {
    /// Family.
    pub family: Lines,
    /// Close friends.
    pub close: Lines,
    /// Friends.
    pub friend: Lines,
    /// Acquaintances.
    pub acquaintance: Lines,
    /// Hardly known.
    pub stranger: Lines,
    /// Added after a recent quarrel (`{day}`).
    pub quarrel: Lines,
}

/// Someone's trade, pastime, taste and family.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AspectLines {
    /// Trade (`{a}`, `{job}`).
    pub job: Lines,
    /// Pastime (`{a}`, `{hobby}`).
    pub hobby: Lines,
    /// Taste (`{a}`, `{dish}`).
    pub food: Lines,
    /// Family (`{a}`, `{names}`).
    pub family: Lines,
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
    /// To a man some years older (not a generation), not family: 苏哥.
    /// Empty: by name.
    #[serde(default)]
    pub older_man: String,
    /// … a woman: 苏姐.
    #[serde(default)]
    pub older_woman: String,
    /// To one some years younger, not family: 小溪, 小月 (`{small}`: a
    /// one-character given name with 小 before it; 小苏 for a grown-up).
    /// Empty: by name.
    #[serde(default)]
    pub junior: String,
    /// An apprentice to an elder where both work: 马师傅. Empty: as to
    /// any elder.
    #[serde(default)]
    pub master: String,
}

/// Where an exchange stands in the bank: what a line awaiting its answer
/// points back to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExchangeList {
    /// `greetings.ask`.
    Ask,
    /// `greetings.family`.
    Family,
    /// `topics[i].exchanges`.
    Topic(u16),
    /// `staff.<role>.orders`.
    Orders(WorkRole),
    /// `greetings.shared.<kind>`.
    Shared(SharedKind),
}

/// One exchange of the bank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, Deserialize)]
pub struct ExchangeRef {
    /// Its list.
    pub list: ExchangeList,
    /// Its index there.
    pub i: u16,
}

impl PhraseBank {
    /// Reads and checks a scenario's `dialogue.yaml`.
    pub fn load(path: &Path) -> Result<PhraseBank, Diagnostics> {
        load_checked(path, Self::problems)
    }

    /// The default town's bank, built in.
    pub fn builtin() -> PhraseBank {
        const TEXT: &str = include_str!("../../../scenarios/heartvale/dialogue.yaml");
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
    pub(crate) fn parse(text: &str, path: &Path) -> Result<PhraseBank, Diagnostics> {
        parse_checked(text, path, Self::problems)
    }

    /// The list an exchange reference points into.
    pub fn exchanges(&self, list: ExchangeList) -> &[Exchange] {
        match list {
            ExchangeList::Ask => &self.greetings.ask.value,
            ExchangeList::Family => &self.greetings.family.value,
            ExchangeList::Topic(t) => self
                .topics
                .get(t as usize)
                .map_or(&[], |t| &t.exchanges.value),
            ExchangeList::Orders(role) => &self.staff.role(role).orders.value,
            ExchangeList::Shared(kind) => &self.greetings.shared.of(kind).value,
        }
    }

    /// The exchange `r` points at.
    pub fn exchange(&self, r: ExchangeRef) -> Option<&Exchange> {
        self.exchanges(r.list).get(r.i as usize)
    }

    /// The topic (its index) most of these exchanges belong to, if any does.
    pub fn subject_of(&self, refs: impl Iterator<Item = ExchangeRef>) -> Option<usize> {
        let mut counts = vec![0usize; self.topics.len()];
        for r in refs {
            if let ExchangeList::Topic(t) = r.list
                && let Some(n) = counts.get_mut(t as usize)
            {
                *n += 1;
            }
        }
        let (best, n) = counts
            .iter()
            .enumerate()
            .max_by_key(|&(i, n)| (*n, usize::MAX - i))?;
        (*n > 0).then_some(best)
    }

    /// This bank without the lines that name another town's people or
    /// places: `names` (its residents' and places' names) and the bank's
    /// `local_words`. What a generated town speaks with.
    pub fn without_local(&self, names: &[String]) -> PhraseBank {
        let mut words: Vec<&str> = names.iter().map(String::as_str).collect();
        words.extend(self.local_words.iter().map(String::as_str));
        let mut bank = self.clone();
        bank.local_words.clear();
        check::retain_lines(&mut bank, |text| !words.iter().any(|w| text.contains(w)));
        bank
    }
}

impl Staff {
    /// The exchanges of a role.
    pub fn role(&self, role: WorkRole) -> &StaffRole {
        match role {
            WorkRole::Waiter => &self.waiter,
            WorkRole::Teacher => &self.teacher,
            WorkRole::Seller => &self.seller,
        }
    }
}

impl Shared {
    /// The openings of a kind.
    pub fn of(&self, kind: SharedKind) -> &Exchanges {
        match kind {
            SharedKind::Gathering => &self.gathering,
            SharedKind::Hosted => &self.hosted,
            SharedKind::Guest => &self.guest,
            SharedKind::MissedGathering => &self.missed_gathering,
            SharedKind::StoodUp => &self.stood_up,
            SharedKind::Absent => &self.absent,
            SharedKind::Date => &self.date,
            SharedKind::DateAwkward => self.date_awkward.as_ref().unwrap_or(&self.date),
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
        let text = include_str!("../../../scenarios/heartvale/dialogue.yaml")
            .replacen("\"{you}，{period}好！\"", "\"{yuo}，{period}好！\"", 1)
            .replacen("storm_off: [", "storm_off: [] #", 1);
        let err = PhraseBank::parse(&text, Path::new("dialogue.yaml")).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("unknown slot `{yuo}`"), "{text}");
        assert!(text.contains("moods.storm_off"), "{text}");
        assert!(text.contains("dialogue.yaml:"), "{text}");
    }

    #[test]
    fn plan_lines_are_checked_like_the_rest() {
        let text = include_str!("../../../scenarios/heartvale/dialogue.yaml")
            .replacen("\"歇口气再说。\"", "\"歇口气再说{moood}。\"", 1)
            .replacen(
                "  idle:           # 四处看看\n    - \"在{place}四处看看。\"\n    - \"{mood}先在{place}待一会儿。\"",
                "  idle: []",
                1,
            );
        let err = PhraseBank::parse(&text, Path::new("dialogue.yaml")).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("unknown slot `{moood}`"), "{text}");
        assert!(text.contains("plans.rest[1]"), "{text}");
        assert!(
            text.contains("plans.idle") && text.contains("the list is empty"),
            "{text}"
        );
        // A mood's opening may be left out: none of its lines fits a spirit.
        let bank = PhraseBank::builtin();
        assert!(
            bank.plans
                .moods
                .hungry
                .value
                .iter()
                .all(|l| !l.cond.is_always())
        );
    }

    #[test]
    fn a_misspelt_field_names_its_line() {
        let text = include_str!("../../../scenarios/heartvale/dialogue.yaml").replacen(
            "greetings:",
            "greeting:",
            1,
        );
        let err = PhraseBank::parse(&text, Path::new("dialogue.yaml")).unwrap_err();
        assert!(err.to_string().contains("greeting"), "{err}");
    }

    #[test]
    fn a_misspelt_condition_names_its_line() {
        let text = include_str!("../../../scenarios/heartvale/dialogue.yaml").replacen(
            "if: { who: [大学生]",
            "if: { whom: [大学生]",
            1,
        );
        let err = PhraseBank::parse(&text, Path::new("dialogue.yaml")).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("whom") && text.contains("dialogue.yaml:"),
            "{text}"
        );
    }

    #[test]
    fn a_borrowed_bank_leaves_out_the_town_s_own_people_and_places() {
        let bank = PhraseBank::builtin();
        let names = vec!["石松".to_string(), "柳溪".to_string()];
        let out = bank.without_local(&names);
        let mut all = Vec::new();
        check::each_line(&out, |_, text| all.push(text.to_string()));
        assert!(!all.is_empty());
        for text in &all {
            assert!(!text.contains("石松") && !text.contains("柳溪"), "{text}");
            for w in &bank.local_words {
                assert!(!text.contains(w.as_str()), "{text} has {w}");
            }
        }
    }
}
