//! The player's counselling courses in `counsel_sessions`: one row per
//! finished session with a counsellor resident, in order.

use rusqlite::{Connection, Transaction, params};

use super::SaveError;
use crate::script::engine::{Course, SessionRecord};

/// Replaces the table's rows with `courses`.
pub(crate) fn write(tx: &Transaction, courses: &[(String, Course)]) -> Result<(), SaveError> {
    tx.execute("DELETE FROM counsel_sessions", [])?;
    let mut ins = tx.prepare(
        "INSERT INTO counsel_sessions (resident, seq, session, started, ended, summary, forms, persisted)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    for (id, course) in courses {
        for (seq, r) in course.sessions.iter().enumerate() {
            ins.execute(params![
                id,
                seq as i64,
                r.session,
                r.started,
                r.ended,
                r.summary,
                serde_json::to_string(&r.forms).expect("plain data"),
                serde_json::to_string(&r.persisted).expect("plain data"),
            ])?;
        }
    }
    Ok(())
}

/// Every course, by counsellor id.
pub(crate) fn read(db: &Connection) -> Result<Vec<(String, Course)>, SaveError> {
    let mut q = db.prepare(
        "SELECT resident, session, started, ended, summary, forms, persisted
         FROM counsel_sessions ORDER BY resident, seq",
    )?;
    let rows = q.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            [r.get::<_, String>(1)?, r.get(2)?, r.get(3)?, r.get(4)?],
            (r.get::<_, String>(5)?, r.get::<_, String>(6)?),
        ))
    })?;
    let mut out: Vec<(String, Course)> = Vec::new();
    for row in rows {
        let (id, [session, started, ended, summary], (forms, persisted)) = row?;
        let json = |what: &str, text: &str| {
            SaveError::Corrupt(format!("counsel_sessions of {id}: {what}: {text}"))
        };
        let record = SessionRecord {
            session,
            started,
            ended,
            summary,
            forms: serde_json::from_str(&forms).map_err(|e| json("forms", &e.to_string()))?,
            persisted: serde_json::from_str(&persisted)
                .map_err(|e| json("persisted", &e.to_string()))?,
        };
        match out.last_mut() {
            Some((last, c)) if *last == id => c.sessions.push(record),
            _ => out.push((
                id,
                Course {
                    sessions: vec![record],
                },
            )),
        }
    }
    Ok(out)
}
