#!/usr/bin/env python3
"""Checks a screenshot's draw list (FILE.png.json, written with every
`heartvale window --screenshot FILE.png`) against the look's rules:

  scripts/frame-check.py FILE.png [--party PLACE] [--lit]

Prints the most common colour's share of the picture (ImageMagick's
`convert` when present), then: overlapping name labels, places with more
than two bubbles, bubbles older than 20 game minutes, bubbles over the label
of an occupied place, props at PLACE (--party: at least 3), lit windows
(--lit: at least 1). Exits 1 when a rule is broken.
"""
import json
import subprocess
import sys


def overlap(a, b):
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return ax < bx + bw - 0.5 and bx < ax + aw - 0.5 and ay < by + bh - 0.5 and by < ay + ah - 0.5


def common_colour(png):
    try:
        out = subprocess.run(["convert", png, "-format", "%c", "histogram:info:-"],
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    counts = [int(line.split(":")[0]) for line in out.splitlines() if ":" in line]
    return max(counts) / sum(counts) if counts else None


def main():
    args = sys.argv[1:]
    png = args[0]
    party = args[args.index("--party") + 1] if "--party" in args else None
    want_lit = "--lit" in args
    items = json.load(open(png + ".json"))
    print(f"{png}: game time {items['time']}, {len(items['items'])} items")
    items = items["items"]
    bad = []
    share = common_colour(png)
    if share is not None:
        print(f"  most common colour: {share:.1%} of the frame")
    names = [i for i in items if i["kind"] == "name"]
    for k, a in enumerate(names):
        for b in names[k + 1:]:
            if overlap(a["rect"], b["rect"]):
                bad.append(f"names overlap: {a['text']} / {b['text']}")
    speech = [i for i in items if i["kind"] in ("bubble", "thought")]
    per_place = {}
    for b in speech:
        if b.get("place"):
            per_place[b["place"]] = per_place.get(b["place"], 0) + 1
        if b["age_minutes"] > 20:
            bad.append(f"stale bubble ({b['age_minutes']} min): {b['text']}")
    for place, n in per_place.items():
        if n > 2:
            bad.append(f"{n} bubbles over {place}")
    for label in (i for i in items if i["kind"] == "place" and i.get("occupied")):
        for b in speech:
            if overlap(label["rect"], b["rect"]):
                bad.append(f"a bubble over {label['text']}: {b['text']}")
    lit = sum(1 for i in items if i["kind"] == "lit_window")
    kinds = {}
    for i in items:
        kinds[i["kind"]] = kinds.get(i["kind"], 0) + 1
    print(f"  drawn: {kinds}")
    print(f"  bubbles per place: {per_place or '-'}; oldest: "
          f"{max((b['age_minutes'] for b in speech), default='-')} min; lit windows: {lit}")
    if party:
        props = sum(1 for i in items if i["kind"] == "prop" and i.get("place") == party)
        print(f"  props at {party}: {props}")
        if props < 3:
            bad.append(f"only {props} props at {party}")
    if want_lit and lit < 1:
        bad.append("no lit window")
    for b in bad:
        print("  BROKEN:", b)
    sys.exit(1 if bad else 0)


main()
