//! "Know later": what a date showed of each side — the traits their choices
//! expressed most, how often they agreed, the round that helped most and the
//! one that hurt most.

use super::{Date, Trait};

/// A played date in a few lines.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// Each side's name and its most shown traits (at most three, most first).
    pub sides: [(String, Vec<(Trait, usize)>); 2],
    /// Rounds in which both chose the same option.
    pub agreed: usize,
    /// Rounds played.
    pub rounds: usize,
    /// The round that raised the score most: (round, change).
    pub best: Option<(usize, i32)>,
    /// The round that lowered it most.
    pub worst: Option<(usize, i32)>,
}

impl Summary {
    /// What `date` showed so far.
    pub fn of(date: &Date) -> Summary {
        let sides = date.avatars().clone().map(|a| {
            let mut counts: Vec<(Trait, usize)> = Vec::new();
            for round in date.rounds() {
                let Some((_, _, index)) = round.choices.iter().find(|c| c.0 == a.id) else {
                    continue;
                };
                for &t in round.posed.traits.get(*index).into_iter().flatten() {
                    match counts.iter_mut().find(|(seen, _)| *seen == t) {
                        Some((_, n)) => *n += 1,
                        None => counts.push((t, 1)),
                    }
                }
            }
            // Stable: equal counts keep the order they first appeared in.
            counts.sort_by_key(|&(_, n)| std::cmp::Reverse(n));
            counts.truncate(3);
            (a.name, counts)
        });
        let moves = date
            .rounds()
            .iter()
            .enumerate()
            .map(|(i, r)| (i + 1, r.after - r.before));
        Summary {
            sides,
            agreed: date
                .rounds()
                .iter()
                .filter(|r| r.choices.len() == 2 && r.choices[0].2 == r.choices[1].2)
                .count(),
            rounds: date.rounds().len(),
            best: moves.clone().filter(|m| m.1 > 0).max_by_key(|m| m.1),
            worst: moves.filter(|m| m.1 < 0).min_by_key(|m| m.1),
        }
    }

    /// The summary in Chinese, one line each.
    pub fn lines(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .sides
            .iter()
            .filter(|(_, traits)| !traits.is_empty())
            .map(|(name, traits)| {
                let shown: Vec<String> = traits
                    .iter()
                    .map(|(t, n)| format!("{}×{n}", t.label()))
                    .collect();
                format!("{name}的选择最常体现：{}", shown.join("、"))
            })
            .collect();
        out.push(format!(
            "{} 轮里有 {} 轮两人选了同一个选项",
            self.rounds, self.agreed
        ));
        if let Some((round, d)) = self.best {
            out.push(format!("加分最多的是第 {round} 轮（{d:+}）"));
        }
        if let Some((round, d)) = self.worst {
            out.push(format!("扣分最多的是第 {round} 轮（{d:+}）"));
        }
        out
    }
}
