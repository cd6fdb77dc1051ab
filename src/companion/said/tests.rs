use super::*;

fn facts(message: &str) -> Vec<(FactKind, String, String)> {
    read(message)
        .facts
        .into_iter()
        .map(|s| (s.kind, s.about, s.value))
        .collect()
}

fn has(message: &str, kind: FactKind, about: &str, value: &str) {
    let f = facts(message);
    assert!(
        f.contains(&(kind, about.to_string(), value.to_string())),
        "{message}: {f:?}"
    );
}

#[test]
fn a_question_is_never_taken_for_a_name() {
    for q in [
        "你还记得我叫什么吗？",
        "我叫什么来着",
        "你知道我叫啥吗",
        "你还记得我的名字吗",
        "我叫什么名字？",
        "你叫什么名字？",
    ] {
        let said = read(q);
        assert!(said.facts.is_empty(), "{q}: {:?}", said.facts);
        assert!(!said.does(Act::TellsName), "{q}");
        assert!(said.question.is_some(), "{q}");
    }
}

#[test]
fn names_are_read_in_the_common_ways() {
    has("你好，我叫林夏。", FactKind::Name, "", "林夏");
    has("叫我小林就好", FactKind::Name, CALL_ME, "小林");
    has("大家都叫我阿杰", FactKind::Name, CALL_ME, "阿杰");
    has("我叫周雨，叫我小雨就行", FactKind::Name, "", "周雨");
    has("我叫周雨，叫我小雨就行", FactKind::Name, CALL_ME, "小雨");
    assert_eq!(read("其实我不叫小雨，我叫周雨").retracts, ["小雨"]);
    has("我的名字是王一一", FactKind::Name, "", "王一一");
    has("我不叫小林，我叫小夏", FactKind::Name, "", "小夏");
    assert!(facts("我叫了外卖").is_empty());
    assert!(
        facts("我家狗的名字叫旺财")
            .iter()
            .all(|f| f.0 != FactKind::Name)
    );
}

#[test]
fn jobs_homes_ages_and_birthdays() {
    has("我是一名护士", FactKind::Job, "", "护士");
    has("我叫小林，是程序员", FactKind::Job, "", "程序员");
    has("我在医院工作", FactKind::Job, "", "在医院工作");
    has(
        "我在一家咖啡店当店员",
        FactKind::Job,
        "",
        "在一家咖啡店当店员",
    );
    has("我是做设计的", FactKind::Job, "", "做设计的");
    assert_eq!(
        read("我昨天跟你说的烦恼，你还记得吗？").question,
        Some(Question::Recall(vec![FactKind::Worry]))
    );
    has(
        "说实话，我有点担心自己手笨",
        FactKind::Worry,
        "",
        "你有点担心自己手笨",
    );
    // A worry pointed back at is no new worry.
    assert!(
        facts("我昨天跟你说的烦恼，你还记得吗？")
            .iter()
            .all(|f| f.0 != FactKind::Worry)
    );
    // An apprentice's trade, with no 我 before it (a play-tester's words).
    has(
        "我叫林墨，刚搬到心谷镇，是个木匠学徒。",
        FactKind::Job,
        "",
        "木匠学徒",
    );
    has(
        "我是铁匠学徒，跟着马铁学打铁",
        FactKind::Job,
        "",
        "铁匠学徒",
    );
    assert!(facts("我是成都人").iter().all(|f| f.0 != FactKind::Job));
    has("我是成都人", FactKind::Home, "", "成都");
    has("我老家在云南大理", FactKind::Home, "", "云南大理");
    has("我来自杭州", FactKind::Home, "", "杭州");
    has("我在海边长大", FactKind::Home, "", "海边");
    assert!(
        facts("我是一个很内向的人").is_empty(),
        "{:?}",
        facts("我是一个很内向的人")
    );
    assert!(
        facts("我从小就喜欢画画")
            .iter()
            .all(|f| f.0 != FactKind::Home)
    );
    has("我今年二十六岁", FactKind::Age, "", "二十六");
    has("我的生日是五月十二号", FactKind::Birthday, "", "五月十二号");
    has("我是3月5日出生的", FactKind::Birthday, "", "3月5日");
    assert!(
        facts("我妈妈的生日是6月1日")
            .iter()
            .all(|f| f.0 != FactKind::Birthday)
    );
    has("6月18号是我们的纪念日", FactKind::Date, "纪念日", "6月18号");
}

