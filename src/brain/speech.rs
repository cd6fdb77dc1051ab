//! Chinese lines from templates filled with persona, place, time, mood and memory.
//! Templates use `{name}`-style slots; designers can read and extend the tables.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::planner::Candidate;
use super::roll;
use crate::base::time::clock_text;
use crate::scenario::{Gathering, RelationKind, WorkRole};
use crate::sim::brain::{LineContext, PlanContext, SummaryContext, Topic};
use crate::sim::memory::MemoryKind;
use crate::sim::residents::{ActivityKind, Mood, Needs};

const SLEEP: &[&str] = &[
    "{period}了，该回{home}睡觉了。",
    "{mood}今天就到这儿吧，明天还有事要做。",
    "困了困了，{home}的床在召唤我。",
];
const WORK: &[&str] = &[
    "{mood}到{place}开工了。",
    "{period}好！{place}的活儿可不等人。",
    "又是充实的一天，先把{place}的事情做好。",
];
const EAT: &[&str] = &[
    "{meal}时间到了，去{place}吃点东西。",
    "{mood}先填饱肚子再说。",
    "{place}的饭菜香味好像已经飘过来了。",
];
const SOCIAL_FRIEND: &[&str] = &[
    "去{place}找{friend}聊聊天。",
    "好久没和{friend}好好说话了，去{place}看看。",
    "{friend}应该在{place}，过去打个招呼。",
];
const SOCIAL: &[&str] = &[
    "去{place}转转，说不定能碰到熟人。",
    "{mood}想找人说说话，去{place}吧。",
];
const ATTEND: &[&str] = &[
    "{title}要开始了，去{place}！",
    "说好了要去{title}，可不能食言。",
];
const HOST: &[&str] = &[
    "{title}就要开始了，得先去{place}把场子布置好！",
    "大家快来{place}，{title}开始啦！",
];
const LEISURE: &[&str] = &[
    "{mood}去{place}放松一下。",
    "难得有空，去{place}走走。",
    "{period}的{place}应该很舒服。",
];
const HOME: &[&str] = &["回{home}歇会儿，泡杯茶。", "{period}了，回家看看书。"];
const IDLE: &[&str] = &["在{place}四处看看。", "{mood}先在{place}待一会儿。"];
const REST: &[&str] = &["{mood}躺一会儿，缓缓神。", "歇口气再说。"];
const REPLY_GREET: &[&str] = &[
    "{period}好，{you}！",
    "是{you}啊，{period}好！",
    "哟，{you}，真巧。",
];

