//! Answers when nothing else answers: a short telling said back to the
//! player (「晚上你给他做了鲫鱼汤？」), else a line of the companion's stage or
//! one about the message's topic.

use super::{Vars, Writer};

impl Writer<'_> {
    /// Anything else: a line of its stage, or one about the message's topic.
    pub(super) fn small_talk(&self) -> String {
        if let Some(line) = self.echo() {
            return line;
        }
        let cx = self.cx;
        // A title told of (《百年孤独》) is the topic, marks and all.
        let titled = cx
            .message
            .split_once('《')
            .and_then(|(_, r)| r.split_once('》'))
            .map(|(t, _)| format!("《{t}》"));
        let topic = titled.or_else(|| crate::companion::profile::topic_of(cx.message));
        let stage = cx
            .spec
            .stage(cx.state.stage())
            .map(|s| s.lines.as_slice())
            .unwrap_or_default();
        let mut lines: Vec<String> = stage.to_vec();
        // Lines naming the topic drop out when the message has none.
        lines.extend(self.bank.small_talk.iter().cloned());
        let v = Vars {
            topic: topic.unwrap_or_default(),
            ..Vars::default()
        };
        self.pick(&lines, &v).unwrap_or_else(|| "嗯。".into())
    }

    /// A short telling (one or two clauses, no question) of something done
    /// or ahead, said back: 「晚上你给他做了鲫鱼汤？真好，跟我多说说。」
    /// rather than 「你那时候是怎么想的？」.
    fn echo(&self) -> Option<String> {
        const AHEAD: &[&str] = &[
            "明天",
            "后天",
            "下周",
            "下星期",
            "下个月",
            "下月",
            "明年",
            "过几天",
            "过两天",
            "到时候",
        ];
        const MOST_CHARS: usize = 20;
        let said = self.cx.said;
        let told = said.clauses.join("，");
        let n = told.chars().count();
        let asks = told.contains(['？', '?', '吗', '呢']);
        if said.clauses.len() > 2 || !(4..=MOST_CHARS).contains(&n) || asks {
            return None;
        }
        let lines = if AHEAD.iter().any(|w| told.contains(w)) {
            &self.bank.echo_ahead
        } else if told.contains('了') {
            &self.bank.echo_done
        } else {
            return None;
        };
        let v = Vars {
            fact: told.replace('我', "你"),
            ..Vars::default()
        };
        self.pick(lines, &v)
    }
}
