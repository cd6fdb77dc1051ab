use std::collections::HashMap;

use super::*;
use crate::companion::builtin::{self, opening};

/// The guardian's `companion:` from the shipped `residents.yaml`, read on
/// its own (the companion knows nothing of scenarios).
fn spec() -> CompanionSpec {
    #[derive(serde::Deserialize)]
    struct Resident {
        id: String,
        companion: Option<CompanionSpec>,
    }
    #[derive(serde::Deserialize)]
    struct Residents {
        residents: Vec<Resident>,
    }
    let text = include_str!("../../../scenarios/heartvale/residents.yaml");
    let file: Residents = crate::base::parse_yaml(text).unwrap();
    let guardian = file.residents.into_iter().find(|r| r.id == "guardian");
    guardian.and_then(|g| g.companion).unwrap()
}

/// A chat run with the built-in brain: `(message, day)`; returns the replies.
fn chat(state: &mut CompanionState, spec: &CompanionSpec, lines: &[(&str, i64)]) -> Vec<String> {
    let bank = ChatBank::builtin();
    let start = GameTime::parse("2026-04-06 10:00").unwrap();
    let mut builtin = |cx: &ReplyContext<'_>| builtin::reply(cx);
    lines
        .iter()
        .map(|(message, day)| {
            let at = Setting {
                spec,
                bank: &bank,
                speaker: "守望精灵",
                now: start.plus_minutes(day * 1440),
                people: &[],
            };
            state.turn(&at, message, &[], &mut builtin).reply
        })
        .collect()
}

#[test]
fn moments_are_kept_verbatim_and_the_profile_is_rewritten_every_20_messages() {
    let spec = spec();
    let mut state = CompanionState::default();
    let replies = chat(&mut state, &spec, &[("你好", 0)]);
    assert_eq!(state.moments.len(), 1, "the first meeting");
    assert_eq!(state.moments[0].id, "first_meeting");
    assert_eq!(state.moments[0].user, "你好");
    assert_eq!(state.moments[0].reply, replies[0], "kept verbatim");
    assert!(!replies[0].contains("【时刻"), "{}", replies[0]);
    let named = chat(&mut state, &spec, &[("叫我小林吧", 0)]);
    assert_eq!(state.moments[1].id, "asked_name");
    assert!(named[0].contains("小林"), "{}", named[0]);
    assert_eq!(state.affection.value(), 1 + 20 + 1 + 50);
    let mut rewrites = Vec::new();
    for i in 3..=40 {
        chat(&mut state, &spec, &[(&format!("今天的第{i}句话"), 0)]);
        if state.messages == i && state.profile.version > rewrites.len() as u32 {
            rewrites.push(i);
        }
    }
    assert_eq!(rewrites, [20, 40]);
    assert_eq!(state.profile.version, 2);
    assert_eq!(state.past_profiles.len(), 1, "the first version is kept");
    assert_eq!(state.profile.nickname.as_deref(), Some("小林"));
    assert!(
        state.profile.relationship.contains("观察者"),
        "{:?}",
        state.profile
    );
    assert_eq!(state.lines.len(), 80);
    assert_eq!(state.moments.len(), 2, "each moment happens once");
}

/// What a player tells over a few days, then asks in other words.
const TOLD: &[(&str, i64)] = &[
    ("你好呀", 0),
    ("我叫林夏，你可以叫我小夏", 0),
    ("我是一名护士，在市医院上夜班", 0),
    ("我老家在云南大理", 0),
    ("我养了一只橘猫，它叫豆包", 0),
    ("我的生日是五月十二号", 0),
    ("我最爱吃酸汤鱼", 0),
    ("最近夜班太多了，我好累", 0),
];

const ASKED: &[(&str, &str)] = &[
    ("你还记得我叫什么吗？", "小夏"),
    ("我是干什么工作的来着？", "护士"),
    ("我家那只猫叫啥？", "豆包"),
    ("我是哪里人，你还记得吗", "云南大理"),
    ("我哪天生日？", "五月十二号"),
    ("你知道我最爱吃什么吗", "酸汤鱼"),
];