const OPEN_STRANGER: &[&str] = &[
    "你好，我是{me}，在镇上做{job}。{period}好！",
    "{period}好！以前好像没怎么说过话，我是{me}。",
];
const OPEN_FRIEND: &[&str] = &[
    "嘿，{you}！{period}好，在{place}碰到你真巧。",
    "{you}！正想找你呢。",
    "{period}好啊{you}，最近怎么样？",
];
const OPEN_FAMILY: &[&str] = &["{you}，你也在{place}呀。", "{you}，吃过饭了吗？"];
const REPLY_WARM: &[&str] = &[
    "真的吗？多讲讲！",
    "嗯，我也一直这么想。",
    "哈哈，你说得对。",
    "好主意，算我一个。",
];
const REPLY_COOL: &[&str] = &["是吗……我倒不太这么看。", "嗯，也许吧。", "我还得再想想。"];
const CLOSE: &[&str] = &["那我先忙了，回头见！", "改天再聊！", "好，下次再说，保重！"];
const PROPOSE: &[&str] = &[
    "{you}，{when}在{place}见怎么样？我请你喝一杯。",
    "下次接着聊！{when}在{place}碰个头？",
];
const ACCEPT: &[&str] = &[
    "好啊，{when}{place}见，不见不散！",
    "一言为定，{when}我去{place}找你。",
];
const GREET_WAITER: &[&str] = &[
    "欢迎光临，{you}！{period}想吃点什么？",
    "{you}来啦！快坐，今天的炖菜刚出锅。",
];
const GREET_TEACHER: &[&str] = &[
    "{you}，今天的功课带来了吗？有不懂的尽管问。",
    "来得正好，{you}，我给你留了一本好书。",
];
const GREET_SELLER: &[&str] = &[
    "{you}，看看要点什么？新打的工具很结实。",
    "欢迎，{you}！需要修点什么吗？",
];
const ANGRY: &[&str] = &[
    "烦死了，今天什么都不顺。",
    "别跟我提这个，真讨厌。",
    "什么鬼天气，气死我了。",
];
const SNAP_BACK: &[&str] = &[
    "你冲我发什么火？真讨厌，我走了。",
    "好好说话行不行，烦不烦啊。不聊了！",
];
const SOOTHE: &[&str] = &["别急，慢慢说，我听着呢。", "消消气，先歇一会儿吧。"];
const SAD: &[&str] = &[
    "唉，最近总是睡不好，有点难过。",
    "可惜啊，好多事都来不及做。",
];
const DEEP: &[&str] = &[
    "说实话，我心里一直有个梦想，只跟你说过。",
    "其实我有时候也害怕，不知道人生该往哪儿走。",
];
const GOSSIP: &[&str] = &[
    "听说了吗？{place}最近要来个新面孔。",
    "你知道吗？据说旧矿洞里又有人看到亮光了。",
];
const HELP: &[&str] = &[
    "你看着有点累，需要帮忙吗？交给我吧。",
    "有什么活儿我帮你一把，别客气。",
];
const PLANS: &[&str] = &[
    "我打算下个月把屋顶修一修，你有什么计划？",
    "{you}，你准备什么时候出去走走？",
];
const INVITE: &[&str] = &[
    "对了，{when}在{place}有{title}，你一定要来！",
    "{when}{place}有{title}，大家都去，你也来吧！",
];
const ADDRESS: &[&str] = &[
    "各位，欢迎来{title}！今晚{place}热闹了，大家吃好喝好，多认识认识！",
    "大家静一静！谢谢各位赏光来{title}，有吃有喝，千万别客气！",
];
const THANK_HOST: &[&str] = &[
    "谢谢{you}张罗，这{title}办得真热闹！",
    "{you}辛苦了！好久没这么多人聚在一起了。",
    "来啦！{you}，今天的吃食闻着就香。",
];
const TOPIC_LINES: &[(&str, &[&str])] = &[
    (
        "科学",
        &[
            "今天田里的土壤湿度又变了，数据很有意思。",
            "你知道吗？麦子的根能扎到一米多深。",
            "我在想，能不能做个装置自动记录温度？",
        ],
    ),
    (
        "探险",
        &[
            "旧矿洞深处好像还有条没走过的岔路。",
            "下次探险带上你，敢不敢？",
        ],
    ),
    (
        "美食",
        &[
            "今天的炖菜火候刚好，你尝了吗？",
            "我新学了一道菜，改天做给你吃。",
            "酒馆新酿的米酒有股桂花香，好喝！",
            "要是有新鲜的蘑菇，晚上能煮一锅好汤。",
        ],
    ),
    (
        "书",
        &[
            "最近在读一本讲星星的书，太美了。",
            "图书馆新来了一批旧书，你去看了吗？",
        ],
    ),
    (
        "音乐",
        &[
            "我在练一首新曲子，还差一点点。",
            "晚上在河边吹笛子，回声特别好听。",
        ],
    ),
    (
        "草药",
        &[
            "林子里的薄荷长出来了，泡茶正好。",
            "这种草能止血，出门记得带一点。",
        ],
    ),
];
const TOPIC_GENERIC: &[&str] = &[
    "说到{topic}，我最近有个新想法。",
    "最近一直在琢磨{topic}的事。",
    "{topic}这件事，你怎么看？",
];

fn pick<'a>(rng: &mut ChaCha8Rng, table: &'a [&'a str]) -> &'a str {
    table[rng.random_range(0..table.len())]
}

/// Fills `{slot}`s from `slots` in one pass; unknown slots are left as they are.
fn fill(template: &str, slots: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 32);
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
    out
}

