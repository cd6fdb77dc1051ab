//! One companion's relationship with the player: affection, the moments
//! that happened, the player's profile, the conversation so far; and a turn
//! of chat — the player's message in, the companion's reply out, with every
//! change it brought.

use serde::{Deserialize, Serialize};

use super::moments::{self, KeyMomentSpec};
use super::{Affection, AffectionChange, CompanionSpec, Stage};
use crate::base::time::GameTime;

/// Rewrite the player's profile every this many messages (and on a stage change).
pub const PROFILE_EVERY: u32 = 20;
/// Key moments a prompt carries, verbatim (the newest).
pub const KEY_MOMENTS_KEPT: usize = 10;

/// Who spoke a chat line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Speaker {
    /// The player.
    Player,
    /// The companion.
    Companion,
}

/// One line of the chat, as `conversations` keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatLine {
    /// Who said it.
    pub speaker: Speaker,
    /// What was said.
    pub content: String,
    /// Affection gained by it (the player's lines).
    pub affection_delta: i32,
    /// The key moment it belongs to, if any.
    pub key_moment: Option<String>,
    /// When.
    pub time: GameTime,
}

/// A key moment that happened, verbatim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MomentRecord {
    /// Its id.
    pub id: String,
    /// Its chapter.
    pub chapter: u8,
    /// Its name.
    pub name: String,
    /// When.
    pub time: GameTime,
    /// What the player said.
    pub user: String,
    /// What the companion answered.
    pub reply: String,
    /// Affection it gave.
    pub gained: i32,
}

/// What the companion knows of the player (the design's 用户画像).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PlayerProfile {
    /// How the player asked to be called.
    pub nickname: Option<String>,
    /// What the player is like.
    pub personality: String,
    /// What the player likes.
    pub preferences: String,
    /// Where the relationship stands.
    pub relationship: String,
    /// What the player talked about lately.
    pub recent_topics: Vec<String>,
}

impl PlayerProfile {
    /// How the companion addresses the player.
    pub fn address(&self) -> &str {
        self.nickname.as_deref().unwrap_or("你")
    }
}

/// The relationship with the player, as saved.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CompanionState {
    /// Affection and its streak.
    pub affection: Affection,
    /// Key moments that happened, oldest first.
    pub moments: Vec<MomentRecord>,
    /// The player's profile.
    pub profile: PlayerProfile,
    /// Every chat line, oldest first.
    pub lines: Vec<ChatLine>,
    /// Messages from the player so far.
    pub messages: u32,
    /// When the chat began.
    pub started: Option<GameTime>,
    /// Every affection change, oldest first (`affection_logs`).
    pub log: Vec<(GameTime, AffectionChange)>,
}

/// What one turn brought.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The reply, marks removed.
    pub reply: String,
    /// Affection changes, in order.
    pub changes: Vec<AffectionChange>,
    /// The stage before and after the turn.
    pub stages: (Stage, Stage),
    /// Key moments that happened.
    pub moments: Vec<MomentRecord>,
    /// The profile, when it was rewritten this turn.
    pub profile: Option<PlayerProfile>,
}

/// What a reply is written from.
#[derive(Debug, Clone, Copy)]
pub struct ReplyContext<'a> {
    /// The companion's spec.
    pub spec: &'a CompanionSpec,
    /// Its state before the reply.
    pub state: &'a CompanionState,
    /// What the player just said.
    pub message: &'a str,
    /// Key moments this message may trigger.
    pub candidates: &'a [&'a KeyMomentSpec],
    /// Memories recalled for the message, best first.
    pub recalled: &'a [String],
}

impl CompanionState {
    /// The stage it is in.
    pub fn stage(&self) -> Stage {
        self.affection.stage()
    }

    /// Ids of the moments that happened.
    pub fn happened(&self) -> Vec<String> {
        self.moments.iter().map(|m| m.id.clone()).collect()
    }

