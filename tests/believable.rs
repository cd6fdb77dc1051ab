//! Whether the town makes sense when you listen to it, measured from the
//! outside on the event log of 心谷镇 over seeds 1–5 and three days (and a
//! five-day run, and a generated town): lines fit who says them and what is
//! true, replies answer, ties move both ways, days have variety, news
//! spreads with its source, and yesterday is raised today.
//! `scripts/believability.py` prints the same figures for any log.

mod util;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::{NaiveDate, NaiveDateTime};
use heartvale::scenario::Scenario;
use heartvale::scenario::dialogue::fits;
use serde_json::Value;
use util::heartvale;

/// A line's words → who may say them (first person: one's own hobby or
/// trade), as the scenario's personas have them.
const FIRST_PERSON: &[(&str, &[&str])] = &[
    ("吹笛子", &["xiaoxi"]),
    ("修水车的木料", &["ma"]),
    ("新打的这把锄头", &["ma"]),
    ("土壤湿度", &["shen"]),
    ("自动记录温度", &["yue"]),
    ("我新学了一道菜", &["zhong", "adou"]),
    ("图书馆新到了一批", &["su"]),
    ("我在里头画地图", &["xiaoxi"]),
    ("天天泡在田里记数据", &["shen"]),
    ("看病的人不少", &["heqing"]),
    ("天天上山", &["shisong"]),
    ("给爸爸做气象仪", &["yue"]),
    ("我林子里刚采了些", &["shisong"]),
    ("我常在老槐树下唱", &["adou"]),
];
/// What is said only after days apart.
const APART: &[&str] = &["好久不见", "好几天没见", "好几天没好好说话"];
/// What only one who has not eaten lately says.
const HUNGRY: &[&str] = &[
    "饿得心慌",
    "饿坏了",
    "还没呢，正饿着",
    "还没，正要去吃",
    "待会儿去吃",
];
/// What only a guest says of a gathering (钟大川 hosts 心谷联谊会).
const GUEST: &[&str] = &[
    "我打算去凑个热闹",
    "还没想好，到时候看吧",
    "去！好久没这么热闹过了",
    "我肯定去",
    "那天怕是去不了",
    "我就不凑热闹了",
    "那我也去凑个热闹",
    "字写得真工整",
    "你办的我哪能不去",
];
/// Dishes, longest first (汤面 before 汤).
const DISHES: &[&str] = &[
    "汤面",
    "酸梅汤",
    "红烧肉",
    "炖菜",
    "热茶",
    "米酒",
    "包子",
    "烤饼",
    "粥",
    "鱼",
    "面",
    "汤",
    "茶",
];

fn time(e: &Value) -> NaiveDateTime {
    let t = e["time"].as_str().unwrap();
    NaiveDateTime::parse_from_str(t, "%Y-%m-%d %H:%M")
        .or_else(|_| NaiveDateTime::parse_from_str(t, "%Y-%m-%d %H:%M:%S"))
        .unwrap()
}

fn text(e: &Value) -> &str {
    e["text"].as_str().unwrap()
}

fn strs(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect()
}

/// Runs the town and returns its event log.
fn run(args: &[&str]) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("run.jsonl");
    let mut all = vec!["sim", "-q", "--log", log.to_str().unwrap()];
    all.extend_from_slice(args);
    let out = heartvale(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn kind<'a>(ev: &'a [Value], k: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
    ev.iter().filter(move |e| e["kind"] == k)
}

