//! Answers to what a message does beyond telling and asking for facts: a
//! word on what the player did (「你觉得我做得对吗？」), no bother at all
//! (「我话是不是太多了」), a topic let go, a relative missed, an offer taken
//! gladly, and, back on a later day, the worry told before asked after.

use super::{Vars, Writer};
use crate::companion::facts::{FactKind, PlayerFact};
use crate::companion::said::{self, Question};
use crate::companion::session::Speaker;

impl<'a> Writer<'a> {
    /// The answer to a question of this module's, or to a small act.
    pub(super) fn act(&self) -> Option<String> {
        let cx = self.cx;
        let simple = |lines: &[String]| self.pick(lines, &Vars::default());
        match cx.said.question {
            Some(Question::Deed) => return self.deed(),
            Some(Question::Bother) => return simple(&self.bank.bother),
            _ => {}
        }
        if cx.said.question.is_some() {
            return None;
        }
        if said::drops_topic(cx.message) {
            return simple(&self.bank.drop_topic);
        }
        if let Some(line) = self.missed() {
            return Some(line);
        }
        said::offers(cx.message)
            .then(|| simple(&self.bank.offered))
            .flatten()
    }

    /// Whether the message does one of the small acts [`Self::act`] answers
    /// (nothing is woven in after them: 「我想我妈了」 is not told back her news).
    pub(super) fn acted(&self) -> bool {
        let m = self.cx.message;
        said::drops_topic(m) || said::missed_relative(m).is_some() || said::offers(m)
    }

    /// A word on what the player told last, said back (我 as 你).
    fn deed(&self) -> Option<String> {
        let cx = self.cx;
        let last = (cx.state.lines.iter().rev())
            .filter(|l| l.speaker == Speaker::Player && l.content != cx.message)
            .map(|l| said::read(&l.content))
            .find(|s| s.question.is_none() && !s.clauses.is_empty())?;
        // The deed is the first clause (「我跟老板谈了谈」), not what came of it;
        // two when the first is only a word or two (「今天，我跟他道了歉」).
        let n = match last.clauses[0].chars().count() {
            0..4 => 2,
            _ => 1,
        };
        let told = last.clauses.iter().take(n).cloned().collect::<Vec<_>>();
        let v = Vars {
            fact: told.join("，").replace('我', "你"),
            ..Vars::default()
        };
        self.pick(&self.bank.deed, &v)
    }

    /// 「我想我妈了」: the relative missed, with what is known of them.
    fn missed(&self) -> Option<String> {
        let cx = self.cx;
        let who = said::missed_relative(cx.message)?;
        let of_them = |f: &&PlayerFact| {
            f.kind == FactKind::Family
                && !f.about.is_empty()
                && (f.about.contains(who) || who.contains(&*f.about))
        };
        let facts = || cx.state.facts.0.iter().rev().filter(of_them);
        let topic = format!("你{who}");
        // 「老伴前年走了」: missed, not to be phoned.
        if facts().any(|f| said::is_loss(&f.value)) && !self.bank.miss_gone.is_empty() {
            let v = Vars {
                topic,
                ..Vars::default()
            };
            return self.pick(&self.bank.miss_gone, &v);
        }
        let known = facts()
            .next()
            .filter(|f| !f.value.is_empty() && !said::is_loss(&f.value));
        let v = Vars {
            topic,
            fact: known.map(|f| self.vars(f).fact).unwrap_or_default(),
            ..Vars::default()
        };
        let lines = super::holding(&self.bank.miss_family, "{事实}", &v.fact);
        self.pick(&lines, &v)
    }

    /// Back on a later day: the latest worry, or a relative's trouble, told
    /// on an earlier day and not eased since, asked after once.
    pub(super) fn follow_up(&self) -> Option<String> {
        let cx = self.cx;
        if cx.apart.is_none_or(|d| d < 1) || self.bank.follow_up.is_empty() {
            return None;
        }
        let today = cx.now.day_number();
        let open = |f: &&PlayerFact| {
            f.time.day_number() < today
                && match f.kind {
                    FactKind::Worry => self.eased(f).is_none(),
                    FactKind::Family | FactKind::Person => {
                        said::is_trouble(&f.value) && !said::is_good_news(&f.value)
                    }
                    _ => false,
                }
        };
        let f = cx.state.facts.0.iter().rev().find(open)?;
        // News since (妈昨天打电话了，说腿好多了) closes a relative's trouble.
        let settled = (f.kind != FactKind::Worry)
            && (cx.state.facts.0.iter())
                .any(|g| g.about == f.about && g.time > f.time && said::is_good_news(&g.value));
        if settled {
            return None;
        }
        self.pick(&self.bank.follow_up, &self.vars(f))
    }
}