#[test]
fn told_facts_come_back_in_other_words_after_days_and_no_question_is_a_name() {
    let spec = spec();
    let mut state = CompanionState::default();
    chat(&mut state, &spec, TOLD);
    assert_eq!(state.facts.name(), Some("小夏"));
    let back = chat(&mut state, &spec, &[("好久不见！", 3)]);
    assert!(
        back[0].contains('3') || back[0].contains("三"),
        "the days apart: {}",
        back[0]
    );
    for (question, fact) in ASKED {
        let reply = chat(&mut state, &spec, &[(question, 3)]).remove(0);
        assert!(reply.contains(fact), "{question} → {reply}");
        assert_eq!(state.facts.name(), Some("小夏"), "{question} named nobody");
    }
    let filler: Vec<(&str, i64)> = (state.messages..20).map(|_| ("今天风很大", 3)).collect();
    chat(&mut state, &spec, &filler);
    assert_eq!(state.profile.version, 1, "rewritten at 20 messages");
    let kept = state.profile.known.join("\n");
    assert!(
        kept.contains("护士") && kept.contains("豆包"),
        "the saved profile: {kept}"
    );
    let profile = super::super::profile::lines(&state.profile, &state.facts).join("\n");
    assert!(
        profile.contains("护士") && profile.contains("豆包"),
        "{profile}"
    );
}

#[test]
fn forty_messages_vary_their_openings_and_mostly_differ() {
    let spec = spec();
    let mut state = CompanionState::default();
    let mut lines: Vec<(&str, i64)> = TOLD.to_vec();
    let more = [
        "今天天气不错",
        "医院里来了个很可爱的小朋友",
        "你平时都做些什么？",
        "你几岁了？",
        "你喜欢什么？",
        "我升职了！",
        "谢谢你听我说",
        "下班路上看到晚霞了",
        "豆包今天打翻了水杯",
        "你说人为什么会失眠？",
        "我有点想家",
        "大理的风很大",
        "我打算下个月回家看看",
        "我妈妈在老家开了个小店",
        "今天几号？",
        "我讨厌下雨天",
        "你还好吗？",
        "我们聊聊天吧",
        "我最近在学做饭",
        "今天的酸汤鱼做咸了",
        "同事请我喝了奶茶",
        "晚上要上夜班",
        "有点紧张",
        "你会一直在这里吗？",
        "我喜欢听雨，其实也不讨厌下雨",
        "豆包胖了",
        "你记得我吗？",
        "我是不是很啰嗦",
        "晚安",
        "明天见",
        "我又来了",
        "今天休息",
    ];
    lines.extend(more.iter().map(|m| (*m, 1)));
    let replies = chat(&mut state, &spec, &lines[..40]);
    let mut openings: HashMap<String, usize> = HashMap::new();
    for r in &replies {
        *openings.entry(opening(r)).or_default() += 1;
    }
    let worst = openings.iter().max_by_key(|(_, n)| **n).unwrap();
    assert!(*worst.1 <= 5, "{worst:?} in {replies:#?}");
    let mut distinct = replies.clone();
    distinct.sort();
    distinct.dedup();
    assert!(
        distinct.len() * 10 >= replies.len() * 9,
        "{} of {}: {replies:#?}",
        distinct.len(),
        replies.len()
    );
}

#[test]
fn a_mistake_forgiven_is_a_moment_and_one_blamed_fails() {
    let spec = spec();
    let mistake = ChatLine {
        speaker: Speaker::Companion,
        content: "我刚才是不是说错了？".into(),
        affection_delta: 0,
        key_moment: None,
        time: GameTime(0),
    };
    for (answer, status, gained) in [
        ("没关系，谁都会说错", MomentStatus::Triggered, 120),
        ("都怪你，你又错了", MomentStatus::Failed, -40),
    ] {
        let mut state = CompanionState::default();
        state.affection.add(
            3000,
            super::super::ChangeReason::KeyMoment { id: "test".into() },
        );
        state.lines.push(mistake.clone());
        chat(&mut state, &spec, &[("第一次犯错", 0)]);
        assert!(
            state.moments.is_empty(),
            "a keyword alone is no mistake forgiven"
        );
        state.lines.push(mistake.clone());
        chat(&mut state, &spec, &[(answer, 0)]);
        let m = state
            .moments
            .iter()
            .find(|m| m.id == "first_mistake")
            .expect(answer);
        assert_eq!((m.status, m.gained), (status, gained), "{answer}");
    }
}

