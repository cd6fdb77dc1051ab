//! `--frame-stats SECONDS`: after a warm-up, records every frame's time and
//! the part of it spent in the simulation steps and the LLM bridge, then
//! prints the median, 99th percentile and the slow frames, and quits.
//! `scripts/frametime.sh` runs it with 200 residents under Xvfb.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use bevy::prelude::*;

use crate::sim::clock::DriveSteps;

#[derive(Resource, Debug, Clone)]
pub(crate) struct FrameStatsPlan {
    /// Real seconds ignored at the start (shader compilation, first layout).
    pub(crate) warmup: f32,
    /// Real seconds measured.
    pub(crate) seconds: f32,
    /// Also write the report here.
    pub(crate) out: Option<PathBuf>,
}

#[derive(Resource, Default)]
struct FrameSamples {
    frames: Vec<Duration>,
    sim: Vec<Duration>,
    /// Whether each frame took an autosave snapshot or ran beside its write.
    saving: Vec<bool>,
    snapshots_seen: u32,
    started: Option<Instant>,
    last_frame: Option<Instant>,
    sim_since: Option<Instant>,
    sim_this_frame: Duration,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<FrameSamples>()
        .add_systems(
            PreUpdate,
            sim_begins.run_if(resource_exists::<FrameStatsPlan>),
        )
        .add_systems(
            Update,
            sim_ends
                .after(DriveSteps)
                .before(super::ViewSet::Input)
                .run_if(resource_exists::<FrameStatsPlan>),
        )
        .add_systems(Last, record.run_if(resource_exists::<FrameStatsPlan>));
}

fn sim_begins(mut s: ResMut<FrameSamples>) {
    s.sim_since = Some(Instant::now());
}

fn sim_ends(mut s: ResMut<FrameSamples>) {
    if let Some(t) = s.sim_since.take() {
        s.sim_this_frame = t.elapsed();
    }
}

/// The report's numbers.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FrameReport {
    pub(crate) frames: usize,
    pub(crate) median_ms: f64,
    pub(crate) p99_ms: f64,
    pub(crate) max_ms: f64,
    /// Frames over twice the median …
    pub(crate) slow: usize,
    /// … of which the simulation and LLM bridge took more than a median frame.
    pub(crate) slow_from_sim: usize,
    pub(crate) sim_median_ms: f64,
    pub(crate) sim_p99_ms: f64,
    /// Frames during an autosave (its snapshot, or its write under way) and
    /// the worst of them, ms.
    pub(crate) saving: (usize, f64),
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

pub(crate) fn report(frames: &[Duration], sim: &[Duration], saving: &[bool]) -> FrameReport {
    let ms = |d: &Duration| d.as_secs_f64() * 1000.0;
    let mut f: Vec<f64> = frames.iter().map(ms).collect();
    let mut s: Vec<f64> = sim.iter().map(ms).collect();
    f.sort_by(f64::total_cmp);
    s.sort_by(f64::total_cmp);
    let median = percentile(&f, 0.5);
    let slow: Vec<usize> = frames
        .iter()
        .enumerate()
        .filter(|(_, d)| ms(d) > 2.0 * median)
        .map(|(i, _)| i)
        .collect();
    FrameReport {
        frames: f.len(),
        median_ms: median,
        p99_ms: percentile(&f, 0.99),
        max_ms: f.last().copied().unwrap_or(0.0),
        slow: slow.len(),
        slow_from_sim: slow
            .iter()
            .filter(|&&i| sim.get(i).is_some_and(|d| ms(d) > median))
            .count(),
        sim_median_ms: percentile(&s, 0.5),
        sim_p99_ms: percentile(&s, 0.99),
        saving: frames
            .iter()
            .zip(saving)
            .filter(|(_, s)| **s)
            .fold((0, 0.0), |(n, worst), (d, _)| {
                (n + 1, f64::max(worst, ms(d)))
            }),
    }
}

