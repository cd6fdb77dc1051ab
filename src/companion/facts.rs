//! What the player has told a resident about themselves, kept as facts with
//! the message each came from: the player is one more subject of facts, as
//! residents are in the town's knowledge. A later statement of a
//! single-valued kind (the name, the job, the home town, the birthday)
//! replaces the earlier one: a correction is just that.

use serde::{Deserialize, Serialize};

use crate::base::time::GameTime;

/// What a fact about the player is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FactKind {
    /// How to call them.
    Name,
    /// How old they are.
    Age,
    /// What they do for a living.
    Job,
    /// Where they are from.
    Home,
    /// Someone in their family (`about`: the relation).
    Family,
    /// Someone else in their life (`about`: who they are to them).
    Person,
    /// A pet (`about`: the animal; `value`: its name, or empty).
    Pet,
    /// Their birthday.
    Birthday,
    /// A date that matters to them (`about`: what it is).
    Date,
    /// A food or drink they love.
    Food,
    /// Something they like.
    Likes,
    /// Something they dislike.
    Dislikes,
    /// Something they cannot do well (`about`: how it was put, 不太会).
    Unable,
    /// Something they are learning (`value`: what, 吉他, 开车).
    Learning,
    /// Something that weighs on them.
    Worry,
    /// Something they mean to do.
    Plan,
}

impl FactKind {
    /// Every kind, in the order a profile lists them.
    pub const ALL: [FactKind; 16] = [
        FactKind::Name,
        FactKind::Age,
        FactKind::Job,
        FactKind::Home,
        FactKind::Family,
        FactKind::Person,
        FactKind::Pet,
        FactKind::Birthday,
        FactKind::Date,
        FactKind::Food,
        FactKind::Likes,
        FactKind::Dislikes,
        FactKind::Unable,
        FactKind::Learning,
        FactKind::Worry,
        FactKind::Plan,
    ];

    /// The label a profile line carries (what the player and the model read).
    pub fn label(self) -> &'static str {
        match self {
            FactKind::Name => "称呼",
            FactKind::Age => "年龄",
            FactKind::Job => "职业",
            FactKind::Home => "家乡",
            FactKind::Family => "家人",
            FactKind::Person => "身边的人",
            FactKind::Pet => "宠物",
            FactKind::Birthday => "生日",
            FactKind::Date => "重要的日子",
            FactKind::Food => "爱吃",
            FactKind::Likes => "喜欢",
            FactKind::Dislikes => "不喜欢",
            FactKind::Unable => "不擅长",
            FactKind::Learning => "在学",
            FactKind::Worry => "心事",
            FactKind::Plan => "打算",
        }
    }

    /// What a question about the kind asks after (你的工作, 你的爱好).
    pub fn asked(self) -> &'static str {
        match self {
            FactKind::Name => "名字",
            FactKind::Job => "工作",
            FactKind::Home => "老家",
            FactKind::Person => "朋友",
            FactKind::Date => "纪念日",
            FactKind::Food => "口味",
            FactKind::Likes => "爱好",
            FactKind::Dislikes => "忌口",
            FactKind::Unable => "短处",
            FactKind::Learning => "在学的东西",
            other => other.label(),
        }
    }

    /// The kind a label or snake-case name stands for (a model's JSON may use either).
    pub fn parse(text: &str) -> Option<FactKind> {
        let t = text.trim();
        FactKind::ALL.into_iter().find(|k| {
            k.label() == t
                || serde_json::to_value(k)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .as_deref()
                    == Some(t)
        })
    }

    /// Whether a new statement replaces the old one (one name, one job …)
    /// rather than adding to it.
    pub fn single(self) -> bool {
        matches!(
            self,
            FactKind::Name | FactKind::Age | FactKind::Job | FactKind::Home | FactKind::Birthday
        )
    }
}

/// A fact the player stated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerFact {
    /// What it is about.
    pub kind: FactKind,
    /// What within the kind: the pet's animal, the family member's
    /// relation, the date's occasion; empty where the kind needs none.
    #[serde(default)]
    pub about: String,
    /// The fact itself, as the player put it (a name, a job, a place, a
    /// clause in the second person for a worry or a plan).
    pub value: String,
    /// The player's message it came from, verbatim.
    pub said: String,
    /// When it was said.
    pub time: GameTime,
}

