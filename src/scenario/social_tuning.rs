//! `tuning.yaml` → `social:`: every number and keyword table of the social
//! system. The defaults are the design's (对话与社交系统规格说明).

use serde::{Deserialize, Serialize};

/// `social:` — when conversations start and end, how they change ties, what is remembered.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SocialTuning {
    /// When two residents standing near each other start talking.
    pub(crate) proximity: ProximityTuning,
    /// Game minutes before the same pair may start another conversation.
    pub(crate) cooldown_minutes: u32,
    /// Game minutes a resident rests after any conversation before the next one.
    pub(crate) pause_minutes: u32,
    /// Social need (100 − the `social` need's satisfaction) above which a resident seeks company.
    pub(crate) approach_need: f32,
    /// At a gathering under way, chance meetings and joining a talk are this
    /// many times likelier, and social need counts as at least half full:
    /// people come to a party to talk, however much company they have had.
    pub(crate) gathering_talk: f32,
    /// How long conversations run.
    pub(crate) conversation: ConversationTuning,
    /// How a conversation changes a tie.
    pub(crate) relationship: RelationshipTuning,
    /// How much a conversation matters to memory.
    pub(crate) importance: ImportanceTuning,
    /// When a bystander joins.
    pub(crate) group: GroupTuning,
    /// When residents agree to meet again.
    pub(crate) appointments: AppointmentTuning,
    /// Emotion keywords, in priority order for ties (design: happy, sad, angry, curious).
    pub(crate) emotions: Vec<KeywordTable>,
    /// Topic keywords, in priority order for ties; no match is `casual`.
    pub(crate) topics: Vec<KeywordTable>,
}

impl Default for SocialTuning {
    fn default() -> Self {
        Self {
            proximity: ProximityTuning::default(),
            cooldown_minutes: 60,
            pause_minutes: 15,
            approach_need: 70.0,
            gathering_talk: 3.0,
            conversation: ConversationTuning::default(),
            relationship: RelationshipTuning::default(),
            importance: ImportanceTuning::default(),
            group: GroupTuning::default(),
            appointments: AppointmentTuning::default(),
            emotions: table(&[
                (
                    "happy",
                    &[
                        "哈哈",
                        "太好了",
                        "开心",
                        "高兴",
                        "棒",
                        "真好",
                        "好喝",
                        "好看",
                        "喜欢",
                        "舒坦",
                        "热闹",
                    ],
                ),
                ("sad", &["唉", "可惜", "难过", "遗憾", "伤心"]),
                ("angry", &["气死", "烦", "讨厌", "什么鬼", "！！"]),
                ("curious", &["真的吗", "为什么", "怎么", "？"]),
            ]),
            topics: table(&[
                (
                    "work",
                    &["工作", "项目", "老板", "同事", "加班", "公司", "活儿"],
                ),
                ("life", &["生活", "房子", "吃", "玩", "周末"]),
                (
                    "relationship",
                    &["朋友", "男朋友", "女朋友", "家人", "约会"],
                ),
                ("hobby", &["游戏", "电影", "书", "运动", "音乐"]),
                ("gossip", &["听说", "你知道吗", "据说", "有人说"]),
                ("plan", &["打算", "计划", "想要", "准备", "未来"]),
                (
                    "deep_talk",
                    &["说实话", "心里", "其实我", "梦想", "人生", "害怕"],
                ),
                (
                    "help_offered",
                    &["我帮你", "帮你一把", "需要帮忙", "交给我"],
                ),
                ("complaint", &["受够", "累死", "真倒霉", "抱怨"]),
            ]),
        }
    }
}

fn table(rows: &[(&str, &[&str])]) -> Vec<KeywordTable> {
    rows.iter()
        .map(|(label, words)| KeywordTable {
            label: label.to_string(),
            keywords: words.iter().map(|w| w.to_string()).collect(),
        })
        .collect()
}

