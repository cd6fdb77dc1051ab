//! Residents on the map: a figure from its character sheet each, with its
//! name below and its current emoji above. Figures glide along the positions
//! the simulation reports, step by step, facing the way they walk with the
//! four-direction walk cycle (no teleporting); at a place the simulation
//! spreads them over its area. Asleep in a building they are out of sight;
//! asleep outdoors they stay, dimmed.

use std::collections::{HashMap, HashSet, VecDeque};

use bevy::image::{ImageLoaderSettings, ImageSampler};
use bevy::prelude::*;

use super::art::{self, Facing};
use super::stage::Spot;
use super::{AssetDir, FONT, MapFrame, ViewSet};
use crate::scenario::Town;
use crate::sim::residents::{Activity, ActivityKind, MapPosition, Persona, Resident, Thinking};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Startup, (load_emoji_index, make_layout))
        .add_systems(
            Update,
            (
                add_figures.in_set(ViewSet::Sync),
                (
                    track_sim,
                    glide,
                    face_partners,
                    animate,
                    show_emoji,
                    rename,
                    show_sleepers,
                )
                    .chain()
                    .in_set(PeopleSet)
                    .in_set(ViewSet::Present),
            ),
        );
}

/// The figures' systems (labels are placed after them).
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct PeopleSet;

/// World units per sprite pixel.
const PIXEL: f32 = 2.0;
/// How long a figure takes to catch up with the simulation, in real seconds:
/// about one step at 1×, so walking looks continuous.
const LAG: f32 = 0.4;
/// Below this pace a figure counts as standing (world units per second).
const MIN_SPEED: f32 = 20.0;
/// Further behind than this (a reload, a burst at 300×): jump, don't race.
const SNAP: f32 = 2500.0;
/// Walk-cycle frames per second.
const STRIDE_FPS: f32 = 8.0;

/// The view's copy of where a resident has been: the points the simulation
/// put it at, not yet walked by its figure, oldest first.
#[derive(Component, Debug, Default)]
pub(crate) struct Glide {
    pub(crate) path: VecDeque<Vec2>,
    pub(crate) last: Option<Vec2>,
    pub(crate) moving: bool,
    pub(crate) stride: f32,
    pub(crate) facing: Facing,
}

/// The name label under a figure.
#[derive(Component)]
pub(crate) struct NameLabel;

/// The emoji icon over a figure.
#[derive(Component)]
pub(crate) struct EmojiIcon;

/// The shared atlas layout of every sheet.
#[derive(Resource)]
pub(crate) struct SheetLayout(pub Handle<TextureAtlasLayout>);

/// The character sheets loaded so far, by name (crisp pixels).
#[derive(Resource, Default)]
pub(crate) struct Sheets(HashMap<String, Handle<Image>>);

impl Sheets {
    pub(crate) fn get(&mut self, name: &str, assets: &AssetServer) -> Handle<Image> {
        self.0
            .entry(name.to_string())
            .or_insert_with(|| {
                assets
                    .load_builder()
                    .with_settings(|s: &mut ImageLoaderSettings| {
                        s.sampler = ImageSampler::nearest()
                    })
                    .load(art::sheet_path(name))
            })
            .clone()
    }
}

/// Which emoji have an icon under `assets/emoji/` (file stems).
#[derive(Resource, Default, Debug)]
pub(crate) struct EmojiIndex(pub HashSet<String>);

impl EmojiIndex {
    /// The icon path of `emoji`, when there is one (`U+FE0F` ignored).
    pub(super) fn path(&self, emoji: &str) -> Option<String> {
        let key = emoji_key(emoji)?;
        self.0.contains(&key).then(|| format!("emoji/{key}.png"))
    }
}

/// `"🛋️"` → `"1f6cb"`: code points in hex joined by `-`, without U+FE0F.
pub(crate) fn emoji_key(emoji: &str) -> Option<String> {
    let parts: Vec<String> = emoji
        .trim()
        .chars()
        .filter(|c| *c != '\u{FE0F}')
        .map(|c| format!("{:x}", c as u32))
        .collect();
    (!parts.is_empty()).then(|| parts.join("-"))
}

