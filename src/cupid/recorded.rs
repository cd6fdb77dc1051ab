//! Minds whose answers are kept, and minds that give kept answers back: a
//! date played by a model is rebuilt after a load from what the model said,
//! without asking it again.

use serde::{Deserialize, Serialize};

use super::{AvatarTurn, DateView, Judgement, Minds, Posed};
use crate::cupid::Side;

/// One answer a date's minds gave, in the order the date asked.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Answer {
    /// A scene.
    Pose(Posed),
    /// A side's choice.
    Choose(AvatarTurn),
    /// The host's judgement.
    Judge(Judgement),
}

/// Minds that keep every answer the inner minds give.
pub struct Recording<'m> {
    minds: &'m mut dyn Minds,
    /// The answers so far, in order.
    pub answers: Vec<Answer>,
}

impl<'m> Recording<'m> {
    /// Records what `minds` answer.
    pub fn new(minds: &'m mut dyn Minds) -> Self {
        Self {
            minds,
            answers: Vec::new(),
        }
    }
}

impl Minds for Recording<'_> {
    fn pose(&mut self, view: &DateView<'_>) -> Posed {
        let posed = self.minds.pose(view);
        self.answers.push(Answer::Pose(posed.clone()));
        posed
    }

    fn choose(
        &mut self,
        view: &DateView<'_>,
        posed: &Posed,
        who: Side,
        first: Option<&AvatarTurn>,
    ) -> AvatarTurn {
        let turn = self.minds.choose(view, posed, who, first);
        self.answers.push(Answer::Choose(turn.clone()));
        turn
    }

    fn judge(
        &mut self,
        view: &DateView<'_>,
        posed: &Posed,
        choices: &[(Side, usize); 2],
    ) -> Judgement {
        let judgement = self.minds.judge(view, posed, choices);
        self.answers.push(Answer::Judge(judgement.clone()));
        judgement
    }
}

/// Minds that give back kept answers in order; past them (or where the
/// kind does not match, which a well-formed record never has) `then` answers.
pub struct Replaying<'a> {
    answers: std::slice::Iter<'a, Answer>,
    then: &'a mut dyn Minds,
}

impl<'a> Replaying<'a> {
    /// Replays `answers`, then lets `then` answer.
    pub fn new(answers: &'a [Answer], then: &'a mut dyn Minds) -> Self {
        Self {
            answers: answers.iter(),
            then,
        }
    }
}

impl Minds for Replaying<'_> {
    fn pose(&mut self, view: &DateView<'_>) -> Posed {
        match self.answers.next() {
            Some(Answer::Pose(p)) => p.clone(),
            _ => self.then.pose(view),
        }
    }

    fn choose(
        &mut self,
        view: &DateView<'_>,
        posed: &Posed,
        who: Side,
        first: Option<&AvatarTurn>,
    ) -> AvatarTurn {
        match self.answers.next() {
            Some(Answer::Choose(t)) => t.clone(),
            _ => self.then.choose(view, posed, who, first),
        }
    }

    fn judge(
        &mut self,
        view: &DateView<'_>,
        posed: &Posed,
        choices: &[(Side, usize); 2],
    ) -> Judgement {
        match self.answers.next() {
            Some(Answer::Judge(j)) => j.clone(),
            _ => self.then.judge(view, posed, choices),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::cupid::{Avatar, Date, OfflineMinds, SceneBank};

    /// A date replayed from its kept answers (through JSON, as a save keeps
    /// them) tells the same lines, whatever the minds behind the replay.
    #[test]
    fn a_recorded_date_replays_line_for_line() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/heartvale");
        let town = crate::scenario::Scenario::load(&dir).unwrap_or_else(|e| panic!("{e}"));
        let (a, b) = (&town.residents[1], &town.residents[2]);
        let bank = Arc::new(SceneBank::builtin());
        let mut date = Date::new(Avatar::new(a, b), Avatar::new(b, a), 10);
        let mut minds = OfflineMinds::new(bank.clone(), 3);
        let mut rec = Recording::new(&mut minds);
        let lines = date.play(&mut rec);
        let kept: Vec<Answer> =
            serde_json::from_str(&serde_json::to_string(&rec.answers).unwrap()).unwrap();
        let mut other = OfflineMinds::new(bank, 99);
        let mut again = Date::new(Avatar::new(a, b), Avatar::new(b, a), 10);
        let replayed = again.play(&mut Replaying::new(&kept, &mut other));
        let text = |l: &[crate::cupid::Message]| serde_json::to_string(l).unwrap();
        assert_eq!(text(&replayed), text(&lines));
    }
}
