//! The town map: places, the undirected graph of paths between them, and
//! precomputed shortest routes (walking time follows distance).

use std::collections::BinaryHeap;
use std::sync::OnceLock;

use bevy::platform::collections::HashMap;
use std::sync::Arc;

use bevy::math::Vec2;
use bevy::prelude::Resource;

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

/// Strong place id as written in the scenario; interned like
/// [`super::ResidentId`] (every event names a place: a copy is free).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LocationId(&'static str);

crate::interned_serde!(LocationId);

impl LocationId {
    /// An id from its text.
    pub fn new(id: &str) -> Self {
        Self(crate::base::intern::intern(id))
    }
    /// The id's text.
    pub fn as_str(&self) -> &'static str {
        self.0
    }
}

impl std::fmt::Display for LocationId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
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
    /// How the window draws it.
    pub look: crate::scenario::PlaceLook,
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
    by_id: HashMap<&'static str, LocIdx>,
    /// Each place's connected part of the map: two places are reachable from
    /// each other when it is the same. Linear in places and paths, so `check`
    /// of a town of 40,000 places needs no route table.
    component: Vec<u32>,
    /// Every route, worked out on first use (the simulation's), shared by clones.
    routes: OnceLock<Arc<Routes>>,
}

/// The route tables: all pairs of the town's *core*, so only a running town
/// builds them. A dead end (a home or workplace on one path, to a place with
/// more) has no row of its own: every route from or to it goes through that
/// place. A generated town of 100,000 residents has some 5,600 places, and
/// an n² table of them took 250 MB; its core is its plazas.
#[derive(Debug)]
struct Routes {
    /// Where each place stands in the tables.
    slot: Vec<Slot>,
    /// The core's places, by core index.
    core: Vec<LocIdx>,
    /// `dist[i * m + j]` over core indices: the shortest walking distance in
    /// map units (∞ when unreachable).
    dist: Vec<f32>,
    /// `next[i * m + j]`: the first hop from core place `i` towards `j`.
    next: Vec<LocIdx>,
    /// For each place, the nearest reachable places that are neither homes nor
    /// workplaces, nearest first: where residents look for food, company, leisure.
    nearby: Vec<Vec<LocIdx>>,
    /// For each place, [`Town::nearest_with`] of each service, worked out once:
    /// a scan of the town per plan grew with the size of the town.
    nearest: Vec<[Option<LocIdx>; SERVICES.len()]>,
}

/// A place's row in [`Routes`].
#[derive(Debug, Clone, Copy)]
enum Slot {
    /// Its own row: core index.
    Core(u32),
    /// A dead end: its one path leads to core place `via` (core index) at `length`.
    DeadEnd { via: u32, length: f32 },
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
    /// Builds the map and its connected parts; routes come on first use.
    pub fn new(name: String, map: MapSize, locations: Vec<Location>) -> Self {
        let by_id = locations
            .iter()
            .enumerate()
            .map(|(i, l)| (l.id.0, LocIdx(i as u32)))
            .collect();
        let component = components(&locations);
        Self {
            name,
            map,
            locations,
            by_id,
            component,
            routes: OnceLock::new(),
        }
    }

    /// Works out every route now rather than at the first walk (a running
    /// town calls it when it starts, so no step pays for it).
    pub fn prepare_routes(&self) {
        self.routes();
    }

    fn routes(&self) -> &Routes {
        self.routes.get_or_init(|| Arc::new(Routes::new(self)))
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
        self.routes().distance(a, b)
    }

    /// Whether a path leads from `a` to `b`.
    pub fn reachable(&self, a: LocIdx, b: LocIdx) -> bool {
        self.component[a.i()] == self.component[b.i()]
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
        let (n, routes) = (self.len(), self.routes());
        let mut out = Vec::new();
        let mut cur = a;
        while cur != b {
            cur = routes.hop(cur, b)?;
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
        self.routes().nearest.get(from.i()).and_then(|n| n[s])
    }

    /// Shared places (not homes or workplaces) nearest to `from`, nearest first.
    pub fn nearby(&self, from: LocIdx) -> &[LocIdx] {
        &self.routes().nearby[from.i()]
    }
}

/// Each place's connected part, numbered by its lowest place (union–find).
fn components(locations: &[Location]) -> Vec<u32> {
    fn root(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            parent[x as usize] = parent[parent[x as usize] as usize];
            x = parent[x as usize];
        }
        x
    }
    let mut parent: Vec<u32> = (0..locations.len() as u32).collect();
    for (a, l) in locations.iter().enumerate() {
        for b in &l.neighbours {
            let (ra, rb) = (root(&mut parent, a as u32), root(&mut parent, b.0));
            parent[ra.max(rb) as usize] = ra.min(rb);
        }
    }
    (0..locations.len() as u32)
        .map(|x| root(&mut parent, x))
        .collect()
}

