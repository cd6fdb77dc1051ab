//! What residents say when the player chats with them and no model writes
//! the reply (`chat.yaml` in a scenario; the default town's is built in):
//! lines for each thing a message can do — tell a fact, share a feeling,
//! ask to be remembered, ask about the one spoken to, come back after days,
//! say goodbye — with placeholders the built-in brain fills:
//!
//! - `{称呼}` how the player is called; `{名字}` the speaker's own name;
//! - `{事实}` a fact in the second person (你家的橘猫叫豆包), `{值}` its value
//!   (豆包), `{种类}` what within its kind (橘猫), `{旧事实}` what it replaced;
//! - `{问的}` what a question asked about (宠物); `{感受}` the feeling's word,
//!   `{原因}` the clause it came in; `{天数}` days apart; `{日期}` today;
//!   `{话题}` a word of the message (the place of 「你去过成都吗」).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::facts::FactKind;
use super::said::{Topic, Weather};
use crate::base::{Diagnostic, Diagnostics, load_checked, parse_checked};

/// The file a scenario keeps it in.
pub const FILE: &str = "chat.yaml";

/// Lines of one kind.
pub type Lines = Vec<String>;

/// The chat phrase bank.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatBank {
    /// Hello.
    pub greet: Lines,
    /// The first message after a day or more apart (`{天数}`).
    pub back: Lines,
    /// … after a week or more.
    pub back_long: Lines,
    /// … the next day (a line without `{天数}`: 「一天没见」 reads oddly).
    #[serde(default)]
    pub back_next_day: Lines,
    /// A fact just told, by kind.
    pub told: BTreeMap<FactKind, Lines>,
    /// A loss told (a relative who died): `{事实}`, `{种类}`.
    #[serde(default)]
    pub loss: Lines,
    /// News of a relative or friend that went well (妈妈复查了，医生说恢复得
    /// 不错): `{事实}`, `{种类}`.
    #[serde(default)]
    pub news_good: Lines,
    /// A plan that is a matter of health (去医院复查): `{事实}`.
    #[serde(default)]
    pub plan_health: Lines,
    /// A fact that replaced an older one (`{旧事实}`).
    pub corrected: Lines,
    /// A fact told again.
    pub known: Lines,
    /// A recall question answered, by kind.
    pub recall: BTreeMap<FactKind, Lines>,
    /// A worry asked about after good news that eased it was told
    /// (「你记得我之前最担心什么吗？」 after 「我被录取了」): `{事实}` the
    /// worry, `{原因}` the news.
    #[serde(default)]
    pub worry_eased: Lines,
    /// What ties good news to a worry: news with a word of a group eases a
    /// worry told with a word of the same group (录取 eases 工作).
    #[serde(default)]
    pub worry_eased_by: Vec<Lines>,
    /// 「你还记得我吗」: what it knows, several facts in `{事实}`.
    pub recall_any: Lines,
    /// A recall question about something never told (`{问的}`).
    pub unknown: Lines,
    /// A bad feeling shared.
    pub feeling_bad: Lines,
    /// A good feeling shared.
    pub feeling_good: Lines,
    /// Doubting oneself (「我觉得自己什么都做不好」): `{原因}` is something good
    /// the player told of lately (a line with it is left out when none was).
    #[serde(default)]
    pub feeling_doubt: Lines,
    /// 「你觉得我是个什么样的人」: `{事实}` is what it makes of the player.
    pub opinion: Lines,
    /// A question about the speaker nobody wrote its own answer to.
    pub about_me: BTreeMap<Topic, Lines>,
    /// Goodbye.
    pub goodbye: Lines,
    /// Goodbye for the night: after eight in the evening, or when the
    /// player says they are off to sleep (「晚安」「回去补觉」, at any hour).
    #[serde(default)]
    pub goodbye_night: Lines,
    /// Thanks.
    pub thanks: Lines,
    /// Forgiven.
    pub forgiven: Lines,
    /// Blamed.
    pub blamed: Lines,
    /// Missed.
    pub missed: Lines,
    /// Told it is liked.
    pub liked: Lines,
    /// Asked why.
    pub why: Lines,
    /// Asked for help.
    pub help: Lines,
    /// Asked what to do (「你觉得我该怎么办」): `{事实}` is the worry told last
    /// (a line with it is left out when none was told).
    #[serde(default)]
    pub advice: Lines,
    /// … when the worry is told in the same message (「你觉得我该怎么办？老是
    /// 一个人有点闷」): `{事实}` is it.
    #[serde(default)]
    pub advice_here: Lines,
    /// … when the question weighs a choice and no worry was told
    /// (「我是不是该去省城跟儿子住？」): `{事实}` is the choice.
    #[serde(default)]
    pub advice_choice: Lines,
    /// … when what was told last is a plan, not a worry (「下周一要去面试」,
    /// then 「你说我该怎么准备？」): `{事实}` is the plan.
    #[serde(default)]
    pub advice_plan: Lines,
    /// 「我打算开茶馆，你觉得怎么样？」: what it thinks of what was told
    /// (`{事实}`: the plan, the job … told in the message, or the plan told last).
    #[serde(default)]
    pub judge: Lines,
    /// What it thinks of someone in town it has an impression of: `{值}` the
    /// name, `{事实}` the impression, `{种类}` their trade.
    #[serde(default)]
    pub judge_person: Lines,
    /// … of someone in town it has no impression of (`{值}`, `{种类}`).
    #[serde(default)]
    pub judge_stranger: Lines,
    /// Who in town is the most of something (「镇上谁最有意思？」): `{话题}`
    /// what (有意思), `{值}` one it has an impression of, `{事实}` the
    /// impression, `{种类}` their trade.
    #[serde(default)]
    pub judge_who: Lines,
    /// … when it has an impression of nobody (`{话题}`).
    #[serde(default)]
    pub judge_who_none: Lines,
    /// An idea wanted (「我该给茶馆起个什么名字好？」): `{值}` something the
    /// player likes (a line with it is left out when none is known).
    #[serde(default)]
    pub suggest: Lines,
    /// A job given up (「我辞职了」).
    #[serde(default)]
    pub quit: Lines,
    /// A question it has no answer to.
    pub no_answer: Lines,
    /// The weather spoken of (天气真好, 下雨了), by what it is.
    #[serde(default)]
    pub weather: BTreeMap<Weather, Lines>,
    /// Anything else: an answer to what was said (`{话题}`).
    pub small_talk: Lines,
    /// The player will come less often (「以后可能没那么多时间来了」): it
    /// will be here all the same.
    #[serde(default)]
    pub coming_less: Lines,
    /// 「你觉得我做得对吗？」: a word on what the player told last
    /// (`{事实}`, 我 as 你).
    #[serde(default)]
    pub deed: Lines,
    /// 「你会不会觉得我话太多了？」: no bother at all.
    #[serde(default)]
    pub bother: Lines,
    /// 「你觉得我能考过吗？」: faith in the player (none: what it makes of them).
    #[serde(default)]
    pub believe: Lines,
    /// 「算了，不说这个了」: the topic let go.
    #[serde(default)]
    pub drop_topic: Lines,
    /// 「我想我妈了」 (`{话题}`: 你妈); with what is known of them, `{事实}`.
    #[serde(default)]
    pub miss_family: Lines,
    /// 「我想我老伴了」 of one the player has lost (`{话题}`: 你老伴): no
    /// 「打个电话吧」.
    #[serde(default)]
    pub miss_gone: Lines,
    /// 「下次我带红烧肉给你尝尝」: an offer taken gladly.
    #[serde(default)]
    pub offered: Lines,
    /// Back on a later day, a worry or a relative's trouble told before
    /// asked after (`{事实}`, as of now: 那阵子).
    #[serde(default)]
    pub follow_up: Lines,
    /// A short telling of something done (「晚上我给他做了鲫鱼汤」) said back
    /// to the player (`{事实}`: its words, 我 as 你), before `small_talk`.
    #[serde(default)]
    pub echo_done: Lines,
    /// … of something ahead (「下个月一号正式上班」).
    #[serde(default)]
    pub echo_ahead: Lines,
    /// A known fact the message speaks of (its pet by name, a relative), by kind.
    #[serde(default)]
    pub mentioned: BTreeMap<FactKind, Lines>,
    /// A plan the message speaks of whose day is still ahead (`{话题}`):
    /// it has not come true yet.
    #[serde(default)]
    pub mentioned_ahead: Lines,
    /// A question to learn more, by the kind not known yet.
    pub ask_next: BTreeMap<FactKind, Lines>,
    /// A fact woven in when the message touches it.
    pub weave: Lines,
}