#[test]
fn pets_by_name_and_kind() {
    has(
        "我最喜欢的东西是一只叫豆包的橘猫",
        FactKind::Pet,
        "橘猫",
        "豆包",
    );
    has("我家狗叫旺财", FactKind::Pet, "狗", "旺财");
    has("我养了一只仓鼠，它叫团子", FactKind::Pet, "仓鼠", "团子");
    has("我养了一只仓鼠", FactKind::Pet, "仓鼠", "");
    has("豆包是我家的猫", FactKind::Pet, "猫", "豆包");
    has("我家有只柯基，名字叫馒头", FactKind::Pet, "柯基", "馒头");
    assert!(
        facts("我家有只柯基，名字叫馒头")
            .iter()
            .all(|f| f.0 != FactKind::Name)
    );
}

#[test]
fn tastes_people_worries_and_plans() {
    has("我最爱吃火锅", FactKind::Food, "", "火锅");
    has("我最喜欢的食物是红烧肉", FactKind::Food, "", "红烧肉");
    has("我喜欢爬山", FactKind::Likes, "", "爬山");
    has("我讨厌下雨天", FactKind::Dislikes, "", "下雨天");
    has("我不喜欢吃香菜", FactKind::Dislikes, "", "香菜");
    assert!(facts("我喜欢你").is_empty());
    has("我妈妈在老家种茶", FactKind::Family, "妈妈", "在老家种茶");
    has("我有一个妹妹", FactKind::Family, "妹妹", "");
    has("我女朋友叫小雨", FactKind::Person, "女朋友", "叫小雨");
    has(
        "我最近工作压力很大",
        FactKind::Worry,
        "",
        "你最近工作压力很大",
    );
    has(
        "我打算明年去云南旅行",
        FactKind::Plan,
        "",
        "你打算明年去云南旅行",
    );
}

#[test]
fn recall_questions_name_what_they_ask() {
    let kinds = |q: &str| read(q).recall_kinds().map(<[FactKind]>::to_vec);
    assert_eq!(kinds("你还记得我叫什么吗？"), Some(vec![FactKind::Name]));
    assert_eq!(kinds("我是干什么的来着"), Some(vec![FactKind::Job]));
    assert_eq!(kinds("我家狗叫啥"), Some(vec![FactKind::Pet]));
    assert_eq!(kinds("那只猫叫什么名字"), Some(vec![FactKind::Pet]));
    assert_eq!(kinds("你知道我最爱吃什么吗"), Some(vec![FactKind::Food]));
    assert_eq!(
        kinds("我是哪里人，你还记得吗？"),
        Some(vec![FactKind::Home])
    );
    assert_eq!(kinds("我生日是哪天？"), Some(vec![FactKind::Birthday]));
    assert_eq!(kinds("你还记得我吗"), Some(vec![]));
    assert_eq!(kinds("你叫什么名字"), None);
    assert_eq!(kinds("我该怎么称呼你？"), None);
    assert_eq!(
        read("你叫什么名字").question,
        Some(Question::AboutYou(Topic::Name))
    );
    assert_eq!(
        read("今天几号？").question,
        Some(Question::AboutYou(Topic::Date))
    );
}

#[test]
fn acts_and_feelings() {
    let s = read("你好！我今天好累，被老板骂了");
    assert!(s.does(Act::Greets) && s.does(Act::Feels), "{s:?}");
    let f = s.feeling.unwrap();
    assert!(!f.good);
    assert_eq!(f.word, "好累");
    assert!(read("没关系，谁都会说错").does(Act::Forgives));
    assert!(read("我喜欢你").does(Act::Confesses));
    assert!(read("晚安，明天见").does(Act::Goodbye));
    assert!(read("今天就先聊到这，我去接豆豆放学。").does(Act::Goodbye));
    assert!(read("好久不见").does(Act::Misses));
    let good = read("我升职了！").feeling.unwrap();
    assert!(good.good);
}

