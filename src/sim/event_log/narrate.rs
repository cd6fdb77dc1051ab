//! The one narrator: every event as a line a player reads, in Chinese. The
//! window's event stream and `heartvale replay` both tell events through
//! [`narrate`]; only where the names come from differs (the running town, or
//! the log's own `start` line).

use super::events::{AnswerUsed, CallKind, CallOutcome, EndReason, EventBody};
use super::narration::{Names, Narration, Strand, moved};
use crate::scenario::ResidentId;
use crate::sim::social::emotion::Emotion;
use crate::sim::social::message::{EndCause, Trigger};

/// Tells one event.
pub fn narrate(body: &EventBody, names: &impl Names) -> Narration {
    match body {
        EventBody::Start { .. } | EventBody::End { .. } | EventBody::LlmUsage { .. } => run(body),
        EventBody::Plan { .. }
        | EventBody::PlanFixed { .. }
        | EventBody::Move { .. }
        | EventBody::Arrive { .. }
        | EventBody::Sleep { .. }
        | EventBody::Wake { .. }
        | EventBody::Consolidate { .. } => day(body, names),
        EventBody::ConversationStart { .. }
        | EventBody::Message { .. }
        | EventBody::ConversationJoin { .. }
        | EventBody::SkillStart { .. }
        | EventBody::SkillEnd { .. }
        | EventBody::ConversationEnd { .. }
        | EventBody::RelationshipChange { .. } => social(body, names),
        EventBody::AppointmentMade { .. }
        | EventBody::AppointmentKept { .. }
        | EventBody::AppointmentMissed { .. }
        | EventBody::Appointment { .. }
        | EventBody::Notice { .. }
        | EventBody::NoticeRead { .. }
        | EventBody::Gathered { .. } => plans_together(body, names),
        EventBody::Learned { .. } => learned(body, names),
        EventBody::LlmCall { .. } => llm_call(body, names),
        EventBody::DateStart(_) | EventBody::DateRound(_) | EventBody::DateEnd(_) => {
            super::narrate_dates::narrate(body, names)
        }
    }
}

fn told(strand: Strand, residents: Vec<ResidentId>, text: String) -> Narration {
    Narration {
        strand,
        residents,
        conversation: None,
        text,
    }
}

fn joined(ids: &[ResidentId], names: &impl Names) -> String {
    ids.iter()
        .map(|id| names.resident(id))
        .collect::<Vec<_>>()
        .join("、")
}

/// The run's start, end and daily model accounting.
fn run(body: &EventBody) -> Narration {
    let text = match body {
        EventBody::Start {
            scenario,
            seed,
            days,
            brain,
            resumed,
            ..
        } => {
            let verb = if *resumed {
                "从存档继续"
            } else {
                "开始"
            };
            format!("▶ {scenario} {verb}：种子 {seed}，{days} 天，大脑 {brain}")
        }
        EventBody::End { reason, day, error } => {
            let why = error.as_deref().map_or(String::new(), |e| format!("：{e}"));
            format!("■ 结束（第 {day} 天）：{}{why}", end_reason(*reason))
        }
        EventBody::LlmUsage {
            day,
            calls,
            skipped,
            fallbacks,
            prompt_tokens,
            completion_tokens,
            latency_p50_ms,
            latency_p90_ms,
            ..
        } => {
            let strand = Strand::Llm;
            let text = format!(
                "第 {day} 天：模型调用 {calls} 次，跳过 {skipped}，改用内置大脑 {fallbacks}，{prompt_tokens}+{completion_tokens} 个 token，延迟 p50 {latency_p50_ms} ms、p90 {latency_p90_ms} ms"
            );
            return told(strand, Vec::new(), text);
        }
        _ => String::new(),
    };
    told(Strand::Run, Vec::new(), text)
}

/// A resident's own day: plans, walks, sleep, memories.
fn day(body: &EventBody, names: &impl Names) -> Narration {
    let (strand, who, text) = match body {
        EventBody::Plan {
            resident,
            activity,
            target_location,
            dialogue,
            duration,
            ..
        } => {
            // No emoji: the panels' fonts lack many (the map shows them as icons).
            let said = if dialogue.is_empty() {
                String::new()
            } else {
                format!("「{dialogue}」")
            };
            // In Chinese: the English action stays in the log.
            let doing = activity.doing_zh(&names.place(target_location));
            let text = format!("{doing}（{duration} 分钟）{said}");
            (Strand::Plan, resident, text)
        }
        EventBody::PlanFixed { resident, problems } => {
            let text = format!("的计划被修正：{}", problems.join("；"));
            (Strand::Plan, resident, text)
        }
        EventBody::Move {
            resident,
            to,
            minutes,
            ..
        } => {
            let text = format!("出发去 {}（约 {minutes} 分钟）", names.place(to));
            (Strand::Move, resident, text)
        }
        EventBody::Arrive { resident, location } => (
            Strand::Arrive,
            resident,
            format!("到了 {}", names.place(location)),
        ),
        EventBody::Sleep {
            resident,
            location,
            until,
        } => {
            let text = format!("在 {} 睡下了，到 {}", names.place(location), until.stamp());
            (Strand::Sleep, resident, text)
        }
        EventBody::Wake { resident, .. } => (Strand::Wake, resident, "醒了".to_string()),
        EventBody::Consolidate {
            resident,
            entries,
            summary,
            ..
        } => {
            let text = format!("把今天的 {entries} 条记忆整理成摘要：{summary}");
            (Strand::Consolidate, resident, text)
        }
        _ => unreachable!("narrate sends only a resident's day here"),
    };
    let text = format!("{} {text}", names.resident(who));
    told(strand, vec![who.clone()], text)
}

