//! The built-in planner's utilities (`planner:` in `tuning.yaml`): how much
//! each kind of option is worth, and how needs, personality and the clock
//! move those scores. Every field is optional; the defaults are the town as
//! shipped. Scores are compared with each other, so only their differences
//! matter: sleep beats everything at bedtime, duties beat wants, and needs
//! decide among wants.

use serde::{Deserialize, Serialize};

/// The planner's weights. `C`, `E` and `O` are the resident's
/// conscientiousness, extraversion and openness (0–100).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PlannerTuning {
    /// Random score added to every option (plus `O`/10): days do not repeat.
    pub(crate) noise: f32,
    /// Taken off the leisure done just before, so it is not done twice in a row.
    pub(crate) repeat_leisure: f32,
    /// Going to bed at bedtime.
    pub(crate) sleep: f32,
    /// Up before the alarm after a full night: tea at home.
    pub(crate) early_tea: f32,
    /// The organiser hosting its gathering.
    pub(crate) host_gathering: f32,
    /// A guest going to a gathering (plus `C`/5).
    pub(crate) attend_gathering: f32,
    /// Keeping an appointment made in conversation (plus `C`/5).
    pub(crate) keep_appointment: f32,
    /// Posting a notice a goal calls for.
    pub(crate) post_notice: f32,
    /// A work shift (plus `work_conscientiousness` × `C`/100).
    pub work: f32,
    /// How much conscientiousness adds to work.
    pub work_conscientiousness: f32,
    /// Company and leisure count this much during a work shift.
    pub(crate) on_shift_duty: f32,
    /// Meal score per point of hunger (100 − the hunger need).
    pub(crate) hunger: f32,
    /// Added at breakfast, lunch or dinner time when not eaten for 2½ hours.
    pub(crate) meal_time: f32,
    /// Added when the hunger need is below `starving_below`.
    pub(crate) starving: f32,
    /// The hunger need below which a resident is starving.
    pub(crate) starving_below: f32,
    /// Meal scores are multiplied by this on a shift before lunch, unless starving.
    pub(crate) meal_on_shift: f32,
    /// Eating at home: (`homely_extraversion` − `E`)/4, plus this at breakfast.
    pub(crate) breakfast_at_home: f32,
    /// The extraversion below which eating at home appeals.
    pub(crate) homely_extraversion: f32,
    /// Eating out: per point of ties' strength among those there.
    pub(crate) friends_at_eatery: f32,
    /// Eating out: the most company adds.
    pub(crate) company_at_eatery: f32,
    /// Loneliness: (100 − social) × (`loneliness` + `E`/100).
    pub(crate) loneliness: f32,
    /// Loneliness counts this much more from 17:00 to 22:00.
    pub(crate) evening_company: f32,
    /// Going where friends are: per point of ties' strength there.
    pub(crate) friends_there: f32,
    /// A place draws for its liveliness up to this many people, no more.
    pub(crate) crowd: f32,
    /// The tie strength at which someone is a friend to go and chat with.
    pub(crate) friend_at: f32,
    /// Hanging out where no friend is: this much less.
    pub(crate) alone_penalty: f32,
    /// Company at an eatery outside the evening counts this much (people
    /// meet all over town, not only where the food is).
    pub(crate) eatery_company: f32,
    /// ... and in the evening this much, plus up to 0.3 for the sociable.
    pub(crate) eatery_evening: f32,
    /// Company where one has a pastime, or outdoors for one who loves it,
    /// counts this much more.
    pub(crate) favourite_place: f32,
    /// Family who share a home eat dinner there: this much on top.
    pub(crate) dinner_at_home: f32,
    /// Boredom: (100 − fun) × `boredom` + `O`/8.
    pub(crate) boredom: f32,
    /// A hobby's pull on top of boredom.
    pub(crate) hobby: f32,
    /// Night owls: a hobby's extra pull in the hour before bedtime and after.
    pub(crate) owl: f32,
    /// A walk outdoors: boredom × this.
    pub(crate) outdoors: f32,
    /// Score lost per minute of walking to a meal.
    pub(crate) walk_to_meal: f32,
    /// Score lost per minute of walking to company.
    pub(crate) walk_to_company: f32,
    /// Score lost per minute of walking to leisure.
    pub(crate) walk_to_leisure: f32,
    /// Relaxing at home in the evening (plus (100 − `E`)/4).
    pub(crate) relax_at_home: f32,
    /// Relaxing at home within 1½ hours of bedtime: this much more.
    pub(crate) near_bedtime: f32,
    /// The energy need below which a resident rests.
    pub(crate) tired_below: f32,
    /// Resting: (`tired_below` − energy) × `rest` + `rest_base`.
    pub(crate) rest: f32,
    /// Resting: the score at `tired_below` energy.
    pub(crate) rest_base: f32,
    /// Looking around where one is: what is left when nothing else appeals.
    pub(crate) look_around: f32,
}

impl Default for PlannerTuning {
    fn default() -> Self {
        Self {
            noise: 4.0,
            repeat_leisure: 25.0,
            sleep: 1000.0,
            early_tea: 500.0,
            host_gathering: 320.0,
            attend_gathering: 260.0,
            keep_appointment: 280.0,
            post_notice: 150.0,
            work: 80.0,
            work_conscientiousness: 40.0,
            on_shift_duty: 0.35,
            hunger: 1.2,
            meal_time: 75.0,
            starving: 60.0,
            starving_below: 25.0,
            meal_on_shift: 0.5,
            breakfast_at_home: 10.0,
            homely_extraversion: 55.0,
            friends_at_eatery: 0.15,
            company_at_eatery: 20.0,
            loneliness: 0.4,
            evening_company: 1.3,
            friends_there: 0.25,
            crowd: 12.0,
            friend_at: 35.0,
            alone_penalty: 10.0,
            eatery_company: 0.6,
            eatery_evening: 0.7,
            favourite_place: 1.4,
            dinner_at_home: 15.0,
            boredom: 0.9,
            hobby: 8.0,
            owl: 40.0,
            outdoors: 0.7,
            walk_to_meal: 0.5,
            walk_to_company: 0.4,
            walk_to_leisure: 0.3,
            relax_at_home: 30.0,
            near_bedtime: 60.0,
            tired_below: 30.0,
            rest: 4.0,
            rest_base: 20.0,
            look_around: 5.0,
        }
    }
}
