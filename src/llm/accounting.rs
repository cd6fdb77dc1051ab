//! Tokens, calls and latencies: per resident, per call kind, per game day.

use std::collections::BTreeMap;

use crate::scenario::ResidentId;
use crate::sim::event_log::{CallKind, EventBody};
use crate::sim::residents::RosterIdx;

/// One resident's LLM use over a run.
#[derive(Debug, Clone, Default)]
pub struct ResidentUsage {
    /// Calls sent, by [`CallKind`] (in [`CallKind::ALL`] order).
    pub calls: [u32; CallKind::ALL.len()],
    /// Prompt tokens in all.
    pub(crate) prompt_tokens: u64,
    /// Completion tokens in all.
    pub(crate) completion_tokens: u64,
    /// Answers the built-in brain gave instead (bad answer, error, skipped).
    pub(crate) fallbacks: u32,
    /// Calls not sent (budget, breaker, queue).
    pub(crate) skipped: u32,
    /// Plans the resident used from the model.
    pub(crate) llm_plans: u32,
    /// Lines of conversation the resident used from the model.
    pub(crate) llm_lines: u32,
}

impl ResidentUsage {
    /// Calls of every kind.
    pub fn total_calls(&self) -> u32 {
        self.calls.iter().sum()
    }

    /// Adds another resident's counts (for totals).
    pub fn add(&mut self, u: &ResidentUsage) {
        for (t, c) in self.calls.iter_mut().zip(u.calls) {
            *t += c;
        }
        self.prompt_tokens += u.prompt_tokens;
        self.completion_tokens += u.completion_tokens;
        self.fallbacks += u.fallbacks;
        self.skipped += u.skipped;
        self.llm_plans += u.llm_plans;
        self.llm_lines += u.llm_lines;
    }
}

#[derive(Debug, Clone, Default)]
struct Day {
    calls: u32,
    skipped: u32,
    fallbacks: u32,
    prompt_tokens: u64,
    completion_tokens: u64,
    latencies: Vec<u64>,
    by_kind: BTreeMap<String, u32>,
    by_resident: BTreeMap<ResidentId, u32>,
}

/// One pool member's requests over a run (failovers included).
#[derive(Debug, Clone, Default)]
pub struct MemberUsage {
    /// Requests it was sent.
    pub calls: u32,
    /// Requests that failed there.
    pub failures: u32,
    /// Each request's wall time, in ms.
    latencies: Vec<u64>,
}

impl MemberUsage {
    /// Latency percentiles (ms): p50, p90, p99.
    pub fn latency_percentiles(&self) -> (u64, u64, u64) {
        percentiles(&self.latencies)
    }
}

/// Everything counted over a run.
#[derive(Debug, Clone, Default)]
pub struct LlmStats {
    /// Per pool member (its URL as shown), every request it was sent.
    pub members: BTreeMap<String, MemberUsage>,
    /// Per resident, by roster index.
    pub residents: Vec<ResidentUsage>,
    /// Latency of every call sent, in ms.
    pub(crate) latencies: Vec<u64>,
    /// Prompt tokens of every call sent.
    pub(crate) prompt_tokens: Vec<u32>,
    /// Game days with at least one resident on an LLM.
    pub(crate) days: u32,
    /// Plans asked ahead (while the action before them went on), and how
    /// many of those were dropped as stale (the resident's day went otherwise).
    pub ahead: Ahead,
    day: Day,
}

/// Plans asked ahead, as counted by [`LlmStats`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Ahead {
    /// Answers to plans asked ahead that were logged (used, repaired, dropped).
    pub finished: u32,
    /// Of those, dropped as stale.
    pub stale: u32,
}

impl LlmStats {
    /// Empty counts for `residents` residents.
    pub fn new(residents: usize) -> Self {
        Self {
            residents: vec![ResidentUsage::default(); residents],
            ..Self::default()
        }
    }

