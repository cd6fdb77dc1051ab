//! The town map: places, the undirected graph of paths between them, and
//! precomputed shortest routes (walking time follows distance).

use std::collections::BinaryHeap;

use bevy::platform::collections::HashMap;
use std::sync::Arc;

use bevy::math::Vec2;
use bevy::prelude::Resource;
use serde::{Deserialize, Serialize};

use super::spec::{LocationKind, MapSize, Service};

/// Dense index of a place in [`Town::locations`]; never logged (use [`LocationId`]).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct LocIdx(pub u32);

impl LocIdx {
    /// The index as a `usize`, for indexing.
    pub fn i(self) -> usize {
        self.0 as usize
    }
}

/// Strong place id as written in the scenario.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct LocationId(pub Arc<str>);

impl LocationId {
    /// The id's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for LocationId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A place of the town.
#[derive(Debug, Clone)]
pub struct Location {
    /// The id used in logs, saves and prompts.
    pub id: LocationId,
    /// The display name (Chinese).
    pub(crate) name: String,
    /// A line about it, told to prompts.
    pub(crate) description: String,
    /// What kind of place it is.
    pub kind: LocationKind,
    /// Centre on the map.
    pub(crate) position: Vec2,
    /// Width and height of its area.
    pub(crate) size: Vec2,
    /// Places a path leads to.
    pub neighbours: Vec<LocIdx>,
    /// How many may be there at once.
    pub capacity: u32,
    /// What it offers.
    pub services: Vec<Service>,
}

impl Location {
    /// Whether it offers `service`.
    pub fn has(&self, service: Service) -> bool {
        self.services.contains(&service)
    }
}

/// The town map: places, paths and the shortest routes between them.
#[derive(Debug, Clone, Resource)]
pub struct Town {
    /// The town's name.
    pub name: String,
    /// The map's size.
    pub map: MapSize,
    /// Every place, indexed by [`LocIdx`].
    pub locations: Vec<Location>,
    by_id: HashMap<Arc<str>, LocIdx>,
    /// `dist[a * n + b]`: shortest walking distance in map units (∞ when unreachable).
    dist: Vec<f32>,
    /// `next[a * n + b]`: first hop from `a` towards `b`.
    next: Vec<u32>,
    /// For each place, the nearest reachable places that are neither homes nor
    /// workplaces, nearest first: where residents look for food, company, leisure.
    nearby: Vec<Vec<LocIdx>>,
    /// For each place, [`Town::nearest_with`] of each service, worked out once:
    /// a scan of the town per plan grew with the size of the town.
    nearest: Vec<[Option<LocIdx>; SERVICES.len()]>,
}

const SERVICES: [Service; 4] = [
    Service::Food,
    Service::Sleep,
    Service::NoticeBoard,
    Service::Books,
];

/// How many shared places a resident weighs from where it stands.
const NEARBY: usize = 16;

impl Town {
    /// Builds the map and works out every route once.
    pub fn new(name: String, map: MapSize, locations: Vec<Location>) -> Self {
        let by_id = locations
            .iter()
            .enumerate()
            .map(|(i, l)| (l.id.0.clone(), LocIdx(i as u32)))
            .collect();
        let mut town = Self {
            name,
            map,
            locations,
            by_id,
            dist: Vec::new(),
            next: Vec::new(),
            nearby: Vec::new(),
            nearest: Vec::new(),
        };
        town.compute_routes();
        town.compute_nearby();
        town.nearest = town
            .indices()
            .map(|from| SERVICES.map(|s| town.find_nearest_with(from, s)))
            .collect();
        town
    }

    /// How many places.
    pub fn len(&self) -> usize {
        self.locations.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.locations.is_empty()
    }

    /// The place at an index.
    pub fn get(&self, idx: LocIdx) -> &Location {
        &self.locations[idx.i()]
    }

    /// The index of the place with this id.
    pub fn find(&self, id: &str) -> Option<LocIdx> {
        self.by_id.get(id).copied()
    }

    /// The id of the place at an index.
    pub fn id(&self, idx: LocIdx) -> &LocationId {
        &self.locations[idx.i()].id
    }

    /// The name of the place at an index.
    pub fn name(&self, idx: LocIdx) -> &str {
        &self.locations[idx.i()].name
    }

    /// Every place's index, in order.
    pub fn indices(&self) -> impl Iterator<Item = LocIdx> + '_ {
        (0..self.locations.len() as u32).map(LocIdx)
    }

    /// Straight-line length of the path between two adjacent places.
    pub fn edge_length(&self, a: LocIdx, b: LocIdx) -> f32 {
        self.get(a).position.distance(self.get(b).position)
    }

    /// Shortest walking distance in map units (∞ when unreachable).
    pub fn distance(&self, a: LocIdx, b: LocIdx) -> f32 {
        self.dist[a.i() * self.len() + b.i()]
    }

    /// Whether a path leads from `a` to `b`.
    pub fn reachable(&self, a: LocIdx, b: LocIdx) -> bool {
        self.distance(a, b).is_finite()
    }

    /// Walking minutes from `a` to `b` at `speed` map units per minute.
    pub fn walk_minutes(&self, a: LocIdx, b: LocIdx, speed: f32) -> f32 {
        self.distance(a, b) / speed.max(1e-3)
    }