/// How a mood colours the start of a line the resident says.
fn mood(needs: &Needs) -> &'static str {
    match needs.mood() {
        Mood::Tired => "有点累了，",
        Mood::Hungry => "肚子咕咕叫，",
        Mood::Lonely => "好想找人说说话，",
        Mood::Bored => "有点闷，",
        Mood::Lively => "精神不错，",
        Mood::Calm => "",
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
    if let Some(line) = &c.line
        && rng.random_bool(0.6)
    {
        return line.clone();
    }
    let me = cx.me;
    let gathering = c.gathering.and_then(|g| cx.gatherings.get(g));
    let table = match c.kind {
        ActivityKind::Sleep => SLEEP,
        ActivityKind::Work => WORK,
        ActivityKind::Eat => EAT,
        ActivityKind::Socialise if c.friend.is_some() => SOCIAL_FRIEND,
        ActivityKind::Socialise => SOCIAL,
        ActivityKind::Attend if gathering.is_some_and(|g| g.organiser == me.id) => HOST,
        ActivityKind::Attend => ATTEND,
        ActivityKind::Leisure if c.target == me.home => HOME,
        ActivityKind::Leisure => LEISURE,
        ActivityKind::Idle if c.action.is_rest() => REST,
        ActivityKind::Idle | ActivityKind::PostNotice => IDLE,
    };
    let friend = c.friend.map_or("", |f| cx.roster.name_of(f));
    let mut line = fill(
        pick(rng, table),
        &[
            ("period", cx.now.period()),
            ("home", cx.town.name(me.home)),
            ("place", cx.town.name(c.target)),
            ("mood", mood(cx.needs)),
            ("meal", meal_zh(cx.now.minute_of_day(), me.wake)),
            ("friend", friend),
            ("title", gathering.map_or("聚会", |g| g.title.as_str())),
        ],
    );
    // The first plan after waking recalls the night's summary of yesterday.
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
        .and_then(|m| m.text.split_once('：').map(|(_, rest)| rest))
        .and_then(|rest| rest.split('；').next())
        .map(|first| first.chars().skip(6).take(20).collect::<String>());
    if woke && let Some(moment) = yesterday.filter(|m| !m.is_empty()) {
        line.push_str(&format!("（想起昨天：{moment}……）"));
        return line;
    }
    // Now and then a thought about a recent conversation or the resident's motto.
    let recent_talk = cx
        .relationships
        .0
        .iter()
        .filter_map(|r| r.last_interaction.map(|t| (t, &r.with)))
        .filter(|(t, _)| t.minutes_until(cx.now) < 360)
        .max_by_key(|(t, _)| *t);
    match rng.random_range(0..10) {
        0..=1 if recent_talk.is_some() => {
            let who = cx.roster.name(recent_talk.expect("checked").1);
            line.push_str(&format!("（想起刚才和{who}的聊天）"));
        }
        2 if !me.quote.is_empty() && c.kind != ActivityKind::Sleep => {
            line.push_str(&me.quote);
        }
        _ => {}
    }
    line
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

/// One line of a conversation. A closing line ends with `[END]`.
pub(super) fn conversation_line(cx: &LineContext<'_>) -> String {
    let closing = cx.turn >= 1 && cx.turn + 1 >= cx.lines;
    let mut line = compose(cx, closing);
    if let Some(who) = cx.mention
        && !line.contains('@')
    {
        line = format!("@{who} {line}");
    }
    if closing && !line.ends_with("[END]") {
        line.push_str("[END]");
    }
    line
}

/// Deterministic rolls per speaker, moment and turn, one per purpose (`salt`),
/// so the same conversation reads the same and choices do not bias each other.
struct Dice<'a> {
    cx: &'a LineContext<'a>,
}