impl Routes {
    /// Every route of `town`, then the places near each and the nearest
    /// with each service.
    fn new(town: &Town) -> Self {
        let (slot, core) = dead_ends(town);
        let (dist, next) = shortest_paths(town, &slot, &core);
        let mut routes = Self {
            slot,
            core,
            dist,
            next,
            nearby: Vec::new(),
            nearest: Vec::new(),
        };
        routes.nearby = nearby(town, &routes);
        routes.nearest = town
            .indices()
            .map(|from| SERVICES.map(|s| routes.find_nearest_with(town, from, s)))
            .collect();
        routes
    }

    /// Between two core places, by core index.
    fn core_distance(&self, i: u32, j: u32) -> f32 {
        self.dist[i as usize * self.core.len() + j as usize]
    }

    /// The shortest walking distance from `a` to `b` (∞ when unreachable).
    fn distance(&self, a: LocIdx, b: LocIdx) -> f32 {
        if a == b {
            return 0.0;
        }
        match (self.slot[a.i()], self.slot[b.i()]) {
            (Slot::Core(i), Slot::Core(j)) => self.core_distance(i, j),
            (Slot::Core(i), Slot::DeadEnd { via, length }) => self.core_distance(i, via) + length,
            (Slot::DeadEnd { via, length }, Slot::Core(j)) => length + self.core_distance(via, j),
            (
                Slot::DeadEnd {
                    via: va,
                    length: la,
                },
                Slot::DeadEnd {
                    via: vb,
                    length: lb,
                },
            ) => la + self.core_distance(va, vb) + lb,
        }
    }

    /// The first place after `a` on the way to `b` (`None` when unreachable).
    fn hop(&self, a: LocIdx, b: LocIdx) -> Option<LocIdx> {
        let hop = match (self.slot[a.i()], self.slot[b.i()]) {
            (Slot::DeadEnd { via, .. }, _) => self.core[via as usize],
            (Slot::Core(i), Slot::Core(j)) => self.next[i as usize * self.core.len() + j as usize],
            (Slot::Core(i), Slot::DeadEnd { via, .. }) if i == via => b,
            (Slot::Core(i), Slot::DeadEnd { via, .. }) => {
                self.next[i as usize * self.core.len() + via as usize]
            }
        };
        (hop != NO_HOP).then_some(hop)
    }

    fn find_nearest_with(&self, town: &Town, from: LocIdx, service: Service) -> Option<LocIdx> {
        if let Some(&l) = self.nearby[from.i()]
            .iter()
            .find(|&&l| town.get(l).has(service))
        {
            return Some(l);
        }
        town.indices()
            .filter(|&l| town.get(l).has(service) && town.reachable(from, l))
            .min_by(|&x, &y| self.distance(from, x).total_cmp(&self.distance(from, y)))
    }
}

/// Marks an unreachable pair in [`Routes::next`].
const NO_HOP: LocIdx = LocIdx(u32::MAX);

