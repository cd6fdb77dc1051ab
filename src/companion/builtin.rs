//! The built-in brain's side of a chat. It answers what the message does:
//! a recall question with the fact (「你叫小林呀，我怎么会忘」), a fact told
//! with a word about it, a feeling with care that names it, a question about
//! itself with its own answer, a return after days with the days; it decides
//! the key moments by what the message does, and now and then asks to learn
//! more. Lines come from the chat bank and the companion's own words
//! (gestures, stage lines, answers about itself); of the lines that fit, it
//! takes the one whose opening it used least lately.

use super::bank::ChatBank;
use super::facts::{FactKind, Learnt, PlayerFact};
use super::moments::{MomentStatus, fail_mark, judge, mark};
use super::said::{Act, Question, Topic};
use super::session::{ReplyContext, Speaker};

mod acts;
mod days;
mod recall;
mod small_talk;
mod views;

use days::{as_of, in_month, plan_ahead};

/// How many of its latest replies a new one avoids repeating.
const RECENT: usize = 40;
/// The characters that make a reply's opening.
const OPENING: usize = 5;

/// A reply's opening: its first characters (what a reader notices repeat).
pub fn opening(reply: &str) -> String {
    reply.chars().take(OPENING).collect()
}

/// The built-in reply, marked for the key moments it decides.
pub fn reply(cx: &ReplyContext<'_>) -> String {
    let w = Writer::new(cx);
    let mut marks = String::new();
    let mut own_words = None;
    for m in cx.candidates {
        match judge(m, cx.said) {
            MomentStatus::Failed => marks.push_str(&fail_mark(&m.id)),
            _ => {
                marks.push_str(&mark(&m.id));
                // The latest moment speaks (a name given at the first hello
                // is answered, not asked for again).
                own_words = m.says.as_deref().or(own_words);
            }
        }
    }
    // A key moment's own words are whole: no gesture, no hello before them.
    if let Some(says) = own_words {
        return format!("{}{marks}", w.fill(says, &Vars::default()).trim());
    }
    let mut parts: Vec<String> = Vec::new();
    let opener = w.opener();
    let main = w.main(opener.is_some());
    if let Some(g) = w
        .gesture()
        .filter(|_| !opener.as_deref().unwrap_or(&main).starts_with('（'))
    {
        parts.push(g);
    }
    parts.extend(opener);
    parts.push(main);
    if let Some(more) = w.more(&parts.concat()) {
        parts.push(more);
    }
    let mut text: String = parts.into_iter().filter(|p| !p.is_empty()).collect();
    // An opening used often lately (a gesture and a stage line that start
    // alike): open with another gesture, or without the one it has.
    if w.opened(&text) >= 4 {
        text = w.reopened(text);
    }
    format!("{}{marks}", text.trim())
}

/// The placeholders of one line.
#[derive(Debug, Clone, Default)]
struct Vars {
    fact: String,
    value: String,
    about: String,
    old: String,
    asked: String,
    feeling: String,
    cause: String,
    days: String,
    topic: String,
}

/// Writes one reply.
struct Writer<'a> {
    cx: &'a ReplyContext<'a>,
    bank: &'a ChatBank,
    /// The companion's latest replies, newest first.
    recent: Vec<&'a str>,
}

impl<'a> Writer<'a> {
    fn new(cx: &'a ReplyContext<'a>) -> Self {
        let recent = cx
            .state
            .lines
            .iter()
            .rev()
            .filter(|l| l.speaker == Speaker::Companion)
            .take(RECENT)
            .map(|l| l.content.as_str())
            .collect();
        Self {
            cx,
            bank: cx.bank,
            recent,
        }
    }

