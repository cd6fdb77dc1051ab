//! Who lives in a generated town and what its places are called: names
//! without digits, districts with names, a trade for each workplace (and so
//! for each who works there), traits, a quote and pastimes by personality,
//! dishes they like. Deterministic for the town's seed.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// Surnames × given names: every resident of a town under 7,200 has a name
/// of its own.
const SURNAMES: [&str; 60] = [
    "王", "李", "张", "刘", "陈", "杨", "赵", "黄", "周", "吴", "徐", "孙", "胡", "朱", "高", "林",
    "何", "郭", "罗", "梁", "宋", "郑", "谢", "韩", "唐", "冯", "于", "董", "萧", "程", "曹", "袁",
    "邓", "许", "傅", "沈", "曾", "彭", "吕", "苏", "卢", "蒋", "蔡", "贾", "丁", "魏", "薛", "叶",
    "阎", "余", "潘", "杜", "戴", "夏", "钟", "汪", "田", "任", "姜", "范",
];
const GIVEN: [&str; 120] = [
    "家宝", "小满", "伟", "芳", "娜", "敏", "静", "磊", "洋", "艳", "勇", "杰", "娟", "涛", "明",
    "超", "秀英", "霞", "平", "刚", "桂英", "建华", "文", "华", "红", "玉兰", "建国", "丽", "强",
    "军", "萍", "晨", "子涵", "雨桐", "浩然", "思远", "一鸣", "婉清", "若溪", "晓东", "春生",
    "秋月", "冬梅", "夏荷", "立新", "志强", "海燕", "金凤", "小川", "大山", "石头", "满仓", "来福",
    "巧云", "翠花", "长庚", "宝林", "德胜", "永年", "佳音", "嘉树", "知行", "慕白", "听雨", "望舒",
    "清和", "安然", "如意", "守拙", "怀瑾", "景明", "南星", "北辰", "东篱", "西岭", "青禾", "麦穗",
    "稻香", "杏儿", "桃儿", "梨花", "菊香", "兰芝", "竹生", "松年", "柏林", "枫叶", "荷生", "莲心",
    "蕙兰", "芷若", "书言", "墨林", "砚秋", "琴心", "棋生", "诗语", "画眉", "春燕", "秋实", "晓梅",
    "晓光", "晓雨", "云朵", "云帆", "星河", "月明", "日新", "晴川", "雪松", "冰清", "玉洁", "金玉",
    "银花", "铜锁", "铁柱", "锦程", "绣云", "织锦", "采薇",
];
/// District names: a direction for the 257th and on, then two characters.
const PARTS: [[&str; 16]; 2] = [
    [
        "青", "白", "松", "柳", "石", "桃", "杏", "枫", "梅", "竹", "兰", "菊", "荷", "槐", "桂",
        "杉",
    ],
    [
        "溪", "岭", "坡", "湾", "坪", "桥", "塘", "岗", "川", "湖", "原", "林", "谷", "园", "村",
        "堡",
    ],
];
const DIRECTIONS: [&str; 8] = ["", "东", "西", "南", "北", "上", "下", "新"];

/// A workplace's kind: its name, the trade of who works there, what working
/// there looks like, its emoji, and the pastime words its people use.
pub(super) struct Trade {
    pub(super) place: &'static str,
    pub(super) job: &'static str,
    pub(super) action: &'static str,
    pub(super) emoji: &'static str,
}

pub(super) const TRADES: [Trade; 12] = [
    Trade {
        place: "木工坊",
        job: "木匠",
        action: "Work wood at the workshop",
        emoji: "🪚",
    },
    Trade {
        place: "铁匠铺",
        job: "铁匠",
        action: "Forge tools at the smithy",
        emoji: "🔨",
    },
    Trade {
        place: "裁缝铺",
        job: "裁缝",
        action: "Sew clothes at the tailor's",
        emoji: "🧵",
    },
    Trade {
        place: "医馆",
        job: "医生",
        action: "See patients at the clinic",
        emoji: "🩺",
    },
    Trade {
        place: "学堂",
        job: "教书先生",
        action: "Teach at the school",
        emoji: "📖",
    },
    Trade {
        place: "药铺",
        job: "药师",
        action: "Mix remedies at the apothecary",
        emoji: "🌿",
    },
    Trade {
        place: "陶坊",
        job: "陶匠",
        action: "Throw pots at the pottery",
        emoji: "🏺",
    },
    Trade {
        place: "织坊",
        job: "织工",
        action: "Weave cloth at the weaving shop",
        emoji: "🧶",
    },
    Trade {
        place: "磨坊",
        job: "磨坊伙计",
        action: "Grind grain at the mill",
        emoji: "🌾",
    },
    Trade {
        place: "菜园",
        job: "菜农",
        action: "Tend the vegetable fields",
        emoji: "🥬",
    },
    Trade {
        place: "账房",
        job: "账房先生",
        action: "Keep the books at the counting house",
        emoji: "🧮",
    },
    Trade {
        place: "邮驿",
        job: "邮差",
        action: "Sort the mail at the post",
        emoji: "✉️",
    },
];