/// Lines that say what is not true of their speaker or the moment.
fn untrue_lines(ev: &[Value]) -> Vec<String> {
    let mut bad = Vec::new();
    let mut last_talk: HashMap<BTreeSet<&str>, NaiveDateTime> = HashMap::new();
    let mut meals: HashMap<&str, Vec<(NaiveDateTime, NaiveDateTime)>> = HashMap::new();
    for e in ev {
        match e["kind"].as_str().unwrap() {
            // A meal counts from a quarter of an hour after arriving (an
            // order on arrival may well be hungry) to two hours after it.
            "plan" if e["activity"] == "eat" => {
                let start = time(e) + chrono::Duration::minutes(15);
                let minutes = e["duration"].as_i64().unwrap() + 30;
                let end = start + chrono::Duration::minutes(minutes);
                meals
                    .entry(e["resident"].as_str().unwrap())
                    .or_default()
                    .push((start, end));
            }
            // The walk to a meal planned this minute comes before it.
            "move" => {
                let walk = chrono::Duration::minutes(e["minutes"].as_i64().unwrap_or(0));
                let planned_now = |m: &&mut (NaiveDateTime, NaiveDateTime)| {
                    m.0 == time(e) + chrono::Duration::minutes(15)
                };
                if let Some(meal) = meals
                    .get_mut(e["resident"].as_str().unwrap())
                    .and_then(|m| m.last_mut())
                    .filter(planned_now)
                {
                    *meal = (meal.0 + walk, meal.1 + walk);
                }
            }
            "conversation_end" => {
                let ps = strs(&e["participants"]);
                for a in &ps {
                    for b in &ps {
                        if a < b {
                            last_talk.insert([*a, *b].into(), time(e));
                        }
                    }
                }
            }
            "message" => {
                let (who, t, line) = (e["speaker"].as_str().unwrap(), time(e), text(e));
                // Recalling what was said (「上回说的…」, 「那天跟你聊…」) is no claim.
                let recalls = ["聊", "上回", "上次"].iter().any(|w| line.contains(w));
                let fits = |(words, may): &&(&str, &[&str])| {
                    !line.contains(words) || may.contains(&who) || recalls
                };
                if !FIRST_PERSON.iter().all(|p| fits(&p)) {
                    bad.push(format!("not {who}'s own: {line}"));
                }
                if APART.iter().any(|w| line.contains(w)) {
                    let recent = strs(&e["participants"]).into_iter().any(|o| {
                        last_talk
                            .get(&[who, o].into())
                            .is_some_and(|&l| t - l < chrono::Duration::hours(24))
                    });
                    if recent {
                        bad.push(format!("{who} met them within a day: {line}"));
                    }
                }
                let ate = meals
                    .get(who)
                    .into_iter()
                    .flatten()
                    .any(|&(s, end)| s <= t && t <= end + chrono::Duration::hours(2));
                if ate && HUNGRY.iter().any(|w| line.contains(w)) {
                    bad.push(format!("{who} has just eaten: {line}"));
                }
                if who == "zhong" && GUEST.iter().any(|w| line.contains(w)) {
                    bad.push(format!("the host speaks as a guest: {line}"));
                }
                let polite = line.contains("劳烦") || line.contains("麻烦");
                if polite && e["emotion"] == "angry" {
                    bad.push(format!("polite words scored as anger: {line}"));
                }
            }
            _ => {}
        }
    }
    bad
}

fn dish_of(line: &str) -> Option<&'static str> {
    // Past the @ of whom one answers; 「给个面子来坐坐」 (an invitation after
    // the tea is served) asks for face, not noodles.
    let line = line.split_once(' ').map_or(line, |(_, rest)| rest);
    let line = line.replace("面子", "");
    DISHES.iter().copied().find(|d| line.contains(d))
}

/// Plan lines that name their speaker (「去苏文的阁楼坐下来」 by 苏文) or go
/// where the speaker already stands (「去柳溪河畔吧」 on the riverbank).
fn plans_out_of_place(ev: &[Value], town: &Scenario) -> Vec<String> {
    let name = |id: &str| town.town.find(id).map(|l| town.town.name(l).to_owned());
    let mut bad = Vec::new();
    for e in kind(ev, "plan") {
        let who = e["resident"].as_str().unwrap();
        let line = e["dialogue"].as_str().unwrap_or("");
        let me = town
            .residents
            .iter()
            .find(|p| p.id.as_str() == who)
            .unwrap();
        // A notice is signed.
        if e["activity"] != "post_notice" && line.contains(me.name()) {
            bad.push(format!("{} names itself: {line}", me.name()));
        }
        let (from, to) = (e["from"].as_str(), e["target_location"].as_str());
        let Some(place) = to.filter(|_| from == to).and_then(name) else {
            continue;
        };
        let home = e["target_location"] == town.town.id(me.home).as_str();
        let going = [format!("去{place}"), format!("回{place}")];
        if going.iter().any(|g| line.contains(g.as_str())) || (home && line.contains("回家")) {
            bad.push(format!("{} is at {place} already: {line}", me.name()));
        }
    }
    bad
}

/// A body that the willow spirit has not: plan lines 「肚子咕咕叫了」
/// 「被窝在召唤我」 (its plan lines were once the same as everyone's), meals
/// (it `eats: false`), and talk of hunger, thirst or soup (its food talk
/// was once everyone's: 「天一凉，就想喝口热乎乎的汤」, 「有酸梅汤吗？渴坏了」).
fn bodily_plans_of_a_spirit(ev: &[Value], town: &Scenario) -> Vec<String> {
    const BODY: [&str; 6] = ["肚子", "被窝", "饿", "饭菜", "填饱", "眼皮"];
    const SAID: [&str; 5] = ["肚子", "饿", "渴", "汤", "一脚泥"];
    let spirits: Vec<&str> = town
        .residents
        .iter()
        .filter(|p| p.has_word("精灵"))
        .map(|p| p.id.as_str())
        .collect();
    assert!(!spirits.is_empty(), "the town has its spirit");
    let plans: Vec<&Value> = kind(ev, "plan")
        .filter(|e| spirits.contains(&e["resident"].as_str().unwrap()))
        .collect();
    let meals = (plans.iter())
        .filter(|e| e["activity"] == "eat")
        .map(|e| format!("the spirit goes for a meal: {}", e["action"]));
    let bodily = (plans.iter())
        .filter_map(|e| e["dialogue"].as_str())
        .filter(|line| BODY.iter().any(|w| line.contains(w)))
        .map(|line| format!("the spirit plans with a body: {line}"));
    let said = kind(ev, "message")
        .filter(|e| spirits.contains(&e["speaker"].as_str().unwrap()))
        .map(text)
        .filter(|line| SAID.iter().any(|w| line.contains(w)))
        .map(|line| format!("the spirit speaks with a body: {line}"));
    meals.chain(bodily).chain(said).collect()
}

