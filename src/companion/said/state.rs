//! What a statement clause says about the player: patterns over the common
//! ways people say their name, age, job, home town, family, the people in
//! their life, pets, birthday and dates, food, likes and dislikes, worries
//! and plans. A negated statement (我不叫…, 我不是…) states nothing.

use std::sync::LazyLock;

use regex::Regex;

use crate::companion::facts::FactKind;

/// A fact a clause states: its kind, what within the kind, the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stated {
    /// What it is about.
    pub kind: FactKind,
    /// The pet's animal, the relative's relation, the occasion.
    pub about: String,
    /// The fact.
    pub value: String,
}

impl Stated {
    pub(super) fn new(kind: FactKind, about: &str, value: &str) -> Self {
        Self {
            kind,
            about: about.to_string(),
            value: value.to_string(),
        }
    }
}

/// Animals kept as pets, the longer names first.
pub(crate) const ANIMALS: &[&str] = &[
    "狸花猫",
    "布偶猫",
    "英短",
    "橘猫",
    "黑猫",
    "白猫",
    "小猫",
    "猫咪",
    "猫",
    "柯基",
    "金毛",
    "柴犬",
    "哈士奇",
    "泰迪",
    "边牧",
    "小狗",
    "狗狗",
    "狗",
    "兔子",
    "仓鼠",
    "鹦鹉",
    "乌龟",
    "金鱼",
    "刺猬",
    "龙猫",
    "小鸟",
];
/// Family relations (the short forms after 我: 我爸, 我姐).
pub(crate) const FAMILY: &[&str] = &[
    "妈妈", "爸爸", "母亲", "父亲", "老妈", "老爸", "老婆", "老公", "老伴", "妻子", "丈夫", "女儿",
    "儿子", "哥哥", "姐姐", "弟弟", "妹妹", "奶奶", "爷爷", "外婆", "外公", "姥姥", "姥爷", "孙女",
    "孙子", "外孙", "儿媳", "女婿", "姐", "哥", "弟", "妹", "爸", "妈",
];
/// Other people in one's life.
pub(crate) const PEOPLE: &[&str] = &[
    "女朋友",
    "男朋友",
    "对象",
    "室友",
    "同事",
    "老板",
    "上司",
    "闺蜜",
    "好朋友",
    "发小",
    "同学",
    "邻居",
];
/// How job names end (医生, 老师, 程序员, 护士 …).
pub(super) const JOB_ENDS: &[&str] = &[
    "师", "员", "生", "家", "工", "手", "长", "官", "匠", "夫", "警", "医", "士", "司机", "记者",
    "会计", "主播", "博主", "农民", "模特", "演员", "秘书", "老板", "店主", "作者", "编辑", "警察",
    "骑手", "快递", "保安", "厨子", "裁缝", "学徒", "徒弟",
];
/// What is never a name, a place or a thing told.
const NOT_VALUES: &[&str] = &[
    "什么", "啥", "谁", "你", "他", "她", "它", "这个", "那个", "这样", "那样", "一下", "这里",
    "那里", "这儿", "那儿", "嘛", "哪", "咋",
];

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("a valid pattern (tested)")
}

macro_rules! pattern {
    ($name:ident, $p:expr) => {
        static $name: LazyLock<Regex> = LazyLock::new(|| re($p));
    };
}

const HAN: &str = r"[\p{Han}A-Za-z·]";
/// Adverbs between 我 and the verb (我这人最爱吃, 我平时喜欢).
const ADV: &str = "(?:年轻的时候|年轻时|小时候|这人|平时|平常|一直|从小|向来|一向|本来|其实|确实|实在|压根|根本|倒是|也|还|就|真的|特别|最|很|超|超级|非常|可|挺|都)*";
/// The `about` of a job fact that is what the player studies …
pub const MAJOR: &str = "专业";
/// … and of the year or school they are in.
pub const GRADE_OF: &str = "年级";