fn load_emoji_index(mut commands: Commands, dir: Res<AssetDir>) {
    let names = std::fs::read_dir(dir.0.join("emoji"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            name.strip_suffix(".png").map(str::to_string)
        })
        .collect();
    commands.insert_resource(EmojiIndex(names));
}

fn make_layout(mut commands: Commands, mut layouts: ResMut<Assets<TextureAtlasLayout>>) {
    commands.insert_resource(SheetLayout(layouts.add(art::sheet_layout())));
    commands.init_resource::<Sheets>();
}

/// Height of a figure's sprite in world units.
const FIGURE: f32 = art::FRAME as f32 * PIXEL;

/// Gives each new resident its figure, name label and emoji slot.
fn add_figures(
    mut commands: Commands,
    new: Query<(Entity, &Resident, &MapPosition, &Persona), Added<Resident>>,
    frame: Res<MapFrame>,
    layout: Option<Res<SheetLayout>>,
    mut sheets: Option<ResMut<Sheets>>,
    assets: Res<AssetServer>,
) {
    let (Some(layout), Some(sheets)) = (layout, sheets.as_mut()) else {
        return;
    };
    let font: Handle<Font> = assets.load(FONT);
    for (entity, r, pos, persona) in &new {
        let name = art::sheet_name(&r.id, persona.sprite.as_deref());
        let sheet = sheets.get(&name, &assets);
        let mut sprite = Sprite::from_atlas_image(
            sheet,
            TextureAtlas {
                layout: layout.0.clone(),
                index: 0,
            },
        );
        sprite.custom_size = Some(Vec2::splat(FIGURE));
        let at = frame.world(pos.0);
        commands.entity(entity).insert((
            sprite,
            Transform::from_translation(at.extend(depth(at.y))),
            Visibility::default(),
            Glide {
                last: Some(at),
                ..default()
            },
        ));
        commands.entity(entity).with_children(|c| {
            c.spawn((
                NameLabel,
                Text2d::new(persona.name.clone()),
                TextFont {
                    font: font.clone().into(),
                    font_size: FontSize::Px(15.0),
                    ..default()
                },
                TextColor(Color::srgb(1.0, 1.0, 0.96)),
                bevy::sprite::Text2dShadow {
                    offset: Vec2::new(1.0, -1.0),
                    color: Color::srgba(0.05, 0.05, 0.08, 0.95),
                },
                // Above the darkness (30), under the bubbles (40): names stay readable at night.
                Transform::from_xyz(0.0, super::labels::UNDER, 25.0),
            ));
            c.spawn((
                EmojiIcon,
                Sprite {
                    custom_size: Some(Vec2::splat(22.0)),
                    ..default()
                },
                Transform::from_xyz(10.0, FIGURE / 2.0 + 8.0, 0.6),
                Visibility::Hidden,
            ));
        });
    }
}

/// Lower on the map is nearer the viewer: drawn on top.
pub(crate) fn depth(world_y: f32) -> f32 {
    10.0 - world_y * 0.001
}

/// A figure's position changed: the simulation moved it, or it got (or
/// left) its spot at a place.
type Moved = Or<(Changed<MapPosition>, Changed<Spot>)>;

/// Appends each new position to the figure's path: where the simulation
/// puts it on the road, its own spot at a place (see `stage`).
fn track_sim(frame: Res<MapFrame>, mut q: Query<(&MapPosition, Option<&Spot>, &mut Glide), Moved>) {
    for (pos, spot, mut glide) in &mut q {
        let at = spot.map_or_else(|| frame.world(pos.0), |s| s.at);
        if glide.last != Some(at) {
            glide.path.push_back(at);
            glide.last = Some(at);
        }
    }
}

