//! What a player's message does: the facts it states about the player, the
//! question it asks (to recall something of the player, about the one
//! asked, or anything else), the feeling it shares, and the small acts
//! (greeting, goodbye, thanks, forgiving, blaming, missing). Read offline,
//! clause by clause, so that a question never states a fact
//! (「你还记得我叫什么吗？」 names nobody).

mod ask;
mod correct;
mod state;
mod words;

use serde::{Deserialize, Serialize};

pub use ask::{Question, Topic, liked_thing};
pub use correct::quits;
pub use state::{CALL_ME, GRADE_OF, MAJOR, Stated, WAS, bare_name};
pub use words::{Weather, choice, doubts_self, drops_topic, missed_relative, offers};

use super::facts::FactKind;

/// Something a message does, as key moments name it in `on:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Act {
    /// Says hello.
    Greets,
    /// Takes leave.
    Goodbye,
    /// Thanks.
    Thanks,
    /// States something about the player.
    Tells,
    /// Gives a name to be called by.
    TellsName,
    /// Shares how they feel.
    Feels,
    /// Asks the one spoken to to remember something of the player.
    AsksRecall,
    /// Asks about the one spoken to.
    AsksAboutYou,
    /// Asks why.
    AsksWhy,
    /// Any other question.
    Asks,
    /// Forgives (没关系, 不怪你).
    Forgives,
    /// Blames (都怪你, 你又错了).
    Blames,
    /// Misses the one spoken to, or notes the time apart.
    Misses,
    /// Says they like or love the one spoken to.
    Confesses,
    /// Asks for help.
    NeedsHelp,
}

/// A feeling the player shared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Feeling {
    /// Whether it is a good one.
    pub good: bool,
    /// The word that names it (累, 开心).
    pub word: String,
    /// The clause it was said in, in the second person (你最近压力好大).
    pub clause: String,
}

/// What a message does.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Said {
    /// Its acts, in a fixed order.
    pub acts: Vec<Act>,
    /// What it states about the player.
    pub facts: Vec<Stated>,
    /// The question it asks, if any (the last asked).
    pub question: Option<Question>,
    /// The feeling it shares, if any.
    pub feeling: Option<Feeling>,
    /// Its clauses, for a reply that names what was said.
    pub clauses: Vec<String>,
    /// Names it takes back (我不叫小雨).
    pub retracts: Vec<String>,
    /// Other facts it says are not so (我其实不是老师了, 年糕不是橘猫).
    pub wrong: Vec<Stated>,
    /// The weather it speaks of (天气真好, 下雨了).
    pub weather: Option<Weather>,
}

impl Said {
    /// Whether it does `act`.
    pub fn does(&self, act: Act) -> bool {
        self.acts.contains(&act)
    }

    /// The kinds a recall question asks about (empty: anything it knows).
    pub fn recall_kinds(&self) -> Option<&[FactKind]> {
        match &self.question {
            Some(Question::Recall(kinds)) => Some(kinds),
            _ => None,
        }
    }
}

/// What memory search looks for when `message` asks to recall something
/// of the player: the message, and the labels its facts are kept under
/// (「我是干什么的来着」 looks for 职业 too), matching [`fact_tags`].
pub fn search_text(message: &str) -> String {
    let said = read(message);
    let Some(kinds) = said.recall_kinds() else {
        return message.to_string();
    };
    let all = [FactKind::Name, FactKind::Job, FactKind::Home, FactKind::Pet];
    let kinds = if kinds.is_empty() { &all[..] } else { kinds };
    let mut text = message.to_string();
    for k in kinds {
        text.push(' ');
        text.push_str(if *k == FactKind::Name {
            "名字 称呼"
        } else {
            k.label()
        });
    }
    text
}

/// The labels a told message is remembered with (「（职业：护士；宠物：橘猫「豆包」）」),
/// so a recall question finds it by what it asks for.
pub fn fact_tags(facts: &[crate::companion::PlayerFact]) -> String {
    let mut known = crate::companion::PlayerFacts::default();
    for f in facts {
        known.learn(f.clone());
    }
    let lines = known.profile_lines();
    if lines.is_empty() {
        String::new()
    } else {
        format!("（{}）", lines.join("；"))
    }
}

/// Reads a message that follows one telling of a relative or friend
/// (`told_of`: 男朋友): 「他是个程序员」 goes on about them, as
/// 「我男朋友是个程序员」 would.
pub fn read_after(message: &str, told_of: Option<&str>) -> Said {
    let of_them = told_of.and_then(|who| {
        let rest = message.trim_start().strip_prefix(['他', '她'])?;
        (!rest.starts_with('们') && !rest.is_empty()).then(|| format!("我{who}{rest}"))
    });
    read(of_them.as_deref().unwrap_or(message))
}