pattern!(
    NAME,
    &format!(r"(不|别)?(我叫|叫我|喊我|称呼我|我的名字(?:是|叫)|我名字(?:是|叫))({HAN}{{1,6}})")
);
pattern!(
    FULL_NAME,
    r"^我是([陈王李张刘杨赵黄周吴徐孙胡朱高林何郭马罗梁宋郑谢韩唐冯于董萧程曹袁邓许傅沈曾彭吕苏卢蒋蔡贾丁魏薛叶余潘杜戴夏钟汪田任姜范方石姚谭廖邹熊金陆郝孔白崔康毛邱秦江史顾侯邵孟龙万段雷钱汤尹黎易常武乔贺赖龚文][\p{Han}]{1,2})$"
);
pattern!(
    NOT_NAME,
    &format!(r"(?:我不叫|别叫我|不要叫我|不用叫我|我不是叫)({HAN}{{1,6}})")
);
pattern!(
    AGE,
    r"(不)?我(?:今年|已经|快|才)?([0-9]{1,3}|[一二两三四五六七八九十]{1,3})(?:周)?岁|我今年()([0-9]{1,3}|[一二两三四五六七八九十]{2,3})了?$"
);
pattern!(
    JOB_IS,
    r"(不)?我(?:现在|以前|之前|退休前|目前|原来|本来|其实)?(?:是|当)(?:一名|一个|一位|个|名|位)?(\p{Han}{1,8})$"
);
pattern!(
    JOB_AT,
    r"(不)?我(?:现在|目前)?(?:在|于)(\p{Han}{2,10}?)(工作|上班|打工|实习|当\p{Han}{1,6})"
);
pattern!(
    JOB_AT_DOING,
    r"(不)?我(?:现在|目前)?在(\p{Han}{1,10}?)(?:做|干)(\p{Han}{1,6})$"
);
pattern!(
    JOB_NOW,
    r"我(?:现在|目前|如今)(?:在|于)(\p{Han}{2,8}?)(帮\p{Han}{1,12}|做\p{Han}{1,10}|干\p{Han}{1,8})$"
);
pattern!(
    JOB_DO,
    r"(不)?我(?:是)?(?:做|搞|干)(\p{Han}{1,8}?)的(?:呀|啊|哦|啦)?$"
);
/// When a trade was one's (「我退休前是开公交车的」 keeps 退休前开公交车).
pub const WAS: [&str; 6] = ["退休前", "以前", "之前", "原来", "年轻时", "年轻的时候"];
pattern!(
    JOB_WAS,
    &format!(
        r"(不)?我({})(?:是)?((?:开|跑|修|种|卖|教|送|做|干)\p{{Han}}{{1,6}}?)的(?:呀|啊|哦|啦)?$",
        WAS.join("|")
    )
);
pattern!(JOB_WORK, r"我的(?:工作|职业)是(\p{Han}{1,10})");
pattern!(
    STUDY,
    r"我(?:是)?学(\p{Han}{2,6}?)的$|我学的是(\p{Han}{2,8})$|我(?:的)?专业是(\p{Han}{2,8})$"
);
pattern!(
    GRADE,
    r"我(?:现在)?(?:在)?(?:读|上)(大[一二三四]|研[一二三]|高[一二三]|初[一二三]|大学|高中|初中|研究生|博士)"
);
pattern!(JOB_SWITCH, r"改(?:行)?(开|做|当|干)(\p{Han}{2,6}?)了?$");
pattern!(HOME_IS, r"(不)?我(?:是|来自)(\p{Han}{2,6}?)人");
pattern!(HOME_FROM, r"(不)?我来自(\p{Han}{2,6})$");
pattern!(
    HOME_CAME,
    r"我(?:是)?从(\p{Han}{2,6}?)(?:来的|过来的|搬来的|来)$"
);
pattern!(
    HOME_TOWN,
    r"我的?(?:老家|家乡)(?:是|在)?(\p{Han}{2,8}?)(?:的|人)?$"
);
pattern!(HOME_GREW, r"我(?:是)?(?:在)(\p{Han}{2,6}?)(?:长大|出生)");
pattern!(
    BIRTHDAY,
    r"生日(?:是|在)?((?:[0-9]{4}年)?[0-9一二三四五六七八九十]{1,3}月[0-9一二三四五六七八九十]{1,3}[日号])"
);
pattern!(
    BORN_ON,
    r"我(?:是)?((?:[0-9]{4}年)?[0-9一二三四五六七八九十]{1,3}月[0-9一二三四五六七八九十]{1,3}[日号])(?:出生|生日|生的)"
);
pattern!(
    DATE,
    r"([0-9一二三四五六七八九十]{1,3}月[0-9一二三四五六七八九十]{1,3}[日号])是(?:我们|我)(?:的|俩的)?(\p{Han}{2,8})"
);
pattern!(
    FOOD,
    &format!(r"(不)?我{ADV}(?:喜欢|爱)(?:吃|喝)({HAN}{{1,8}})")
);
pattern!(
    FAVOURITE,
    &format!(r"我最(?:喜欢|爱)的(\p{{Han}}{{1,4}}?)是({HAN}{{1,12}})")
);
pattern!(
    LIKES,
    &format!(r"(不)?我{ADV}(?:喜欢|热爱|爱)({HAN}{{1,10}})")
);
pattern!(
    HOBBY,
    &format!(
        r"我的爱好是({HAN}{{1,10}})|我(?:周末|平时|平常|每周|空闲时|闲下来|有空)(?:一般|经常|常常|常|总是|总|都|会|就)*(?:去|来)?((?:打|踢|游|跑|爬|下|弹|拉|练|画|钓|骑|唱|跳){HAN}{{1,6}})"
    )
);
pattern!(
    DISLIKES,
    &format!(
        r"我最(?:怕|讨厌|不喜欢)的(?:就)?是({HAN}{{1,10}})|我{ADV}(?:不喜欢|讨厌|受不了|不爱|怕|不吃|不能吃|吃不了)(?:吃|喝)?({HAN}{{1,10}})"
    )
);
pattern!(
    UNABLE,
    &format!(r"我{ADV}(不太会|不怎么会|不大会|不太擅长|不擅长|不会)({HAN}{{1,8}})")
);
/// What a plain 「不会」 is a skill of (「我不会游泳」), not a promise
/// (「我不会忘」, 「我不会去」).
const SKILLS: &[&str] = &[
    "游泳",
    "做饭",
    "做菜",
    "烧菜",
    "炒菜",
    "开车",
    "骑车",
    "骑自行车",
    "唱歌",
    "跳舞",
    "画画",
    "弹",
    "拉",
    "吹",
    "打",
    "下棋",
    "喝酒",
    "化妆",
    "滑冰",
    "滑雪",
    "钓鱼",
    "织",
    "缝",
    "修",
    "用电脑",
    "用手机",
    "说普通话",
    "讲普通话",
    "说英语",
    "写",
    "算",
    "砍价",
    "说话",
    "聊天",
];

