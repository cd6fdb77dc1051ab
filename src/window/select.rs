//! Selection: click a resident (or its bubble) to inspect it, Esc to let go,
//! F to follow it with the camera. The selection is also the LLM's focus: a
//! watched resident's calls go first.

use bevy::prelude::*;
use bevy::window::PrimaryWindow;

use super::ViewSet;
use super::bubbles::Bubble;
use crate::llm::LlmFocus;
use crate::scenario::ResidentId;
use crate::sim::residents::{Resident, Roster};

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Selection>()
        .init_resource::<UiWantsInput>()
        .init_resource::<CameraGoal>()
        .init_resource::<Press>()
        .add_message::<MapClick>()
        .add_systems(
            Update,
            (
                (clicks, select_on_click, selection_keys)
                    .chain()
                    .in_set(ViewSet::Input),
                focus_llm.in_set(ViewSet::Sync),
            ),
        );
}

/// Who is selected, and whether the camera follows them.
#[derive(Resource, Debug, Default, Clone, PartialEq)]
pub(crate) struct Selection {
    pub(crate) resident: Option<ResidentId>,
    pub(crate) follow: bool,
    /// A bubble was clicked: the inspector opens on this conversation.
    pub(crate) conversation: Option<u64>,
}

impl Selection {
    pub(super) fn select(&mut self, id: ResidentId) {
        if self.resident.as_ref() != Some(&id) {
            self.follow = false;
            self.conversation = None;
        }
        self.resident = Some(id);
    }
    pub(super) fn clear(&mut self) {
        *self = Self::default();
    }
}

/// Whether egui holds the pointer or the keyboard this frame (written in the
/// egui pass; the map's input systems stand back when it does).
#[derive(Resource, Debug, Default, Clone, Copy)]
pub(crate) struct UiWantsInput {
    pub(crate) pointer: bool,
    pub(crate) keyboard: bool,
}

/// Where the camera should glide to once (an event clicked in the stream).
#[derive(Resource, Debug, Default)]
pub(crate) struct CameraGoal(pub Option<Vec2>);

/// A click (press and release without dragging) on the map, in world units.
#[derive(Message, Debug, Clone, Copy)]
pub(crate) struct MapClick(pub Vec2);

#[derive(Resource, Debug, Default)]
struct Press {
    at: Option<Vec2>,
    dragged: bool,
}

/// A drag longer than this (pixels) pans instead of clicking.
const CLICK_SLOP: f32 = 5.0;
/// Half the size of a figure's clickable box (world units).
const FIGURE_HALF: Vec2 = Vec2::new(18.0, 26.0);

/// Turns a press and release in place into a `MapClick`.
fn clicks(
    buttons: Res<ButtonInput<MouseButton>>,
    ui: Res<UiWantsInput>,
    mut press: ResMut<Press>,
    windows: Query<&Window, With<PrimaryWindow>>,
    cameras: Query<(&Camera, &GlobalTransform), With<Camera2d>>,
    mut out: MessageWriter<MapClick>,
) {
    let Some(cursor) = windows.single().ok().and_then(|w| w.cursor_position()) else {
        return;
    };
    if buttons.just_pressed(MouseButton::Left) && !ui.pointer {
        press.at = Some(cursor);
        press.dragged = false;
    }
    if let Some(at) = press.at
        && at.distance(cursor) > CLICK_SLOP
    {
        press.dragged = true;
    }
    if buttons.just_released(MouseButton::Left) {
        let was = press.at.take();
        if was.is_some()
            && !press.dragged
            && let Ok((camera, transform)) = cameras.single()
            && let Ok(world) = camera.viewport_to_world_2d(transform, cursor)
        {
            out.write(MapClick(world));
        }
    }
}

