//! The log file. With cores to spare, a thread of its own writes it, so the
//! step does not wait on the disk (a 100,000-resident day writes 1 GB); the
//! bytes and their order are the same either way.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use bevy::tasks::ComputeTaskPool;

/// Steps' lines the writer may fall behind by before a step waits for it.
const BEHIND: usize = 16;

/// What the writer thread is handed.
enum Job {
    Lines(Vec<u8>),
    /// Write out what is buffered, then answer.
    Flush(SyncSender<std::io::Result<()>>),
}

/// A log file, written here or by its own thread.
pub struct LogFile {
    /// Until the first write (or for good on one core).
    here: Option<BufWriter<File>>,
    thread: Option<Writer>,
}

struct Writer {
    jobs: SyncSender<Job>,
    /// The first write error the thread met (it stops writing then), until reported.
    failed: Arc<Mutex<Option<String>>>,
    handle: JoinHandle<()>,
}

impl LogFile {
    pub(crate) fn new(file: File) -> Self {
        Self {
            here: Some(BufWriter::new(file)),
            thread: None,
        }
    }

    /// Appends `lines`; an error is one the thread met since the last call.
    pub(crate) fn write_all(&mut self, lines: &[u8]) -> Result<(), String> {
        let spare = ComputeTaskPool::try_get().is_some_and(|p| p.thread_num() > 1);
        if self.thread.is_none()
            && spare
            && let Some(file) = self.here.take()
        {
            self.thread = Some(Writer::start(file));
        }
        if let Some(w) = &self.thread {
            // A send fails only once the thread stopped on an error, reported below.
            let _ = w.jobs.send(Job::Lines(lines.to_vec()));
            return w.failure();
        }
        match &mut self.here {
            Some(f) => f.write_all(lines).map_err(|e| e.to_string()),
            None => Ok(()),
        }
    }

    /// Writes out everything handed in so far.
    pub(crate) fn flush(&mut self) -> Result<(), String> {
        if let Some(w) = &self.thread {
            let (tx, rx) = sync_channel(1);
            if w.jobs.send(Job::Flush(tx)).is_ok() {
                rx.recv().unwrap_or(Ok(())).map_err(|e| e.to_string())?;
            }
            return w.failure();
        }
        match &mut self.here {
            Some(f) => f.flush().map_err(|e| e.to_string()),
            None => Ok(()),
        }
    }
}

impl Writer {
    fn start(mut file: BufWriter<File>) -> Self {
        let (jobs, rx) = sync_channel::<Job>(BEHIND);
        let failed = Arc::new(Mutex::new(None));
        let fail = failed.clone();
        let note = move |e: std::io::Error| {
            *fail.lock().unwrap_or_else(|p| p.into_inner()) = Some(e.to_string());
        };
        let handle = std::thread::spawn(move || {
            for job in rx {
                let result = match job {
                    Job::Lines(lines) => file.write_all(&lines),
                    Job::Flush(done) => {
                        let _ = done.send(file.flush());
                        Ok(())
                    }
                };
                if let Err(e) = result {
                    return note(e);
                }
            }
            if let Err(e) = file.flush() {
                note(e);
            }
        });
        Self {
            jobs,
            failed,
            handle,
        }
    }
}

impl Writer {
    /// The thread's error, once.
    fn failure(&self) -> Result<(), String> {
        let mut failed = self.failed.lock().unwrap_or_else(|p| p.into_inner());
        failed.take().map_or(Ok(()), Err)
    }
}

impl Drop for LogFile {
    /// Waits for the thread to write everything out.
    fn drop(&mut self) {
        if let Some(w) = self.thread.take() {
            drop(w.jobs);
            let _ = w.handle.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy::tasks::TaskPoolBuilder;

    /// With a writer thread (the compute pool has two threads), every line
    /// is in the file, in order, once flushed; dropping writes out the rest.
    #[test]
    fn the_writer_thread_keeps_every_line_in_order() {
        ComputeTaskPool::get_or_init(|| TaskPoolBuilder::new().num_threads(2).build());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let mut log = LogFile::new(File::create(&path).unwrap());
        let want: String = (0..2000).map(|i| format!("{{\"n\":{i}}}\n")).collect();
        for line in want.lines().take(1000) {
            log.write_all(format!("{line}\n").as_bytes()).unwrap();
        }
        log.flush().unwrap();
        let half: String = want.lines().take(1000).map(|l| format!("{l}\n")).collect();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), half);
        for line in want.lines().skip(1000) {
            log.write_all(format!("{line}\n").as_bytes()).unwrap();
        }
        drop(log);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), want);
    }
}
