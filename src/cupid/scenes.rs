//! The offline host's scene bank (`cupid/scenes.yaml` in a scenario): stages,
//! scenes with 2–4 options, each option tagged with the traits it expresses.
//! Checked like every scenario file: `file:line:col`, the field, a hint.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_saphyr::{Location, Spanned};

use crate::base::{Diagnostic, Diagnostics, parse_yaml};
use crate::scenario::{RelationKind, Scenario};

/// Where a date stands in the story; the host raises the difficulty in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// First meeting.
    Meeting,
    /// Dates.
    Dating,
    /// Conflict.
    Conflict,
    /// Commitment.
    Commitment,
}

impl Stage {
    /// Every stage, in story order.
    pub const ALL: [Stage; 4] = [
        Stage::Meeting,
        Stage::Dating,
        Stage::Conflict,
        Stage::Commitment,
    ];

    /// The stage's Chinese name.
    pub fn label(self) -> &'static str {
        match self {
            Stage::Meeting => "初识",
            Stage::Dating => "约会",
            Stage::Conflict => "冲突",
            Stage::Commitment => "承诺",
        }
    }
}

/// What an option expresses: the avatars choose by how well it fits them, the
/// host scores how two choices meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Trait {
    /// Takes the first step.
    #[serde(rename = "主动")]
    Initiative,
    /// Warm, eager.
    #[serde(rename = "热情")]
    Warmth,
    /// Minds the other's feelings.
    #[serde(rename = "体贴")]
    Care,
    /// Says what is true.
    #[serde(rename = "坦诚")]
    Candour,
    /// Makes light of it.
    #[serde(rename = "幽默")]
    Humour,
    /// Tries the new and the risky.
    #[serde(rename = "冒险")]
    Adventure,
    /// Plays it safe, plans.
    #[serde(rename = "稳妥")]
    Caution,
    /// Gives way.
    #[serde(rename = "妥协")]
    Compromise,
    /// Holds one's ground.
    #[serde(rename = "坚持")]
    Firmness,
    /// Steps back from it.
    #[serde(rename = "回避")]
    Avoidance,
    /// Goes one's own way.
    #[serde(rename = "独立")]
    Independence,
    /// Romantic gestures.
    #[serde(rename = "浪漫")]
    Romance,
}

impl Trait {
    /// Every trait, in the order the enum lists them.
    pub const ALL: [Trait; 12] = [
        Trait::Initiative,
        Trait::Warmth,
        Trait::Care,
        Trait::Candour,
        Trait::Humour,
        Trait::Adventure,
        Trait::Caution,
        Trait::Compromise,
        Trait::Firmness,
        Trait::Avoidance,
        Trait::Independence,
        Trait::Romance,
    ];

    /// Its place in [`Trait::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The trait's Chinese word, as scene files write it.
    pub fn label(self) -> &'static str {
        match self {
            Trait::Initiative => "主动",
            Trait::Warmth => "热情",
            Trait::Care => "体贴",
            Trait::Candour => "坦诚",
            Trait::Humour => "幽默",
            Trait::Adventure => "冒险",
            Trait::Caution => "稳妥",
            Trait::Compromise => "妥协",
            Trait::Firmness => "坚持",
            Trait::Avoidance => "回避",
            Trait::Independence => "独立",
            Trait::Romance => "浪漫",
        }
    }

    /// Whether it brings two people closer.
    pub(crate) fn connects(self) -> bool {
        matches!(
            self,
            Trait::Initiative
                | Trait::Warmth
                | Trait::Care
                | Trait::Candour
                | Trait::Humour
                | Trait::Compromise
                | Trait::Romance
        )
    }
}

/// Part of a day, in order; the timeline never goes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DayPart {
    /// Morning.
    Morning,
    /// Noon.
    Noon,
    /// Afternoon.
    Afternoon,
    /// Evening.
    Evening,
    /// Night.
    Night,
}

impl DayPart {
    /// Every part, in order.
    pub const ALL: [DayPart; 5] = [
        DayPart::Morning,
        DayPart::Noon,
        DayPart::Afternoon,
        DayPart::Evening,
        DayPart::Night,
    ];

    /// The English word the design's `time` uses ("Day 1, Morning").
    pub fn english(self) -> &'static str {
        match self {
            DayPart::Morning => "Morning",
            DayPart::Noon => "Noon",
            DayPart::Afternoon => "Afternoon",
            DayPart::Evening => "Evening",
            DayPart::Night => "Night",
        }
    }

    /// The Chinese word the player reads.
    pub fn label(self) -> &'static str {
        match self {
            DayPart::Morning => "上午",
            DayPart::Noon => "中午",
            DayPart::Afternoon => "下午",
            DayPart::Evening => "傍晚",
            DayPart::Night => "夜里",
        }
    }
}

