//! The resident inspector (I): who the selected resident is, its needs, what
//! it is doing, the conversation it is in, its memories and its ties.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiTextureHandle, egui};

use super::{Panels, bar, clock_text};
use crate::scenario::{ResidentId, Town};
use crate::sim::clock::Clock;
use crate::sim::memory::Memories;
use crate::sim::residents::{
    Activity, ActivityKind, Needs, Persona, Relationships, Roster, Thinking, Walking, Whereabouts,
};
use crate::sim::social::SocialState;
use crate::window::chat::ChatPanel;
use crate::window::counsel::CounselPanel;
use crate::window::feed::EventFeed;
use crate::window::people::EmojiIndex;
use crate::window::select::Selection;

type InspectorView<'a> = (
    &'a Persona,
    &'a Needs,
    Option<&'a Activity>,
    &'a Whereabouts,
    Has<Thinking>,
    Option<&'a Walking>,
    &'a Memories,
    &'a Relationships,
    &'a crate::sim::knowledge::Knowledge,
);

/// The inspector's row of a resident, as the query yields it.
type Shown<'a> = (
    &'a Persona,
    &'a Needs,
    Option<&'a Activity>,
    &'a Whereabouts,
    bool,
    Option<&'a Walking>,
    &'a Memories,
    &'a Relationships,
    &'a crate::sim::knowledge::Knowledge,
);

/// What the inspector shows of the town around the resident.
#[derive(bevy::ecs::system::SystemParam)]
pub(super) struct Around<'w> {
    roster: Res<'w, Roster>,
    town: Res<'w, Town>,
    social: Res<'w, SocialState>,
    feed: Res<'w, EventFeed>,
    clock: Res<'w, Clock>,
    brain: Option<Res<'w, crate::llm::LlmBrain>>,
    counsel_mind: Option<Res<'w, crate::window::counsel::CounselMind>>,
    tuning: Res<'w, crate::sim::town::ActiveTuning>,
    courses: Option<Res<'w, crate::sim::companion::CounselCourses>>,
}

/// The inspector window of the selected resident; closing it clears the selection.
pub(super) fn inspector(
    mut contexts: EguiContexts,
    (mut selection, mut counsel, mut chat): (
        ResMut<Selection>,
        ResMut<CounselPanel>,
        ResMut<ChatPanel>,
    ),
    around: Around,
    residents: Query<InspectorView>,
    (icons, assets): (Option<Res<EmojiIndex>>, Res<AssetServer>),
    mut search: Local<String>,
    (mut cupid, mut asking): (CupidButton, super::knowing::Asking),
) -> Result {
    let Some(id) = selection.resident.clone() else {
        return Ok(());
    };
    if !cupid.panels.inspector {
        return Ok(());
    }
    let Some(view) = around
        .roster
        .entity(&id)
        .and_then(|e| residents.get(e).ok())
    else {
        return Ok(());
    };
    let (persona, needs, activity, ..) = view;
    // The plan's emoji as its icon (egui's fonts lack many emoji).
    let icon = activity
        .and_then(|a| icons.as_ref()?.path(&a.text.emoji))
        .map(|path| contexts.add_image(EguiTextureHandle::Strong(assets.load(path))));
    let face = crate::window::art::portrait(&mut contexts, &assets, &persona.0);
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
                let side = egui::Vec2::splat(crate::window::art::PORTRAIT);
                ui.image((face, side));
                ui.vertical(|ui| header(ui, persona, &mut selection, &mut counsel, &around));
            });
            chat_button(ui, persona, &mut chat);
            cupid.show(ui, &persona.0, &around.roster);
            persona_section(ui, persona);
            needs_section(ui, needs);
            now_section(ui, &view, icon, &around.town);
            conversation_section(ui, &id, &selection, &around);
            let idx = around.roster.idx(&id);
            super::prompt_view::prompt_section(ui, around.brain.as_deref(), idx);
            asking.ask_section(ui, &id, (view.8, view.7, view.6, needs), &around.roster);
            asking.knowledge_section(ui, view.8, &around.roster);
            memories_section(ui, view.6, &mut search);
            ties_section(ui, view.7, &around.roster);
        });
    if !open {
        selection.clear();
    }
    Ok(())
}

