//! Chinese lines from templates filled with persona, place, time, mood and memory.
//! Templates use `{name}`-style slots; a plan's lines are the scenario's
//! (`plans:` in `dialogue.yaml`), chosen among those whose conditions fit.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::planner::Candidate;
use crate::base::time::{GameTime, clock_text};
use crate::scenario::dialogue::{Feeling, Line, PlanMoods, Situation};
use crate::scenario::{Gathering, LocationKind};
use crate::sim::brain::{PlanContext, SummaryContext};
use crate::sim::memory::MemoryKind;
use crate::sim::residents::{ActivityKind, Mood, Needs};

/// One of the lines of `table` that fit `s`, drawn with one roll (any of
/// the table when none fits; an empty table, which `check` rejects, says
/// nothing). No list is built: a large town plans thousands of times a step.
fn pick<'a>(rng: &mut ChaCha8Rng, table: &'a [Line], s: &Situation<'_>) -> &'a str {
    let fitting = table.iter().filter(|l| l.cond.holds(s)).count();
    let count = if fitting == 0 { table.len() } else { fitting };
    if count == 0 {
        return "";
    }
    let k = rng.random_range(0..count);
    table
        .iter()
        .filter(|l| fitting == 0 || l.cond.holds(s))
        .nth(k)
        .map_or("", |l| l.text.as_str())
}

/// Whether every slot of `template` has a non-empty value among `slots`.
pub(super) fn fillable<K: AsRef<str>, V: AsRef<str>>(template: &str, slots: &[(K, V)]) -> bool {
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            return true;
        };
        let key = &after[..close];
        if !slots
            .iter()
            .any(|(k, v)| k.as_ref() == key && !v.as_ref().is_empty())
        {
            return false;
        }
        rest = &after[close + 1..];
    }
    true
}

/// Fills `{slot}`s from `slots` in one pass; unknown slots are left as they are.
pub(super) fn fill(template: &str, slots: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    fill_into(&mut out, template, slots);
    out
}