/// A meeting opened as if the other had just come in (「等你一会儿了，快坐」,
/// lines with `to_arrived: true`) to one who came to the place more than a
/// quarter hour before (served at the same table, 何青 at 钟大川's).
fn waited_for_one_seated_long(ev: &[Value]) -> Vec<String> {
    let bank = heartvale::scenario::PhraseBank::builtin();
    // Named by their words, not by their conditions: the check must not
    // follow the bank it checks.
    let openings: Vec<&str> = (bank.greetings.appointment.value.iter())
        .map(|l| l.text.as_str())
        .filter(|t| t.contains("等你一会儿了") || t.contains("我还怕你忘了"))
        .collect();
    assert!(!openings.is_empty(), "the bank's waiting openings");
    let mut came: HashMap<&str, (&str, NaiveDateTime)> = HashMap::new();
    let mut bad = Vec::new();
    for e in ev {
        match e["kind"].as_str() {
            Some("arrive") => {
                let who = e["resident"].as_str().unwrap();
                came.insert(who, (e["location"].as_str().unwrap(), time(e)));
            }
            Some("message") if openings.iter().any(|t| fits(t, text(e))) => {
                let speaker = e["speaker"].as_str().unwrap();
                let place = e["location"].as_str().unwrap();
                for p in strs(&e["participants"])
                    .into_iter()
                    .filter(|p| *p != speaker)
                {
                    let fresh = came.get(p).is_some_and(|&(at, when)| {
                        at == place && (time(e) - when).num_minutes() <= 15
                    });
                    if !fresh {
                        bad.push(format!("{} {speaker} to {p}: {}", e["time"], text(e)));
                    }
                }
            }
            _ => {}
        }
    }
    bad
}

/// A gathering asked about (「…你去不去？」) by one of another who heard it
/// asked by them before: talked over once, it is not asked again. The
/// participants of the talk it was first asked in all heard it.
fn gatherings_asked_twice(ev: &[Value]) -> Vec<String> {
    let bank = heartvale::scenario::PhraseBank::builtin();
    let going: Vec<&str> = (bank.storylines.going.value.iter())
        .map(|l| l.text.as_str())
        .collect();
    let mut heard: BTreeSet<(String, String)> = BTreeSet::new();
    let mut bad = Vec::new();
    for e in kind(ev, "message").filter(|e| going.iter().any(|t| fits(t, text(e)))) {
        let speaker = e["speaker"].as_str().unwrap().to_owned();
        for p in strs(&e["participants"])
            .into_iter()
            .filter(|p| *p != speaker)
        {
            if !heard.insert((speaker.clone(), p.to_owned())) && strs(&e["participants"]).len() == 2
            {
                bad.push(format!(
                    "{} {speaker} asked {p} again: {}",
                    e["time"],
                    text(e)
                ));
            }
        }
    }
    bad
}

/// A meeting one did not come to, brought up between the two more than
/// once: once the one who stayed away has said sorry (「今天让你在林间营地白等了，
/// 是我不好」), the one who waited does not ask 「你怎么没来？」 as if it had not.
fn missed_meetings_raised_twice(ev: &[Value]) -> Vec<String> {
    let bank = heartvale::scenario::PhraseBank::builtin();
    let s = &bank.greetings.shared;
    let openings: Vec<&str> = (s.stood_up.value.iter())
        .chain(&s.absent.value)
        .map(|x| x.say.value.as_str())
        .collect();
    // Each missed meeting is learnt by both: two `learned` events.
    let pair = |a: &str, b: &str| (a.min(b).to_owned(), a.max(b).to_owned());
    let mut missed: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut by_text: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for e in kind(ev, "learned").filter(|e| e["fact"] == "stood_up" && e["source"] == "lived") {
        by_text
            .entry(e["text"].as_str().unwrap())
            .or_default()
            .push(e["resident"].as_str().unwrap());
    }
    for who in by_text.values().filter(|w| w.len() == 2) {
        *missed.entry(pair(who[0], who[1])).or_default() += 1;
    }
    let mut raised: BTreeMap<(String, String), usize> = BTreeMap::new();
    for e in kind(ev, "message").filter(|e| openings.iter().any(|t| fits(t, text(e)))) {
        let p = strs(&e["participants"]);
        if p.len() == 2 {
            *raised.entry(pair(p[0], p[1])).or_default() += 1;
        }
    }
    raised
        .into_iter()
        .filter(|(p, n)| *n > missed.get(p).copied().unwrap_or(0))
        .map(|(p, n)| format!("{p:?} raised a missed meeting {n} times"))
        .collect()
}

