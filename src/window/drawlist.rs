//! The draw list: with every `--screenshot FILE`, `FILE.json` says what the
//! frame drew — each name, place label, bubble, thought, prop, lit window
//! and figure with its rectangle on screen — so tests and designers can
//! check a frame (no two names overlap, no stale bubble, props at the party)
//! without reading pixels.

use std::path::PathBuf;

use bevy::camera::visibility::VisibilitySystems;
use bevy::prelude::*;
use bevy::sprite::Anchor;
use bevy::text::TextLayoutInfo;
use serde::Serialize;

use super::bubbles::Bubble;
use super::map::{MapProp, PlaceLabel};
use super::night::WindowLight;
use super::people::NameLabel;
use super::stage::{CrowdMarker, DateHeart, PartyProp};
use crate::scenario::{LocIdx, Town};
use crate::sim::clock::Clock;
use crate::sim::residents::{Census, Resident, Whereabouts};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        PostUpdate,
        write_draw_list
            .run_if(resource_exists::<DrawListDue>)
            .after(VisibilitySystems::CheckVisibility),
    );
}

/// Write the frame's draw list here at the end of this frame.
#[derive(Resource, Debug, Clone)]
pub(crate) struct DrawListDue(pub(crate) PathBuf);

/// One thing the frame drew.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub(crate) struct Item {
    pub(crate) kind: &'static str,
    /// Screen pixels: left, top, width, height.
    pub(crate) rect: [f32; 4],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) text: Option<String>,
    /// The place it belongs to (location id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) place: Option<String>,
    /// A place label: someone is there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) occupied: Option<bool>,
    /// A bubble or thought: game minutes since it went up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) age_minutes: Option<i64>,
}

/// The whole list, with the game time of the frame.
#[derive(Serialize, Debug)]
struct DrawList {
    time: String,
    screen: [f32; 2],
    items: Vec<Item>,
}

/// Turns world boxes into screen rectangles.
struct Screen<'a> {
    camera: &'a Camera,
    at: &'a GlobalTransform,
}

impl Screen<'_> {
    /// The screen rectangle of a world box (centre, size).
    fn rect(&self, centre: Vec2, size: Vec2) -> Option<[f32; 4]> {
        let a = self
            .camera
            .world_to_viewport(self.at, (centre - size / 2.0).extend(0.0))
            .ok()?;
        let b = self
            .camera
            .world_to_viewport(self.at, (centre + size / 2.0).extend(0.0))
            .ok()?;
        let (lo, hi) = (a.min(b), a.max(b));
        Some([lo.x, lo.y, hi.x - lo.x, hi.y - lo.y])
    }
}

fn item(kind: &'static str, rect: [f32; 4]) -> Item {
    Item {
        kind,
        rect,
        text: None,
        place: None,
        occupied: None,
        age_minutes: None,
    }
}

/// A sprite's world box: its size, scaled, moved by its anchor.
fn sprite_box(sprite: &Sprite, at: &GlobalTransform, anchor: Option<&Anchor>) -> (Vec2, Vec2) {
    let (scale, _, t) = at.to_scale_rotation_translation();
    let size = sprite
        .custom_size
        .or(sprite.rect.map(|r| r.size()))
        .unwrap_or(Vec2::ONE)
        * scale.truncate();
    let anchor = anchor.map_or(Vec2::ZERO, Anchor::as_vec);
    (t.truncate() - anchor * size, size)
}

/// A text's world box, centred on it.
fn text_box(info: &TextLayoutInfo, at: &GlobalTransform) -> (Vec2, Vec2) {
    let (scale, _, t) = at.to_scale_rotation_translation();
    (t.truncate(), info.size * scale.truncate())
}

type Figures<'a> = (
    &'a Resident,
    &'a Sprite,
    &'a GlobalTransform,
    &'a ViewVisibility,
    Option<&'a Whereabouts>,
);
type Texts<'a> = (
    &'a Text2d,
    &'a TextLayoutInfo,
    &'a GlobalTransform,
    &'a ViewVisibility,
);
type Things<'a> = (
    &'a Sprite,
    &'a GlobalTransform,
    Option<&'a Anchor>,
    &'a ViewVisibility,
);

/// A sprite and what it is: a map prop, a party prop, a window, a heart.
type Marked<'a> = (
    Option<&'a MapProp>,
    Option<&'a PartyProp>,
    Option<&'a WindowLight>,
    Option<&'a DateHeart>,
    Things<'a>,
);

/// The items of a list as it is put together.
struct Items<'a> {
    screen: Screen<'a>,
    town: &'a Town,
    out: Vec<Item>,
}