impl PlayerFact {
    /// The fact told back to the player, in the second person
    /// (你叫小林, 你家的橘猫叫豆包, 你最近工作压力很大).
    pub fn to_you(&self) -> String {
        let (a, v) = (self.about.as_str(), self.value.as_str());
        match self.kind {
            FactKind::Name if a == crate::companion::said::CALL_ME => format!("你让我叫你{v}"),
            FactKind::Name => format!("你叫{v}"),
            FactKind::Age => format!("你{v}岁"),
            FactKind::Job if a == crate::companion::said::MAJOR => format!("你学的是{v}"),
            FactKind::Job if a == crate::companion::said::GRADE_OF => format!("你在读{v}"),
            FactKind::Job => {
                // 「退休前开公交车」: the trade one had.
                if ['在', '做', '当', '开', '干']
                    .iter()
                    .any(|c| v.starts_with(*c))
                    || crate::companion::said::WAS.iter().any(|w| v.starts_with(w))
                {
                    format!("你{v}")
                } else {
                    format!("你是{v}")
                }
            }
            FactKind::Home => format!("你老家在{v}"),
            FactKind::Family | FactKind::Person if v.is_empty() => format!("你有{a}"),
            FactKind::Family | FactKind::Person => format!("你{a}{v}"),
            FactKind::Pet if v.is_empty() => format!("你养了{a}"),
            FactKind::Pet => format!("你家的{a}叫{v}"),
            FactKind::Birthday => format!("你的生日是{v}"),
            FactKind::Date => format!("{v}是{a}"),
            FactKind::Food => format!("你爱吃{v}"),
            FactKind::Likes => format!("你喜欢{v}"),
            FactKind::Dislikes => format!("你不喜欢{v}"),
            FactKind::Unable => format!("你{a}{v}"),
            FactKind::Learning => format!("你在学{v}"),
            FactKind::Worry | FactKind::Plan => v.to_string(),
        }
    }

    /// The fact as a profile keeps it (`宠物：橘猫豆包`).
    pub fn profile_text(&self) -> String {
        match (self.about.is_empty(), self.value.is_empty()) {
            (true, _) => self.value.clone(),
            (false, false) if self.kind == FactKind::Name => self.value.clone(),
            (false, true) => self.about.clone(),
            (false, false) if self.kind == FactKind::Unable => {
                format!("{}{}", self.about, self.value)
            }
            (false, false) if self.kind == FactKind::Pet => {
                format!("{}「{}」", self.about, self.value)
            }
            (false, false) => format!("{}：{}", self.about, self.value),
        }
    }
}

impl PlayerFact {
    /// Whether, told now, it takes the place of `old`: one name, one job …;
    /// for a pet, a relative or an occasion, the same one told again.
    fn replaces(&self, old: &PlayerFact) -> bool {
        if old.kind != self.kind || old.about != self.about {
            return false;
        }
        match self.kind {
            k if k.single() => true,
            // A pet named now is the unnamed one told of before.
            FactKind::Pet => old.value.is_empty() || !self.value.is_empty(),
            // 「我孙子上小学了」 and 「我孙子的生日是…」 are both kept; a
            // relative's name replaces a name.
            FactKind::Family | FactKind::Person => {
                old.value.is_empty()
                    || (old.value.starts_with('叫') && self.value.starts_with('叫'))
            }
            FactKind::Date => true,
            _ => false,
        }
    }
}

/// What learning a fact did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Learnt {
    /// Nothing known of it before.
    New,
    /// It replaced what was known (a correction, a new job).
    Replaced(PlayerFact),
    /// Already known, as said.
    Known,
}

/// Everything the player has told one resident, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerFacts(pub Vec<PlayerFact>);

impl PlayerFacts {
    /// Keeps `fact`: a single-valued kind, or the same pet, relation or
    /// occasion, replaces what was known of it; the same value is not kept twice.
    pub fn learn(&mut self, fact: PlayerFact) -> Learnt {
        if self
            .0
            .iter()
            .any(|f| f.kind == fact.kind && f.about == fact.about && f.value == fact.value)
        {
            return Learnt::Known;
        }
        let same_slot = |f: &PlayerFact| fact.replaces(f);
        // A dislike taken back from the likes, and the other way round.
        let opposite = match fact.kind {
            FactKind::Likes | FactKind::Food => Some(FactKind::Dislikes),
            FactKind::Dislikes => Some(FactKind::Likes),
            _ => None,
        };
        self.0
            .retain(|f| !(Some(f.kind) == opposite && f.value == fact.value));
        match self.0.iter().position(same_slot) {
            Some(i) => {
                let old = std::mem::replace(&mut self.0[i], fact);
                Learnt::Replaced(old)
            }
            None => {
                self.0.push(fact);
                Learnt::New
            }
        }
    }

