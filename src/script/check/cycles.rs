//! E240: skills that call each other in a cycle.

use std::collections::{BTreeMap, BTreeSet};

use super::Place;
use crate::script::diag::ScriptDiagnostic;
use crate::script::format::Goal;
use crate::script::load::LoadedDoc;

/// Cycles among skills that call each other (any timing would repeat forever).
pub(super) fn call_cycles(skills: &BTreeMap<&str, (&LoadedDoc, &Goal)>) -> Vec<ScriptDiagnostic> {
    fn calls(g: &Goal) -> impl Iterator<Item = &str> {
        g.actions
            .iter()
            .filter_map(|a| a.call.as_ref().map(|c| c.value.as_str()))
    }
    let mut out = Vec::new();
    let mut reported: BTreeSet<&str> = BTreeSet::new();
    for &start in skills.keys() {
        // Depth-first from `start`, looking for a way back to it.
        let mut stack = vec![(start, vec![start])];
        let mut seen = BTreeSet::new();
        while let Some((at, path)) = stack.pop() {
            let Some((_, g)) = skills.get(at) else {
                continue;
            };
            for next in calls(g) {
                if next == start {
                    // One report per cycle, at the first of its skills.
                    if path.iter().all(|p| !reported.contains(p)) {
                        reported.extend(path.iter().copied());
                        let (d, g) = skills[start];
                        let place = Place {
                            file: &d.file,
                            offset: d.line_offset,
                        };
                        let mut cycle = path.clone();
                        cycle.push(next);
                        out.push(
                            ScriptDiagnostic::error(
                                place.file,
                                place.at(&g.goal),
                                "E240",
                                format!("skills call each other in a cycle: {}", cycle.join(" → ")),
                            )
                            .help("a skill may not lead back to itself; break the chain"),
                        );
                    }
                } else if seen.insert(next) {
                    let mut p = path.clone();
                    p.push(next);
                    stack.push((next, p));
                }
            }
        }
    }
    out
}
