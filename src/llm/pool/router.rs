//! Which member of a pool takes the next call. Pure bookkeeping, no I/O: the
//! bridge calls [`Router::pick`] when a call may start and
//! [`Router::finish`] when it ends.
//!
//! - Load is calls in flight per unit of weight; the least loaded member that
//!   is under its cap (`concurrency × weight`) and in service takes the call.
//! - Ties go by smooth weighted round robin (nginx's), so idle members share
//!   calls in proportion to their weights.
//! - A resident stays on the member that served its last call (the server's
//!   prefix cache) while that member is at most one call busier than the
//!   least busy.
//! - In a pool of two or more, a member that fails `failures` calls in a row
//!   is out of service for a cool-down (doubling up to five minutes while its
//!   probes keep failing); then one probe call goes through. A single server is
//!   never taken out here: the town's own breaker decides for it.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::llm::client::LlmError;

/// The longest a failing member stays out between probes.
const MAX_COOLDOWN: Duration = Duration::from_secs(300);

/// The outcome of asking for a member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pick {
    /// This member (index in the pool) takes the call; its slot is taken.
    Member(usize),
    /// Every usable member is at its cap: the call waits.
    Busy,
    /// No member is in service: the call fails now.
    AllOut,
}

/// How one try on a member went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// It answered.
    Answered,
    /// It said no (an error status, a refused connection, a bad answer).
    Failed,
    /// It said nothing in its time: out of service at once, since every
    /// call it takes costs its whole share of the timeout.
    TimedOut,
}

