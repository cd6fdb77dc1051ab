//! Generated towns of any size, for benchmarks and stress runs
//! (`heartvale sim --generate N`). Districts on a grid, each with a plaza,
//! a canteen, a park, workplaces of a trade and homes; one central square.
//! People have names, trades, traits and pastimes of their own
//! (`generate_people`), and speak with the default town's phrase bank
//! without the lines that name its people and places.

use std::sync::Arc;

use bevy::math::Vec2;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::generate_people::{self as people, TRADES};
use super::spec::{BigFive, LocationKind, MapSize, Service, Tuning};
use super::{
    Gathering, GatheringIdx, Goal, Hobby, InitialRelationship, LocIdx, Location, LocationId,
    Profile, RelationKind, ResidentId, Scenario, Town, WorkShift,
};
use crate::base::time::GameTime;

/// Residents per apartment block.
const PER_HOME: usize = 40;
/// Residents per workplace.
const PER_WORK: usize = 60;
/// A district's width and height, in map units.
const DISTRICT: f32 = 600.0;

/// How big the town is: its people, homes, workplaces and districts.
struct Layout {
    residents: usize,
    homes: usize,
    works: usize,
    districts: usize,
    /// Districts per row of the grid.
    side: usize,
}

impl Layout {
    fn for_residents(residents: usize) -> Self {
        let residents = residents.max(1);
        let homes = residents.div_ceil(PER_HOME);
        let works = residents.div_ceil(PER_WORK);
        // Enough districts that each holds a handful of homes and workplaces.
        let districts = (homes + works).div_ceil(8).max(1);
        let side = (districts as f32).sqrt().ceil() as usize;
        Layout {
            residents,
            homes,
            works,
            districts,
            side,
        }
    }

    fn map_size(&self) -> MapSize {
        MapSize {
            width: self.side as f32 * DISTRICT + 600.0,
            height: self.districts.div_ceil(self.side) as f32 * DISTRICT + 600.0,
        }
    }
}

/// The places of a generated town, by what they are.
#[derive(Default)]
struct Places {
    locations: Vec<Location>,
    hubs: Vec<LocIdx>,
    canteens: Vec<LocIdx>,
    parks: Vec<LocIdx>,
    library: Option<LocIdx>,
    homes: Vec<LocIdx>,
    works: Vec<LocIdx>,
}

impl Places {
    fn add(
        &mut self,
        id: String,
        name: String,
        kind: LocationKind,
        pos: Vec2,
        services: Vec<Service>,
    ) -> LocIdx {
        self.locations.push(Location {
            id: LocationId::new(id.as_str()),
            name,
            description: String::new(),
            kind,
            position: pos,
            size: Vec2::new(80.0, 60.0),
            neighbours: Vec::new(),
            capacity: 80,
            look: crate::scenario::PlaceLook::infer(kind, &services),
            services,
        });
        LocIdx(self.locations.len() as u32 - 1)
    }

    /// Every place: each district's plaza, canteen and park, the library, then
    /// homes and workplaces spread over the districts.
    fn build(layout: &Layout) -> Self {
        let mut p = Places::default();
        for d in 0..layout.districts {
            let c = Vec2::new(
                (d % layout.side) as f32 * DISTRICT + 300.0,
                (d / layout.side) as f32 * DISTRICT + 300.0,
            );
            let board = if d == 0 {
                vec![Service::NoticeBoard]
            } else {
                vec![]
            };
            let name = people::district(d);
            let hub = p.add(
                format!("plaza_{d}"),
                format!("{name}广场"),
                LocationKind::Public,
                c,
                board,
            );
            p.hubs.push(hub);
            let at = c + Vec2::new(120.0, 0.0);
            let canteen = p.add(
                format!("canteen_{d}"),
                format!("{name}食堂"),
                LocationKind::Food,
                at,
                vec![Service::Food],
            );
            p.canteens.push(canteen);
            let at = c + Vec2::new(-120.0, 0.0);
            let park = p.add(
                format!("park_{d}"),
                format!("{name}公园"),
                LocationKind::Nature,
                at,
                vec![],
            );
            p.parks.push(park);
        }
        let at = Vec2::new(300.0, 150.0);
        p.library = Some(p.add(
            "library".into(),
            "图书馆".into(),
            LocationKind::Public,
            at,
            vec![Service::Books],
        ));
        for h in 0..layout.homes {
            let at = p.around_hub(layout, h, 0.0, 220.0);
            let services = vec![Service::Sleep, Service::Food];
            let district = people::district(h % layout.districts);
            let number = people::numeral(h / layout.districts + 1);
            let home = p.add(
                format!("home_{h}"),
                format!("{district}{number}号院"),
                LocationKind::Home,
                at,
                services,
            );
            p.homes.push(home);
        }
        for w in 0..layout.works {
            let at = p.around_hub(layout, w, 0.35, 160.0);
            let district = people::district(w % layout.districts);
            let trade = &TRADES[w % TRADES.len()];
            let number = match w / (layout.districts * TRADES.len()) {
                0 => String::new(),
                n => people::numeral(n + 1),
            };
            let work = p.add(
                format!("work_{w}"),
                format!("{district}{number}{}", trade.place),
                LocationKind::Work,
                at,
                vec![],
            );
            p.works.push(work);
        }
        p.connect(layout);
        p
    }

