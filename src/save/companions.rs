//! The player's chats in the memory design's own tables: `conversations`
//! (one row per line), `key_moments` (verbatim), `user_profiles` (affection,
//! chapter, the profile, the streak) and `affection_logs` (every change).

use rusqlite::{Connection, Transaction, params};

use super::SaveError;
use crate::base::time::GameTime;
use crate::companion::session::{ChatLine, MomentRecord, Speaker};
use crate::companion::{
    Affection, AffectionChange, ChangeReason, CompanionState, PlayerProfile, Stage,
};

/// Replaces the four tables' rows with `companions`.
pub(crate) fn write(
    tx: &Transaction,
    companions: &[(String, CompanionState)],
) -> Result<(), SaveError> {
    for table in [
        "conversations",
        "key_moments",
        "user_profiles",
        "affection_logs",
    ] {
        tx.execute(&format!("DELETE FROM {table}"), [])?;
    }
    for (id, s) in companions {
        write_profile(tx, id, s)?;
        write_lines(tx, id, &s.lines)?;
        let mut m = tx.prepare(
            "INSERT INTO key_moments (id, resident, chapter, moment_name, triggered_at, user_response, ai_response, affection_gained, status)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'triggered')",
        )?;
        for r in &s.moments {
            m.execute(params![
                r.id, id, r.chapter, r.name, r.time.0, r.user, r.reply, r.gained
            ])?;
        }
        let mut log = tx.prepare(
            "INSERT INTO affection_logs (resident, delta, reason, before_value, after_value, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?;
        for (t, c) in &s.log {
            log.execute(params![
                id,
                c.delta,
                c.reason.text(),
                c.before,
                c.after,
                t.0
            ])?;
        }
    }
    Ok(())
}

fn write_profile(tx: &Transaction, id: &str, s: &CompanionState) -> Result<(), SaveError> {
    let p = &s.profile;
    let last = s
        .lines
        .iter()
        .rev()
        .find(|l| l.speaker == Speaker::Player)
        .map(|l| l.time.0);
    tx.execute(
        "INSERT INTO user_profiles (resident, nickname, affection, current_chapter, personality_summary,
            preferences_summary, relationship_summary, recent_topics, total_messages, consecutive_days,
            last_active_at, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        params![
            id,
            p.nickname,
            s.affection.value(),
            s.affection.reached().chapter(),
            p.personality,
            p.preferences,
            p.relationship,
            serde_json::to_string(&p.recent_topics).expect("strings serialize"),
            s.messages,
            s.affection.streak(),
            last,
            s.started.map(|t| t.0)
        ],
    )?;
    Ok(())
}

fn write_lines(tx: &Transaction, id: &str, lines: &[ChatLine]) -> Result<(), SaveError> {
    let mut ins = tx.prepare(
        "INSERT INTO conversations (resident, role, content, affection_delta, is_key_moment, key_moment_id, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for l in lines {
        let role = match l.speaker {
            Speaker::Player => "user",
            Speaker::Companion => "assistant",
        };
        ins.execute(params![
            id,
            role,
            l.content,
            l.affection_delta,
            l.key_moment.is_some(),
            l.key_moment,
            l.time.0
        ])?;
    }
    Ok(())
}

/// Every companion's state, by resident id.
pub(crate) fn read(db: &Connection) -> Result<Vec<(String, CompanionState)>, SaveError> {
    let mut q = db.prepare(
        "SELECT resident, nickname, affection, current_chapter, personality_summary, preferences_summary,
            relationship_summary, recent_topics, total_messages, consecutive_days, last_active_at, created_at
         FROM user_profiles ORDER BY resident",
    )?;
    let rows = q.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            PlayerProfile {
                nickname: r.get(1)?,
                personality: r.get::<_, Option<String>>(4)?.unwrap_or_default(),
                preferences: r.get::<_, Option<String>>(5)?.unwrap_or_default(),
                relationship: r.get::<_, Option<String>>(6)?.unwrap_or_default(),
                recent_topics: Vec::new(),
            },
            (
                r.get::<_, i32>(2)?,
                r.get::<_, u8>(3)?,
                r.get::<_, Option<String>>(7)?,
            ),
            (r.get::<_, u32>(8)?, r.get::<_, u32>(9)?),
            (r.get::<_, Option<i64>>(10)?, r.get::<_, Option<i64>>(11)?),
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, mut profile, (value, chapter, topics), (messages, streak), (last, started)) = row?;
        profile.recent_topics = topics
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        let reached = Stage::of_chapter(chapter).unwrap_or(Stage::of(value));
        let last_day = last.map(|t| GameTime(t).day_number());
        let state = CompanionState {
            affection: Affection::restored(value, reached, streak, last_day),
            moments: read_moments(db, &id)?,
            profile,
            lines: read_lines(db, &id)?,
            messages,
            started: started.map(GameTime),
            log: read_log(db, &id)?,
        };
        out.push((id, state));
    }
    Ok(out)
}

fn read_lines(db: &Connection, id: &str) -> Result<Vec<ChatLine>, SaveError> {
    let mut q = db.prepare_cached(
        "SELECT role, content, affection_delta, key_moment_id, created_at FROM conversations
         WHERE resident = ?1 ORDER BY id",
    )?;
    let rows = q.query_map([id], |r| {
        Ok(ChatLine {
            speaker: if r.get::<_, String>(0)? == "user" {
                Speaker::Player
            } else {
                Speaker::Companion
            },
            content: r.get(1)?,
            affection_delta: r.get(2)?,
            key_moment: r.get(3)?,
            time: GameTime(r.get(4)?),
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

fn read_moments(db: &Connection, id: &str) -> Result<Vec<MomentRecord>, SaveError> {
    let mut q = db.prepare_cached(
        "SELECT id, chapter, moment_name, triggered_at, user_response, ai_response, affection_gained
         FROM key_moments WHERE resident = ?1 AND status = 'triggered' ORDER BY triggered_at, rowid",
    )?;
    let rows = q.query_map([id], |r| {
        Ok(MomentRecord {
            id: r.get(0)?,
            chapter: r.get(1)?,
            name: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
            time: GameTime(r.get::<_, Option<i64>>(3)?.unwrap_or(0)),
            user: r.get::<_, Option<String>>(4)?.unwrap_or_default(),
            reply: r.get::<_, Option<String>>(5)?.unwrap_or_default(),
            gained: r.get::<_, Option<i32>>(6)?.unwrap_or(0),
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

fn read_log(db: &Connection, id: &str) -> Result<Vec<(GameTime, AffectionChange)>, SaveError> {
    let mut q = db.prepare_cached(
        "SELECT delta, reason, before_value, after_value, created_at FROM affection_logs
         WHERE resident = ?1 ORDER BY id",
    )?;
    let rows = q.query_map([id], |r| {
        Ok((
            r.get::<_, i32>(0)?,
            r.get::<_, String>(1)?,
            (r.get::<_, i32>(2)?, r.get::<_, i32>(3)?),
            r.get::<_, i64>(4)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (delta, reason, (before, after), t) = row?;
        let reason = ChangeReason::parse(&reason)
            .ok_or_else(|| SaveError::Corrupt(format!("affection log reason {reason:?}")))?;
        out.push((
            GameTime(t),
            AffectionChange {
                delta,
                reason,
                before,
                after,
            },
        ));
    }
    Ok(out)
}
