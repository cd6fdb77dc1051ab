//! Chat bubbles: each line a resident says (in a conversation, or the line
//! that comes with a plan) shows over its head for five seconds, then fades.
//! One bubble per resident: a new line replaces the old. A conversation's
//! lines queue and appear one after another, each held long enough to read
//! (at least three seconds) and replacing the line before (so the speakers'
//! bubbles never overlap), however many the simulation said in one frame;
//! a queue that falls far behind (high speed) skips to its newest lines, all
//! of which are in the event stream. Clicking a bubble opens the speaker in
//! the inspector with the whole conversation.

use std::collections::{BTreeMap, VecDeque};

use bevy::prelude::*;
use bevy::text::{TextBounds, TextLayoutInfo};

use super::select::Selection;
use super::{FONT, ViewSet};
use crate::scenario::{LocIdx, ResidentId};
use crate::sim::event_log::{EventBody, SimEvent};
use crate::sim::residents::{Resident, Roster, Whereabouts};

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<LineQueue>().add_systems(
        Update,
        (
            (queue_lines, release_lines, spawn_bubbles)
                .chain()
                .in_set(ViewSet::Sync),
            (place_bubbles, fade_bubbles)
                .chain()
                .in_set(ViewSet::Present),
        ),
    );
}

/// Real seconds a bubble stays fully shown, then fades over `FADE`.
pub(crate) const SHOW: f32 = 5.0;
/// A conversation's next line waits at least this long after the one before…
pub(crate) const HOLD: f32 = 3.0;
/// …or as long as the line takes to read at this many characters a second.
const READ_CHARS_PER_SECOND: f32 = 8.0;
/// A conversation's queue keeps at most this many lines not yet shown.
const BACKLOG: usize = 4;
pub(crate) const FADE: f32 = 0.8;
/// Wrap width of a bubble's text, in world units.
const WIDTH: f32 = 190.0;
/// Longer lines are cut (the inspector has the whole text).
const MAX_CHARS: usize = 60;
/// Height above the speaker's feet.
const ABOVE: f32 = 52.0;

/// A line over a resident's head.
#[derive(Component, Debug)]
pub(crate) struct Bubble {
    pub(crate) speaker: Entity,
    pub(crate) resident: ResidentId,
    /// The conversation it belongs to (`None`: a plan's line).
    pub(crate) conversation: Option<u64>,
    /// `Time<Real>` elapsed seconds when shown.
    pub(crate) born: f32,
    /// Half the size of its box, for clicks.
    pub(crate) half: Vec2,
}

/// The box behind a bubble's text.
#[derive(Component)]
pub(crate) struct BubbleBack;

/// The tail from a bubble down to its speaker.
#[derive(Component)]
pub(crate) struct BubbleTail;

/// How opaque a bubble of this age is; `None` once it is gone.
pub(crate) fn bubble_alpha(age: f32) -> Option<f32> {
    if age < SHOW {
        Some(1.0)
    } else if age < SHOW + FADE {
        Some(1.0 - (age - SHOW) / FADE)
    } else {
        None
    }
}

fn shorten(text: &str) -> String {
    if text.chars().count() <= MAX_CHARS {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(MAX_CHARS - 1).collect();
        s.push('…');
        s
    }
}

/// A line waiting for its bubble.
type Line = (ResidentId, String, Option<u64>);

/// Lines not yet shown, by conversation, and when each conversation last
/// showed one; plan lines, which nobody answers, go out at once.
#[derive(Resource, Debug, Default)]
pub(crate) struct LineQueue {
    talks: BTreeMap<u64, Talk>,
    /// Lines to show this frame.
    due: Vec<Line>,
}

#[derive(Debug, Default)]
struct Talk {
    pending: VecDeque<Line>,
    /// When the last line went up, and how long it is held.
    shown: Option<(f32, f32)>,
}

/// How long a line is held before the conversation's next one.
pub(crate) fn hold_for(text: &str) -> f32 {
    (text.chars().count() as f32 / READ_CHARS_PER_SECOND).clamp(HOLD, SHOW)
}

/// The frame's spoken lines join their conversation's queue.
fn queue_lines(mut events: MessageReader<SimEvent>, mut queue: ResMut<LineQueue>) {
    for e in events.read() {
        match &e.body {
            EventBody::Message {
                speaker,
                text,
                conversation,
                ..
            } => {
                let talk = queue.talks.entry(*conversation).or_default();
                talk.pending
                    .push_back((speaker.clone(), text.clone(), Some(*conversation)));
                // Far behind: the oldest unshown lines are skipped.
                while talk.pending.len() > BACKLOG {
                    talk.pending.pop_front();
                }
            }
            EventBody::Plan {
                resident, dialogue, ..
            } if !dialogue.trim().is_empty() => {
                let line = (resident.clone(), dialogue.clone(), None);
                queue.due.retain(|(r, _, _)| r != resident);
                queue.due.push(line);
            }
            _ => {}
        }
    }
}

