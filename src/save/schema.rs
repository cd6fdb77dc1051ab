//! The save file's tables. Times are game seconds since 1970-01-01 (read them
//! with SQLite's `datetime(x, 'unixepoch')`); residents and places by their
//! scenario ids; the engine's own bookkeeping as JSON in `sim_state`.

use rusqlite::Connection;

use super::SaveError;

/// The schema this build writes. A file with a higher `user_version` was
/// written by a newer Heartvale and is refused, untouched.
pub(crate) const VERSION: i64 = 6;

/// Version 1: the town, and the companion tables of the memory design
/// (`conversations`, `key_moments`, `user_profiles`, `affection_logs`: the
/// player's chats with each companion, one row per message or change).
const V1: &str = "
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE scenario_files (path TEXT PRIMARY KEY, content BLOB NOT NULL);
CREATE TABLE residents (
    idx INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
    energy REAL NOT NULL, hunger REAL NOT NULL, social REAL NOT NULL, fun REAL NOT NULL,
    last_meal INTEGER NOT NULL, location TEXT NOT NULL, x REAL NOT NULL, y REAL NOT NULL,
    activity TEXT, state TEXT NOT NULL);
CREATE TABLE relationships (
    resident TEXT NOT NULL, other TEXT NOT NULL, kind TEXT NOT NULL, strength REAL NOT NULL,
    impression TEXT NOT NULL, interactions INTEGER NOT NULL,
    last_interaction INTEGER, met INTEGER, PRIMARY KEY (resident, other));
CREATE TABLE memories (
    resident TEXT NOT NULL, seq INTEGER NOT NULL, time INTEGER NOT NULL, kind TEXT NOT NULL,
    importance INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY (resident, seq));
CREATE TABLE notices (
    id INTEGER PRIMARY KEY, author TEXT NOT NULL, posted INTEGER NOT NULL,
    location TEXT NOT NULL, text TEXT NOT NULL);
CREATE TABLE appointments (
    id INTEGER PRIMARY KEY, a TEXT NOT NULL, b TEXT NOT NULL, place TEXT NOT NULL,
    at INTEGER NOT NULL, made INTEGER NOT NULL, keep_a INTEGER NOT NULL, keep_b INTEGER NOT NULL,
    showed_a INTEGER NOT NULL, showed_b INTEGER NOT NULL, status TEXT NOT NULL);
CREATE TABLE town_conversations (
    id INTEGER PRIMARY KEY, location TEXT NOT NULL, participants TEXT NOT NULL,
    topic TEXT NOT NULL, started_at INTEGER NOT NULL, state TEXT NOT NULL);
CREATE TABLE town_messages (
    conversation INTEGER NOT NULL, sequence INTEGER NOT NULL, speaker TEXT NOT NULL,
    content TEXT NOT NULL, emotion TEXT NOT NULL, mentioned TEXT NOT NULL,
    world_time INTEGER NOT NULL, PRIMARY KEY (conversation, sequence));
CREATE TABLE sim_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE conversations (
    id INTEGER PRIMARY KEY, resident TEXT NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL,
    affection_delta INTEGER NOT NULL DEFAULT 0, is_key_moment INTEGER NOT NULL DEFAULT 0,
    key_moment_id TEXT, created_at INTEGER NOT NULL);
CREATE TABLE key_moments (
    id TEXT NOT NULL, resident TEXT NOT NULL, chapter INTEGER NOT NULL, moment_name TEXT,
    triggered_at INTEGER, user_response TEXT, ai_response TEXT, affection_gained INTEGER,
    status TEXT NOT NULL DEFAULT 'pending', PRIMARY KEY (resident, id));
CREATE TABLE user_profiles (
    resident TEXT PRIMARY KEY, nickname TEXT, affection INTEGER NOT NULL DEFAULT 0,
    current_chapter INTEGER NOT NULL DEFAULT 1, personality_summary TEXT,
    preferences_summary TEXT, relationship_summary TEXT, recent_topics TEXT,
    total_messages INTEGER NOT NULL DEFAULT 0, consecutive_days INTEGER NOT NULL DEFAULT 0,
    last_active_at INTEGER, created_at INTEGER);