    /// Places passed through from `a` to `b`, excluding `a`, including `b`.
    /// `None` when `b` cannot be reached.
    pub fn route(&self, a: LocIdx, b: LocIdx) -> Option<Vec<LocIdx>> {
        if !self.reachable(a, b) {
            return None;
        }
        let n = self.len();
        let mut out = Vec::new();
        let mut cur = a;
        while cur != b {
            cur = LocIdx(self.next[cur.i() * n + b.i()]);
            out.push(cur);
            if out.len() > n {
                return None;
            }
        }
        Some(out)
    }

    /// The nearest reachable place offering `service`: the nearest shared place
    /// among those nearby, or else the nearest of any kind.
    pub fn nearest_with(&self, from: LocIdx, service: Service) -> Option<LocIdx> {
        let s = SERVICES.iter().position(|&x| x == service)?;
        self.nearest.get(from.i()).and_then(|n| n[s])
    }

    fn find_nearest_with(&self, from: LocIdx, service: Service) -> Option<LocIdx> {
        if let Some(&l) = self.nearby[from.i()]
            .iter()
            .find(|&&l| self.get(l).has(service))
        {
            return Some(l);
        }
        self.indices()
            .filter(|&l| self.get(l).has(service) && self.reachable(from, l))
            .min_by(|&x, &y| self.distance(from, x).total_cmp(&self.distance(from, y)))
    }

    /// Shared places (not homes or workplaces) nearest to `from`, nearest first.
    pub fn nearby(&self, from: LocIdx) -> &[LocIdx] {
        &self.nearby[from.i()]
    }

    fn compute_nearby(&mut self) {
        let shared: Vec<LocIdx> = self
            .indices()
            .filter(|&l| !matches!(self.get(l).kind, LocationKind::Home | LocationKind::Work))
            .collect();
        self.nearby = self
            .indices()
            .map(|from| {
                let mut near: Vec<(f32, LocIdx)> = shared
                    .iter()
                    .filter(|&&l| self.reachable(from, l))
                    .map(|&l| (self.distance(from, l), l))
                    .collect();
                near.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                near.truncate(NEARBY);
                near.into_iter().map(|(_, l)| l).collect()
            })
            .collect();
    }

    /// Dijkstra from every place: O(V·E·log V), fine for towns of a few hundred places.
    fn compute_routes(&mut self) {
        let n = self.len();
        self.dist = vec![f32::INFINITY; n * n];
        self.next = vec![u32::MAX; n * n];
        #[derive(PartialEq)]
        struct Item(f32, u32);
        impl Eq for Item {}
        impl PartialOrd for Item {
            fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(o))
            }
        }
        impl Ord for Item {
            fn cmp(&self, o: &Self) -> std::cmp::Ordering {
                // Min-heap on distance, ties by index for determinism.
                o.0.total_cmp(&self.0).then(o.1.cmp(&self.1))
            }
        }
        // prev[v] on the tree from `src`, used to recover the first hop.
        let mut prev = vec![u32::MAX; n];
        for src in 0..n {
            let row = src * n;
            prev.fill(u32::MAX);
            self.dist[row + src] = 0.0;
            let mut heap = BinaryHeap::new();
            heap.push(Item(0.0, src as u32));
            while let Some(Item(d, u)) = heap.pop() {
                if d > self.dist[row + u as usize] {
                    continue;
                }
                for &v in &self.locations[u as usize].neighbours {
                    let nd = d + self.edge_length(LocIdx(u), v);
                    if nd < self.dist[row + v.i()] {
                        self.dist[row + v.i()] = nd;
                        prev[v.i()] = u;
                        heap.push(Item(nd, v.0));
                    }
                }
            }
            for dst in 0..n {
                if dst == src || !self.dist[row + dst].is_finite() {
                    continue;
                }
                let mut hop = dst as u32;
                while prev[hop as usize] != src as u32 {
                    hop = prev[hop as usize];
                }
                self.next[row + dst] = hop;
            }
            self.next[row + src] = src as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(id: &str, x: f32, y: f32, neighbours: &[u32]) -> Location {
        Location {
            id: LocationId(Arc::from(id)),
            name: id.to_string(),
            description: String::new(),
            kind: LocationKind::Public,
            position: Vec2::new(x, y),
            size: Vec2::splat(10.0),
            neighbours: neighbours.iter().map(|&i| LocIdx(i)).collect(),
            capacity: 10,
            services: vec![],
        }
    }

    #[test]
    fn shortest_route_goes_through_the_middle() {
        // a —— b —— c, plus a long detour a —— d —— c, and an island e.
        let town = Town::new(
            "t".into(),
            MapSize {
                width: 100.0,
                height: 100.0,
            },
            vec![
                place("a", 0.0, 0.0, &[1, 3]),
                place("b", 10.0, 0.0, &[0, 2]),
                place("c", 20.0, 0.0, &[1, 3]),
                place("d", 10.0, 50.0, &[0, 2]),
                place("e", 90.0, 90.0, &[]),
            ],
        );
        assert_eq!(
            town.route(LocIdx(0), LocIdx(2)),
            Some(vec![LocIdx(1), LocIdx(2)])
        );
        assert_eq!(town.distance(LocIdx(0), LocIdx(2)), 20.0);
        assert_eq!(town.route(LocIdx(2), LocIdx(3)), Some(vec![LocIdx(3)]));
        assert_eq!(town.route(LocIdx(0), LocIdx(0)), Some(vec![]));
        assert!(town.route(LocIdx(0), LocIdx(4)).is_none());
        assert!(!town.reachable(LocIdx(4), LocIdx(1)));
        assert_eq!(town.walk_minutes(LocIdx(0), LocIdx(2), 10.0), 2.0);
    }
}