/// Whether a relative's fact tells their trade (是个程序员, 在医院上班).
pub fn tells_trade(value: &str) -> bool {
    let v = value.trim_end_matches(['。', '了', '的']);
    let trade = v
        .split(['，', ','])
        .next()
        .unwrap_or(v)
        .trim_start_matches(['是', '当', '做'])
        .trim_start_matches(['一', '个', '名', '位']);
    state::JOB_ENDS.iter().any(|e| trade.ends_with(e)) || v.ends_with("上班")
}

/// Whether a message tells that something is over (「北京的会开完了」): a
/// plan for a day still ahead came early.
pub fn tells_done(message: &str) -> bool {
    [
        "完了",
        "结束了",
        "回来了",
        "去过了",
        "见过了",
        "完成了",
        "办成了",
        "考完",
        "讲完",
        "开完",
    ]
    .iter()
    .any(|w| message.contains(w))
        && !["还没", "没完", "不完"].iter().any(|w| message.contains(w))
}

/// Whether news tells of something gone well (医生说恢复得不错).
pub fn is_good_news(value: &str) -> bool {
    value
        .split(['，', ','])
        .any(|part| words::feeling(part).is_some_and(|f| f.good))
}

/// Whether news of someone is trouble (身体不太好, 腿脚不方便, 住院了): asked
/// after on a later day.
pub fn is_trouble(value: &str) -> bool {
    const TROUBLE: &[&str] = &[
        "不太好",
        "不方便",
        "生病",
        "病了",
        "住院",
        "疼",
        "不舒服",
        "摔",
        "手术",
    ];
    TROUBLE.iter().any(|w| value.contains(w))
        || (value.split(['，', ','])).any(|p| words::feeling(p).is_some_and(|f| !f.good))
}

/// Whether a plan is a matter of health (去医院复查, 做手术): no treat.
pub fn is_health(value: &str) -> bool {
    [
        "医院",
        "复查",
        "看病",
        "手术",
        "体检",
        "检查",
        "住院",
        "看医生",
        "拔牙",
        "打针",
    ]
    .iter()
    .any(|w| value.contains(w))
}

/// Whether a fact tells of a death (老伴去年走了).
pub fn is_loss(value: &str) -> bool {
    ["去世", "过世", "走了", "不在了", "离开了我们"]
        .iter()
        .any(|w| value.contains(w))
}

/// A message's question so far, and another of its clauses that asks.
fn joined(before: Option<Question>, q: Question) -> Question {
    match (before, q) {
        // 「我是哪里人，你还记得吗」: one recall, of what either clause names.
        (Some(Question::Recall(mut a)), Question::Recall(b)) => {
            for k in b {
                if !a.contains(&k) {
                    a.push(k);
                }
            }
            Question::Recall(a)
        }
        (Some(Question::Recall(a)), _) => Question::Recall(a),
        // 「给我点建议吗？怎么才能让师傅对我改观？」: still advice.
        (Some(Question::Advice), _) => Question::Advice,
        (_, q) => q,
    }
}

/// Reads a message.
pub fn read(message: &str) -> Said {
    let clauses = words::clauses(message);
    let mut said = Said::default();
    let mut last_pet: Option<String> = None;
    // Clauses that state something other than a worry or a plan: not part
    // of one told around them (「我在城里做程序员，最近压力有点大」).
    let mut other_news = vec![false; clauses.len()];
    for (k, c) in clauses.iter().enumerate() {
        if c.question && words::calls_out(&c.text) {
            continue;
        }
        // 「你觉得我是不是很没用？」 asks for comfort, not for an opinion.
        if c.question
            && let Some(f) = words::feeling(&c.text).filter(words::doubts_self)
        {
            said.feeling.get_or_insert(f);
            continue;
        }
        if c.question {
            said.question = Some(joined(said.question.take(), ask::question(&c.text)));
            continue;
        }
        said.retracts.extend(state::retracted_name(&c.text));
        said.wrong.extend(correct::taken_back(&c.text));
        // 「年糕不是橘猫，是一只白猫」: the pet, as it really is.
        if let Some(pet) = said.wrong.iter().rev().find(|w| w.kind == FactKind::Pet)
            && let Some(right) = correct::pet_instead(&c.text, pet)
        {
            said.facts.push(right);
            continue;
        }
        // 「我有个妹妹，在上大学」: a clause with no one named after a relative
        // is said of them, not of the player.
        if let Some(of) = said.facts.last().filter(|f| of_relative(f, &c.text)) {
            let said_of = c.text.trim_start_matches(['她', '他']);
            let fact = Stated::new(of.kind, &of.about, &state::to_you(said_of));
            said.facts.push(fact);
            other_news[k] = true;
            continue;
        }
        // 「我家有条金毛，叫可乐，八岁了」: the dog is eight, not the player.
        let after_other = said
            .facts
            .last()
            .is_some_and(|f| matches!(f.kind, FactKind::Pet | FactKind::Family | FactKind::Person));
        let mut stated = facts_of(&c.text, &mut last_pet);
        if after_other && !c.text.contains('我') {
            stated.retain(|f| f.kind != FactKind::Age);
        }
        other_news[k] = stated
            .iter()
            .any(|f| !matches!(f.kind, FactKind::Worry | FactKind::Plan));
        said.facts.extend(stated);
        if said.feeling.is_none() {
            said.feeling = words::feeling(&c.text);
        }
    }
    // 「我昨天跟你说的烦恼，你还记得吗？」: the recall asks for what the
    // statement before it names.
    if let Some(Question::Recall(kinds)) = &mut said.question
        && kinds.is_empty()
    {
        *kinds = ask::kinds_in(message);
    }
    said.facts.extend(birthday_apart(&clauses, &said.facts));
    // 「我包的饺子，邻居都说好吃」: praise of the player's work, not news
    // of the neighbours.
    said.facts.retain(|f| {
        !(matches!(f.kind, FactKind::Family | FactKind::Person) && f.value.starts_with("都说"))
    });
    said.facts = merged(said.facts, &clauses, &other_news);
    said.clauses = clauses.into_iter().map(|c| c.text).collect();
    said.acts = acts(message, &said);
    said.weather = words::weather(message);
    said
}