/// One label and the keywords that vote for it.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct KeywordTable {
    /// What the table votes for (an emotion or a topic).
    pub(crate) label: String,
    /// Words that vote for it.
    pub(crate) keywords: Vec<String>,
}

/// Conversations that start because two residents are near each other.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ProximityTuning {
    /// Map units.
    pub(crate) distance: f32,
    /// Game seconds both must have stood near each other.
    pub(crate) seconds: u32,
    /// Chance of starting, before the stage modifier.
    pub(crate) base_probability: f32,
    /// The chance's multiplier for each stage of the pair's tie.
    pub(crate) modifiers: StageValues,
    /// A pair standing near each other rolls once in every window of this many game
    /// minutes (at a minute fixed by the pair).
    pub(crate) reroll_minutes: u32,
    /// The chance's multiplier for two who work at the same place and both
    /// stand at it: side by side all day, they chat now and then, not at
    /// every roll.
    pub(crate) coworkers: f32,
}

impl Default for ProximityTuning {
    fn default() -> Self {
        Self {
            distance: 50.0,
            seconds: 30,
            base_probability: 0.3,
            modifiers: StageValues {
                stranger: 0.1,
                acquaintance: 0.5,
                friend: 1.0,
                close_friend: 1.5,
            },
            reroll_minutes: 30,
            coworkers: 1.0,
        }
    }
}

/// A value per relationship stage.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StageValues {
    /// Strangers.
    pub(crate) stranger: f32,
    /// Acquaintances.
    pub(crate) acquaintance: f32,
    /// Friends.
    pub(crate) friend: f32,
    /// Close friends.
    pub(crate) close_friend: f32,
}

/// How long conversations run.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ConversationTuning {
    /// Messages before anyone may leave for no reason.
    pub(crate) min_turns: u32,
    /// Messages after which a conversation ends.
    pub(crate) max_turns: u32,
    /// The least game seconds between one line and the next.
    pub(crate) turn_seconds: u32,
    /// Characters a resident says per game second: a line takes its length
    /// over this to say (Chinese is spoken at about 3–4 a second).
    pub(crate) chars_per_second: f32,
    /// Game seconds of silence after a line before the reply (listening,
    /// thinking, a sip): drawn between the two. A question is answered sooner.
    pub(crate) pause_seconds: [u32; 2],
    /// Game seconds without a reply before the conversation is given up.
    pub(crate) timeout_seconds: u32,
    /// A participant whose energy falls below this leaves at once.
    pub(crate) urgent_energy: f32,
}

impl Default for ConversationTuning {
    fn default() -> Self {
        Self {
            min_turns: 2,
            max_turns: 10,
            turn_seconds: 5,
            chars_per_second: 3.5,
            pause_seconds: [25, 70],
            timeout_seconds: 300,
            urgent_energy: 10.0,
        }
    }
}

/// How a conversation changes the participants' ties.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RelationshipTuning {
    /// Strength at which a tie becomes an acquaintance.
    pub(crate) acquaintance: f32,
    /// Strength at which a tie becomes a friend.
    pub(crate) friend: f32,
    /// Strength at which a tie becomes a close friend.
    pub(crate) close_friend: f32,
    /// Every conversation.
    pub(crate) base: f32,
    /// With at least `long_messages` messages.
    pub(crate) long_bonus: f32,
    /// What counts as a long conversation, in messages.
    pub(crate) long_messages: u32,
    /// With at least two happy messages.
    pub(crate) resonance: f32,
    /// With any angry message.
    pub(crate) argument: f32,
    /// With a deep talk.
    pub(crate) deep_talk: f32,
    /// With gossip.
    pub(crate) gossip: f32,
    /// With help offered.
    pub(crate) help_offered: f32,
    /// With a complaint.
    pub(crate) complaint: f32,
    /// Extraversion within `similar_within` points of each other.
    pub(crate) similar_extraversion: f32,
    /// Points of extraversion apart that still count as similar.
    pub(crate) similar_within: f32,
    /// Agreeableness `opposite_gap` or more points apart.
    pub(crate) opposite_agreeableness: f32,
    /// Points of agreeableness apart that count as opposite.
    pub(crate) opposite_gap: f32,
    /// Lost by whoever waited in vain at an appointment.
    pub(crate) missed_appointment: f32,
    /// Gains shrink above this strength, linearly to a tenth at 100: a few
    /// good days do not make everyone a best friend.
    pub(crate) diminish_from: f32,
    /// Gained by one who was comforted, towards the one who comforted.
    pub(crate) comforted: f32,
    /// Lost each morning by a tie (not family) whose two did not talk the
    /// day before, down to `acquaintance`.
    pub(crate) fade: f32,
    /// A pair's second and later talks of a day gain this share: the
    /// tenth chat over the same table is not ten times the first.
    pub(crate) again_today: f32,
}

