//! The egui panels, each a movable window toggled by a key (and a button in
//! the top bar): the resident inspector (I), the event stream (E), the
//! relationships matrix and plot (R), Cupid's dates (L), the notice board (N), the tuning
//! sliders (T) and the help overlay (H).

mod board;
mod dates;
mod inspector;
mod knowing;
mod news;
mod prompt_view;
mod relations;
mod stream;

use bevy::prelude::*;
use bevy_egui::{EguiPrimaryContextPass, egui};

use super::ViewSet;
use super::select::UiWantsInput;
use crate::sim::event_log::Strand;
use crate::sim::residents::RosterIdx;
use board::{help, notice_board, tuning_panel};
use dates::dates_panel;
use inspector::inspector;
use news::news_panel;
use relations::relations;
use stream::event_stream;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Panels>()
        .init_resource::<StreamFilter>()
        .init_resource::<PlottedPairs>()
        .init_resource::<news::NewsDay>()
        .add_systems(Update, panel_keys.in_set(ViewSet::Input))
        .add_systems(
            EguiPrimaryContextPass,
            (
                inspector,
                event_stream,
                relations,
                notice_board,
                tuning_panel,
                help,
                dates_panel,
                news_panel,
            ),
        );
}

/// Which panels are open.
#[derive(Resource, Debug, Clone, PartialEq)]
pub(crate) struct Panels {
    pub(crate) inspector: bool,
    pub(crate) events: bool,
    pub(crate) relations: bool,
    pub(crate) notices: bool,
    pub(crate) tuning: bool,
    pub(crate) help: bool,
    pub(crate) dates: bool,
    /// 今日要闻.
    pub(crate) news: bool,
    /// The top bar (date, speed, switches); `U` hides it, `--panels none` too.
    pub(crate) bar: bool,
}

impl Default for Panels {
    /// The inspector, the event stream and the top bar.
    fn default() -> Self {
        Self {
            inspector: true,
            events: true,
            bar: true,
            ..Self::none()
        }
    }
}

impl Panels {
    /// Each panel's switch, label and key, in top-bar order.
    pub(super) fn toggles(&mut self) -> [(&mut bool, &'static str, &'static str); 8] {
        [
            (&mut self.inspector, "居民", "I"),
            (&mut self.events, "事件", "E"),
            (&mut self.news, "要闻", "Y"),
            (&mut self.relations, "关系", "R"),
            (&mut self.notices, "公告", "N"),
            (&mut self.tuning, "调参", "T"),
            (&mut self.dates, "约会", "L"),
            (&mut self.help, "帮助", "H"),
        ]
    }

    /// Opens the panels named (`inspector,events,relations,notices,tuning,help,dates`)
    /// and closes the others; `none` closes every one and the top bar too
    /// (a clean view of the town); an unknown name is an error.
    pub(super) fn only(names: &[String]) -> Result<Self, String> {
        let mut p = Self {
            inspector: false,
            events: false,
            ..Self::default()
        };
        for name in names {
            let panel = match name.trim() {
                "none" => {
                    p = Self::none();
                    continue;
                }
                "inspector" => &mut p.inspector,
                "events" => &mut p.events,
                "relations" => &mut p.relations,
                "notices" => &mut p.notices,
                "tuning" => &mut p.tuning,
                "help" => &mut p.help,
                "dates" => &mut p.dates,
                "news" => &mut p.news,
                other => {
                    return Err(format!(
                        "no panel `{other}` (inspector, events, news, relations, notices, tuning, help, dates, or none)"
                    ));
                }
            };
            *panel = true;
        }
        Ok(p)
    }

    /// Every panel closed and no top bar.
    pub(crate) fn none() -> Self {
        Self {
            inspector: false,
            events: false,
            relations: false,
            notices: false,
            tuning: false,
            help: false,
            dates: false,
            news: false,
            bar: false,
        }
    }

    /// Flips the panel of `key`; false if the key opens none.
    pub(super) fn toggle(&mut self, key: KeyCode) -> bool {
        let panel = match key {
            KeyCode::KeyI => &mut self.inspector,
            KeyCode::KeyE => &mut self.events,
            KeyCode::KeyR => &mut self.relations,
            KeyCode::KeyN => &mut self.notices,
            KeyCode::KeyT => &mut self.tuning,
            KeyCode::KeyL => &mut self.dates,
            KeyCode::KeyH | KeyCode::F1 => &mut self.help,
            KeyCode::KeyU => &mut self.bar,
            KeyCode::KeyY => &mut self.news,
            _ => return false,
        };
        *panel = !*panel;
        true
    }
}