/// Talk of the sky that the day's sky (or the season) belies: 「雨后天边挂了
/// 道彩虹」 on a dry day, 「这两天太阳晒得人暖洋洋的」 ninety seconds after
/// 「下雨天最适合窝在屋里」, autumn leaves in April. Every banked line with a
/// `weather:` or `season:` condition is looked for in what was said.
fn skies_out_of_turn(ev: &[Value], seed: u64) -> Vec<String> {
    use heartvale::base::weather::{Season, Weather};
    let bank = heartvale::scenario::PhraseBank::builtin();
    let moods = (bank.moods.grumble.value.iter())
        .chain(&bank.moods.sad.value)
        .map(|x| (&x.say.value, &x.cond));
    let skyward: Vec<(&String, &heartvale::scenario::dialogue::Cond)> = (bank.topics.iter())
        .flat_map(|t| &t.exchanges.value)
        .map(|x| (&x.say.value, &x.cond))
        .chain(moods)
        .filter(|(_, c)| !c.weather.is_empty() || !c.season.is_empty())
        .collect();
    assert!(skyward.len() >= 10, "the bank talks of the sky");
    let mut bad = Vec::new();
    for e in kind(ev, "message") {
        let date = time(e).date();
        let (weather, season) = (Weather::of_day(seed, date), Season::of(date));
        for (say, c) in &skyward {
            let wrong = (!c.weather.is_empty() && !c.weather.contains(&weather))
                || (!c.season.is_empty() && !c.season.contains(&season));
            if wrong && text(e).contains(say.as_str()) {
                bad.push(format!("{date} ({weather:?}, {season:?}): {}", text(e)));
            }
        }
    }
    bad
}

/// A question asked back (「吃过了，你呢？」) followed, in its talk, by a line
/// that does not answer it: no reply of any exchange (its own question
/// dropped) and no answer about a gathering.
fn questions_asked_back_unanswered(ev: &[Value]) -> Vec<String> {
    let bank = heartvale::scenario::PhraseBank::builtin();
    let g = &bank.storylines.going_replies;
    let answers: Vec<String> = bank
        .topics
        .iter()
        .flat_map(|t| &t.exchanges.value)
        .chain(&bank.greetings.ask.value)
        .chain(&bank.greetings.family.value)
        .flat_map(|x| &x.replies.value)
        .chain(
            [&g.going, &g.not_going, &g.new, &g.host, &g.asked_again]
                .into_iter()
                .flat_map(|l| &l.value),
        )
        .map(|r| {
            let t = r.text.trim_end();
            let t = t.strip_suffix("你呢？").unwrap_or(t);
            t.trim_end_matches(['，', '。', '！', '？']).to_owned()
        })
        .collect();
    let bare = |t: &str| match t.strip_prefix('@') {
        Some(rest) => rest.split_once(' ').map_or(rest, |(_, r)| r).to_owned(),
        None => t.to_owned(),
    };
    let mut bad = Vec::new();
    for lines in lines_by_talk(ev).values() {
        for pair in lines.windows(2) {
            let (asked, next) = (text(pair[0]), bare(text(pair[1])));
            if !asked.trim_end().ends_with("你呢？") || pair[0]["speaker"] == pair[1]["speaker"]
            {
                continue;
            }
            // A reply may lead a longer line (the answer, then a proposal).
            let line = next.trim_end_matches(['，', '。', '！', '？']);
            let answered = answers
                .iter()
                .any(|a| next.starts_with(a.as_str()) || fits(a, line));
            if !answered {
                bad.push(format!("{asked} → {next}"));
            }
        }
    }
    bad
}

/// News told, or a skill's question asked, about someone who stands at the
/// same place without being in the talk (「别看苏文平时那样…」 with 苏文 on
/// the same riverbank): the one it is about is the first name in the line.
fn talked_about_within_earshot(ev: &[Value], town: &Scenario) -> Vec<String> {
    let n = &town.dialogue.news;
    let news: Vec<&str> = [&n.gathering, &n.quarrel, &n.date, &n.stood_up, &n.hobby]
        .into_iter()
        .flat_map(|l| &l.say.value)
        .map(|l| l.text.as_str())
        .collect();
    let is_news = |line: &str| news.iter().any(|t| fits(t, line));
    // A skill's questions name the partner's ties (「能说说与同事钟大川…」).
    let skills: BTreeSet<u64> = kind(ev, "skill_start")
        .map(|e| e["conversation"].as_u64().unwrap())
        .collect();
    let mut at: HashMap<&str, Option<String>> = town
        .residents
        .iter()
        .map(|p| {
            (
                p.id.as_str(),
                Some(town.town.id(p.home).as_str().to_string()),
            )
        })
        .collect();
    let mut bad = Vec::new();
    for e in ev {
        let who = e["resident"].as_str().unwrap_or("");
        match e["kind"].as_str().unwrap() {
            "move" => {
                at.insert(who, None);
            }
            "arrive" => {
                at.insert(who, e["location"].as_str().map(str::to_owned));
            }
            "message" => {
                let line = text(e);
                let skill = skills.contains(&e["conversation"].as_u64().unwrap());
                if !is_news(line) && !skill {
                    continue;
                }
                let Some(p) = town
                    .residents
                    .iter()
                    .filter_map(|p| line.find(p.name()).map(|at| (at, p)))
                    .min_by_key(|(at, _)| *at)
                    .map(|(_, p)| p)
                else {
                    continue;
                };
                let id = p.id.as_str();
                let here = e["location"].as_str();
                let near = at.get(id).is_some_and(|l| l.as_deref() == here);
                if near && !strs(&e["participants"]).contains(&id) {
                    bad.push(format!("{} stands by: {line}", p.name()));
                }
            }
            _ => {}
        }
    }
    bad
}