    /// The latencies of every call counted, added up: the time a run would
    /// have spent on them one after another.
    pub fn summed_latency(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.latencies.iter().sum())
    }

    /// Calls counted (each with its latency).
    pub fn latencies_counted(&self) -> usize {
        self.latencies.len()
    }

    /// Counts one call sent.
    pub fn call(
        &mut self,
        idx: RosterIdx,
        id: &ResidentId,
        kind: CallKind,
        prompt: u32,
        completion: u32,
        latency_ms: u64,
    ) {
        let r = &mut self.residents[idx.i()];
        r.calls[kind as usize] += 1;
        r.prompt_tokens += prompt as u64;
        r.completion_tokens += completion as u64;
        self.latencies.push(latency_ms);
        self.prompt_tokens.push(prompt);
        let d = &mut self.day;
        d.calls += 1;
        d.prompt_tokens += prompt as u64;
        d.completion_tokens += completion as u64;
        d.latencies.push(latency_ms);
        *d.by_kind.entry(kind.as_str().to_string()).or_default() += 1;
        *d.by_resident.entry(id.clone()).or_default() += 1;
    }

    /// Counts a plan asked ahead that came to an end: used, repaired or
    /// dropped as stale.
    pub(crate) fn ahead(&mut self, stale: bool) {
        self.ahead.finished += 1;
        self.ahead.stale += u32::from(stale);
    }

    /// Counts the requests of one call per member that took them.
    pub fn tries(&mut self, tries: &[crate::llm::pool::Try]) {
        for t in tries {
            let m = self.members.entry(t.member.clone()).or_default();
            m.calls += 1;
            m.failures += u32::from(!t.ok);
            m.latencies.push(t.latency_ms);
        }
    }

    /// Counts an answer the built-in brain gave instead.
    pub fn fallback(&mut self, idx: RosterIdx) {
        self.residents[idx.i()].fallbacks += 1;
        self.day.fallbacks += 1;
    }

    /// Counts a call not sent (the built-in brain answers).
    pub fn skip(&mut self, idx: RosterIdx) {
        self.residents[idx.i()].skipped += 1;
        self.residents[idx.i()].fallbacks += 1;
        self.day.skipped += 1;
        self.day.fallbacks += 1;
    }

    /// Closes a game day: its `llm_usage` event.
    pub fn close_day(&mut self, day: u32) -> EventBody {
        let d = std::mem::take(&mut self.day);
        self.days += 1;
        let mut lat = d.latencies;
        lat.sort_unstable();
        EventBody::LlmUsage {
            day,
            calls: d.calls,
            skipped: d.skipped,
            fallbacks: d.fallbacks,
            prompt_tokens: d.prompt_tokens,
            completion_tokens: d.completion_tokens,
            latency_p50_ms: percentile(&lat, 50.0),
            latency_p90_ms: percentile(&lat, 90.0),
            latency_p99_ms: percentile(&lat, 99.0),
            by_kind: d.by_kind,
            by_resident: d.by_resident,
        }
    }

    /// Latency percentiles over the whole run (ms): p50, p90, p99.
    pub fn latency_percentiles(&self) -> (u64, u64, u64) {
        percentiles(&self.latencies)
    }

    /// The median prompt size over the run, in tokens.
    pub fn median_prompt_tokens(&self) -> u32 {
        let mut t = self.prompt_tokens.clone();
        t.sort_unstable();
        t.get(t.len() / 2).copied().unwrap_or(0)
    }
}

/// p50, p90 and p99 of unsorted values.
fn percentiles(values: &[u64]) -> (u64, u64, u64) {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    (
        percentile(&sorted, 50.0),
        percentile(&sorted, 90.0),
        percentile(&sorted, 99.0),
    )
}

/// Nearest-rank percentile of sorted values (0 when empty).
pub fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_nearest_rank() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&v, 50.0), 50);
        assert_eq!(percentile(&v, 99.0), 99);
        assert_eq!(percentile(&[7], 90.0), 7);
        assert_eq!(percentile(&[], 50.0), 0);
    }
}
