//! Generated towns of any size, for benchmarks and stress runs
//! (`heartvale sim --generate N`). Districts on a grid, each with a plaza,
//! a canteen, a park, workplaces and apartment blocks; one central square.

use std::sync::Arc;

use bevy::math::Vec2;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::spec::{BigFive, LocationKind, MapSize, Service, Tuning};
use super::{
    Gathering, Goal, Hobby, InitialRelationship, LocIdx, Location, LocationId, Profile,
    RelationKind, ResidentId, Scenario, Town, WorkShift,
};
use crate::base::time::GameTime;

const PER_HOME: usize = 40;
const PER_WORK: usize = 60;
const DISTRICT: f32 = 600.0;

/// A town for `residents` people, the same for the same `seed`.
pub fn generated_town(residents: usize, seed: u64) -> Scenario {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let residents = residents.max(1);
    let homes = residents.div_ceil(PER_HOME);
    let works = residents.div_ceil(PER_WORK);
    // Enough districts that each holds a handful of homes and workplaces.
    let districts = (homes + works).div_ceil(8).max(1);
    let side = (districts as f32).sqrt().ceil() as usize;
    let mut locations: Vec<Location> = Vec::new();
    fn add(
        locations: &mut Vec<Location>,
        id: String,
        name: String,
        kind: LocationKind,
        pos: Vec2,
        services: Vec<Service>,
    ) -> LocIdx {
        locations.push(Location {
            id: LocationId(Arc::from(id.as_str())),
            name,
            description: String::new(),
            kind,
            position: pos,
            size: Vec2::new(80.0, 60.0),
            neighbours: Vec::new(),
            capacity: 80,
            services,
        });
        LocIdx(locations.len() as u32 - 1)
    }
    let mut hubs = Vec::new();
    let mut canteens = Vec::new();
    let mut parks = Vec::new();
    for d in 0..districts {
        let c = Vec2::new(
            (d % side) as f32 * DISTRICT + 300.0,
            (d / side) as f32 * DISTRICT + 300.0,
        );
        let services = if d == 0 {
            vec![Service::NoticeBoard]
        } else {
            vec![]
        };
        hubs.push(add(
            &mut locations,
            format!("plaza_{d}"),
            format!("{d}区广场"),
            LocationKind::Public,
            c,
            services,
        ));
        canteens.push(add(
            &mut locations,
            format!("canteen_{d}"),
            format!("{d}区食堂"),
            LocationKind::Food,
            c + Vec2::new(120.0, 0.0),
            vec![Service::Food],
        ));
        parks.push(add(
            &mut locations,
            format!("park_{d}"),
            format!("{d}区公园"),
            LocationKind::Nature,
            c + Vec2::new(-120.0, 0.0),
            vec![],
        ));
    }
    let library = add(
        &mut locations,
        "library".into(),
        "图书馆".into(),
        LocationKind::Public,
        Vec2::new(300.0, 150.0),
        vec![Service::Books],
    );
    let home_idx: Vec<LocIdx> = (0..homes)
        .map(|h| {
            let d = h % districts;
            let c = locations[hubs[d].i()].position;
            let a = (h / districts) as f32 * 0.7;
            add(
                &mut locations,
                format!("home_{h}"),
                format!("{h}号公寓"),
                LocationKind::Home,
                c + Vec2::new(a.cos(), a.sin()) * 220.0,
                vec![Service::Sleep, Service::Food],
            )
        })
        .collect();
    let work_idx: Vec<LocIdx> = (0..works)
        .map(|w| {
            let d = w % districts;
            let c = locations[hubs[d].i()].position;
            let a = (w / districts) as f32 * 0.7 + 0.35;
            add(
                &mut locations,
                format!("work_{w}"),
                format!("{w}号工坊"),
                LocationKind::Work,
                c + Vec2::new(a.cos(), a.sin()) * 160.0,
                vec![],
            )
        })
        .collect();
    let n = locations.len();
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for d in 0..districts {
        let h = hubs[d].i();
        edges.push((h, canteens[d].i()));
        edges.push((h, parks[d].i()));
        if d % side + 1 < side && d + 1 < districts {
            edges.push((h, hubs[d + 1].i()));
        }
        if d + side < districts {
            edges.push((h, hubs[d + side].i()));
        }
    }
    edges.push((hubs[0].i(), library.i()));
    for (i, &l) in home_idx.iter().enumerate() {
        edges.push((l.i(), hubs[i % districts].i()));
    }
    for (i, &l) in work_idx.iter().enumerate() {
        edges.push((l.i(), hubs[i % districts].i()));
    }
    for (a, b) in edges {
        locations[a].neighbours.push(LocIdx(b as u32));
        locations[b].neighbours.push(LocIdx(a as u32));
    }
    debug_assert_eq!(n, locations.len());
    let map = MapSize {
        width: side as f32 * DISTRICT + 600.0,
        height: districts.div_ceil(side) as f32 * DISTRICT + 600.0,
    };
    let town = Town::new(format!("生成小镇（{residents}人）"), map, locations);

    let start = GameTime::parse("2026-04-06 06:00").expect("valid literal");
    let surnames = ["王", "李", "张", "刘", "陈", "杨", "赵", "黄", "周", "吴"];
    let given = [
        "伟", "芳", "娜", "敏", "静", "磊", "洋", "艳", "勇", "杰", "娟", "涛",
    ];
    let mut profiles = Vec::with_capacity(residents);
    let mut gatherings = Vec::new();
    for i in 0..residents {
        let big = |rng: &mut ChaCha8Rng| rng.random_range(10.0..90.0f32);
        let personality = BigFive {
            openness: big(&mut rng),
            conscientiousness: big(&mut rng),
            extraversion: big(&mut rng),
            agreeableness: big(&mut rng),
            neuroticism: big(&mut rng),
        };
        let home_no = i / PER_HOME;
        let home = home_idx[home_no];
        // Work in the home's district when it has a workplace: short commutes,
        // the same shape of town at every size.
        let district = home_no % districts;
        let local: Vec<LocIdx> = (district..works)
            .step_by(districts)
            .map(|w| work_idx[w])
            .collect();
        let place = if local.is_empty() {
            work_idx[i % works]
        } else {
            local[i % local.len()]
        };
        let start_h = rng.random_range(7..10u32);
        let (wake, bedtime, late) = super::resolve::derived_schedule(&personality);
        let id = ResidentId(Arc::from(format!("r{i}").as_str()));
        let mut goals = Vec::new();
        if i == 0 {
            gatherings.push(Gathering {
                id: 0,
                title: "街坊聚会".into(),
                organiser: id.clone(),
                location: hubs[0],
                starts: start.plus_minutes(24 * 60 + 12 * 60),
                ends: start.plus_minutes(24 * 60 + 15 * 60),
            });
            goals.push(Goal {
                text: "明天傍晚在广场办街坊聚会".into(),
                gathering: Some(0),
                notice: None,
            });
        }
        let neighbour = if i % PER_HOME > 0 { Some(i - 1) } else { None };
        profiles.push(Arc::new(Profile {
            id,
            name: format!(
                "{}{}{}",
                surnames[i % surnames.len()],
                given[(i / surnames.len()) % given.len()],
                i
            ),
            age: rng.random_range(18..80),
            gender: if i % 2 == 0 { "女" } else { "男" }.into(),
            occupation: "工匠".into(),
            home,
            work: Some(WorkShift {
                place,
                start: start_h * 60,
                end: (start_h + 8) * 60,
                days: [true, true, true, true, true, false, false],
                action: "Work at the workshop".into(),
                emoji: "🔨".into(),
                role: None,
                greets: Vec::new(),
            }),
            personality,
            traits: vec![],
            quote: String::new(),
            goals,
            memories: vec!["我住在这座新建的小镇里。".into()],
            relationships: neighbour
                .map(|n| InitialRelationship {
                    with: ResidentId(Arc::from(format!("r{n}").as_str())),
                    kind: RelationKind::Acquaintance,
                    strength: 30.0,
                    impression: "邻居".into(),
                })
                .into_iter()
                .collect(),
            wake,
            bedtime,
            late_night_chance: late,
            hobbies: vec![Hobby {
                action: "Walk in the park".into(),
                place: parks[(i / PER_HOME) % districts],
                emoji: "🌳".into(),
                says: None,
                evening: false,
            }],
            topics: vec![["美食", "书", "音乐"][i % 3].into()],
            brain: None,
            counsel: None,
            converse: None,
        }));
    }
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
    }
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