/// A clause's 「我不太会游泳」: how it was put and what.
fn unable(clause: &str) -> Option<Stated> {
    let c = UNABLE.captures(clause)?;
    let (how, what) = (&c[1], clean(&c[2])?);
    let fits = match how {
        "不会" => SKILLS.iter().any(|s| what.starts_with(s)),
        _ => ![
            "忘", "再", "让", "有", "是", "吧", "去", "来", "怪", "放弃", "离开",
        ]
        .iter()
        .any(|w| what.starts_with(w)),
    };
    fits.then(|| Stated::new(FactKind::Unable, how, &what))
}

/// When a plan is for, between 我 and its verb (我明天想去河边). A plan
/// may be where one wants to be (想在镇上逛逛), not where the companion is
/// (想在你这儿坐会儿 is no plan to remember).
const WHEN: &str = "(?:明天|今天|后天|今晚|晚上|下午|周末|这周末|下周|下个月|明年|过两天|过几天|待会儿?|等会儿?|回头)?";
pattern!(
    LEARNING,
    &format!(
        r"我{ADV}(?:(?:最近|这阵子|这段时间|这些天|近来|现在){ADV})?(?:正在|在|开始|刚开始)学(?:习|着)?({HAN}{{1,8}})"
    )
);

/// A clause's 「我最近在学吉他」: what is being learnt (not 「我在学校」).
fn learning(clause: &str) -> Option<Stated> {
    let c = LEARNING.captures(clause)?;
    let what = clean(&c[1])?;
    let school = ["校", "院", "生", "期", "堂", "会", "费", "到", "了"];
    (!school.iter().any(|w| what.starts_with(w)))
        .then(|| Stated::new(FactKind::Learning, "", &what))
}