/// Whether `clause`, coming after `fact`, goes on about the relative or
/// friend `fact` told of: it names no one else (or starts with 她/他) and
/// is no feeling or worry of the player's (「我妈住院了，好担心」).
fn of_relative(fact: &Stated, clause: &str) -> bool {
    if !matches!(fact.kind, FactKind::Family | FactKind::Person) {
        return false;
    }
    // 「我老伴前年走了，现在一个人住」: the one who lives alone is the player.
    if is_loss(&fact.value) && !clause.starts_with(['她', '他']) {
        return false;
    }
    let theirs = clause.starts_with(['她', '他'])
        || !['我', '你', '他', '她', '它']
            .iter()
            .any(|p| clause.contains(*p));
    // 「上个月住院了」 is news of them; 「好担心」 is the player's, but
    // 「说腿好多了」 and 「他说下个月给我加工资」 are what they said or how they are.
    let news = clause.starts_with('说') || words::news_of_others(clause);
    let theirs = theirs || (news && !clause.starts_with('我'));
    theirs
        && (news || words::named_feeling(clause).is_none())
        && !state::worries(clause)
        && state::facts(clause, &mut None).is_empty()
}

/// The facts a statement clause states. A clause with no subject is the
/// player's own (「外卖员」, 「养狗」, 「老伴去年走了」): read as 我… or 我是…, but
/// a bare 「叫旺财」 names no player.
fn facts_of(clause: &str, last_pet: &mut Option<String>) -> Vec<Stated> {
    // 「虽然是成都人」: the link word is no part of what is told (not a home
    // town 「虽然是成都」).
    let clause = LINKS
        .iter()
        .find_map(|w| clause.strip_prefix(w))
        .filter(|rest| !rest.is_empty())
        .unwrap_or(clause);
    // 「这几天女儿回来了」: news of the player's own, as 「我女儿这几天回来了」.
    if let Some(mine) = relative_first(clause) {
        return state::facts(&mine, last_pet);
    }
    let found = state::facts(clause, last_pet);
    let subject = ['我', '你', '他', '她', '它']
        .iter()
        .any(|p| clause.contains(*p));
    if !found.is_empty() || subject {
        return found;
    }
    let mine = |f: &Stated| f.kind != FactKind::Name;
    let as_mine: Vec<Stated> = state::facts(&format!("我{clause}"), last_pet)
        .into_iter()
        .filter(mine)
        .collect();
    if !as_mine.is_empty() {
        return as_mine;
    }
    state::facts(&format!("我是{clause}"), last_pet)
        .into_iter()
        .filter(|f| matches!(f.kind, FactKind::Job | FactKind::Home))
        .collect()
}

/// A clause that opens with when, then a relative (「这几天女儿回来了」), as
/// the player's relative's news (「我女儿这几天回来了」).
fn relative_first(clause: &str) -> Option<String> {
    const WHEN: &[&str] = &[
        "这几天",
        "前几天",
        "这两天",
        "昨天",
        "今天",
        "前天",
        "上周",
        "上个月",
        "最近",
        "刚才",
        "周末",
    ];
    let when = WHEN.iter().find(|w| clause.starts_with(**w))?;
    let rest = &clause[when.len()..];
    let rel = (state::FAMILY.iter().chain(state::PEOPLE))
        .filter(|r| rest.starts_with(**r))
        .max_by_key(|r| r.len())?;
    Some(format!("我{rel}{when}{}", &rest[rel.len()..]))
}