    /// `line` with its placeholders filled.
    fn fill(&self, line: &str, v: &Vars) -> String {
        let cx = self.cx;
        let today = cx.now.date();
        let date = format!(
            "{}月{}日，{}",
            chrono::Datelike::month(&today),
            chrono::Datelike::day(&today),
            cx.now.weekday_zh()
        );
        let name = cx.state.profile.address();
        let mut out = line.to_string();
        // 「你爱吃桂花乌龙茶」: a drink is drunk.
        const DRINKS: &[&str] = &["茶", "酒", "咖啡", "奶", "汁", "汤", "水", "可乐"];
        if DRINKS.iter().any(|d| v.value.ends_with(d)) {
            out = out.replace("吃{值}", "喝{值}");
        }
        if cx.state.profile.nickname.is_none() {
            // 「你来啦，你。」 reads badly: without a name, no address.
            for with_mark in ["，{称呼}", "{称呼}，", "{称呼}。"] {
                out = out.replace(with_mark, "");
            }
        }
        for (k, val) in [
            ("{称呼}", name),
            ("{名字}", cx.speaker),
            ("{事实}", &v.fact),
            ("{值}", &v.value),
            ("{种类}", &v.about),
            ("{旧事实}", &v.old),
            ("{问的}", &v.asked),
            ("{感受}", &v.feeling),
            ("{原因}", &v.cause),
            ("{天数}", &v.days),
            ("{日期}", &date),
            ("{话题}", &v.topic),
        ] {
            out = out.replace(k, val);
        }
        let memory = self.memory();
        out.replace("{记忆}", &memory)
    }

    /// Of `lines` filled with `v`, the one whose opening was used least
    /// lately (then the one least used whole, then by the message).
    fn pick(&self, lines: &[String], v: &Vars) -> Option<String> {
        let salt = self.salt();
        let empty = |k: &str, val: &str| val.is_empty() && !k.is_empty();
        lines
            .iter()
            .filter(|l| !l.trim().is_empty())
            // A line needing what is not known (a pet's name) does not fit.
            .filter(|l| {
                ![
                    ("{值}", &v.value),
                    ("{种类}", &v.about),
                    ("{事实}", &v.fact),
                    ("{话题}", &v.topic),
                    ("{感受}", &v.feeling),
                    ("{原因}", &v.cause),
                ]
                .iter()
                .any(|(k, val)| l.contains(k) && empty(k, val))
            })
            .map(|l| (fixed_words(l), self.fill(l, v)))
            .enumerate()
            .min_by_key(|(i, (fixed, text))| {
                let open = opening(text);
                let said = |part: &str| self.recent.iter().filter(|r| r.contains(part)).count();
                // A template said lately with other words in its slots
                // (「都没回音……辛苦了。想说说是怎么回事吗？」 after 「吵了一架……辛苦了。
                // 想说说是怎么回事吗？」) counts as its opening said.
                let worn = fixed.map_or(0, said);
                let same = said(text);
                let turn = (*i as u64 + salt) % lines.len().max(1) as u64;
                (said(&open) + worn, same, turn)
            })
            .map(|(_, (_, t))| t)
    }

    fn salt(&self) -> u64 {
        self.cx
            .message
            .chars()
            .fold(u64::from(self.cx.state.messages), |h, c| {
                h.wrapping_mul(31).wrapping_add(c as u64)
            })
    }

    /// How many of the latest replies open as `text` does.
    fn opened(&self, text: &str) -> usize {
        let open = opening(text);
        self.recent
            .iter()
            .filter(|r| r.starts_with(open.as_str()))
            .count()
    }

    /// `text` opening differently: without its gesture, or with the least
    /// used one.
    fn reopened(&self, text: String) -> String {
        if let Some(g) = self
            .cx
            .spec
            .gestures
            .iter()
            .find(|g| text.starts_with(g.as_str()))
        {
            let bare = text[g.len()..].to_string();
            if self.opened(&bare) < 4 {
                return bare;
            }
        }
        let bare = strip_gesture(&text);
        self.cx
            .spec
            .gestures
            .iter()
            .map(|g| format!("{g}{bare}"))
            .min_by_key(|t| self.opened(t))
            .unwrap_or(text)
    }