    /// One turn: the player's `message` at `now`; `reply` writes the answer
    /// (the built-in brain or a model), marked for any key moment that happened.
    pub fn turn(
        &mut self,
        spec: &CompanionSpec,
        (message, now): (&str, GameTime),
        recalled: &[String],
        reply: &mut dyn FnMut(&ReplyContext<'_>) -> String,
    ) -> Turn {
        let before = self.stage();
        self.started.get_or_insert(now);
        self.messages += 1;
        // A name given is used at once, not only at the next profile rewrite.
        if let Some(name) = after_any(message, NAME_MARKERS) {
            self.profile.nickname = Some(name);
        }
        let mut changes = self.affection.on_message(now.day_number());
        let happened = self.happened();
        let candidates = moments::candidates(
            &spec.key_moments,
            self.affection.value(),
            &happened,
            message,
        );
        let raw = reply(&ReplyContext {
            spec,
            state: self,
            message,
            candidates: &candidates,
            recalled,
        });
        let (found, text) = moments::parse_reply(&raw, &candidates);
        let mut records = Vec::new();
        for m in found {
            let reason = super::ChangeReason::KeyMoment { id: m.id.clone() };
            let change = self.affection.add(m.gain, reason);
            records.push(MomentRecord {
                id: m.id.clone(),
                chapter: m.chapter,
                name: m.name.clone(),
                time: now,
                user: message.to_string(),
                reply: text.clone(),
                gained: change.as_ref().map_or(0, |c| c.delta),
            });
            changes.extend(change);
        }
        self.record(message, &text, now, &changes, &records);
        let after = self.stage();
        let profile = (self.messages.is_multiple_of(PROFILE_EVERY) || after != before).then(|| {
            self.profile = rewrite_profile(self);
            self.profile.clone()
        });
        Turn {
            reply: text,
            changes,
            stages: (before, after),
            moments: records,
            profile,
        }
    }

    fn record(
        &mut self,
        message: &str,
        reply: &str,
        now: GameTime,
        changes: &[AffectionChange],
        records: &[MomentRecord],
    ) {
        let moment = records.first().map(|m| m.id.clone());
        self.lines.push(ChatLine {
            speaker: Speaker::Player,
            content: message.to_string(),
            affection_delta: changes.iter().map(|c| c.delta).sum(),
            key_moment: moment.clone(),
            time: now,
        });
        self.lines.push(ChatLine {
            speaker: Speaker::Companion,
            content: reply.to_string(),
            affection_delta: 0,
            key_moment: moment,
            time: now,
        });
        self.log.extend(changes.iter().map(|c| (now, c.clone())));
        self.moments.extend(records.iter().cloned());
    }
}

/// The built-in brain's profile: the nickname the player gave, what it
/// said it likes, what it talked about, where the relationship stands.
fn rewrite_profile(state: &CompanionState) -> PlayerProfile {
    let said: Vec<&str> = state
        .lines
        .iter()
        .filter(|l| l.speaker == Speaker::Player)
        .map(|l| l.content.as_str())
        .collect();
    let nickname = said
        .iter()
        .rev()
        .find_map(|s| after_any(s, NAME_MARKERS))
        .or_else(|| state.profile.nickname.clone());
    let likes: Vec<String> = said
        .iter()
        .filter_map(|s| after_any(s, &["我喜欢", "我爱"]))
        .collect();
    let recent: Vec<String> = said
        .iter()
        .rev()
        .take(PROFILE_EVERY as usize)
        .map(|s| s.chars().take(12).collect())
        .collect();
    let long = said.iter().filter(|s| s.chars().count() > 20).count();
    let a = &state.affection;
    PlayerProfile {
        nickname,
        personality: if long * 2 > said.len() {
            "话多，愿意说心里话"
        } else {
            "话不多，但很真诚"
        }
        .into(),
        preferences: if likes.is_empty() {
            "还不清楚".into()
        } else {
            format!("喜欢{}", likes.join("、"))
        },
        relationship: format!(
            "好感度{}（第{}章：{}），聊了{}句，连续{}天来说话",
            a.value(),
            a.stage().chapter(),
            a.stage().name(),
            state.messages,
            a.streak()
        ),
        recent_topics: recent,
    }
}

/// What the player says before the name it wants to be called by.
const NAME_MARKERS: &[&str] = &["叫我", "我叫", "我的名字是"];

/// The words after the first of `markers` in `s` (up to punctuation, ≤ 8 characters).
fn after_any(s: &str, markers: &[&str]) -> Option<String> {
    let (_, rest) = markers.iter().find_map(|m| s.split_once(m))?;
    let word: String = rest
        .chars()
        .take_while(|c| {
            !matches!(
                c,
                '，' | '。' | '！' | '？' | ',' | '.' | '!' | '?' | ' ' | '、' | '～' | '~'
            )
        })
        .take(8)
        .collect();
    // 叫我小林吧 → 小林: the sentence's closing particle is not the name.
    let word = word.trim_end_matches(['吧', '呀', '啊', '呢', '哦', '嘛', '啦']);
    (!word.is_empty()).then(|| word.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> CompanionSpec {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/heartvale");
        let scenario = crate::scenario::Scenario::load(&dir).unwrap();
        let guardian = scenario
            .residents
            .iter()
            .find(|p| p.id.as_str() == "guardian");
        (**guardian.unwrap().companion.as_ref().unwrap()).clone()
    }

    #[test]
    fn moments_are_kept_verbatim_and_the_profile_is_rewritten_every_20_messages() {
        let spec = spec();
        let mut state = CompanionState::default();
        let t = GameTime::parse("2026-04-06 10:00").unwrap();
        let mut builtin = |cx: &ReplyContext<'_>| super::super::builtin::reply(cx);
        let first = state.turn(&spec, ("你好", t), &[], &mut builtin);
        assert_eq!(first.moments.len(), 1, "the first meeting");
        assert_eq!(first.moments[0].id, "first_meeting");
        assert_eq!(first.moments[0].user, "你好");
        assert_eq!(first.moments[0].reply, first.reply, "kept verbatim");
        assert!(!first.reply.contains("【时刻"), "{}", first.reply);
        let named = state.turn(&spec, ("叫我小林吧", t), &[], &mut builtin);
        assert_eq!(named.moments[0].id, "asked_name");
        assert!(named.reply.contains("小林"), "{}", named.reply);
        assert_eq!(state.affection.value(), 1 + 20 + 1 + 50);
        let mut rewrites = Vec::new();
        for i in 3..=40 {
            let turn = state.turn(&spec, (&format!("今天的第{i}句话"), t), &[], &mut builtin);
            if turn.profile.is_some() {
                rewrites.push(i);
            }
        }
        assert_eq!(rewrites, [20, 40]);
        assert_eq!(state.profile.nickname.as_deref(), Some("小林"));
        assert!(
            state.profile.relationship.contains("观察者"),
            "{:?}",
            state.profile
        );
        assert_eq!(state.lines.len(), 80);
        assert_eq!(state.moments.len(), 2, "each moment happens once");
    }

    #[test]
    fn the_built_in_reply_uses_what_it_recalls() {
        let spec = spec();
        let mut state = CompanionState::default();
        let t = GameTime::parse("2026-04-06 10:00").unwrap();
        let mut builtin = |cx: &ReplyContext<'_>| super::super::builtin::reply(cx);
        state.turn(&spec, ("你好", t), &[], &mut builtin);
        let recalled = ["[2026-04-06 09:00] 玩家对我说：「我养了一只猫」".to_string()];
        let mut saw = false;
        for i in 0..6 {
            let turn = state.turn(&spec, (&format!("还记得吗{i}"), t), &recalled, &mut builtin);
            saw |= turn.reply.contains("我养了一只猫");
        }
        assert!(saw, "some stage line brings up the memory");
    }
}
