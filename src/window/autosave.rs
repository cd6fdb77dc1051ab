//! Autosave: every game hour and when the window closes. The snapshot is
//! taken in a system right after the frame's steps (the world between two
//! steps); the SQLite write runs on a worker thread, so no frame waits on
//! the disk. Only the exit save is written in the frame: nothing comes after.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use bevy::prelude::*;
use crossbeam_channel::Sender;

use super::ViewSet;
use crate::base::time::GameTime;
use crate::save::{SaveJob, SaveTarget, TownSource};
use crate::sim::clock::{Clock, DriveSteps};

/// Where and what the window saves.
#[derive(Resource)]
pub(crate) struct Autosave {
    /// The file, held for this window's saves (shared with the worker).
    target: Arc<SaveTarget>,
    source: TownSource,
    /// The game hour last saved (seconds / 3600).
    last_hour: i64,
    jobs: Option<Sender<SaveJob>>,
    worker: Option<JoinHandle<()>>,
    /// What the last write did, for the HUD.
    pub(crate) status: Arc<Mutex<SaveStatus>>,
    /// Snapshots taken (frame statistics tell the frames that took one).
    pub(crate) snapshots: u32,
    /// The worker is writing (frames meanwhile count as "during autosave").
    writing: Arc<AtomicBool>,
}

/// The last write's outcome.
#[derive(Debug, Default, Clone)]
pub(crate) struct SaveStatus {
    /// The game time of the last complete save.
    pub(crate) saved: Option<GameTime>,
    /// The last failure (the game goes on; the previous save stays).
    pub(crate) error: Option<String>,
}

impl Autosave {
    /// Saves to `path`, starting the worker thread.
    pub(crate) fn new(target: SaveTarget, source: TownSource, now: GameTime) -> Self {
        let target = Arc::new(target);
        let (tx, rx) = crossbeam_channel::unbounded::<SaveJob>();
        let status = Arc::new(Mutex::new(SaveStatus::default()));
        let writing = Arc::new(AtomicBool::new(false));
        let (out, to, busy) = (status.clone(), target.clone(), writing.clone());
        let worker = std::thread::Builder::new()
            .name("heartvale-autosave".into())
            .spawn(move || {
                while let Ok(mut job) = rx.recv() {
                    // Behind? Only the newest snapshot is worth writing.
                    while let Ok(newer) = rx.try_recv() {
                        job = newer;
                    }
                    busy.store(true, Ordering::Relaxed);
                    record(&out, &job, job.write(to.path()));
                    busy.store(false, Ordering::Relaxed);
                }
            })
            .ok();
        Self {
            target,
            source,
            last_hour: hour(now),
            jobs: Some(tx),
            worker,
            status,
            snapshots: 0,
            writing,
        }
    }

    /// Whether the worker is writing a save now.
    pub(crate) fn writing(&self) -> bool {
        self.writing.load(Ordering::Relaxed)
    }
}

fn hour(t: GameTime) -> i64 {
    t.0.div_euclid(3600)
}

fn record(status: &Mutex<SaveStatus>, job: &SaveJob, result: Result<(), crate::save::SaveError>) {
    let mut s = status.lock().unwrap_or_else(|e| e.into_inner());
    match result {
        Ok(()) => {
            s.saved = Some(job.time());
            s.error = None;
        }
        Err(e) => {
            warn!("autosave failed: {e}");
            s.error = Some(e.to_string());
        }
    }
}

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        snapshot_hourly.after(DriveSteps).before(ViewSet::Input),
    )
    .add_systems(Last, save_on_exit);
}

/// A new game hour: snapshot now, write on the worker.
fn snapshot_hourly(world: &mut World) {
    let Some(now) = world.get_resource::<Clock>().map(|c| c.now) else {
        return;
    };
    let Some(mut autosave) = world.get_resource_mut::<Autosave>() else {
        return;
    };
    if hour(now) == autosave.last_hour {
        return;
    }
    autosave.last_hour = hour(now);
    autosave.snapshots += 1;
    let source = autosave.source.clone();
    let job = SaveJob::take(world, source);
    if let Some(tx) = &world.resource::<Autosave>().jobs {
        let _ = tx.send(job);
    }
}

/// The window is closing: let the worker finish, then write the last state.
fn save_on_exit(mut exits: MessageReader<AppExit>, mut commands: Commands) {
    if exits.read().next().is_some() {
        commands.queue(|world: &mut World| {
            let Some(mut autosave) = world.remove_resource::<Autosave>() else {
                return;
            };
            autosave.jobs = None;
            if let Some(worker) = autosave.worker.take() {
                let _ = worker.join();
            }
            let job = SaveJob::take(world, autosave.source.clone());
            let path = autosave.target.path();
            let result = job.write(path);
            if let Err(e) = &result {
                eprintln!("error: cannot save to {}: {e}", path.display());
            }
            record(&autosave.status, &job, result);
        });
    }
}