/// Moves `from` along `path` (consuming reached points) by up to `distance`;
/// returns where it ends.
pub(crate) fn advance_along(mut from: Vec2, path: &mut VecDeque<Vec2>, mut distance: f32) -> Vec2 {
    while let Some(&next) = path.front() {
        let gap = from.distance(next);
        if gap > distance {
            return from + (next - from) * (distance / gap);
        }
        distance -= gap;
        from = next;
        path.pop_front();
    }
    from
}

/// Total length of the path still to walk from `from`.
pub(crate) fn remaining(from: Vec2, path: &VecDeque<Vec2>) -> f32 {
    let mut at = from;
    let mut total = 0.0;
    for &p in path {
        total += at.distance(p);
        at = p;
    }
    total
}

/// Walks each figure along its path at a pace that catches up in about `LAG`.
fn glide(time: Res<Time<Real>>, mut q: Query<(&mut Glide, &mut Transform), With<Resident>>) {
    let dt = time.delta_secs();
    for (mut glide, mut transform) in &mut q {
        let now = transform.translation.truncate();
        let left = remaining(now, &glide.path);
        let target = if left > SNAP {
            let last = glide.path.back().copied().unwrap_or(now);
            glide.path.clear();
            last
        } else {
            let pace = (left / LAG).max(MIN_SPEED);
            advance_along(now, &mut glide.path, pace * dt)
        };
        let moved = target - now;
        glide.moving = moved.length() > 1e-3;
        if let Some(facing) = Facing::of(moved) {
            glide.facing = facing;
        }
        transform.translation = target.extend(depth(target.y));
    }
}

/// Which way to face to look at the others of a conversation (their middle);
/// `None` when they stand on one's own spot.
pub(crate) fn towards(me: Vec2, others: &[Vec2]) -> Option<Facing> {
    if others.is_empty() {
        return None;
    }
    let middle = others.iter().sum::<Vec2>() / others.len() as f32;
    Facing::of(middle - me)
}

/// People talking (and standing) face whom they talk with.
fn face_partners(
    talks: Query<&crate::sim::social::Conversation>,
    roster: Res<crate::sim::residents::Roster>,
    mut figures: Query<(&Transform, &mut Glide), With<Resident>>,
) {
    for talk in &talks {
        let at: Vec<(Entity, Vec2)> = talk
            .participants()
            .iter()
            .filter_map(|&i| roster.entities().get(i.i()).copied())
            .filter_map(|e| {
                figures
                    .get(e)
                    .ok()
                    .map(|(t, _)| (e, t.translation.truncate()))
            })
            .collect();
        for (k, &(entity, me)) in at.iter().enumerate() {
            let others: Vec<Vec2> = at
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != k)
                .map(|(_, (_, p))| *p)
                .collect();
            if let Ok((_, mut glide)) = figures.get_mut(entity)
                && !glide.moving
                && let Some(facing) = towards(me, &others)
            {
                glide.facing = facing;
            }
        }
    }
}

/// Steps through the walk cycle while moving; stands still otherwise.
fn animate(time: Res<Time<Real>>, mut q: Query<(&mut Glide, &mut Sprite)>) {
    for (mut glide, mut sprite) in &mut q {
        let Some(atlas) = sprite.texture_atlas.as_mut() else {
            continue;
        };
        if glide.moving {
            glide.stride =
                (glide.stride + time.delta_secs() * STRIDE_FPS) % art::WALK_FRAMES as f32;
        } else {
            glide.stride = 0.0;
        }
        atlas.index = art::frame_index(glide.facing, glide.stride as u32);
    }
}

/// What may change the emoji over a head.
type NewEmoji = Or<(Changed<Activity>, Added<Thinking>, Added<Children>)>;
/// What decides it.
type HeadView<'a> = (&'a Children, Option<&'a Activity>, Has<Thinking>);