impl Items<'_> {
    /// Adds what a world box (centre, size) drew, if it was drawn and is on
    /// screen; the item back to fill in the rest.
    fn add(
        &mut self,
        kind: &'static str,
        (centre, size): (Vec2, Vec2),
        shown: &ViewVisibility,
        text: Option<&str>,
        place: Option<LocIdx>,
    ) -> Option<&mut Item> {
        let rect = self.screen.rect(centre, size).filter(|_| shown.get())?;
        let mut it = item(kind, rect);
        it.text = text.map(str::to_string);
        it.place = place
            .filter(|i| i.i() < self.town.len())
            .map(|i| self.town.get(i).id.as_str().to_string());
        self.out.push(it);
        self.out.last_mut()
    }
}

/// What a marked sprite is in the list, and its place (`None`: not listed,
/// as a window that is not lit).
fn marked_kind(
    prop: Option<&MapProp>,
    party: Option<&PartyProp>,
    window: Option<&WindowLight>,
    heart: bool,
    lit: bool,
) -> Option<(&'static str, Option<LocIdx>)> {
    match (prop, party, window) {
        (_, _, Some(w)) => lit.then_some(("lit_window", Some(w.place))),
        (_, Some(p), _) => Some(("prop", Some(p.place))),
        (Some(p), ..) => Some(("prop", Some(p.place))),
        _ => heart.then_some(("heart", None)),
    }
}

#[allow(clippy::too_many_arguments)]
fn write_draw_list(
    mut commands: Commands,
    due: Res<DrawListDue>,
    camera: Query<(&Camera, &GlobalTransform), With<Camera2d>>,
    window: Query<&Window>,
    (town, clock, census): (Res<Town>, Res<Clock>, Res<Census>),
    figures: Query<Figures>,
    names: Query<Texts, With<NameLabel>>,
    places: Query<(&PlaceLabel, Texts)>,
    bubbles: Query<(&Bubble, &Text2d, &GlobalTransform, &ViewVisibility)>,
    props: Query<Marked>,
    crowds: Query<(&CrowdMarker, Texts)>,
) {
    commands.remove_resource::<DrawListDue>();
    let Some((camera, at)) = camera.iter().next() else {
        return;
    };
    let mut items = Items {
        screen: Screen { camera, at },
        town: &town,
        out: Vec::new(),
    };
    for (r, sprite, gt, shown, here) in &figures {
        let b = sprite_box(sprite, gt, None);
        items.add("sprite", b, shown, Some(r.id.as_str()), here.map(|w| w.0));
    }
    for (text, info, gt, shown) in &names {
        items.add("name", text_box(info, gt), shown, Some(&text.0), None);
    }
    for (label, (text, info, gt, shown)) in &places {
        let occupied = !census.standing_at(label.0).is_empty();
        if let Some(it) = items.add(
            "place",
            text_box(info, gt),
            shown,
            Some(&text.0),
            Some(label.0),
        ) {
            it.occupied = Some(occupied);
        }
    }
    for (b, text, gt, shown) in &bubbles {
        let (scale, _, t) = gt.to_scale_rotation_translation();
        let bx = (t.truncate(), b.half * 2.0 * scale.truncate());
        let kind = if b.thought() { "thought" } else { "bubble" };
        if let Some(it) = items.add(kind, bx, shown, Some(&text.0), b.place) {
            it.age_minutes = Some(b.age_minutes(clock.now));
        }
    }
    for (prop, party, window, heart, (sprite, gt, anchor, shown)) in &props {
        let lit = sprite.color.alpha() > 0.0;
        if let Some((kind, place)) = marked_kind(prop, party, window, heart.is_some(), lit) {
            items.add(kind, sprite_box(sprite, gt, anchor), shown, None, place);
        }
    }
    for (crowd, (text, info, gt, shown)) in &crowds {
        items.add(
            "crowd",
            text_box(info, gt),
            shown,
            Some(&text.0),
            Some(crowd.place),
        );
    }
    let size = window
        .iter()
        .next()
        .map_or(Vec2::ZERO, |w| w.resolution.size());
    let list = DrawList {
        time: clock.now.to_string(),
        screen: [size.x, size.y],
        items: items.out,
    };
    let written = serde_json::to_string_pretty(&list)
        .map_err(|e| e.to_string())
        .and_then(|json| std::fs::write(&due.0, json).map_err(|e| e.to_string()));
    if let Err(e) = written {
        error!("cannot write the draw list {}: {e}", due.0.display());
    }
}