/// Each place's slot, and the core's places. A dead end has exactly one
/// path, both ways, to a place with more than one: no route passes through
/// it, so it needs no row.
fn dead_ends(town: &Town) -> (Vec<Slot>, Vec<LocIdx>) {
    let n = town.len();
    let distinct = |l: &Location| {
        let mut out: Vec<LocIdx> = l.neighbours.clone();
        out.sort_unstable();
        out.dedup();
        out
    };
    let out: Vec<Vec<LocIdx>> = town.locations.iter().map(distinct).collect();
    let mut into: Vec<Vec<LocIdx>> = vec![Vec::new(); n];
    for (a, nb) in out.iter().enumerate() {
        for b in nb {
            into[b.i()].push(LocIdx(a as u32));
        }
    }
    let dead_end = |a: usize| match out[a].as_slice() {
        &[p] => p.i() != a && into[a] == [p] && out[p.i()].len() > 1,
        _ => false,
    };
    let mut slot = vec![Slot::Core(0); n];
    let mut core = Vec::new();
    for (a, s) in slot.iter_mut().enumerate() {
        if !dead_end(a) {
            *s = Slot::Core(core.len() as u32);
            core.push(LocIdx(a as u32));
        }
    }
    for a in 0..n {
        if let &[p] = out[a].as_slice()
            && dead_end(a)
            && let Slot::Core(via) = slot[p.i()]
        {
            let length = town.edge_length(LocIdx(a as u32), p);
            slot[a] = Slot::DeadEnd { via, length };
        }
    }
    (slot, core)
}

/// The shared places nearest to each place.
fn nearby(town: &Town, routes: &Routes) -> Vec<Vec<LocIdx>> {
    let shared: Vec<LocIdx> = town
        .indices()
        .filter(|&l| !matches!(town.get(l).kind, LocationKind::Home | LocationKind::Work))
        .collect();
    town.indices()
        .map(|from| {
            let mut near: Vec<(f32, LocIdx)> = shared
                .iter()
                .filter(|&&l| town.reachable(from, l))
                .map(|&l| (routes.distance(from, l), l))
                .collect();
            near.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            // Collected afresh, not in place: the list of every shared place
            // would stay allocated behind each place's sixteen.
            near.iter().take(NEARBY).map(|&(_, l)| l).collect()
        })
        .collect()
}