/// Each conversation whose last line has been up long enough shows its next.
fn release_lines(time: Res<Time<Real>>, mut queue: ResMut<LineQueue>) {
    let now = time.elapsed_secs();
    let LineQueue { talks, due } = &mut *queue;
    talks.retain(|_, talk| {
        let ready = talk.shown.is_none_or(|(at, hold)| now - at >= hold);
        if ready && let Some(line) = talk.pending.pop_front() {
            talk.shown = Some((now, hold_for(&line.1)));
            due.retain(|(r, _, _)| *r != line.0);
            due.push(line);
        }
        // Forgotten once its last line has had its time.
        !talk.pending.is_empty() || talk.shown.is_some_and(|(at, _)| now - at < SHOW)
    });
}

fn spawn_bubbles(
    mut commands: Commands,
    mut queue: ResMut<LineQueue>,
    roster: Res<Roster>,
    existing: Query<(Entity, &Bubble)>,
    time: Res<Time<Real>>,
    assets: Res<AssetServer>,
) {
    if queue.due.is_empty() {
        return;
    }
    let latest = std::mem::take(&mut queue.due);
    let font: Handle<Font> = assets.load(FONT);
    for (resident, text, conversation) in latest {
        let Some(speaker) = roster.entity(&resident) else {
            continue;
        };
        // One bubble per speaker, and one line per conversation on screen:
        // the talk reads line by line, its speakers' bubbles never overlap.
        for (entity, old) in &existing {
            let same_talk = conversation.is_some() && old.conversation == conversation;
            if old.speaker == speaker || same_talk {
                // Two lines this frame may both replace it: despawn once.
                commands.entity(entity).try_despawn();
            }
        }
        let talk = conversation.is_some();
        commands
            .spawn((
                Bubble {
                    speaker,
                    resident,
                    conversation,
                    born: time.elapsed_secs(),
                    half: Vec2::new(WIDTH / 2.0, 12.0),
                },
                Text2d::new(shorten(&text)),
                TextFont {
                    font: font.clone().into(),
                    font_size: FontSize::Px(14.0),
                    ..default()
                },
                TextColor(Color::srgb(0.1, 0.1, 0.12)),
                TextBounds::new_horizontal(WIDTH),
                // Centred in its bounds, as its box is: a short line sits
                // in the middle of the box, not at the left of the bounds.
                TextLayout::justify(bevy::text::Justify::Center),
                Transform::from_xyz(0.0, 0.0, 40.0),
            ))
            .with_children(|c| {
                c.spawn((
                    BubbleBack,
                    Sprite::from_color(
                        if talk {
                            Color::srgba(1.0, 1.0, 1.0, 0.92)
                        } else {
                            Color::srgba(1.0, 0.96, 0.82, 0.92)
                        },
                        Vec2::new(WIDTH, 24.0),
                    ),
                    Transform::from_xyz(0.0, 0.0, -0.1),
                ));
                c.spawn((
                    BubbleTail,
                    Sprite::from_color(Color::srgba(0.2, 0.18, 0.16, 0.8), Vec2::new(3.0, 6.0)),
                    Transform::from_xyz(0.0, -12.0, -0.2),
                ));
            });
    }
}

/// A bubble to place: where its speaker's head is, its box, and how much
/// it matters.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Want {
    /// The point over the speaker's head (world units).
    pub(crate) head: Vec2,
    /// Half the box's size (world units, zoom included).
    pub(crate) half: Vec2,
    /// The place the speaker is at (`None`: on the road).
    pub(crate) place: Option<LocIdx>,
    /// Lower goes first: the selected resident, then conversation lines,
    /// then the newest.
    pub(crate) rank: (bool, bool, f32),
}

/// Shown per place at once; the rest wait in the event stream.
pub(crate) const PER_PLACE: usize = 4;

