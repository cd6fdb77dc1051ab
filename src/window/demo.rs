//! Demo mode (`--demo`, or M): a director camera for a town left running
//! unattended. It watches the events for scenes worth seeing — an argument,
//! a date, a gathering, a notice going up, a conversation starting — glides
//! to the best fresh one, shows a caption, stays a while and moves on;
//! with nothing new it visits residents in turn. Panels are hidden while it
//! runs and come back when it stops. It keeps no more than a few dozen
//! scenes, so it can run for hours.

use std::collections::VecDeque;

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use super::ViewSet;
use super::panels::Panels;
use super::select::{CameraGoal, Selection, UiWantsInput};
use crate::scenario::LocIdx;
use crate::scenario::{LocationId, ResidentId, Town};
use crate::sim::event_log::{EventBody, SimEvent};
use crate::sim::residents::{Activity, ActivityKind, Roster, Walking, Whereabouts};
use crate::sim::social::Emotion;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Director>()
        .add_systems(Update, demo_key.in_set(ViewSet::Input))
        .add_systems(Update, (spot_scenes, direct).chain().in_set(ViewSet::Sync))
        .add_systems(EguiPrimaryContextPass, caption);
}

/// A shot stays at least this long (real seconds) before a better scene
/// may cut in…
const DWELL_MIN: f32 = 8.0;
/// …and at most this long.
const DWELL_MAX: f32 = 16.0;
/// A scene not shown within this long is stale.
const FRESH: f32 = 30.0;
/// The same resident or place is not shown again within this long.
const COOLDOWN: f32 = 45.0;
/// Scenes kept waiting, newest last.
const PENDING: usize = 32;

/// What the camera looks at.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Focus {
    /// Follow a resident.
    Resident(ResidentId),
    /// Look at a place.
    Place(LocationId),
}

/// Why a scene is worth seeing, most interesting first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum SceneKind {
    Argument,
    Date,
    Gathering,
    Notice,
    Conversation,
    /// Nothing new: a visit to someone.
    Visit,
}

/// Something happening that the camera could show.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Scene {
    pub(crate) kind: SceneKind,
    pub(crate) focus: Focus,
    pub(crate) caption: String,
    /// Where it happens, when it happens at a place: the caption is shown
    /// while the followed resident is still there (see [`live_caption`]).
    pub(crate) place: Option<LocationId>,
    /// Real seconds when it was seen.
    pub(crate) seen: f32,
}

/// The director: on or off, the scenes waiting, the shot on screen, and
/// what was shown lately.
#[derive(Resource, Debug, Default)]
pub(crate) struct Director {
    pub(crate) on: bool,
    /// The panels as they were before the demo hid them.
    saved: Option<Panels>,
    pending: VecDeque<Scene>,
    pub(crate) shot: Option<(Scene, f32)>,
    recent: VecDeque<(Focus, f32)>,
    /// The next resident to visit when nothing happens.
    visit: usize,
}

impl Director {
    /// Starts or stops the demo, hiding the panels or giving them back.
    pub(crate) fn set(&mut self, on: bool, panels: &mut Panels) {
        if on == self.on {
            return;
        }
        self.on = on;
        if on {
            self.saved = Some(std::mem::replace(panels, Panels::none()));
        } else {
            *panels = self.saved.take().unwrap_or_default();
            self.shot = None;
        }
    }

    fn spot(&mut self, scene: Scene) {
        self.pending.retain(|s| s.focus != scene.focus);
        self.pending.push_back(scene);
        while self.pending.len() > PENDING {
            self.pending.pop_front();
        }
    }
}

/// The scene to show next: the most interesting fresh one whose resident or
/// place was not shown lately (the newest among equals); `None` if none.
pub(crate) fn choose(
    pending: &VecDeque<Scene>,
    recent: &VecDeque<(Focus, f32)>,
    now: f32,
) -> Option<usize> {
    let lately = |f: &Focus| recent.iter().any(|(r, t)| r == f && now - t < COOLDOWN);
    pending
        .iter()
        .enumerate()
        .filter(|(_, s)| now - s.seen <= FRESH && !lately(&s.focus))
        .min_by(|(_, a), (_, b)| a.kind.cmp(&b.kind).then(b.seen.total_cmp(&a.seen)))
        .map(|(i, _)| i)
}