    /// A gesture to open with, every third reply or so (the least used lately).
    fn gesture(&self) -> Option<String> {
        let gestures = &self.cx.spec.gestures;
        if gestures.is_empty() || !self.salt().is_multiple_of(3) {
            return None;
        }
        gestures
            .iter()
            .enumerate()
            .min_by_key(|(i, g)| {
                (
                    self.recent
                        .iter()
                        .filter(|r| r.contains(g.as_str()))
                        .count(),
                    *i,
                )
            })
            .map(|(_, g)| g.clone())
    }

    /// The days apart, or a hello.
    fn opener(&self) -> Option<String> {
        let cx = self.cx;
        match cx.apart {
            Some(days) if days >= 7 => self.pick(
                &self.bank.back_long,
                &Vars {
                    days: crate::base::time::number_zh(days as u32),
                    ..Vars::default()
                },
            ),
            Some(1) if !self.bank.back_next_day.is_empty() => {
                self.pick(&self.bank.back_next_day, &Vars::default())
            }
            Some(days) if days >= 1 => self.pick(
                &self.bank.back,
                &Vars {
                    days: crate::base::time::number_zh(days as u32),
                    ..Vars::default()
                },
            ),
            _ if cx.said.does(Act::Greets) => self.pick(&self.bank.greet, &Vars::default()),
            _ => None,
        }
    }

    /// The answer to what the message does most (`opened`: a hello or the
    /// days apart were said already).
    fn main(&self, opened: bool) -> String {
        let cx = self.cx;
        let said = cx.said;
        let b = self.bank;
        let simple = |lines: &[String]| self.pick(lines, &Vars::default());
        let answer = match &said.question {
            Some(Question::Recall(_)) => Some(self.recall()),
            Some(Question::Opinion) => Some(self.opinion()),
            Some(Question::Believe) => simple(&b.believe).or_else(|| Some(self.opinion())),
            Some(Question::Advice) => self.advice(),
            Some(Question::Judge(subject)) => self.judge(subject),
            Some(Question::Who(most)) => self.who(most),
            Some(Question::Suggest) => self.suggest(),
            Some(Question::Deed | Question::Bother) => self.act(),
            Some(Question::AboutYou(topic)) if *topic != Topic::Other => {
                Some(self.about_me(*topic))
            }
            _ => None,
        };
        // 「好久不见」 after days: the days apart said it all.
        let only_hello = said.question.is_none()
            && said.facts.is_empty()
            && said.feeling.is_none()
            // 「吉他我能弹两首歌了」 after days apart does no act, yet says something.
            && !said.acts.is_empty()
            && said
                .acts
                .iter()
                .all(|a| matches!(a, Act::Greets | Act::Misses));
        if opened && only_hello {
            return String::new();
        }
        answer
            .or_else(|| self.act())
            .or_else(|| self.quit())
            .or_else(|| self.told())
            .or_else(|| self.feeling())
            .or_else(|| {
                let acts: [(Act, &[String]); 8] = [
                    (Act::Forgives, &b.forgiven),
                    (Act::Blames, &b.blamed),
                    (Act::Confesses, &b.liked),
                    (Act::Misses, &b.missed),
                    (Act::NeedsHelp, &b.help),
                    (Act::Thanks, &b.thanks),
                    (Act::Goodbye, self.goodbye_lines()),
                    (Act::AsksWhy, &b.why),
                ];
                acts.iter()
                    .find(|(a, _)| said.does(*a))
                    .and_then(|(_, lines)| simple(lines))
            })
            // 「今天天气真好」: answered about the weather, not with a fallback.
            .or_else(|| {
                let w = said.weather.filter(|_| said.question.is_none())?;
                simple(ChatBank::of(&b.weather, w))
            })
            .or_else(|| {
                matches!(said.question, Some(Question::AboutYou(Topic::Other)))
                    .then(|| self.about_me(Topic::Other))
            })
            .or_else(|| said.does(Act::Asks).then(|| simple(&b.no_answer)).flatten())
            .or_else(|| self.coming_less().then(|| simple(&b.coming_less)).flatten())
            .or_else(|| self.mentioned())
            .or_else(|| {
                // A bare hello is answered by the opener.
                (said.does(Act::Greets) && said.clauses.len() <= 1).then(String::new)
            })
            .unwrap_or_else(|| self.small_talk())
    }

