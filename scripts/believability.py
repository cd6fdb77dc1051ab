#!/usr/bin/env python3
"""Whether the default town's minds make sense, from run logs (issue 38's figures).

    heartvale sim --days 3 --seed 1 --log run.jsonl -q
    python3 scripts/believability.py run1.jsonl run2.jsonl ...

Prints one row per log and a total row:
  unfit     first-person hobby/trade lines said by someone they do not fit
  apart     「好久不见」-type lines within 24 h of the pair's last talk
  hungry    hunger complaints within 2 h of the speaker's meal (or during it)
  host      the organiser answering as a guest of its own gathering
  serves    serves naming the dish ordered (or none) / orders naming a dish
  polite    lines with 劳烦/麻烦 scored angry
  ties95    non-family directed ties at 95 or more at the end / all non-family ties
  down/up   points of tie lost / gained
  meals     the most meals one resident had in one day
  tavern    share of conversations at the tavern
  places    places with at least 5 conversations
  learned   `learned` events (and how many were told by someone)
  recall    lines on the run's 4th day that recall the party or yesterday (5-day runs)

The patterns are this town's: they name its people's hobbies and trades,
so they check what the phrase bank's conditions claim from the outside.
"""

import json
import sys
from collections import defaultdict
from datetime import datetime, timedelta

# A line's words → who may say them (first person: one's own hobby or trade).
FIRST_PERSON = [
    ("吹笛子", {"xiaoxi"}),
    ("我在练一首新曲子", {"xiaoxi", "adou"}),
    ("修水车的木料", {"ma"}),
    ("新打的这把锄头", {"ma"}),
    ("木头得晾上一冬", {"ma"}),
    ("土壤湿度", {"shen"}),
    ("自动记录温度", {"yue"}),
    ("齿轮咬合", {"yue"}),
    ("我新学了一道菜", {"zhong", "adou"}),
    ("读书读到半夜", {"su", "shen"}),
    ("最近在读一本讲星星的书", {"su", "shen", "xiaoxi"}),
    ("薄荷长出来", {"shisong", "heqing"}),
    ("这种草能止血", {"shisong", "heqing"}),
    ("矿洞深处好像还有条", {"xiaoxi"}),
    ("看见一只狐狸", {"shisong", "guardian"}),
    ("山崖上长了好多野花", {"shisong", "xiaoxi", "guardian"}),
    ("图书馆新到了一批", {"su"}),
    ("炖菜火候刚好", {"zhong", "adou"}),
    ("被退回来重做", {"yue", "adou"}),
    ("我在里头画地图", {"xiaoxi"}),
    ("明天就去钉", {"ma"}),
    ("木料一到我就去", {"ma"}),
    ("天天泡在田里记数据", {"shen"}),
    ("在准备考试", {"xiaoxi"}),
    ("铺子里的活儿一件接一件", {"ma"}),
    ("店里客人多", {"zhong", "adou"}),
    ("看病的人不少", {"heqing"}),
    ("旧镇志", {"su"}),
    ("天天上山", {"shisong"}),
    ("给爸爸做气象仪", {"yue"}),
    ("我林子里刚采了些", {"shisong"}),
    ("那我得多采些存着", {"shisong"}),
    ("我常在老槐树下唱", {"adou"}),
]
APART = ["好久不见", "好几天没见", "好几天没好好说话"]
HUNGRY = ["饿得心慌", "饿坏了", "还没呢，正饿着", "还没，正要去吃"]
# What only a guest says of a gathering.
GUEST = [
    "我打算去凑个热闹", "还没想好，到时候看吧", "张罗，这", "辛苦了！好久没这么多人",
    "去！好久没这么热闹过了", "我肯定去", "那天怕是去不了", "我就不凑热闹了",
    "我还不知道呢", "那我也去凑个热闹", "字写得真工整", "你办的我哪能不去",
]
DISHES = ["汤面", "酸梅汤", "红烧肉", "炖菜", "热茶", "米酒", "包子", "烤饼", "粥", "鱼", "面", "汤", "茶"]
ORGANISER = "zhong"
TAVERN = "tavern"


def when(text):
    fmt = "%Y-%m-%d %H:%M:%S" if text.count(":") == 2 else "%Y-%m-%d %H:%M"
    return datetime.strptime(text, fmt)


def dish_of(text):
    for d in DISHES:
        if d in text:
            return d
    return None