/// Words that link a clause to the one before it (虽然, 不过 …).
const LINKS: &[&str] = &[
    "虽然", "尽管", "但是", "可是", "不过", "而且", "因为", "所以", "其实", "毕竟", "只是", "但",
];

/// The facts of one message, each once: a pet named later in the message
/// is the one kept before it (我家有只柯基，名字叫馒头); a worry or a plan
/// is told with what the message said around it.
fn merged(facts: Vec<Stated>, clauses: &[words::Clause], other_news: &[bool]) -> Vec<Stated> {
    // 「说实话，…」: a clause that only leads in says nothing of the worry.
    let lead_in = ["说实话", "老实说", "坦白说", "其实吧", "跟你说", "我跟你说"];
    let told: Vec<&str> = clauses
        .iter()
        .zip(other_news)
        .filter(|(c, other)| !c.question && !**other && !lead_in.contains(&c.text.trim()))
        .map(|(c, _)| c.text.as_str())
        .collect();
    // 「…，烦死了」: how it feels, not what the worry is.
    let exclaims = |c: &&str| c.chars().count() <= 4 && words::named_feeling(c).is_some();
    let what: Vec<&str> = told.iter().filter(|c| !exclaims(c)).copied().collect();
    let whole = state::to_you(&if what.is_empty() { told } else { what }.join("，"));
    let mut out: Vec<Stated> = Vec::new();
    for mut f in facts {
        if matches!(f.kind, FactKind::Worry | FactKind::Plan) {
            f.value = whole.clone();
        }
        out.retain(|o| {
            !(o.kind == f.kind && o.about == f.about && (o.value.is_empty() || o.value == f.value))
        });
        // 「我妈妈复查了，医生说恢复得不错」: one piece of news of her, kept
        // whole (a name stays apart: it is asked for alone).
        if let Some(last) = out.last_mut()
            && matches!(f.kind, FactKind::Family | FactKind::Person)
            && (last.kind, &last.about) == (f.kind, &f.about)
            && ![&last.value, &f.value]
                .iter()
                .any(|v| v.is_empty() || v.starts_with('叫'))
        {
            last.value = format!("{}，{}", last.value, f.value);
            continue;
        }
        out.push(f);
    }
    out
}

/// 「下个月是我生日，十二月八号」: the birthday named in one clause and its
/// date in another (none when a clause already gave it).
fn birthday_apart(clauses: &[words::Clause], facts: &[Stated]) -> Option<Stated> {
    if facts.iter().any(|f| f.kind == FactKind::Birthday) {
        return None;
    }
    let told = |c: &&words::Clause| !c.question;
    let mine = clauses
        .iter()
        .filter(told)
        .any(|c| c.text.contains("我生日") || c.text.contains("我的生日"));
    if !mine {
        return None;
    }
    clauses
        .iter()
        .filter(told)
        .find_map(|c| state::date_alone(&c.text))
        .map(|day| Stated::new(FactKind::Birthday, "", &day))
}

/// The acts of a message, from its words and what was read of it.
fn acts(message: &str, said: &Said) -> Vec<Act> {
    let has = |words: &[&str]| words.iter().any(|w| message.contains(w));
    let lower = message.to_lowercase();
    let forgives = has(words::FORGIVE);
    let asked = match &said.question {
        Some(Question::Recall(_)) => Some(Act::AsksRecall),
        Some(Question::AboutYou(_) | Question::Opinion) => Some(Act::AsksAboutYou),
        Some(Question::Advice) => Some(Act::NeedsHelp),
        Some(Question::Why) => Some(Act::AsksWhy),
        Some(
            Question::Other
            | Question::Judge(_)
            | Question::Who(_)
            | Question::Suggest
            | Question::Deed
            | Question::Bother
            | Question::Believe,
        ) => Some(Act::Asks),
        None => None,
    };
    let candidates = [
        (words::greets(&lower), Act::Greets),
        (has(words::GOODBYE) || words::leaving(message), Act::Goodbye),
        (has(words::THANKS), Act::Thanks),
        (!said.facts.is_empty(), Act::Tells),
        (
            said.facts.iter().any(|f| f.kind == FactKind::Name),
            Act::TellsName,
        ),
        (said.feeling.is_some(), Act::Feels),
        (forgives, Act::Forgives),
        (!forgives && has(words::BLAME), Act::Blames),
        (words::misses(message), Act::Misses),
        (words::confesses(message), Act::Confesses),
        (has(words::HELP), Act::NeedsHelp),
    ];
    let mut acts: Vec<Act> = candidates
        .into_iter()
        .filter(|(on, _)| *on)
        .map(|(_, a)| a)
        .collect();
    acts.extend(asked);
    acts
}

#[cfg(test)]
mod tests;