    /// The facts of a kind, newest first.
    pub fn of(&self, kind: FactKind) -> impl Iterator<Item = &PlayerFact> {
        self.0.iter().rev().filter(move |f| f.kind == kind)
    }

    /// The newest fact of a kind.
    pub fn first(&self, kind: FactKind) -> Option<&PlayerFact> {
        self.of(kind).next()
    }

    /// How the player asked to be called, else the name they gave.
    pub fn name(&self) -> Option<&str> {
        let call_me = self
            .of(FactKind::Name)
            .find(|f| f.about == crate::companion::said::CALL_ME);
        call_me
            .or_else(|| self.first(FactKind::Name))
            .map(|f| f.value.as_str())
    }

    /// Forgets the names taken back (我不叫小雨); returns what was forgotten.
    pub fn retract_names(&mut self, names: &[String]) -> Vec<PlayerFact> {
        let (gone, kept) = std::mem::take(&mut self.0)
            .into_iter()
            .partition(|f| f.kind == FactKind::Name && names.contains(&f.value));
        self.0 = kept;
        gone
    }

    /// Forgets what the player says is not so (a job no longer held, a pet
    /// of another kind); returns what was forgotten.
    pub fn take_back(&mut self, wrong: &[crate::companion::said::Stated]) -> Vec<PlayerFact> {
        let is_wrong = |f: &PlayerFact| {
            wrong.iter().any(|w| {
                f.kind == w.kind
                    && match w.kind {
                        // 「我不是老师了」 takes back 小学老师.
                        FactKind::Job => f.value.contains(&w.value),
                        _ => f.about == w.about && f.value == w.value,
                    }
            })
        };
        let (gone, kept) = std::mem::take(&mut self.0).into_iter().partition(is_wrong);
        self.0 = kept;
        gone
    }

    /// Whether nothing is known.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// One line per kind known (`职业：护士`), in profile order: what a
    /// prompt always carries.
    pub fn profile_lines(&self) -> Vec<String> {
        FactKind::ALL
            .into_iter()
            .flat_map(|k| {
                if k == FactKind::Name {
                    // 名字 and 称呼 apart: 「名字：周雨」「称呼：小雨」.
                    return self
                        .of(k)
                        .map(|f| {
                            let label = if f.about.is_empty() {
                                "名字"
                            } else {
                                "称呼"
                            };
                            format!("{label}：{}", f.value)
                        })
                        .collect::<Vec<_>>();
                }
                let mut items: Vec<String> = self
                    .0
                    .iter()
                    .filter(|f| f.kind == k)
                    .map(PlayerFact::profile_text)
                    .collect();
                items.dedup();
                if items.is_empty() {
                    Vec::new()
                } else {
                    vec![format!("{}：{}", k.label(), items.join("；"))]
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(kind: FactKind, about: &str, value: &str) -> PlayerFact {
        PlayerFact {
            kind,
            about: about.into(),
            value: value.into(),
            said: String::new(),
            time: GameTime(0),
        }
    }

    #[test]
    fn a_single_kind_is_replaced_and_a_pet_gets_its_name() {
        let mut f = PlayerFacts::default();
        assert_eq!(f.learn(fact(FactKind::Name, "", "小林")), Learnt::New);
        assert!(matches!(
            f.learn(fact(FactKind::Name, "", "林夏")),
            Learnt::Replaced(_)
        ));
        assert_eq!(f.name(), Some("林夏"));
        f.learn(fact(FactKind::Pet, "猫", ""));
        f.learn(fact(FactKind::Pet, "猫", "豆包"));
        f.learn(fact(FactKind::Pet, "狗", "旺财"));
        assert_eq!(f.of(FactKind::Pet).count(), 2, "{f:?}");
        assert_eq!(f.learn(fact(FactKind::Likes, "", "爬山")), Learnt::New);
        assert_eq!(f.learn(fact(FactKind::Likes, "", "爬山")), Learnt::Known);
        f.learn(fact(FactKind::Dislikes, "", "爬山"));
        assert_eq!(f.of(FactKind::Likes).count(), 0, "taken back");
        assert_eq!(f.first(FactKind::Pet).unwrap().to_you(), "你家的狗叫旺财");
        let lines = f.profile_lines();
        assert_eq!(lines[0], "名字：林夏");
        assert!(
            lines.contains(&"宠物：猫「豆包」；狗「旺财」".to_string()),
            "{lines:?}"
        );
    }
}