/// Customers who, served, take their leave as if they had somewhere to be
/// (「包子马上就好」 → 「我去那头看看，星火酒馆今天人不少。」): they came to eat.
fn customers_hurrying_off(ev: &[Value]) -> Vec<String> {
    const LEAVING: [&str; 7] = [
        "先走",
        "得走了",
        "先撤",
        "不耽误你了",
        "那头看看",
        "走走",
        "改天聊",
    ];
    let work = staff_talks(ev);
    let by_talk = lines_by_talk(ev);
    work.iter()
        .filter_map(|c| by_talk.get(c))
        .filter_map(|lines| Some((lines.first()?, lines.last()?)))
        .filter(|(first, l)| l["speaker"] != first["speaker"])
        .map(|(_, l)| text(l))
        .filter(|t| LEAVING.iter().any(|w| t.contains(w)))
        .map(str::to_owned)
        .collect()
}

/// Goodbyes that say one is going (「走了走了，有事喊我！」) from one who
/// then stays where it is: its next plan comes more than a quarter of an
/// hour later (沈博远 said it and read on in the library for two hours).
fn goodbyes_without_going(ev: &[Value]) -> Vec<String> {
    let bank = heartvale::scenario::PhraseBank::builtin();
    let c = &bank.closings;
    let going: Vec<&str> = [&c.stranger, &c.friend, &c.family]
        .into_iter()
        .flat_map(|l| l.value.iter())
        .filter(|l| l.cond.staying == Some(false))
        .map(|l| l.text.as_str())
        .collect();
    assert!(going.len() >= 10, "the bank marks its goodbyes");
    let mut bad = Vec::new();
    for (k, e) in ev.iter().enumerate() {
        if e["kind"] != "message" || !going.iter().any(|t| fits(t, text(e))) {
            continue;
        }
        let line = text(e);
        let who = &e["speaker"];
        let next = ev[k..]
            .iter()
            .find(|n| n["kind"] == "plan" && n["resident"] == *who)
            .map(time);
        if next.is_some_and(|n| n - time(e) > chrono::Duration::minutes(15)) {
            bad.push(format!("{who} stays on after 「{line}」 at {}", time(e)));
        }
    }
    bad
}

/// Customers who order a dish (or take their usual) within two hours of a
/// meal elsewhere, when they have not come to eat: 「来两个包子就行」 an
/// hour after supper at home.
fn ordering_after_a_meal(ev: &[Value]) -> Vec<String> {
    let bank = heartvale::scenario::PhraseBank::builtin();
    let waiter = &bank.staff.waiter;
    let appetite = Some(heartvale::scenario::dialogue::Feeling::Appetite);
    let food: Vec<&str> = waiter
        .orders
        .value
        .iter()
        .filter(|x| x.cond.feels == appetite)
        .map(|x| x.say.value.as_str())
        .collect();
    assert!(food.len() >= 10, "the bank marks its dishes");
    // Taking the usual is ordering it, when it is a dish (tea is not).
    let usual = waiter.usual.as_ref().expect("the waiter knows regulars");
    let yes: Vec<&str> = usual
        .replies
        .value
        .iter()
        .map(|l| l.text.as_str())
        .collect();
    let drinks: Vec<&str> = waiter
        .orders
        .value
        .iter()
        .filter(|x| x.cond.feels.is_none())
        .filter_map(|x| x.dish.as_deref())
        .collect();
    let mut offered: HashMap<u64, &str> = HashMap::new();
    // Each resident's plan (activity, meal's end) as of now.
    let mut plans: HashMap<&str, (&str, NaiveDateTime)> = HashMap::new();
    let mut last_meal: HashMap<&str, NaiveDateTime> = HashMap::new();
    let mut bad = Vec::new();
    for e in ev {
        match e["kind"].as_str().unwrap() {
            "plan" => {
                let who = e["resident"].as_str().unwrap();
                if let Some(("eat", end)) = plans.get(who) {
                    last_meal.insert(who, (*end).min(time(e)));
                }
                let end = time(e) + chrono::Duration::minutes(e["duration"].as_i64().unwrap());
                plans.insert(who, (e["activity"].as_str().unwrap(), end));
            }
            "message" => {
                let (who, line) = (e["speaker"].as_str().unwrap(), text(e));
                let before = offered.insert(e["conversation"].as_u64().unwrap(), line);
                let here_to_eat = plans.get(who).is_some_and(|p| p.0 == "eat");
                let lately = last_meal
                    .get(who)
                    .is_some_and(|&m| time(e) - m < chrono::Duration::hours(2));
                let a_dish = before.is_some_and(|b| !drinks.iter().any(|d| b.contains(d)));
                let takes = a_dish && yes.iter().any(|y| line.starts_with(y));
                if !here_to_eat && lately && (takes || food.iter().any(|f| line.contains(f))) {
                    bad.push(format!("{who} ate at {}: {line}", last_meal[who]));
                }
            }
            _ => {}
        }
    }
    bad
}

