//! A plan's or a worry's days as they stand when it is brought up again:
//! 明天 told yesterday is today, 下个月 told in April is 五月 in May, and a
//! day still ahead has not come yet.

/// `text`, said `days` ago, with its days as they are now.
pub(super) fn as_of(text: &str, days: i64) -> String {
    let shifts: &[(&str, &str)] = match days {
        ..=0 => &[],
        // 现在 told days ago is not now (「那阵子还没找到新工作」).
        1 => &[
            ("明天", "今天"),
            ("今天", "昨天"),
            ("今晚", "昨晚"),
            ("现在", "那阵子"),
        ],
        2 => &[
            ("明天", "昨天"),
            ("后天", "今天"),
            ("今天", "前天"),
            ("今晚", "前天晚上"),
            ("现在", "那阵子"),
        ],
        _ => &[
            ("明天", "那天"),
            ("后天", "那天"),
            ("今天", "那天"),
            ("今晚", "那晚"),
            ("现在", "那阵子"),
        ],
    };
    // One pass, so that 明天 → 今天 is not shifted again to 昨天.
    let mut out = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        match shifts.iter().find(|(from, _)| rest.starts_with(from)) {
            Some((from, to)) => {
                out.push_str(to);
                rest = &rest[from.len()..];
            }
            None => {
                let c = rest.chars().next().expect("not empty");
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out
}

/// Whether a plan told at `told` is for a day still ahead at `now`: a day
/// named (下个月八号 told in April, in April; 明天 told today).
pub(super) fn plan_ahead(
    text: &str,
    told: crate::base::time::GameTime,
    now: crate::base::time::GameTime,
) -> bool {
    use chrono::Datelike;
    let days = now.day_number() - told.day_number();
    let (then, at) = (told.date(), now.date());
    let months = (at.year() - then.year()) * 12 + at.month() as i32 - then.month() as i32;
    let has = |w: &str| text.contains(w);
    if has("下个月") || has("下月") {
        return months < 1 || (months == 1 && day_of(text).is_some_and(|d| at.day() < d));
    }
    if has("明年") {
        return at.year() == then.year();
    }
    if has("后天") {
        return days < 2;
    }
    // 下周, 周末: a day the player did not name; told of as done, it was.
    has("明天") && days < 1
}

/// The day of the month a text names (八号 → 8).
fn day_of(text: &str) -> Option<u32> {
    let end = text.find(['号', '日'])?;
    let digits: String = text[..end]
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_digit() || "一二三四五六七八九十".contains(*c))
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    day_number(&digits)
}

/// 1–31 written in digits or Chinese numerals (8, 八, 十二, 二十八).
fn day_number(text: &str) -> Option<u32> {
    if let Ok(n) = text.parse() {
        return Some(n);
    }
    let digit = |c: char| "一二三四五六七八九".find(c).map(|i| i as u32 / 3 + 1);
    let n = match text.split_once('十') {
        None => digit(text.chars().next()?)?,
        Some((tens, ones)) => {
            let tens = if tens.is_empty() {
                1
            } else {
                digit(tens.chars().next()?)?
            };
            let ones = match ones.chars().next() {
                None => 0,
                Some(c) => digit(c)?,
            };
            tens * 10 + ones
        }
    };
    (1..=31).contains(&n).then_some(n)
}

/// `text`, told at `told`, with 下个月 as the month it meant once the
/// month it was told in is over (下个月八号, told in April, is 五月八号 in May).
pub(super) fn in_month(
    text: &str,
    told: crate::base::time::GameTime,
    now: crate::base::time::GameTime,
) -> String {
    use chrono::Datelike;
    let (then, at) = (told.date(), now.date());
    if (at.year(), at.month()) == (then.year(), then.month()) || !text.contains("下个月") {
        return text.to_string();
    }
    let next = then.month() % 12 + 1;
    // 二月, not 两月.
    let month = match next {
        2 => "二".to_string(),
        n => crate::base::time::number_zh(n),
    };
    text.replacen("下个月", &format!("{month}月"), 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::time::GameTime;

    #[test]
    fn a_named_day_is_ahead_until_it_comes_and_next_month_gets_its_name() {
        assert_eq!(day_number("二十八"), Some(28));
        assert_eq!(day_number("十二"), Some(12));
        assert_eq!(day_number("8"), Some(8));
        assert_eq!(day_number("四十"), None);
        let told = GameTime::parse("2026-04-06 10:00").unwrap();
        let at = |d: &str| GameTime::parse(d).unwrap();
        let plan = "你下个月八号要去参加表姐的婚礼";
        assert!(plan_ahead(plan, told, at("2026-04-30 10:00")));
        assert!(plan_ahead(plan, told, at("2026-05-07 10:00")));
        assert!(!plan_ahead(plan, told, at("2026-05-09 10:00")));
        // 下周 names no day: told of as done, it was.
        assert!(!plan_ahead(
            "你下周想去学陶艺",
            told,
            at("2026-04-07 10:00")
        ));
        assert_eq!(
            in_month(plan, told, at("2026-05-02 10:00")),
            "你五月八号要去参加表姐的婚礼"
        );
        assert_eq!(in_month(plan, told, at("2026-04-20 10:00")), plan);
        let january = GameTime::parse("2026-01-10 10:00").unwrap();
        assert_eq!(
            in_month("下个月三号", january, at("2026-02-01 10:00")),
            "二月三号"
        );
    }
}