#[test]
fn the_companion_bench_holds_the_labels_the_chat_keeps() {
    let text = include_str!("../../../tests/data/companion-bench.jsonl");
    let mut told = 0;
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let memory = v["text"].as_str().unwrap_or("");
        let Some((_, rest)) = memory.split_once("：「") else {
            continue;
        };
        let Some((message, tags)) = rest.split_once('」') else {
            continue;
        };
        let facts: Vec<_> = read(message)
            .facts
            .into_iter()
            .map(|s| crate::companion::PlayerFact {
                kind: s.kind,
                about: s.about,
                value: s.value,
                said: message.into(),
                time: crate::base::time::GameTime(0),
            })
            .collect();
        told += usize::from(!facts.is_empty());
        assert_eq!(
            tags,
            fact_tags(&facts),
            "{memory}: rerun scripts/companion-bench.py"
        );
    }
    assert!(told >= 50, "{told}");
}

/// What play-testers said, read as they meant it.
#[test]
fn the_ways_play_testers_said_things() {
    has(
        "我养了一只橘猫，叫馒头，可胖了",
        FactKind::Pet,
        "橘猫",
        "馒头",
    );
    assert!(
        facts("我养了一只橘猫，叫馒头，可胖了")
            .iter()
            .all(|f| f.0 != FactKind::Name)
    );
    has(
        "我现在在读大二，学的是计算机",
        FactKind::Job,
        MAJOR,
        "计算机",
    );
    has("我是从成都来的，在杭州上学", FactKind::Home, "", "成都");
    has(
        "我的生日是2004年3月15号",
        FactKind::Birthday,
        "",
        "2004年3月15号",
    );
    has(
        "我平时喜欢打羽毛球和看动漫",
        FactKind::Likes,
        "",
        "打羽毛球和看动漫",
    );
    has("我这人最爱吃饺子，韭菜鸡蛋馅的", FactKind::Food, "", "饺子");
    has("我是陈静，大家都叫我静姐", FactKind::Name, "", "陈静");
    has("我是陈静，大家都叫我静姐", FactKind::Name, CALL_ME, "静姐");
    has("叫我杰哥", FactKind::Name, CALL_ME, "杰哥");
    has("外卖员", FactKind::Job, "", "外卖员");
    has(
        "老伴去年走了，现在跟儿子儿媳一起住",
        FactKind::Family,
        "老伴",
        "去年走了",
    );
    has(
        "我们有个五岁的儿子叫乐乐",
        FactKind::Family,
        "儿子",
        "叫乐乐",
    );
    has(
        "家里还有一只仓鼠，名字叫芝麻",
        FactKind::Pet,
        "仓鼠",
        "芝麻",
    );
    assert!(
        facts("叫旺财").is_empty(),
        "a bare name is no player's name"
    );
    assert_eq!(bare_name("叫旺财"), Some("旺财".into()));
    assert!(facts("我干嘛的").is_empty(), "a question");
    assert!(!read("想我老伴了").does(Act::Misses));
    assert!(read("想我了吗").does(Act::Misses));
    let first = |q: &str| read(q).recall_kinds().and_then(|k| k.first().copied());
    assert_eq!(first("我跟你说过我不爱吃什么"), Some(FactKind::Dislikes));
    assert_eq!(first("明年我打算干啥"), Some(FactKind::Plan));
    assert_eq!(first("我读的是什么专业来着"), Some(FactKind::Job));
    assert_eq!(first("暑假去哪"), Some(FactKind::Plan));
    assert_eq!(first("我家里都有谁"), Some(FactKind::Family));
}

#[test]
fn a_correction_takes_back_what_was_wrong() {
    let said = read("我其实不是老师了，现在在图书馆帮苏文整理旧书。");
    assert_eq!(said.wrong, [Stated::new(FactKind::Job, "", "老师")]);
    has(
        "我其实不是老师了，现在在图书馆帮苏文整理旧书。",
        FactKind::Job,
        "",
        "在图书馆帮苏文整理旧书",
    );
    assert!(facts("我现在在家做饭").iter().all(|f| f.0 != FactKind::Job));
    let said = read("其实我说错了，年糕不是橘猫，是一只白猫。");
    assert_eq!(said.wrong, [Stated::new(FactKind::Pet, "橘猫", "年糕")]);
    has(
        "其实我说错了，年糕不是橘猫，是一只白猫。",
        FactKind::Pet,
        "白猫",
        "年糕",
    );
}