/// Customers who take their leave with a staff member's words (马铁, a
/// smith served at the tavern: 「您慢慢来，不着急。」).
fn customers_speaking_as_staff(ev: &[Value]) -> Vec<String> {
    let bank = heartvale::scenario::PhraseBank::builtin();
    let staff = &bank.closings.staff.value;
    // The one greeted: the staff member opens, the customer is named second.
    let customer: BTreeMap<u64, &Value> = kind(ev, "conversation_start")
        .filter(|e| e["trigger"] == "work")
        .map(|e| (e["conversation"].as_u64().unwrap(), &e["participants"][1]))
        .collect();
    kind(ev, "message")
        .filter(|m| customer.get(&m["conversation"].as_u64().unwrap()) == Some(&&m["speaker"]))
        .map(text)
        .filter(|t| staff.iter().any(|s| fits(&s.text, t)))
        .map(str::to_owned)
        .collect()
}

/// Meetings kept as agreed whose greeting is answered as a chance meeting
/// (「说好的时间，一分不差！」 → 「今天怎么有空过来？」).
fn meetings_answered_as_chance(ev: &[Value]) -> Vec<String> {
    let bank = heartvale::scenario::PhraseBank::builtin();
    let back = &bank.greetings.appointment_back.value;
    let kept: BTreeSet<u64> = kind(ev, "conversation_start")
        .filter(|e| e["trigger"] == "appointment")
        .map(|e| e["conversation"].as_u64().unwrap())
        .collect();
    let by_talk = lines_by_talk(ev);
    kept.iter()
        .filter_map(|c| by_talk.get(c))
        .filter(|lines| lines.len() >= 2 && lines[1]["speaker"] != lines[0]["speaker"])
        .filter(|lines| !back.iter().any(|b| fits(&b.text, text(lines[1]))))
        .map(|lines| format!("{} → {}", text(lines[0]), text(lines[1])))
        .collect()
}

/// Those shown joining a talk (「阿朵 加入了聊天」) who then say nothing in it:
/// two in three did, as talks took joiners on their last line. A quarrel
/// breaking out after one joins may end the talk first.
fn joiners_who_say_nothing(ev: &[Value]) -> Vec<String> {
    let mut spoke: BTreeSet<(u64, &str)> = BTreeSet::new();
    let mut stormed: BTreeSet<u64> = BTreeSet::new();
    let mut joined = Vec::new();
    for e in ev {
        let talk = e["conversation"].as_u64();
        match (e["kind"].as_str().unwrap(), talk) {
            ("conversation_join", Some(c)) => joined.push((c, e["resident"].as_str().unwrap())),
            ("message", Some(c)) => {
                spoke.insert((c, e["speaker"].as_str().unwrap()));
                if e["emotion"] == "angry" {
                    stormed.insert(c);
                }
            }
            // An appointment called someone away: the talk was cut short,
            // as a storming off cuts it.
            ("conversation_end", Some(c)) if e["reason"] == "interrupted" => {
                stormed.insert(c);
            }
            _ => {}
        }
    }
    joined
        .into_iter()
        .filter(|j| !spoke.contains(j) && !stormed.contains(&j.0))
        .map(|(c, who)| format!("{who} joined talk {c} and said nothing"))
        .collect()
}

/// Talks whose second line proposes to meet: the opening ("何青，还是粥？")
/// went unanswered.
fn proposals_answering_the_opening(ev: &[Value]) -> Vec<String> {
    let bank = heartvale::scenario::PhraseBank::builtin();
    let proposals = &bank.storylines.propose.value;
    let by_talk = lines_by_talk(ev);
    by_talk
        .values()
        .filter(|lines| lines.len() >= 2)
        .filter(|lines| {
            let reply = text(lines[1]);
            let reply = reply.split_once(' ').filter(|_| reply.starts_with('@'));
            let reply = reply.map_or(text(lines[1]), |(_, rest)| rest);
            proposals.iter().any(|p| fits(&p.text, reply))
        })
        .map(|lines| format!("{} → {}", text(lines[0]), text(lines[1])))
        .collect()
}

/// Each conversation's lines, in order.
fn lines_by_talk(ev: &[Value]) -> BTreeMap<u64, Vec<&Value>> {
    let mut by_talk: BTreeMap<u64, Vec<&Value>> = BTreeMap::new();
    for m in kind(ev, "message") {
        by_talk
            .entry(m["conversation"].as_u64().unwrap())
            .or_default()
            .push(m);
    }
    by_talk
}