impl Dice<'_> {
    fn roll(&self, salt: u64) -> f32 {
        let cx = self.cx;
        roll(
            cx.seed,
            cx.speaker.id.as_str(),
            cx.now.0,
            cx.turn as u64 * 64 + salt,
        )
    }

    fn pick(&self, table: &'static [&'static str], salt: u64) -> &'static str {
        let i = (self.roll(salt) * table.len() as f32) as usize;
        table[i.min(table.len() - 1)]
    }
}

/// The line for this turn: a storyline line (an invitation, a proposal, its
/// acceptance), an opening, a reply to the greeting, or the middle of a talk.
fn compose(cx: &LineContext<'_>, closing: bool) -> String {
    let dice = Dice { cx };
    if let Some(line) = storyline(cx, &dice).or_else(|| hosting(cx, &dice)) {
        return line;
    }
    match cx.turn {
        0 => opening(cx, &dice),
        1 => fill(
            dice.pick(REPLY_GREET, 1),
            &[
                ("period", cx.now.period()),
                ("you", cx.listener.name.as_str()),
            ],
        ),
        _ => middle(cx, &dice, closing),
    }
}

/// An invitation to a gathering, a proposal to meet, or its acceptance.
fn storyline(cx: &LineContext<'_>, dice: &Dice) -> Option<String> {
    let take = |t: &'static [&'static str]| dice.pick(t, 1);
    let you = cx.listener.name.as_str();
    if let (Some(g), Some(place)) = (cx.inviting, cx.inviting_place) {
        let when = format!(
            "{}月{}日{}",
            chrono::Datelike::month(&g.starts.date()),
            chrono::Datelike::day(&g.starts.date()),
            clock_text(g.starts.minute_of_day())
        );
        let values = [
            ("when", when.as_str()),
            ("place", place),
            ("title", &g.title),
        ];
        return Some(fill(take(INVITE), &values));
    }
    if let Some((place, when)) = cx.proposing {
        let values = [("place", place), ("when", when), ("you", you)];
        return Some(fill(take(PROPOSE), &values));
    }
    let (place, when) = cx.accepting?;
    Some(fill(take(ACCEPT), &[("place", place), ("when", when)]))
}

/// At a gathering: the organiser's address to the guests, and a guest's
/// thanks answering it.
fn hosting(cx: &LineContext<'_>, dice: &Dice) -> Option<String> {
    let g = cx.hosting?;
    let table = if cx.turn == 0 {
        ADDRESS
    } else if cx.listener.id == g.organiser && cx.turn <= cx.others.len() as u32 + 1 {
        THANK_HOST
    } else {
        return None;
    };
    let values = [
        ("title", g.title.as_str()),
        ("place", cx.place.name.as_str()),
        ("you", cx.listener.name.as_str()),
    ];
    Some(fill(dice.pick(table, 1), &values))
}

/// The first line: staff greet in their role; family, strangers met for
/// the first time, and everyone else open in their own ways.
fn opening(cx: &LineContext<'_>, dice: &Dice) -> String {
    let kind = cx
        .relation
        .map(|r| r.kind)
        .unwrap_or(RelationKind::Stranger);
    let first_meeting = cx.relation.is_none_or(|r| r.interactions == 0);
    let table = match (cx.role, kind) {
        (Some(WorkRole::Waiter), _) => GREET_WAITER,
        (Some(WorkRole::Teacher), _) => GREET_TEACHER,
        (Some(WorkRole::Seller), _) => GREET_SELLER,
        (None, RelationKind::Family) => OPEN_FAMILY,
        (None, RelationKind::Stranger) if first_meeting => OPEN_STRANGER,
        _ => OPEN_FRIEND,
    };
    fill(
        dice.pick(table, 1),
        &[
            ("me", &cx.speaker.name),
            ("job", &cx.speaker.occupation),
            ("period", cx.now.period()),
            ("you", cx.listener.name.as_str()),
            ("place", &cx.place.name),
        ],
    )
}

