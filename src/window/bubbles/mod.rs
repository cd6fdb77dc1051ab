//! Bubbles over residents' heads. A line said in a conversation shows as
//! speech while it is being said, plus a short read time: at most five
//! seconds, never past 15 game minutes, never after its talk has ended or its
//! speaker has left the place. The line that comes with a plan is what the
//! resident thinks, drawn as a thought (pale, a 💭 icon, a dotted tail), and
//! the same thought is never up twice at once. One bubble per resident, at
//! most two per place (the rest are in the feed), none over another, over a
//! resident's name or over the name of a place where people are (see
//! `layout`). Clicking a bubble
//! opens the speaker in the inspector with the whole conversation.

mod draw;
mod layout;
mod queue;

use bevy::prelude::*;

use self::draw::{place_bubbles, spawn_bubbles};
pub(crate) use self::queue::LineQueue;
use self::queue::{queue_lines, release_lines};
use super::ViewSet;
use crate::base::time::GameTime;
use crate::scenario::{LocIdx, ResidentId};
use crate::sim::clock::Clock;
use crate::sim::residents::{Resident, Walking, Whereabouts};

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
pub(crate) const FADE: f32 = 0.8;
/// Real seconds a talk's last line stays up after the talk has ended.
const AFTER_TALK: f32 = 1.0;
/// Game minutes after which a line starts to fade whatever the speed…
const STALE_MINUTES: i64 = 12;
/// …and after which it is gone (a line from 07:55 is not up at 08:15).
pub(crate) const MAX_MINUTES: i64 = 15;
/// Wrap width of a bubble's text, in world units.
const WIDTH: f32 = 190.0;
/// Longer lines are cut (the inspector has the whole text).
const MAX_CHARS: usize = 60;
/// Height above the speaker's feet.
const ABOVE: f32 = 52.0;
/// The thought icon (💭), under `assets/`.
const THOUGHT_ICON: &str = "emoji/1f4ad.png";

/// A line over a resident's head.
#[derive(Component, Debug, Clone)]
pub(crate) struct Bubble {
    pub(crate) speaker: Entity,
    pub(crate) resident: ResidentId,
    /// The conversation it belongs to (`None`: a plan's line).
    pub(crate) conversation: Option<u64>,
    /// `Time<Real>` elapsed seconds when shown.
    pub(crate) born: f32,
    /// Half the size of its box, for clicks.
    pub(crate) half: Vec2,
    /// The game time it went up.
    pub(crate) said: GameTime,
    /// Where its speaker was then (`None`: on the road).
    pub(crate) place: Option<LocIdx>,
    /// Real seconds from which it fades early (its talk ended, its speaker
    /// left, or it is stale in game time).
    pub(crate) ending: Option<f32>,
}

impl Bubble {
    /// A plan's line: what the resident thinks, not what it says.
    pub(crate) fn thought(&self) -> bool {
        self.conversation.is_none()
    }

    /// Game minutes since it went up.
    pub(crate) fn age_minutes(&self, now: GameTime) -> i64 {
        self.said.minutes_until(now)
    }

    /// Whether it should start fading now: stale in game time, its talk
    /// over, or (a spoken line) its speaker gone from where it said it; a
    /// thought may go along with its thinker on the road, but not arrive.
    pub(crate) fn over(&self, now: GameTime, speaker_at: Option<LocIdx>, talk_ended: bool) -> bool {
        let moved = if self.thought() {
            speaker_at.is_some() && speaker_at != self.place
        } else {
            speaker_at != self.place
        };
        self.age_minutes(now) >= STALE_MINUTES || talk_ended || moved
    }
}

/// What tells where a resident stands.
pub(crate) type Standing<'a> = (Option<&'a Whereabouts>, Has<Walking>);

/// The place a resident stands at; `None` on the road.
pub(crate) fn standing_at((at, walking): (Option<&Whereabouts>, bool)) -> Option<LocIdx> {
    at.filter(|_| !walking).map(|w| w.0)
}

/// The two dots of a thought's tail (0 the bigger, near the box).
#[derive(Component)]
pub(crate) struct ThoughtDot(u8);

/// The 💭 at a thought's left.
#[derive(Component)]
pub(crate) struct ThoughtIcon;

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

/// What fades with a bubble: its box, tail, dots and icon.
type Faded = Or<(
    With<BubbleBack>,
    With<BubbleTail>,
    With<ThoughtDot>,
    With<ThoughtIcon>,
)>;

/// How opaque a bubble is now; `None` once it is gone: its own time, or an
/// early end, whichever comes first, and never past `MAX_MINUTES` of game
/// time.
pub(crate) fn alpha_now(bubble: &Bubble, now: f32, game_now: GameTime) -> Option<f32> {
    if bubble.age_minutes(game_now) >= MAX_MINUTES {
        return None;
    }
    let own = bubble_alpha(now - bubble.born)?;
    match bubble.ending {
        Some(from) if now >= from => {
            let left = 1.0 - (now - from) / FADE;
            (left > 0.0).then_some(own.min(left))
        }
        _ => Some(own),
    }
}