#[test]
fn asking_what_to_do_is_no_question_about_oneself() {
    assert_eq!(read("你觉得我该怎么办？").question, Some(Question::Advice));
    assert_eq!(read("那我该怎么办才好").question, Some(Question::Advice));
    // A play-tester's words: asking whether to go on, and how to win someone over.
    assert_eq!(
        read("你觉得我该坚持下去吗？").question,
        Some(Question::Advice)
    );
    assert_eq!(
        read("你能给我点建议吗？怎么才能让师傅对我改观？").question,
        Some(Question::Advice)
    );
    assert_eq!(
        read("你觉得我是个什么样的人？").question,
        Some(Question::Opinion)
    );
}

#[test]
fn a_trade_plied_somewhere_a_split_birthday_and_a_dated_plan_are_read() {
    has("我在城里做程序员", FactKind::Job, "", "在城里做程序员");
    assert!(
        !facts("我在家做饭").iter().any(|f| f.0 == FactKind::Job),
        "cooking at home is no job"
    );
    // The worry is told without the job said before it.
    let f = facts("我在城里做程序员，最近压力有点大，就想来这小镇住几天。");
    let worry = f.iter().find(|f| f.0 == FactKind::Worry).expect("a worry");
    assert!(!worry.2.contains("程序员"), "{worry:?}");
    has(
        "下个月是我生日，十二月八号。",
        FactKind::Birthday,
        "",
        "十二月八号",
    );
    has(
        "我明天想去河边走走。",
        FactKind::Plan,
        "",
        "你明天想去河边走走",
    );
    has(
        "我今天不上班，想在镇上逛逛。",
        FactKind::Plan,
        "",
        "你今天不上班，想在镇上逛逛",
    );
    assert!(
        !facts("我想在你这儿多坐会儿。")
            .iter()
            .any(|f| f.0 == FactKind::Plan)
    );
    // Someone else's birthday, someone else's age.
    assert!(
        !facts("我孙子的生日是五月二十号。")
            .iter()
            .any(|f| f.0 == FactKind::Birthday)
    );
    assert!(
        !facts("我家有条金毛，叫可乐，八岁了。")
            .iter()
            .any(|f| f.0 == FactKind::Age)
    );
    // A book's title is no feeling; quitting takes the job back.
    assert_eq!(read("最近在看《百年孤独》，有点难懂。").feeling, None);
    assert!(
        read("我辞职了！")
            .wrong
            .iter()
            .any(|w| w.kind == FactKind::Job)
    );
}

#[test]
fn judging_ideas_wanted_and_questions_about_the_two_of_them_are_told_apart() {
    let q = |m: &str| read(m).question;
    assert_eq!(
        q("我打算在镇上开一家小茶馆，你觉得怎么样？"),
        Some(Question::Judge(String::new()))
    );
    assert_eq!(
        q("你觉得酒馆的钟大川人怎么样？"),
        Some(Question::Judge("酒馆的钟大川人".into()))
    );
    assert_eq!(q("你最近怎么样？"), Some(Question::AboutYou(Topic::How)));
    assert_eq!(q("你觉得我怎么样？"), Some(Question::Opinion));
    assert_eq!(q("我该给茶馆起个什么名字好？"), Some(Question::Suggest));
    assert_eq!(q("你觉得我该怎么办？"), Some(Question::Advice));
    assert_eq!(
        q("今天天气真好，要不要一起去散步？"),
        Some(Question::AboutYou(Topic::Invite))
    );
    assert_eq!(q("你会做什么菜？"), Some(Question::AboutYou(Topic::Can)));
    assert_eq!(
        q("你说我们算是朋友了吗？"),
        Some(Question::AboutYou(Topic::Us))
    );
    assert_eq!(q("你去过成都吗？"), Some(Question::AboutYou(Topic::Been)));
    // Which of a kind it likes is about that kind, not all it likes.
    assert_eq!(
        q("你喜欢什么样的花纹？"),
        Some(Question::AboutYou(Topic::LikesThis))
    );
    assert_eq!(
        crate::companion::said::liked_thing("你喜欢哪种花呀？").as_deref(),
        Some("花")
    );
    assert_eq!(
        crate::companion::said::liked_thing("你喜欢什么颜色的花？").as_deref(),
        Some("花")
    );
    assert_eq!(
        q("你觉得我是不是该去省城跟儿子住？"),
        Some(Question::Advice)
    );
    assert_eq!(q("你觉得我这样对吗？"), Some(Question::Deed));
    assert_eq!(q("你觉得我能考过吗？"), Some(Question::Believe));
    assert_eq!(q("你有什么好办法吗？"), Some(Question::Advice));
    assert_eq!(
        crate::companion::said::choice("你觉得我是不是该去省城跟儿子住？").as_deref(),
        Some("去省城跟儿子住")
    );
    assert_eq!(crate::companion::said::choice("你觉得我该怎么办？"), None);
    for all in ["你喜欢什么？", "你喜欢什么样的人？"] {
        assert_eq!(q(all), Some(Question::AboutYou(Topic::Likes)), "{all}");
    }
    for food in ["你喜欢吃什么？", "你平时爱吃啥？"] {
        assert_eq!(q(food), Some(Question::AboutYou(Topic::Food)), "{food}");
    }
    assert_eq!(
        q("你平时都跟谁说话？"),
        Some(Question::AboutYou(Topic::Company))
    );
    assert_eq!(
        q("你也爱吃火锅吗？"),
        Some(Question::AboutYou(Topic::LikesThis))
    );
    assert_eq!(
        q("镇上有什么好玩的地方推荐吗？"),
        Some(Question::AboutYou(Topic::Places))
    );
}

