//! The egui panels, each a movable window toggled by a key (and a button in
//! the top bar): the resident inspector (I), the event stream (E), the
//! relationships matrix and plot (R), the notice board (N), the tuning
//! sliders (T) and the help overlay (H).

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, EguiTextureHandle, egui};

use super::ViewSet;
use super::counsel::CounselPanel;
use super::feed::{EventFeed, RelationHistory, strands};
use super::people::EmojiIndex;
use super::reload::ScenarioWatch;
use super::select::{CameraGoal, Selection, UiWantsInput};
use super::tuning::{SLIDERS, Written, write_back};
use crate::scenario::Town;
use crate::sim::LoadedScenario;
use crate::sim::clock::Clock;
use crate::sim::event_log::Strand;
use crate::sim::memory::Memories;
use crate::sim::notices::NoticeBoard;
use crate::sim::residents::{
    Activity, Needs, Persona, Relationships, Resident, Roster, Thinking, Walking, Whereabouts,
};
use crate::sim::social::SocialState;
use crate::sim::town::ActiveTuning;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Panels>()
        .init_resource::<StreamFilter>()
        .init_resource::<PlottedPairs>()
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
            ),
        );
}

/// Which panels are open.
#[derive(Resource, Debug, Clone, PartialEq)]
pub(crate) struct Panels {
    pub inspector: bool,
    pub events: bool,
    pub relations: bool,
    pub notices: bool,
    pub tuning: bool,
    pub help: bool,
}

impl Default for Panels {
    fn default() -> Self {
        Self {
            inspector: true,
            events: true,
            relations: false,
            notices: false,
            tuning: false,
            help: false,
        }
    }
}

impl Panels {
    /// Each panel's switch, label and key, in top-bar order.
    pub fn toggles(&mut self) -> [(&mut bool, &'static str, &'static str); 6] {
        [
            (&mut self.inspector, "居民", "I"),
            (&mut self.events, "事件", "E"),
            (&mut self.relations, "关系", "R"),
            (&mut self.notices, "公告", "N"),
            (&mut self.tuning, "调参", "T"),
            (&mut self.help, "帮助", "H"),
        ]
    }

    /// Opens the panels named (`inspector,events,relations,notices,tuning,help`)
    /// and closes the others; an unknown name is an error.
    pub fn only(names: &[String]) -> Result<Self, String> {
        let mut p = Self {
            inspector: false,
            events: false,
            ..Self::default()
        };
        for name in names {
            let panel = match name.trim() {
                "inspector" => &mut p.inspector,
                "events" => &mut p.events,
                "relations" => &mut p.relations,
                "notices" => &mut p.notices,
                "tuning" => &mut p.tuning,
                "help" => &mut p.help,
                other => {
                    return Err(format!(
                        "no panel `{other}` (inspector, events, relations, notices, tuning, help)"
                    ));
                }
            };
            *panel = true;
        }
        Ok(p)
    }

