#!/usr/bin/env bash
# 2026-12-02 - tests/cli/mem_cons.sh TMPDIR - `cairn mem consolidate|tick|explain` (issue 18):
# a store of 8 memories with a capacity of 3 loses its 5 weakest working memories to the episodic
# tier (the linked and important ones stay), two near duplicates among them merge into a semantic
# memory citing both, explain says why for each, a dry run changes nothing, the tick reports what
# was due and what it did, the changes survive a reopen, and bad input exits 2 with nothing changed.
set -u
CAIRN=${CAIRN:?set CAIRN to the cairn binary}
t=${1:?tmp dir}/cli-mem-cons
rm -rf "$t" && mkdir -p "$t"
S="$t/s.mem"
pass=0 fail=0
ok() { pass=$((pass+1)); echo "ok   $1"; }
ko() { fail=$((fail+1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }
J() { python3 -c "import json,sys; d=json.loads(sys.stdin.read()); $1"; }

"$CAIRN" mem add "$S" "the anchor memory everyone links to" --importance 0.9 >/dev/null || ko "add 1"
"$CAIRN" mem add "$S" "the boiler service is booked for monday at nine" --meta '{"links":[1]}' >/dev/null || ko "add 2"
"$CAIRN" mem add "$S" "the boiler service is booked for monday at nine." --meta '{"links":[1]}' >/dev/null || ko "add 3"
for w in kites lanterns pebbles ferns; do "$CAIRN" mem add "$S" "a passing thought about $w" >/dev/null || ko "add $w"; done
"$CAIRN" mem add "$S" "an important fact: the passport expires in june" --importance 1 >/dev/null || ko "add 8"
cp "$S" "$t/before.mem"

check "dry run plans and changes nothing" '"$CAIRN" mem consolidate "$S" --capacity 3 --dry-run --json | J "assert d[\"evicted\"]==5 and len(d[\"evict\"])==5 and 1 not in d[\"evict\"] and 8 not in d[\"evict\"]" && cmp -s "$S" "$t/before.mem"'
check "consolidate evicts 5 and merges the duplicates" '"$CAIRN" mem consolidate "$S" --capacity 3 --json > "$t/c.json" && J "assert d[\"working\"]==8 and d[\"evicted\"]==5 and d[\"promoted\"]==1 and d[\"merged\"]==2 and d[\"hot\"]==4 and d[\"episodic\"]==5 and sorted(d[\"groups\"][0][\"sources\"])==[2,3]" < "$t/c.json"'
check "the semantic memory cites its sources" '"$CAIRN" mem list "$S" --json | python3 -c "import json,sys; d=[json.loads(l) for l in sys.stdin if l.strip()]; s=[x for x in d if x[\"tier\"]==2]; assert len(s)==1 and sorted(s[0][\"meta\"][\"sources\"])==[2,3] and s[0][\"meta\"][\"rule\"]==\"extractive\" and \"boiler\" in s[0][\"text\"], d"'
check "explain a kept memory" '"$CAIRN" mem explain "$S" 1 --capacity 3 --json | J "assert d[\"decision\"]==\"kept\" and d[\"tierName\"]==\"working\" and d[\"rank\"]<=3 and d[\"inputs\"][\"links\"]==2 and d[\"score\"][\"links\"]>0"'
check "explain a merged memory" '"$CAIRN" mem explain "$S" 2 --json | J "assert d[\"decision\"]==\"merged\" and d[\"tierName\"]==\"episodic\" and [h[\"tierName\"] for h in d[\"history\"]]==[\"working\",\"episodic\"] and \"scoreAtEviction\" in d and d[\"mergedInto\"]>8"'
check "explain an evicted memory" '"$CAIRN" mem explain "$S" 4 --json | J "assert d[\"decision\"]==\"evicted\" and \"mergedInto\" not in d"'
check "explain in text says why" '"$CAIRN" mem explain "$S" 4 | grep -q "evicted from the working tier"'
check "explain an unknown id: error" '! "$CAIRN" mem explain "$S" 999 2>/dev/null'
check "the hot index leaves the evicted out" '"$CAIRN" mem search "$S" "passing thought kites" --filter "{\"tier\":{\"in\":[0,2]}}" --mode bm25 --json | python3 -c "import json,sys; d=[json.loads(l) for l in sys.stdin if l.strip()]; assert 4 not in [x[\"id\"] for x in d]"'
check "evicted memories stay searchable" '"$CAIRN" mem search "$S" "passing thought about kites" --mode bm25 --json | python3 -c "import json,sys; d=[json.loads(l) for l in sys.stdin if l.strip()]; assert d and d[0][\"id\"]==4"'
check "a second cycle changes nothing" '"$CAIRN" mem consolidate "$S" --capacity 3 --json | J "assert d[\"evicted\"]==0 and d[\"promoted\"]==0"'
check "tick --budget 0 runs nothing and reports the due" '"$CAIRN" mem add "$S" "another passing thought about clouds" >/dev/null && "$CAIRN" mem tick "$S" --budget 0 --capacity 3 --json | J "assert \"consolidate\" in d[\"due\"] and d[\"done\"]==[] and \"consolidate\" in d[\"skipped\"]"'
check "tick runs the consolidation" '"$CAIRN" mem tick "$S" --budget 5000 --capacity 3 --json | J "assert \"consolidate\" in d[\"done\"] and d[\"consolidate\"][\"evicted\"]==1"'
check "verify after the cycles" '"$CAIRN" mem verify "$S" >/dev/null'
cp "$S" "$t/before2.mem"
check "capacity 0: usage error, store unchanged" '"$CAIRN" mem consolidate "$S" --capacity 0 2>/dev/null; rc=$?; [ $rc -ne 0 ] && cmp -s "$S" "$t/before2.mem"'
check "bad --merge: error" '! "$CAIRN" mem consolidate "$S" --merge 2 2>/dev/null && cmp -s "$S" "$t/before2.mem"'
check "negative budget: error" '! "$CAIRN" mem tick "$S" --budget -1 2>/dev/null'
check "unknown option: usage (2)" '"$CAIRN" mem consolidate "$S" --nope 2>/dev/null; [ $? = 2 ]'
check "help names the commands" '"$CAIRN" help mem consolidate | grep -q capacity && "$CAIRN" help mem tick | grep -q budget && "$CAIRN" help mem explain | grep -q json'
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