/// Fades bubbles at the end of their time (or early: see [`Bubble::over`])
/// and removes them.
fn fade_bubbles(
    mut commands: Commands,
    time: Res<Time<Real>>,
    clock: Res<Clock>,
    mut queue: ResMut<LineQueue>,
    mut bubbles: Query<(Entity, &mut Bubble, &mut TextColor, &Children)>,
    speakers: Query<Standing, With<Resident>>,
    mut parts: Query<(&mut Sprite, Has<BubbleTail>), Faded>,
) {
    let now = time.elapsed_secs();
    let ended = std::mem::take(&mut queue.ended);
    for (entity, mut bubble, mut colour, children) in &mut bubbles {
        let at = speakers.get(bubble.speaker).ok().and_then(standing_at);
        let talk_ended = bubble.conversation.is_some_and(|c| ended.contains(&c));
        if bubble.ending.is_none() && bubble.over(clock.now, at, talk_ended) {
            // A talk's last line is left a moment to be read.
            bubble.ending = Some(if talk_ended { now + AFTER_TALK } else { now });
        }
        let Some(alpha) = alpha_now(&bubble, now, clock.now) else {
            commands.entity(entity).despawn();
            continue;
        };
        let dim = if bubble.thought() { 0.75 } else { 1.0 };
        colour.0.set_alpha(alpha * dim);
        for child in children.iter() {
            if let Ok((mut part, tail)) = parts.get_mut(child) {
                part.color
                    .set_alpha(alpha * dim * if tail { 0.8 } else { 0.92 });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::event_log::{EventBody, SimEvent};
    use crate::sim::residents::Roster;
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
                    location: crate::scenario::LocationId::new("square"),
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

    fn said_at(conversation: Option<u64>, place: Option<LocIdx>) -> Bubble {
        Bubble {
            speaker: Entity::PLACEHOLDER,
            resident: ResidentId::new("a"),
            conversation,
            born: 0.0,
            half: Vec2::ONE,
            said: GameTime::parse("2026-04-06 07:55").unwrap(),
            place,
            ending: None,
        }
    }

    /// A line lasts while it is being said: not past 15 game minutes at any
    /// speed, not after its speaker has walked off or its talk has ended;
    /// a thought may go along on the road but ends where its thinker arrives.
    #[test]
    fn a_bubble_ends_with_its_moment() {
        let at = |hm: &str| GameTime::parse(&format!("2026-04-06 {hm}")).unwrap();
        let (here, there) = (Some(LocIdx(1)), Some(LocIdx(2)));
        let line = said_at(Some(3), here);
        assert!(!line.over(at("08:00"), here, false));
        assert!(line.over(at("08:07"), here, false), "stale in game time");
        assert!(
            line.over(at("07:56"), None, false),
            "the speaker walked off"
        );
        assert!(line.over(at("07:56"), there, false));
        assert!(line.over(at("07:56"), here, true), "the talk ended");
        let thought = said_at(None, here);
        assert!(
            !thought.over(at("07:58"), None, false),
            "on the road: still up"
        );
        assert!(thought.over(at("07:58"), there, false), "arrived elsewhere");
        // However slow the real clock, 15 game minutes end it outright.
        assert!(alpha_now(&line, 0.5, at("08:05")).is_some());
        assert_eq!(alpha_now(&line, 0.5, at("08:10")), None);
        // An early end fades over `FADE` from its moment.
        let mut ending = line.clone();
        ending.ending = Some(1.0);
        assert_eq!(alpha_now(&ending, 0.9, at("07:56")), Some(1.0));
        assert!(alpha_now(&ending, 1.4, at("07:56")).unwrap() < 1.0);
        assert_eq!(alpha_now(&ending, 1.01 + FADE, at("07:56")), None);
    }

    /// Plans heard at once: each thinker's thought is a thought bubble, and
    /// the same words are up only once.
    #[test]
    fn the_same_thought_is_shown_once() {
        let mut app = view_app();
        app.add_plugins(plugin);
        app.world_mut()
            .resource_mut::<crate::sim::clock::SimSpeed>()
            .paused = true;
        app.update();
        let roster = app.world().resource::<Roster>().clone();
        let time = app.world().resource::<Clock>().now;
        for (k, id) in roster.ids().iter().take(4).enumerate() {
            let words = if k < 3 {
                "回家歇会儿，泡杯茶。"
            } else {
                "去广场转转。"
            };
            app.world_mut().write_message(SimEvent {
                time,
                body: EventBody::Plan {
                    resident: id.clone(),
                    action: "Rest".into(),
                    activity: crate::sim::residents::ActivityKind::Leisure,
                    target_location: crate::scenario::LocationId::new("square"),
                    dialogue: words.into(),
                    emoji: String::new(),
                    duration: 30,
                    from: crate::scenario::LocationId::new("square"),
                },
            });
        }
        app.update();
        let world = app.world_mut();
        let mut q = world.query::<(&Bubble, &Text2d)>();
        let mut up: Vec<(bool, String)> = q
            .iter(world)
            .map(|(b, t)| (b.thought(), t.0.clone()))
            .collect();
        up.sort();
        assert_eq!(
            up,
            vec![
                (true, "去广场转转。".to_string()),
                (true, "回家歇会儿，泡杯茶。".to_string())
            ]
        );
    }
}
