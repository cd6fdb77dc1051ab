//! `look:` in `locations.yaml`: how the window draws a place. The
//! simulation never reads it.

use serde::{Deserialize, Serialize};

use super::{LocationKind, Service};

/// How a place is drawn on the map (`look:` in `locations.yaml`). Only the
/// window reads it; a place without one looks like its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PlaceLook {
    /// A house with a thatched, tiled or stone roof.
    House,
    /// A big inn with a sign.
    Inn,
    /// A stone house with books.
    Library,
    /// A smithy with a cart and a barrel.
    Forge,
    /// A house with the healer's sign.
    Clinic,
    /// Any other workplace.
    Workshop,
    /// A paved square with a big tree and the notice board.
    Square,
    /// Tilled fields with hay and a shed.
    Field,
    /// A bank with water below it and a stream to the map's edge.
    River,
    /// Trees all round a clearing.
    Forest,
    /// A clearing with a tent.
    Camp,
    /// A cave mouth among rocks.
    Mine,
    /// An old tree with a shrine gate.
    Shrine,
    /// Open meadow with flowers.
    Meadow,
}

impl PlaceLook {
    /// A building one goes into (its windows light up; sleepers there are
    /// indoors); the others are open settings.
    pub fn is_building(self) -> bool {
        use PlaceLook::*;
        matches!(self, House | Inn | Library | Forge | Clinic | Workshop)
    }

    /// The look of a place that names none.
    pub fn infer(kind: LocationKind, services: &[Service]) -> Self {
        let has = |s: Service| services.contains(&s);
        match kind {
            LocationKind::Home => PlaceLook::House,
            LocationKind::Food => PlaceLook::Inn,
            LocationKind::Work => PlaceLook::Workshop,
            LocationKind::Public if has(Service::Books) => PlaceLook::Library,
            LocationKind::Public => PlaceLook::Square,
            LocationKind::Nature => PlaceLook::Meadow,
            LocationKind::Wild if has(Service::Sleep) => PlaceLook::Camp,
            LocationKind::Wild => PlaceLook::Forest,
        }
    }
}