fn panel_keys(keys: Res<ButtonInput<KeyCode>>, ui: Res<UiWantsInput>, mut panels: ResMut<Panels>) {
    if ui.keyboard {
        return;
    }
    for key in keys.get_just_pressed() {
        panels.toggle(*key);
    }
}

/// The event stream's filters.
#[derive(Resource, Debug, Default)]
pub(crate) struct StreamFilter {
    pub(crate) kind: Option<Strand>,
    pub(crate) resident: Option<crate::scenario::ResidentId>,
}

/// Pairs `(a, b)` (roster indices: `a`'s view of `b`) drawn in the plot.
#[derive(Resource, Debug, Default)]
pub(crate) struct PlottedPairs(pub Vec<(RosterIdx, RosterIdx)>);

/// A 0–100 value as a labelled bar.
fn bar(ui: &mut egui::Ui, label: &str, value: f32) {
    ui.add(
        egui::ProgressBar::new((value / 100.0).clamp(0.0, 1.0))
            .desired_height(14.0)
            .text(format!("{label} {value:.0}")),
    );
}

/// `HH:MM` of a moment.
/// What a click on a line about a resident does: select it and glide the
/// camera to where its figure stands.
#[derive(bevy::ecs::system::SystemParam)]
pub(super) struct LookAt<'w, 's> {
    pub(super) selection: ResMut<'w, crate::window::select::Selection>,
    goal: ResMut<'w, crate::window::select::CameraGoal>,
    roster: Res<'w, crate::sim::residents::Roster>,
    figures: Query<'w, 's, &'static Transform, With<crate::sim::residents::Resident>>,
}

impl LookAt<'_, '_> {
    pub(super) fn resident(&mut self, id: &crate::scenario::ResidentId) {
        self.selection.select(id.clone());
        if let Some(t) = self
            .roster
            .entity(id)
            .and_then(|e| self.figures.get(e).ok())
        {
            self.goal.0 = Some(t.translation.truncate());
        }
    }
}

fn clock_text(t: crate::base::time::GameTime) -> String {
    format!(
        "{:02}:{:02}",
        t.minute_of_day() / 60,
        t.minute_of_day() % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::residents::{Needs, Resident};
    use crate::sim::town::ActiveTuning;
    use crate::window::tuning::SLIDERS;

    #[test]
    fn keys_toggle_panels() {
        let mut p = Panels::default();
        assert!(p.inspector && p.events && !p.help);
        for key in [
            KeyCode::KeyH,
            KeyCode::KeyR,
            KeyCode::KeyN,
            KeyCode::KeyT,
            KeyCode::KeyE,
            KeyCode::KeyI,
            KeyCode::KeyL,
        ] {
            assert!(p.toggle(key));
        }
        assert_eq!(
            p,
            Panels {
                inspector: false,
                events: false,
                relations: true,
                notices: true,
                tuning: true,
                help: true,
                dates: true,
                news: false,
                bar: true,
            }
        );
        assert!(!p.toggle(KeyCode::KeyW), "W pans the map");
        assert!(p.toggle(KeyCode::KeyU) && !p.bar, "U hides the top bar");
        assert_eq!(Panels::only(&["none".into()]).unwrap(), Panels::none());
        let some = Panels::only(&["tuning".into(), "relations".into()]).unwrap();
        assert!(some.tuning && some.relations && !some.inspector && !some.events);
        assert!(Panels::only(&["nope".into()]).unwrap_err().contains("nope"));
        assert_eq!(p.toggles().len(), 8);
    }

    /// A slider moved in the panel is the value the sim reads next step.
    #[test]
    fn slider_values_reach_the_running_sim() {
        let mut app = crate::window::testing::view_app();
        app.update();
        let s = SLIDERS
            .iter()
            .find(|s| s.path == ["needs", "decay", "hunger"])
            .unwrap();
        let hunger = |app: &mut App| -> Vec<f32> {
            let mut q = app.world_mut().query::<(&Resident, &Needs)>();
            let mut v: Vec<(RosterIdx, f32)> = q
                .iter(app.world())
                .map(|(r, n)| (r.idx, n.hunger))
                .collect();
            v.sort_by_key(|x| x.0);
            v.into_iter().map(|x| x.1).collect()
        };
        let before = hunger(&mut app);
        (s.set)(&mut app.world_mut().resource_mut::<ActiveTuning>().0, 1.0);
        assert_eq!(
            app.world().resource::<ActiveTuning>().needs.decay.hunger,
            1.0
        );
        // Ten minutes at the new rate: whoever is not eating is ~10 hungrier.
        for _ in 0..10 {
            app.update();
        }
        let after = hunger(&mut app);
        assert!(
            before.iter().zip(&after).any(|(b, a)| b - a > 8.0),
            "{before:?} → {after:?}"
        );
    }
}