impl Outcome {
    /// The outcome of a try that gave `result`.
    pub(crate) fn of<T>(result: &Result<T, LlmError>) -> Self {
        match result {
            Ok(_) => Self::Answered,
            Err(LlmError::Timeout) => Self::TimedOut,
            Err(_) => Self::Failed,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Health {
    Up {
        failures: u32,
    },
    Out {
        until: Instant,
        cooldown: Duration,
    },
    /// Back from a cool-down with one call in flight that decides.
    Probing {
        cooldown: Duration,
    },
}

#[derive(Debug, Clone)]
struct Slot {
    in_flight: usize,
    cap: usize,
    weight: i64,
    /// Smooth weighted round robin's running score.
    current: i64,
    health: Health,
}

/// One pool's members as the bridge sees them.
#[derive(Debug, Clone)]
pub(crate) struct Router {
    slots: Vec<Slot>,
    /// The member that served each resident's last call.
    last: HashMap<u64, usize>,
    failures: u32,
    cooldown: Duration,
}

impl Router {
    /// Members of these weights, each allowed `concurrency × weight` calls at
    /// once, taken out after `failures` failures in a row for `cooldown`.
    pub(crate) fn new(
        weights: &[u32],
        concurrency: usize,
        failures: u32,
        cooldown: Duration,
    ) -> Self {
        let slots = weights
            .iter()
            .map(|&w| Slot {
                in_flight: 0,
                cap: concurrency.max(1) * w.max(1) as usize,
                weight: i64::from(w.max(1)),
                current: 0,
                health: Health::Up { failures: 0 },
            })
            .collect();
        Self {
            slots,
            last: HashMap::new(),
            failures: failures.max(1),
            cooldown,
        }
    }

    /// Calls the members could still take at once.
    pub(crate) fn free(&self) -> usize {
        self.slots
            .iter()
            .map(|s| s.cap.saturating_sub(s.in_flight))
            .sum()
    }

    /// Calls the members may take at once, all together.
    pub(crate) fn capacity(&self) -> usize {
        self.slots.iter().map(|s| s.cap).sum()
    }

    /// Calls in flight on each member.
    #[cfg(test)]
    fn in_flight(&self) -> Vec<usize> {
        self.slots.iter().map(|s| s.in_flight).collect()
    }

    /// Takes a slot for a call of `affinity` (a resident), skipping the members
    /// in `tried` (those that failed this call already).
    pub(crate) fn pick(&mut self, affinity: Option<u64>, tried: &[usize], now: Instant) -> Pick {
        let usable: Vec<usize> = (0..self.slots.len())
            .filter(|i| !tried.contains(i) && self.in_service(*i, now))
            .collect();
        if usable.is_empty() {
            return Pick::AllOut;
        }
        let open: Vec<usize> = usable
            .into_iter()
            .filter(|&i| self.slots[i].in_flight < self.slots[i].cap)
            .collect();
        if open.is_empty() {
            return Pick::Busy;
        }
        let chosen = self
            .sticky(affinity, &open)
            .unwrap_or_else(|| self.least_loaded(&open));
        let slot = &mut self.slots[chosen];
        slot.in_flight += 1;
        if let Health::Out { cooldown, .. } = slot.health {
            slot.health = Health::Probing { cooldown };
        }
        if let Some(a) = affinity {
            self.last.insert(a, chosen);
        }
        Pick::Member(chosen)
    }

    /// Gives back a member's slot and books how the call went there.
    pub(crate) fn finish(&mut self, member: usize, outcome: Outcome, now: Instant) {
        let shared = self.slots.len() > 1;
        let (threshold, base) = (self.failures, self.cooldown);
        let Some(slot) = self.slots.get_mut(member) else {
            return;
        };
        slot.in_flight = slot.in_flight.saturating_sub(1);
        use Outcome::{Answered, Failed, TimedOut};
        slot.health = match (outcome, slot.health) {
            (Answered, _) => Health::Up { failures: 0 },
            (_, _) if !shared => Health::Up { failures: 0 },
            (Failed, Health::Up { failures }) if failures + 1 < threshold => Health::Up {
                failures: failures + 1,
            },
            (Failed | TimedOut, Health::Up { .. }) => Health::Out {
                until: now + base,
                cooldown: base,
            },
            (_, Health::Probing { cooldown } | Health::Out { cooldown, .. }) => {
                let cooldown = (cooldown * 2).min(MAX_COOLDOWN);
                Health::Out {
                    until: now + cooldown,
                    cooldown,
                }
            }
        };
    }

    fn in_service(&self, i: usize, now: Instant) -> bool {
        match self.slots[i].health {
            Health::Up { .. } => true,
            Health::Out { until, .. } => now >= until,
            // One probe at a time.
            Health::Probing { .. } => self.slots[i].in_flight == 0,
        }
    }

    /// The resident's last member, unless it is busier than the least busy by more than one.
    fn sticky(&self, affinity: Option<u64>, open: &[usize]) -> Option<usize> {
        let last = *self.last.get(&affinity?)?;
        let least = open.iter().map(|&i| self.slots[i].in_flight).min()?;
        (open.contains(&last) && self.slots[last].in_flight <= least + 1).then_some(last)
    }

    /// The least loaded per unit of weight; ties by smooth weighted round robin.
    fn least_loaded(&mut self, open: &[usize]) -> usize {
        let load = |s: &Slot| (s.in_flight as i64, s.weight);
        // a/wa < b/wb  ⇔  a·wb < b·wa (no floats: exact ties).
        let lighter = |a: (i64, i64), b: (i64, i64)| (a.0 * b.1).cmp(&(b.0 * a.1));
        let best = open
            .iter()
            .map(|&i| load(&self.slots[i]))
            .min_by(|a, b| lighter(*a, *b))
            .expect("open is not empty");
        let tied: Vec<usize> = open
            .iter()
            .copied()
            .filter(|&i| lighter(load(&self.slots[i]), best).is_eq())
            .collect();
        let total: i64 = tied.iter().map(|&i| self.slots[i].weight).sum();
        for &i in &tied {
            self.slots[i].current += self.slots[i].weight;
        }
        let chosen = *tied
            .iter()
            .max_by_key(|&&i| (self.slots[i].current, std::cmp::Reverse(i)))
            .expect("tied is not empty");
        self.slots[chosen].current -= total;
        chosen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn router(weights: &[u32], cap: usize) -> Router {
        Router::new(weights, cap, 2, Duration::from_secs(30))
    }

    /// Picks `n` calls one after another, each finished before the next.
    fn sequential(r: &mut Router, n: usize, now: Instant) -> Vec<usize> {
        let mut counts = vec![0; r.slots.len()];
        for _ in 0..n {
            let Pick::Member(m) = r.pick(None, &[], now) else {
                panic!("a member is free")
            };
            counts[m] += 1;
            r.finish(m, Outcome::Answered, now);
        }
        counts
    }

    #[test]
    fn idle_members_share_calls_by_weight() {
        let now = Instant::now();
        assert_eq!(
            sequential(&mut router(&[1, 1, 1], 4), 300, now),
            [100, 100, 100]
        );
        assert_eq!(sequential(&mut router(&[1, 3], 4), 400, now), [100, 300]);
    }

    #[test]
    fn the_least_loaded_member_takes_the_call_within_its_cap() {
        let now = Instant::now();
        let mut r = router(&[1, 2], 2);
        let picks: Vec<Pick> = (0..7).map(|_| r.pick(None, &[], now)).collect();
        // Caps 2 and 4: six calls fit, spread by load per weight; the seventh waits.
        assert_eq!(r.in_flight(), [2, 4]);
        assert_eq!(picks[6], Pick::Busy);
        r.finish(1, Outcome::Answered, now);
        assert_eq!(r.pick(None, &[], now), Pick::Member(1));
    }

    #[test]
    fn a_resident_stays_on_its_member_unless_it_is_much_busier() {
        let now = Instant::now();
        let mut r = router(&[1, 1], 8);
        let Pick::Member(first) = r.pick(Some(7), &[], now) else {
            panic!()
        };
        // Its member is one call busier than the other: it stays.
        assert_eq!(r.pick(Some(7), &[], now), Pick::Member(first));
        // Now two busier: it moves.
        assert_ne!(r.pick(Some(7), &[], now), Pick::Member(first));
    }

    #[test]
    fn a_failing_member_is_taken_out_then_probed_back() {
        let start = Instant::now();
        let mut r = router(&[1, 1], 4);
        for _ in 0..2 {
            assert_eq!(r.pick(None, &[1], start), Pick::Member(0));
            r.finish(0, Outcome::Failed, start);
        }
        // Out: every call goes to member 1.
        assert_eq!(sequential(&mut r, 10, start), [0, 10]);
        // A failed call may fail over, but not back to where it failed.
        assert_eq!(r.pick(None, &[1], start), Pick::AllOut);
        // After the cool-down, one probe; its failure doubles the wait.
        let later = start + Duration::from_secs(31);
        assert_eq!(r.pick(None, &[1], later), Pick::Member(0));
        assert!(!r.in_service(0, later), "one probe at a time");
        r.finish(0, Outcome::Failed, later);
        assert!(!r.in_service(0, later + Duration::from_secs(59)));
        assert!(r.in_service(0, later + Duration::from_secs(60)));
        r.pick(None, &[1], later + Duration::from_secs(60));
        r.finish(0, Outcome::Answered, later + Duration::from_secs(60));
        assert_eq!(r.slots[0].health, Health::Up { failures: 0 });
    }

    #[test]
    fn a_member_that_times_out_is_taken_out_at_once() {
        let now = Instant::now();
        let mut r = router(&[1, 1], 4);
        assert_eq!(r.pick(None, &[1], now), Pick::Member(0));
        r.finish(0, Outcome::TimedOut, now);
        assert!(!r.in_service(0, now), "one hang is enough");
        assert_eq!(sequential(&mut r, 4, now), [0, 4]);
    }

    #[test]
    fn a_single_server_is_never_taken_out_here() {
        let now = Instant::now();
        let mut r = router(&[1], 1);
        for _ in 0..10 {
            assert_eq!(r.pick(None, &[], now), Pick::Member(0));
            r.finish(0, Outcome::Failed, now);
        }
        assert_eq!(r.pick(None, &[], now), Pick::Member(0));
        assert_eq!(r.pick(None, &[], now), Pick::Busy);
    }
}
