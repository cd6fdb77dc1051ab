//! Bubbles on screen: spawned from the lines due (speech white, a thought
//! pale blue with its 💭 and a dotted tail), then kept over their speakers
//! each frame, sized for the zoom and laid out by `layout`.

use bevy::prelude::*;
use bevy::text::{TextBounds, TextLayoutInfo};

use super::layout::{PER_PLACE, Want, bubble_zoom, estimated_size, layout};
use super::{
    ABOVE, Bubble, BubbleBack, BubbleTail, LineQueue, Standing, THOUGHT_ICON, ThoughtDot,
    ThoughtIcon, WIDTH, shorten, standing_at,
};
use crate::sim::clock::Clock;
use crate::sim::residents::{Census, Resident, Roster};
use crate::window::FONT;
use crate::window::map::PlaceLabel;
use crate::window::people::NameLabel;
use crate::window::select::Selection;

/// Speech: a white box, dark text.
const SPEECH_BACK: Color = Color::srgba(1.0, 1.0, 1.0, 0.92);
/// A thought: pale blue, softer text.
const THOUGHT_BACK: Color = Color::srgba(0.86, 0.91, 1.0, 0.92);
const THOUGHT_TEXT: Color = Color::srgb(0.22, 0.28, 0.42);

#[allow(clippy::too_many_arguments)]
pub(super) fn spawn_bubbles(
    mut commands: Commands,
    mut queue: ResMut<LineQueue>,
    roster: Res<Roster>,
    clock: Res<Clock>,
    existing: Query<(Entity, &Bubble, &Text2d)>,
    places: Query<Standing, With<Resident>>,
    time: Res<Time<Real>>,
    assets: Res<AssetServer>,
) {
    if queue.due.is_empty() {
        return;
    }
    let latest = std::mem::take(&mut queue.due);
    let font: Handle<Font> = assets.load(FONT);
    let mut thoughts_up: Vec<String> = existing
        .iter()
        .filter(|(_, b, _)| b.thought() && b.ending.is_none())
        .map(|(_, _, t)| t.0.clone())
        .collect();
    for (resident, text, conversation) in latest {
        let Some(speaker) = roster.entity(&resident) else {
            continue;
        };
        let text = shorten(&text);
        // Six people heading home with the same words: one thought shows.
        if conversation.is_none() && thoughts_up.contains(&text) {
            continue;
        }
        // One bubble per speaker, and one line per conversation on screen:
        // the talk reads line by line, its speakers' bubbles never overlap.
        for (entity, old, _) in &existing {
            let same_talk = conversation.is_some() && old.conversation == conversation;
            if old.speaker == speaker || same_talk {
                // Two lines this frame may both replace it: despawn once.
                commands.entity(entity).try_despawn();
            }
        }
        let bubble = Bubble {
            speaker,
            resident,
            conversation,
            born: time.elapsed_secs(),
            half: Vec2::new(WIDTH / 2.0, 12.0),
            said: clock.now,
            place: places.get(speaker).ok().and_then(standing_at),
            ending: None,
        };
        if bubble.thought() {
            thoughts_up.push(text.clone());
        }
        spawn_one(&mut commands, bubble, text, font.clone(), &assets);
    }
}