/// Conversations: who meets, what is said, what it changed.
fn social(body: &EventBody, names: &impl Names) -> Narration {
    let name = |id: &ResidentId| names.resident(id);
    let (who, text) = match body {
        EventBody::ConversationStart {
            participants,
            location,
            trigger,
            ..
        } => (
            participants.clone(),
            format!(
                "{} 在 {} {}",
                joined(participants, names),
                names.place(location),
                trigger_words(*trigger)
            ),
        ),
        EventBody::Message {
            conversation,
            speaker,
            text,
            emotion,
            ..
        } => {
            let feeling = match feeling(*emotion) {
                "" => String::new(),
                word => format!("（{word}）"),
            };
            return Narration {
                strand: Strand::Message,
                residents: vec![speaker.clone()],
                conversation: Some(*conversation),
                text: format!("{}：{text}{feeling}", name(speaker)),
            };
        }
        EventBody::ConversationJoin { resident, .. } => (
            vec![resident.clone()],
            format!("{} 加入了聊天", name(resident)),
        ),
        EventBody::SkillStart { .. } | EventBody::SkillEnd { .. } => skill(body, names),
        EventBody::ConversationEnd {
            participants,
            reason,
            topic,
            messages,
            ..
        } => (
            participants.clone(),
            format!(
                "{} 聊完了（{}，话题：{}，{messages} 句）",
                joined(participants, names),
                end_cause(*reason),
                crate::sim::social::analysis::topic_zh(topic)
            ),
        ),
        EventBody::RelationshipChange {
            resident,
            other,
            old_strength,
            new_strength,
            relation,
            reason,
            ..
        } => {
            let strand = Strand::Relationship;
            let text = format!(
                "{} 对 {} 的好感：{}（{}）{reason}",
                name(resident),
                name(other),
                moved(old_strength.round() as i64, new_strength.round() as i64),
                relation.label()
            );
            return told(strand, vec![resident.clone(), other.clone()], text);
        }
        _ => unreachable!("narrate sends only conversations here"),
    };
    told(Strand::Conversation, who, text)
}

/// A HEART RULE skill run in a conversation.
fn skill(body: &EventBody, names: &impl Names) -> (Vec<ResidentId>, String) {
    match body {
        EventBody::SkillStart {
            resident,
            partner,
            skill,
            ..
        } => (
            vec![resident.clone(), partner.clone()],
            format!(
                "{} 和 {} 谈起「{skill}」",
                names.resident(resident),
                names.resident(partner)
            ),
        ),
        EventBody::SkillEnd {
            resident,
            partner,
            skill,
            finished,
            results,
            error,
            ..
        } => {
            // Both named, as at the start: a reader following either sees whose talk it was.
            let (name, other) = (names.resident(resident), names.resident(partner));
            let text = match (finished, error) {
                (true, _) => {
                    let got: Vec<String> =
                        results.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    format!("{name} 和 {other} 谈完「{skill}」：{}", got.join("；"))
                }
                (false, Some(e)) => format!("{name} 和 {other} 的「{skill}」出错：{e}"),
                (false, None) => format!("{name} 和 {other} 的「{skill}」没谈完"),
            };
            (vec![resident.clone(), partner.clone()], text)
        }
        _ => (Vec::new(), String::new()),
    }
}

/// Appointments, gatherings and notices.
fn plans_together(body: &EventBody, names: &impl Names) -> Narration {
    let name = |id: &ResidentId| names.resident(id);
    let (strand, who, text) = match body {
        EventBody::AppointmentMade {
            residents,
            location,
            at,
            ..
        } => (
            Strand::Appointment,
            residents.clone(),
            format!(
                "{} 约好 {} 在 {} 见面",
                joined(residents, names),
                at.stamp(),
                names.place(location)
            ),
        ),
        EventBody::AppointmentKept {
            residents,
            location,
            ..
        } => (
            Strand::Appointment,
            residents.clone(),
            format!(
                "{} 在 {} 如约见面",
                joined(residents, names),
                names.place(location)
            ),
        ),
        EventBody::AppointmentMissed {
            residents,
            location,
            ..
        } => (
            Strand::Appointment,
            residents.clone(),
            format!(
                "{} 在 {} 的约定落空了",
                joined(residents, names),
                names.place(location)
            ),
        ),
        EventBody::Appointment {
            resident,
            gathering,
            will_attend,
            ..
        } => {
            let going = if *will_attend {
                "打算去"
            } else {
                "不打算去"
            };
            let text = format!("{} 得知「{gathering}」，{going}", name(resident));
            (Strand::Appointment, vec![resident.clone()], text)
        }
        EventBody::Notice {
            resident,
            location,
            text,
            ..
        } => {
            let place = names.place(location);
            let text = format!("{} 在 {place} 贴出公告：{text}", name(resident));
            (Strand::Notice, vec![resident.clone()], text)
        }
        EventBody::NoticeRead {
            resident, author, ..
        } => {
            let text = format!("{} 读了 {} 的公告", name(resident), name(author));
            (Strand::Notice, vec![resident.clone()], text)
        }
        EventBody::Gathered {
            gathering,
            location,
            residents,
            ..
        } => {
            let text = format!(
                "「{gathering}」在 {} 散了，来了 {} 人：{}",
                names.place(location),
                residents.len(),
                joined(residents, names)
            );
            (Strand::Appointment, residents.clone(), text)
        }
        _ => unreachable!("narrate sends only appointments and notices here"),
    };
    told(strand, who, text)
}

