//! A snapshot to and from the SQLite file: one transaction per save.

use std::sync::Arc;

use rusqlite::{Connection, Transaction, params};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::SaveError;
use super::schema;
use super::snapshot::{Bookkeeping, ResidentSnap, TownSnapshot};
use super::source::TownSource;
use crate::base::time::GameTime;
use crate::scenario::{ResidentId, Town};
use crate::sim::memory::{Embedding, Memory};
use crate::sim::notice_board::{Notice, NoticeBoard};
use crate::sim::residents::{Needs, Relationship, RosterIdx};
use crate::sim::social::meetings::Meeting;

/// An enum's name as its serde form (`"friend"`), for a text column.
fn text<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

fn from_text<T: DeserializeOwned>(s: &str, what: &str) -> Result<T, SaveError> {
    serde_json::from_value(serde_json::Value::String(s.to_string()))
        .map_err(|e| SaveError::Corrupt(format!("{what} {s:?}: {e}")))
}

/// Replaces the vectors of these memories (positions) of `resident`.
pub(crate) fn write_vectors(
    tx: &Transaction,
    resident: &str,
    vectors: &[(usize, Arc<Embedding>)],
) -> Result<(), SaveError> {
    let mut ins = tx.prepare_cached(
        "INSERT OR REPLACE INTO memory_vectors (resident, seq, model, vector) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for (seq, v) in vectors {
        ins.execute(params![
            resident,
            *seq as i64,
            v.model,
            vector_bytes(&v.values)
        ])?;
    }
    Ok(())
}

/// A vector as little-endian f32s.
fn vector_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn vector_values(bytes: &[u8]) -> Result<Vec<f32>, SaveError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(SaveError::Corrupt("a memory vector of odd length".into()));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect())
}

fn json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("plain data serializes")
}

fn from_json<T: DeserializeOwned>(s: &str, what: &str) -> Result<T, SaveError> {
    serde_json::from_str(s).map_err(|e| SaveError::Corrupt(format!("{what}: {e}")))
}

/// Writes the whole town in one transaction, replacing the file's last save
/// (and the player's chats, in the memory design's tables).
pub(crate) fn write(
    db: &mut Connection,
    snap: &TownSnapshot,
    source: &TownSource,
    town: &Town,
    ids: &[ResidentId],
) -> Result<(), SaveError> {
    let tx = db.transaction()?;
    let v = schema::version(&tx)?;
    schema::migrate(&tx, v)?;
    for table in [
        "meta",
        "scenario_files",
        "residents",
        "relationships",
        "memories",
        "memory_vectors",
        "notices",
        "appointments",
        "town_conversations",
        "town_messages",
        "sim_state",
    ] {
        tx.execute(&format!("DELETE FROM {table}"), [])?;
    }
    write_meta(&tx, snap, source)?;
    let place = |l| town.id(l).to_string();
    write_residents(&tx, &snap.residents, &place)?;
    write_boards(&tx, snap, &place, ids)?;
    write_conversations(&tx, snap, &place, ids)?;
    tx.execute(
        "INSERT INTO sim_state (key, value) VALUES ('bookkeeping', ?1)",
        [json(&snap.books)],
    )?;
    super::companions::write(&tx, &snap.companions)?;
    super::courses::write(&tx, &snap.courses)?;
    super::facts::write(&tx, &snap.residents, ids)?;
    tx.commit()?;
    Ok(())
}

fn write_meta(tx: &Transaction, snap: &TownSnapshot, source: &TownSource) -> Result<(), SaveError> {
    let mut meta = vec![
        ("seed", snap.seed.to_string()),
        ("days", snap.days.to_string()),
        ("ended", snap.ended.to_string()),
        ("now", snap.now.0.to_string()),
        ("steps", snap.steps.to_string()),
        ("game_time", snap.now.to_string()),
        // Residents' facts are in `facts` (older saves: none kept).
        ("knowledge", "facts".to_string()),
        (
            "written_by",
            format!("heartvale {}", env!("CARGO_PKG_VERSION")),
        ),
    ];
    match source {
        TownSource::Generated { residents, seed } => {
            meta.push(("generated_residents", residents.to_string()));
            meta.push(("generated_seed", seed.to_string()));
        }
        TownSource::Folder { files } => {
            let mut ins =
                tx.prepare("INSERT INTO scenario_files (path, content) VALUES (?1, ?2)")?;
            for (path, bytes) in files {
                ins.execute(params![path, bytes])?;
            }
        }
    }
    let mut ins = tx.prepare("INSERT INTO meta (key, value) VALUES (?1, ?2)")?;
    for (k, v) in meta {
        ins.execute(params![k, v])?;
    }
    Ok(())
}