/// Shows the plan's emoji over the head, or a thought bubble while thinking.
fn show_emoji(
    residents: Query<HeadView, (With<Resident>, NewEmoji)>,
    mut removed: RemovedComponents<Thinking>,
    all: Query<(&Children, Option<&Activity>), With<Resident>>,
    mut icons: Query<(&mut Sprite, &mut Visibility), With<EmojiIcon>>,
    index: Option<Res<EmojiIndex>>,
    assets: Res<AssetServer>,
) {
    let Some(index) = index else {
        return;
    };
    let mut update = |children: &Children, activity: Option<&Activity>, thinking: bool| {
        let emoji = if thinking {
            "💭"
        } else {
            activity.map_or("", |a| a.text.emoji.as_str())
        };
        for child in children.iter() {
            if let Ok((mut sprite, mut vis)) = icons.get_mut(child) {
                match index.path(emoji) {
                    Some(path) => {
                        sprite.image = assets.load(path);
                        *vis = Visibility::Inherited;
                    }
                    None => *vis = Visibility::Hidden,
                }
            }
        }
    };
    for (children, activity, thinking) in &residents {
        update(children, activity, thinking);
    }
    for entity in removed.read() {
        if let Ok((children, activity)) = all.get(entity) {
            update(children, activity, false);
        }
    }
}

/// Keeps labels in step with renamed residents (hot reload).
fn rename(
    residents: Query<(&Persona, &Children), Changed<Persona>>,
    mut labels: Query<&mut Text2d, With<NameLabel>>,
) {
    for (persona, children) in &residents {
        for child in children.iter() {
            if let Ok(mut text) = labels.get_mut(child)
                && text.0 != persona.name
            {
                text.0 = persona.name.clone();
            }
        }
    }
}