/// [`fill`], appending to `out` (a caller trying many templates reuses one
/// buffer).
pub(super) fn fill_into(out: &mut String, template: &str, slots: &[(&str, &str)]) {
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                let key = &after[..close];
                match slots.iter().find(|(k, _)| *k == key) {
                    Some((_, v)) => out.push_str(v),
                    None => {
                        out.push('{');
                        out.push_str(key);
                        out.push('}');
                    }
                }
                rest = &after[close + 1..];
            }
            None => {
                out.push_str(&rest[open..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
}

/// How a mood colours the start of a line the resident says: the first of
/// the mood's openings that fits `s`, else none.
fn mood<'a>(moods: &'a PlanMoods, needs: &Needs, s: &Situation<'_>) -> &'a str {
    let list = match needs.mood() {
        Mood::Tired => &moods.tired,
        Mood::Hungry => &moods.hungry,
        Mood::Lonely => &moods.lonely,
        Mood::Bored => &moods.bored,
        Mood::Lively => &moods.lively,
        Mood::Calm => return "",
    };
    list.value
        .iter()
        .find(|l| l.cond.holds(s))
        .map_or("", |l| l.text.as_str())
}

/// How one feels, from its needs at `now`: what a line's `feels:` reads
/// when nobody is being talked with (a plan, an interview's answer).
pub(super) fn feelings(n: &Needs, now: GameTime) -> Vec<Feeling> {
    Feelings::of(n, now).as_slice().to_vec()
}

/// [`feelings`] kept on the stack: a large town plans thousands of times a step.
struct Feelings {
    held: [Feeling; 10],
    len: usize,
}

impl Feelings {
    fn of(n: &Needs, now: GameTime) -> Self {
        let since_meal = n.last_meal.minutes_until(now);
        let mut out = Self {
            held: [Feeling::Tired; 10],
            len: 0,
        };
        for (on, f) in [
            (n.energy < 35.0, Feeling::Tired),
            (n.energy > 70.0, Feeling::Rested),
            (n.hunger < 40.0 && since_meal >= 120, Feeling::Hungry),
            (since_meal < 90, Feeling::Fed),
            (since_meal < 180, Feeling::Ate),
            (since_meal >= 180, Feeling::Unfed),
            (since_meal >= 180, Feeling::Appetite),
            (since_meal < 180, Feeling::Full),
            (n.social < 35.0, Feeling::Lonely),
            (n.fun < 35.0, Feeling::Bored),
        ] {
            if on {
                out.held[out.len] = f;
                out.len += 1;
            }
        }
        out
    }

    fn as_slice(&self) -> &[Feeling] {
        &self.held[..self.len]
    }
}

/// What a plan line's conditions read: the planner (nobody is talked to, so
/// it stands for the listener too), the time, and whether it stays, is at
/// home or at work.
fn plan_situation<'a>(cx: &PlanContext<'a>, c: &Candidate, feels: &'a [Feeling]) -> Situation<'a> {
    let me = cx.me;
    Situation {
        speaker: me,
        listener: me,
        minute: cx.now.minute_of_day(),
        feels,
        apart_days: None,
        at_home: cx.at == me.home,
        staying: c.target == cx.at,
        comforted: false,
        working: me.work.as_ref().is_some_and(|w| w.place == cx.at),
        // A plan is made where one has been: not on coming in.
        arrived: false,
        listener_arrived: false,
        listener_working: false,
        sky: Some(crate::base::weather::sky(cx.seed, cx.now)),
    }
}

fn meal_zh(m: u32, wake: u32) -> &'static str {
    match super::planner::meal_name(m, wake) {
        Some("breakfast") => "早饭",
        Some("lunch") => "午饭",
        Some("dinner") => "晚饭",
        _ => "吃饭",
    }
}

/// The line a resident says or thinks with a plan.
pub(super) fn plan_line(cx: &PlanContext<'_>, c: &Candidate, rng: &mut ChaCha8Rng) -> String {
    if c.kind == ActivityKind::PostNotice
        && let Some(text) = &c.line
    {
        return text.clone();
    }
    // 「好久没进镇了，去老钟那儿喝碗炖菜」 is not said in the tavern itself.
    let setting_off = |l: &str| {
        ["去", "进镇", "回", "出门", "出发"]
            .iter()
            .any(|w| l.contains(w))
    };
    if let Some(line) = &c.line
        && !(c.target == cx.at && setting_off(line))
        && rng.random_bool(0.6)
    {
        return line.clone();
    }
    let me = cx.me;
    let gathering = c.gathering.and_then(|g| cx.gatherings.get(g.i()));
    let table = plan_table(cx, c, gathering);
    let friend = c.friend.map_or("", |f| cx.roster.name_of(f));
    let home = own_home(cx);
    let feels = Feelings::of(cx.needs, cx.now);
    let s = plan_situation(cx, c, feels.as_slice());
    let mut line = fill(
        pick(rng, table, &s),
        &[
            ("period", cx.now.period()),
            ("home", home),
            (
                "place",
                if c.target == me.home {
                    home
                } else {
                    cx.town.name(c.target)
                },
            ),
            ("mood", mood(&cx.phrases.plans.moods, cx.needs, &s)),
            ("meal", meal_zh(cx.now.minute_of_day(), me.wake)),
            ("friend", friend),
            ("title", gathering.map_or("聚会", |g| g.title.as_str())),
        ],
    );
    add_thought(cx, c, &mut line, rng);
    line
}

/// What comes to mind with a plan, after its line: on waking, yesterday's
/// moment from the night's summary; now and then a recent conversation,
/// or, setting off to work, the resident's motto (「每本书都在等一个对的读者」
/// fits the librarian's shift, not her supper).
fn add_thought(cx: &PlanContext<'_>, c: &Candidate, line: &mut String, rng: &mut ChaCha8Rng) {
    let woke = cx.previous.is_some_and(|p| p.kind == ActivityKind::Sleep);
    // Looked up only on waking: the memories sit far apart in a large town.
    let yesterday = woke
        .then(|| {
            cx.memories
                .iter()
                .rev()
                .find(|m| m.kind == MemoryKind::Summary)
        })
        .flatten()
        .and_then(|m| most_of_all(&m.text));
    if woke && let Some(moment) = yesterday {
        line.push_str(&format!("（想起昨天：{moment}）"));
        return;
    }
    let recent_talk = cx
        .relationships
        .iter()
        .filter_map(|r| r.last_interaction.get().map(|t| (t, &r.with)))
        .filter(|(t, _)| t.minutes_until(cx.now) < 360)
        .max_by_key(|(t, _)| *t);
    match rng.random_range(0..10) {
        0..=1 if recent_talk.is_some() => {
            let who = cx.roster.name(recent_talk.expect("checked").1);
            line.push_str(&format!("（想起刚才和{who}的聊天）"));
        }
        2 if !cx.me.quote.is_empty() && c.kind == ActivityKind::Work => {
            line.push_str(&cx.me.quote);
        }
        _ => {}
    }
}

/// The templates for a plan of `c`'s kind, where the resident is and where
/// it goes: staying put is no going, one's own house is 家.
fn plan_table<'a>(
    cx: &PlanContext<'a>,
    c: &Candidate,
    gathering: Option<&Gathering>,
) -> &'a [Line] {
    let me = cx.me;
    let here = c.target == cx.at;
    let t = &cx.phrases.plans;
    let lines = match c.kind {
        ActivityKind::Sleep if here => &t.sleep_here,
        ActivityKind::Sleep => &t.sleep,
        ActivityKind::Eat if here && c.target == me.home => &t.eat_at_home,
        ActivityKind::Leisure if here && c.target == me.home => &t.home_here,
        ActivityKind::Work if here => &t.work_here,
        ActivityKind::Work if into_shift(cx) => &t.work_back,
        ActivityKind::Work => &t.work,
        ActivityKind::Leisure | ActivityKind::Socialise | ActivityKind::Eat if here => &t.here,
        ActivityKind::Eat if c.target == me.home => &t.eat_home,
        ActivityKind::Eat => &t.eat,
        ActivityKind::Socialise if c.friend.is_some() => &t.social_friend,
        ActivityKind::Socialise => &t.social,
        ActivityKind::Attend if gathering.is_some_and(|g| g.organiser == me.id) => {
            if here {
                &t.host_here
            } else {
                &t.host
            }
        }
        ActivityKind::Attend if here => &t.attend_here,
        ActivityKind::Attend => &t.attend,
        ActivityKind::Leisure if c.target == me.home => &t.home,
        ActivityKind::Leisure => &t.leisure,
        ActivityKind::Idle if c.action.is_rest() => &t.rest,
        ActivityKind::Idle | ActivityKind::PostNotice => &t.idle,
    };
    &lines.value
}