/// A day said outright, without which 「我要去」 is no plan (我要去睡了).
const WHEN_SAID: &str = "(?:(?:下|这|本)?(?:周|星期|礼拜)[一二三四五六日天]|明天|后天|周末|这周末|下周|下星期|下个月|明年|过两天|过几天|月底|年底)";
/// A day named between 我 and its verb (我下个月八号要去, 我五月三号要).
const ON_DAY: &str =
    "(?:(?:下个?月|这个?月|[0-9一二三四五六七八九十]{1,3}月)?[0-9一二三四五六七八九十]{1,3}[号日])";
pattern!(
    PLAN,
    &format!(
        r"我{WHEN}{ON_DAY}?(?:打算|准备|计划|决定|下周要|下个月要|明天要|明年要|想要|想(?:去|回|学|考|换|开|买|攒|存|搬|逛|在[^你我]))(\p{{Han}}.{{0,16}})|我(?:{WHEN_SAID}{ON_DAY}?|{ON_DAY})(?:就)?要(?:去|回|参加|考|搬|办|结婚|出差|出发|出远门|开始|见|陪)(\p{{Han}}.{{0,16}})?"
    )
);
pattern!(
    PET_NAMED_BEFORE,
    &format!(
        r"叫({HAN}{{1,4}})的({animals})",
        animals = ANIMALS.join("|")
    )
);
pattern!(
    PET_NAMED_AFTER,
    &format!(
        r"({animals})(?:的名字)?(?:叫|是)({HAN}{{1,4}})",
        animals = ANIMALS.join("|")
    )
);
pattern!(
    PET_IS_MINE,
    &format!(
        r"({HAN}{{1,4}})是我(?:家|养)?的({animals})",
        animals = ANIMALS.join("|")
    )
);
pattern!(
    PET_KEPT,
    &format!(
        r"我(?:家里|家)?(?:还|也)?(?:养了|养着|养|有)(?:一只|一条|只|条|两只|一个)?({animals})",
        animals = ANIMALS.join("|")
    )
);
pattern!(
    IT_IS_NAMED,
    &format!(r"^(?:它|牠)?(?:的名字|名字)?(?:叫|名叫)({HAN}{{1,4}})")
);
pattern!(
    RELATIVE,
    &format!(
        r"^我(?:们)?(?:的|家里|家)?(?:还|也)?(?:有)?(?:一个|个|两个)?([^，。我]{{0,6}}?的|小)?({rel})(?:叫({HAN}{{1,4}}))?(.*)$",
        rel = [FAMILY, PEOPLE].concat().join("|")
    )
);

/// The facts a statement clause states. `last_pet` carries the animal of
/// the message's last pet to a later 「它叫…」.
pub(super) fn facts(clause: &str, last_pet: &mut Option<String>) -> Vec<Stated> {
    let mut out = Vec::new();
    if let Some(c) = FULL_NAME.captures(clause) {
        out.push(Stated::new(FactKind::Name, "", &c[1]));
    } else if let Some((v, call_me)) = name(clause) {
        // 「叫我小雨」 is how to be called; 「我叫周雨」 the name.
        out.push(Stated::new(
            FactKind::Name,
            if call_me { CALL_ME } else { "" },
            &v,
        ));
    }
    if let Some(c) = AGE.captures(clause)
        && c.get(1).is_none()
    {
        let n = c.get(2).or(c.get(4)).map_or("", |m| m.as_str());
        out.push(Stated::new(FactKind::Age, "", n));
    }
    out.extend(job(clause));
    out.extend(home(clause));
    out.extend(pet(clause, last_pet));
    out.extend(dates(clause));
    out.extend(tastes(clause));
    out.extend(unable(clause));
    out.extend(learning(clause));
    out.extend(relative(clause));
    if PLAN.is_match(clause) {
        out.push(Stated::new(FactKind::Plan, "", &to_you(clause)));
    }
    if worries(clause) {
        out.push(Stated::new(FactKind::Worry, "", &to_you(clause)));
    }
    out
}

/// A clause in the second person (我最近很累 → 你最近很累).
pub(crate) fn to_you(clause: &str) -> String {
    clause
        .replace("我们", "\u{0}")
        .replace('我', "你")
        .replace('\u{0}', "你们")
}

