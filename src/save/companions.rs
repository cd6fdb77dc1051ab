//! The player's chats in the memory design's own tables: `conversations`
//! (one row per line), `key_moments` (verbatim), `user_profiles` (affection,
//! chapter, the profile, the streak) and `affection_logs` (every change).

use rusqlite::{Connection, Transaction, params};

use super::SaveError;
use crate::base::time::GameTime;
use crate::companion::session::{ChatLine, MomentRecord, Speaker};
use crate::companion::{
    Affection, AffectionChange, ChangeReason, CompanionState, FactKind, MomentStatus, PlayerFact,
    PlayerFacts, PlayerProfile, Stage,
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
        "player_facts",
        "profile_versions",
    ] {
        tx.execute(&format!("DELETE FROM {table}"), [])?;
    }
    for (id, s) in companions {
        write_profile(tx, id, s)?;
        write_lines(tx, id, &s.lines)?;
        let mut m = tx.prepare(
            "INSERT INTO key_moments (id, resident, chapter, moment_name, triggered_at, user_response, ai_response, affection_gained, status)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?;
        for r in &s.moments {
            m.execute(params![
                r.id,
                id,
                r.chapter,
                r.name,
                r.time.0,
                r.user,
                r.reply,
                r.gained,
                r.status.as_str()
            ])?;
        }
        // Possible but undecided: only the id is known yet.
        for p in &s.pending {
            m.execute(params![
                p,
                id,
                0,
                None::<String>,
                None::<i64>,
                None::<String>,
                None::<String>,
                None::<i32>,
                "pending"
            ])?;
        }
        write_facts(tx, id, &s.facts)?;
        write_profiles(tx, id, s)?;
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

fn write_facts(tx: &Transaction, id: &str, facts: &PlayerFacts) -> Result<(), SaveError> {
    let mut ins = tx.prepare(
        "INSERT INTO player_facts (resident, seq, kind, about, value, said, time)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for (i, f) in facts.0.iter().enumerate() {
        let kind = serde_json::to_value(f.kind).expect("a kind serializes");
        ins.execute(params![
            id,
            i as i64,
            kind.as_str(),
            f.about,
            f.value,
            f.said,
            f.time.0
        ])?;
    }
    Ok(())
}

/// Every version of the profile, the current one last.
fn write_profiles(tx: &Transaction, id: &str, s: &CompanionState) -> Result<(), SaveError> {
    let mut ins = tx.prepare(
        "INSERT OR REPLACE INTO profile_versions (resident, version, written_by, profile) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for p in s
        .past_profiles
        .iter()
        .chain([&s.profile])
        .filter(|p| p.version > 0)
    {
        let json = serde_json::to_string(p).expect("a profile serializes");
        ins.execute(params![id, p.version, p.written_by, json])?;
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
            last_active_at, created_at, profile_version, profile_written_by, recent_state)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
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
            s.started.map(|t| t.0),
            p.version,
            p.written_by,
            p.recent_state
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
            relationship_summary, recent_topics, total_messages, consecutive_days, last_active_at, created_at,
            profile_version, profile_written_by, recent_state
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
                version: r.get(12)?,
                written_by: r.get::<_, Option<String>>(13)?.unwrap_or_default(),
                recent_state: r.get::<_, Option<String>>(14)?.unwrap_or_default(),
                known: Vec::new(),
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
        let profile_version = profile.version;
        // The facts as the profile held them are kept with its version.
        if let Some(kept) = read_past_profiles(db, &id, profile_version + 1)?.pop()
            && kept.version == profile_version
        {
            profile.known = kept.known;
        }
        let last_day = last.map(|t| GameTime(t).day_number());
        let state = CompanionState {
            affection: Affection::restored(value, reached, streak, last_day),
            moments: read_moments(db, &id)?,
            profile,
            lines: read_lines(db, &id)?,
            messages,
            started: started.map(GameTime),
            log: read_log(db, &id)?,
            facts: read_facts(db, &id)?,
            pending: read_pending(db, &id)?,
            past_profiles: read_past_profiles(db, &id, profile_version)?,
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
         , status FROM key_moments WHERE resident = ?1 AND status != 'pending' ORDER BY triggered_at, rowid",
    )?;
    let rows = q.query_map([id], |r| {
        let status: String = r.get(7)?;
        Ok(MomentRecord {
            status: MomentStatus::parse(&status).unwrap_or(MomentStatus::Triggered),
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

fn read_pending(db: &Connection, id: &str) -> Result<Vec<String>, SaveError> {
    let mut q = db.prepare_cached(
        "SELECT id FROM key_moments WHERE resident = ?1 AND status = 'pending' ORDER BY rowid",
    )?;
    let rows = q.query_map([id], |r| r.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

fn read_facts(db: &Connection, id: &str) -> Result<PlayerFacts, SaveError> {
    let mut q = db.prepare_cached(
        "SELECT kind, about, value, said, time FROM player_facts WHERE resident = ?1 ORDER BY seq",
    )?;
    let rows = q.query_map([id], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get::<_, i64>(4)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (kind, about, value, said, t) = row?;
        let kind = FactKind::parse(&kind)
            .ok_or_else(|| SaveError::Corrupt(format!("player fact kind {kind:?}")))?;
        out.push(PlayerFact {
            kind,
            about,
            value,
            said,
            time: GameTime(t),
        });
    }
    Ok(PlayerFacts(out))
}

/// The profile's versions before `current`, oldest first.
fn read_past_profiles(
    db: &Connection,
    id: &str,
    current: u32,
) -> Result<Vec<PlayerProfile>, SaveError> {
    let mut q = db.prepare_cached(
        "SELECT profile FROM profile_versions WHERE resident = ?1 AND version < ?2 ORDER BY version",
    )?;
    let rows = q.query_map(params![id, current], |r| r.get::<_, String>(0))?;
    let mut out = Vec::new();
    for row in rows {
        let text = row?;
        let p = serde_json::from_str(&text)
            .map_err(|e| SaveError::Corrupt(format!("profile version: {e}")))?;
        out.push(p);
    }
    Ok(out)
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
