#!/usr/bin/env python3
"""Measures Cupid offline, as issue 40's "Done when" reads.

    python3 scripts/cupid-measure.py BINARY [--town-days 5]

Part 1 runs `heartvale date A B --seed S` for 10 adult pairs x 3 seeds (and
the unsafe pairs, which must exit 1) and reports: scenes naming a dater,
how often the commonest scene opens / appears, the commonest rationale
sentence's share, introverts who love crowds, friends told it is their first
meeting, and the mean rounds. Part 2 runs the town for seeds 1-10 and
reports the first couples, how often both chose alike, lines by a partner in
other talks during a date, whether the date is mentioned within two days, and
garbled nightly summaries.
"""

import collections
import json
import os
import subprocess
import sys
import tempfile

PAIRS = [
    ("su", "shisong"), ("heqing", "su"), ("adou", "xiaoxi"), ("ma", "shen"),
    ("zhong", "heqing"), ("adou", "ma"), ("xiaoxi", "shisong"), ("su", "shen"),
    ("heqing", "shisong"), ("zhong", "su"),
]
UNSAFE = [("shen", "yue"), ("heqing", "xiaoxi"), ("yue", "ma"), ("su", "su")]
SEEDS = [1, 2, 3]
NAMES = {"zhong": "钟大川", "adou": "阿朵", "xiaoxi": "林小溪", "heqing": "何青",
         "shen": "沈博远", "yue": "沈月", "ma": "马铁", "su": "苏文",
         "shisong": "石松"}
EXTRAVERSION = {"zhong": 92, "adou": 95, "xiaoxi": 72, "heqing": 45, "shen": 28,
                "yue": 55, "ma": 40, "su": 25, "shisong": 18}
FRIENDS = {frozenset(p) for p in [("zhong", "shisong"), ("zhong", "ma"),
                                   ("adou", "xiaoxi"), ("heqing", "su")]}
CROWDS = ["热热闹闹", "喜欢热闹", "人多才", "爱热闹"]
FIRST_MEETING = ["第一次见面", "初次见面", "第一次见"]


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def dates(binary):
    out = {}
    tmp = tempfile.mkdtemp()
    for a, b in PAIRS:
        for s in SEEDS:
            path = os.path.join(tmp, f"{a}-{b}-{s}.jsonl")
            r = run([binary, "date", a, b, "--seed", str(s), "--transcript", path])
            if r.returncode != 0:
                sys.exit(f"date {a} {b} --seed {s} failed: {r.stderr}")
            out[(a, b, s)] = [json.loads(l) for l in open(path)]
    return out


def part1(binary):
    for a, b in UNSAFE:
        r = run([binary, "date", a, b])
        print(f"refused {a} x {b}: exit {r.returncode} — {r.stderr.strip()[:70]}")
    runs = dates(binary)
    openings, appears, sentences = collections.Counter(), collections.Counter(), collections.Counter()
    named, crowds, first_meeting, rounds, alike = [], [], [], [], []
    for (a, b, s), msgs in runs.items():
        hosts = [m for m in msgs if m["kind"] == "host"]
        qs = [h["action"]["question"] for h in hosts]
        openings[qs[0]] += 1
        for q in set(qs):
            appears[q] += 1
        for q in qs:
            for who in (a, b):
                if NAMES[who] in q:
                    named.append((a, b, s, q[:30]))
        friends = frozenset((a, b)) in FRIENDS
        for h in hosts:
            if friends and any(w in h["rationale"] for w in FIRST_MEETING):
                first_meeting.append((a, b, s, h["rationale"][:40]))
        for m in msgs:
            if m["kind"] == "avatar":
                r = m["rationale"]
                for sent in filter(None, r.split("。")):
                    sentences[sent] += 1
                if EXTRAVERSION[m["resident"]] < 30 and any(w in r for w in CROWDS):
                    crowds.append((m["resident"], r))
            if m["kind"] == "end":
                rounds.append(m["rounds"])
        picks = [m["decision"]["option"] for m in msgs if m["kind"] == "avatar"]
        alike.extend(picks[i] == picks[i + 1] for i in range(0, len(picks) - 1, 2))
    n = len(runs)
    total = sum(sentences.values())
    top, top_n = sentences.most_common(1)[0]
    print(f"dates: {n}; mean rounds {sum(rounds) / n:.2f} (min {min(rounds)})")
    print(f"same choice: {sum(alike)}/{len(alike)} rounds ({sum(alike) / len(alike):.0%})")
    print(f"scenes naming a dater: {len(named)} {named[:3]}")
    q, k = openings.most_common(1)[0]
    print(f"commonest opening: {k}/{n} ({k / n:.0%}) {q[:24]}")
    q, k = appears.most_common(1)[0]
    print(f"commonest scene: in {k}/{n} dates ({k / n:.0%}) {q[:24]}")
    print(f"distinct scenes played: {len(appears)}; most played: "
          + ", ".join(f"{q[:10]}×{k}" for q, k in appears.most_common(4)))
    print(f"rationale sentences: {total}, distinct {len(sentences)}; "
          f"commonest {top_n} ({top_n / total:.1%}) 「{top}」")
    print(f"introverts loving crowds: {len(crowds)} {crowds[:2]}")
    print(f"friends told first meeting: {len(first_meeting)} {first_meeting[:2]}")