    /// Whether the player says it will come less often from now on.
    fn coming_less(&self) -> bool {
        const LESS: &[&str] = &[
            "没那么多时间来",
            "没时间来",
            "不能常来",
            "不能经常来",
            "很少来",
            "少来了",
        ];
        LESS.iter().any(|w| self.cx.message.contains(w))
    }

    /// Goodbye lines for the hour: good night in the evening or when the
    /// player is off to sleep, else a plain goodbye.
    fn goodbye_lines(&self) -> &'a [String] {
        const SLEEP: &[&str] = &["晚安", "睡觉", "睡了", "补觉", "歇着", "休息"];
        let evening = matches!(self.cx.now.period(), "晚上" | "深夜");
        let night = evening || SLEEP.iter().any(|w| self.cx.message.contains(w));
        match night && !self.bank.goodbye_night.is_empty() {
            true => &self.bank.goodbye_night,
            false => &self.bank.goodbye,
        }
    }

    /// A job given up, and no new one told.
    fn quit(&self) -> Option<String> {
        let cx = self.cx;
        let quit = cx
            .said
            .wrong
            .iter()
            .any(|w| w.kind == FactKind::Job && w.value.is_empty());
        let new_job = cx.learnt.iter().any(|(f, _)| f.kind == FactKind::Job);
        (quit && !new_job)
            .then(|| self.pick(&self.bank.quit, &Vars::default()))
            .flatten()
    }

    /// The facts the message told: a word on each (two at most).
    fn told(&self) -> Option<String> {
        let mut out = String::new();
        let mut used: Vec<String> = Vec::new();
        for (fact, learnt) in one_per_person(self.cx.learnt).iter().take(2) {
            let mut v = vars_of(fact);
            let loss = super::said::is_loss(&fact.value);
            let lines = match learnt {
                // 「老伴去年走了」 is no news to welcome.
                Learnt::New if loss && !self.bank.loss.is_empty() => &self.bank.loss,
                // 「我妈妈复查了，医生说恢复得不错」: relief, not 「你很挂着妈妈吧」.
                Learnt::New
                    if matches!(fact.kind, FactKind::Family | FactKind::Person)
                        && super::said::is_good_news(&fact.value)
                        && !self.bank.news_good.is_empty() =>
                {
                    &self.bank.news_good
                }
                // 「我下周三要去医院复查」 is not 「真好」.
                Learnt::New
                    if fact.kind == FactKind::Plan
                        && super::said::is_health(&fact.value)
                        && !self.bank.plan_health.is_empty() =>
                {
                    &self.bank.plan_health
                }
                Learnt::New => ChatBank::of(&self.bank.told, fact.kind),
                // A pet told of before, named now: news, not a correction.
                // 护士 now 在镇上的诊所当护士: the same, with more said of it.
                Learnt::Replaced(old)
                    if old.value.is_empty()
                        || (fact.value != old.value && fact.value.contains(&old.value)) =>
                {
                    ChatBank::of(&self.bank.told, fact.kind)
                }
                Learnt::Replaced(old) if old.value != fact.value || old.about != fact.about => {
                    // 年糕 is a white cat, not an orange one: the old kind said.
                    v.old = match old.value == fact.value {
                        true => old.about.clone(),
                        false => old.value.clone(),
                    };
                    &self.bank.corrected
                }
                _ => &self.bank.known,
            };
            // Two facts in one message: not the same line twice; 「我有点想家了，
            // 我老家在成都」 is not asked 「会想家吗？」.
            let felt = self.cx.said.feeling.as_ref().map(|f| f.word.as_str());
            // News of a relative (妹妹下个月要考试) is answered with the news,
            // not with 「听起来是个很好的人」.
            // A name and news together (叫林冬，在北京工作) is news too.
            let news = matches!(fact.kind, FactKind::Family | FactKind::Person)
                && !fact.value.is_empty()
                && (!fact.value.starts_with('叫') || fact.value.contains('，'));
            let fresh: Vec<String> = lines
                .iter()
                .filter(|l| !used.contains(l) && felt.is_none_or(|w| !l.contains(w)))
                .filter(|l| !news || l.contains("{事实}"))
                .cloned()
                .collect();
            let lines = if fresh.is_empty() { lines } else { &fresh[..] };
            if let Some(line) = self.pick(lines, &v) {
                used.extend(lines.iter().filter(|l| self.fill(l, &v) == line).cloned());
                out.push_str(&line);
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// A feeling shared: care that names it; one doubting oneself is
    /// reminded of something good it told lately.
    fn feeling(&self) -> Option<String> {
        let f = self.cx.said.feeling.as_ref()?;
        if super::said::doubts_self(f) && !self.bank.feeling_doubt.is_empty() {
            let v = Vars {
                feeling: f.word.clone(),
                cause: self.good_news().unwrap_or_default(),
                ..Vars::default()
            };
            // What it did well, when it told of something: lines that say it first.
            let lines = holding(&self.bank.feeling_doubt, "{原因}", &v.cause);
            return self.pick(&lines, &v);
        }
        let v = Vars {
            feeling: f.word.clone(),
            cause: f.clause.clone(),
            ..Vars::default()
        };
        let lines = if f.good {
            &self.bank.feeling_good
        } else {
            &self.bank.feeling_bad
        };
        self.pick(lines, &v)
    }

    /// The latest good thing the player told of before this message, in the
    /// second person (论文终于写完初稿了).
    fn good_news(&self) -> Option<String> {
        let cx = self.cx;
        (cx.state.lines.iter().rev())
            .filter(|l| l.speaker == Speaker::Player && l.content != cx.message)
            .take(RECENT)
            .find_map(|l| super::said::read(&l.content).feeling.filter(|f| f.good))
            .map(|f| f.clause)
    }

    /// After the answer: a fact the message touches woven in, or a question
    /// to learn what it does not know yet — not every time.
    fn more(&self, so_far: &str) -> Option<String> {
        let cx = self.cx;
        let said = cx.said;
        let closing = said.does(Act::Goodbye) || so_far.ends_with('？') || so_far.ends_with('?');
        if closing || said.question.is_some() || !cx.learnt.is_empty() || self.acted() {
            return None;
        }
        // Back the next day: yesterday's worry first.
        if let Some(line) = self.follow_up() {
            return Some(line);
        }
        // Good news is not followed by an old trouble of the same person
        // (「……加工资」 then 「我还记得，你老板总挑刺」).
        let glad = said.feeling.as_ref().is_some_and(|f| f.good);
        if let Some(f) = self.touched().filter(|_| !glad) {
            return self.pick(&self.bank.weave, &self.vars(f));
        }
        // Someone telling of something (阿福学会说话了, 不太会做饭) is not
        // asked out of the blue about something else: only a thin message is.
        let thin = said.feeling.is_none()
            && self.mentioned().is_none()
            && (said.does(Act::Thanks)
                || said.does(Act::Greets)
                || super::profile::topic_of(cx.message).is_none());
        if !thin || self.salt() % 2 == 1 {
            return None;
        }
        const ASK_ORDER: [FactKind; 7] = [
            FactKind::Name,
            FactKind::Job,
            FactKind::Home,
            FactKind::Pet,
            FactKind::Food,
            FactKind::Likes,
            FactKind::Birthday,
        ];
        let facts = &cx.state.facts;
        // One who has just left a job is not asked what it is.
        let jobless = facts.first(FactKind::Job).is_none()
            && (cx.state.lines.iter())
                .any(|l| l.speaker == Speaker::Player && super::said::quits(&l.content));
        ASK_ORDER
            .into_iter()
            .filter(|k| facts.first(*k).is_none() && !(jobless && *k == FactKind::Job))
            .map(|k| ChatBank::of(&self.bank.ask_next, k))
            // Nothing asked twice in a chat (the latest replies).
            .find(|lines| {
                !lines
                    .iter()
                    .any(|l| self.recent.iter().any(|r| r.contains(l.as_str())))
            })
            .and_then(|lines| self.pick(lines, &Vars::default()))
    }

    /// A known fact the message speaks of, not told in it: 「馒头又捣乱了」.
    fn mentioned(&self) -> Option<String> {
        let cx = self.cx;
        cx.state.facts.0.iter().rev().find_map(|f| {
            let key = match f.kind {
                FactKind::Pet if !f.value.is_empty() => f.value.clone(),
                FactKind::Pet | FactKind::Family | FactKind::Person => f.about.clone(),
                FactKind::Food | FactKind::Likes | FactKind::Home => f.value.clone(),
                // 「吉他我能弹一首歌了」 after 「我在学弹吉他」: the instrument.
                FactKind::Learning => {
                    let v = f.value.as_str();
                    let bare = v.strip_prefix(['弹', '拉', '吹', '打', '下']);
                    bare.filter(|b| b.chars().count() >= 2)
                        .unwrap_or(v)
                        .to_owned()
                }
                // 「陶艺课太好玩了」 after 「我下周想去学陶艺」: the plan came true.
                FactKind::Plan => super::profile::topic_of(&f.value)
                    .or_else(|| super::profile::place_of(&f.value))?,
                _ => return None,
            };
            let fresh = cx.learnt.iter().any(|(l, _)| l.kind == f.kind);
            if fresh || key.chars().count() < 2 || !cx.message.contains(&key) {
                return None;
            }
            // A relative who died is not asked after; a plan whose day is
            // still ahead has not come true.
            let ahead = f.kind == FactKind::Plan
                && plan_ahead(&f.value, f.time, cx.now)
                && !super::said::tells_done(cx.message);
            let lines = if super::said::is_loss(&f.value) {
                &self.bank.loss
            } else if ahead && !self.bank.mentioned_ahead.is_empty() {
                &self.bank.mentioned_ahead
            } else {
                ChatBank::of(&self.bank.mentioned, f.kind)
            };
            let v = Vars {
                topic: key,
                ..self.vars(f)
            };
            self.pick(lines, &v)
        })
    }

    /// A known fact the message speaks of (its pet, its job …), not woven
    /// in lately.
    fn touched(&self) -> Option<&'a PlayerFact> {
        let cx = self.cx;
        cx.state.facts.0.iter().rev().find(|f| {
            let key = if f.about.is_empty() {
                f.value.as_str()
            } else {
                f.about.as_str()
            };
            // A death is not brought up in passing (「说起来，你老伴前年走了，对吧？」).
            let hit = !key.is_empty()
                && !super::said::is_loss(&f.value)
                && key.chars().count() >= 1
                && cx.message.contains(key)
                && !cx.message.contains(&f.value);
            let told = f.to_you();
            hit && !self
                .recent
                .iter()
                .take(10)
                .any(|r| r.contains(told.as_str()))
        })
    }

    /// A fact's placeholders as of now: a plan or a worry told on an
    /// earlier day keeps its day (「你明天想去河边」, told yesterday, is today).
    fn vars(&self, f: &PlayerFact) -> Vars {
        let mut v = vars_of(f);
        if matches!(f.kind, FactKind::Plan | FactKind::Worry) {
            let days = self.cx.now.day_number() - f.time.day_number();
            v.fact = as_of(&in_month(&v.fact, f.time, self.cx.now), days);
        }
        v
    }

    /// A memory worth bringing up: something from before today's chat
    /// (what was said a moment ago is not a memory yet).
    fn memory(&self) -> String {
        let cx = self.cx;
        let today = cx.now.day_number();
        cx.recalled
            .iter()
            .find_map(|m| {
                let (stamp, text) = m.strip_prefix('[')?.split_once("] ")?;
                let when = crate::base::time::GameTime::parse(stamp)?;
                (when.day_number() < today).then(|| spoken_memory(text))
            })
            .unwrap_or_default()
    }
}

/// The facts learnt, what one message told of one relative or friend as
/// one (你男朋友是个程序员，话很少), so it is answered once.
fn one_per_person(learnt: &[(PlayerFact, Learnt)]) -> Vec<(PlayerFact, Learnt)> {
    let mut out: Vec<(PlayerFact, Learnt)> = Vec::new();
    for (f, l) in learnt {
        let person = matches!(f.kind, FactKind::Family | FactKind::Person);
        match out.last_mut() {
            Some((last, Learnt::New))
                if person
                    && matches!(l, Learnt::New)
                    && (last.kind, &last.about) == (f.kind, &f.about)
                    && !last.value.is_empty()
                    && !f.value.is_empty()
                    && !f.value.starts_with('叫') =>
            {
                last.value = format!("{}，{}", last.value, f.value);
            }
            _ => out.push((f.clone(), l.clone())),
        }
    }
    out
}

/// A template's longest run of its own words between placeholders, when
/// long enough to be recognised in a reply (「辛苦了。想说说是怎么回事吗？」).
fn fixed_words(template: &str) -> Option<&str> {
    /// Shorter runs (「，」, 「呀」) are in every reply.
    const RECOGNISED: usize = 6;
    let runs = template.split(['{', '}']).step_by(2);
    runs.max_by_key(|r| r.chars().count())
        .filter(|r| r.chars().count() >= RECOGNISED && template.contains('{'))
}

/// `text` without a leading （…） action.
fn strip_gesture(text: &str) -> &str {
    match text.strip_prefix('（').and_then(|r| r.split_once('）')) {
        Some((_, rest)) => rest,
        None => text,
    }
}

/// Of `lines`, those that say `v`'s value when it is known and some do;
/// else all of them.
fn holding_value<'l>(lines: &'l [String], v: &Vars) -> std::borrow::Cow<'l, [String]> {
    holding(lines, "{值}", &v.value)
}

