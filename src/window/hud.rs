//! The top bar (date, weekday, time, speed, pause; who is awake or asleep,
//! conversations today) and the time controls: Space pauses, 1–5 pick 1×, 5×,
//! 20×, 60×, 300× of the scenario's rate, `.` steps once while paused.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use super::FONT;
use crate::sim::clock::{Clock, SimSpeed};
use crate::sim::residents::Census;

/// The speeds of keys 1–5.
pub(crate) const SPEEDS: [f32; 5] = [1.0, 5.0, 20.0, 60.0, 300.0];

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Update, time_keys)
        .add_systems(EguiPrimaryContextPass, (load_panel_font, top_bar).chain());
}

/// egui's own fonts have no Chinese: put the CJK font behind them, once the
/// context exists (it comes with the camera, after `Startup`).
fn load_panel_font(mut contexts: EguiContexts, mut done: Local<bool>) -> Result {
    if *done {
        return Ok(());
    }
    *done = true;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets").join(FONT);
    let bytes = std::fs::read(&path)?;
    let mut fonts = egui::FontDefinitions::default();
    fonts
        .font_data
        .insert("cjk".into(), std::sync::Arc::new(egui::FontData::from_owned(bytes)));
    for family in [egui::FontFamily::Proportional, egui::FontFamily::Monospace] {
        fonts.families.entry(family).or_default().push("cjk".into());
    }
    contexts.ctx_mut()?.set_fonts(fonts);
    Ok(())
}

fn time_keys(keys: Res<ButtonInput<KeyCode>>, mut speed: ResMut<SimSpeed>, mut contexts: EguiContexts) {
    if contexts.ctx_mut().is_ok_and(|c| c.egui_wants_keyboard_input()) {
        return;
    }
    for key in keys.get_just_pressed() {
        time_key(&mut speed, *key);
    }
}

/// What one key does to the clock.
pub(crate) fn time_key(speed: &mut SimSpeed, key: KeyCode) {
    const DIGITS: [KeyCode; 5] = [
        KeyCode::Digit1,
        KeyCode::Digit2,
        KeyCode::Digit3,
        KeyCode::Digit4,
        KeyCode::Digit5,
    ];
    match key {
        KeyCode::Space => speed.paused = !speed.paused,
        KeyCode::Period if speed.paused => speed.pending_single_steps += 1,
        other => {
            if let Some(i) = DIGITS.iter().position(|k| *k == other) {
                speed.multiplier = SPEEDS[i];
            }
        }
    }
}

fn top_bar(mut contexts: EguiContexts, clock: Res<Clock>, speed: Res<SimSpeed>, census: Res<Census>) -> Result {
    let ctx = contexts.ctx_mut()?;
    let asleep = (0..census.entries.len() as u32).filter(|&i| census.asleep(i)).count();
    // Panels live in a full-window background Ui (egui 0.36).
    let mut root = egui::Ui::new(
        ctx.clone(),
        "root".into(),
        egui::UiBuilder::new()
            .layer_id(egui::LayerId::background())
            .max_rect(ctx.viewport_rect()),
    );
    egui::Panel::top("top_bar").show(&mut root, |ui| {
        ui.horizontal(|ui| {
            let now = clock.now;
            let night = !(6 * 60..22 * 60).contains(&now.minute_of_day());
            ui.strong(format!(
                "{} {} {}",
                now.date(),
                now.weekday_name(),
                now.to_string().rsplit(' ').next().unwrap_or_default()
            ));
            ui.label(if night { "🌙 夜" } else { "☀ 昼" });
            ui.separator();
            ui.label(if speed.paused {
                "⏸ 暂停".to_string()
            } else {
                format!("▶ {}×", speed.multiplier)
            });
            ui.separator();
            ui.label(format!("醒着 {} · 睡着 {}", census.entries.len() - asleep, asleep));
            ui.separator();
            ui.label(format!("第 {} 天", clock.day()));
        });
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_pause_pick_speeds_and_step() {
        let mut speed = SimSpeed::new(1.0);
        time_key(&mut speed, KeyCode::Digit4);
        assert_eq!(speed.multiplier, 60.0);
        time_key(&mut speed, KeyCode::Digit5);
        assert_eq!(speed.multiplier, 300.0);
        // `.` steps only while paused.
        time_key(&mut speed, KeyCode::Period);
        assert_eq!(speed.pending_single_steps, 0);
        time_key(&mut speed, KeyCode::Space);
        assert!(speed.paused);
        time_key(&mut speed, KeyCode::Period);
        time_key(&mut speed, KeyCode::Period);
        assert_eq!(speed.pending_single_steps, 2);
        time_key(&mut speed, KeyCode::Space);
        assert!(!speed.paused);
        time_key(&mut speed, KeyCode::KeyQ);
        assert_eq!(speed.multiplier, 300.0);
    }
}