#[test]
fn what_follows_a_relative_is_theirs_and_a_bad_night_is_a_worry() {
    // 「在上大学」 is the sister's, not the player's job.
    let f = facts("我有个妹妹，在上大学。");
    assert!(f.iter().all(|(k, _, _)| *k != FactKind::Job), "{f:?}");
    has(
        "我有个妹妹，在上大学。",
        FactKind::Family,
        "妹妹",
        "在上大学",
    );
    // Still the player's: a feeling after a relative, and 我 said again.
    let f = facts("我妈住院了，好担心");
    assert!(f.iter().any(|(k, _, _)| *k == FactKind::Worry), "{f:?}");
    has("我有个哥哥，我是护士", FactKind::Job, "", "护士");
    // An aching knee is a worry, and a feeling.
    let said = read("最近膝盖疼，上下楼有点吃力");
    assert!(
        said.facts.iter().any(|s| s.kind == FactKind::Worry),
        "{said:?}"
    );
    assert!(said.feeling.is_some_and(|f| !f.good));
    // A bad night is a worry, and a feeling.
    let said = read("最近夜班太多了，总是睡不好。");
    assert!(said.facts.iter().any(|s| s.kind == FactKind::Worry));
    assert!(said.feeling.is_some_and(|f| !f.good));
    // Questions about itself it has its own answers to.
    let q = |m: &str| read(m).question;
    assert_eq!(q("你最怕什么？"), Some(Question::AboutYou(Topic::Fear)));
    assert_eq!(
        q("你一个人在河边不孤单吗？"),
        Some(Question::AboutYou(Topic::Lonely))
    );
    assert_eq!(
        q("你平时看书吗？"),
        Some(Question::AboutYou(Topic::Pastime))
    );
    assert_eq!(
        q("镇上谁做饭最好吃？"),
        Some(Question::AboutYou(Topic::Places))
    );
}

#[test]
fn a_link_word_is_no_home_a_cannot_is_kept_and_a_dated_plan_is_a_plan() {
    // 「虽然是成都人」 once made a home town of 「虽然是成都」.
    let f = facts("我其实不喜欢吃辣，虽然是成都人。");
    assert!(
        f.contains(&(FactKind::Dislikes, String::new(), "辣".into())),
        "{f:?}"
    );
    assert!(
        f.contains(&(FactKind::Home, String::new(), "成都".into())),
        "{f:?}"
    );
    assert!(!f.iter().any(|(_, _, v)| v.contains("虽然")), "{f:?}");
    has(
        "我不太会游泳，小时候呛过水。",
        FactKind::Unable,
        "不太会",
        "游泳",
    );
    has(
        "我其实不太会做饭，天天吃食堂。",
        FactKind::Unable,
        "不太会",
        "做饭",
    );
    has("我不会开车", FactKind::Unable, "不会", "开车");
    // A plain 不会 that is a promise is no skill.
    for promise in ["我不会忘记你的", "我不会去的", "我不会再迟到了"] {
        assert!(
            !facts(promise)
                .iter()
                .any(|(k, _, _)| *k == FactKind::Unable),
            "{promise}"
        );
    }
    has(
        "我下个月八号要去参加表姐的婚礼。",
        FactKind::Plan,
        "",
        "你下个月八号要去参加表姐的婚礼",
    );
    // 「我要去睡了」 names no day: no plan to remember.
    assert!(
        !facts("我要去睡了")
            .iter()
            .any(|(k, _, _)| *k == FactKind::Plan)
    );
    assert_eq!(
        read("你还记得我下个月要干什么吗？").recall_kinds(),
        Some(&[FactKind::Plan][..])
    );
    assert_eq!(
        read("你还记得我不会什么吗？").recall_kinds(),
        Some(&[FactKind::Unable][..])
    );
}