/// Which turn of the story a scene suits best.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum After {
    /// After a round that raised the score.
    Good,
    /// After a round that lowered it.
    Bad,
}

/// The tie a scene suits: how well the two know each other before the date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tie {
    /// Never really talked.
    Stranger,
    /// Know each other to talk to.
    Acquaintance,
    /// Friends, close or not: never told it is their first meeting.
    Friend,
    /// Work together.
    Colleague,
}

impl Tie {
    /// Every tie: what a scene without `ties` suits.
    pub const ALL: [Tie; 4] = [
        Tie::Stranger,
        Tie::Acquaintance,
        Tie::Friend,
        Tie::Colleague,
    ];

    /// The pair's tie, from both sides' relationship to the other: the
    /// closer one counts (a friend on one side is a friendship).
    pub fn of_pair(ties: [Option<RelationKind>; 2]) -> Tie {
        let rank = |k: Option<RelationKind>| match k {
            Some(RelationKind::Friend | RelationKind::CloseFriend | RelationKind::Family) => {
                (3, Tie::Friend)
            }
            Some(RelationKind::Colleague) => (2, Tie::Colleague),
            Some(RelationKind::Acquaintance) => (1, Tie::Acquaintance),
            Some(RelationKind::Stranger) | None => (0, Tie::Stranger),
        };
        let [a, b] = ties.map(rank);
        if a.0 >= b.0 { a.1 } else { b.1 }
    }

    fn all() -> Vec<Tie> {
        Tie::ALL.to_vec()
    }
}

/// One answer a side may give.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneOption {
    /// What the side does.
    pub text: String,
    /// What it expresses.
    pub traits: Vec<Trait>,
}

/// A scene and its question.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// Unique in the bank.
    pub id: Spanned<String>,
    /// When in the day it happens.
    pub time: DayPart,
    /// Its place in the stage's story: 1 early, 2 middle, 3 late (a first
    /// walk is 1, a picnic 2). The host never goes back to an earlier step.
    #[serde(default = "middle_step")]
    pub step: Spanned<u8>,
    /// The ties it suits (all four when left out).
    #[serde(default = "Tie::all")]
    pub ties: Vec<Tie>,
    /// Where it happens: the scenario's place names.
    #[serde(default)]
    pub places: Vec<String>,
    /// Town jobs the scene mentions (酒馆老板): it is not played when one
    /// of the two has that job.
    #[serde(default)]
    pub roles: Vec<String>,
    /// Which turn of the story it suits, if any.
    #[serde(default)]
    pub after: Option<After>,
    /// What happens.
    pub scene: String,
    /// What the side is asked.
    pub question: String,
    /// 2–4 answers.
    pub options: Spanned<Vec<SceneOption>>,
}

fn middle_step() -> Spanned<u8> {
    Spanned::new(2, Location::UNKNOWN, Location::UNKNOWN)
}

impl Scene {
    /// Whether the scene names `name` anywhere a player reads.
    pub fn names(&self, name: &str) -> bool {
        !name.is_empty()
            && (self.scene.contains(name)
                || self.question.contains(name)
                || self.options.value.iter().any(|o| o.text.contains(name)))
    }

    /// Where it happens, for the host's words (empty when untagged).
    pub fn place(&self) -> &str {
        self.places.first().map_or("", String::as_str)
    }
}

/// One stage's scenes.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageScenes {
    /// Which stage.
    pub stage: Spanned<Stage>,
    /// Its scenes.
    pub scenes: Vec<Scene>,
}

/// The whole bank.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneBank {
    /// Every stage, each once.
    pub stages: Vec<StageScenes>,
}

impl SceneBank {
    /// Reads and checks a scene file.
    pub fn load(path: &Path) -> Result<SceneBank, Diagnostics> {
        let one = |d: Diagnostic| Diagnostics(vec![d]);
        let text =
            crate::base::files::read_text(path, crate::base::files::MAX_FILE).map_err(|e| {
                one(Diagnostic::file(
                    path,
                    &format!("cannot read file: {e}"),
                    None,
                ))
            })?;
        Self::parse(&text, path)
    }

