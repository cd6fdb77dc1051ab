//! The top bar (date, weekday, time, day or night, speed and pause; who is
//! awake or asleep, conversations today; panel toggles), the time controls
//! (Space pauses, 1–5 pick 1×, 5×, 20×, 60×, 300× of the scenario's rate,
//! `.` steps once while paused), and the hot-reload message.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use super::panels::Panels;
use super::reload::ReloadStatus;
use super::select::UiWantsInput;
use super::{AssetDir, FONT, ViewSet};
use crate::sim::clock::{Clock, SimSpeed};
use crate::sim::outcome::SimOutcome;
use crate::sim::residents::Census;
use crate::sim::residents::RosterIdx;
use crate::sim::social::SocialState;

/// The speeds of keys 1–5.
pub(crate) const SPEEDS: [f32; 5] = [1.0, 5.0, 20.0, 60.0, 300.0];

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Update, (time_keys, latin_fallback).in_set(ViewSet::Input))
        .add_systems(
            EguiPrimaryContextPass,
            (load_panel_font, ui_wants_input, top_bar, reload_message).chain(),
        );
}

/// The map's CJK font has no Latin letters or digits (a generated town's
/// "3区广场", "张杰12"): Bevy's text falls back to its built-in Fira Mono for
/// them, once both fonts are in its collection.
fn latin_fallback(mut fonts: ResMut<bevy::text::FontCx>, mut done: Local<bool>) {
    if *done {
        return;
    }
    let Some(latin) = fonts.collection.family_id("Fira Mono") else {
        return;
    };
    // Digits and punctuation take the script of the text around them, so
    // Chinese runs need the fallback as much as Latin ones.
    for script in [*b"Latn", *b"Zyyy", *b"Hani"] {
        let script = fontique::Script::from_bytes(script);
        fonts
            .collection
            .append_fallbacks(script, std::iter::once(latin));
    }
    *done = true;
}

/// egui's own fonts have no Chinese: put the CJK font behind them, once the
/// context exists (it comes with the camera, after `Startup`).
fn load_panel_font(
    mut contexts: EguiContexts,
    dir: Res<AssetDir>,
    mut done: Local<bool>,
) -> Result {
    if *done {
        return Ok(());
    }
    *done = true;
    let bytes = std::fs::read(dir.0.join(FONT))?;
    let mut fonts = egui::FontDefinitions::default();
    fonts.font_data.insert(
        "cjk".into(),
        std::sync::Arc::new(egui::FontData::from_owned(bytes)),
    );
    for family in [egui::FontFamily::Proportional, egui::FontFamily::Monospace] {
        fonts.families.entry(family).or_default().push("cjk".into());
    }
    contexts.ctx_mut()?.set_fonts(fonts);
    Ok(())
}

/// Tells the map's input systems whether the panels hold pointer or keys.
fn ui_wants_input(mut contexts: EguiContexts, mut wants: ResMut<UiWantsInput>) -> Result {
    let ctx = contexts.ctx_mut()?;
    *wants = UiWantsInput {
        pointer: ctx.egui_wants_pointer_input() || ctx.is_pointer_over_egui(),
        keyboard: ctx.egui_wants_keyboard_input(),
    };
    Ok(())
}

fn time_keys(keys: Res<ButtonInput<KeyCode>>, ui: Res<UiWantsInput>, mut speed: ResMut<SimSpeed>) {
    if ui.keyboard {
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
        KeyCode::Period | KeyCode::NumpadDecimal if speed.paused => speed.pending_single_steps += 1,
        other => {
            if let Some(i) = DIGITS.iter().position(|k| *k == other) {
                speed.multiplier = SPEEDS[i];
            }
        }
    }
}

/// The part of the day, as the map's light shows it.
pub(crate) fn day_part(minute: u32) -> &'static str {
    match minute / 60 {
        5 | 6 => "☀ 清晨",
        7..=17 => "☀ 白天",
        18..=21 => "🌙 傍晚",
        _ => "🌙 夜里",
    }
}

