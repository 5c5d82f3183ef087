#!/usr/bin/env python3
# 2026-12-02
# bench/kg/extract_eval.py CAIRN - precision and recall of the built-in extractor on a hand-labelled
# sample of LoCoMo development turns (bench/kg/extract_labels.json: per turn the proper-noun
# entities, the time expressions and the relations a reader finds). Runs `cairn mem extract-json`
# through the CLI's JSON form (cairn_kg_extract_json) and prints P/R per kind.
import json, subprocess, sys, os
cairn = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
labels = json.load(open(os.path.join(here, "extract_labels.json")))
data = json.load(open(os.path.join(here, "../../../shared/data/locomo/locomo_dev.json")))
turns = {}
for c in data:
    cv = c["conversation"]
    for k, v in cv.items():
        if k.startswith("session_") and isinstance(v, list):
            for t in v:
                turns[(c["sample_id"], t["dia_id"])] = (t["speaker"], t["text"], cv[k + "_date_time"])
tp = {"entities": 0, "times": 0, "facts": 0}; fp = dict(tp); fn = dict(tp)
for lab in labels:
    spk, text, when = turns[(lab["conv"], lab["dia"])]
    out = json.loads(subprocess.run([cairn, "mem", "extract-json", text, "--speaker", spk, "--time", when],
                                    capture_output=True, text=True, check=True).stdout)
    got = {"entities": {e["name"].lower() for e in out["entities"] if e["name"] != spk or spk.lower() in [x.lower() for x in lab["entities"]]},
           "times": {t["text"].lower() for t in out["times"]},
           "facts": {(f["s"].lower(), f["p"], f["o"].lower()) for f in out["facts"] if f["p"] != "alias"}}
    want = {"entities": {x.lower() for x in lab["entities"]}, "times": {x.lower() for x in lab["times"]},
            "facts": {(a.lower(), b, c.lower()) for a, b, c in lab["facts"]}}
    for k in tp:
        tp[k] += len(got[k] & want[k]); fp[k] += len(got[k] - want[k]); fn[k] += len(want[k] - got[k])
        for x in got[k] - want[k]: print("  extra", k, lab["dia"], x)
        for x in want[k] - got[k]: print("  missed", k, lab["dia"], x)
for k in tp:
    p = tp[k] / max(1, tp[k] + fp[k]); r = tp[k] / max(1, tp[k] + fn[k])
    print(f"{k:9s} precision {p:.2f} recall {r:.2f} (tp {tp[k]}, fp {fp[k]}, fn {fn[k]})")