/// Where each bubble goes (its centre), or `None` when its place already
/// shows `per_place` more important ones. Boxes start just over their
/// speaker and move up past any placed box they would cover, so none
/// overlaps another.
pub(crate) fn layout(wants: &[Want], per_place: usize) -> Vec<Option<Vec2>> {
    let mut order: Vec<usize> = (0..wants.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (wants[a].rank, wants[b].rank);
        (x.0, x.1).cmp(&(y.0, y.1)).then(x.2.total_cmp(&y.2))
    });
    let mut shown: std::collections::HashMap<Option<LocIdx>, usize> = Default::default();
    let mut kept = Vec::new();
    for i in order {
        let w = &wants[i];
        let n = shown.entry(w.place).or_default();
        // On the road, bubbles are few and far apart: no cap there.
        if w.place.is_some() && *n >= per_place {
            continue;
        }
        *n += 1;
        kept.push(i);
    }
    let boxes = kept
        .iter()
        .map(|&i| (wants[i].head + Vec2::Y * wants[i].half.y, wants[i].half))
        .collect();
    let mut out = vec![None; wants.len()];
    for (i, centre) in kept.into_iter().zip(stack(boxes)) {
        out[i] = Some(centre);
    }
    out
}

/// A bubble's box or tail, as `place_bubbles` sizes it.
type BubblePart<'a> = (&'a mut Sprite, &'a mut Transform, Has<BubbleTail>);
/// Children of bubbles only (not the residents' labels and icons).
type BubblePartOnly = (With<ChildOf>, Without<Bubble>, Without<Resident>);
/// What fades with a bubble.
type Faded = Or<(With<BubbleBack>, With<BubbleTail>)>;

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
type SpeakerView<'a> = (&'a Transform, Option<&'a Whereabouts>, &'a Resident);

/// Keeps each bubble over its speaker, its box fitted to the laid-out text
/// and sized for the zoom, a few per place, none over another (see
/// [`layout`]); the selected resident's on top. A tail runs down to the
/// speaker's head.
fn place_bubbles(
    mut bubbles: Query<Placed>,
    speakers: Query<SpeakerView, Without<Bubble>>,
    camera: Query<&Projection, With<Camera2d>>,
    selection: Option<Res<Selection>>,
    mut parts: Query<BubblePart, BubblePartOnly>,
    children: Query<&Children, With<Bubble>>,
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
        bubble.half = size / 2.0 + Vec2::splat(6.0);
        let selected = selection
            .as_ref()
            .is_some_and(|s| s.resident.as_ref() == Some(&r.id));
        entities.push(entity);
        wants.push(Want {
            head: speaker.translation.truncate() + Vec2::Y * ABOVE,
            half: bubble.half * zoom,
            place: at.map(|w| w.0),
            rank: (!selected, bubble.conversation.is_none(), -bubble.born),
        });
    }
    let placed = layout(&wants, PER_PLACE);
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
        let Ok(kids) = children.get(entity) else {
            continue;
        };
        for kid in kids.iter() {
            if let Ok((mut sprite, mut t, tail)) = parts.get_mut(kid) {
                if tail {
                    // From the box's bottom edge down to the head, in the
                    // bubble's own (unzoomed) units.
                    let drop = ((centre.y - want.head.y) / zoom - bubble.half.y).max(0.0) + 6.0;
                    let x = ((want.head.x - centre.x) / zoom).clamp(-bubble.half.x, bubble.half.x);
                    sprite.custom_size = Some(Vec2::new(3.0, drop));
                    t.translation = Vec3::new(x, -bubble.half.y - drop / 2.0 + 1.0, -0.2);
                } else {
                    sprite.custom_size = Some(bubble.half * 2.0);
                }
            }
        }
    }
}

/// The size a line takes at the bubbles' font (14 px: a CJK character is
/// square, a Latin letter about half), wrapped at `WIDTH`.
pub(crate) fn estimated_size(text: &str) -> Vec2 {
    let width: f32 = text
        .chars()
        .map(|c| if c.is_ascii() { 7.5 } else { 14.0 })
        .sum();
    let lines = (width / WIDTH).ceil().max(1.0);
    Vec2::new(width.min(WIDTH), lines * 18.0)
}

/// How much bubbles grow as the camera zooms out (so they stay readable)
/// and shrink as it zooms in (so they do not bury the figures).
pub(crate) fn bubble_zoom(projection: &Projection) -> f32 {
    match projection {
        Projection::Orthographic(o) => o.scale.clamp(0.6, 1.8),
        _ => 1.0,
    }
}

/// Gap between stacked bubbles, in world units.
const STACK_GAP: f32 = 4.0;