#[test]
fn what_was_told_is_answered_as_it_stands_days_later() {
    let spec = spec();
    let mut state = CompanionState::default();
    let told = chat(
        &mut state,
        &spec,
        &[
            ("我叫林晓", 0),
            ("我在城里做程序员，最近压力有点大", 0),
            ("我喜欢喝桂花乌龙茶", 0),
            ("我明天想去河边走走", 0),
            ("下个月是我生日，十二月八号。", 0),
            ("我孙子今年上小学了", 0),
            ("我孙子的生日是五月二十号", 0),
        ],
    );
    assert!(told[4].contains("十二月八号"), "{}", told[4]);
    let asked = chat(
        &mut state,
        &spec,
        &[
            ("你还记得我做什么工作的吗？", 1),
            ("昨天我说我想去哪儿来着？", 1),
            ("我生日是哪天你还记得吗？", 1),
            ("你还记得我孙子上几年级吗？", 1),
            ("我打算在镇上开一家小茶馆，你觉得怎么样？", 1),
            ("我该给茶馆起个什么名字好？", 1),
            ("我辞职了。", 1),
        ],
    );
    assert!(asked[0].contains("程序员"), "{}", asked[0]);
    // Told 「明天」 yesterday: today.
    assert!(asked[1].contains("今天想去河边"), "{}", asked[1]);
    assert!(asked[2].contains("十二月八号"), "{}", asked[2]);
    assert!(asked[3].contains("上小学"), "{}", asked[3]);
    assert!(asked[4].contains("茶馆"), "{}", asked[4]);
    assert!(asked[5].contains("桂花乌龙茶"), "{}", asked[5]);
    assert!(
        asked[6].contains("辞职") || asked[6].contains("不干"),
        "{}",
        asked[6]
    );
    let job = crate::companion::FactKind::Job;
    assert!(state.facts.first(job).is_none(), "the job is given up");
}

#[test]
fn nothing_is_asked_twice_and_one_who_quit_is_not_asked_the_job() {
    let spec = spec();
    let mut state = CompanionState::default();
    let mut lines = vec![("你好", 0), ("我是护士", 0), ("唉，我辞职了", 0)];
    for _ in 0..15 {
        lines.extend([("谢谢你", 0), ("今天天气真好", 0)]);
    }
    let replies = chat(&mut state, &spec, &lines);
    let bank = ChatBank::builtin();
    let asked = |q: &str| replies.iter().filter(|r| r.contains(q)).count();
    let questions: Vec<&String> = bank.ask_next.values().flatten().collect();
    assert!(questions.iter().any(|q| asked(q) == 1), "{replies:#?}");
    for q in questions {
        assert!(asked(q) <= 1, "{q} asked again: {replies:#?}");
    }
    let job = ChatBank::of(&bank.ask_next, crate::companion::FactKind::Job);
    assert!(job.iter().all(|q| asked(q) == 0), "{replies:#?}");
}

#[test]
fn a_boyfriend_told_of_then_he_is_kept_and_a_wedding_ahead_has_not_happened() {
    let spec = spec();
    let mut state = CompanionState::default();
    let r = chat(
        &mut state,
        &spec,
        &[
            ("我男朋友下周来看我。", 0),
            ("他是个程序员，话很少。", 0),
            ("我下个月八号要去参加表姐的婚礼。", 0),
            ("今天天气真好。", 0),
            ("婚礼的裙子我选了浅蓝色的。", 3),
            ("你还记得我男朋友是做什么的吗？", 3),
            ("你还记得我下个月要干什么吗？", 30),
        ],
    );
    assert!(
        r[1].contains("程序员，话很少"),
        "one answer for him: {}",
        r[1]
    );
    assert!(!r[2].contains("然后呢"), "a dated plan is heard: {}", r[2]);
    assert!(
        !r[3].contains("慢慢学"),
        "the weather is answered: {}",
        r[3]
    );
    assert!(
        !r[4].contains("办成了"),
        "the wedding is a month off: {}",
        r[4]
    );
    assert!(r[5].contains("程序员"), "{}", r[5]);
    // Told in April, asked in May: 下个月 was May.
    assert!(r[6].contains("五月八号"), "{}", r[6]);
}

#[test]
fn learning_is_heard_again_and_a_brothers_name_and_news_are_one_answer() {
    let spec = spec();
    let mut state = CompanionState::default();
    let r = chat(
        &mut state,
        &spec,
        &[
            ("你好", 0),
            ("我最近在学吉他。", 0),
            ("我有个弟弟，叫林冬，在北京工作。", 0),
            ("吉他我已经能弹一首歌了。", 2),
            ("你还记得我最近在学什么吗？", 3),
            ("谁最会做饭？", 3),
        ],
    );
    assert!(r[1].contains("吉他"), "{}", r[1]);
    assert!(
        r[2].contains("在北京工作"),
        "the news is answered: {}",
        r[2]
    );
    assert!(
        r[3].contains("吉他") && r[3].contains('学'),
        "the guitar is the one being learnt: {}",
        r[3]
    );
    assert!(r[4].contains("你在学吉他"), "{}", r[4]);
    // It knows nobody in this test town: it says so rather than names one.
    assert!(r[5].contains("说不上谁最会做饭"), "{}", r[5]);
}

