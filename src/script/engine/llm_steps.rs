//! The steps a model answers — `ai_say`, each round of `ai_ask`, `think` and
//! the extraction after `ask` — their prompts, and what is done with the
//! answers (parsed leniently: garbage falls back so the script always advances).

use std::collections::BTreeMap;

use serde_json::{Map, Value as Json};

use super::Engine;
use super::offline::offline_say;
use super::prompt::StepPrompt;
use super::protocol::{Effect, LlmKind, LlmRequest, State, Var, Wait, answer_schema, json_text};
use crate::base::json::extract_object;
use crate::script::format::{Action, ActionKind, Step};

/// Rounds of `ai_ask` when the action names no `max_rounds`.
const DEFAULT_ROUNDS: u32 = 6;

impl Engine<'_> {
    /// The prompt of an LLM step: who speaks (definition, tone), the time to the
    /// second and the scene, the chat (within the dialogue budget), the task.
    fn prompt(&self, st: &State, a: &Action, task: &str, ask: &str) -> StepPrompt {
        let role = &st.ai_role;
        let mut persona = format!("你是{role}");
        if let Some(d) = self.script.role_define(role) {
            persona.push_str(&format!("（{d}）"));
        }
        persona.push('。');
        let tone = a.tone.as_deref().or(self.script.role_tone(role));
        if let Some(t) = tone {
            persona.push_str(&format!("说话风格：{t}。"));
        }
        let taboos = self.taboos(st);
        if !taboos.is_empty() {
            persona.push_str(&format!(
                "对方忌讳的话题，不要主动提起：{}。",
                taboos.join("；")
            ));
        }
        let mut moment = format!("现在是{}。", self.now);
        if let Some(scene) = &st.scene {
            moment.push_str(&format!("场景：{scene}。"));
        }
        let chat = self.chat_read_by(st, a);
        self.step_prompt(st, persona, moment, chat, format!("任务：{task}\n{ask}"))
    }

    /// What the taboo variables in sight hold now (empty ones left out).
    pub(super) fn taboos(&self, st: &State) -> Vec<String> {
        let values = self
            .script
            .taboos
            .iter()
            .filter_map(|name| self.lookup(st, name));
        let texts = values.map(|v| v.text()).map(|t| t.trim().to_string());
        texts.filter(|t| !t.is_empty() && t != "无").collect()
    }

    /// The chat a step reads, as the design scopes it: `think` and `ai_ask`
    /// the chat of their goal, the extraction after `ask` the question and
    /// its answer; `ai_say` the recent chat.
    fn chat_read_by<'s>(&self, st: &'s State, a: &Action) -> &'s [super::protocol::ChatLine] {
        let from = match (a.kind(), st.frames.last()) {
            (Some(ActionKind::Think | ActionKind::AiAsk), Some(f)) => f.chat_from,
            (Some(ActionKind::Ask), Some(f)) => f.action_from,
            _ => st.said.saturating_sub(super::protocol::CHAT_KEEP),
        };
        st.chat_since(from)
    }

    /// Asks the host's model and waits for the answer.
    pub(super) fn request(
        &self,
        st: &mut State,
        kind: LlmKind,
        prompt: StepPrompt,
        wants: Vec<(String, String)>,
        list: bool,
        fx: &mut Vec<Effect>,
    ) {
        st.next_request += 1;
        let req = LlmRequest {
            id: st.next_request,
            kind,
            prompt: prompt.text,
            tokens: prompt.tokens,
            schema: answer_schema(kind, &wants, list),
            wants,
            list,
            repair: false,
        };
        st.wait = Wait::Llm { id: req.id };
        st.pending = Some(req.clone());
        fx.push(Effect::Llm(req));
    }

    /// Variables an action's outputs extract: (name, definition).
    fn wants(&self, st: &State, a: &Action, fx: &mut Vec<Effect>) -> Vec<(String, String)> {
        a.output
            .iter()
            .flatten()
            .filter_map(|o| {
                let name = o.get.as_ref()?.value.clone();
                let define = o
                    .define
                    .as_deref()
                    .map_or(String::new(), |d| self.interpolate(st, d, fx));
                Some((name, define))
            })
            .collect()
    }

    /// `ai_say`: one generated line.
    pub(super) fn request_line(
        &self,
        st: &mut State,
        a: &Action,
        task: &str,
        fx: &mut Vec<Effect>,
    ) {
        let task = self.interpolate(st, task, fx);
        // A task that sets its own length or form (100 字, a four-line verse)
        // is not cut down to one sentence.
        let ask = match sets_its_form(&task) {
            true => "按任务的要求说（只输出要说的话）。",
            false => "说一句话（只输出这句话）。",
        };
        let prompt = self.prompt(st, a, &task, ask);
        self.request(st, LlmKind::Say, prompt, Vec::new(), false, fx);
    }

    /// One round of `ai_ask`.
    pub(super) fn request_round(&self, st: &mut State, fx: &mut Vec<Effect>) {
        let Some(a) = self.current_action(st) else {
            return;
        };
        let Some(Step::AiAsk(task)) = a.step() else {
            return;
        };
        let task = self.interpolate(st, task, fx);
        // The design's default exit: 完成引导任务后.
        let exit = a.exit.as_deref().unwrap_or("完成引导任务后");
        let wants = self.wants(st, a, fx);
        let list = a.tolist.is_some();
        let names: Vec<String> = wants.iter().map(|(n, d)| format!("{n}（{d}）")).collect();
        let ask = format!(
            "继续追问或回答对方的问题，直到满足结束条件：{exit}。\n只输出一个 JSON 对象：{{\"reply\": 你要说的一句话, \"exit\": 是否已满足结束条件(true/false), \"vars\": {{{}}}}}{}",
            names.join("，"),
            if list {
                "；vars 的每个值是一个列表，每项对应提到的一个对象"
            } else {
                ""
            }
        );
        let task = self.with_known(st, task, &wants);
        let rounds = st.frames.last().map_or(0, |f| f.rounds) + 1;
        let ask = match rounds >= max_rounds(a) {
            true => {
                format!("{ask}\n这是最后一轮：不要再提问，回应对方并自然地收尾，exit 写 true。")
            }
            false => ask,
        };
        let prompt = self.prompt(st, a, &task, &ask);
        if let Some(f) = st.frames.last_mut() {
            f.rounds = rounds;
        }
        self.request(st, LlmKind::AskRound, prompt, wants, list, fx);
    }

    /// The task with what is already known of the wanted variables (said
    /// before the recent chat, or kept up to date by `auto`): follow it up
    /// rather than ask again.
    fn with_known(&self, st: &State, task: String, wants: &[(String, String)]) -> String {
        let known: Vec<String> = wants
            .iter()
            // A declared default is not what the conversation told.
            .filter(|(n, _)| st.given.contains(n))
            .filter_map(|(n, _)| match self.lookup(st, n) {
                Some(Var::Null) | None => None,
                Some(v) => Some(format!("{n}：{}", v.text())),
            })
            .collect();
        if known.is_empty() {
            task
        } else {
            format!(
                "{task}\n已经知道的（不要重复问，可以接着深入问）：{}",
                known.join("；")
            )
        }
    }

    /// `think`, or the extraction after `ask`: one call for the outputs
    /// (none when the action only `set`s).
    pub(super) fn request_outputs(&self, st: &mut State, kind: LlmKind, fx: &mut Vec<Effect>) {
        let Some(a) = self.current_action(st) else {
            return;
        };
        let wants = self.wants(st, a, fx);
        if wants.is_empty() {
            self.commit(st, &Map::new(), fx);
            self.advance(st);
            return;
        }
        let task = match &a.think {
            Some(t) => self.interpolate(st, &t.value, fx),
            None => "从对方刚才的回答中提取信息".to_string(),
        };
        let names: Vec<String> = wants.iter().map(|(n, d)| format!("{n}（{d}）")).collect();
        let ask = format!(
            "只输出一个 JSON 对象：{{\"vars\": {{{}}}}}",
            names.join("，")
        );
        let list = a.tolist.is_some();
        let prompt = self.prompt(st, a, &task, &ask);
        self.request(st, kind, prompt, wants, list, fx);
    }

    /// Writes an action's outputs: `get`s from `vars`, `set`s from their values.
    fn commit(&self, st: &mut State, vars: &Map<String, Json>, fx: &mut Vec<Effect>) {
        let Some(a) = self.current_action(st).cloned() else {
            return;
        };
        if let Some(list) = &a.tolist {
            let items = self.list_items(st, &a, vars, fx);
            self.set(st, &list.value, Var::List(items), fx);
        }
        for o in a.output.iter().flatten() {
            if let Some(get) = &o.get {
                if a.tolist.is_some() {
                    continue;
                }
                match vars.get(&get.value) {
                    Some(v) if !v.is_null() => {
                        self.set(st, &get.value, Var::Text(json_text(v)), fx)
                    }
                    _ => fx.push(Effect::Warning {
                        message: format!("`{}` was not extracted; left as it was", get.value),
                    }),
                }
            } else if let (Some(set), Some(value)) = (&o.set, &o.value) {
                // `value: false` / `value: 3` stay typed; text is interpolated.
                let v = match &value.value {
                    Json::Bool(_) | Json::Number(_) => Var::from_json(&value.value),
                    other => Var::Text(self.interpolate(st, &json_text(other), fx)),
                };
                self.set(st, &set.value, v, fx);
            }
        }
    }

    /// `tolist`: one record per item; each wanted field is a list (or one
    /// value for all).
    fn list_items(
        &self,
        st: &State,
        a: &Action,
        vars: &Map<String, Json>,
        fx: &mut Vec<Effect>,
    ) -> Vec<BTreeMap<String, String>> {
        let fields: Vec<String> = self.wants(st, a, fx).into_iter().map(|(n, _)| n).collect();
        let len = fields
            .iter()
            .filter_map(|f| vars.get(f).and_then(|v| v.as_array()).map(Vec::len))
            .max()
            .unwrap_or(0);
        (0..len)
            .map(|i| {
                fields
                    .iter()
                    .filter_map(|f| {
                        let v = vars.get(f)?;
                        let x = v.as_array().map_or(Some(v), |arr| arr.get(i))?;
                        Some((f.clone(), json_text(x)))
                    })
                    .collect()
            })
            .collect()
    }

    /// An LLM reply: parsed leniently; garbage falls back so the script always advances.
    pub(super) fn llm_reply(&self, st: &mut State, text: &str, fx: &mut Vec<Effect>) {
        let Some(req) = st.pending.take() else { return };
        st.wait = Wait::Start;
        let object = extract_object(text).ok();
        // JSON was asked for and not given: one repair request, then the fallbacks.
        let plain = matches!(req.kind, LlmKind::Say | LlmKind::Summary);
        if object.is_none() && !plain && !req.repair {
            return self.ask_again(st, req, text, fx);
        }
        let vars = object
            .as_ref()
            .and_then(|o| o.get("vars"))
            .and_then(|v| v.as_object())
            .cloned()
            .or_else(|| object.as_ref().and_then(|o| o.as_object()).cloned())
            .unwrap_or_default();
        match req.kind {
            LlmKind::Say => self.line_answered(st, &req, text, fx),
            LlmKind::AskRound => self.round_answered(st, object.as_ref(), text, &vars, fx),
            LlmKind::Extract => {
                self.commit(st, &vars, fx);
                self.advance(st);
            }
            LlmKind::Update => self.update_answered(st, &req, &vars, fx),
            LlmKind::Summary => self.summary_answered(st, text, fx),
        }
    }

    /// The answer was not the JSON asked for: the same request once more, with it.
    fn ask_again(&self, st: &mut State, req: LlmRequest, text: &str, fx: &mut Vec<Effect>) {
        fx.push(Effect::Warning {
            message: "the reply was not the JSON asked for; asking once more".into(),
        });
        st.next_request += 1;
        let retry = LlmRequest {
            id: st.next_request,
            prompt: format!(
                "{}\n\n你上一次的回答不是要求的 JSON：\n{}\n请只输出那个 JSON 对象，不要别的文字。",
                req.prompt,
                text.chars().take(400).collect::<String>()
            ),
            repair: true,
            ..req
        };
        st.wait = Wait::Llm { id: retry.id };
        st.pending = Some(retry.clone());
        fx.push(Effect::Llm(retry));
    }

    /// `ai_say`'s line, unquoted (the built-in one if it is empty).
    fn line_answered(&self, st: &mut State, req: &LlmRequest, text: &str, fx: &mut Vec<Effect>) {
        let line = text
            .trim()
            .trim_matches(['"', '「', '」', '“', '”'])
            .trim()
            .to_string();
        let line = if line.is_empty() {
            fx.push(Effect::Warning {
                message: "empty ai_say reply; the built-in line is used".into(),
            });
            offline_say(req)
        } else {
            line
        };
        self.ai_line(st, line, ActionKind::AiSay, fx);
        self.advance(st);
    }

    /// One round of `ai_ask`: its reply said, then either the variables are
    /// committed (the model says the task is done, or the rounds are used up)
    /// or the human answers again.
    fn round_answered(
        &self,
        st: &mut State,
        object: Option<&Json>,
        text: &str,
        vars: &Map<String, Json>,
        fx: &mut Vec<Effect>,
    ) {
        let reply = object
            .and_then(|o| o.get("reply"))
            .and_then(|r| r.as_str())
            .map(str::to_string)
            .unwrap_or_else(|| {
                if object.is_none() && !text.trim().is_empty() && !text.contains('{') {
                    text.trim().to_string()
                } else {
                    String::new()
                }
            });
        let said_exit = object.and_then(|o| o.get("exit")).is_some_and(|e| {
            e.as_bool() == Some(true) || e.as_str().is_some_and(|s| s.eq_ignore_ascii_case("true"))
        });
        let max = self.current_action(st).map_or(DEFAULT_ROUNDS, max_rounds);
        let rounds = st.frames.last().map_or(0, |f| f.rounds);
        let last_asks = rounds >= max && !said_exit && asks(&reply);
        if !reply.is_empty() {
            self.ai_line(st, reply, ActionKind::AiAsk, fx);
        }
        if last_asks && let Some(f) = st.frames.last_mut() {
            // The rounds are used up on a question: the human answers it first.
            f.closing = true;
        }
        if (said_exit || rounds >= max) && !last_asks {
            // Variables are committed at exit, as the design says.
            self.commit(st, vars, fx);
            self.advance(st);
        } else {
            fx.push(Effect::AwaitText);
            st.wait = Wait::Text;
        }
    }
}