/// Dijkstra from every core place over the core (dead ends lie on no
/// route): O(V·E·log V) time and V² memory in the core's size. Returns
/// `(dist, next)` by core index.
fn shortest_paths(town: &Town, slot: &[Slot], core: &[LocIdx]) -> (Vec<f32>, Vec<LocIdx>) {
    let m = core.len();
    let mut dist = vec![f32::INFINITY; m * m];
    let mut next = vec![NO_HOP; m * m];
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
            // Min-heap on distance, ties by index for determinism (core
            // indices keep the places' order).
            o.0.total_cmp(&self.0).then(o.1.cmp(&self.1))
        }
    }
    // Each core place's paths to other core places, by core index.
    let paths: Vec<Vec<(u32, f32)>> = core
        .iter()
        .map(|&u| {
            let to_core = |&v: &LocIdx| match slot[v.i()] {
                Slot::Core(j) => Some((j, town.edge_length(u, v))),
                Slot::DeadEnd { .. } => None,
            };
            town.get(u).neighbours.iter().filter_map(to_core).collect()
        })
        .collect();
    // prev[v] on the tree from `src`, used to recover the first hop.
    let mut prev = vec![u32::MAX; m];
    let mut heap = BinaryHeap::new();
    for src in 0..m {
        let row = src * m;
        prev.fill(u32::MAX);
        dist[row + src] = 0.0;
        heap.push(Item(0.0, src as u32));
        while let Some(Item(d, u)) = heap.pop() {
            if d > dist[row + u as usize] {
                continue;
            }
            for &(v, length) in &paths[u as usize] {
                let nd = d + length;
                if nd < dist[row + v as usize] {
                    dist[row + v as usize] = nd;
                    prev[v as usize] = u;
                    heap.push(Item(nd, v));
                }
            }
        }
        for dst in 0..m {
            if dst == src || !dist[row + dst].is_finite() {
                continue;
            }
            let mut hop = dst as u32;
            while prev[hop as usize] != src as u32 {
                hop = prev[hop as usize];
            }
            next[row + dst] = core[hop as usize];
        }
        next[row + src] = core[src];
    }
    (dist, next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(id: &str, x: f32, y: f32, neighbours: &[u32]) -> Location {
        Location {
            id: LocationId::new(id),
            name: id.to_string(),
            description: String::new(),
            kind: LocationKind::Public,
            position: Vec2::new(x, y),
            size: Vec2::splat(10.0),
            neighbours: neighbours.iter().map(|&i| LocIdx(i)).collect(),
            capacity: 10,
            services: vec![],
            look: crate::scenario::PlaceLook::Square,
        }
    }

    /// A town of `places` on a 100 × 100 map.
    fn small_town(places: Vec<Location>) -> Town {
        let map = MapSize {
            width: 100.0,
            height: 100.0,
        };
        Town::new("t".into(), map, places)
    }

    #[test]
    fn shortest_route_goes_through_the_middle() {
        // a —— b —— c, plus a long detour a —— d —— c, and an island e.
        let town = small_town(vec![
            place("a", 0.0, 0.0, &[1, 3]),
            place("b", 10.0, 0.0, &[0, 2]),
            place("c", 20.0, 0.0, &[1, 3]),
            place("d", 10.0, 50.0, &[0, 2]),
            place("e", 90.0, 90.0, &[]),
        ]);
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

    /// Homes and workplaces on one path have no row of their own; their
    /// routes go through the place their path leads to.
    #[test]
    fn dead_ends_route_through_their_one_path() {
        // Plazas a and b; homes h1, h2 on a; a workplace w on b.
        let town = small_town(vec![
            place("a", 0.0, 0.0, &[1, 2, 3]),
            place("b", 30.0, 0.0, &[0, 4]),
            place("h1", 0.0, 3.0, &[0]),
            place("h2", 0.0, -4.0, &[0]),
            place("w", 30.0, 5.0, &[1]),
        ]);
        let at = |i| LocIdx(i);
        assert_eq!(town.route(at(2), at(4)), Some(vec![at(0), at(1), at(4)]));
        assert_eq!(town.route(at(4), at(2)), Some(vec![at(1), at(0), at(2)]));
        assert_eq!(town.route(at(2), at(3)), Some(vec![at(0), at(3)]));
        assert_eq!(town.route(at(0), at(4)), Some(vec![at(1), at(4)]));
        assert_eq!(town.route(at(1), at(4)), Some(vec![at(4)]));
        assert_eq!(town.distance(at(2), at(4)), 38.0);
        assert_eq!(town.distance(at(2), at(3)), 7.0);
        assert_eq!(town.distance(at(1), at(2)), 33.0);
        assert_eq!(town.distance(at(3), at(3)), 0.0);
        assert_eq!(town.routes().core, [at(0), at(1)]);
    }

    /// `check` of a town of 40,000 places: reachability from its connected
    /// parts, no n² table (it would be 12.8 GB here; 10,016 places took
    /// 515 s and 2.1 GB before).
    #[test]
    fn reachability_needs_no_route_table() {
        let n = 40_000u32;
        let places: Vec<Location> = (0..n)
            .map(|i| {
                // Two lines of 20,000 places each, not joined.
                let next = if i % 20_000 == 19_999 {
                    vec![]
                } else {
                    vec![i + 1]
                };
                place(&format!("p{i}"), i as f32, 0.0, &next)
            })
            .collect();
        let map = MapSize {
            width: n as f32,
            height: 1.0,
        };
        let town = Town::new("t".into(), map, places);
        assert!(town.reachable(LocIdx(0), LocIdx(19_999)));
        assert!(
            town.reachable(LocIdx(19_999), LocIdx(0)),
            "paths work both ways"
        );
        assert!(!town.reachable(LocIdx(0), LocIdx(20_000)));
        assert!(town.reachable(LocIdx(20_000), LocIdx(39_999)));
        assert!(town.routes.get().is_none(), "no route table was built");
    }

    #[test]
    fn clones_share_the_routes_worked_out_once() {
        let map = MapSize {
            width: 100.0,
            height: 100.0,
        };
        let town = Town::new(
            "t".into(),
            map,
            vec![place("a", 0.0, 0.0, &[1]), place("b", 10.0, 0.0, &[0])],
        );
        let copy = town.clone();
        town.prepare_routes();
        let before = town.clone();
        assert!(
            copy.routes.get().is_none(),
            "a clone made before has its own"
        );
        assert!(Arc::ptr_eq(
            before.routes.get().unwrap(),
            town.routes.get().unwrap()
        ));
        assert_eq!(copy.distance(LocIdx(1), LocIdx(0)), 10.0);
    }
}