/// What a click at `at` hits: a bubble first (drawn on top), then the figure
/// whose box holds it, nearest centre first.
pub(crate) fn pick<'a>(
    at: Vec2,
    bubbles: impl Iterator<Item = (&'a Bubble, Vec2)>,
    figures: impl Iterator<Item = (&'a ResidentId, Vec2)>,
) -> Option<(ResidentId, Option<u64>)> {
    for (bubble, centre) in bubbles {
        let d = (at - centre).abs();
        if d.x <= bubble.half.x && d.y <= bubble.half.y {
            return Some((bubble.resident.clone(), bubble.conversation));
        }
    }
    figures
        .filter(|(_, centre)| {
            let d = (at - *centre).abs();
            d.x <= FIGURE_HALF.x && d.y <= FIGURE_HALF.y
        })
        .min_by(|a, b| a.1.distance(at).total_cmp(&b.1.distance(at)))
        .map(|(id, _)| (id.clone(), None))
}

fn select_on_click(
    mut clicks: MessageReader<MapClick>,
    bubbles: Query<(&Bubble, &Transform)>,
    figures: Query<(&Resident, &Transform)>,
    mut selection: ResMut<Selection>,
) {
    for click in clicks.read() {
        let hit = pick(
            click.0,
            bubbles.iter().map(|(b, t)| (b, t.translation.truncate())),
            figures
                .iter()
                .map(|(r, t)| (&r.id, t.translation.truncate())),
        );
        match hit {
            Some((id, conversation)) => {
                selection.select(id);
                if conversation.is_some() {
                    selection.conversation = conversation;
                }
            }
            // A click on open ground lets go, as Esc does.
            None => selection.clear(),
        }
    }
}

fn selection_keys(
    keys: Res<ButtonInput<KeyCode>>,
    ui: Res<UiWantsInput>,
    mut selection: ResMut<Selection>,
) {
    if ui.keyboard {
        return;
    }
    if keys.just_pressed(KeyCode::Escape) {
        selection.clear();
    }
    if keys.just_pressed(KeyCode::KeyF) && selection.resident.is_some() {
        selection.follow = !selection.follow;
    }
}

/// The selected resident's LLM calls go first.
fn focus_llm(selection: Res<Selection>, roster: Res<Roster>, mut focus: ResMut<LlmFocus>) {
    if !selection.is_changed() {
        return;
    }
    focus.watched = selection
        .resident
        .iter()
        .filter(|id| roster.idx(id).is_some())
        .cloned()
        .collect();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::testing::{press, view_app};

    #[test]
    fn clicks_select_residents_esc_lets_go_f_follows() {
        let mut app = view_app();
        app.add_plugins((
            plugin,
            crate::window::people::plugin,
            crate::window::bubbles::plugin,
        ));
        app.world_mut()
            .resource_mut::<crate::sim::clock::SimSpeed>()
            .paused = true;
        app.update();
        app.update();
        let (id, at) = {
            let world = app.world_mut();
            let mut q = world.query::<(&Resident, &Transform)>();
            let (r, t) = q.iter(world).next().unwrap();
            (r.id.clone(), t.translation.truncate())
        };
        // A click a little off the figure's centre still hits it.
        app.world_mut()
            .write_message(MapClick(at + Vec2::new(6.0, 10.0)));
        app.update();
        assert_eq!(
            app.world().resource::<Selection>().resident.as_ref(),
            Some(&id)
        );
        assert_eq!(app.world().resource::<LlmFocus>().watched, vec![id.clone()]);
        press(&mut app, KeyCode::KeyF);
        assert!(app.world().resource::<Selection>().follow);
        press(&mut app, KeyCode::KeyF);
        assert!(!app.world().resource::<Selection>().follow);
        press(&mut app, KeyCode::KeyF);
        press(&mut app, KeyCode::Escape);
        assert_eq!(*app.world().resource::<Selection>(), Selection::default());
        assert!(app.world().resource::<LlmFocus>().watched.is_empty());
        // F with nobody selected does nothing; a click on empty ground deselects.
        press(&mut app, KeyCode::KeyF);
        assert!(!app.world().resource::<Selection>().follow);
        app.world_mut().write_message(MapClick(at));
        app.update();
        assert!(app.world().resource::<Selection>().resident.is_some());
        app.world_mut()
            .write_message(MapClick(Vec2::new(99_999.0, 0.0)));
        app.update();
        assert!(app.world().resource::<Selection>().resident.is_none());
        // Keys typed into a panel are the panel's.
        app.world_mut().write_message(MapClick(at));
        app.update();
        app.world_mut().resource_mut::<UiWantsInput>().keyboard = true;
        press(&mut app, KeyCode::Escape);
        assert!(app.world().resource::<Selection>().resident.is_some());
    }

    #[test]
    fn a_bubble_click_opens_its_conversation() {
        let a = ResidentId::new("a");
        let b = ResidentId::new("b");
        let bubble = Bubble {
            speaker: Entity::PLACEHOLDER,
            resident: b.clone(),
            conversation: Some(9),
            born: 0.0,
            half: Vec2::new(50.0, 12.0),
            said: crate::base::time::GameTime::default(),
            place: None,
            ending: None,
        };
        let figures = [(&a, Vec2::ZERO), (&b, Vec2::new(30.0, 0.0))];
        // Over the bubble (above b): b and the conversation.
        let hit = pick(
            Vec2::new(40.0, 60.0),
            [(&bubble, Vec2::new(30.0, 60.0))].into_iter(),
            figures.into_iter(),
        );
        assert_eq!(hit, Some((b.clone(), Some(9))));
        // Between the two figures, nearer a.
        let hit = pick(
            Vec2::new(10.0, 0.0),
            std::iter::empty(),
            figures.into_iter(),
        );
        assert_eq!(hit, Some((a.clone(), None)));
        assert_eq!(
            pick(
                Vec2::new(0.0, 200.0),
                std::iter::empty(),
                figures.into_iter()
            ),
            None
        );
    }
}