/// Past the greetings: a snapped line answered in kind by the prickly (who
/// then walk off) and smoothed over by the rest; the close; else moods
/// colour the talk: tempers fray with low agreeableness, more so when tired,
/// hungry or among strangers; the anxious sigh; close friends open up;
/// acquaintances pass on news.
fn middle(cx: &LineContext<'_>, dice: &Dice, closing: bool) -> String {
    let take = |t: &'static [&'static str]| dice.pick(t, 1);
    let me = &cx.speaker.personality;
    if ANGRY.contains(&cx.previous) {
        return if me.agreeableness < 70.0 {
            format!("{}[END]", take(SNAP_BACK))
        } else {
            take(SOOTHE).to_string()
        };
    }
    if closing {
        return take(CLOSE).to_string();
    }
    let worn = cx.needs.is_some_and(|n| n.energy < 35.0 || n.hunger < 30.0);
    let cool = cx.relation.is_none_or(|r| r.strength < 15.0);
    let temper = (100.0 - me.agreeableness) / 100.0
        * (0.15 + if worn { 0.35 } else { 0.0 } + if cool { 0.2 } else { 0.0 });
    let mood = dice.roll(2);
    if mood < temper {
        return take(ANGRY).to_string();
    }
    if me.neuroticism > 55.0 && mood > 0.8 {
        return take(SAD).to_string();
    }
    if cx.turn % 2 == 1 && dice.roll(3) < 0.45 {
        // Answer the previous line; warmth follows agreeableness.
        let table = if me.agreeableness < 35.0 {
            REPLY_COOL
        } else {
            REPLY_WARM
        };
        return take(table).to_string();
    }
    let strength = cx.relation.map_or(0.0, |r| r.strength);
    match dice.roll(4) {
        x if x < 0.1 && strength >= 60.0 => take(DEEP).to_string(),
        x if x < 0.2 => fill(take(GOSSIP), &[("place", &cx.place.name)]),
        x if x < 0.3 && cx.needs.is_some_and(|n| n.energy < 50.0) => take(HELP).to_string(),
        x if x < 0.4 => fill(take(PLANS), &[("you", cx.listener.name.as_str())]),
        _ => topic_line(cx, dice.roll(5)),
    }
}

fn topic_line(cx: &LineContext<'_>, r: f32) -> String {
    let shared = cx
        .speaker
        .topics
        .iter()
        .find(|t| cx.listener.topics.contains(t))
        .or(cx.speaker.topics.first());
    let topic = match cx.topic {
        Topic::Interest => shared.map_or("最近的事", String::as_str),
        other => other.label(),
    };
    if let Some((_, lines)) = TOPIC_LINES.iter().find(|(k, _)| topic.contains(k)) {
        return lines[((r * lines.len() as f32) as usize).min(lines.len() - 1)].to_string();
    }
    let t = TOPIC_GENERIC[((r * TOPIC_GENERIC.len() as f32) as usize).min(TOPIC_GENERIC.len() - 1)];
    fill(t, &[("topic", topic)])
}

/// Extractive summary: the most important moments of the day, in time order.
pub(super) fn summary(cx: &SummaryContext<'_>) -> String {
    let mut ranked: Vec<(usize, &crate::sim::memory::Memory)> =
        cx.entries.iter().enumerate().collect();
    ranked.sort_by(|a, b| b.1.importance.cmp(&a.1.importance).then(a.0.cmp(&b.0)));
    ranked.truncate(4);
    ranked.sort_by_key(|(i, _)| *i);
    let parts: Vec<String> = ranked
        .iter()
        .map(|(_, m)| {
            let t: String = m.text.chars().take(36).collect();
            format!("{} {t}", clock_text(m.time.minute_of_day()))
        })
        .collect();
    if parts.is_empty() {
        format!("{}：平静的一天。", cx.night)
    } else {
        format!("{}回顾：{}", cx.night, parts.join("；"))
    }
}

#[cfg(test)]
mod tests {
    use super::fill;

    #[test]
    fn templates_fill_known_slots_only() {
        let out = fill("{a}和{b}在{c}", &[("a", "甲"), ("b", "乙")]);
        assert_eq!(out, "甲和乙在{c}");
        assert_eq!(fill("no slots", &[]), "no slots");
        assert_eq!(fill("open { only", &[("x", "y")]), "open { only");
    }
}
