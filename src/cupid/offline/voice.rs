//! Why an avatar chose what it chose, in its own words: composed from its
//! persona (Big Five, its words about itself, what it loves), its tie to the
//! other, and what happened in the rounds before — so an introvert sounds
//! like one, old friends like old friends, and a reason can recall 「上次在
//! 柳溪河畔你先伸的手，这次换我」.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::super::scenes::Trait;
use super::super::{Avatar, AvatarTurn, DateView, Round, Side};
use crate::scenario::RelationKind;

/// What an avatar's reason is made from.
pub(super) struct Choice<'a> {
    /// The date so far.
    pub view: &'a DateView<'a>,
    /// Which side is speaking.
    pub who: Side,
    /// The chosen option's traits and words.
    pub traits: &'a [Trait],
    pub text: &'a str,
    /// The other's choice, when it answered first, and whether mine is the same.
    pub first: Option<(&'a AvatarTurn, bool)>,
}

impl Choice<'_> {
    fn me(&self) -> &Avatar {
        &self.view.avatars[self.who]
    }

    fn other(&self) -> &Avatar {
        &self.view.avatars[self.who.other()]
    }

    /// Whether the choice reaches out to the other.
    fn reaches(&self) -> bool {
        self.traits.iter().any(|t| t.connects())
    }
}

/// The reason, in whole sentences: what earlier rounds taught me, the trait
/// most like me in my own voice, what I love that the option touches, my
/// tie to the other on the first round, and how I meet the other's choice.
pub(super) fn rationale(c: &Choice<'_>, rng: &mut ChaCha8Rng) -> String {
    let mut said: Vec<String> = Vec::new();
    said.extend(remembered(c, rng));
    if c.view.rounds.is_empty() {
        said.extend(tie_line(c, rng));
    }
    let mine = c
        .traits
        .iter()
        .copied()
        .max_by(|x, y| super::utility(c.me(), *x).total_cmp(&super::utility(c.me(), *y)));
    said.push(match mine {
        Some(t) => one_of(&trait_reason(c.me(), t), rng),
        None => "我也说不清，跟着感觉走".into(),
    });
    said.extend(loved(c, rng));
    said.extend(answer(c, rng));
    said.into_iter().map(|s| format!("{s}。")).collect()
}

/// One of `lines`, seeded.
fn one_of(lines: &[String], rng: &mut ChaCha8Rng) -> String {
    lines[rng.random_range(0..lines.len())].clone()
}

/// Where a round happened, as a reason says it: 「在柳溪河畔」, or 「上一轮」
/// for a model's scene with no place.
fn at(r: &Round) -> String {
    if r.posed.place.is_empty() {
        "那一轮".into()
    } else {
        format!("在{}", r.posed.place)
    }
}

/// What an earlier round taught me: the other reached out and I did not
/// (now it is my turn), I reached out and was left hanging, a round that
/// went badly, a round we chose alike.
fn remembered(c: &Choice<'_>, rng: &mut ChaCha8Rng) -> Option<String> {
    let me = &c.me().id;
    let reached = |r: &Round, mine: bool| {
        r.choices
            .iter()
            .find(|(id, _, _)| (id == me) == mine)
            .and_then(|(_, _, i)| r.posed.traits.get(*i))
            .is_some_and(|ts| ts.iter().any(|t| t.connects()))
    };
    let other = &c.other().name;
    // The last round only: a reason that recalls the same evening round
    // after round sounds like a stuck record.
    c.view.rounds.last().and_then(|r| {
        let (i, they) = (reached(r, true), reached(r, false));
        let same = r.choices.len() == 2 && r.choices[0].2 == r.choices[1].2;
        let place = at(r);
        let lines: Vec<String> = match (i, they, c.reaches()) {
            (false, true, true) => vec![
                format!("上次{place}是{other}先伸的手，这次换我"),
                format!("{place}那回{other}主动了，我一直记着，这次该我了"),
            ],
            (true, false, false) => vec![
                format!("上次{place}我先迈了一步，{other}没接住，这回我想先看看"),
                format!("{place}那一回我的心意落了空，这次我不急"),
            ],
            // A round that went badly, as each one saw its own part in it.
            (false, _, true) if r.after < r.before => vec![
                format!("上次{place}是我往后退了，这次我想补回来"),
                format!("{place}那一回我没接住{other}的心意，这次不想再那样"),
            ],
            (false, _, false) if r.after < r.before => {
                vec![format!("上次{place}我就没往前走，这回还是想慢一点")]
            }
            (true, _, true) if r.after < r.before => vec![
                format!("{place}那一回闹得有点僵，我想把它补回来"),
                format!("上次{place}没处好，我不想再那样"),
            ],
            (true, _, false) if r.after < r.before => vec![
                format!("{place}那一回让我有点寒心"),
                format!("{place}的事我还没放下"),
            ],
            (true, true, true) if same => vec![
                format!("上次{place}我们想到了一块，这次我也信得过{other}"),
                format!("想起{place}那回的默契，我心里有底"),
            ],
            _ => return None,
        };
        Some(one_of(&lines, rng))
    })
}

