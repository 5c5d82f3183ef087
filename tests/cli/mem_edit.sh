#!/usr/bin/env bash
# 2026-12-02
# tests/cli/mem_edit.sh TMPDIR - the memory commands of issue 17 through the CLI: scoped adds and
# dedup, update + history + search --as-of, delete (by id, by scope, all) with the raw file
# grepped, list/export/import round trip, compact, --vector (JSON and raw f32), and bad input
# named with nothing applied. Every command's --json output is parsed with python3; after the
# forget h5py reads every dataset and attribute and finds none of the forgotten text.
# CAIRN may be a wrapper: tests/wasm/targets.test.mjs runs this script with cairn.wasm (WASI).
set -u
CAIRN=${CAIRN:?set CAIRN to the cairn binary}
PY=${PYTHON:-/usr/bin/python3} # with h5py (scripts/setup.sh: python3-h5py)
t=${1:?tmp dir}/cli-mem-edit
rm -rf "$t" && mkdir -p "$t"
S="$t/s.mem"
fail=0
ko() { echo "FAIL $1"; fail=1; }
ok() { echo "ok   $1"; }
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }
J() { python3 -c "import json,sys; d=[json.loads(l) for l in sys.stdin if l.strip()]; $1"; }

id1=$("$CAIRN" mem add "$S" "I live in Lisbon" --user alice --run s1) || ko "add"
check "exact duplicate returns the same id" '[ "$("$CAIRN" mem add "$S" "i live in   LISBON" --user alice --run s1 2>/dev/null)" = "$id1" ]'
check "another user is a memory of its own" '"$CAIRN" mem add "$S" "I live in Lisbon" --user bob --json | J "assert d[0][\"status\"]==\"added\" and d[0][\"id\"]==2"'
check "--no-dedup stores again" '"$CAIRN" mem add "$S" "I live in Lisbon" --user alice --run s1 --no-dedup --json | J "assert d[0][\"id\"]==3"'
check "near duplicate skipped" '"$CAIRN" mem add "$S" "I live in Lisbon!" --user bob --near 0.8 --near-policy skip --json | J "assert d[0][\"status\"]==\"near_skipped\" and d[0][\"duplicateOf\"]==2"'
"$CAIRN" mem add "$S" "zebrasecret4711 at Elm street" --user carol-private --meta '{"ssn":"ssn-9988"}' >/dev/null || ko "add secret"
"$CAIRN" mem delete "$S" 3 >/dev/null 2>&1 || ko "delete 3"
t0=$(python3 -c 'import time; print(int(time.time()*1000))')
sleep 0.05
check "update writes a version" '"$CAIRN" mem update "$S" 1 --text "I live in Porto" --json | J "assert d[0]=={\"id\":1,\"version\":5}"'
check "history has both versions" '"$CAIRN" mem history "$S" 1 --json | J "assert [x[\"text\"] for x in d]==[\"I live in Lisbon\",\"I live in Porto\"] and d[0][\"validToMs\"]==d[1][\"validFromMs\"]>0 and d[1][\"validToMs\"]==0"'
check "get gives the current version" '"$CAIRN" mem get "$S" 1 --json | J "assert d[0][\"text\"]==\"I live in Porto\" and d[0][\"user\"]==\"alice\""'
check "search sees the current version" '"$CAIRN" mem search "$S" "Lisbon" --user alice --mode bm25 --json | J "assert d==[]"'
check "search --as-of sees the old one" '"$CAIRN" mem search "$S" "Lisbon" --user alice --mode bm25 --as-of $t0 --json | J "assert [x[\"version\"] for x in d]==[1]"'
check "scopes never leak" '"$CAIRN" mem search "$S" "live Lisbon Porto" --user bob --json | J "assert [x[\"user\"] for x in d]==[\"bob\"]"'
check "list --filter with operators" '"$CAIRN" mem list "$S" --filter "{\"user\": {\"in\": [\"alice\", \"bob\"]}}" --json | J "assert sorted(x[\"id\"] for x in d)==[1,2]"'
check "the secret is in the file" 'grep -q zebrasecret4711 "$S"'
check "delete by scope" '"$CAIRN" mem delete "$S" --user carol-private --json | J "assert d==[{\"deleted\":1}]"'
check "forgotten bytes are gone from the raw file" '! grep -q -e zebrasecret4711 -e carol-private -e ssn-9988 "$S"'
check "verify passes after the forget" '"$CAIRN" mem verify "$S" >/dev/null'
# h5py (libhdf5) reads the datasets: every byte of every dataset and attribute, and the forgotten
# text, metadata and scope are in none of them (the kept memory's text is: the read is real)
check "h5py reads the store and no forgotten byte" '"$PY" - "$S" <<"PYEOF"
import sys, h5py, numpy as np
blob = []
def take(name, obj):
    for k, v in obj.attrs.items():
        blob.append(k.encode() + np.asarray(v).tobytes())
    if isinstance(obj, h5py.Dataset):
        blob.append(np.asarray(obj[()]).tobytes())