#[test]
fn what_happened_is_felt_and_a_doubt_is_answered_with_what_went_well() {
    let spec = spec();
    let mut state = CompanionState::default();
    let r = chat(
        &mut state,
        &spec,
        &[
            ("我叫小雨，在读研究生。", 0),
            ("我养了一只猫，叫团子。", 0),
            ("你喜欢猫吗？", 0),
            ("昨天实验做砸了，数据全废了。", 1),
            ("我下个月要去北京开会，第一次做报告。", 1),
            ("在吗", 3),
            ("论文终于写完初稿了！", 3),
            ("我有时候觉得自己什么都做不好。", 3),
            ("这几天女儿回来了，陪了我两天。", 3),
            ("你觉得我该怎么办？老是一个人有点闷。", 3),
            ("我下周三要去医院复查。", 3),
            ("你会一直在这里吗？", 3),
            ("晚上再聊", 3),
            ("你喜欢下雨天吗？", 4),
            ("我妈妈复查了，医生说恢复得不错。", 4),
        ],
    );
    assert!(r[2].contains("团子"), "the cat it knows: {}", r[2]);
    assert!(r[3].contains("做砸了"), "a setback is heard: {}", r[3]);
    assert!(!r[5].contains("不知道"), "在吗 is a hello: {}", r[5]);
    assert!(
        r[6].contains("写完初稿") || r[6].contains("太好了"),
        "{}",
        r[6]
    );
    assert!(
        r[7].contains("写完初稿"),
        "what went well is brought back: {}",
        r[7]
    );
    assert!(r[8].contains("女儿这几天回来了"), "her news: {}", r[8]);
    assert!(
        r[9].contains("一个人有点闷"),
        "the worry in the question: {}",
        r[9]
    );
    assert!(!r[10].contains("真好"), "a check-up is no treat: {}", r[10]);
    assert!(r[11].contains("在这儿"), "staying, not a skill: {}", r[11]);
    assert!(!r[12].contains("慢慢学"), "a goodbye: {}", r[12]);
    assert!(r[13].contains("下雨前"), "what it likes of rain: {}", r[13]);
    assert!(
        r[14].contains("恢复得不错") && (r[14].contains("放心") || r[14].contains("真好")),
        "good news of her is a relief: {}",
        r[14]
    );
}

/// A cook out of work (the 40-message 阿杰 chat): the job lost is felt, a
/// quarrel heard, 没用 asked as a question answered as doubt, the worry kept
/// for when it is asked about, making up heard as good news, and 吃什么
/// never named as a thing liked.
#[test]
fn a_lost_job_a_quarrel_and_a_doubt_asked_are_heard() {
    let spec = spec();
    let mut state = CompanionState::default();
    let r = chat(
        &mut state,
        &spec,
        &[
            ("我叫阿杰，三十一岁，是个厨师。", 0),
            ("我在杭州一家饭馆做了八年，上个月饭馆关门了。", 0),
            ("现在还没找到新工作，心里挺慌的。", 0),
            ("你喜欢吃什么？", 0),
            ("今天带豆豆去钓鱼了，钓了三条鲫鱼。", 1),
            ("昨天跟老婆吵了一架，为了钱的事。", 1),
            ("你觉得我是不是很没用？", 1),
            ("我跟老婆和好了，她说其实她也是担心。", 2),
            ("面试结束了，感觉还不错。", 2),
            ("你记得我之前最担心什么吗？", 2),
        ],
    );
    assert!(
        !r[1].contains("你怎么看"),
        "a job lost is no topic: {}",
        r[1]
    );
    assert!(!r[2].contains("慢慢学"), "慌 is a feeling: {}", r[2]);
    assert!(!r[3].starts_with("吃什"), "no thing named 吃什: {}", r[3]);
    assert!(
        r[3].contains("不吃饭") || r[3].contains("晨露"),
        "what it eats: {}",
        r[3]
    );
    assert!(!r[5].contains("你接着说"), "a quarrel is heard: {}", r[5]);
    let doubt = ["不这么看", "自己做到", "不是这样", "已经很好"];
    assert!(
        !r[6].contains("话不多") && doubt.iter().any(|w| r[6].contains(w)),
        "a doubt, answered as one: {}",
        r[6]
    );
    assert!(!r[7].contains("辛苦了"), "making up is good news: {}", r[7]);
    let glad = ["高兴", "开心", "太好了"];
    assert!(
        glad.iter().any(|w| r[8].contains(w)),
        "an interview gone well: {}",
        r[8]
    );
    assert!(
        r[9].contains("工作") || r[9].contains("慌"),
        "the worry told: {}",
        r[9]
    );
    assert!(
        !r[9].contains("松口气"),
        "an interview is no job yet: {}",
        r[9]
    );
}