def part2(binary, days):
    firsts, same, total_rounds, elsewhere, mentioned, dated, garbled = [], 0, 0, [], 0, 0, []
    for seed in range(1, 11):
        log = tempfile.mktemp(suffix=".jsonl")
        r = run([binary, "sim", "--seed", str(seed), "--days", str(days), "-q", "--log", log])
        if r.returncode != 0:
            sys.exit(f"sim --seed {seed} failed: {r.stderr}")
        events = [json.loads(l) for l in open(log)]
        names = dict(zip(events[0]["residents"], events[0]["names"]))
        starts = {e["date"]: e for e in events if e["kind"] == "date_start"}
        ends = {e["date"]: e for e in events if e["kind"] == "date_end"}
        if starts:
            first = min(starts.values(), key=lambda e: e["time"])
            firsts.append(tuple(sorted(first["residents"])))
        for e in events:
            if e["kind"] == "date_round":
                total_rounds += 1
                c = e["choices"]
                same += len(c) == 2 and c[0]["option"] == c[1]["option"]
            if e["kind"] == "consolidate":
                s = e["summary"]
                if "选了。" in s or "「」" in s or s.count("「") != s.count("」"):
                    garbled.append((seed, s))
        for d, st in starts.items():
            end = ends.get(d)
            if not end:
                continue
            pair = set(st["residents"])
            for e in events:
                if (e["kind"] == "message" and st["time"] < e["time"] < end["time"]
                        and e["speaker"] in pair):
                    elsewhere.append((seed, e["time"], e["speaker"], e["text"]))
            run_end = events[-1]["time"]
            if end["reason"] == "stood_up" or within_days(end["time"], run_end, 2):
                continue  # not played, or too near the run's end to be talked of
            dated += 1
            pair_names = [names[r] for r in st["residents"]]
            after = [e for e in events if e["kind"] == "message" and e["time"] > end["time"]
                     and within_days(end["time"], e["time"], 2)]
            said = [e for e in after if "约会" in e["text"]
                    or (e["speaker"] in pair and ("出去" in e["text"] or "那次" in e["text"]))]
            if said:
                mentioned += 1
                print(f"  seed {seed}: {said[0]['time']} {names[said[0]['speaker']]}: {said[0]['text']}")
            else:
                print(f"  seed {seed}: date {pair_names} ({end['reason']}) never mentioned")
    print(f"first couples over seeds 1-10: {len(set(firsts))} distinct {collections.Counter(firsts)}")
    print(f"same choice: {same}/{total_rounds} rounds ({same / max(total_rounds, 1):.0%})")
    print(f"partner lines in other talks during a date: {len(elsewhere)} {elsewhere[:2]}")
    print(f"dates mentioned within two days: {mentioned}/{dated} "
          "(dates ending less than two days before the run's end left out)")
    print(f"garbled summaries: {len(garbled)} {garbled[:2]}")


def within_days(a, b, days):
    from datetime import datetime
    fmt = lambda t: datetime.strptime(t[:16], "%Y-%m-%d %H:%M")
    return (fmt(b) - fmt(a)).total_seconds() <= days * 86400


if __name__ == "__main__":
    binary = sys.argv[1]
    days = int(sys.argv[sys.argv.index("--town-days") + 1]) if "--town-days" in sys.argv else 5
    part1(binary)
    part2(binary, days)