impl Default for RelationshipTuning {
    fn default() -> Self {
        Self {
            acquaintance: 20.0,
            friend: 50.0,
            close_friend: 80.0,
            base: 2.0,
            long_bonus: 5.0,
            long_messages: 5,
            resonance: 3.0,
            argument: -10.0,
            deep_talk: 5.0,
            gossip: 2.0,
            help_offered: 8.0,
            complaint: -2.0,
            similar_extraversion: 1.2,
            similar_within: 20.0,
            opposite_agreeableness: 0.8,
            opposite_gap: 40.0,
            missed_appointment: -5.0,
            diminish_from: 60.0,
            comforted: 3.0,
            fade: 1.5,
            again_today: 0.5,
        }
    }
}

/// How much a conversation matters to the memories it leaves (out of 100).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ImportanceTuning {
    /// Every conversation.
    pub(crate) base: u32,
    /// 8 or more messages.
    pub(crate) very_long: u32,
    /// 5 or more messages.
    pub(crate) long: u32,
    /// Any happy, angry or sad message.
    pub(crate) emotional: u32,
    /// A relationship moved by 5 or more.
    pub(crate) moved: u32,
    /// Topic plan, relationship or deep talk.
    pub(crate) weighty_topic: u32,
}

impl Default for ImportanceTuning {
    fn default() -> Self {
        Self {
            base: 30,
            very_long: 20,
            long: 10,
            emotional: 15,
            moved: 20,
            weighty_topic: 15,
        }
    }
}

/// When a bystander joins a conversation.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct GroupTuning {
    /// A bystander within this many map units of every participant may join.
    pub(crate) distance: f32,
    /// Chance per step at average extraversion and friendly ties.
    pub(crate) join_probability: f32,
    /// The most participants a group chat has.
    pub(crate) max_size: u32,
    /// Chance that a group line @-mentions someone.
    pub(crate) mention_probability: f32,
}

impl Default for GroupTuning {
    fn default() -> Self {
        Self {
            distance: 30.0,
            join_probability: 0.3,
            max_size: 5,
            mention_probability: 0.3,
        }
    }
}

/// When residents agree to meet again, and whether they keep it.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct AppointmentTuning {
    /// Chance that acquaintances or closer set a meeting in a conversation.
    pub(crate) probability: f32,
    /// Chance of keeping it: `keep_base + keep_conscientiousness × C / 100`.
    pub(crate) keep_base: f32,
    /// The weight of conscientiousness in keeping it.
    pub(crate) keep_conscientiousness: f32,
    /// Earliest hour (24 h) of the meeting, the next day.
    pub(crate) from_hour: u32,
    /// Latest hour (24 h) of the meeting.
    pub(crate) to_hour: u32,
    /// Minutes after the hour that the first to arrive waits.
    pub(crate) wait_minutes: u32,
}

impl Default for AppointmentTuning {
    fn default() -> Self {
        Self {
            probability: 0.25,
            keep_base: 0.3,
            keep_conscientiousness: 0.7,
            from_hour: 17,
            to_hour: 20,
            wait_minutes: 60,
        }
    }
}