    /// Flips the panel of `key`; false if the key opens none.
    pub fn toggle(&mut self, key: KeyCode) -> bool {
        let panel = match key {
            KeyCode::KeyI => &mut self.inspector,
            KeyCode::KeyE => &mut self.events,
            KeyCode::KeyR => &mut self.relations,
            KeyCode::KeyN => &mut self.notices,
            KeyCode::KeyT => &mut self.tuning,
            KeyCode::KeyH | KeyCode::F1 => &mut self.help,
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
    pub kind: Option<Strand>,
    pub resident: Option<crate::scenario::ResidentId>,
}

/// Pairs `(a, b)` (roster indices: `a`'s view of `b`) drawn in the plot.
#[derive(Resource, Debug, Default)]
pub(crate) struct PlottedPairs(pub Vec<(u32, u32)>);

fn bar(ui: &mut egui::Ui, label: &str, value: f32) {
    ui.add(
        egui::ProgressBar::new((value / 100.0).clamp(0.0, 1.0))
            .desired_height(14.0)
            .text(format!("{label} {value:.0}")),
    );
}

fn clock_text(t: crate::base::time::GameTime) -> String {
    format!(
        "{:02}:{:02}",
        t.minute_of_day() / 60,
        t.minute_of_day() % 60
    )
}

type InspectorView<'a> = (
    &'a Persona,
    &'a Needs,
    Option<&'a Activity>,
    &'a Whereabouts,
    Has<Thinking>,
    Option<&'a Walking>,
    &'a Memories,
    &'a Relationships,
);

#[allow(clippy::too_many_arguments)]
fn inspector(
    mut contexts: EguiContexts,
    panels: Res<Panels>,
    mut selection: ResMut<Selection>,
    roster: Res<Roster>,
    town: Res<Town>,
    social: Res<SocialState>,
    feed: Res<EventFeed>,
    residents: Query<InspectorView>,
    icons: Option<Res<EmojiIndex>>,
    assets: Res<AssetServer>,
    (mut counsel, clock): (ResMut<CounselPanel>, Res<Clock>),
    mut search: Local<String>,
) -> Result {
    let Some(id) = selection.resident.clone() else {
        return Ok(());
    };
    if !panels.inspector {
        return Ok(());
    }
    let Some((persona, needs, activity, at, thinking, walking, memories, ties)) =
        roster.entity(&id).and_then(|e| residents.get(e).ok())
    else {
        return Ok(());
    };
    // The plan's emoji as its icon (egui's fonts lack many emoji).
    let icon = activity
        .and_then(|a| icons.as_ref()?.path(&a.text.emoji))
        .map(|path| contexts.add_image(EguiTextureHandle::Strong(assets.load(path))));
    let ctx = contexts.ctx_mut()?;
    let right = ctx.viewport_rect().right();
    let mut open = true;
    egui::Window::new(format!("{} · {}", persona.name, persona.occupation))
        .id(egui::Id::new("inspector"))
        .open(&mut open)
        .default_pos([right - 380.0, 44.0])
        .default_width(360.0)
        .default_height(640.0)
        .vscroll(true)
        .show(ctx, |ui| {
            ui.horizontal(|ui| {
                ui.label(format!(
                    "{} 岁 · {} · {}",
                    persona.age, persona.gender, persona.id
                ));
                let follow = if selection.follow {
                    "跟随中 (F)"
                } else {
                    "跟随 (F)"
                };
                if ui.selectable_label(selection.follow, follow).clicked() {
                    selection.follow = !selection.follow;
                }
            });
            ui.label(egui::RichText::new(format!("「{}」", persona.quote)).italics());
            if persona.counsel.is_some() {
                let talking = counsel
                    .session
                    .as_ref()
                    .is_some_and(|s| s.resident == persona.id);
                if ui
                    .add_enabled(!talking, egui::Button::new("💬 交谈"))
                    .on_hover_text("和它进行一次 HEART RULE 会谈")
                    .clicked()
                {
                    counsel.start(&persona.0, clock.now);
                }
            }
            egui::CollapsingHeader::new("性格与目标")
                .default_open(true)
                .show(ui, |ui| {
                    let p = &persona.personality;
                    for (label, v) in [
                        ("开放性", p.openness),
                        ("尽责性", p.conscientiousness),
                        ("外向性", p.extraversion),
                        ("宜人性", p.agreeableness),
                        ("神经质", p.neuroticism),
                    ] {
                        bar(ui, label, v);
                    }
                    if !persona.traits.is_empty() {
                        ui.label(format!("特点：{}", persona.traits.join("、")));
                    }
                    for g in &persona.goals {
                        ui.label(format!("🎯 {}", g.text));
                    }
                });
            egui::CollapsingHeader::new("需求")
                .default_open(true)
                .show(ui, |ui| {
                    bar(ui, "精力", needs.energy);
                    bar(ui, "饱腹", needs.hunger);
                    bar(ui, "社交", needs.social);
                    bar(ui, "娱乐", needs.fun);
                });
            egui::CollapsingHeader::new("此刻")
                .default_open(true)
                .show(ui, |ui| {
                    let place = town.name(at.0);
                    if thinking {
                        ui.label("💭 正在想下一步…");
                    }
                    match activity {
                        Some(a) => {
                            ui.horizontal(|ui| {
                                if let Some(icon) = icon {
                                    ui.image((icon, egui::vec2(20.0, 20.0)));
                                }
                                ui.label(&a.text.action);
                            });
                            if !a.text.dialogue.is_empty() {
                                ui.label(format!("「{}」", a.text.dialogue));
                            }
                            let target = town.name(a.target);
                            ui.label(match walking {
                                Some(_) => format!("从 {place} 走向 {target}"),
                                None => format!("在 {place}"),
                            });
                            ui.label(format!("忙到 {}", a.busy_until));
                        }
                        None => {
                            ui.label(format!("在 {place}，空闲"));
                        }
                    }
                });
            // The conversation: the clicked bubble's, else the one underway.
            let conversation = selection.conversation.or_else(|| {
                roster
                    .idx(&id)
                    .and_then(|i| social.talking.get(i as usize).copied().flatten())
            });
            if let Some(c) = conversation {
                egui::CollapsingHeader::new(format!("对话 #{c}"))
                    .default_open(true)
                    .show(ui, |ui| {
                        for e in feed
                            .entries
                            .iter()
                            .filter(|e| e.told.conversation == Some(c))
                        {
                            ui.label(format!("{} {}", clock_text(e.time), e.told.text));
                        }
                    });
            }
            egui::CollapsingHeader::new(format!("记忆（{}）", memories.entries.len()))
                .default_open(true)
                .show(ui, |ui| {
                    ui.add(egui::TextEdit::singleline(&mut *search).hint_text("搜索记忆…"));
                    let needle = search.trim();
                    let shown = memories
                        .entries
                        .iter()
                        .rev()
                        .filter(|m| needle.is_empty() || m.text.contains(needle))
                        .take(200);
                    for m in shown {
                        ui.label(format!("{} ★{} {}", m.time.stamp(), m.importance, m.text));
                    }
                });
            egui::CollapsingHeader::new(format!("关系（{}）", ties.0.len()))
                .default_open(true)
                .show(ui, |ui| {
                    let mut ties: Vec<_> = ties.0.iter().collect();
                    ties.sort_by(|a, b| b.strength.total_cmp(&a.strength));
                    egui::Grid::new("ties").striped(true).show(ui, |ui| {
                        for t in ties {
                            ui.label(roster.name(&t.with));
                            ui.label(format!("{:?}", t.kind));
                            ui.add(
                                egui::ProgressBar::new(t.strength / 100.0)
                                    .desired_width(80.0)
                                    .text(format!("{:.0}", t.strength)),
                            );
                            ui.label(&t.impression);
                            ui.end_row();
                        }
                    });
                });
        });
    if !open {
        selection.clear();
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn event_stream(
    mut contexts: EguiContexts,
    mut panels: ResMut<Panels>,
    feed: Res<EventFeed>,
    roster: Res<Roster>,
    mut filter: ResMut<StreamFilter>,
    mut selection: ResMut<Selection>,
    mut goal: ResMut<CameraGoal>,
    figures: Query<&Transform, With<Resident>>,
) -> Result {
    if !panels.events {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let bottom = ctx.viewport_rect().bottom();
    egui::Window::new("事件")
        .open(&mut panels.events)
        .default_pos([8.0, bottom - 300.0])
        .default_size([620.0, 240.0])
        .show(ctx, |ui| {
            ui.horizontal(|ui| {
                egui::ComboBox::from_id_salt("kind")
                    .selected_text(filter.kind.map_or("全部类型", |s| s.label()))
                    .show_ui(ui, |ui| {
                        ui.selectable_value(&mut filter.kind, None, "全部类型");
                        for s in strands() {
                            ui.selectable_value(&mut filter.kind, Some(s), s.label());
                        }
                    });
                let who = filter
                    .resident
                    .as_ref()
                    .map_or("全部居民".to_string(), |id| roster.name(id).to_string());
                egui::ComboBox::from_id_salt("resident")
                    .selected_text(who)
                    .show_ui(ui, |ui| {
                        ui.selectable_value(&mut filter.resident, None, "全部居民");
                        for (id, name) in roster.ids.iter().zip(&roster.names) {
                            ui.selectable_value(&mut filter.resident, Some(id.clone()), name);
                        }
                    });
                ui.label(format!("共 {} 条", feed.total));
            });
            ui.separator();
            let entries: Vec<_> = feed
                .entries
                .iter()
                .filter(|e| filter.kind.is_none_or(|k| e.told.strand == k))
                .filter(|e| {
                    filter
                        .resident
                        .as_ref()
                        .is_none_or(|r| e.told.residents.contains(r))
                })
                .collect();
            let start = entries.len().saturating_sub(500);
            egui::ScrollArea::vertical()
                .stick_to_bottom(true)
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    for e in &entries[start..] {
                        let (strand, text) = (e.told.strand.label(), &e.told.text);
                        let line = format!("{} [{strand}] {text}", clock_text(e.time));
                        if ui.selectable_label(false, line).clicked()
                            && let Some(first) = e.told.residents.first()
                        {
                            selection.select(first.clone());
                            selection.conversation = e.told.conversation;
                            if let Some(t) =
                                roster.entity(first).and_then(|en| figures.get(en).ok())
                            {
                                goal.0 = Some(t.translation.truncate());
                            }
                        }
                    }
                });
        });
    Ok(())
}

/// Colour of a tie's strength in the matrix (grey → green).
fn strength_colour(s: f32) -> egui::Color32 {
    let t = (s / 100.0).clamp(0.0, 1.0);
    egui::Color32::from_rgb(
        (200.0 - 150.0 * t) as u8,
        (200.0 - 20.0 * t) as u8,
        (200.0 - 130.0 * t) as u8,
    )
}

const PLOT_COLOURS: [egui::Color32; 6] = [
    egui::Color32::from_rgb(220, 80, 60),
    egui::Color32::from_rgb(60, 120, 220),
    egui::Color32::from_rgb(60, 170, 90),
    egui::Color32::from_rgb(200, 150, 40),
    egui::Color32::from_rgb(150, 80, 200),
    egui::Color32::from_rgb(40, 170, 180),
];

#[allow(clippy::too_many_arguments)]
fn relations(
    mut contexts: EguiContexts,
    mut panels: ResMut<Panels>,
    roster: Res<Roster>,
    residents: Query<(&Resident, &Relationships)>,
    history: Res<RelationHistory>,
    mut plotted: ResMut<PlottedPairs>,
    selection: Res<Selection>,
) -> Result {
    if !panels.relations {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    // Big towns: the selected resident and its strongest ties, else the first 20.
    let mut shown: Vec<u32> = (0..roster.len() as u32).take(20).collect();
    if roster.len() > 20
        && let Some(sel) = selection.resident.as_ref().and_then(|id| roster.idx(id))
        && let Some((_, rel)) = residents.iter().find(|(r, _)| r.idx == sel)
    {
        let mut ties: Vec<_> = rel.0.iter().collect();
        ties.sort_by(|a, b| b.strength.total_cmp(&a.strength));
        shown = std::iter::once(sel)
            .chain(ties.iter().map(|t| t.with_idx))
            .take(20)
            .collect();
    }
    // Only the shown rows and columns: a big town's full matrix would not fit.
    let column = |idx: u32| shown.iter().position(|&s| s == idx);
    let mut strength = vec![vec![None; shown.len()]; shown.len()];
    for (r, rel) in &residents {
        let Some(row) = column(r.idx) else {
            continue;
        };
        for t in &rel.0 {
            if let Some(col) = column(t.with_idx) {
                strength[row][col] = Some(t.strength);
            }
        }
    }
    egui::Window::new("关系")
        .open(&mut panels.relations)
        .default_pos([8.0, 44.0])
        .default_width(560.0)
        .vscroll(true)
        .show(ctx, |ui| {
            ui.label("行对列的看法（0–100）。点格子把这一对加入下方的曲线。");
            egui::Grid::new("matrix")
                .spacing([2.0, 2.0])
                .show(ui, |ui| {
                    ui.label("");
                    for &b in &shown {
                        ui.label(
                            egui::RichText::new(
                                roster.names[b as usize].chars().take(2).collect::<String>(),
                            )
                            .small(),
                        );
                    }
                    ui.end_row();
                    for (row, &a) in shown.iter().enumerate() {
                        ui.label(egui::RichText::new(&roster.names[a as usize]).small());
                        for (col, &b) in shown.iter().enumerate() {
                            let s = strength[row][col];
                            let text = s.map_or(String::new(), |s| format!("{s:.0}"));
                            let picked = plotted.0.contains(&(a, b));
                            let button = egui::Button::new(
                                egui::RichText::new(text)
                                    .small()
                                    .color(egui::Color32::BLACK),
                            )
                            .fill(if a == b {
                                egui::Color32::DARK_GRAY
                            } else {
                                s.map_or(egui::Color32::from_gray(235), strength_colour)
                            })
                            .stroke(if picked {
                                egui::Stroke::new(2.0, egui::Color32::RED)
                            } else {
                                egui::Stroke::NONE
                            })
                            .min_size(egui::vec2(28.0, 18.0));
                            if ui.add_enabled(a != b, button).clicked() {
                                if picked {
                                    plotted.0.retain(|p| *p != (a, b));
                                } else {
                                    plotted.0.push((a, b));
                                    if plotted.0.len() > PLOT_COLOURS.len() {
                                        plotted.0.remove(0);
                                    }
                                }
                            }
                        }
                        ui.end_row();
                    }
                });
            ui.separator();
            plot(ui, &history, &plotted.0, &roster);
        });
    Ok(())
}

/// Strength over game time of the plotted pairs (hourly samples).
fn plot(ui: &mut egui::Ui, history: &RelationHistory, pairs: &[(u32, u32)], roster: &Roster) {
    let (rect, _) = ui.allocate_exact_size(
        egui::vec2(ui.available_width().max(300.0), 160.0),
        egui::Sense::hover(),
    );
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 2.0, egui::Color32::from_gray(250));
    for y in [0.0, 50.0, 100.0] {
        let py = rect.bottom() - rect.height() * y / 100.0;
        painter.line_segment(
            [egui::pos2(rect.left(), py), egui::pos2(rect.right(), py)],
            egui::Stroke::new(1.0, egui::Color32::from_gray(215)),
        );
    }
    let n = history.samples.len().max(2) - 1;
    for (k, &(a, b)) in pairs.iter().enumerate() {
        let colour = PLOT_COLOURS[k % PLOT_COLOURS.len()];
        let series = history.series(a, b);
        let points: Vec<egui::Pos2> = series
            .iter()
            .map(|(t, s)| {
                let i = history.samples.iter().position(|x| x.0 == *t).unwrap_or(0);
                egui::pos2(
                    rect.left() + rect.width() * i as f32 / n as f32,
                    rect.bottom() - rect.height() * s / 100.0,
                )
            })
            .collect();
        painter.add(egui::Shape::line(points, egui::Stroke::new(2.0, colour)));
        ui.colored_label(
            colour,
            format!(
                "{} 对 {}：{}",
                roster.names[a as usize],
                roster.names[b as usize],
                series.last().map_or("—".into(), |(_, s)| format!("{s:.0}"))
            ),
        );
    }
    if pairs.is_empty() {
        ui.label("（还没有选择要画的一对）");
    }
}

fn notice_board(
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

fn tuning_panel(
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
            for s in SLIDERS {
                let mut v = (s.get)(&tuning.0);
                let slider = egui::Slider::new(&mut v, s.range.clone())
                    .text(s.label)
                    .step_by(if s.whole { 1.0 } else { 0.0 });
                if ui.add(slider).changed() {
                    (s.set)(&mut tuning.0, v);
                }
            }
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
                        Ok(Written::InPlace(p)) => format!("已写入 {}", p.display()),
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

fn help(mut contexts: EguiContexts, mut panels: ResMut<Panels>) -> Result {
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
                    ("R", "关系矩阵与曲线"),
                    ("N", "公告板"),
                    ("T", "调参"),
                    ("H / F1", "帮助"),
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

#[cfg(test)]
mod tests {
    use super::*;

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
            }
        );
        assert!(!p.toggle(KeyCode::KeyW), "W pans the map");
        let some = Panels::only(&["tuning".into(), "relations".into()]).unwrap();
        assert!(some.tuning && some.relations && !some.inspector && !some.events);
        assert!(Panels::only(&["nope".into()]).unwrap_err().contains("nope"));
        assert_eq!(p.toggles().len(), 6);
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
            let mut v: Vec<(u32, f32)> = q
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