impl ChatBank {
    /// Reads and checks a scenario's `chat.yaml`.
    pub fn load(path: &Path) -> Result<ChatBank, Diagnostics> {
        load_checked(path, Self::problems)
    }

    /// The default town's bank, built in.
    pub fn builtin() -> ChatBank {
        const TEXT: &str = include_str!("../../scenarios/heartvale/chat.yaml");
        parse_checked(
            TEXT,
            Path::new("scenarios/heartvale/chat.yaml"),
            Self::problems,
        )
        .expect("the shipped chat bank is valid (tested)")
    }

    /// [`ChatBank::builtin`], parsed once and shared.
    pub fn shared_builtin() -> std::sync::Arc<ChatBank> {
        static BANK: std::sync::LazyLock<std::sync::Arc<ChatBank>> =
            std::sync::LazyLock::new(|| std::sync::Arc::new(ChatBank::builtin()));
        BANK.clone()
    }

    /// Every list a reply may need must have a line.
    fn problems(&self, path: &Path) -> Diagnostics {
        let mut d = Diagnostics::default();
        let mut need = |field: String, lines: Option<&Lines>| {
            if lines.is_none_or(|l| l.iter().all(|s| s.trim().is_empty())) {
                d.push(Diagnostic::file(
                    path,
                    &format!("`{field}` needs at least one line"),
                    Some("every kind of message gets an answer; see scenarios/heartvale/chat.yaml"),
                ));
            }
        };
        for (field, lines) in [
            ("greet", &self.greet),
            ("back", &self.back),
            ("back_long", &self.back_long),
            ("corrected", &self.corrected),
            ("known", &self.known),
            ("recall_any", &self.recall_any),
            ("unknown", &self.unknown),
            ("feeling_bad", &self.feeling_bad),
            ("feeling_good", &self.feeling_good),
            ("goodbye", &self.goodbye),
            ("thanks", &self.thanks),
            ("forgiven", &self.forgiven),
            ("blamed", &self.blamed),
            ("missed", &self.missed),
            ("liked", &self.liked),
            ("why", &self.why),
            ("help", &self.help),
            ("no_answer", &self.no_answer),
            ("opinion", &self.opinion),
            ("small_talk", &self.small_talk),
            ("weave", &self.weave),
        ] {
            need(field.to_string(), Some(lines));
        }
        for kind in FactKind::ALL {
            let key = serde_json::to_value(kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            need(format!("told.{key}"), self.told.get(&kind));
            need(format!("recall.{key}"), self.recall.get(&kind));
        }
        need("about_me.other".into(), self.about_me.get(&Topic::Other));
        need("about_me.date".into(), self.about_me.get(&Topic::Date));
        d
    }

    /// The lines of `kind` in `map`.
    pub fn of<K: Ord>(map: &BTreeMap<K, Lines>, kind: K) -> &[String] {
        map.get(&kind).map(Vec::as_slice).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_bank_is_whole_and_a_missing_list_is_named() {
        let bank = ChatBank::builtin();
        assert!(!bank.small_talk.is_empty());
        let text = include_str!("../../scenarios/heartvale/chat.yaml")
            .replace("\nthanks:", "\nthanks_not:");
        let err = parse_checked(&text, Path::new("chat.yaml"), ChatBank::problems).unwrap_err();
        let shown = err.to_string();
        assert!(
            shown.contains("chat.yaml:") && shown.contains("thanks"),
            "{shown}"
        );
    }
}
