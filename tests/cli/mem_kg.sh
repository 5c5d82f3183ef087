#!/usr/bin/env bash
# 2026-12-02
# tests/cli/mem_kg.sh TMPDIR - the knowledge-graph commands (cli/cmd_kg.c) with CAIRN=the CLI:
# extract a store's memories into FILE.graph, list entities/facts/graph (text and --json), import
# facts (a bad line adds none), the as-of view, h5py reading /graph, and eval longmemeval on
# tests/kg/longmemeval_mini.json.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
d=$1/mem_kg
rm -rf "$d" && mkdir -p "$d"
c=$CAIRN
s=$d/s.cmem
"$c" mem add "$s" "My sister Ines moved to Lisbon last May." --role Caroline --time 1683550800000 >/dev/null
"$c" mem add "$s" "I went to the support group yesterday." --role Caroline --time 1683637200000 >/dev/null
"$c" mem extract "$s" | grep -q "2 memories"
"$c" mem entities "$s" --json | grep -q '"name":"Ines"'
"$c" mem entities "$s" | grep -q "Lisbon"
"$c" mem facts "$s" --json | grep -q '"predicate":"lives_in"'
"$c" mem graph "$s" Caroline --depth 2 --json | grep -q '"name":"Lisbon"'
printf '{"subject":"Ines","predicate":"lives_in","object":"Porto","validAt":1700000000000}\n' > "$d/f.jsonl"
printf '{"subject":"Ines","predicate":"likes"}\n' >> "$d/f.jsonl"
if "$c" mem import-facts "$s" "$d/f.jsonl" 2>"$d/err"; then echo "bad facts accepted"; exit 1; fi
grep -q "no object" "$d/err"
n0=$("$c" mem facts "$s" --as-of all --json | grep -o '"id"' | wc -l)
head -1 "$d/f.jsonl" > "$d/g.jsonl"
"$c" mem import-facts "$s" "$d/g.jsonl" | grep -q "1 facts"
n1=$("$c" mem facts "$s" --as-of all --json | grep -o '"id"' | wc -l)
[ "$n1" -eq $((n0 + 1)) ]
"$c" mem facts "$s" --as-of 1690000000000 | grep -q Lisbon
if command -v /usr/bin/python3 >/dev/null && /usr/bin/python3 -c 'import h5py' 2>/dev/null; then
  /usr/bin/python3 - "$s.graph" <<'PY'
import sys, h5py
g = h5py.File(sys.argv[1], "r")["graph"]
pool = g["strtab"][:].tobytes()
names = [pool[o:pool.index(b"\0", o)].decode() for o in g["entities"][:, 0]]
assert "Ines" in names and "Lisbon" in names, names
assert g["facts"].shape[1] == 9
PY
fi
"$c" eval longmemeval "$here/../kg/longmemeval_mini.json" --mode full --json | grep -q '"multi-session"'
echo ok
