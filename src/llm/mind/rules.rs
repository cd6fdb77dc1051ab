//! The world's rules a model's plan must keep, whatever it writes: eat
//! where food is served, work where one works, sleep at home, eat when
//! starving, be at one's own gathering (and one promised to) when it is on,
//! post the notice one's goal calls for. A plan that breaks one is sent back
//! to the model with the reason, then replaced by the built-in plan; every
//! reason is in the log (`llm_call`).

use crate::scenario::Service;
use crate::sim::brain::{Plan, PlanContext};
use crate::sim::residents::ActivityKind;

/// Guests are due at a gathering this many minutes before it starts…
const GATHERING_LEAD: i64 = 30;
/// …and need not set off for it this close to its end.
const GATHERING_TAIL: i64 = 20;
/// Notices go up from this many minutes after waking…
const NOTICE_AFTER_WAKING: u32 = 20;
/// …until this hour (minutes).
const NOTICE_UNTIL: u32 = 21 * 60;

/// Which rule `plan` breaks for the resident in `cx`, if any, in words the
/// model is told.
pub(crate) fn rule_problem(plan: &Plan, cx: &PlanContext<'_>) -> Option<String> {
    let town = cx.town;
    let target = town.find(plan.target_location.trim()).or_else(|| {
        town.indices()
            .find(|&l| town.name(l) == plan.target_location.trim())
    })?;
    let kind = plan
        .activity
        .unwrap_or_else(|| ActivityKind::from_action(&plan.action));
    let place = town.name(target);
    let me = cx.me;
    if let Some(duty) = duty_due(cx)
        && !duty.kept_by(kind, target)
    {
        return Some(duty.reason);
    }
    match kind {
        ActivityKind::Eat if !town.get(target).has(Service::Food) => Some(format!(
            "{place}没有吃的，吃饭要去有食物的地方（家里或食堂、酒馆）"
        )),
        ActivityKind::Work => match &me.work {
            Some(w) if w.place != target => {
                Some(format!("你在{}上班，不在{place}", town.name(w.place)))
            }
            None => Some("你没有要上的班".to_string()),
            _ => None,
        },
        ActivityKind::Sleep if target != me.home => Some(format!(
            "睡觉要回自己家（{}），不在{place}",
            town.name(me.home)
        )),
        _ if kind != ActivityKind::Eat && hungry(cx) => {
            Some("你已经饿了很久（饱腹很低），先去有食物的地方吃饭".to_string())
        }
        _ => None,
    }
}

/// Hungry past putting it off: starving, or low and no meal for hours.
fn hungry(cx: &PlanContext<'_>) -> bool {
    let n = cx.needs;
    let since = n.last_meal.minutes_until(cx.now);
    n.hunger < cx.tuning.planner.starving_below || (n.hunger < HUNGRY && since >= SKIPPED_MEAL)
}

/// Below this fullness…
const HUNGRY: f32 = 45.0;
/// …and this long (minutes) since the last meal, one must eat.
const SKIPPED_MEAL: i64 = 300;

/// Something the resident must do now: be at a gathering, post a notice.
struct Duty {
    reason: String,
    kind: ActivityKind,
    place: Option<crate::scenario::LocIdx>,
}

impl Duty {
    fn kept_by(&self, kind: ActivityKind, target: crate::scenario::LocIdx) -> bool {
        kind == self.kind && self.place.is_none_or(|p| p == target)
    }
}

/// The gathering one organises or promised to go to, while it is on (or
/// about to be); else the notice a goal calls for, in daytime.
fn duty_due(cx: &PlanContext<'_>) -> Option<Duty> {
    let now = cx.now;
    for a in cx.agenda.appointments.iter().filter(|a| a.will_attend) {
        let Some(g) = cx.gatherings.get(a.gathering.i()) else {
            continue;
        };
        let open = g.starts.plus_minutes(-GATHERING_LEAD) <= now
            && now < g.ends.plus_minutes(-GATHERING_TAIL);
        if open {
            let host = g.organiser == cx.me.id;
            let why = if host {
                "你张罗的"
            } else {
                "你答应去的"
            };
            return Some(Duty {
                reason: format!(
                    "{why}{}正在{}办，现在该去那里（activity: attend）",
                    g.title,
                    cx.town.name(g.location)
                ),
                kind: ActivityKind::Attend,
                place: Some(g.location),
            });
        }
    }
    let m = now.minute_of_day();
    let daytime = m >= cx.me.wake + NOTICE_AFTER_WAKING && m < NOTICE_UNTIL;
    let wants_notice = cx
        .me
        .goals
        .iter()
        .any(|g| g.notice.is_some() || g.gathering.is_some());
    let posted = cx.notices.notices.iter().any(|n| n.author == cx.me.id);
    let board = cx.town.nearest_with(cx.at, Service::NoticeBoard);
    match (daytime && wants_notice && !posted, board) {
        (true, Some(board)) => Some(Duty {
            reason: format!(
                "你的目标要在{}的公告板上贴出告示（action: Post Notice, activity: post_notice），今天就该贴",
                cx.town.name(board)
            ),
            kind: ActivityKind::PostNotice,
            place: None,
        }),
        _ => None,
    }
}