fn demo_key(
    keys: Res<ButtonInput<KeyCode>>,
    ui: Res<UiWantsInput>,
    mut director: ResMut<Director>,
    mut panels: ResMut<Panels>,
) {
    if !ui.keyboard && keys.just_pressed(KeyCode::KeyM) {
        let on = !director.on;
        director.set(on, &mut panels);
    }
}

/// Scenes from the frame's events (read even while off: the demo starts
/// with something to show).
fn spot_scenes(
    mut events: MessageReader<SimEvent>,
    mut director: ResMut<Director>,
    roster: Res<Roster>,
    town: Res<Town>,
    time: Res<Time<Real>>,
) {
    let now = time.elapsed_secs();
    let name = |id: &ResidentId| roster.name(id).to_string();
    let place = |id: &LocationId| {
        town.find(id.as_str())
            .map_or(id.to_string(), |i| town.name(i).to_string())
    };
    for e in events.read() {
        if let Some(scene) = scene_of(&e.body, &name, &place, now) {
            director.spot(scene);
        }
    }
}

/// The scene an event makes, if it is worth showing.
fn scene_of(
    body: &EventBody,
    name: &dyn Fn(&ResidentId) -> String,
    place: &dyn Fn(&LocationId) -> String,
    now: f32,
) -> Option<Scene> {
    let (kind, focus, caption, at) = match body {
        EventBody::Message {
            speaker,
            participants,
            emotion: Emotion::Angry,
            location,
            ..
        } => {
            let others: Vec<String> = participants
                .iter()
                .filter(|p| *p != speaker)
                .map(name)
                .collect();
            let text = format!("{}和{}吵起来了", name(speaker), others.join("、"));
            let at = Some(location.clone());
            (
                SceneKind::Argument,
                Focus::Resident(speaker.clone()),
                text,
                at,
            )
        }
        EventBody::DateStart(d) => {
            let two: Vec<String> = d.residents.iter().map(name).collect();
            let text = format!("{}在{}约会", two.join("和"), place(&d.location));
            (
                SceneKind::Date,
                Focus::Resident(d.residents[0].clone()),
                text,
                Some(d.location.clone()),
            )
        }
        EventBody::Plan {
            activity: ActivityKind::Attend,
            target_location,
            ..
        } => {
            let text = format!("{}的聚会，大家陆续到了", place(target_location));
            (
                SceneKind::Gathering,
                Focus::Place(target_location.clone()),
                text,
                Some(target_location.clone()),
            )
        }
        EventBody::Notice { resident, text, .. } => {
            let text = format!("{}贴了一张公告：{text}", name(resident));
            (
                SceneKind::Notice,
                Focus::Resident(resident.clone()),
                text,
                None,
            )
        }
        EventBody::ConversationStart {
            participants,
            location,
            ..
        } => {
            let who: Vec<String> = participants.iter().map(name).collect();
            let text = format!("{}在{}聊了起来", who.join("和"), place(location));
            (
                SceneKind::Conversation,
                Focus::Resident(participants[0].clone()),
                text,
                Some(location.clone()),
            )
        }
        _ => return None,
    };
    Some(Scene {
        kind,
        focus,
        caption,
        place: at,
        seen: now,
    })
}

/// Cuts to the next scene when the shot has run its time (or a better one
/// waits after the least time), and points the camera at it.
fn direct(
    mut director: ResMut<Director>,
    time: Res<Time<Real>>,
    roster: Res<Roster>,
    town: Res<Town>,
    frame: Res<super::MapFrame>,
    (mut selection, mut goal): (ResMut<Selection>, ResMut<CameraGoal>),
) {
    if !director.on {
        return;
    }
    let now = time.elapsed_secs();
    let held = director
        .shot
        .as_ref()
        .map_or(f32::INFINITY, |(_, since)| now - since);
    if held < DWELL_MIN {
        return;
    }
    let next = choose(&director.pending, &director.recent, now);
    let cut_in = next.is_some_and(|i| {
        director
            .shot
            .as_ref()
            .is_none_or(|(s, _)| director.pending[i].kind < s.kind)
    });
    if !cut_in && held < DWELL_MAX {
        return;
    }
    let scene = match next {
        Some(i) => director.pending.remove(i).expect("chosen from pending"),
        None => visit(&mut director, &roster, now),
    };
    match &scene.focus {
        Focus::Resident(id) => {
            selection.select(id.clone());
            selection.follow = true;
        }
        Focus::Place(id) => {
            selection.follow = false;
            if let Some(i) = town.find(id.as_str()) {
                goal.0 = Some(frame.world(town.get(i).position));
            }
        }
    }
    director.recent.push_back((scene.focus.clone(), now));
    while director
        .recent
        .front()
        .is_some_and(|(_, t)| now - t > COOLDOWN)
    {
        director.recent.pop_front();
    }
    director.shot = Some((scene, now));
}

