//! 今日要闻 (Y): the day's news — friendships and fallings-out, arguments,
//! gatherings and who came, appointments kept or missed, notices, dates.
//! A line selects its first resident and glides the camera there.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use super::{Panels, clock_text};
use crate::base::time::GameTime;
use crate::scenario::ResidentId;
use crate::sim::clock::Clock;
use crate::sim::residents::Roster;
use crate::window::feed::News;

/// The day shown: `None` follows the clock's day.
#[derive(Resource, Debug, Default)]
pub(crate) struct NewsDay(pub(crate) Option<chrono::NaiveDate>);

/// The news panel.
pub(super) fn news_panel(
    mut contexts: EguiContexts,
    (mut panels, mut day): (ResMut<Panels>, ResMut<NewsDay>),
    (news, roster, clock): (Res<News>, Res<Roster>, Res<Clock>),
    companions: Option<Res<crate::sim::companion::Companions>>,
    mut look: super::LookAt,
) -> Result {
    if !panels.news {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let today = clock.now.date();
    let shown = day.0.unwrap_or(today);
    egui::Window::new("今日要闻")
        .open(&mut panels.news)
        .default_pos([8.0, 44.0])
        .default_size([420.0, 320.0])
        .show(ctx, |ui| {
            day_picker(ui, &news, &mut day, shown, today);
            ui.separator();
            let lines = day_lines(&news, companions.as_deref(), &roster, shown);
            if lines.is_empty() {
                ui.weak("（这一天还没有什么新鲜事。）");
            }
            egui::ScrollArea::vertical()
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    for (time, text, who) in lines {
                        let line = format!("{} {text}", clock_text(time));
                        if ui.selectable_label(false, line).clicked()
                            && let Some(first) = who
                        {
                            look.resident(&first);
                        }
                    }
                });
        });
    Ok(())
}

/// The day's news and the player's key moments with companions, in time
/// order: (when, the line, whom a click selects).
fn day_lines(
    news: &News,
    companions: Option<&crate::sim::companion::Companions>,
    roster: &Roster,
    day: chrono::NaiveDate,
) -> Vec<(GameTime, String, Option<ResidentId>)> {
    let mut lines: Vec<_> = news
        .0
        .of(day)
        .iter()
        .map(|h| {
            let text = format!("【{}】{}", h.kind.tag(), h.text);
            (h.time, text, h.residents.first().cloned())
        })
        .collect();
    for (id, state) in companions.into_iter().flat_map(|c| &c.0) {
        for m in state.moments.iter().filter(|m| m.time.date() == day) {
            let text = format!("【关键时刻】你和{}：{}", roster.name(id), m.name);
            lines.push((m.time, text, Some(id.clone())));
        }
    }
    lines.sort_by_key(|(t, ..)| *t);
    lines
}

/// ◀ the date ▶ over the days with news; "今天" goes back to following.
fn day_picker(
    ui: &mut egui::Ui,
    news: &News,
    day: &mut NewsDay,
    shown: chrono::NaiveDate,
    today: chrono::NaiveDate,
) {
    let days: Vec<_> = news.0.days().collect();
    let before = days.iter().rev().find(|d| **d < shown).copied();
    let after = days.iter().find(|d| **d > shown && **d <= today).copied();
    ui.horizontal(|ui| {
        if ui
            .add_enabled(before.is_some(), egui::Button::new("◀"))
            .clicked()
        {
            day.0 = before;
        }
        let label = if shown == today {
            format!("{shown} · 今天")
        } else {
            shown.to_string()
        };
        ui.strong(label);
        if ui
            .add_enabled(after.is_some(), egui::Button::new("▶"))
            .clicked()
        {
            day.0 = after.filter(|d| *d != today);
        }
        if day.0.is_some() && ui.button("今天").clicked() {
            day.0 = None;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::companion::session::MomentRecord;
    use crate::sim::companion::Companions;

    /// The player's key moments with a companion join the day's news, in
    /// time order, and only on their own day.
    #[test]
    fn key_moments_join_the_days_news() {
        let app = crate::window::testing::view_app();
        let roster = app.world().resource::<Roster>().clone();
        let id = roster.ids()[0].clone();
        let t = |h: i64| GameTime(h * 3600);
        let mut news = News::default();
        let notice = crate::sim::event_log::SimEvent {
            time: t(9),
            body: crate::sim::event_log::EventBody::Notice {
                resident: id.clone(),
                location: crate::scenario::LocationId::new("square"),
                notice: 1,
                text: "联谊会".into(),
            },
        };
        news.0
            .add(&notice, &crate::sim::event_log::LogNames::default());
        let mut state = crate::companion::CompanionState::default();
        for (h, name) in [(12, "第一次见面"), (7, "告诉你名字"), (30, "第二天")] {
            state.moments.push(MomentRecord {
                id: name.into(),
                chapter: 1,
                name: name.into(),
                time: t(h),
                user: String::new(),
                reply: String::new(),
                gained: 5,
                status: crate::companion::MomentStatus::Triggered,
            });
        }
        let companions = Companions([(id.clone(), state)].into());
        let lines = day_lines(&news, Some(&companions), &roster, t(0).date());
        let texts: Vec<&str> = lines.iter().map(|(_, s, _)| s.as_str()).collect();
        assert_eq!(texts.len(), 3, "{texts:?}");
        assert!(texts[0].contains("告诉你名字") && texts[0].starts_with("【关键时刻】"));
        assert!(texts[1].contains("【公告】"));
        assert!(texts[2].contains("第一次见面"));
        assert!(lines.iter().all(|(_, _, who)| who.as_ref() == Some(&id)));
    }
}
