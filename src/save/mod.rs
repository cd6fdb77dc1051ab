//! The save: a whole town in one SQLite file.
//!
//! A save is a [`TownSnapshot`] (every resident's needs, whereabouts, plan,
//! ties, memories and random stream; notices, appointments, conversations
//! under way; the engine's bookkeeping) plus the scenario it runs
//! ([`TownSource`]), written in one transaction in WAL mode: a process killed
//! at any moment leaves the last complete save. Loading builds the town from
//! the saved scenario and seed as a new run would, then puts the snapshot in;
//! the run then goes on exactly as it would have (`tests/save.rs`).
//!
//! - `schema`: the tables and their migrations;
//! - `snapshot`: world ⇄ plain data;
//! - `source`: the scenario kept in the file;
//! - `store`: plain data ⇄ SQLite;
//! - `target`: a save path claimed (checked, locked) before a run starts.

mod companions;
mod courses;
mod facts;
mod schema;
mod snapshot;
mod source;
mod store;
mod target;

use std::path::Path;

use bevy::prelude::*;
use rusqlite::Connection;

use crate::scenario::{ResidentId, Scenario, Town};
use crate::sim::LoadedScenario;
use crate::sim::residents::Roster;
pub use snapshot::{TownSnapshot, restore, take};
pub use source::TownSource;
pub use target::SaveTarget;

/// Why a save could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    /// The file is not an SQLite database.
    #[error("not a Heartvale save (not an SQLite database)")]
    NotASave,
    /// Written by a newer Heartvale.
    #[error(
        "written by a newer Heartvale (save schema {found}; this build reads up to {supported})"
    )]
    Newer {
        /// The file's schema version.
        found: i64,
        /// The newest this build reads.
        supported: i64,
    },
    /// The database is damaged or a value in it makes no sense.
    #[error("the save is damaged: {0}")]
    Corrupt(String),
    /// The saved scenario does not load.
    #[error("{0}")]
    Scenario(String),
    /// Another Heartvale holds the file for its own saves.
    #[error(
        "another Heartvale is saving to this file now (the run that started first keeps it); choose another file or wait for it to end"
    )]
    Busy,
    /// File system trouble.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl From<rusqlite::Error> for SaveError {
    fn from(e: rusqlite::Error) -> Self {
        match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::NotADatabase) => SaveError::NotASave,
            // The file system's trouble (a folder not writable, a full
            // disk), not damage in the file.
            Some(
                rusqlite::ErrorCode::CannotOpen
                | rusqlite::ErrorCode::ReadOnly
                | rusqlite::ErrorCode::PermissionDenied
                | rusqlite::ErrorCode::DiskFull,
            ) => SaveError::Io(std::io::Error::other(e.to_string())),
            _ => SaveError::Corrupt(e.to_string()),
        }
    }
}

/// A save read back with its scenario loaded.
pub struct LoadedSave {
    /// The town's state.
    pub snapshot: TownSnapshot,
    /// Where the scenario came from (a new save of the town keeps it).
    pub source: TownSource,
    /// The scenario, loaded and checked.
    pub scenario: Scenario,
}

/// One resident's memories in a loaded save.
#[derive(Debug, Clone, Copy)]
pub struct ResidentMemories<'a> {
    /// The resident's id.
    pub id: &'a str,
    /// Its name.
    pub name: &'a str,
    /// Its memories, oldest first.
    pub memories: &'a [crate::sim::memory::Memory],
}

impl<'a> ResidentMemories<'a> {
    /// The resident with this id or name.
    pub fn find(save: &'a LoadedSave, who: &str) -> Option<Self> {
        let r = save
            .snapshot
            .residents
            .iter()
            .find(|r| r.id == who)
            .or_else(|| save.snapshot.residents.iter().find(|r| r.name == who))?;
        Some(Self {
            id: &r.id,
            name: &r.name,
            memories: &r.memories,
        })
    }
}

/// Adds memory vectors (by position in the resident's memories) to the save
/// at `path`, in one transaction; the rest of the file is unchanged.
pub fn add_vectors(
    path: &Path,
    resident: &str,
    vectors: &[(usize, std::sync::Arc<crate::sim::memory::Embedding>)],
) -> Result<(), SaveError> {
    check_existing(path)?;
    let mut db = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE)?;
    check_version(&db)?;
    let tx = db.transaction()?;
    schema::migrate(&tx, schema::version(&tx)?)?;
    store::write_vectors(&tx, resident, vectors)?;
    tx.commit()?;
    Ok(())
}

/// Writes the town in `world` (between two steps) to `path`.
pub fn save_world(world: &mut World, path: &Path, source: &TownSource) -> Result<(), SaveError> {
    let job = SaveJob::take(world, source.clone());
    job.write(path)
}