    /// A scenario's own scene file, checked against the scenario too: every
    /// place it names is one of the town's, and no scene names a resident
    /// (anyone may be on the date: 「酒馆老板」 with `roles`, never 钟大川).
    pub fn load_for(path: &Path, scenario: &Scenario) -> Result<SceneBank, Diagnostics> {
        let bank = Self::load(path)?;
        let mut out = Diagnostics::default();
        let places: Vec<&str> = scenario
            .town
            .locations
            .iter()
            .map(|l| l.name.as_str())
            .collect();
        for (i, st) in bank.stages.iter().enumerate() {
            for (j, sc) in st.scenes.iter().enumerate() {
                let field = format!("stages[{i}].scenes[{j}]");
                for p in sc.places.iter().filter(|p| !places.contains(&p.as_str())) {
                    let msg = format!(
                        "scene `{}` is set in `{p}`, not a place of this town",
                        sc.id.value
                    );
                    let mut d = Diagnostic::at(path, &sc.id, &format!("{field}.places"), msg);
                    d.hint = Some(format!("one of: {}", places.join("、")));
                    out.push(d);
                }
                for r in scenario.residents.iter().filter(|r| sc.names(&r.name)) {
                    let msg = format!(
                        "scene `{}` names {}, who may be on the date",
                        sc.id.value, r.name
                    );
                    let mut d = Diagnostic::at(path, &sc.id, &field, msg);
                    d.hint = Some(format!(
                        "call them by their job (「{}」) and add `roles: [{}]`",
                        r.occupation, r.occupation
                    ));
                    out.push(d);
                }
            }
        }
        if out.is_empty() { Ok(bank) } else { Err(out) }
    }

    /// The default town's scene bank, built in: what a town without its own
    /// `cupid/scenes.yaml` (a generated one) dates with.
    pub fn builtin() -> SceneBank {
        const TEXT: &str = include_str!("../../scenarios/heartvale/cupid/scenes.yaml");
        Self::parse(TEXT, Path::new("scenarios/heartvale/cupid/scenes.yaml"))
            .expect("the shipped scene bank is valid (tested)")
    }

    /// Checks scene-bank text read from `path`.
    fn parse(text: &str, path: &Path) -> Result<SceneBank, Diagnostics> {
        let one = |d: Diagnostic| Diagnostics(vec![d]);
        let bank: SceneBank = parse_yaml(text).map_err(|d| one(d.in_file(path)))?;
        let problems = bank.problems(path);
        if problems.is_empty() {
            Ok(bank)
        } else {
            Err(problems)
        }
    }

    /// The scenes of a stage.
    pub fn scenes(&self, stage: Stage) -> &[Scene] {
        self.stages
            .iter()
            .find(|s| s.stage.value == stage)
            .map_or(&[], |s| &s.scenes)
    }

    fn problems(&self, path: &Path) -> Diagnostics {
        let mut out = Diagnostics::default();
        let mut ids = std::collections::HashSet::new();
        for (i, st) in self.stages.iter().enumerate() {
            if self.stages[..i]
                .iter()
                .any(|o| o.stage.value == st.stage.value)
            {
                let msg = format!("stage `{:?}` is listed twice", st.stage.value);
                out.push(Diagnostic::at(
                    path,
                    &st.stage,
                    &format!("stages[{i}].stage"),
                    msg,
                ));
            }
            for (j, sc) in st.scenes.iter().enumerate() {
                let field = format!("stages[{i}].scenes[{j}]");
                if !ids.insert(sc.id.value.clone()) {
                    let msg = format!("scene id `{}` is used twice", sc.id.value);
                    out.push(Diagnostic::at(path, &sc.id, &format!("{field}.id"), msg));
                }
                if !(1..=3).contains(&sc.step.value) {
                    let msg = format!("a scene's step is 1, 2 or 3, this one {}", sc.step.value);
                    let mut d = Diagnostic::at(path, &sc.step, &format!("{field}.step"), msg);
                    d.hint = Some("1 early in the stage, 2 middle, 3 late".into());
                    out.push(d);
                }
                if sc.places.is_empty() {
                    let msg = "a scene says where it happens".to_string();
                    let mut d = Diagnostic::at(path, &sc.id, &format!("{field}.places"), msg);
                    d.hint =
                        Some("add `places: [柳溪河畔]` with the scenario's place names".into());
                    out.push(d);
                }
                if !(2..=4).contains(&sc.options.value.len()) {
                    let msg = format!(
                        "a scene has 2–4 options, this one {}",
                        sc.options.value.len()
                    );
                    let mut d = Diagnostic::at(path, &sc.options, &format!("{field}.options"), msg);
                    d.hint = Some("give the side two, three or four answers".into());
                    out.push(d);
                }
            }
        }
        for stage in Stage::ALL {
            if self.scenes(stage).is_empty() {
                let hint = "every stage (meeting, dating, conflict, commitment) needs a scene";
                out.push(Diagnostic::file(
                    path,
                    &format!("no scene for the stage `{stage:?}`"),
                    Some(hint),
                ));
            }
        }
        out
    }
}
