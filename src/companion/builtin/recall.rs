//! Recall questions answered: the fact asked for (the one the question
//! names first), a worry told as past when good news has eased it since,
//! or that it was never told.

use super::{Vars, Writer, holding_kind, holding_value};
use crate::companion::bank::ChatBank;
use crate::companion::facts::{FactKind, PlayerFact};
use crate::companion::session::Speaker;

impl Writer<'_> {
    /// A recall question: the fact, or that it was never told.
    pub(super) fn recall(&self) -> String {
        let cx = self.cx;
        let facts = cx.asked_facts();
        let asked_any = cx.said.recall_kinds().is_some_and(<[FactKind]>::is_empty);
        // One fact (the one the question names): said as its kind's recall.
        if asked_any && facts.len() > 1 {
            let all: Vec<String> = facts.iter().map(|f| f.to_you()).collect();
            let v = Vars {
                fact: all.join("，"),
                ..Vars::default()
            };
            return self.pick(&self.bank.recall_any, &v).unwrap_or_default();
        }
        match facts.first() {
            Some(f) => {
                let mut v = self.vars(f);
                if let Some(news) = self.eased(f) {
                    v.cause = news;
                    if let Some(line) = self.pick(&self.bank.worry_eased, &v) {
                        return line;
                    }
                }
                // Asked for a pet's name, say the name: lines that hold the value
                // first; asked who 豆豆 is, say what it is (lines with its kind).
                let all = ChatBank::of(&self.bank.recall, f.kind);
                let lines = match !v.value.is_empty() && cx.message.contains(&v.value) {
                    true => holding_kind(all),
                    false => holding_value(all, &v),
                };
                self.pick(&lines, &v)
                    // No line fits what is known (a pet without a name): the fact as told.
                    .or_else(|| self.pick(&self.bank.known, &v))
                    .unwrap_or_else(|| format!("{}。", v.fact))
            }
            None => {
                let asked = cx
                    .said
                    .recall_kinds()
                    .and_then(|k| k.first())
                    .map_or("事", |k| k.asked());
                let v = Vars {
                    asked: asked.to_string(),
                    ..Vars::default()
                };
                self.pick(&self.bank.unknown, &v).unwrap_or_default()
            }
        }
    }

    /// Good news told since worry `f` that eases it (a word of one of
    /// `worry_eased_by`'s groups in each), the latest, in the second person.
    pub(super) fn eased(&self, f: &PlayerFact) -> Option<String> {
        if f.kind != FactKind::Worry {
            return None;
        }
        let groups = &self.bank.worry_eased_by;
        let has = |text: &str, g: &[String]| g.iter().any(|w| text.contains(w.as_str()));
        // Tied by a word group, or by three characters told in both
        // (「送信的路太远了」 and 「跟组长说了路太远的事」).
        let shared = |news: &str| {
            let worry: Vec<char> = f.said.chars().collect();
            (worry.windows(3))
                .map(|w| w.iter().collect::<String>())
                .filter(|w| {
                    w.chars()
                        .all(|c| c > '\u{2E7F}' && !"，。！？、我你他她的了是在".contains(c))
                })
                .filter(|w| {
                    !["今天", "昨天", "明天", "最近"]
                        .iter()
                        .any(|d| w.contains(d))
                })
                .any(|w| news.contains(&w))
        };
        let tied =
            |news: &str| groups.iter().any(|g| has(&f.said, g) && has(news, g)) || shared(news);
        (self.cx.state.lines.iter().rev())
            .take_while(|l| l.time >= f.time)
            .filter(|l| l.speaker == Speaker::Player && l.content != f.said)
            .filter(|l| tied(&l.content))
            .find_map(|l| {
                crate::companion::said::read(&l.content)
                    .feeling
                    .filter(|x| x.good)
            })
            .map(|x| x.clause)
    }
}