/// One's own home as one says it: a house is 家 ("回苏文的阁楼" and "回马家"
/// were one's own name); a home that is no house (a spirit's willow, a room
/// at the tavern) keeps its name.
fn own_home<'a>(cx: &PlanContext<'a>) -> &'a str {
    let home = cx.town.get(cx.me.home);
    if home.kind == LocationKind::Home {
        "家"
    } else {
        &home.name
    }
}

/// Whether the shift began over an hour ago: going back to work then is no
/// start of the day.
fn into_shift(cx: &PlanContext<'_>) -> bool {
    cx.me
        .work
        .as_ref()
        .is_some_and(|w| cx.now.minute_of_day() >= w.start + 60)
}

/// The notice text for a gathering a resident organises.
pub(crate) fn gathering_notice(cx: &PlanContext<'_>, g: &Gathering) -> String {
    format!(
        "【{}】{}月{}日 {}-{}，地点：{}。欢迎所有人！——{}",
        g.title,
        chrono::Datelike::month(&g.starts.date()),
        chrono::Datelike::day(&g.starts.date()),
        clock_text(g.starts.minute_of_day()),
        clock_text(g.ends.minute_of_day()),
        cx.town.name(g.location),
        cx.me.name
    )
}

/// The summary's lead: what follows it, up to `。`, is the day's most
/// important moment (the waking thought recalls it).
const MOST_OF_ALL: &str = "最难忘的是";
/// A moment in a summary keeps to this many characters, in whole clauses.
const GIST_CHARS: usize = 40;