/// A value cut of closing particles, or nothing when it is no value at all.
fn clean(value: &str) -> Option<String> {
    let mut v = value.trim().to_string();
    for tail in [
        "就好",
        "就行",
        "好了",
        "就可以",
        "吧",
        "呀",
        "啊",
        "呢",
        "哦",
        "嘛",
        "啦",
        "喔",
        "了",
        "的",
    ] {
        if let Some(s) = v.strip_suffix(tail)
            && !s.is_empty()
        {
            v = s.to_string();
        }
    }
    let bad = v.is_empty() || NOT_VALUES.iter().any(|n| v.starts_with(n));
    (!bad).then_some(v)
}

/// The `about` of a name the player asked to be called by.
pub const CALL_ME: &str = "称呼";

/// The name a clause gives, and whether it is how to be called.
fn name(clause: &str) -> Option<(String, bool)> {
    let c = NAME.captures(clause)?;
    // 「我家狗的名字叫旺财」, 「我妈叫我回家」: someone else's name, or no name.
    let before = &clause[..c.get(0).map_or(0, |m| m.start())];
    let others = ANIMALS
        .iter()
        .chain(FAMILY)
        .chain(PEOPLE)
        .any(|w| before.contains(w));
    if c.get(1).is_some() || clause.contains("你的名字") || others {
        return None;
    }
    let v = clean(&c[3])?;
    // 「我叫了外卖」, 「叫我起床」: a verb's object, not a name.
    let verb_like = [
        '了', '过', '着', '人', '车', '起', '醒', '去', '来', '别', '不', '做',
    ];
    if v.starts_with(verb_like) {
        return None;
    }
    Some((v, &c[2] == "叫我"))
}

/// The name a bare 「叫旺财」 / 「它叫旺财」 gives (for a pet told of before).
pub fn bare_name(message: &str) -> Option<String> {
    let text = message.trim().trim_end_matches(['。', '！', '~', '～']);
    let c = IT_IS_NAMED.captures(text)?;
    let name = clean(&c[1])?;
    (c.get(0)?.end() == text.len()).then_some(name)
}

/// The names a clause takes back (「我不叫小雨」, 「别叫我小雨」).
pub(super) fn retracted_name(clause: &str) -> Option<String> {
    let c = NOT_NAME.captures(clause)?;
    clean(&c[1])
}

fn job(clause: &str) -> Option<Stated> {
    let job = |v: &str| Stated::new(FactKind::Job, "", v);
    if let Some(c) = JOB_WORK.captures(clause) {
        return clean(&c[1]).map(|v| job(&v));
    }
    if let Some(c) = STUDY.captures(clause) {
        let major = c
            .get(1)
            .or(c.get(2))
            .or(c.get(3))
            .map_or("", |m| m.as_str());
        return clean(major).map(|v| Stated::new(FactKind::Job, MAJOR, &v));
    }
    if let Some(c) = GRADE.captures(clause) {
        return Some(Stated::new(FactKind::Job, GRADE_OF, &c[1]));
    }
    if let Some(c) = JOB_SWITCH.captures(clause) {
        return clean(&c[2]).map(|v| job(&format!("{}{v}", &c[1])));
    }
    // 「现在在图书馆帮苏文整理旧书」: what one does now, where (not at home).
    if let Some(c) = JOB_NOW.captures(clause)
        && !c[1].starts_with('家')
    {
        return Some(job(&format!("在{}{}", &c[1], &c[2])));
    }
    if let Some(c) = JOB_AT.captures(clause)
        && c.get(1).is_none()
    {
        let at = &c[2];
        let what = &c[3];
        return Some(job(&format!("在{at}{what}")));
    }
    // 「我在城里做程序员」: a trade plied somewhere (not 「我在家做饭」).
    if let Some(c) = JOB_AT_DOING.captures(clause)
        && c.get(1).is_none()
        && let Some(what) = clean(&c[3]).filter(|v| JOB_ENDS.iter().any(|e| v.ends_with(e)))
    {
        return Some(job(&format!("在{}做{what}", &c[2])));
    }
    // 「我退休前是开公交车的」: the trade one had.
    if let Some(c) = JOB_WAS.captures(clause)
        && c.get(1).is_none()
    {
        return clean(&c[3]).map(|v| job(&format!("{}{v}", &c[2])));
    }
    if let Some(c) = JOB_DO.captures(clause)
        && c.get(1).is_none()
    {
        return clean(&c[2]).map(|v| job(&format!("做{v}的")));
    }
    let c = JOB_IS.captures(clause)?;
    let mut v = clean(&c[2])?;
    // 「我是镇上新来的邮递员」: the trade after what is said of it, unless it
    // is someone's (「我是他的学生」, 「我是老板的助手」).
    if let Some((before, trade)) = v.rsplit_once('的')
        && trade.chars().count() >= 2
        && !["他", "她", "你", "我"].iter().any(|p| before.contains(p))
        && !PEOPLE.iter().chain(FAMILY).any(|p| before.contains(p))
    {
        v = trade.to_string();
    }
    let is_job = c.get(1).is_none()
        && JOB_ENDS.iter().any(|e| v.ends_with(e))
        && !v.contains('的')
        && !v.ends_with("学生会");
    is_job.then(|| job(&v))
}