/// Nothing new: the next resident in turn.
fn visit(director: &mut Director, roster: &Roster, now: f32) -> Scene {
    let ids = roster.ids();
    let id = ids[director.visit % ids.len().max(1)].clone();
    director.visit = director.visit.wrapping_add(1);
    Scene {
        kind: SceneKind::Visit,
        caption: format!("看看{}在做什么", roster.name(&id)),
        focus: Focus::Resident(id),
        place: None,
        seen: now,
    }
}

/// Where a followed resident is: standing at a place, or walking to one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Now {
    At(LocIdx),
    Going(LocIdx),
}

/// The caption for what the camera shows: the scene's own while its
/// resident is still where it happened; else where the resident is now
/// (「阿朵在心谷广场」, 「阿朵在去星火酒馆的路上」), so the caption never names a
/// place the camera has left.
pub(crate) fn live_caption(scene: &Scene, name: &str, now: Option<Now>, town: &Town) -> String {
    let Focus::Resident(_) = &scene.focus else {
        return scene.caption.clone();
    };
    let there = |i: LocIdx| scene.place.as_ref().is_some_and(|p| town.get(i).id == *p);
    match now {
        Some(Now::At(i)) if there(i) && scene.kind != SceneKind::Visit => scene.caption.clone(),
        None if scene.place.is_none() && scene.kind != SceneKind::Visit => scene.caption.clone(),
        Some(Now::At(i)) => format!("{name}在{}", town.name(i)),
        Some(Now::Going(i)) => format!("{name}在去{}的路上", town.name(i)),
        None => scene.caption.clone(),
    }
}

/// What a followed resident's figure tells of where it is.
type WhereNow<'a> = (Option<&'a Whereabouts>, Option<&'a Walking>, &'a Activity);