/// Age, gender, id, the follow switch, the quote, and a talk button for
/// residents the player can counsel with.
fn header(
    ui: &mut egui::Ui,
    persona: &Persona,
    selection: &mut Selection,
    counsel: &mut CounselPanel,
    around: &Around,
) {
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
    if persona.counsel.is_none() {
        return;
    }
    let talking = counsel
        .session
        .as_ref()
        .is_some_and(|s| s.resident == persona.id);
    if ui
        .add_enabled(!talking, egui::Button::new("💬 交谈"))
        .on_hover_text("和它进行一次 HEART RULE 会谈")
        .clicked()
    {
        let budgeting = crate::window::counsel::CounselMind::budgeting(
            around.counsel_mind.as_deref(),
            &around.tuning.0.prompt,
        );
        let course = around
            .courses
            .as_ref()
            .and_then(|c| c.0.get(&persona.id))
            .cloned()
            .unwrap_or_default();
        counsel.start(&persona.0, around.clock.now, budgeting, &course);
    }
}

/// "💬 聊天": the player's free chat with this resident (the full companion
/// system where it has one).
fn chat_button(ui: &mut egui::Ui, persona: &Persona, chat: &mut ChatPanel) {
    let open = chat.is_with(&persona.id);
    let hover = if persona.companion.is_some() {
        "和它自由聊天：好感度、阶段、关键时刻"
    } else {
        "和TA随便聊聊"
    };
    if ui
        .add_enabled(!open, egui::Button::new("💬 聊天"))
        .on_hover_text(hover)
        .clicked()
    {
        let companion = persona.companion.is_some();
        chat.open(persona.id.clone(), persona.name.clone(), companion);
    }
}

/// The Big Five, traits and goals.
fn persona_section(ui: &mut egui::Ui, persona: &Persona) {
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
}

fn needs_section(ui: &mut egui::Ui, needs: &Needs) {
    egui::CollapsingHeader::new("需求")
        .default_open(true)
        .show(ui, |ui| {
            bar(ui, "精力", needs.energy);
            bar(ui, "饱腹", needs.hunger);
            bar(ui, "社交", needs.social);
            bar(ui, "娱乐", needs.fun);
        });
}