/// A worry asked about after news that eased it is told as past, with the
/// news; told days ago, its 现在 is not now.
#[test]
fn a_worry_eased_by_good_news_is_recalled_as_past() {
    let spec = spec();
    let mut state = CompanionState::default();
    let r = chat(
        &mut state,
        &spec,
        &[
            ("我是个厨师。", 0),
            ("现在还没找到新工作，心里挺慌的。", 0),
            ("我跟老婆和好了，她说其实她也是担心。", 1),
            ("你记得我之前最担心什么吗？", 1),
            ("酒店打电话来了，我被录取了！", 2),
            ("你记得我之前最担心什么吗？", 2),
        ],
    );
    assert!(
        r[3].contains("那阵子还没找到新工作") && !r[3].contains("录取"),
        "not eased by making up: {}",
        r[3]
    );
    assert!(
        r[5].contains("那阵子还没找到新工作") && r[5].contains("被录取了"),
        "eased by the job: {}",
        r[5]
    );
    assert!(!r[5].contains("好些了吗"), "{}", r[5]);
}

#[test]
fn a_short_telling_is_said_back_and_coming_less_is_heard() {
    let spec = spec();
    let mut state = CompanionState::default();
    let r = chat(
        &mut state,
        &spec,
        &[
            ("你好", 0),
            ("叫我阿杰吧", 0),
            ("晚上我给他做了鲫鱼汤。", 0),
            ("下个月一号正式上班。", 0),
            ("我以后可能没那么多时间来了，不过有空一定来看你。", 0),
        ],
    );
    assert!(
        r[2].contains("你给他做了鲫鱼汤"),
        "said back, 我 as 你: {}",
        r[2]
    );
    assert!(
        r[3].contains("下个月一号正式上班") && !r[3].contains("后来呢"),
        "ahead, not done: {}",
        r[3]
    );
    let here = ["我就在这儿", "我一直在"];
    assert!(here.iter().any(|w| r[4].contains(w)), "{}", r[4]);
}

#[test]
fn yesterdays_trouble_is_asked_after_and_what_was_done_or_missed_is_answered() {
    let spec = spec();
    let mut state = CompanionState::default();
    let r = chat(
        &mut state,
        &spec,
        &[
            ("我叫小周", 0),
            ("我妈身体不太好，腿脚不方便。", 0),
            ("我养了一只猫，叫豆豆。", 0),
            ("我回来了", 1),
            ("我妈昨天打电话了，说腿好多了", 1),
            ("你还记得豆豆是谁吗？", 1),
            ("我跟老板谈了谈，他说下个月给我加工资。", 1),
            ("你觉得我做得对吗？", 1),
            ("你会不会觉得我话太多了？", 1),
            ("算了，不说这个了", 1),
            ("我想我妈了", 1),
            ("下次我带红烧肉给你尝尝", 1),
        ],
    );
    let has = |k: usize, any: &[&str]| any.iter().any(|w| r[k].contains(w));
    assert!(r[3].contains("你妈身体不太好"), "asked after: {}", r[3]);
    assert!(has(4, &["太好了", "真好"]), "good news: {}", r[4]);
    assert!(
        r[5].contains("猫") && !r[5].contains("小周"),
        "the cat: {}",
        r[5]
    );
    assert!(has(6, &["太好了", "真好"]), "a raise: {}", r[6]);
    let deed = r[7].contains("你跟老板谈了谈") && !r[7].contains("加工资");
    assert!(deed, "the deed alone: {}", r[7]);
    assert!(
        !r[8].contains("在我看来") && has(8, &["不会", "怎么会"]),
        "{}",
        r[8]
    );
    assert!(has(9, &["不说了", "放一放"]), "dropped: {}", r[9]);
    assert!(
        r[10].contains("你妈") && !r[10].contains("后来呢"),
        "{}",
        r[10]
    );
    assert!(
        !r[10].contains("对吧"),
        "her news not woven in again: {}",
        r[10]
    );
    assert!(has(11, &["等着", "说定了"]), "the offer: {}", r[11]);
}