fn spawn_one(
    commands: &mut Commands,
    bubble: Bubble,
    text: String,
    font: Handle<Font>,
    assets: &AssetServer,
) {
    let thought = bubble.thought();
    let (back, ink) = if thought {
        (THOUGHT_BACK, THOUGHT_TEXT)
    } else {
        (SPEECH_BACK, Color::srgb(0.1, 0.1, 0.12))
    };
    let mut entity = commands.spawn((
        bubble,
        Text2d::new(text),
        TextFont {
            font: font.into(),
            font_size: FontSize::Px(14.0),
            ..default()
        },
        TextColor(ink),
        TextBounds::new_horizontal(WIDTH),
        // Centred in its bounds, as its box is: a short line sits in the
        // middle of the box, not at the left of the bounds.
        TextLayout::justify(bevy::text::Justify::Center),
        Transform::from_xyz(0.0, 0.0, 40.0),
    ));
    entity.with_children(|c| {
        c.spawn((
            BubbleBack,
            Sprite::from_color(back, Vec2::new(WIDTH, 24.0)),
            Transform::from_xyz(0.0, 0.0, -0.1),
        ));
        if !thought {
            c.spawn((
                BubbleTail,
                Sprite::from_color(Color::srgba(0.2, 0.18, 0.16, 0.8), Vec2::new(3.0, 6.0)),
                Transform::from_xyz(0.0, -12.0, -0.2),
            ));
            return;
        }
        for k in 0..2u8 {
            let side = if k == 0 { 7.0 } else { 4.0 };
            c.spawn((
                ThoughtDot(k),
                Sprite::from_color(back, Vec2::splat(side)),
                Transform::from_xyz(0.0, -14.0, -0.2),
            ));
        }
        c.spawn((
            ThoughtIcon,
            Sprite {
                image: assets.load(THOUGHT_ICON),
                custom_size: Some(Vec2::splat(16.0)),
                ..default()
            },
            Transform::from_xyz(0.0, 0.0, 0.1),
        ));
    });
}

/// A bubble's parts as `place_bubbles` sizes them.
type BubblePart<'a> = (
    &'a mut Sprite,
    &'a mut Transform,
    Option<&'a ThoughtDot>,
    Has<BubbleTail>,
    Has<ThoughtIcon>,
);
/// Children of bubbles only (not the residents' labels and icons).
type BubblePartOnly = (
    With<ChildOf>,
    Without<Bubble>,
    Without<Resident>,
    Without<PlaceLabel>,
);

/// A bubble as `place_bubbles` moves it: its box, where, whether shown,
/// and its text (laid out or not yet).
type Placed<'a> = (
    Entity,
    &'a mut Bubble,
    &'a mut Transform,
    &'a mut Visibility,
    (Option<&'a TextLayoutInfo>, &'a Text2d),
);

/// What `place_bubbles` reads of a speaker.
type SpeakerView<'a> = (&'a Transform, Standing<'a>, &'a Resident);

/// A resident's name as last drawn.
type ShownName<'a> = (&'a GlobalTransform, &'a TextLayoutInfo, &'a ViewVisibility);

/// A place's name as drawn (its centre and laid-out text).
type LabelView<'a> = (&'a PlaceLabel, &'a Transform, Option<&'a TextLayoutInfo>);

/// Where a bubble stands and how big its box is this frame.
struct Shape {
    centre: Vec2,
    head: Vec2,
    half: Vec2,
    zoom: f32,
}