fn home(clause: &str) -> Option<Stated> {
    let bad = |v: &str| {
        [
            "个", "一", "普通", "好", "坏", "本地", "外地", "这里", "城里", "乡下", "很", "的",
            "年轻", "老实", "成年", "家里", "虽然", "但是", "其实", "可是", "不过", "因为",
        ]
        .iter()
        .any(|b| v.contains(b))
    };
    let place = [&*HOME_TOWN, &*HOME_GREW, &*HOME_CAME]
        .iter()
        .find_map(|r| r.captures(clause).map(|c| c[1].to_string()))
        .or_else(|| {
            [&*HOME_IS, &*HOME_FROM].iter().find_map(|r| {
                r.captures(clause)
                    .filter(|c| c.get(1).is_none())
                    .map(|c| c[2].to_string())
            })
        })?;
    let place = place
        .trim_end_matches("那边")
        .trim_end_matches('的')
        .to_string();
    (!bad(&place) && place.chars().count() >= 2).then(|| Stated::new(FactKind::Home, "", &place))
}

fn pet(clause: &str, last_pet: &mut Option<String>) -> Option<Stated> {
    let owned = clause.contains('我') || clause.contains('养') || clause.starts_with('它');
    let named = |animal: &str, name: &str| {
        let name = clean(name)?;
        Some(Stated::new(FactKind::Pet, animal, &name))
    };
    let found = if let Some(c) = PET_NAMED_BEFORE.captures(clause) {
        named(&c[2], &c[1])
    } else if let Some(c) = PET_IS_MINE.captures(clause) {
        named(&c[2], &c[1])
    } else if let Some(c) = PET_NAMED_AFTER.captures(clause).filter(|_| owned) {
        named(&c[1], &c[2])
    } else if let Some(c) = PET_KEPT.captures(clause) {
        Some(Stated::new(FactKind::Pet, &c[1], ""))
    } else if let (Some(c), Some(animal)) = (IT_IS_NAMED.captures(clause), last_pet.as_deref()) {
        named(animal, &c[1])
    } else {
        None
    };
    if let Some(s) = &found {
        *last_pet = Some(s.about.clone());
    }
    found
}

pattern!(
    DAY_ALONE,
    r"^(?:是|在)?((?:[0-9]{4}年)?[0-9一二三四五六七八九十]{1,3}月[0-9一二三四五六七八九十]{1,3}[日号])(?:那天)?$"
);

/// A clause that is only a date (「十二月八号」), that date.
pub(super) fn date_alone(clause: &str) -> Option<String> {
    DAY_ALONE.captures(clause.trim()).map(|c| c[1].to_string())
}

fn dates(clause: &str) -> Option<Stated> {
    if let Some(c) = DATE.captures(clause)
        && !c[2].contains("生日")
    {
        return Some(Stated::new(FactKind::Date, &c[2], &c[1]));
    }
    // 「我孙子的生日是…」 is his.
    let before = clause.split("生日").next().unwrap_or_default();
    let someone = FAMILY
        .iter()
        .chain(PEOPLE)
        .chain(ANIMALS)
        .any(|w| before.contains(w));
    let mine = clause.contains('我') && !someone;
    let c = BIRTHDAY
        .captures(clause)
        .filter(|_| mine)
        .or_else(|| BORN_ON.captures(clause))?;
    let day = c[1].trim_start_matches(['是', '在']).to_string();
    Some(Stated::new(FactKind::Birthday, "", &day))
}