/// Asleep in a building: out of sight (indoors). Asleep outdoors (a camp,
/// the shrine): facing the viewer, dimmed.
fn show_sleepers(
    town: Res<Town>,
    mut q: Query<(&Activity, &mut Visibility, &mut Sprite, &mut Glide), Changed<Activity>>,
) {
    for (activity, mut vis, mut sprite, mut glide) in &mut q {
        let asleep = activity.underway && activity.kind == ActivityKind::Sleep;
        let indoors =
            activity.target.i() < town.len() && town.get(activity.target).look.is_building();
        *vis = if asleep && indoors {
            Visibility::Hidden
        } else {
            Visibility::Inherited
        };
        if asleep {
            glide.facing = Facing::Down;
        }
        sprite.color = if asleep {
            Color::srgb(0.6, 0.6, 0.75)
        } else {
            Color::WHITE
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::testing::view_app;
    use bevy::time::TimeUpdateStrategy;
    use std::time::Duration;

    #[test]
    fn a_figure_walks_the_path_through_every_point_in_order() {
        let mut path: VecDeque<Vec2> = [Vec2::new(10.0, 0.0), Vec2::new(10.0, 10.0)].into();
        // 5 units: halfway along the first leg.
        let at = advance_along(Vec2::ZERO, &mut path, 5.0);
        assert_eq!(at, Vec2::new(5.0, 0.0));
        assert_eq!(path.len(), 2);
        // 8 more: round the corner, not across it.
        let at = advance_along(at, &mut path, 8.0);
        assert_eq!(at, Vec2::new(10.0, 3.0));
        assert_eq!(path.len(), 1);
        assert_eq!(remaining(at, &path), 7.0);
        let at = advance_along(at, &mut path, 100.0);
        assert_eq!(at, Vec2::new(10.0, 10.0));
        assert!(path.is_empty());
    }

    #[test]
    fn people_talking_face_each_other() {
        let (a, b) = (Vec2::new(0.0, 0.0), Vec2::new(40.0, 5.0));
        assert_eq!(towards(a, &[b]), Some(Facing::Right));
        assert_eq!(towards(b, &[a]), Some(Facing::Left));
        // A group: the middle of the others.
        let (c, d) = (Vec2::new(-10.0, 60.0), Vec2::new(10.0, 50.0));
        assert_eq!(towards(a, &[c, d]), Some(Facing::Up));
        assert_eq!(towards(c, &[a, d]), Some(Facing::Down));
        assert_eq!(towards(a, &[]), None);
    }

    #[test]
    fn emoji_keys_match_the_icon_files() {
        assert_eq!(emoji_key("😴").as_deref(), Some("1f634"));
        assert_eq!(emoji_key("🛋️").as_deref(), Some("1f6cb"));
        assert_eq!(emoji_key(" "), None);
        let index = EmojiIndex(["1f634".to_string()].into());
        assert_eq!(index.path("😴").as_deref(), Some("emoji/1f634.png"));
        assert_eq!(index.path("🦄"), None);
        // Every emoji the built-in brain and the town use has an icon.
        let dir = crate::window::asset_root().join("emoji");
        for emoji in [
            "😴", "🍲", "🍚", "🍵", "📚", "📌", "🤝", "💬", "🏠", "🎉", "🌿", "🛋️", "💭",
        ] {
            let key = emoji_key(emoji).unwrap();
            assert!(
                dir.join(format!("{key}.png")).is_file(),
                "no icon for {emoji}"
            );
        }
    }

    /// Figures move smoothly between the simulation's positions: every frame a
    /// little, never more than the pace allows, ending where the sim put them.
    #[test]
    fn figures_glide_between_steps_without_teleporting() {
        let mut app = view_app();
        app.add_plugins(plugin);
        let frame_dt = Duration::from_millis(16);
        app.insert_resource(TimeUpdateStrategy::ManualDuration(frame_dt));
        // The sim stands still, so only the view moves.
        app.world_mut()
            .resource_mut::<crate::sim::clock::SimSpeed>()
            .paused = true;
        app.update();
        app.update();
        let world = app.world_mut();
        let mut q = world.query_filtered::<(Entity, &Transform), (With<Resident>, With<Glide>)>();
        let (entity, start) = q
            .iter(world)
            .map(|(e, t)| (e, t.translation.truncate()))
            .next()
            .unwrap();
        // The sim moves the resident 300 map units east in one step.
        let map_frame = *world.resource::<MapFrame>();
        let map_pos = world.get::<MapPosition>(entity).unwrap().0;
        world.get_mut::<MapPosition>(entity).unwrap().0 = map_pos + Vec2::new(300.0, 0.0);
        let goal = map_frame.world(map_pos + Vec2::new(300.0, 0.0));
        let mut last = start;
        let mut frames = 0;
        let mut walked = false;
        while last.distance(goal) > 0.01 {
            app.update();
            let now = app
                .world()
                .get::<Transform>(entity)
                .unwrap()
                .translation
                .truncate();
            let step = now.distance(last);
            // Never a jump: at most the catch-up pace for one frame.
            assert!(
                step <= 300.0 / LAG * frame_dt.as_secs_f32() + 0.01,
                "jumped {step}"
            );
            walked |= app.world().get::<Glide>(entity).unwrap().moving
                && app.world().get::<Glide>(entity).unwrap().facing == Facing::Right
                && app
                    .world()
                    .get::<Sprite>(entity)
                    .unwrap()
                    .texture_atlas
                    .as_ref()
                    .unwrap()
                    .index
                    != art::frame_index(Facing::Right, 0);
            last = now;
            frames += 1;
            assert!(frames < 200, "never arrived");
        }
        assert!(frames > 10, "arrived in {frames} frames: too abrupt");
        assert!(walked, "no walk cycle while moving");
        app.update();
        let glide = app.world().get::<Glide>(entity).unwrap();
        assert!(!glide.moving);
        let sprite = app.world().get::<Sprite>(entity).unwrap();
        assert_eq!(
            sprite.texture_atlas.as_ref().unwrap().index,
            art::frame_index(Facing::Right, 0),
            "stands still on arrival, facing the way it came"
        );
    }
}