/// Keeps each bubble over its speaker, its box fitted to the laid-out text
/// and sized for the zoom, a few per place, none over another, a resident's
/// name or the name of an occupied place (see [`layout`]); the selected
/// resident's on
/// top. A tail (or a thought's dots) runs down to the speaker's head.
#[allow(clippy::too_many_arguments)]
pub(super) fn place_bubbles(
    mut bubbles: Query<Placed, Without<PlaceLabel>>,
    speakers: Query<SpeakerView, Without<Bubble>>,
    labels: Query<LabelView, (Without<Bubble>, Without<Resident>)>,
    census: Res<Census>,
    camera: Query<&Projection, With<Camera2d>>,
    selection: Option<Res<Selection>>,
    mut parts: Query<BubblePart, BubblePartOnly>,
    children: Query<&Children, With<Bubble>>,
    names: Query<ShownName, With<NameLabel>>,
) {
    let zoom = camera.iter().next().map_or(1.0, bubble_zoom);
    let mut entities = Vec::new();
    let mut wants = Vec::new();
    for (entity, mut bubble, _, _, (text, line)) in &mut bubbles {
        let Ok((speaker, at, r)) = speakers.get(bubble.speaker) else {
            continue;
        };
        // The laid-out size when there is one: a bubble that was hidden
        // (too many at its place) may not be laid out yet when shown.
        let size = text
            .map(|l| l.size)
            .filter(|s| s.x >= 1.0)
            .unwrap_or_else(|| estimated_size(&line.0))
            .max(Vec2::new(20.0, 16.0));
        // Room for the 💭 at a thought's left.
        let icon = if bubble.thought() { 18.0 } else { 0.0 };
        bubble.half = (size + Vec2::new(icon, 0.0)) / 2.0 + Vec2::splat(6.0);
        let selected = selection
            .as_ref()
            .is_some_and(|s| s.resident.as_ref() == Some(&r.id));
        entities.push(entity);
        wants.push(Want {
            head: speaker.translation.truncate() + Vec2::Y * ABOVE,
            half: bubble.half * zoom,
            place: standing_at(at),
            rank: (!selected, bubble.thought(), -bubble.born),
        });
    }
    let mut keep_clear = occupied_labels(&labels, &census);
    // Residents' names too (where they were drawn last frame): a bubble
    // over a crowd does not hide who is in it.
    keep_clear.extend(
        names
            .iter()
            .filter(|(.., shown)| shown.get())
            .map(|(at, info, _)| (at.translation().truncate(), info.size / 2.0)),
    );
    let placed = layout(&wants, PER_PLACE, &keep_clear);
    for ((entity, want), at) in entities.into_iter().zip(&wants).zip(placed) {
        let Ok((_, bubble, mut transform, mut vis, _)) = bubbles.get_mut(entity) else {
            continue;
        };
        let Some(centre) = at else {
            *vis = Visibility::Hidden;
            continue;
        };
        *vis = Visibility::Inherited;
        // The selected resident's bubble is drawn over the others.
        let depth = if want.rank.0 {
            40.0 - centre.y * 0.0001
        } else {
            45.0
        };
        transform.translation = centre.extend(depth);
        transform.scale = Vec3::splat(zoom);
        let shape = Shape {
            centre,
            head: want.head,
            half: bubble.half,
            zoom,
        };
        if let Ok(kids) = children.get(entity) {
            for kid in kids.iter() {
                if let Ok(part) = parts.get_mut(kid) {
                    fit_part(part, &shape);
                }
            }
        }
    }
}

/// The names of places where someone is, as boxes bubbles keep off.
fn occupied_labels(
    labels: &Query<LabelView, (Without<Bubble>, Without<Resident>)>,
    census: &Census,
) -> Vec<(Vec2, Vec2)> {
    labels
        .iter()
        .filter(|(l, ..)| census.at_place.get(l.0.i()).is_some_and(|v| !v.is_empty()))
        .filter_map(|(_, t, info)| {
            let size = info.map(|i| i.size).filter(|s| s.x >= 1.0)?;
            Some((t.translation.truncate(), size / 2.0 + Vec2::splat(2.0)))
        })
        .collect()
}

/// Sizes and places one part of a bubble, in the bubble's own (unzoomed)
/// units: the box, the tail down to the head, a thought's dots along that
/// line, the 💭 at the box's left.
fn fit_part(
    (mut sprite, mut t, dot, tail, icon): (
        Mut<Sprite>,
        Mut<Transform>,
        Option<&ThoughtDot>,
        bool,
        bool,
    ),
    s: &Shape,
) {
    let drop = ((s.centre.y - s.head.y) / s.zoom - s.half.y).max(0.0) + 6.0;
    let x = ((s.head.x - s.centre.x) / s.zoom).clamp(-s.half.x, s.half.x);
    if tail {
        sprite.custom_size = Some(Vec2::new(3.0, drop));
        t.translation = Vec3::new(x, -s.half.y - drop / 2.0 + 1.0, -0.2);
    } else if let Some(ThoughtDot(k)) = dot {
        let along = if *k == 0 { 0.3 } else { 0.7 };
        t.translation = Vec3::new(x * along, -s.half.y - drop * along, -0.2);
    } else if icon {
        t.translation = Vec3::new(-s.half.x + 13.0, 0.0, 0.1);
    } else {
        sprite.custom_size = Some(s.half * 2.0);
    }
}
