#!/usr/bin/env bash
# 2026-12-02
# tests/cli/mem_kg.sh TMPDIR - the knowledge-graph commands (cli/cmd_kg.c) with CAIRN=the CLI:
# extract a store's memories into the store's own file (/graph beside /memory), list
# entities/facts/graph (text and --json), import facts (a bad line adds none), the as-of view,
# h5py reading /graph and /memory from the one file, forgetting a memory removing the fact only it
# supported (its text gone from the raw file), a FILE.graph of before moving into the store, and
# eval longmemeval on tests/kg/longmemeval_mini.json.
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
[ ! -e "$s.graph" ] # the graph is in the store's file
if command -v /usr/bin/python3 >/dev/null && /usr/bin/python3 -c 'import h5py' 2>/dev/null; then
  /usr/bin/python3 - "$s" <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
g = f["graph"]
pool = g["strtab"][:].tobytes()
names = [pool[o:pool.index(b"\0", o)].decode() for o in g["entities"][:, 0]]
assert "Ines" in names and "Lisbon" in names, names
assert g["facts"].shape[1] == 9 and g.attrs["facts"] == g["facts"].shape[0]
assert f["memory/id"].shape[0] == 2
PY
fi
# forgetting memory 2 removes the fact only it supported; its literal leaves the raw file
printf '{"subject":"Caroline","predicate":"attends","literal":"quokka-support-circle-5","sources":[2]}\n' > "$d/l.jsonl"
"$c" mem import-facts "$s" "$d/l.jsonl" | grep -q "1 facts"
"$c" mem facts "$s" | grep -q quokka-support-circle-5
grep -q quokka-support-circle-5 "$s"
"$c" mem delete "$s" 2 >/dev/null
if "$c" mem facts "$s" --as-of all | grep -q quokka-support-circle-5; then echo "forgotten fact still listed"; exit 1; fi
if grep -q quokka-support-circle-5 "$s"; then echo "forgotten fact text still in the file"; exit 1; fi
"$c" mem entities "$s" | grep -q Ines
# a graph of before in FILE.graph (--graph writes one) moves into the store at the first write
s2=$d/old.cmem
"$c" mem add "$s2" "My sister Ines moved to Lisbon last May." --role Caroline --time 1683550800000 >/dev/null
"$c" mem extract "$s2" --graph "$s2.graph" | grep -q "1 memories"
"$c" mem facts "$s2" --json | grep -q '"predicate":"lives_in"' # read from FILE.graph
"$c" mem import-facts "$s2" "$d/g.jsonl" | grep -q "1 facts"
[ ! -e "$s2.graph" ]
"$c" mem facts "$s2" --as-of all --json | grep -q Porto
"$c" mem facts "$s2" --json | grep -q '"predicate":"lives_in"'
"$c" eval longmemeval "$here/../kg/longmemeval_mini.json" --mode full --json | grep -q '"multi-session"'
echo ok