/// Everything a save needs, taken from the world: written later, on any
/// thread (the window writes on a worker so the frame does not wait).
pub struct SaveJob {
    snapshot: TownSnapshot,
    source: TownSource,
    town: Town,
    ids: Vec<ResidentId>,
}

impl SaveJob {
    /// Takes the snapshot (between two steps).
    pub fn take(world: &mut World, source: TownSource) -> Self {
        let town = world.resource::<LoadedScenario>().0.town.clone();
        let ids = world.resource::<Roster>().ids().to_vec();
        Self {
            snapshot: take(world),
            source,
            town,
            ids,
        }
    }

    /// The game time the snapshot was taken at.
    pub fn time(&self) -> crate::base::time::GameTime {
        self.snapshot.now()
    }

    /// Writes it to `path` in one transaction.
    pub fn write(&self, path: &Path) -> Result<(), SaveError> {
        check_existing(path)?;
        let mut db = Connection::open(path)?;
        check_version(&db)?;
        store::refuse_foreign_objects(&db)?;
        // A reader of the file (`memory search --load`) may hold it a moment.
        db.busy_timeout(std::time::Duration::from_secs(5))?;
        db.pragma_update(None, "journal_mode", "WAL")?;
        // A full sync at commit: the last save survives a power cut too.
        db.pragma_update(None, "synchronous", "FULL")?;
        store::write(&mut db, &self.snapshot, &self.source, &self.town, &self.ids)
    }
}

/// Reads the save at `path` and loads its scenario. The file is only read.
pub fn load(path: &Path) -> Result<LoadedSave, SaveError> {
    if !path.exists() {
        return Err(SaveError::Io(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no such file",
        )));
    }
    check_existing(path)?;
    let db = open_to_read(path)?;
    check_version(&db)?;
    // A damaged file is refused before anything is read from it (only here:
    // a save rewrites every town table, and checking each autosave would
    // read the whole file each time).
    let ok: String = db.query_row("PRAGMA quick_check", [], |r| r.get(0))?;
    if ok != "ok" {
        return Err(SaveError::Corrupt(ok));
    }
    if schema::version(&db)? == 0 {
        return Err(SaveError::Corrupt("the database holds no town".into()));
    }
    store::refuse_foreign_objects(&db)?;
    // An older save is read through the migrations in a transaction that is
    // rolled back: one reader for every version, and the file unchanged.
    let tx = db.unchecked_transaction()?;
    schema::migrate(&tx, schema::version(&tx)?)?;
    let source = store::read_source(&tx)?;
    let scenario = source.load().map_err(SaveError::Scenario)?;
    let ids: Vec<ResidentId> = scenario.residents.iter().map(|p| p.id.clone()).collect();
    let snapshot = store::read(&tx, &scenario.town, &ids)?;
    tx.rollback()?;
    Ok(LoadedSave {
        snapshot,
        source,
        scenario,
    })
}

/// Opens a save to read it: read-write (an older save's migrations run in a
/// transaction that is rolled back), or where the file or its folder cannot
/// be written (the journal's side files cannot be made there), read-only as
/// a file that does not change.
fn open_to_read(path: &Path) -> Result<Connection, SaveError> {
    use rusqlite::OpenFlags;
    let read_write = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE)
        .map_err(SaveError::from)
        .and_then(|db| schema::version(&db).map(|_| db));
    match read_write {
        Err(SaveError::Io(_)) => {}
        other => return other,
    }
    let mut uri = url::Url::from_file_path(std::path::absolute(path)?)
        .map_err(|_| SaveError::Io(std::io::Error::other("the path is not absolute")))?;
    uri.set_query(Some("immutable=1"));
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI;
    Ok(Connection::open_with_flags(uri.as_str(), flags)?)
}

/// An existing file must start as an SQLite database does, before SQLite
/// itself opens it (and perhaps writes to it).
fn check_existing(path: &Path) -> Result<(), SaveError> {
    use std::io::Read;
    // A pipe or device is no save (opening a FIFO would block until a writer came).
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(SaveError::NotASave);
    }
    let Ok(mut f) = std::fs::File::open(path) else {
        return Ok(());
    };
    let mut head = [0u8; 16];
    let n = f.read(&mut head)?;
    if n == 0 {
        return Ok(());
    }
    if n < 16 || &head != b"SQLite format 3\0" {
        return Err(SaveError::NotASave);
    }
    Ok(())
}

fn check_version(db: &Connection) -> Result<(), SaveError> {
    // Reading the schema is the first thing that touches the pages: a damaged
    // file fails here.
    let found = schema::version(db)?;
    if found > schema::VERSION {
        return Err(SaveError::Newer {
            found,
            supported: schema::VERSION,
        });
    }
    Ok(())
}
