//! What each resident knows, in `facts`: one row per fact in the order it
//! was learnt, readable (its kind, words, source and teller) with the fact
//! itself as JSON for the town to read back.

use rusqlite::{Connection, Transaction, params};

use super::SaveError;
use super::snapshot::ResidentSnap;
use crate::base::time::GameTime;
use crate::scenario::ResidentId;
use crate::sim::knowledge::{About, Fact, Source};

/// Replaces the table's rows with the residents' facts.
pub(crate) fn write(
    tx: &Transaction,
    residents: &[ResidentSnap],
    ids: &[ResidentId],
) -> Result<(), SaveError> {
    tx.execute("DELETE FROM facts", [])?;
    let mut ins = tx.prepare(
        "INSERT INTO facts (resident, seq, kind, text, source, teller, learned, importance, fact)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    for r in residents {
        let Some(facts) = &r.facts else { continue };
        for (seq, (f, words)) in facts.iter().enumerate() {
            let teller = match f.source {
                Source::Told { by } => ids.get(by.i()).map(|id| id.to_string()),
                _ => None,
            };
            ins.execute(params![
                r.id,
                seq as i64,
                f.about.kind(),
                words,
                f.source.kind(),
                teller,
                f.learned.0,
                f.importance,
                serde_json::to_string(&(f.about, f.source)).expect("plain data"),
            ])?;
        }
    }
    Ok(())
}

/// The facts of resident `id`, in the order learnt.
pub(crate) fn read(db: &Connection, id: &str) -> Result<Vec<Fact>, SaveError> {
    let mut q = db.prepare_cached(
        "SELECT learned, importance, fact FROM facts WHERE resident = ?1 ORDER BY seq",
    )?;
    let rows = q.query_map([id], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, u8>(1)?,
            r.get::<_, String>(2)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (learned, importance, fact) = row?;
        let (about, source): (About, Source) = serde_json::from_str(&fact)
            .map_err(|e| SaveError::Corrupt(format!("a fact of {id}: {e}")))?;
        out.push(Fact {
            about,
            source,
            learned: GameTime(learned),
            importance,
        });
    }
    Ok(out)
}
