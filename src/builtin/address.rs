//! Forms of address in conversation lines: family by generation, elders by
//! surname, everyone else by name (`dialogue.yaml`'s `address:`).

use crate::scenario::RelationKind;
use crate::scenario::dialogue::Address;
use crate::sim::brain::LineContext;

/// An age gap this large is a generation: 叔, 姨; 爸, 妈.
const GENERATION: u32 = 18;

/// How the speaker calls the listener: family by generation (爸, 妈, a pet
/// name), a generation older 叔 or 姨 after the surname, else the name.
pub(super) fn address(forms: &Address, cx: &LineContext<'_>) -> String {
    let (me, you) = (cx.speaker, cx.listener);
    let family = cx.relation.is_some_and(|r| r.kind == RelationKind::Family);
    let older = you.age >= me.age + GENERATION;
    let younger = me.age >= you.age + GENERATION;
    let form = match (family, older, younger, you.gender.as_str()) {
        (true, true, _, "男") => &forms.father,
        (true, true, _, "女") => &forms.mother,
        (true, _, true, _) => &forms.child,
        (false, true, _, "男") => &forms.elder_man,
        (false, true, _, "女") => &forms.elder_woman,
        _ => return you.name.clone(),
    };
    let mut chars = you.name.chars();
    let surname: String = chars.next().map(String::from).unwrap_or_default();
    let mut given: String = chars.collect();
    if given.chars().count() == 1 {
        given = given.repeat(2);
    }
    super::speech::fill(form, &[("surname", &surname), ("given", &given)])
}