/// An `ai_ask`'s rounds: `max_rounds` (1–10), else [`DEFAULT_ROUNDS`].
fn max_rounds(a: &Action) -> u32 {
    a.max_rounds
        .as_ref()
        .map_or(DEFAULT_ROUNDS, |m| m.value.clamp(1, 10) as u32)
}

/// Whether a line asks something (ends with a question mark).
fn asks(line: &str) -> bool {
    line.trim_end_matches(['"', '」', '”', ' '])
        .ends_with(['？', '?'])
}

/// Whether an `ai_say` task asks for a length or a form of its own: a count
/// of characters, sentences, lines… (`100字`, `三句`, `四行`) or a form
/// (a poem, a list, steps). Variables' names (`{名字}`) are not read.
fn sets_its_form(task: &str) -> bool {
    const FORMS: [&str; 7] = ["首", "篇", "诗", "列出", "清单", "步骤", "分点"];
    const UNITS: [char; 7] = ['字', '句', '行', '段', '条', '点', '个'];
    const COUNTS: &str = "0123456789两二三四五六七八九十百千几";
    let mut plain = String::new();
    let mut depth = 0u32;
    for c in task.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            c if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    let chars: Vec<char> = plain.chars().filter(|c| !c.is_whitespace()).collect();
    let counted = chars
        .windows(2)
        .any(|w| COUNTS.contains(w[0]) && UNITS.contains(&w[1]));
    counted || FORMS.iter().any(|f| plain.contains(f))
}

#[cfg(test)]
mod tests {
    use super::sets_its_form;

    #[test]
    fn a_task_sets_its_form_by_count_or_kind() {
        for yes in [
            "用100字介绍练习",
            "写一首四行的小诗",
            "用三句话总结",
            "列出两个步骤",
        ] {
            assert!(sets_its_form(yes), "{yes}");
        }
        for no in [
            "问候{名字}",
            "温柔地鼓励{用户名}",
            "用一句话祝福对方",
            "左右为难时安慰他",
        ] {
            assert!(!sets_its_form(no) || no.contains("一句"), "{no}");
        }
        assert!(!sets_its_form("问候{名字}") && !sets_its_form("左右为难时安慰他"));
    }
}