/// Extractive summary: the day's most important moment first, then the next
/// three in time order, each in whole phrases (clauses dropped, never cut).
pub(super) fn summary(cx: &SummaryContext<'_>) -> String {
    let date = format!(
        "{}月{}日",
        chrono::Datelike::month(&cx.night),
        chrono::Datelike::day(&cx.night)
    );
    let mut ranked: Vec<(usize, &crate::sim::memory::Memory)> =
        cx.entries.iter().enumerate().collect();
    ranked.sort_by(|a, b| b.1.importance.cmp(&a.1.importance).then(a.0.cmp(&b.0)));
    // Four different things: going to the square twice to find company is
    // one moment of the day, not two (「最难忘的是去心谷广场找人说说话。
    // 这一天还：去心谷广场找人说说话」).
    let mut picked: Vec<(usize, String)> = Vec::new();
    for (i, m) in ranked {
        let g = gist(done(m));
        if !picked.iter().any(|(_, p)| *p == g) {
            picked.push((i, g));
        }
        if picked.len() == 4 {
            break;
        }
    }
    let Some(((_, top), rest)) = picked.split_first() else {
        return format!("{date}：平静的一天。");
    };
    let mut rest = rest.to_vec();
    rest.sort_by_key(|(i, _)| *i);
    let more: Vec<String> = rest.into_iter().map(|(_, g)| g).collect();
    let mut text = format!("{date}回顾：{MOST_OF_ALL}{top}。");
    if !more.is_empty() {
        text.push_str(&format!("这一天还：{}。", more.join("；")));
    }
    text
}

/// What a memory says was done: a plan's is what it set out to do, not the
/// words it set out with (「去松林找人说说话：好想找人说说话，不挪地方了」
/// read as a day's moment).
fn done(m: &crate::sim::memory::Memory) -> &str {
    match m.kind {
        MemoryKind::Plan => m.text.split_once('：').map_or(&m.text, |(what, _)| what),
        _ => &m.text,
    }
}

