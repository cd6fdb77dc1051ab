#!/usr/bin/env python3
"""How alive a run's town reads, from its event log (issue 20's figures).

    heartvale sim --days 3 --seed 1 --log run.jsonl -q
    python3 scripts/liveliness.py [--party PLACE,START,END,HOST] run.jsonl ...

(--party defaults to the default town's: square,2026-04-08 18:00,2026-04-08 21:00,zhong)

Prints one row per log: median conversation length (game seconds), the share
of distinct lines, lines equal to the line before, lines (and conversation
memories and nightly summaries) with English words,
staff roles that greeted, the party's host on time and talks during it, the
share of chance meetings, ties that fell, and family members addressed by name.
"""

import json
import re
import statistics
import sys
from datetime import datetime

ENGLISH = re.compile(r"[A-Za-z]{3,}")


def when(text):
    fmt = "%Y-%m-%d %H:%M:%S" if text.count(":") == 2 else "%Y-%m-%d %H:%M"
    return datetime.strptime(text, fmt)


def report(path):
    events = [json.loads(line) for line in open(path, encoding="utf-8")]
    names = {}
    for e in events:
        if e["kind"] == "start":
            names = dict(zip(e["residents"], e["names"]))
    convs, lines, last_line = {}, [], {}
    consecutive = 0
    for e in events:
        k = e["kind"]
        if k == "conversation_start":
            convs[e["conversation"]] = {"start": when(e["time"]), **e}
        elif k == "message":
            c = e["conversation"]
            if last_line.get(c) == e["text"]:
                consecutive += 1
            last_line[c] = e["text"]
            lines.append(e)
        elif k == "conversation_end" and e["conversation"] in convs:
            convs[e["conversation"]]["end"] = when(e["time"])
    # Length: first line to last line of each finished conversation.
    spans = {}
    for m in lines:
        t = when(m["time"])
        lo, hi = spans.get(m["conversation"], (t, t))
        spans[m["conversation"]] = (min(lo, t), max(hi, t))
    lengths = [(hi - lo).total_seconds() for lo, hi in spans.values()]
    texts = [m["text"] for m in lines]
    english = [t for t in texts if ENGLISH.search(t.replace("@", ""))]
    remembered = [m["text"] for e in events if e["kind"] == "conversation_end" for m in e["memories"]]
    remembered += [e["summary"] for e in events if e["kind"] == "consolidate"]
    english_memories = [t for t in remembered if ENGLISH.search(t)]
    work = [c for c in convs.values() if c["trigger"] == "work"]
    greeters = sorted({c["participants"][0] for c in work})
    chance = sum(1 for c in convs.values() if c["trigger"] == "proximity")
    falls = sum(
        1
        for e in events
        if e["kind"] == "relationship_change" and e["new_strength"] < e["old_strength"]
    )
    return {
        "log": path,
        "conversations": len(convs),
        "median_s": statistics.median(lengths) if lengths else 0,
        "lines": len(texts),
        "distinct": round(len(set(texts)) / max(1, len(texts)), 2),
        "same_as_before": consecutive,
        "english": len(english),
        "english_memories": len(english_memories),
        "greeters": ",".join(names.get(g, g) for g in greeters),
        "chance_share": round(chance / max(1, len(convs)), 2),
        "tie_falls": falls,
        **party(events, convs),
    }


# The default town's party: place, start, end, host (change with --party).
PARTY = ["square", "2026-04-08 18:00", "2026-04-08 21:00", "zhong"]


def party(events, convs):
    """The gathering: whether its host arrived by the start, and the talks during it."""
    place, t0, t1, host = PARTY
    t0, t1 = when(t0), when(t1)
    arrived = [
        when(e["time"])
        for e in events
        if e["kind"] == "arrive" and e["resident"] == host and e["location"] == place
        and when(e["time"]) <= t0
    ]
    during = [
        c for c in convs.values() if c["location"] == place and t0 <= c["start"] <= t1
    ]
    return {"host_on_time": bool(arrived), "party_talks": len(during)}


def main():
    args = sys.argv[1:]
    if args[:1] == ["--party"]:
        PARTY[:] = args[1].split(",")
        args = args[2:]
    rows = [report(p) for p in args]
    if not rows:
        sys.exit(__doc__)
    keys = list(rows[0].keys())
    for r in rows:
        print("  ".join(f"{k}={r.get(k)}" for k in keys))


if __name__ == "__main__":
    main()