/// The caption at the bottom of the screen.
fn caption(
    mut contexts: EguiContexts,
    director: Res<Director>,
    roster: Res<Roster>,
    town: Res<Town>,
    residents: Query<WhereNow>,
) -> Result {
    let Some((scene, _)) = director.shot.as_ref().filter(|_| director.on) else {
        return Ok(());
    };
    let (name, now) = match &scene.focus {
        Focus::Resident(id) => {
            let now = roster
                .entity(id)
                .and_then(|e| residents.get(e).ok())
                .and_then(|(at, walking, activity)| match walking {
                    Some(_) => Some(Now::Going(activity.target)),
                    None => at.map(|w| Now::At(w.0)),
                });
            (roster.name(id).to_string(), now)
        }
        Focus::Place(_) => (String::new(), None),
    };
    let text = live_caption(scene, &name, now, &town);
    let ctx = contexts.ctx_mut()?;
    egui::Area::new(egui::Id::new("demo_caption"))
        .anchor(egui::Align2::CENTER_BOTTOM, [0.0, -36.0])
        .show(ctx, |ui| {
            egui::Frame::new()
                .fill(egui::Color32::from_black_alpha(180))
                .corner_radius(8.0)
                .inner_margin(egui::Margin::symmetric(18, 10))
                .show(ui, |ui| {
                    // One line while it fits the screen, then wrapped.
                    ui.set_max_width(900.0);
                    let text = egui::RichText::new(&text)
                        .size(22.0)
                        .color(egui::Color32::WHITE);
                    ui.add(egui::Label::new(text).wrap_mode(egui::TextWrapMode::Extend));
                    ui.label(
                        egui::RichText::new("演示模式 · 按 M 退出")
                            .size(12.0)
                            .color(egui::Color32::LIGHT_GRAY),
                    );
                });
        });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scene(kind: SceneKind, who: &str, seen: f32) -> Scene {
        Scene {
            kind,
            focus: Focus::Resident(ResidentId::new(who)),
            caption: String::new(),
            place: None,
            seen,
        }
    }

    /// A talk spotted at the library, shown once its speaker has walked to
    /// the tavern: the caption names the tavern, not the library.
    #[test]
    fn the_caption_names_where_the_camera_is() {
        let s = crate::headless::default_scenario();
        let town = &s.town;
        let lib = town.find("library").unwrap();
        let tavern = town.find("tavern").unwrap();
        let mut talk = scene(SceneKind::Conversation, "a", 0.0);
        talk.caption = "阿朵和何青在晨光图书馆聊了起来".into();
        talk.place = Some(town.get(lib).id.clone());
        let say = |now| live_caption(&talk, "阿朵", now, town);
        assert_eq!(say(Some(Now::At(lib))), talk.caption);
        assert_eq!(say(Some(Now::At(tavern))), "阿朵在星火酒馆");
        assert_eq!(say(Some(Now::Going(tavern))), "阿朵在去星火酒馆的路上");
        let visit = scene(SceneKind::Visit, "a", 0.0);
        assert_eq!(
            live_caption(&visit, "阿朵", Some(Now::At(lib)), town),
            "阿朵在晨光图书馆"
        );
    }

    #[test]
    fn the_director_picks_the_most_interesting_fresh_scene_not_shown_lately() {
        let pending: VecDeque<Scene> = [
            scene(SceneKind::Conversation, "a", 100.0),
            scene(SceneKind::Argument, "b", 90.0),
            scene(SceneKind::Notice, "c", 101.0),
            scene(SceneKind::Argument, "d", 60.0),
        ]
        .into();
        let none = VecDeque::new();
        // The argument beats the rest; the stale one (40 s old) is skipped.
        assert_eq!(choose(&pending, &none, 100.0), Some(1));
        // b was just shown: the next best.
        let recent: VecDeque<_> = [(Focus::Resident(ResidentId::new("b")), 95.0)].into();
        assert_eq!(choose(&pending, &recent, 100.0), Some(2));
        // Long after: every scene is stale.
        assert_eq!(choose(&pending, &none, 500.0), None);
        // The newest among equals.
        let twins: VecDeque<Scene> = [
            scene(SceneKind::Gathering, "x", 10.0),
            scene(SceneKind::Gathering, "y", 12.0),
        ]
        .into();
        assert_eq!(choose(&twins, &none, 12.0), Some(1));
    }

    /// Left running on the default town, the director moves on from scene
    /// to scene, with captions, panels hidden, and never keeps more than a
    /// few dozen scenes; stopping it gives the panels back.
    #[test]
    fn a_demo_runs_unattended_and_gives_the_panels_back() {
        let mut app = crate::window::testing::view_app();
        app.add_plugins((super::super::select::plugin, plugin))
            .init_resource::<Panels>()
            .insert_resource(bevy::time::TimeUpdateStrategy::ManualDuration(
                std::time::Duration::from_millis(500),
            ));
        app.update();
        {
            let world = app.world_mut();
            let mut panels = world.resource::<Panels>().clone();
            world.resource_mut::<Director>().set(true, &mut panels);
            world.insert_resource(panels);
        }
        assert_eq!(*app.world().resource::<Panels>(), Panels::none());
        let mut captions = std::collections::HashSet::new();
        for _ in 0..400 {
            app.update();
            let d = app.world().resource::<Director>();
            assert!(d.pending.len() <= PENDING && d.recent.len() <= 64);
            if let Some((s, _)) = &d.shot {
                captions.insert(s.caption.clone());
            }
        }
        assert!(captions.len() >= 5, "the camera moved on: {captions:?}");
        assert!(app.world().resource::<Selection>().resident.is_some());
        let world = app.world_mut();
        let mut panels = world.resource::<Panels>().clone();
        world.resource_mut::<Director>().set(false, &mut panels);
        assert_eq!(panels, Panels::default(), "panels back");
    }
}