#[test]
fn he_after_a_relative_is_the_relative_and_the_weather_is_heard() {
    let said = read_after("他是个程序员，话很少。", Some("男朋友"));
    let f: Vec<_> = said
        .facts
        .iter()
        .map(|s| (s.kind, &*s.about, &*s.value))
        .collect();
    // What one message tells of him is kept as one piece of news.
    assert!(
        f.contains(&(FactKind::Person, "男朋友", "是个程序员，话很少")),
        "{f:?}"
    );
    assert!(tells_trade("是个程序员") && !tells_trade("下周来看你"));
    // With no one told of before, 他 is nobody the player told of.
    assert!(read_after("他是个程序员。", None).facts.is_empty());
    assert_eq!(
        read("今天天气真好，阳光暖暖的。").weather,
        Some(Weather::Fine)
    );
    assert_eq!(read("下雨了，好冷啊。").weather, Some(Weather::Rain));
    assert_eq!(read("我今天很开心").weather, None);
}

#[test]
fn what_one_is_learning_is_kept_and_who_is_most_asks_of_the_town() {
    has("我最近在学吉他，手指好疼。", FactKind::Learning, "", "吉他");
    has("我在学开车呢", FactKind::Learning, "", "开车");
    has("我这阵子正在学习做饭。", FactKind::Learning, "", "做饭");
    // 在学校 is a place, and a relative's lessons are not the player's.
    for not in ["我在学校上班。", "我女儿在学钢琴。", "我在学生会帮忙"] {
        assert!(
            !facts(not).iter().any(|(k, _, _)| *k == FactKind::Learning),
            "{not}: {:?}",
            facts(not)
        );
    }
    let q = |m: &str| read(m).question;
    assert_eq!(
        q("你觉得镇上谁最有意思？"),
        Some(Question::Who("有意思".into()))
    );
    assert_eq!(
        q("镇上最好相处的是谁？"),
        Some(Question::Who("好相处".into()))
    );
    assert_eq!(q("谁最会做饭？"), Some(Question::Who("会做饭".into())));
    assert!(
        matches!(q("你还记得我最近在学什么吗？"), Some(Question::Recall(k)) if k[0] == FactKind::Learning)
    );
}

#[test]
fn a_retirees_trade_a_weekday_plan_and_what_follows_a_death_are_read_right() {
    has(
        "我退休前是开公交车的，开了三十年。",
        FactKind::Job,
        "",
        "退休前开公交车",
    );
    has(
        "我下周三要去医院复查。",
        FactKind::Plan,
        "",
        "你下周三要去医院复查",
    );
    has("我年轻的时候最喜欢游泳。", FactKind::Likes, "", "游泳");
    // The one who lives alone is the player, not the spouse who died.
    let f = facts("我老伴前年走了，现在一个人住。");
    assert!(!f.iter().any(|(_, _, v)| v.contains("一个人住")), "{f:?}");
    // 「没什么大问题」 is good news, not a question.
    let said = read("复查结果出来了，没什么大问题。");
    assert_eq!(said.question, None);
    assert!(said.feeling.is_some_and(|f| f.good));
    assert!(read("好了，我该去吃饭了。").does(Act::Goodbye));
    assert!(read("我去给花浇水了").does(Act::Goodbye));
    assert!(!read("我去诊所看了膝盖").does(Act::Goodbye));
    // Praise of what the player made is the player's good news.
    let praised = read("我包的饺子，邻居都说好吃");
    assert!(praised.facts.is_empty(), "{:?}", praised.facts);
    assert!(praised.feeling.is_some_and(|f| f.good));
    // Someone else missing the player is not the player missing it.
    assert!(!read("昨天朵朵给我打视频，说想我了").does(Act::Misses));
}