/// My tie to the other, said once, on the first round.
fn tie_line(c: &Choice<'_>, rng: &mut ChaCha8Rng) -> Option<String> {
    let other = &c.other().name;
    let lines: Vec<String> = match c.me().tie {
        Some((RelationKind::Friend | RelationKind::CloseFriend, _)) => vec![
            format!("认识{other}这么多年，{other}的脾气我清楚"),
            format!("我和{other}是老朋友了，在{other}面前不用装"),
            format!("跟{other}做了这么久朋友，今天倒有点不一样的感觉"),
        ],
        Some((RelationKind::Colleague, _)) => vec![
            format!("天天和{other}一起干活，我知道{other}靠得住"),
            format!("和{other}共事这么久，换个地方见面还挺新鲜"),
        ],
        Some((RelationKind::Acquaintance, s)) if s >= 35.0 => vec![
            format!("和{other}打过不少照面，只是从没好好聊过"),
            format!("我对{other}有点印象，正好多了解一些"),
        ],
        _ => vec![
            format!("我和{other}还不太熟"),
            format!("对{other}我几乎一无所知，先看看再说"),
        ],
    };
    Some(one_of(&lines, rng))
}

/// What I love or am that the option touches, in one of a few ways of
/// saying it: a topic I love (「说到书，我可来劲了」), or a word I use of
/// myself (「我这人本来就安静」).
fn loved(c: &Choice<'_>, rng: &mut ChaCha8Rng) -> Option<String> {
    let touches = |w: &&String| !w.is_empty() && c.text.contains(w.as_str());
    if let Some(w) = c.me().interests.iter().find(touches) {
        return Some(one_of(
            &[
                format!("再说{w}本来就是我喜欢的"),
                format!("说到{w}，我可来劲了"),
            ],
            rng,
        ));
    }
    let w = c.me().traits.iter().find(touches)?;
    Some(format!("我这人本来就{w}"))
}

/// How I meet the other's choice, when it answered first.
fn answer(c: &Choice<'_>, rng: &mut ChaCha8Rng) -> Option<String> {
    let (_, same) = c.first?;
    let other = &c.other().name;
    let agreeable = c.me().personality.agreeableness >= 60.0;
    let lines: Vec<String> = match (same, agreeable, c.reaches()) {
        (true, _, true) => vec![
            format!("{other}也这么选，正合我意"),
            format!("看来{other}和我想到一块了"),
            format!("和{other}选的一样，挺好"),
        ],
        (true, _, false) if c.traits.contains(&Trait::Firmness) => vec![
            format!("{other}也不肯让，这下僵住了"),
            format!("看来{other}和我一样倔"),
        ],
        (true, _, false) if c.traits.contains(&Trait::Avoidance) => vec![
            format!("{other}也没往前走，谁都不勉强谁"),
            format!("看来{other}和我一样，都还在犹豫"),
        ],
        (true, _, false) => vec![
            format!("{other}也是这个主意，各自心里有数"),
            format!("和{other}想的一样，稳当"),
        ],
        (false, true, _) => vec![
            format!("{other}选得不一样，我尊重，不过这是我的真心"),
            format!("我知道{other}想的不一样，慢慢磨合吧"),
        ],
        (false, false, _) => vec![
            format!("{other}选得不一样，可我不想为了附和改主意"),
            format!("{other}有{other}的想法，我有我的"),
        ],
    };
    Some(one_of(&lines, rng))
}