    /// The `k`-th building of its kind: on a ring around its district's plaza.
    fn around_hub(&self, layout: &Layout, k: usize, turn: f32, radius: f32) -> Vec2 {
        let d = k % layout.districts;
        let c = self.locations[self.hubs[d].i()].position;
        let a = (k / layout.districts) as f32 * 0.7 + turn;
        c + Vec2::new(a.cos(), a.sin()) * radius
    }

    /// Paths: each plaza to its canteen, park and the next plazas of the grid;
    /// homes and workplaces to their plaza; the library to the first plaza.
    fn connect(&mut self, layout: &Layout) {
        let (districts, side) = (layout.districts, layout.side);
        let mut edges: Vec<(usize, usize)> = Vec::new();
        for d in 0..districts {
            let h = self.hubs[d].i();
            edges.push((h, self.canteens[d].i()));
            edges.push((h, self.parks[d].i()));
            if d % side + 1 < side && d + 1 < districts {
                edges.push((h, self.hubs[d + 1].i()));
            }
            if d + side < districts {
                edges.push((h, self.hubs[d + side].i()));
            }
        }
        if let Some(library) = self.library {
            edges.push((self.hubs[0].i(), library.i()));
        }
        for (i, &l) in self.homes.iter().enumerate() {
            edges.push((l.i(), self.hubs[i % districts].i()));
        }
        for (i, &l) in self.works.iter().enumerate() {
            edges.push((l.i(), self.hubs[i % districts].i()));
        }
        for (a, b) in edges {
            self.locations[a].neighbours.push(LocIdx(b as u32));
            self.locations[b].neighbours.push(LocIdx(a as u32));
        }
    }

    /// A workplace (its index) in the home's district when it has one:
    /// short commutes, the same shape of town at every size.
    fn workplace(&self, layout: &Layout, i: usize) -> usize {
        let district = (i / PER_HOME) % layout.districts;
        let local: Vec<usize> = (district..layout.works).step_by(layout.districts).collect();
        if local.is_empty() {
            i % layout.works
        } else {
            local[i % local.len()]
        }
    }
}

/// The largest generated town (`--generate`, or a save of one): the size the
/// benchmarks measure (docs/benchmarks.md: about 1.4 GiB and 30 ms a step
/// on a 2-core machine). A million would need some 16 GiB before a step ran.
pub const MAX_GENERATED: usize = 100_000;

/// A town for `residents` people, the same for the same `seed`.
pub fn generated_town(residents: usize, seed: u64) -> Scenario {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let layout = Layout::for_residents(residents);
    let places = Places::build(&layout);
    let map = layout.map_size();
    let start = GameTime::parse("2026-04-06 06:00").expect("valid literal");
    let mut profiles = Vec::with_capacity(layout.residents);
    for i in 0..layout.residents {
        profiles.push(Arc::new(resident(i, &mut rng, &layout, &places)));
    }
    // The first resident hosts a neighbourhood party on the second afternoon.
    let gatherings = vec![Gathering {
        id: GatheringIdx(0),
        title: "街坊聚会".into(),
        organiser: profiles[0].id.clone(),
        location: places.hubs[0],
        starts: start.plus_minutes(24 * 60 + 12 * 60),
        ends: start.plus_minutes(24 * 60 + 15 * 60),
    }];
    let name = format!("生成小镇（{}人）", layout.residents);
    let town = Town::new(name, map, places.locations);
    Scenario {
        dir: std::path::PathBuf::new(),
        name: town.name.clone(),
        description: "generated".into(),
        start,
        days: 3,
        minutes_per_second: 2.0,
        map,
        seed,
        town,
        residents: profiles,
        gatherings,
        tuning: Tuning::default(),
        llm: None,
        dialogue: borrowed_bank(),
        chat: crate::companion::ChatBank::shared_builtin(),
    }
}

/// The default town's phrase bank without the lines that name its people
/// and places (its `local_words`): what a generated town speaks with.
fn borrowed_bank() -> Arc<super::PhraseBank> {
    static BANK: std::sync::LazyLock<Arc<super::PhraseBank>> = std::sync::LazyLock::new(|| {
        Arc::new(super::PhraseBank::shared_builtin().without_local(&[]))
    });
    BANK.clone()
}