/// A memory in at most [`GIST_CHARS`] characters: its first clauses, whole
/// (a quoted notice is left out rather than cut), asides in （） dropped.
pub(super) fn gist(text: &str) -> String {
    let mut plain = String::with_capacity(text.len());
    let mut depth = 0u32;
    for c in text.chars() {
        match c {
            '（' => depth += 1,
            '）' => depth = depth.saturating_sub(1),
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    let text = plain.trim_end_matches(['。', '！']);
    if text.chars().count() <= GIST_CHARS {
        return text.to_string();
    }
    let mut out = String::new();
    for clause in text.split_inclusive(['，', '：', '；', '。', '「']) {
        let clause_len = clause.chars().count();
        if out.chars().count() + clause_len > GIST_CHARS {
            break;
        }
        out.push_str(clause);
    }
    // A quotation that does not fit whole (a notice's text) is left out.
    // A quotation that does not fit whole (a notice's text, a choice) is
    // left out with the clause it belongs to: 「我选了「」 never ends a gist.
    if out.matches('「').count() > out.matches('」').count()
        && let Some(open) = out.rfind('「')
    {
        let clause = out[..open]
            .rfind(['，', '；', '。'])
            .map_or(0, |b| b + out[b..].chars().next().map_or(0, char::len_utf8));
        let before_colon = out[..open].ends_with('：');
        out.truncate(if before_colon { open } else { clause });
    }
    if out.is_empty() {
        // One long clause: up to its first natural break.
        out = text.chars().take(GIST_CHARS).collect();
    }
    out.trim_end_matches(['，', '：', '；', '。', '「'])
        .to_string()
}

/// The most important moment of the night's summary `text`, if it has one.
pub(super) fn most_of_all(text: &str) -> Option<&str> {
    let (_, after) = text.split_once(MOST_OF_ALL)?;
    after.split('。').next().filter(|m| !m.is_empty())
}

#[cfg(test)]
mod tests {
    use super::fill;

    #[test]
    fn a_summary_tells_what_was_done_not_the_words_set_out_with() {
        use crate::base::time::GameTime;
        use crate::sim::memory::{Memory, MemoryKind};
        let town = crate::headless::default_scenario();
        let m = |kind, importance, text: &str| Memory {
            time: GameTime(0),
            kind,
            importance,
            text: text.into(),
            last_access: GameTime(0),
            vector: None,
        };
        let plan = "去松林找人说说话：好想找人说说话，不挪地方了，就在松林";
        let entries = [
            m(MemoryKind::Plan, 30, plan),
            m(MemoryKind::Dialogue, 60, "和苏文在柳溪河畔随便聊了聊爱好"),
            m(MemoryKind::Plan, 20, "打算去参加心谷联谊会"),
        ];
        let cx = crate::sim::brain::SummaryContext {
            me: &town.residents[0],
            night: chrono::NaiveDate::from_ymd_opt(2026, 4, 6).expect("a date"),
            entries: &entries,
        };
        let text = super::summary(&cx);
        assert!(text.contains("去松林找人说说话"), "{text}");
        assert!(!text.contains("不挪地方"), "{text}");
        assert!(text.contains("打算去参加心谷联谊会"), "{text}");
        // The words are still the plan's memory: only the summary leaves them out.
        let only_plan = [m(MemoryKind::Plan, 30, plan)];
        let cx = crate::sim::brain::SummaryContext {
            entries: &only_plan,
            ..cx
        };
        assert_eq!(
            super::summary(&cx),
            "4月6日回顾：最难忘的是去松林找人说说话。"
        );
        // The same thing twice is told once.
        let twice = [m(MemoryKind::Plan, 30, plan), m(MemoryKind::Plan, 30, plan)];
        let cx = crate::sim::brain::SummaryContext {
            entries: &twice,
            ..cx
        };
        assert_eq!(
            super::summary(&cx),
            "4月6日回顾：最难忘的是去松林找人说说话。"
        );
    }

    #[test]
    fn gists_keep_whole_clauses() {
        use super::{gist, most_of_all};
        assert_eq!(
            gist("和阿朵在星火酒馆聊工作，聊得很投机"),
            "和阿朵在星火酒馆聊工作，聊得很投机"
        );
        let notice = "在公告板上看到钟大川的公告：「【心谷联谊会】4月8日（星期三）傍晚18:00-21:00，心谷广场老槐树下。」";
        assert_eq!(gist(notice), "在公告板上看到钟大川的公告");
        let plan =
            "去心谷广场参加聚会：说好了要去心谷联谊会，可不能食言。（想起刚才和沈博远的聊天）";
        assert_eq!(
            gist(plan),
            "去心谷广场参加聚会：说好了要去心谷联谊会，可不能食言"
        );
        let skill = "和苏文谈了「关心近况」，了解到心情：不错；近况：最近在整理旧书，挺忙的，还要准备下个月的读书会";
        assert_eq!(
            gist(skill),
            "和苏文谈了「关心近况」，了解到心情：不错；近况：最近在整理旧书，挺忙的"
        );
        // A date's memory: the choice's quotation goes with its sentence.
        let date = "和阿朵在星火酒馆约会，处得很投机，约好了还要再见（钟大川主持，7 轮，38 分，良好）。有一幕我选了「主动打招呼，介绍自己」，阿朵选了「点头回以微笑」，我心里一暖。";
        assert_eq!(
            gist(date),
            "和阿朵在星火酒馆约会，处得很投机，约好了还要再见"
        );
        let text = "4月6日回顾：最难忘的是和马铁为手艺吵了一架，不欢而散。这一天还：打算去参加心谷联谊会。";
        assert_eq!(most_of_all(text), Some("和马铁为手艺吵了一架，不欢而散"));
        assert_eq!(most_of_all("4月6日：平静的一天。"), None);
    }

    #[test]
    fn templates_fill_known_slots_only() {
        let out = fill("{a}和{b}在{c}", &[("a", "甲"), ("b", "乙")]);
        assert_eq!(out, "甲和乙在{c}");
        assert_eq!(fill("no slots", &[]), "no slots");
        assert_eq!(fill("open { only", &[("x", "y")]), "open { only");
    }
}
