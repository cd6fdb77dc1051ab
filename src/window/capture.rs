//! `--screenshot-after SECONDS [--screenshot FILE] [--exit]`: saves the window
//! through Bevy's own screenshot API (an X capture of Vulkan output under Xvfb
//! comes out black), and the frame's draw list beside it as `FILE.json` (see
//! `drawlist`), then quits if asked. `scripts/screenshot.sh` drives it.

use std::path::PathBuf;

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};

#[derive(Resource, Debug, Clone)]
pub(crate) struct CapturePlan {
    /// Real seconds after start.
    pub(crate) after: f32,
    pub(crate) path: PathBuf,
    /// Quit once the file is written.
    pub(crate) exit: bool,
}

#[derive(Resource, Default)]
struct CaptureState {
    requested: bool,
    saved: bool,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<CaptureState>()
        .add_systems(Update, capture.run_if(resource_exists::<CapturePlan>));
}

fn capture(
    mut commands: Commands,
    time: Res<Time<Real>>,
    plan: Res<CapturePlan>,
    mut state: ResMut<CaptureState>,
    mut exit: MessageWriter<AppExit>,
) {
    if state.saved {
        if plan.exit {
            exit.write(AppExit::Success);
        }
        return;
    }
    if state.requested || time.elapsed_secs() < plan.after {
        return;
    }
    state.requested = true;
    // What this frame draws, beside the picture: FILE.json.
    let mut list = plan.path.clone().into_os_string();
    list.push(".json");
    commands.insert_resource(super::drawlist::DrawListDue(list.into()));
    commands
        .spawn(Screenshot::primary_window())
        .observe(save_to_disk(plan.path.clone()))
        .observe(
            |_: On<ScreenshotCaptured>, mut state: ResMut<CaptureState>| {
                state.saved = true;
            },
        );
}