/// What a trait says of me, in my voice: an introvert's warmth is not a
/// love of crowds, an orderly mind's caution is not shyness. Several ways of
/// saying each, by persona.
fn trait_reason(me: &Avatar, t: Trait) -> Vec<String> {
    let p = &me.personality;
    let introvert = p.extraversion < 40.0;
    let lines: &[&str] = match t {
        Trait::Initiative if introvert => &[
            "平时我不爱出头，可这次我想自己迈一步",
            "话到嘴边我总咽回去，这回不想再错过",
        ],
        Trait::Initiative => &[
            "我不喜欢干等，想到了就去做",
            "机会不等人，我先开口",
            "与其猜来猜去，不如我先走一步",
        ],
        Trait::Warmth if introvert => &[
            "我话不多，可和在乎的人待在一起，我很安心",
            "我话不多，但心里是欢喜的",
        ],
        Trait::Warmth if p.extraversion >= 70.0 => &[
            "我喜欢热热闹闹地和人相处",
            "有人陪着说说笑笑，日子才有滋味",
            "高兴就该让人看见",
        ],
        Trait::Warmth => &["对人热络一点，总不会错", "我想让对方知道我是真心欢迎"],
        Trait::Humour if introvert => &[
            "我话不多，但也想让气氛轻松一点",
            "难得开个玩笑，希望对方听得懂",
        ],
        Trait::Humour => &[
            "笑一笑，什么都好说",
            "日子嘛，总得有点乐子",
            "一句玩笑能解的围，何必绷着",
        ],
        Trait::Care if p.agreeableness >= 75.0 => &[
            "我更在意对方的感受",
            "先顾着对方，我心里才踏实",
            "我见不得别人为难",
        ],
        Trait::Care => &["对方的感受也要顾到", "将心比心，换我也希望被这样对待"],
        Trait::Candour if p.conscientiousness >= 75.0 => {
            &["有话直说，心里才踏实", "把话说清楚，比什么都要紧"]
        }
        Trait::Candour => &["我不喜欢藏着掖着", "坦白一点，彼此都轻松"],
        Trait::Adventure if p.openness >= 80.0 => &[
            "新鲜的事我从来不想错过",
            "难得的机会，不试试太可惜",
            "没走过的路才有意思",
        ],
        Trait::Adventure => &["偶尔冒一次险也不坏", "试试看吧，说不定有惊喜"],
        Trait::Caution if p.conscientiousness >= 75.0 => &[
            "做事前我总要想清楚",
            "稳妥一点总没错",
            "我习惯把事情安排得妥妥当当",
        ],
        Trait::Caution => &["慢一点，心里有数", "不急，一步一步来"],
        Trait::Compromise => &[
            "两个人在一起，总要有人让一步",
            "退一步不丢人，别伤了和气",
            "这点小事，依对方也无妨",
        ],
        Trait::Firmness if p.agreeableness < 50.0 => &[
            "我认定的事，不想轻易改",
            "该坚持的我不会让",
            "我这人有点倔，自己也知道",
        ],
        Trait::Firmness => &["这件事对我很要紧，我想坚持", "我不想为了省事委屈自己"],
        Trait::Avoidance if p.neuroticism >= 45.0 => {
            &["我还没准备好，先退一步看看", "我容易想太多，先躲一躲"]
        }
        Trait::Avoidance => &["不急着表态", "有些事，时候到了再说", "我不想被推着走"],
        Trait::Independence if introvert => &["一个人待着我才自在", "我习惯自己拿主意"],
        Trait::Independence => &["我习惯自己拿主意", "各做各的，也挺好"],
        Trait::Romance => &[
            "这样的时刻值得用心",
            "有些心意，要花点心思才说得出",
            "我想让这一刻被记住",
        ],
    };
    lines.iter().map(|s| s.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::BigFive;

    fn avatar(extraversion: f32) -> Avatar {
        Avatar {
            id: crate::scenario::ResidentId::new("shisong"),
            name: "石松".into(),
            gender: "男".into(),
            age: 45,
            occupation: "野外采集者".into(),
            personality: BigFive {
                openness: 65.0,
                conscientiousness: 50.0,
                extraversion,
                agreeableness: 68.0,
                neuroticism: 35.0,
            },
            traits: vec![],
            interests: vec![],
            quote: String::new(),
            goals: vec![],
            memories: vec![],
            tie: None,
        }
    }

    #[test]
    fn an_introvert_never_says_it_loves_crowds() {
        for t in [Trait::Warmth, Trait::Humour, Trait::Initiative] {
            for line in trait_reason(&avatar(18.0), t) {
                assert!(!line.contains("热热闹闹"), "{line}");
            }
        }
        assert!(
            trait_reason(&avatar(90.0), Trait::Warmth)
                .iter()
                .any(|l| l.contains("热热闹闹"))
        );
    }
}