/// 周一 … 周日.
pub(crate) fn weekday_zh(index: usize) -> &'static str {
    ["周一", "周二", "周三", "周四", "周五", "周六", "周日"][index % 7]
}

/// The top bar: date and time, the speed controls, who is awake, and the
/// panels' switches.
fn top_bar(
    mut contexts: EguiContexts,
    (clock, settings): (Res<Clock>, Res<crate::sim::RunSettings>),
    mut speed: ResMut<SimSpeed>,
    (census, social, outcome): (Res<Census>, Res<SocialState>, Res<SimOutcome>),
    mut panels: ResMut<Panels>,
) -> Result {
    if !panels.bar {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let asleep = (0..census.entries.len() as u32)
        .filter(|&i| census.asleep(RosterIdx(i)))
        .count();
    // Panels live in a full-window background Ui (egui 0.36).
    let mut root = egui::Ui::new(
        ctx.clone(),
        "root".into(),
        egui::UiBuilder::new()
            .layer_id(egui::LayerId::background())
            .max_rect(ctx.viewport_rect()),
    );
    egui::Panel::top("top_bar").show(&mut root, |ui| {
        ui.horizontal_wrapped(|ui| {
            date_and_time(ui, &clock, settings.seed);
            ui.separator();
            speed_controls(ui, &mut speed);
            ui.separator();
            ui.label(format!(
                "醒着 {} · 睡着 {} · 今日对话 {}",
                census.entries.len() - asleep,
                asleep,
                social.started_today()
            ));
            if outcome.ended() {
                ui.colored_label(egui::Color32::from_rgb(200, 90, 60), "模拟已结束");
            }
            ui.separator();
            for (on, label, key) in panels.toggles() {
                if ui.selectable_label(*on, label).on_hover_text(key).clicked() {
                    *on = !*on;
                }
            }
        });
    });
    Ok(())
}

/// `2026-04-06 周一 06:00`, the part of the day, the day's weather (what
/// the residents' talk of the sky agrees with), and the day of the run.
fn date_and_time(ui: &mut egui::Ui, clock: &Clock, seed: u64) {
    let now = clock.now;
    ui.strong(format!(
        "{} {} {:02}:{:02}",
        now.date(),
        weekday_zh(now.weekday_index()),
        now.minute_of_day() / 60,
        now.minute_of_day() % 60
    ));
    ui.label(day_part(now.minute_of_day()));
    ui.label(crate::base::weather::sky(seed, now).0.zh());
    ui.label(format!(
        "第 {}/{} 天",
        clock.day().min(clock.days),
        clock.days
    ));
}

/// Pause, a single step while paused, and the speeds.
fn speed_controls(ui: &mut egui::Ui, speed: &mut SimSpeed) {
    let pause = if speed.paused {
        "▶ 继续"
    } else {
        "⏸ 暂停"
    };
    if ui
        .selectable_label(speed.paused, pause)
        .on_hover_text("Space")
        .clicked()
    {
        speed.paused = !speed.paused;
    }
    if speed.paused && ui.button("步进").on_hover_text(".").clicked() {
        speed.pending_single_steps += 1;
    }
    if speed.reading_cap.is_some() {
        ui.label("📖 对话中，放慢")
            .on_hover_text("镜头跟随的居民正在说话：时间放慢到能读清每句话，说完恢复");
    }
    for (i, s) in SPEEDS.iter().enumerate() {
        if ui
            .selectable_label(speed.multiplier == *s, format!("{s}×"))
            .on_hover_text(format!("{}", i + 1))
            .clicked()
        {
            speed.multiplier = *s;
        }
    }
}

/// A broken scenario file: the error, in red, until the file is fixed; a
/// good reload: what changed, for a few seconds.
fn reload_message(
    mut contexts: EguiContexts,
    status: Option<Res<ReloadStatus>>,
    time: Res<Time<Real>>,
    mut shown_at: Local<Option<(u32, f32)>>,
) -> Result {
    let Some(status) = status else {
        return Ok(());
    };
    let ctx = contexts.ctx_mut()?;
    if let Some(error) = &status.error {
        egui::Window::new("场景文件有错")
            .anchor(egui::Align2::CENTER_TOP, [0.0, 48.0])
            .collapsible(false)
            .resizable(false)
            .show(ctx, |ui| {
                ui.colored_label(
                    egui::Color32::from_rgb(220, 60, 50),
                    "仍在运行上一个正确的版本。改好文件即可恢复：",
                );
                ui.monospace(error.trim_end());
            });
        return Ok(());
    }
    if status.reloads > 0 {
        let now = time.elapsed_secs();
        if shown_at.is_none_or(|(n, _)| n != status.reloads) {
            *shown_at = Some((status.reloads, now));
        }
        if let Some((_, at)) = *shown_at
            && now - at < 4.0
        {
            egui::Window::new("已重新载入")
                .anchor(egui::Align2::CENTER_TOP, [0.0, 48.0])
                .collapsible(false)
                .resizable(false)
                .title_bar(false)
                .show(ctx, |ui| {
                    ui.label(format!("已重新载入场景：{}", status.applied.join("；")));
                });
        }
    }
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
        assert_eq!(weekday_zh(0), "周一");
        assert_eq!(weekday_zh(6), "周日");
        assert_eq!(day_part(12 * 60), "☀ 白天");
        assert_eq!(day_part(20 * 60 + 43), "🌙 傍晚");
        assert_eq!(day_part(23 * 60), "🌙 夜里");
        assert_eq!(day_part(2 * 60), "🌙 夜里");
        assert_eq!(day_part(6 * 60), "☀ 清晨");
    }

    /// The controls drive the real-time clock: pause stops it, `.` steps it
    /// once, 300× runs 300 times as many minutes as 1×.
    #[test]
    fn speed_pause_and_step_drive_the_clock() {
        use crate::sim::clock::StepMode;
        use crate::window::testing::press;
        use bevy::time::TimeUpdateStrategy;
        use std::time::Duration;
        let mut app = crate::window::testing::view_app();
        app.insert_resource(StepMode::Realtime)
            .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
                100,
            )))
            .init_resource::<UiWantsInput>()
            .add_systems(Update, time_keys.in_set(ViewSet::Input));
        let minutes = |app: &App| app.world().resource::<Clock>().steps;
        let run = |app: &mut App, frames: u32| {
            for _ in 0..frames {
                app.update();
            }
        };
        run(&mut app, 2);
        // 1×: 2 game minutes a real second.
        let before = minutes(&app);
        run(&mut app, 50);
        let at_1x = minutes(&app) - before;
        assert!((9..=11).contains(&at_1x), "{at_1x} steps in 5 s at 1×");
        press(&mut app, KeyCode::Digit2);
        let before = minutes(&app);
        run(&mut app, 50);
        let at_5x = minutes(&app) - before;
        assert!((49..=51).contains(&at_5x), "{at_5x} steps in 5 s at 5×");
        press(&mut app, KeyCode::Space);
        let before = minutes(&app);
        run(&mut app, 30);
        assert_eq!(minutes(&app), before, "paused");
        press(&mut app, KeyCode::Period);
        run(&mut app, 5);
        assert_eq!(minutes(&app), before + 1, "one step");
        press(&mut app, KeyCode::Space);
        press(&mut app, KeyCode::Digit5);
        let before = minutes(&app);
        run(&mut app, 10);
        let at_300x = minutes(&app) - before;
        assert!(
            (590..=610).contains(&at_300x),
            "{at_300x} steps in 1 s at 300×"
        );
    }
}