/// Of `lines`, those that say what a fact is (`{事实}` or `{种类}`) when
/// some do; else all of them.
fn holding_kind(lines: &[String]) -> std::borrow::Cow<'_, [String]> {
    let kind: Vec<String> = (lines.iter())
        .filter(|l| l.contains("{事实}") || l.contains("{种类}"))
        .cloned()
        .collect();
    match kind.is_empty() {
        true => std::borrow::Cow::Borrowed(lines),
        false => std::borrow::Cow::Owned(kind),
    }
}

/// Of `lines`, those with `placeholder` when its `value` is known and some
/// have it; else all of them.
fn holding<'l>(
    lines: &'l [String],
    placeholder: &str,
    value: &str,
) -> std::borrow::Cow<'l, [String]> {
    let holding: Vec<String> = (lines.iter())
        .filter(|l| l.contains(placeholder))
        .cloned()
        .collect();
    if value.is_empty() || holding.is_empty() {
        std::borrow::Cow::Borrowed(lines)
    } else {
        std::borrow::Cow::Owned(holding)
    }
}

/// A fact's placeholders.
fn vars_of(f: &PlayerFact) -> Vars {
    Vars {
        fact: f.to_you(),
        value: f.value.clone(),
        about: f.about.clone(),
        ..Vars::default()
    }
}

/// A memory as the companion says it: 「小林告诉我：「…」」 → 你说过「…」。
fn spoken_memory(text: &str) -> String {
    for marker in ["告诉我：", "对我说："] {
        if let Some((_, said)) = text.split_once(marker) {
            return format!("你说过{said}。");
        }
    }
    // A town memory (a night's summary) is not brought into a chat whole.
    String::new()
}