/// Traits by the Big Five: (the trait's score above 60, below 40).
const TRAITS: [(&str, &str); 5] = [
    ("好奇", "守旧"),
    ("踏实", "随性"),
    ("健谈", "安静"),
    ("和善", "直脾气"),
    ("爱操心", "心宽"),
];
const QUOTES: [&str; 16] = [
    "日子是一天一天过出来的。",
    "手艺好，饭碗就牢。",
    "多个朋友多条路。",
    "慢慢来，比较快。",
    "吃亏是福。",
    "天塌下来有高个子顶着。",
    "今天的事今天做完。",
    "邻里之间，有来有往。",
    "书读得多，路就走得远。",
    "好好吃饭，好好睡觉。",
    "人勤地不懒。",
    "话不说满，事不做绝。",
    "开心一天也是过，发愁一天也是过。",
    "一分耕耘一分收获。",
    "出门看天色，进门看脸色。",
    "宁可累点，也别闲着。",
];
/// Dishes the phrase bank's orders name.
const DISHES: [&str; 12] = [
    "炖菜",
    "热茶",
    "米酒",
    "汤",
    "面",
    "包子",
    "酸梅汤",
    "鱼",
    "粥",
    "烤饼",
    "汤面",
    "红烧肉",
];
const TOPICS: [&str; 6] = ["美食", "书", "音乐", "小镇新闻", "手艺", "天气"];

/// Resident `i`'s name: neighbours (consecutive residents) differ in both
/// parts, and no two under 7,200 share one.
pub(super) fn name(i: usize) -> String {
    let (s, round) = (i % SURNAMES.len(), i / SURNAMES.len());
    let g = (round + 13 * s) % GIVEN.len();
    format!("{}{}", SURNAMES[s], GIVEN[g])
}

/// District `d`'s name.
pub(super) fn district(d: usize) -> String {
    let [a, b] = &PARTS;
    let n = a.len() * b.len();
    let dir = DIRECTIONS[(d / n) % DIRECTIONS.len()];
    format!("{dir}{}{}", a[d % a.len()], b[(d / a.len()) % b.len()])
}

/// A number in Chinese numerals (under 100,000).
pub(super) fn numeral(n: usize) -> String {
    const DIGITS: [&str; 10] = ["零", "一", "二", "三", "四", "五", "六", "七", "八", "九"];
    const UNITS: [&str; 5] = ["", "十", "百", "千", "万"];
    if n == 0 {
        return DIGITS[0].into();
    }
    let digits: Vec<usize> = n.to_string().bytes().map(|b| (b - b'0') as usize).collect();
    let mut out = String::new();
    let mut zero = false;
    for (k, &d) in digits.iter().enumerate() {
        let unit = digits.len() - 1 - k;
        if d == 0 {
            zero = true;
            continue;
        }
        if zero && !out.is_empty() {
            out.push_str(DIGITS[0]);
        }
        zero = false;
        // 十一, not 一十一.
        if !(d == 1 && unit == 1 && out.is_empty()) {
            out.push_str(DIGITS[d]);
        }
        out.push_str(UNITS[unit.min(4)]);
    }
    out
}

/// Traits from a personality: its strong and weak sides.
pub(super) fn traits(scores: [f32; 5]) -> Vec<String> {
    scores
        .iter()
        .zip(TRAITS)
        .filter_map(|(&s, (high, low))| match s {
            s if s >= 60.0 => Some(high.to_string()),
            s if s < 40.0 => Some(low.to_string()),
            _ => None,
        })
        .collect()
}

/// A quote, two dishes and two topics for resident `i`.
pub(super) fn likes(rng: &mut ChaCha8Rng) -> (String, Vec<String>, Vec<String>) {
    let quote = QUOTES[rng.random_range(0..QUOTES.len())].to_string();
    let pick = |rng: &mut ChaCha8Rng, from: &[&str]| {
        let a = rng.random_range(0..from.len());
        let b = (a + 1 + rng.random_range(0..from.len() - 1)) % from.len();
        vec![from[a].to_string(), from[b].to_string()]
    };
    let food = pick(rng, &DISHES);
    let topics = pick(rng, &TOPICS);
    (quote, food, topics)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_names_read_in_chinese() {
        assert_eq!(numeral(1), "一");
        assert_eq!(numeral(10), "十");
        assert_eq!(numeral(11), "十一");
        assert_eq!(numeral(105), "一百零五");
        assert_eq!(numeral(2500), "二千五百");
        let names: std::collections::HashSet<String> = (0..7200).map(name).collect();
        assert_eq!(names.len(), 7200, "every name its own under 7,200");
        assert!(names.iter().all(|n| !n.chars().any(|c| c.is_ascii_digit())));
        let districts: std::collections::HashSet<String> = (0..600).map(district).collect();
        assert_eq!(districts.len(), 600);
    }
}