/// Resident `i`: a trade from its workplace, a personality, traits and
/// pastimes that follow from it, a weekday shift, and the neighbour before
/// it in its home as an acquaintance.
fn resident(i: usize, rng: &mut ChaCha8Rng, layout: &Layout, places: &Places) -> Profile {
    let mut big = || rng.random_range(10.0..90.0f32);
    let personality = BigFive {
        openness: big(),
        conscientiousness: big(),
        extraversion: big(),
        agreeableness: big(),
        neuroticism: big(),
    };
    let start_h = rng.random_range(7..10u32);
    let (wake, bedtime, late) = super::resolve::derived_schedule(&personality);
    let goals = if i == 0 {
        vec![Goal {
            text: "明天下午在广场办街坊聚会".into(),
            gathering: Some(GatheringIdx(0)),
            notice: None,
        }]
    } else {
        Vec::new()
    };
    let neighbour = (!i.is_multiple_of(PER_HOME)).then(|| InitialRelationship {
        with: ResidentId::new(format!("r{}", i - 1).as_str()),
        kind: RelationKind::Acquaintance,
        strength: 30.0,
        impression: NEIGHBOUR.clone(),
    });
    let w = places.workplace(layout, i);
    let trade = &TRADES[w % TRADES.len()];
    let p = &personality;
    let traits = people::traits([
        p.openness,
        p.conscientiousness,
        p.extraversion,
        p.agreeableness,
        p.neuroticism,
    ]);
    let (quote, food, topics) = people::likes(rng);
    let district = (i / PER_HOME) % layout.districts;
    Profile {
        id: ResidentId::new(format!("r{i}").as_str()),
        name: people::name(i),
        age: rng.random_range(18..80),
        gender: if i.is_multiple_of(2) { "女" } else { "男" }.into(),
        occupation: trade.job.into(),
        home: places.homes[i / PER_HOME],
        work: Some(WorkShift {
            place: places.works[w],
            start: start_h * 60,
            end: (start_h + 8) * 60,
            days: [true, true, true, true, true, false, false],
            action: trade.action.into(),
            emoji: trade.emoji.into(),
            role: None,
            greets: Vec::new(),
        }),
        personality,
        traits,
        quote,
        goals,
        memories: vec![format!("我是{}，在镇上做{}。", people::name(i), trade.job)],
        relationships: neighbour.into_iter().collect(),
        wake,
        bedtime,
        late_night_chance: late,
        hobbies: pastimes(i, places, district),
        topics,
        food,
        eats: true,
        knows: Vec::new(),
        brain: None,
        counsel: None,
        converse: None,
        companion: None,
        host: None,
        sprite: None,
        word_memo: Default::default(),
    }
}

/// A pastime's words: (action, emoji, what it is).
type Pastime = (Arc<str>, Arc<str>, Arc<str>);

/// The impression of the neighbour next door, one for the whole town.
static NEIGHBOUR: std::sync::LazyLock<Arc<str>> = std::sync::LazyLock::new(|| Arc::from("邻居"));

/// The generated pastimes' words, made once and
/// shared by every resident (a 100,000-resident town would otherwise hold
/// 600,000 copies).
static PASTIMES: std::sync::LazyLock<[Pastime; 4]> = std::sync::LazyLock::new(|| {
    [
        ("Walk in the park", "🌳", "在公园散步"),
        ("Read at the library", "📚", "去图书馆看书"),
        ("Play chess at the plaza", "♟️", "在广场下棋"),
        ("Sing at the plaza", "🎤", "在广场唱歌"),
    ]
    .map(|(a, e, d)| (a.into(), e.into(), d.into()))
});

/// One or two pastimes in the resident's district: a walk in the park,
/// reading at the library, chess or songs at the plaza.
fn pastimes(i: usize, places: &Places, district: usize) -> Vec<Hobby> {
    let park = places.parks[district];
    let plaza = places.hubs[district];
    let library = places.library.unwrap_or(plaza);
    let at = [park, library, plaza, plaza];
    let n = at.len();
    [i % n, (i / n + 1 + i) % n]
        .into_iter()
        .enumerate()
        .filter(|(k, j)| *k == 0 || *j != i % n)
        .map(|(_, j)| {
            let (action, emoji, does) = &PASTIMES[j];
            Hobby {
                action: action.clone(),
                place: at[j],
                emoji: emoji.clone(),
                says: None,
                does: Some(does.clone()),
                often: 1.0,
                evening: false,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_home_reaches_every_workplace() {
        let s = generated_town(500, 1);
        assert_eq!(s.residents.len(), 500);
        for p in &s.residents {
            let w = p.work.as_ref().unwrap().place;
            assert!(s.town.reachable(p.home, w), "{} cannot get to work", p.id);
        }
    }
}