/// The conversations staff opened with a customer.
fn staff_talks(ev: &[Value]) -> BTreeSet<u64> {
    kind(ev, "conversation_start")
        .filter(|e| e["trigger"] == "work")
        .map(|e| e["conversation"].as_u64().unwrap())
        .collect()
}

/// (orders that name a dish, serves that fit them) in staff conversations.
fn serves(ev: &[Value]) -> (usize, usize) {
    let work = staff_talks(ev);
    let by_talk = lines_by_talk(ev);
    let (mut orders, mut fitting) = (0, 0);
    for lines in work.iter().filter_map(|c| by_talk.get(c)) {
        let staff = &lines[0]["speaker"];
        for pair in lines.windows(2) {
            let Some(ordered) = dish_of(text(pair[0])) else {
                continue;
            };
            if &pair[0]["speaker"] == staff || &pair[1]["speaker"] != staff {
                continue;
            }
            orders += 1;
            let served = dish_of(text(pair[1]));
            fitting +=
                usize::from(served.is_none_or(|s| s.contains(ordered) || ordered.contains(s)));
        }
    }
    (orders, fitting)
}

#[test]
fn three_days_in_town_make_sense_on_every_seed() {
    let mut sharp_at_home = Vec::new();
    // Facts passed on by word over all the seeds (one group at the tavern
    // more or less moves a seed's count by three or four).
    let mut told_by_word = 0;
    // Places where talk is common (five talks or more), over all the seeds:
    // two co-workers' chats at the workshop number four to eight a seed, so
    // one seed's count moves with a single line picked differently.
    let mut busy_places = 0;
    let town = heartvale::headless::default_scenario();
    for seed in ["1", "2", "3", "4", "5"] {
        let ev = run(&["--days", "3", "--seed", seed]);
        sharp_at_home.extend(sharp_words_in_the_family(&ev));
        // Each check lists what does not make sense; none may.
        let checks = [
            untrue_lines(&ev),
            plans_out_of_place(&ev, &town),
            bodily_plans_of_a_spirit(&ev, &town),
            questions_asked_back_unanswered(&ev),
            talked_about_within_earshot(&ev, &town),
            customers_hurrying_off(&ev),
            customers_speaking_as_staff(&ev),
            meetings_answered_as_chance(&ev),
            joiners_who_say_nothing(&ev),
            goodbyes_without_going(&ev),
            ordering_after_a_meal(&ev),
            proposals_answering_the_opening(&ev),
            skies_out_of_turn(&ev, seed.parse().unwrap()),
            missed_meetings_raised_twice(&ev),
            gatherings_asked_twice(&ev),
            waited_for_one_seated_long(&ev),
        ];
        for bad in checks {
            assert!(bad.is_empty(), "seed {seed}:\n{}", bad.join("\n"));
        }
        let (orders, fitting) = serves(&ev);
        assert!(
            fitting * 100 >= orders * 95,
            "seed {seed}: {fitting} of {orders} serves fit"
        );

        // Ties: few near the top, and points lost as well as gained.
        let (mut up, mut down) = (0.0, 0.0);
        let mut last: BTreeMap<(&str, &str), (f64, bool)> = BTreeMap::new();
        for e in kind(&ev, "relationship_change") {
            let d = e["new_strength"].as_f64().unwrap() - e["old_strength"].as_f64().unwrap();
            (up, down) = (up + d.max(0.0), down + (-d).max(0.0));
            let pair = (
                e["resident"].as_str().unwrap(),
                e["other"].as_str().unwrap(),
            );
            let family = e["relation"] == "family";
            last.insert(pair, (e["new_strength"].as_f64().unwrap(), family));
        }
        let ties: Vec<f64> = last.values().filter(|t| !t.1).map(|t| t.0).collect();
        let top = ties.iter().filter(|&&s| s >= 95.0).count();
        assert!(
            top * 20 <= ties.len(),
            "seed {seed}: {top} of {} ties ≥ 95",
            ties.len()
        );
        assert!(
            down >= 0.15 * up,
            "seed {seed}: down {down:.0} / up {up:.0}"
        );

        // Days: at most three meals and a snack; talk all over town.
        let mut meals: BTreeMap<(&str, String), usize> = BTreeMap::new();
        for e in kind(&ev, "plan").filter(|e| e["activity"] == "eat") {
            let day = time(e).date().to_string();
            *meals
                .entry((e["resident"].as_str().unwrap(), day))
                .or_default() += 1;
        }
        let most = meals.values().max().copied().unwrap_or(0);
        assert!(most <= 4, "seed {seed}: {most} meals in a day");
        let mut places: BTreeMap<&str, usize> = BTreeMap::new();
        for e in kind(&ev, "conversation_start") {
            *places.entry(e["location"].as_str().unwrap()).or_default() += 1;
        }
        let talks: usize = places.values().sum();
        let tavern = places.get("tavern").copied().unwrap_or(0);
        // The tavern, where staff greet every diner, has held 31–47 % of the
        // talks on these seeds; half would be a town with nowhere else to meet.
        assert!(tavern * 100 <= talks * 50, "seed {seed}: {places:?}");
        let busy = places.values().filter(|&&n| n >= 5).count();
        let anywhere = places.len();
        assert!(busy >= 3 && anywhere >= 6, "seed {seed}: {places:?}");
        busy_places += busy;

        // News: every fact with its source, and some passed on by word.
        let learned: Vec<&Value> = kind(&ev, "learned").collect();
        assert!(
            learned.iter().all(|e| e["source"].is_string()),
            "seed {seed}"
        );
        let told = learned.iter().filter(|e| e["from"].is_string()).count();
        assert!(
            told >= 6,
            "seed {seed}: {told} facts told of {}",
            learned.len()
        );
        told_by_word += told;
    }
    // 14–20 a seed on most seeds; a town where news stopped travelling
    // would have a handful in all.
    assert!(told_by_word >= 60, "{told_by_word} facts told by word");
    // 20–22 over the five seeds (four or five a seed); a town whose talk
    // gathered at the tavern and the square would have ten.
    assert!(
        busy_places >= 19,
        "{busy_places} places where talk is common"
    );
    // A caring mother once snapped 「没劲就回家躺着…烦人」 at her daughter's
    // sigh (4 times over these seeds): family now hear one's temper rarely.
    assert!(sharp_at_home.len() <= 1, "{sharp_at_home:#?}");
}