def report(path):
    events = [json.loads(line) for line in open(path, encoding="utf-8")]
    start = when(events[0]["time"])
    msgs = [e for e in events if e["kind"] == "message"]
    row = {"log": path}
    unfit = [m for m in msgs for pat, who in FIRST_PERSON if pat in m["text"] and m["speaker"] not in who and "聊" not in m["text"] and "上回" not in m["text"]]
    row["unfit"] = len(unfit)
    row["unfit_examples"] = [f'{m["speaker"]}:{m["text"]}' for m in unfit[:3]]
    # Pairs' last talk (its end) before each line.
    last_talk = {}
    apart = 0
    convs = {}
    for e in events:
        if e["kind"] == "conversation_start":
            convs[e["conversation"]] = e
        if e["kind"] == "message":
            t = when(e["time"])
            if any(p in e["text"] for p in APART):
                others = [p for p in e["participants"] if p != e["speaker"]]
                for o in others:
                    key = frozenset((e["speaker"], o))
                    if key in last_talk and t - last_talk[key] < timedelta(hours=24):
                        apart += 1
                        break
        if e["kind"] == "conversation_end":
            t = when(e["time"])
            ps = e["participants"]
            for i, a in enumerate(ps):
                for b in ps[i + 1:]:
                    last_talk[frozenset((a, b))] = t
    row["apart"] = apart
    # Meals: a plan to eat, from its time to its end (+ the walk, at most 30 min).
    meals = defaultdict(list)
    per_day = defaultdict(int)
    for e in events:
        if e["kind"] == "plan" and e["activity"] == "eat":
            t = when(e["time"])
            meals[e["resident"]].append((t, t + timedelta(minutes=e["duration"] + 30)))
            per_day[(e["resident"], t.date())] += 1
    hungry = 0
    for m in msgs:
        if not any(p in m["text"] for p in HUNGRY):
            continue
        t = when(m["time"])
        if any(s <= t <= end + timedelta(hours=2) for s, end in meals[m["speaker"]]):
            hungry += 1
    row["hungry"] = hungry
    row["host"] = sum(1 for m in msgs if m["speaker"] == ORGANISER and any(g in m["text"] for g in GUEST))
    # Orders and their serves (the next line in the conversation by another speaker).
    by_conv = defaultdict(list)
    for m in msgs:
        by_conv[m["conversation"]].append(m)
    orders = fitting = 0
    for c, lines in by_conv.items():
        if convs.get(c, {}).get("trigger") != "work":
            continue
        for a, b in zip(lines, lines[1:]):
            ordered = dish_of(a["text"].split(" ", 1)[-1])
            if a["speaker"] == lines[0]["speaker"] or not ordered or b["speaker"] != lines[0]["speaker"]:
                continue
            orders += 1
            served = dish_of(b["text"].split(" ", 1)[-1])
            fitting += served is None or served in ordered or ordered in served
    row["serves"] = f"{fitting}/{orders}"
    row["polite"] = sum(1 for m in msgs if ("劳烦" in m["text"] or "麻烦" in m["text"]) and m["emotion"] == "angry")
    # Ties.
    up = down = 0.0
    final = {}
    for e in events:
        if e["kind"] == "relationship_change":
            d = e["new_strength"] - e["old_strength"]
            up += max(d, 0)
            down += max(-d, 0)
            final[(e["resident"], e["other"])] = (e["new_strength"], e["relation"])
    non_family = [s for s, rel in final.values() if rel != "family"]
    row["ties95"] = f'{sum(1 for s in non_family if s >= 95)}/{len(non_family)}'
    row["down/up"] = round(down / up, 2) if up else 0
    row["meals"] = max(per_day.values()) if per_day else 0
    places = defaultdict(int)
    for c in convs.values():
        places[c["location"]] += 1
    row["tavern"] = round(places[TAVERN] / max(1, len(convs)), 2)
    row["places"] = sum(1 for n in places.values() if n >= 5)
    learned = [e for e in events if e["kind"] == "learned"]
    row["learned"] = f'{len(learned)} ({sum(1 for e in learned if e.get("from"))} told)'
    day4 = start.date() + timedelta(days=3)
    row["recall"] = sum(
        1 for m in msgs
        if when(m["time"]).date() == day4 and any(w in m["text"] for w in ["联谊会", "昨天", "昨晚", "前天"])
    )
    return row


def main():
    rows = [report(p) for p in sys.argv[1:]]
    keys = ["unfit", "apart", "hungry", "host", "serves", "polite", "ties95", "down/up", "meals", "tavern", "places", "learned", "recall"]
    print("log".ljust(24), *[k.rjust(9) for k in keys])
    for r in rows:
        print(r["log"][-24:].ljust(24), *[str(r[k]).rjust(9) for k in keys])
        for ex in r["unfit_examples"]:
            print("   unfit:", ex)


if __name__ == "__main__":
    main()
