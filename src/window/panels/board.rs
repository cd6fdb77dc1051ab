//! The notice board (N), the tuning sliders (T) and the help (H).

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use super::Panels;
use crate::scenario::Town;
use crate::sim::LoadedScenario;
use crate::sim::notice_board::NoticeBoard;
use crate::sim::residents::Roster;
use crate::sim::town::ActiveTuning;
use crate::window::reload::ScenarioWatch;
use crate::window::tuning::{SLIDERS, Written, write_back};

/// The notice board (N): every notice, newest first.
pub(super) fn notice_board(
    mut contexts: EguiContexts,
    mut panels: ResMut<Panels>,
    board: Res<NoticeBoard>,
    roster: Res<Roster>,
    town: Res<Town>,
) -> Result {
    if !panels.notices {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    egui::Window::new("公告板")
        .open(&mut panels.notices)
        .default_pos([590.0, 44.0])
        .default_width(360.0)
        .vscroll(true)
        .show(ctx, |ui| {
            if board.notices.is_empty() {
                ui.label("还没有公告。");
            }
            for n in board.notices.iter().rev() {
                ui.group(|ui| {
                    ui.label(egui::RichText::new(&n.text).strong());
                    ui.label(format!(
                        "—— {}，{}，{}",
                        roster.name(&n.author),
                        town.name(n.location),
                        n.posted
                    ));
                });
            }
        });
    Ok(())
}

/// The tuning sliders (T): live, and written back to `tuning.yaml` on request.
pub(super) fn tuning_panel(
    mut contexts: EguiContexts,
    mut panels: ResMut<Panels>,
    mut tuning: ResMut<ActiveTuning>,
    loaded: Res<LoadedScenario>,
    watch: Option<Res<ScenarioWatch>>,
    mut message: Local<String>,
) -> Result {
    if !panels.tuning {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    egui::Window::new("调参")
        .open(&mut panels.tuning)
        .default_pos([590.0, 330.0])
        .default_width(380.0)
        .show(ctx, |ui| {
            ui.label("拖动即时生效；写回会改 tuning.yaml 里对应的数（注释保留）。");
            // Scrolls, so the buttons stay on screen in a small window.
            egui::ScrollArea::vertical()
                .max_height(300.0)
                .show(ui, |ui| {
                    for s in SLIDERS {
                        let mut v = (s.get)(&tuning.0);
                        let slider = egui::Slider::new(&mut v, s.range.clone())
                            .text(s.label)
                            .step_by(if s.whole { 1.0 } else { 0.0 });
                        if ui.add(slider).changed() {
                            (s.set)(&mut tuning.0, v);
                        }
                    }
                });
            ui.horizontal(|ui| {
                // The watched scenario folder (a generated town has none).
                let dir = watch.as_ref().map(|w| w.dir.clone());
                let can = dir.is_some();
                if ui
                    .add_enabled(can, egui::Button::new("写回 tuning.yaml"))
                    .clicked()
                    && let Some(dir) = dir
                {
                    *message = match write_back(&dir, &tuning.0) {
                        Ok(Written::InPlace(p)) => {
                            format!("已写入 {}（上一版另存为 .bak）", p.display())
                        }
                        Ok(Written::Rewritten(p)) => {
                            format!("已重写 {}（原文件另存为 .bak）", p.display())
                        }
                        Err(e) => format!("写入失败：{e}"),
                    };
                }
                if ui.button("恢复文件中的值").clicked() {
                    tuning.0 = loaded.0.tuning.clone();
                    message.clear();
                }
            });
            if !message.is_empty() {
                ui.label(message.as_str());
            }
        });
    Ok(())
}

/// The keys and what hot reload does (H).
pub(super) fn help(mut contexts: EguiContexts, mut panels: ResMut<Panels>) -> Result {
    if !panels.help {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    egui::Window::new("帮助")
        .open(&mut panels.help)
        .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
        .collapsible(false)
        .show(ctx, |ui| {
            egui::Grid::new("keys").striped(true).show(ui, |ui| {
                for (key, what) in [
                    ("空格", "暂停 / 继续"),
                    ("1 – 5", "速度 1× 5× 20× 60× 300×"),
                    (".", "暂停时前进一步"),
                    ("WASD / 方向键 / 拖动", "移动视角"),
                    ("滚轮", "缩放"),
                    ("点击居民或气泡", "选中，打开检查器（气泡：整段对话）"),
                    ("F", "跟随选中的居民"),
                    ("Esc", "取消选择"),
                    ("I", "居民检查器"),
                    ("E", "事件流"),
                    ("Y", "今日要闻"),
                    ("R", "关系矩阵与曲线"),
                    ("L", "约会（丘比特）"),
                    ("N", "公告板"),
                    ("T", "调参"),
                    ("H / F1", "帮助"),
                    ("U", "隐藏 / 显示顶栏"),
                    ("M", "演示模式（导演镜头）"),
                ] {
                    ui.strong(key);
                    ui.label(what);
                    ui.end_row();
                }
            });
            ui.label("改动场景 YAML 会自动重新载入；文件有错时显示 文件:行:列，游戏继续用上一个正确的版本。");
        });
    Ok(())
}
