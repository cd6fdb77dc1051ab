//! What a resident says (or thinks) with a plan, by the kind of plan and
//! where it goes: `plans:` in `dialogue.yaml`. Lines carry the bank's
//! conditions, so a willow spirit's plans need not speak of a grumbling
//! stomach or a warm quilt (`if: { who: ["!精灵"] }`).

use serde::Deserialize;

use super::Lines;

/// The plan lines, one list per situation.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanLines {
    /// Going home to sleep.
    pub sleep: Lines,
    /// Sleeping where one already is.
    pub sleep_here: Lines,
    /// Setting off to work at the start of one's shift.
    pub work: Lines,
    /// Going back to work later in the shift.
    pub work_back: Lines,
    /// Going on with work where one is.
    pub work_here: Lines,
    /// Staying where one is for leisure, company or a meal.
    pub here: Lines,
    /// Cooking at home, being there.
    pub eat_at_home: Lines,
    /// Going out for a meal.
    pub eat: Lines,
    /// Going home for a meal.
    pub eat_home: Lines,
    /// Resting at home, being there.
    pub home_here: Lines,
    /// Going home to rest.
    pub home: Lines,
    /// Going to find a friend (`{friend}`).
    pub social_friend: Lines,
    /// Going out for company.
    pub social: Lines,
    /// Going to a gathering (`{title}`).
    pub attend: Lines,
    /// At the gathering's place, waiting for it.
    pub attend_here: Lines,
    /// The organiser going to set up.
    pub host: Lines,
    /// The organiser, already there.
    pub host_here: Lines,
    /// Going somewhere for leisure.
    pub leisure: Lines,
    /// Looking around where one is.
    pub idle: Lines,
    /// A short rest.
    pub rest: Lines,
    /// The `{mood}` a line may open with: the first line that fits is used,
    /// none that fits (or a calm mood) opens with nothing.
    pub moods: PlanMoods,
}

/// How a mood colours the start of a plan line (`{mood}`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanMoods {
    /// Worn out.
    pub tired: Lines,
    /// Hungry.
    pub hungry: Lines,
    /// Wanting company.
    pub lonely: Lines,
    /// Wanting something to do.
    pub bored: Lines,
    /// In good spirits.
    pub lively: Lines,
}

impl PlanLines {
    /// Every list with its field name, in file order.
    pub(super) fn lists(&mut self) -> [(&'static str, &mut Lines); 25] {
        let m = &mut self.moods;
        [
            ("sleep", &mut self.sleep),
            ("sleep_here", &mut self.sleep_here),
            ("work", &mut self.work),
            ("work_back", &mut self.work_back),
            ("work_here", &mut self.work_here),
            ("here", &mut self.here),
            ("eat_at_home", &mut self.eat_at_home),
            ("eat", &mut self.eat),
            ("eat_home", &mut self.eat_home),
            ("home_here", &mut self.home_here),
            ("home", &mut self.home),
            ("social_friend", &mut self.social_friend),
            ("social", &mut self.social),
            ("attend", &mut self.attend),
            ("attend_here", &mut self.attend_here),
            ("host", &mut self.host),
            ("host_here", &mut self.host_here),
            ("leisure", &mut self.leisure),
            ("idle", &mut self.idle),
            ("rest", &mut self.rest),
            ("moods.tired", &mut m.tired),
            ("moods.hungry", &mut m.hungry),
            ("moods.lonely", &mut m.lonely),
            ("moods.bored", &mut m.bored),
            ("moods.lively", &mut m.lively),
        ]
    }
}