/// Angry lines between a parent and child talking alone (何青 and 林小溪,
/// 沈博远 and 沈月).
fn sharp_words_in_the_family(ev: &[Value]) -> Vec<String> {
    let families = [["heqing", "xiaoxi"], ["shen", "yue"]];
    kind(ev, "message")
        .filter(|e| e["emotion"] == "angry")
        .filter(|e| {
            let mut who = strs(&e["participants"]);
            who.sort_unstable();
            families.iter().any(|f| {
                let mut f = f.to_vec();
                f.sort_unstable();
                who == f
            })
        })
        .map(|e| format!("{} {}: {}", e["time"], e["speaker"], text(e)))
        .collect()
}

#[test]
fn the_fourth_day_remembers_the_party() {
    let ev = run(&["--days", "5", "--seed", "1"]);
    let start = time(&ev[0]).date();
    let day4: NaiveDate = start + chrono::Duration::days(3);
    let recall: Vec<&str> = kind(&ev, "message")
        .filter(|m| time(m).date() == day4)
        .map(text)
        .filter(|l| {
            ["联谊会", "昨天", "昨晚", "前天"]
                .iter()
                .any(|w| l.contains(w))
        })
        .collect();
    assert!(recall.len() >= 3, "{recall:?}");
    assert!(untrue_lines(&ev).is_empty(), "{:?}", untrue_lines(&ev));
}

#[test]
fn replay_reads_in_chinese() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("run.jsonl");
    let log_s = log.to_str().unwrap();
    let out = heartvale(&["sim", "-q", "--days", "2", "--seed", "2", "--log", log_s]);
    assert!(out.status.success());
    let out = heartvale(&["replay", log_s]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let replay = String::from_utf8(out.stdout).unwrap();
    let start: Value = serde_json::from_str(
        std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let ids: Vec<&str> = strs(&start["residents"])
        .into_iter()
        .chain(strs(&start["places"]))
        .collect();
    let english: Vec<&str> = replay
        .lines()
        .filter(|l| !l.contains(log_s))
        .filter(|l| {
            l.split(|c: char| !c.is_ascii_alphabetic() && c != '_')
                .any(|w| ids.contains(&w))
        })
        .take(5)
        .collect();
    assert!(english.is_empty(), "ids in the replay: {english:#?}");
}

#[test]
fn a_generated_town_talks_about_itself() {
    let ev = run(&["--generate", "200", "--days", "1", "--seed", "1"]);
    let names = strs(&ev[0]["names"]);
    assert!(
        names.iter().all(|n| !n.chars().any(|c| c.is_ascii_digit())),
        "{names:?}"
    );
    let lines: Vec<&str> = kind(&ev, "message").map(text).collect();
    let distinct: BTreeSet<&str> = lines.iter().copied().collect();
    assert!(lines.len() > 500, "{} lines", lines.len());
    assert!(
        distinct.len() * 100 >= lines.len() * 70,
        "{} distinct of {}",
        distinct.len(),
        lines.len()
    );
    let local = [
        "心谷",
        "钟大川",
        "阿朵",
        "林小溪",
        "何青",
        "沈博远",
        "沈月",
        "马铁",
        "苏文",
        "石松",
        "守望精灵",
        "星火酒馆",
        "柳溪",
    ];
    let foreign: Vec<&&str> = lines
        .iter()
        .filter(|l| local.iter().any(|w| l.contains(w)))
        .take(5)
        .collect();
    assert!(foreign.is_empty(), "{foreign:?}");
}