/// Something a resident learnt, and from where.
fn learned(body: &EventBody, names: &impl Names) -> Narration {
    let EventBody::Learned {
        resident,
        text,
        source,
        from,
        ..
    } = body
    else {
        unreachable!("narrate sends only what was learnt here");
    };
    let how = match (source.as_str(), from) {
        (_, Some(by)) => format!("听{}说", names.resident(by)),
        ("notice", _) => "在公告板上看到".to_string(),
        ("saw", _) => "亲眼看见".to_string(),
        ("lived", _) => "亲身经历".to_string(),
        _ => "早就知道".to_string(),
    };
    let line = format!("{} {how}：{text}", names.resident(resident));
    let mut who = vec![resident.clone()];
    who.extend(from.iter().cloned());
    told(Strand::Learned, who, line)
}

/// One call to a model and what came of it.
fn llm_call(body: &EventBody, names: &impl Names) -> Narration {
    let EventBody::LlmCall {
        resident,
        call,
        outcome,
        used,
        reason,
        early,
        latency_ms,
        prompt_tokens,
        completion_tokens,
        ..
    } = body
    else {
        unreachable!("narrate sends only model calls here");
    };
    let ahead = if *early { "（提前问的）" } else { "" };
    let why = reason
        .as_deref()
        .map_or(String::new(), |r| format!("：{r}"));
    let text = format!(
        "{} 的{}调用{ahead}{}，用了{}的答案（{latency_ms} ms，{prompt_tokens}+{completion_tokens} 个 token）{why}",
        names.resident(resident),
        call_kind(*call),
        call_outcome(*outcome),
        answer_used(*used)
    );
    told(Strand::Llm, vec![resident.clone()], text)
}

/// An emotion as the reader sees it (nothing for a neutral line).
fn feeling(e: Emotion) -> &'static str {
    match e {
        Emotion::Happy => "开心",
        Emotion::Sad => "难过",
        Emotion::Angry => "生气",
        Emotion::Curious => "好奇",
        Emotion::Neutral => "",
    }
}

fn trigger_words(t: Trigger) -> &'static str {
    match t {
        Trigger::Proximity => "碰上了，聊了起来",
        Trigger::Approach => "主动搭话，聊了起来",
        Trigger::Work => "招呼客人，聊了起来",
        Trigger::Appointment => "赴约，聊了起来",
        Trigger::Requested => "应邀聊了起来",
        Trigger::Gathering => "在聚会上招呼大家，聊了起来",
    }
}

fn end_cause(c: EndCause) -> &'static str {
    match c {
        EndCause::Said => "道了别",
        EndCause::MaxTurns => "聊够了",
        EndCause::Timeout => "没人接话",
        EndCause::Interrupted => "被打断",
        EndCause::UrgentNeed => "有急事",
        EndCause::Left => "有人走开了",
    }
}

fn end_reason(r: EndReason) -> &'static str {
    match r {
        EndReason::DaysDone => "天数已满",
        EndReason::AllAsleep => "全镇都睡了",
        EndReason::Stopped => "手动停止",
        EndReason::Failed => "运行失败",
    }
}

fn call_kind(k: CallKind) -> &'static str {
    match k {
        CallKind::Plan => "计划",
        CallKind::Repair => "修正计划",
        CallKind::Line => "台词",
        CallKind::Summary => "记忆总结",
        CallKind::Recap => "对话回顾",
    }
}

fn call_outcome(o: CallOutcome) -> &'static str {
    match o {
        CallOutcome::Ok => "成功",
        CallOutcome::Invalid => "答案不可用",
        CallOutcome::Error => "出错",
        CallOutcome::Skipped => "没有发出",
        CallOutcome::Abandoned => "到结束也没回来",
    }
}

fn answer_used(u: AnswerUsed) -> &'static str {
    match u {
        AnswerUsed::Llm => "模型",
        AnswerUsed::Repair => "（重试中）",
        AnswerUsed::Builtin => "内置大脑",
        AnswerUsed::Dropped => "（作废）",
        AnswerUsed::None => "（无）",
    }
}