fn tastes(clause: &str) -> Vec<Stated> {
    let mut out = Vec::new();
    if let Some(c) = DISLIKES.captures(clause) {
        let v = c.get(1).or(c.get(2)).map_or("", |m| m.as_str());
        if let Some(v) = clean(v) {
            out.push(Stated::new(FactKind::Dislikes, "", &v));
        }
        return out;
    }
    if let Some(c) = FAVOURITE.captures(clause) {
        let (what, v) = (&c[1], &c[2]);
        let food = ["食物", "菜", "水果", "零食", "饮料", "吃的", "小吃", "甜点"].contains(&what);
        if let Some(v) = clean(v) {
            let kind = if food {
                FactKind::Food
            } else {
                FactKind::Likes
            };
            out.push(Stated::new(kind, "", &v));
        }
    } else if let Some(c) = FOOD.captures(clause).filter(|c| c.get(1).is_none()) {
        out.extend(clean(&c[2]).map(|v| Stated::new(FactKind::Food, "", &v)));
    } else if let Some(c) = LIKES.captures(clause).filter(|c| c.get(1).is_none()) {
        let v = &c[2];
        let someone = ["你", "他", "她", "上你", "和你", "跟你", "听你"]
            .iter()
            .any(|p| v.starts_with(p));
        if !someone {
            out.extend(clean(v).map(|v| Stated::new(FactKind::Likes, "", &v)));
        }
    } else if let Some(c) = HOBBY.captures(clause)
        // 「周末钓鱼钓到一条大鲤鱼」 tells what happened, not a pastime.
        && !clause.contains(['到', '了'])
    {
        let v = c.get(1).or(c.get(2)).map_or("", |m| m.as_str());
        out.extend(clean(v).map(|v| Stated::new(FactKind::Likes, "", &v)));
    }
    out
}

fn relative(clause: &str) -> Option<Stated> {
    let c = RELATIVE.captures(clause)?;
    let rel = &c[2];
    let kind = if FAMILY.contains(&rel) {
        FactKind::Family
    } else {
        FactKind::Person
    };
    let said_of = c
        .get(1)
        .map(|m| m.as_str().trim_end_matches('的'))
        .filter(|d| !d.is_empty() && *d != "小");
    let value = match (c.get(3), c.get(4).map(|m| m.as_str().trim())) {
        (Some(name), _) => format!("叫{}", name.as_str()),
        (None, Some(rest)) if !rest.is_empty() => to_you(rest),
        _ => said_of.map(to_you).unwrap_or_default(),
    };
    Some(Stated::new(kind, rel, &value))
}

/// Words of a worry.
const WORRY: &[&str] = &[
    "担心",
    "发愁",
    "焦虑",
    "压力",
    "烦",
    "头疼",
    "膝盖疼",
    "腿疼",
    "腰疼",
    "胃疼",
    "关节疼",
    "腿脚不好",
    "失眠",
    "睡不着",
    "睡不好",
    "睡不踏实",
    "吃不消",
    "熬不住",
    "害怕",
    "撑不住",
    "不知道怎么办",
    "愁",
    "心事",
    "挂科",
    "血压",
    "心里慌",
    "心里挺慌",
    "心慌",
    "没找到工作",
    "没找到新工作",
    "找不到工作",
    "失业",
    "不顺",
    "不太顺",
];

/// A worry of the player's: said of themselves, or with no one else named.
pub(super) fn worries(clause: &str) -> bool {
    // 「我昨天跟你说的烦恼」 points back at a worry told: it tells no new one.
    let told_before = ["跟你说的", "跟你说过", "告诉过你", "和你说的", "和你说过"]
        .iter()
        .any(|w| clause.contains(w));
    WORRY.iter().any(|w| clause.contains(w)) && of_player(clause) && !told_before
}

/// Whether a clause speaks of the player: said of themselves, or with no
/// one else named (「最近压力好大」, not 「他压力好大」).
pub(super) fn of_player(clause: &str) -> bool {
    clause.contains('我') || !["他", "她", "你"].iter().any(|p| clause.contains(p))
}
