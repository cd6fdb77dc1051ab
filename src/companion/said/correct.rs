//! What a message takes back of what the player said before, and what it
//! puts in its place: 「我其实不是老师了」 takes back the job; 「年糕不是橘猫，
//! 是一只白猫」 takes back the orange cat and keeps 年糕 as a white one.

use std::sync::LazyLock;

use regex::Regex;

use super::state::{ANIMALS, JOB_ENDS, Stated};
use crate::companion::facts::FactKind;

static JOB_NOT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"我(?:其实|现在|已经|早就|早)*不(?:再)?(?:是|当|做)(?:一名|一个|一位|个|名|位)?(\p{Han}{1,8}?)(?:了|啦|啊)?$",
    )
    .expect("a valid pattern (tested)")
});

static PET_NOT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"([\p{{Han}}A-Za-z]{{1,4}}?)(?:其实)?不是(?:一只|只|一条|条)?({animals})",
        animals = ANIMALS.join("|")
    ))
    .expect("a valid pattern (tested)")
});

static PET_IS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"^(?:而|它|牠)?是(?:一只|只|一条|条)?({animals})",
        animals = ANIMALS.join("|")
    ))
    .expect("a valid pattern (tested)")
});

/// Words of giving up one's job.
const QUIT: [&str; 7] = [
    "辞职",
    "离职",
    "辞了工作",
    "丢了工作",
    "被裁",
    "失业",
    "不干了",
];

/// Whether a message has the player giving up a job (「我辞职了」).
pub fn quits(message: &str) -> bool {
    super::words::clauses(message)
        .iter()
        .any(|c| !c.question && quits_in(&c.text))
}

/// [`quits`] for one clause.
fn quits_in(clause: &str) -> bool {
    super::state::of_player(clause) && QUIT.iter().any(|w| clause.contains(w))
}

/// What a clause says is not so: a job the player no longer has, a pet
/// that is not the animal said.
pub(super) fn taken_back(clause: &str) -> Vec<Stated> {
    let mut out = Vec::new();
    // 「我辞职了」: whatever the job was (an empty value takes back any).
    if quits_in(clause) {
        out.push(Stated::new(FactKind::Job, "", ""));
    }
    if let Some(c) = JOB_NOT.captures(clause)
        && JOB_ENDS.iter().any(|e| c[1].ends_with(e))
    {
        out.push(Stated::new(FactKind::Job, "", &c[1]));
    }
    if let Some(c) = PET_NOT.captures(clause) {
        let name = c[1].trim_start_matches(['我', '家', '的']);
        if !name.is_empty() && !name.contains('它') {
            out.push(Stated::new(FactKind::Pet, &c[2], name));
        }
    }
    out
}

/// The animal a pet taken back in `clause` (or the clause before) is said
/// to be instead: 「…不是橘猫，是一只白猫」, 「…不是橘猫而是白猫」.
pub(super) fn pet_instead(clause: &str, wrong: &Stated) -> Option<Stated> {
    let rest = match PET_NOT.find(clause) {
        Some(m) => clause[m.end()..].trim_start_matches(['，', ',', ' ']),
        None => clause,
    };
    let c = PET_IS.captures(rest)?;
    (c[1] != *wrong.about).then(|| Stated::new(FactKind::Pet, &c[1], &wrong.value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_no_longer_held_and_a_pet_of_another_kind_are_taken_back() {
        let job = |c: &str| taken_back(c).into_iter().find(|s| s.kind == FactKind::Job);
        assert_eq!(job("我其实不是老师了").unwrap().value, "老师");
        assert_eq!(job("我已经不当护士了").unwrap().value, "护士");
        assert!(job("我不是很开心").is_none());
        let pet = taken_back("年糕不是橘猫");
        assert_eq!(pet, [Stated::new(FactKind::Pet, "橘猫", "年糕")]);
        let white = pet_instead("是一只白猫", &pet[0]).unwrap();
        assert_eq!(white, Stated::new(FactKind::Pet, "白猫", "年糕"));
        let both = taken_back("年糕不是橘猫而是白猫");
        assert_eq!(
            pet_instead("年糕不是橘猫而是白猫", &both[0]).unwrap().about,
            "白猫"
        );
    }
}