impl std::fmt::Display for FrameReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "frames {}: median {:.2} ms ({:.0} fps), p99 {:.2} ms, max {:.2} ms; \
             {} over 2× the median, {} of them from the simulation or LLM bridge; \
             simulation + bridge per frame: median {:.2} ms, p99 {:.2} ms",
            self.frames,
            self.median_ms,
            1000.0 / self.median_ms.max(1e-9),
            self.p99_ms,
            self.max_ms,
            self.slow,
            self.slow_from_sim,
            self.sim_median_ms,
            self.sim_p99_ms
        )?;
        let (n, worst) = self.saving;
        if n > 0 {
            write!(
                f,
                "; during autosave: {n} frames, worst {worst:.2} ms ({:.1}× the median)",
                worst / self.median_ms.max(1e-9)
            )?;
        }
        Ok(())
    }
}

/// What the last frame drew: sprites (figures, buildings, props, bubble
/// boxes) and texts on screen, and the ground's chunks (one draw each).
#[derive(bevy::ecs::system::SystemParam)]
struct Drawn<'w, 's> {
    sprites: Query<'w, 's, &'static ViewVisibility, With<Sprite>>,
    texts: Query<'w, 's, &'static ViewVisibility, With<Text2d>>,
    chunks: Query<'w, 's, &'static ViewVisibility, With<bevy::sprite_render::TilemapChunk>>,
}

impl Drawn<'_, '_> {
    fn census(&self) -> String {
        let on = |v: &ViewVisibility| v.get();
        format!(
            "drawn in the last frame: {} sprites, {} texts, {} ground chunks ({} in the town)",
            self.sprites.iter().filter(|v| on(v)).count(),
            self.texts.iter().filter(|v| on(v)).count(),
            self.chunks.iter().filter(|v| on(v)).count(),
            self.chunks.iter().count(),
        )
    }
}

fn record(
    time: Res<Time<Real>>,
    plan: Res<FrameStatsPlan>,
    autosave: Option<Res<super::autosave::Autosave>>,
    mut s: ResMut<FrameSamples>,
    mut exit: MessageWriter<AppExit>,
    drawn: Drawn,
) {
    let snapshots = autosave.as_ref().map_or(0, |a| a.snapshots);
    let saving = snapshots != s.snapshots_seen || autosave.is_some_and(|a| a.writing());
    s.snapshots_seen = snapshots;
    let now = Instant::now();
    let last = s.last_frame.replace(now);
    if time.elapsed_secs() < plan.warmup {
        return;
    }
    let started = *s.started.get_or_insert(now);
    if let Some(last) = last {
        let frame = now - last;
        let sim = std::mem::take(&mut s.sim_this_frame);
        s.frames.push(frame);
        s.sim.push(sim);
        s.saving.push(saving);
    }
    if started.elapsed().as_secs_f32() >= plan.seconds {
        let r = report(&s.frames, &s.sim, &s.saving);
        println!("{r}");
        println!("{}", drawn.census());
        if let Some(out) = &plan.out
            && let Err(e) = std::fs::write(out, format!("{r}\n"))
        {
            eprintln!("error: cannot write {}: {e}", out.display());
        }
        exit.write(AppExit::Success);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_finds_slow_frames_and_blames_the_sim_only_when_it_was_slow() {
        let ms = Duration::from_millis;
        let mut frames = vec![ms(16); 98];
        let mut sim = vec![ms(1); 98];
        // One slow frame from rendering, one from the simulation.
        frames.push(ms(50));
        sim.push(ms(2));
        frames.push(ms(60));
        sim.push(ms(40));
        let mut saving = vec![false; 100];
        saving[98] = true;
        let r = report(&frames, &sim, &saving);
        assert_eq!(r.frames, 100);
        assert_eq!(r.median_ms, 16.0);
        assert_eq!(r.max_ms, 60.0);
        assert_eq!(r.slow, 2);
        assert_eq!(r.slow_from_sim, 1);
        assert_eq!(r.sim_median_ms, 1.0);
        assert_eq!(r.saving, (1, 50.0));
        assert!(r.to_string().contains("median 16.00 ms (62 fps)"), "{r}");
    }
}