fn write_residents(
    tx: &Transaction,
    residents: &[ResidentSnap],
    place: &dyn Fn(crate::scenario::LocIdx) -> String,
) -> Result<(), SaveError> {
    let mut row = tx.prepare(
        "INSERT INTO residents (idx, id, name, energy, hunger, social, fun, last_meal, location, x, y, activity, state)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    )?;
    let mut tie = tx.prepare(
        "INSERT INTO relationships (resident, other, kind, strength, impression, interactions, last_interaction, met, last_talk, talk_days)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    let mut memory = tx.prepare(
        "INSERT INTO memories (resident, seq, time, kind, importance, text, last_access) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for (i, r) in residents.iter().enumerate() {
        let n = &r.needs;
        let doing = r.state.activity.as_ref().map(|a| a.text.action.clone());
        row.execute(params![
            i as i64,
            r.id,
            r.name,
            n.energy,
            n.hunger,
            n.social,
            n.fun,
            n.last_meal.0,
            place(r.at),
            r.pos.x,
            r.pos.y,
            doing,
            json(&r.state)
        ])?;
        for t in &r.ties {
            tie.execute(params![
                r.id,
                t.with.as_str(),
                text(&t.kind),
                t.strength,
                t.impression,
                t.interactions,
                t.last_interaction.get().map(|t| t.0),
                t.met.get().map(|t| t.0),
                t.last_talk
                    .as_ref()
                    .map(|l| serde_json::to_string(l).expect("plain data")),
                json(&t.talk_days)
            ])?;
        }
        for (seq, m) in r.memories.iter().enumerate() {
            memory.execute(params![
                r.id,
                seq as i64,
                m.time.0,
                text(&m.kind),
                m.importance,
                m.text,
                m.last_access.0
            ])?;
        }
        let vectors: Vec<(usize, Arc<Embedding>)> = r
            .memories
            .iter()
            .enumerate()
            .filter_map(|(seq, m)| Some((seq, m.vector.clone()?)))
            .collect();
        write_vectors(tx, &r.id, &vectors)?;
    }
    Ok(())
}

fn write_boards(
    tx: &Transaction,
    snap: &TownSnapshot,
    place: &dyn Fn(crate::scenario::LocIdx) -> String,
    ids: &[ResidentId],
) -> Result<(), SaveError> {
    let mut notice = tx.prepare(
        "INSERT INTO notices (id, author, posted, location, text) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for n in &snap.notices.notices {
        notice.execute(params![
            n.id,
            n.author.as_str(),
            n.posted.0,
            place(n.location),
            n.text
        ])?;
    }
    let mut appointment = tx.prepare(
        "INSERT INTO appointments (id, a, b, place, at, made, keep_a, keep_b, showed_a, showed_b, status)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?;
    for m in &snap.appointments {
        appointment.execute(params![
            m.id,
            ids[m.a.i()].as_str(),
            ids[m.b.i()].as_str(),
            place(m.place),
            m.at.0,
            m.made.0,
            m.keep[0],
            m.keep[1],
            m.showed[0],
            m.showed[1],
            text(&m.status)
        ])?;
    }
    Ok(())
}

fn write_conversations(
    tx: &Transaction,
    snap: &TownSnapshot,
    place: &dyn Fn(crate::scenario::LocIdx) -> String,
    ids: &[ResidentId],
) -> Result<(), SaveError> {
    let mut talk = tx.prepare(
        "INSERT INTO town_conversations (id, location, participants, topic, started_at, state)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    let mut line = tx.prepare(
        "INSERT INTO town_messages (conversation, sequence, speaker, content, emotion, mentioned, world_time)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for c in &snap.conversations {
        let who: Vec<&str> = c
            .participants()
            .iter()
            .map(|i| ids[i.i()].as_str())
            .collect();
        let (topic, started) = c.topic_and_start();
        talk.execute(params![
            c.id() as i64,
            place(c.place()),
            json(&who),
            topic,
            started.0,
            json(c)
        ])?;
        for (seq, m) in c.messages().iter().enumerate() {
            let mentioned: Vec<&str> = m.mentions.iter().map(|i| ids[i.i()].as_str()).collect();
            line.execute(params![
                c.id() as i64,
                seq as i64,
                ids[m.speaker.i()].as_str(),
                m.text,
                text(&m.emotion),
                json(&mentioned),
                m.time.0
            ])?;
        }
    }
    Ok(())
}

/// Reads the last complete save of a town whose scenario gives `town` and `ids`.
pub(crate) fn read(
    db: &Connection,
    town: &Town,
    ids: &[ResidentId],
) -> Result<TownSnapshot, SaveError> {
    let meta = |k: &str| -> Result<String, SaveError> {
        db.query_row("SELECT value FROM meta WHERE key = ?1", [k], |r| r.get(0))
            .map_err(|_| SaveError::Corrupt(format!("no {k} in meta")))
    };
    let num = |k: &str| -> Result<i64, SaveError> {
        meta(k)?
            .parse()
            .map_err(|_| SaveError::Corrupt(format!("meta {k} is not a number")))
    };
    let place = |id: &str| {
        town.find(id)
            .ok_or_else(|| SaveError::Corrupt(format!("unknown place {id}")))
    };
    let idx = |id: &str| {
        ids.iter()
            .position(|r| r.as_str() == id)
            .map(|i| RosterIdx(i as u32))
            .ok_or_else(|| SaveError::Corrupt(format!("unknown resident {id}")))
    };
    let books: Bookkeeping = from_json(
        &db.query_row(
            "SELECT value FROM sim_state WHERE key = 'bookkeeping'",
            [],
            |r| r.get::<_, String>(0),
        )
        .map_err(|_| SaveError::Corrupt("no bookkeeping in sim_state".into()))?,
        "bookkeeping",
    )?;
    // A save is untrusted: numbers are read in the range a town can have,
    // its tuning as `check` reads `tuning.yaml`.
    if let Some(problem) = crate::scenario::tuning_problems(&books.tuning).first() {
        return Err(SaveError::Corrupt(format!("the saved tuning: {problem}")));
    }
    let seed: u64 = meta("seed")?
        .parse()
        .map_err(|_| SaveError::Corrupt("meta seed is not a number from 0 to 2^64-1".into()))?;
    let days = num("days")?;
    if !(1..=MAX_DAYS).contains(&days) {
        return Err(SaveError::Corrupt(format!(
            "meta days is {days}; a run is 1 to {MAX_DAYS} days"
        )));
    }
    let now = num("now")?;
    if !(0..=LAST_SECOND).contains(&now) {
        return Err(SaveError::Corrupt(format!(
            "meta now is {now}, not a moment between the years 1970 and 9999"
        )));
    }
    let snapshot = TownSnapshot {
        seed,
        days: days as u32,
        ended: meta("ended")? == "true",
        now: GameTime(now),
        steps: num("steps")? as u64,
        residents: read_residents(db, &place, meta("knowledge").is_ok())?,
        notices: read_notices(db, &place)?,
        appointments: read_appointments(db, &place, &idx)?,
        conversations: read_conversations(db, &idx)?,
        books,
        companions: super::companions::read(db)?,
        courses: super::courses::read(db)?,
    };
    Ok(snapshot)
}

/// The longest run a save may claim (a century).
const MAX_DAYS: i64 = 36_500;
/// 9999-12-31 23:59:59 UTC: the last moment a save's clock may read.
const LAST_SECOND: i64 = 253_402_300_799;

/// The schema objects Heartvale never creates: a trigger in a save someone
/// sends would run on the next save (and could wipe the town), a view could
/// stand in for a table.
pub(crate) fn refuse_foreign_objects(db: &Connection) -> Result<(), SaveError> {
    let found: Option<(String, String)> = db
        .query_row(
            "SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'view') LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .ok();
    match found {
        Some((kind, name)) => Err(SaveError::Corrupt(format!(
            "the file holds a {kind} `{name}` Heartvale did not create; it is refused, not run"
        ))),
        None => Ok(()),
    }
}

/// The scenario kept in the save.
pub(crate) fn read_source(db: &Connection) -> Result<TownSource, SaveError> {
    let generated: Option<(String, String)> = db
        .query_row(
            "SELECT a.value, b.value FROM meta a, meta b WHERE a.key = 'generated_residents' AND b.key = 'generated_seed'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .ok();
    if let Some((n, seed)) = generated {
        let bad = |_| SaveError::Corrupt("bad generated town size or seed".into());
        let residents: usize = n.parse().map_err(bad)?;
        // A save is untrusted: its claim is bounded before anything is built.
        let most = crate::scenario::generate::MAX_GENERATED;
        if !(1..=most).contains(&residents) {
            return Err(SaveError::Corrupt(format!(
                "the save claims a generated town of {residents} residents; Heartvale makes 1 to {most}"
            )));
        }
        return Ok(TownSource::Generated {
            residents,
            seed: seed.parse().map_err(bad)?,
        });
    }
    let mut q = db.prepare("SELECT path, content FROM scenario_files ORDER BY path")?;
    let files = q
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<Vec<(String, Vec<u8>)>, _>>()?;
    if files.is_empty() {
        return Err(SaveError::Corrupt("the save holds no scenario".into()));
    }
    Ok(TownSource::Folder { files })
}

type PlaceOf<'a> = dyn Fn(&str) -> Result<crate::scenario::LocIdx, SaveError> + 'a;
type IdxOf<'a> = dyn Fn(&str) -> Result<RosterIdx, SaveError> + 'a;

fn read_residents(
    db: &Connection,
    place: &PlaceOf,
    knowledge: bool,
) -> Result<Vec<ResidentSnap>, SaveError> {
    let mut q = db.prepare(
        "SELECT id, name, energy, hunger, social, fun, last_meal, location, x, y, state FROM residents ORDER BY idx",
    )?;
    let rows = q.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            [r.get::<_, f32>(2)?, r.get(3)?, r.get(4)?, r.get(5)?],
            r.get::<_, i64>(6)?,
            r.get::<_, String>(7)?,
            [r.get::<_, f32>(8)?, r.get(9)?],
            r.get::<_, String>(10)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, name, [energy, hunger, social, fun], last_meal, at, [x, y], state) = row?;
        out.push(ResidentSnap {
            needs: Needs::from_parts([energy, hunger, social, fun], GameTime(last_meal)),
            at: place(&at)?,
            pos: bevy::math::Vec2::new(x, y),
            state: from_json(&state, &format!("state of {id}"))?,
            ties: read_ties(db, &id)?,
            memories: read_memories(db, &id)?,
            facts: match knowledge {
                true => Some(
                    super::facts::read(db, &id)?
                        .into_iter()
                        .map(|f| (f, String::new()))
                        .collect(),
                ),
                false => None,
            },
            id,
            name,
        });
    }
    Ok(out)
}

fn read_ties(db: &Connection, id: &str) -> Result<Vec<Relationship>, SaveError> {
    let mut q = db.prepare_cached(
        "SELECT other, kind, strength, impression, interactions, last_interaction, met, last_talk, talk_days
         FROM relationships WHERE resident = ?1 ORDER BY rowid",
    )?;
    let rows = q.query_map([id], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, f32>(2)?,
            r.get::<_, String>(3)?,
            r.get::<_, u32>(4)?,
            r.get::<_, Option<i64>>(5)?,
            r.get::<_, Option<i64>>(6)?,
            (
                r.get::<_, Option<String>>(7)?,
                r.get::<_, Option<String>>(8)?,
            ),
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (other, kind, strength, impression, interactions, last, met, (talk, days)) = row?;
        let talk_days = match days {
            Some(d) => from_json(&d, "a tie's talk days")?,
            None => Default::default(),
        };
        let last_talk = talk
            .map(|t| serde_json::from_str(&t))
            .transpose()
            .map_err(|e| SaveError::Corrupt(format!("a tie's last talk: {e}")))?;
        out.push(Relationship::restored(
            ResidentId::new(&other),
            from_text(&kind, "relationship kind")?,
            strength,
            impression,
            interactions,
            (last.map(GameTime), met.map(GameTime)),
            (last_talk, talk_days),
        ));
    }
    Ok(out)
}

fn read_memories(db: &Connection, id: &str) -> Result<Vec<Memory>, SaveError> {
    let mut q = db.prepare_cached(
        "SELECT m.time, m.kind, m.importance, m.text, COALESCE(m.last_access, m.time), v.model, v.vector
         FROM memories m LEFT JOIN memory_vectors v ON v.resident = m.resident AND v.seq = m.seq
         WHERE m.resident = ?1 ORDER BY m.seq",
    )?;
    let rows = q.query_map([id], |r| {
        Ok((
            (r.get::<_, i64>(0)?, r.get::<_, i64>(4)?),
            r.get::<_, String>(1)?,
            r.get::<_, u8>(2)?,
            r.get::<_, String>(3)?,
            (
                r.get::<_, Option<String>>(5)?,
                r.get::<_, Option<Vec<u8>>>(6)?,
            ),
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let ((time, last), kind, importance, text, stored) = row?;
        let vector = match stored {
            (Some(model), Some(bytes)) => Some(Arc::new(Embedding {
                model,
                values: vector_values(&bytes)?,
            })),
            _ => None,
        };
        out.push(Memory::restored(
            (GameTime(time), GameTime(last)),
            from_text(&kind, "memory kind")?,
            importance,
            text,
            vector,
        ));
    }
    Ok(out)
}

fn read_notices(db: &Connection, place: &PlaceOf) -> Result<NoticeBoard, SaveError> {
    let mut q =
        db.prepare("SELECT id, author, posted, location, text FROM notices ORDER BY rowid")?;
    let rows = q.query_map([], |r| {
        Ok((
            r.get::<_, u32>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, i64>(2)?,
            r.get::<_, String>(3)?,
            r.get::<_, String>(4)?,
        ))
    })?;
    let mut notices = Vec::new();
    for row in rows {
        let (id, author, posted, location, text) = row?;
        notices.push(Notice {
            id,
            author: ResidentId::new(&author),
            posted: GameTime(posted),
            location: place(&location)?,
            text,
        });
    }
    Ok(NoticeBoard { notices })
}

fn read_appointments(
    db: &Connection,
    place: &PlaceOf,
    idx: &IdxOf,
) -> Result<Vec<Meeting>, SaveError> {
    let mut q = db.prepare(
        "SELECT id, a, b, place, at, made, keep_a, keep_b, showed_a, showed_b, status FROM appointments ORDER BY rowid",
    )?;
    let rows = q.query_map([], |r| {
        Ok((
            r.get::<_, u32>(0)?,
            [
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
            ],
            [r.get::<_, i64>(4)?, r.get(5)?],
            [r.get::<_, bool>(6)?, r.get(7)?, r.get(8)?, r.get(9)?],
            r.get::<_, String>(10)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, [a, b, at_place], [at, made], [ka, kb, sa, sb], status) = row?;
        out.push(Meeting {
            id,
            a: idx(&a)?,
            b: idx(&b)?,
            place: place(&at_place)?,
            at: GameTime(at),
            made: GameTime(made),
            keep: [ka, kb],
            showed: [sa, sb],
            status: from_text(&status, "appointment status")?,
        });
    }
    Ok(out)
}

fn read_conversations(
    db: &Connection,
    idx: &IdxOf,
) -> Result<Vec<crate::sim::social::Conversation>, SaveError> {
    let mut q = db.prepare("SELECT id, state FROM town_conversations ORDER BY id")?;
    let talks = q
        .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = Vec::new();
    for (id, state) in talks {
        let c: crate::sim::social::Conversation = from_json(&state, &format!("conversation {id}"))?;
        // The messages table is what a reader queries; it must agree with the state.
        let mut lines = db.prepare_cached(
            "SELECT speaker FROM town_messages WHERE conversation = ?1 ORDER BY sequence",
        )?;
        let speakers = lines
            .query_map([id], |r| r.get::<_, String>(0))?
            .collect::<Result<Vec<_>, _>>()?;
        let same = speakers.len() == c.messages().len()
            && speakers
                .iter()
                .zip(c.messages())
                .all(|(s, m)| idx(s).ok() == Some(m.speaker));
        if !same {
            return Err(SaveError::Corrupt(format!(
                "conversation {id}: messages do not match its state"
            )));
        }
        out.push(c);
    }
    Ok(out)
}
