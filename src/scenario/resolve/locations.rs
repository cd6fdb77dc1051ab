//! `locations.yaml`: unique ids on the map, connections to places that
//! exist (undirected) → the [`Town`] with its routes.

use std::collections::HashMap;
use std::path::Path;

use bevy::math::Vec2;

use super::{Ctx, unknown_hint};
use crate::base::Diagnostic;
use crate::scenario::spec;
use crate::scenario::{LocIdx, Location, LocationId, Town};

/// The town of the locations file, or `None` when it has no location.
pub(super) fn resolve_locations(
    cx: &mut Ctx<'_>,
    lf: &spec::LocationsFile,
    tf: &spec::TownFile,
) -> Option<Town> {
    let file = cx.loc_file.clone();
    let index = index_locations(cx, &file, lf, tf);
    if lf.locations.is_empty() {
        cx.diags.push(Diagnostic::file(
            &file,
            "a town needs at least one location",
            None,
        ));
        return None;
    }
    let neighbours = connect(cx, &file, lf, &index);
    let locations = lf
        .locations
        .iter()
        .zip(neighbours)
        .map(|(l, neighbours)| Location {
            id: LocationId::new(l.id.value.as_str()),
            name: l.name.clone(),
            description: l.description.clone(),
            kind: l.kind,
            position: Vec2::from(l.position),
            size: Vec2::from(l.size),
            neighbours,
            capacity: l.capacity,
            services: l.services.clone(),
            look: l
                .look
                .unwrap_or_else(|| crate::scenario::PlaceLook::infer(l.kind, &l.services)),
        })
        .collect();
    Some(Town::new(tf.name.clone(), tf.map, locations))
}

/// Each id's index; duplicate ids and places off the map are errors.
fn index_locations<'f>(
    cx: &mut Ctx<'_>,
    file: &Path,
    lf: &'f spec::LocationsFile,
    tf: &spec::TownFile,
) -> HashMap<&'f str, LocIdx> {
    let mut index: HashMap<&str, LocIdx> = HashMap::new();
    for (i, l) in lf.locations.iter().enumerate() {
        if index
            .insert(l.id.value.as_str(), LocIdx(i as u32))
            .is_some()
        {
            cx.err(
                file,
                &l.id,
                format!("locations[{i}].id"),
                format!("duplicate location id `{}`", l.id.value),
                Some("every location needs its own id".into()),
            );
        }
        let [x, y] = l.position;
        let [w, h] = l.size;
        if !(super::positive(w) && super::positive(h)) {
            cx.err(
                file,
                &l.id,
                format!("locations[{i}].size"),
                format!("`{}` has size [{w}, {h}]", l.id.value),
                Some("a size is two positive numbers of pixels, e.g. [120, 80]".into()),
            );
        }
        if !((0.0..=tf.map.width).contains(&x) && (0.0..=tf.map.height).contains(&y)) {
            cx.err(
                file,
                &l.id,
                format!("locations[{i}].position"),
                format!(
                    "`{}` lies outside the {}×{} map",
                    l.id.value, tf.map.width, tf.map.height
                ),
                Some("move it inside town.yaml's map size".into()),
            );
        }
    }
    index
}

/// Each place's neighbours, sorted: a path listed on either end works both
/// ways; a connection to itself or to an unknown id is an error.
fn connect(
    cx: &mut Ctx<'_>,
    file: &Path,
    lf: &spec::LocationsFile,
    index: &HashMap<&str, LocIdx>,
) -> Vec<Vec<LocIdx>> {
    let ids: Vec<&str> = lf.locations.iter().map(|l| l.id.value.as_str()).collect();
    let mut neighbours: Vec<Vec<LocIdx>> = vec![Vec::new(); lf.locations.len()];
    for (i, l) in lf.locations.iter().enumerate() {
        for (j, c) in l.connections.iter().enumerate() {
            let field = format!("locations[{i}].connections[{j}]");
            match index.get(c.value.as_str()) {
                Some(&t) if t.i() == i => {
                    let msg = format!("`{}` is connected to itself", l.id.value);
                    cx.err(file, c, field, msg, None);
                }
                Some(&t) => {
                    for (a, b) in [(i, t), (t.i(), LocIdx(i as u32))] {
                        if !neighbours[a].contains(&b) {
                            neighbours[a].push(b);
                        }
                    }
                }
                None => {
                    let hint = unknown_hint(&c.value, ids.iter().copied(), "locations.yaml");
                    let msg = format!("connection to unknown location `{}`", c.value);
                    cx.err(file, c, field, msg, Some(hint));
                }
            }
        }
    }
    for n in &mut neighbours {
        n.sort();
    }
    neighbours
}