/// Boxes (centre, half size) in priority order, each moved up just above any
/// earlier one it would cover; the centres where they end up.
pub(crate) fn stack(boxes: Vec<(Vec2, Vec2)>) -> Vec<Vec2> {
    let mut done: Vec<(Vec2, Vec2)> = Vec::with_capacity(boxes.len());
    for (mut c, half) in boxes {
        // Each move clears one box; at most as many moves as boxes placed.
        for _ in 0..=done.len() {
            let Some(top) = done
                .iter()
                .filter(|(d, h)| {
                    (c.x - d.x).abs() < half.x + h.x && (c.y - d.y).abs() < half.y + h.y
                })
                .map(|(d, h)| d.y + h.y)
                .reduce(f32::max)
            else {
                break;
            };
            c.y = top + half.y + STACK_GAP;
        }
        done.push((c, half));
    }
    done.into_iter().map(|(c, _)| c).collect()
}

/// Fades bubbles at the end of their time and removes them.
fn fade_bubbles(
    mut commands: Commands,
    time: Res<Time<Real>>,
    mut bubbles: Query<(Entity, &Bubble, &mut TextColor, &Children)>,
    mut parts: Query<(&mut Sprite, Has<BubbleTail>), Faded>,
) {
    let now = time.elapsed_secs();
    for (entity, bubble, mut colour, children) in &mut bubbles {
        match bubble_alpha(now - bubble.born) {
            Some(alpha) => {
                colour.0.set_alpha(alpha);
                for child in children.iter() {
                    if let Ok((mut part, tail)) = parts.get_mut(child) {
                        part.color.set_alpha(alpha * if tail { 0.8 } else { 0.92 });
                    }
                }
            }
            None => commands.entity(entity).despawn(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::testing::view_app;
    use bevy::time::TimeUpdateStrategy;
    use std::time::Duration;

    #[test]
    fn alpha_holds_for_five_seconds_then_fades_out() {
        assert_eq!(bubble_alpha(0.0), Some(1.0));
        assert_eq!(bubble_alpha(4.99), Some(1.0));
        let mid = bubble_alpha(SHOW + FADE / 2.0).unwrap();
        assert!((mid - 0.5).abs() < 1e-4);
        assert!(bubble_alpha(SHOW + 0.1).unwrap() > bubble_alpha(SHOW + 0.5).unwrap());
        assert_eq!(bubble_alpha(SHOW + FADE), None);
        assert_eq!(shorten("短"), "短");
        assert_eq!(shorten(&"字".repeat(100)).chars().count(), MAX_CHARS);
    }

    /// A spoken line gets a bubble over its speaker, which fades after five
    /// seconds and is gone by six; a newer line replaces it.
    #[test]
    fn bubbles_live_five_seconds_fade_and_are_replaced() {
        let mut app = view_app();
        app.add_plugins(plugin);
        app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
            100,
        )));
        app.world_mut()
            .resource_mut::<crate::sim::clock::SimSpeed>()
            .paused = true;
        app.update();
        let roster = app.world().resource::<Roster>().clone();
        let (a, b) = (roster.ids()[0].clone(), roster.ids()[1].clone());
        let say = |app: &mut App, text: &str| {
            let time = app.world().resource::<crate::sim::clock::Clock>().now;
            app.world_mut().write_message(SimEvent {
                time,
                body: EventBody::Message {
                    conversation: 1,
                    participants: vec![a.clone(), b.clone()],
                    location: crate::scenario::LocationId("square".into()),
                    speaker: a.clone(),
                    text: text.into(),
                    emotion: crate::sim::social::Emotion::Happy,
                    mentions: vec![],
                },
            });
        };
        let bubbles = |app: &mut App| -> Vec<(String, f32)> {
            let world = app.world_mut();
            let mut q = world.query::<(&Bubble, &Text2d, &TextColor)>();
            q.iter(world)
                .map(|(_, t, c)| (t.0.clone(), c.0.alpha()))
                .collect()
        };
        say(&mut app, "早上好！");
        app.update();
        assert_eq!(bubbles(&mut app), vec![("早上好！".to_string(), 1.0)]);
        let speaker = app
            .world_mut()
            .query::<&Bubble>()
            .single(app.world())
            .unwrap()
            .speaker;
        assert_eq!(speaker, roster.entities()[0]);
        // 4.5 s later: still fully there.
        for _ in 0..45 {
            app.update();
        }
        assert_eq!(bubbles(&mut app)[0].1, 1.0);
        // Into the fade.
        for _ in 0..8 {
            app.update();
        }
        let alpha = bubbles(&mut app)[0].1;
        assert!(alpha < 1.0 && alpha > 0.0, "fading: {alpha}");
        for _ in 0..6 {
            app.update();
        }
        assert!(bubbles(&mut app).is_empty(), "gone after the fade");
        // Lines said at once appear one after another, each held three
        // seconds; a speaker's new line replaces its old one.
        say(&mut app, "一");
        say(&mut app, "二");
        app.update();
        assert_eq!(bubbles(&mut app), vec![("一".to_string(), 1.0)]);
        for _ in 0..28 {
            app.update();
        }
        assert_eq!(bubbles(&mut app), vec![("一".to_string(), 1.0)], "held");
        for _ in 0..3 {
            app.update();
        }
        assert_eq!(bubbles(&mut app), vec![("二".to_string(), 1.0)]);
    }

    #[test]
    fn overlapping_bubbles_stack_upwards_in_priority_order() {
        let half = Vec2::new(50.0, 10.0);
        let at = |x: f32, y: f32| (Vec2::new(x, y), half);
        let placed = stack(vec![
            at(0.0, 0.0),
            at(10.0, 5.0),
            at(300.0, 0.0),
            at(0.0, 2.0),
        ]);
        assert_eq!(placed[0], Vec2::new(0.0, 0.0), "the first keeps its place");
        assert_eq!(placed[1], Vec2::new(10.0, 24.0), "moved above the first");
        assert_eq!(placed[2], Vec2::new(300.0, 0.0), "far away: untouched");
        assert_eq!(placed[3], Vec2::new(0.0, 48.0), "above both");
        for (i, a) in placed.iter().enumerate() {
            for b in &placed[i + 1..] {
                let apart = (a.x - b.x).abs() >= 100.0 || (a.y - b.y).abs() >= 20.0;
                assert!(apart, "{a} and {b} overlap");
            }
        }
    }

    /// Crowds of 2 to 30 speakers at one place, and a few on the road:
    /// no two shown bubbles overlap, a place shows at most `PER_PLACE`, and
    /// the selected resident's is always among them.
    #[test]
    fn crowded_places_show_a_few_bubbles_none_over_another() {
        let overlap = |a: (Vec2, Vec2), b: (Vec2, Vec2)| {
            (a.0.x - b.0.x).abs() < a.1.x + b.1.x - 0.01
                && (a.0.y - b.0.y).abs() < a.1.y + b.1.y - 0.01
        };
        for n in 2..=30usize {
            for per_place in [PER_PLACE, usize::MAX] {
                let wants: Vec<Want> = (0..n)
                    .map(|k| {
                        let h = (k as u32).wrapping_mul(2_654_435_761);
                        let jitter =
                            Vec2::new((h % 120) as f32 - 60.0, ((h >> 8) % 80) as f32 - 40.0);
                        Want {
                            head: Vec2::new(100.0, 50.0) + jitter,
                            half: Vec2::new(
                                60.0 + (k % 3) as f32 * 20.0,
                                12.0 + (k % 2) as f32 * 10.0,
                            ),
                            place: (k % 7 != 6).then_some(LocIdx(0)),
                            rank: (k != n / 2, k % 2 == 0, -(k as f32)),
                        }
                    })
                    .collect();
                let placed = layout(&wants, per_place);
                let shown: Vec<(usize, Vec2)> = placed
                    .iter()
                    .enumerate()
                    .filter_map(|(i, p)| p.map(|c| (i, c)))
                    .collect();
                for (x, &(i, a)) in shown.iter().enumerate() {
                    // Never below its speaker's head: the tail points down.
                    assert!(a.y - wants[i].half.y >= wants[i].head.y - 0.01);
                    for &(j, b) in &shown[x + 1..] {
                        assert!(
                            !overlap((a, wants[i].half), (b, wants[j].half)),
                            "{n}: {i} and {j}"
                        );
                    }
                }
                let at_place = shown
                    .iter()
                    .filter(|(i, _)| wants[*i].place.is_some())
                    .count();
                assert!(at_place <= per_place, "{n}: {at_place} at one place");
                assert!(
                    placed[n / 2].is_some(),
                    "{n}: the selected resident's is hidden"
                );
                if per_place == usize::MAX {
                    assert_eq!(shown.len(), n, "nothing hidden without a cap");
                }
            }
        }
    }

    #[test]
    fn a_line_not_yet_laid_out_gets_a_box_that_fits_it() {
        assert_eq!(estimated_size("好"), Vec2::new(14.0, 18.0));
        let long = estimated_size(&"字".repeat(30));
        assert_eq!(
            long,
            Vec2::new(WIDTH, 3.0 * 18.0),
            "420 px wraps to three lines"
        );
    }

    #[test]
    fn reading_time_grows_with_the_line_within_limits() {
        assert_eq!(hold_for("好"), HOLD);
        let long = "字".repeat(36);
        assert!((hold_for(&long) - 4.5).abs() < 1e-4);
        assert_eq!(hold_for(&"字".repeat(200)), SHOW);
    }
}
