//! Forms of address in conversation lines: family by generation, elders by
//! surname, everyone else by name (`dialogue.yaml`'s `address:`).

use crate::scenario::RelationKind;
use crate::scenario::dialogue::Address;
use crate::sim::brain::LineContext;

/// An age gap this large is a generation: 叔, 姨; 爸, 妈.
const GENERATION: u32 = 18;
/// From this age one some years younger is called by the surname (小苏).
const GROWN: u32 = 25;
/// An age gap this large, short of a generation, is an elder sibling's: 苏姐.
const SENIOR: u32 = 8;

/// How the speaker calls the listener: family by generation (爸, 妈, a pet
/// name), a generation older 叔 or 姨 after the surname, some years older
/// 姐 or 哥, some years younger by the given name (小溪) or 小 and the
/// surname (小苏), else the name.
pub(super) fn address(forms: &Address, cx: &LineContext<'_>) -> String {
    let (me, you) = (cx.speaker, cx.listener);
    let family = cx.relation.is_some_and(|r| r.kind == RelationKind::Family);
    let older = you.age >= me.age + GENERATION;
    let younger = me.age >= you.age + GENERATION;
    let senior = you.age >= me.age + SENIOR;
    // 阿朵 and 小溪-like names are already what one is called by.
    let familiar = you.name.starts_with(['阿', '小']);
    // 沈月, apprentice in 马铁's workshop, calls him 马师傅.
    let apprentice = ["学徒", "徒弟"].iter().any(|w| me.occupation.contains(w))
        && me
            .work
            .as_ref()
            .zip(you.work.as_ref())
            .is_some_and(|(a, b)| a.place == b.place);
    let form = match (family, older, younger, you.gender.as_str()) {
        (false, true, _, _) if apprentice && !forms.master.is_empty() => &forms.master,
        (true, true, _, "男") => &forms.father,
        (true, true, _, "女") => &forms.mother,
        (true, _, true, _) => &forms.child,
        (false, true, _, "男") => &forms.elder_man,
        (false, true, _, "女") => &forms.elder_woman,
        (false, false, _, _) if !familiar && me.age >= you.age + SENIOR => &forms.junior,
        (false, false, false, "男") if senior => &forms.older_man,
        (false, false, false, "女") if senior => &forms.older_woman,
        _ => return you.name.clone(),
    };
    if form.is_empty() {
        return you.name.clone();
    }
    let mut chars = you.name.chars();
    let surname: String = chars.next().map(String::from).unwrap_or_default();
    let mut given: String = chars.collect();
    // A grown-up some years younger is 小苏; one seen growing up, 小溪 or 小月.
    let small = match given.chars().count() {
        _ if you.age >= GROWN => format!("小{surname}"),
        1 => format!("小{given}"),
        _ => given.clone(),
    };
    if given.chars().count() == 1 {
        given = given.repeat(2);
    }
    let slots = [
        ("surname", surname.as_str()),
        ("given", given.as_str()),
        ("small", small.as_str()),
    ];
    super::speech::fill(form, &slots)
}