CREATE TABLE affection_logs (
    id INTEGER PRIMARY KEY, resident TEXT NOT NULL, delta INTEGER NOT NULL,
    reason TEXT NOT NULL, before_value INTEGER NOT NULL, after_value INTEGER NOT NULL,
    created_at INTEGER NOT NULL);
";

/// Version 2: memory retrieval. When each memory was last recalled (its
/// recency counts from there; NULL in older saves: its own time), and the
/// memories' embeddings (little-endian f32s) with the model that made them.
const V2: &str = "
ALTER TABLE memories ADD COLUMN last_access INTEGER;
CREATE TABLE memory_vectors (
    resident TEXT NOT NULL, seq INTEGER NOT NULL, model TEXT NOT NULL, vector BLOB NOT NULL,
    PRIMARY KEY (resident, seq));
";

/// Version 3: what each tie's last real talk was about and how it went
/// (JSON, NULL when none: older saves open with none).
const V3: &str = "
ALTER TABLE relationships ADD COLUMN last_talk TEXT;
";

/// Version 4: the player's counselling courses (HEART RULE sessions with a
/// counsellor resident), one row per finished session: its summary, the
/// forms as filled and the `persist: true` globals' values (JSON).
const V4: &str = "
CREATE TABLE counsel_sessions (
    resident TEXT NOT NULL, seq INTEGER NOT NULL, session TEXT NOT NULL,
    started TEXT NOT NULL, ended TEXT NOT NULL, summary TEXT NOT NULL,
    forms TEXT NOT NULL, persisted TEXT NOT NULL, PRIMARY KEY (resident, seq));
";

/// Version 5: what each resident knows, one row per fact, in the order it
/// was learnt: its kind, its words, where it came from (`known`, `lived`,
/// `saw`, `notice`, `told`; `teller` for the last), when, how much it
/// matters, and the fact itself as JSON. Older saves have none: their
/// residents start with what the scenario gives them. And the days each
/// pair talked (JSON; NULL in older saves: none known).
const V5: &str = "
CREATE TABLE facts (
    resident TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, text TEXT NOT NULL,
    source TEXT NOT NULL, teller TEXT, learned INTEGER NOT NULL, importance INTEGER NOT NULL,
    fact TEXT NOT NULL, PRIMARY KEY (resident, seq));
ALTER TABLE relationships ADD COLUMN talk_days TEXT;
";

/// Version 6: the companion that listens. What the player told each
/// resident about themselves, as facts with the message each came from;
/// every version of the 用户画像 (who wrote it, as JSON); the current
/// profile's version, author and 最近状态. `key_moments.status` now says
/// `triggered`, `failed` or `pending`.
const V6: &str = "
CREATE TABLE player_facts (
    resident TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, about TEXT NOT NULL,
    value TEXT NOT NULL, said TEXT NOT NULL, time INTEGER NOT NULL, PRIMARY KEY (resident, seq));
CREATE TABLE profile_versions (
    resident TEXT NOT NULL, version INTEGER NOT NULL, written_by TEXT NOT NULL,
    profile TEXT NOT NULL, PRIMARY KEY (resident, version));
ALTER TABLE user_profiles ADD COLUMN profile_version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE user_profiles ADD COLUMN profile_written_by TEXT;
ALTER TABLE user_profiles ADD COLUMN recent_state TEXT;
";

/// Each version's script, applied in order to bring a file up to [`VERSION`].
const MIGRATIONS: [&str; 6] = [V1, V2, V3, V4, V5, V6];

/// The file's schema version (0: a new, empty database).
pub(crate) fn version(db: &Connection) -> Result<i64, SaveError> {
    Ok(db.query_row("PRAGMA user_version", [], |r| r.get(0))?)
}

/// Brings the file's tables up to [`VERSION`] (inside the caller's transaction).
pub(crate) fn migrate(db: &Connection, from: i64) -> Result<(), SaveError> {
    for (v, script) in MIGRATIONS.iter().enumerate().skip(from as usize) {
        db.execute_batch(script)?;
        db.pragma_update(None, "user_version", v as i64 + 1)?;
    }
    Ok(())
}