/// What the resident is doing now, where, and until when.
fn now_section(ui: &mut egui::Ui, view: &Shown, icon: Option<egui::TextureId>, town: &Town) {
    let (_, _, activity, at, thinking, walking, ..) = *view;
    egui::CollapsingHeader::new("此刻")
        .default_open(true)
        .show(ui, |ui| {
            let place = town.name(at.0);
            if thinking {
                ui.label("💭 正在想下一步…");
            }
            let Some(a) = activity else {
                ui.label(format!("在 {place}，空闲"));
                return;
            };
            ui.horizontal(|ui| {
                if let Some(icon) = icon {
                    ui.image((icon, egui::vec2(20.0, 20.0)));
                }
                ui.label(doing_label(&a.text.action, a.kind, town.name(a.target)));
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
        });
}

/// The conversation: the clicked bubble's, else the one underway.
fn conversation_section(
    ui: &mut egui::Ui,
    id: &ResidentId,
    selection: &Selection,
    around: &Around,
) {
    let conversation = selection.conversation.or_else(|| {
        around
            .roster
            .idx(id)
            .and_then(|i| around.social.talking_in(i))
    });
    let Some(c) = conversation else {
        return;
    };
    egui::CollapsingHeader::new(format!("对话 #{c}"))
        .default_open(true)
        .show(ui, |ui| {
            for e in around
                .feed
                .entries
                .iter()
                .filter(|e| e.told.conversation == Some(c))
            {
                ui.label(format!("{} {}", clock_text(e.time), e.told.text));
            }
        });
}

/// The memories, newest first, with a search box.
fn memories_section(ui: &mut egui::Ui, memories: &Memories, search: &mut String) {
    egui::CollapsingHeader::new(format!("记忆（{}）", memories.entries().len()))
        .default_open(true)
        .show(ui, |ui| {
            ui.add(egui::TextEdit::singleline(search).hint_text("搜索记忆…"));
            let needle = search.trim();
            let shown = memories
                .entries()
                .iter()
                .rev()
                .filter(|m| needle.is_empty() || m.text.contains(needle))
                .take(200);
            for m in shown {
                ui.label(format!("{} ★{} {}", m.time.stamp(), m.importance, m.text));
            }
        });
}

/// The ties, strongest first.
fn ties_section(ui: &mut egui::Ui, ties: &Relationships, roster: &Roster) {
    egui::CollapsingHeader::new(format!("关系（{}）", ties.len()))
        .default_open(true)
        .show(ui, |ui| {
            let mut ties: Vec<_> = ties.iter().collect();
            ties.sort_by(|a, b| b.strength.total_cmp(&a.strength));
            egui::Grid::new("ties").striped(true).show(ui, |ui| {
                for t in ties {
                    ui.label(roster.name(&t.with));
                    ui.label(t.kind.label());
                    ui.add(
                        egui::ProgressBar::new(t.strength / 100.0)
                            .desired_width(80.0)
                            .text(format!("{:.0}", t.strength)),
                    );
                    ui.label(&*t.impression);
                    ui.end_row();
                }
            });
        });
}

/// "💘 约会": the player asks Cupid's host for a date between this resident
/// and another, chosen from a list.
#[derive(bevy::ecs::system::SystemParam)]
pub(super) struct CupidButton<'w, 's> {
    panels: ResMut<'w, Panels>,
    dates: Res<'w, crate::sim::dating::TownDates>,
    host: Res<'w, crate::sim::dating::Cupid>,
    requests: ResMut<'w, crate::sim::dating::DateRequests>,
    partner: Local<'s, Option<ResidentId>>,
}

impl CupidButton<'_, '_> {
    fn show(&mut self, ui: &mut egui::Ui, me: &crate::scenario::Profile, roster: &Roster) {
        let Some((host, _)) = self.host.host else {
            return;
        };
        let my_idx = roster.idx(&me.id);
        if my_idx == Some(host) {
            ui.label(egui::RichText::new("💘 镇上的约会由TA主持（L 打开约会面板）").small());
            return;
        }
        let busy =
            |i: Option<crate::sim::residents::RosterIdx>| i.is_some_and(|i| self.dates.dating(i));
        if busy(my_idx) {
            if ui.button("💘 约会中：查看").clicked() {
                self.panels.dates = true;
            }
            return;
        }
        if self.partner.as_ref() == Some(&me.id) {
            *self.partner = None;
        }
        ui.horizontal(|ui| {
            let chosen = self.partner.as_ref().map_or("选择对象…".to_owned(), |id| {
                roster.name(id).to_owned()
            });
            egui::ComboBox::from_id_salt("date_partner")
                .selected_text(chosen)
                .show_ui(ui, |ui| {
                    for i in roster.indices() {
                        let id = roster.id_of(i);
                        if i == host || *id == me.id || self.dates.dating(i) {
                            continue;
                        }
                        let picked = self.partner.as_ref() == Some(id);
                        if ui.selectable_label(picked, roster.name_of(i)).clicked() {
                            *self.partner = Some(id.clone());
                        }
                    }
                });
            let ready = self.partner.is_some();
            let hover = format!(
                "请{}主持一场约会：两人空下来后去那里，最多 10 轮",
                roster.name_of(host)
            );
            if ui
                .add_enabled(ready, egui::Button::new("💘 约会"))
                .on_hover_text(hover)
                .clicked()
                && let Some(other) = self.partner.take()
            {
                self.requests.0.push((me.id.clone(), other));
                self.panels.dates = true;
            }
        });
    }
}

/// What a resident is doing, in Chinese for the player (the English
/// `action` stays in the plan and the log): a model's own words when it
/// wrote Chinese, "找阿朵聊天" for a chat with someone, else the kind of
/// action at its place.
pub(crate) fn doing_label(action: &str, kind: ActivityKind, place: &str) -> String {
    if let Some(who) = action.strip_prefix("Chat with ") {
        return format!("找{}聊天", who.trim());
    }
    let chinese = action
        .chars()
        .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c));
    if chinese && !action.chars().any(|c| c.is_ascii_alphabetic()) {
        return action.to_string();
    }
    kind.doing_zh(place)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_player_reads_what_residents_do_in_chinese() {
        use ActivityKind::*;
        assert_eq!(
            doing_label("Chat with 阿朵", Socialise, "星火酒馆"),
            "找阿朵聊天"
        );
        assert_eq!(
            doing_label("Cook and serve at the tavern", Work, "星火酒馆"),
            "在星火酒馆干活"
        );
        assert_eq!(doing_label("Relax at home", Idle, "马家"), "在马家歇一会儿");
        // A model that plans in Chinese is shown in its own words.
        assert_eq!(doing_label("去河边钓鱼", Leisure, "柳溪河畔"), "去河边钓鱼");
    }
}