with h5py.File(sys.argv[1], "r") as f:
    take("/", f)
    f.visititems(take)
    g = f["memory"]
    assert g.attrs["count"] - g.attrs["forgotten"] == len(g["id"]) > 0  # FORMAT.md: rows = N - F
b = b"".join(blob)
assert b"I live in Porto" in b and b"alice" in b, "the kept memory is not in what h5py read"
for w in (b"zebrasecret4711", b"carol-private", b"ssn-9988"):
    assert w not in b, w
PYEOF'
"$CAIRN" mem export "$S" --embeddings > "$t/e.jsonl" || ko "export"
check "export has every version" 'J "assert [x[\"version\"] for x in d]==[1,2,5] and \"embedding\" in d[0]" < "$t/e.jsonl"'
check "import into a new store" '"$CAIRN" mem import "$t/n.mem" "$t/e.jsonl" --json | J "assert d==[{\"imported\":3}]"'
check "round trip: the same export" '"$CAIRN" mem export "$t/n.mem" --embeddings | cmp -s - "$t/e.jsonl"'
printf '{"text":"fine"}\n{"text":"bad","tier":99}\n' > "$t/bad.jsonl"
check "a bad import line is named" '! "$CAIRN" mem import "$t/n.mem" "$t/bad.jsonl" 2>"$t/err" && grep -q "line 2" "$t/err" && grep -q tier "$t/err"'
check "and nothing of it was imported" '"$CAIRN" mem list "$t/n.mem" --json | J "assert len(d)==2"'
check "update of a deleted id fails" '! "$CAIRN" mem update "$S" 3 --text x 2>"$t/err" && grep -q "no memory 3" "$t/err"'
check "unknown filter operator is named" '! "$CAIRN" mem list "$S" --filter "{\"meta.a\": {\"gt\": 1, \"around\": 2}}" 2>"$t/err" && grep -q around "$t/err"'
# vectors from the CLI: a store of 4 dimensions
V="$t/v.mem"
"$CAIRN" mem add "$V" "north" --dim 4 --embedding 1,0,0,0 >/dev/null && "$CAIRN" mem add "$V" "east" --embedding 0,1,0,0 >/dev/null || ko "add vectors"
check "--vector JSON from stdin" 'echo "[0.1, 0.9, 0, 0]" | "$CAIRN" mem search "$V" "" --vector - --mode vector --json | J "assert d[0][\"text\"]==\"east\""'
python3 -c 'import struct,sys; sys.stdout.buffer.write(struct.pack("<4f", 0.9, 0.1, 0, 0))' > "$t/q.f32"
check "--vector raw f32" '"$CAIRN" mem search "$V" "" --vector "$t/q.f32" --mode vector --json | J "assert d[0][\"text\"]==\"north\""'
check "--vector of the wrong dimension" '! echo "[1,2]" | "$CAIRN" mem search "$V" "" --vector - 2>"$t/err" && grep -q "2 dimensions, the store 4" "$t/err"'
check "--vector with NaN" '! echo "[1,NaN,0,0]" | "$CAIRN" mem search "$V" "" --vector - 2>/dev/null'
# compact gives the space back
for i in $(seq 1 60); do echo "{\"text\":\"filler memory $i with words\",\"user\":\"f\"}"; done > "$t/f.jsonl"
"$CAIRN" mem add "$t/c.mem" --jsonl "$t/f.jsonl" 2>/dev/null || ko "fill"
before=$(stat -c %s "$t/c.mem")
"$CAIRN" mem delete "$t/c.mem" --filter '{"id": {"gt": 5}}' >/dev/null 2>&1 || ko "delete by filter"
check "compact shrinks the file" '"$CAIRN" mem compact "$t/c.mem" --json | J "assert d[0][\"after\"] <= d[0][\"before\"]" && [ "$(stat -c %s "$t/c.mem")" -lt "$before" ]'
check "delete --all" '"$CAIRN" mem delete "$t/c.mem" --all --json | J "assert d==[{\"deleted\":5}]" && "$CAIRN" mem list "$t/c.mem" --json | J "assert d==[]"'
check "no filler text left" '! grep -q "filler memory" "$t/c.mem"'
exit $fail
