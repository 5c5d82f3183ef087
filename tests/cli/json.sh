#!/usr/bin/env bash
# 2026-12-02 - tests/cli/json.sh TMPDIR: --json of hash, h5 attrs, store ls and mem stats, parsed
# with python3's json and checked against independent tools: sha256sum and stat for hash, h5py's
# attrs for h5 attrs (made by h5py, every type class it writes simply), sha256sum/stat and the
# put's printed IDs for store ls, and file sizes and the memories added for mem stats. Also:
# each still refuses an unknown option with exit 2. Needs python3 with h5py and numpy.
set -u
CAIRN=${CAIRN:?set CAIRN to the cairn binary}
case $CAIRN in /*) ;; *) CAIRN=$PWD/$CAIRN ;; esac
PY=${PYTHON:-/usr/bin/python3}
t=$(mktemp -d "${1:-/tmp}/json.XXXX")
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

printf 'hello\n' >"$t/a.txt"
head -c 300000 /dev/urandom >"$t/b.bin"
: >"$t/empty"
cp "$t/a.txt" "$t/we\"ird name.txt"
(cd "$t" && "$CAIRN" hash --json a.txt b.bin empty "we\"ird name.txt" >hash.json)
check "hash --json: exit 0" '[ $? -eq 0 ]'
check "hash --json: one object per file, sha256 and bytes as sha256sum and stat say" '(cd "$t" && "$PY" - <<EOF
import json, subprocess, os
rows = [json.loads(l) for l in open("hash.json")]
assert [r["path"] for r in rows] == ["a.txt", "b.bin", "empty", "we\"ird name.txt"], rows
for r in rows:
    want = subprocess.run(["sha256sum", r["path"]], capture_output=True, text=True).stdout.split()[0]
    assert r["sha256"] == want, (r, want)
    assert r["bytes"] == os.path.getsize(r["path"]), r
    assert set(r) == {"path", "sha256", "bytes"}, r
EOF
)'
check "hash: the plain form is still sha256sum's" '(cd "$t" && "$CAIRN" hash a.txt b.bin | sha256sum -c --quiet -)'
"$CAIRN" hash --jsn "$t/a.txt" >/dev/null 2>&1
check "hash --jsn: a missing file, not a silent --json (exit 1)" '[ $? -ne 0 ]'

"$PY" - "$t/at.h5" <<'EOF'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], 'w') as f:
    d = f.create_dataset('x', data=np.arange(6.0).reshape(2, 3))
    d.attrs['units'] = 'm/s'
    d.attrs['scale'] = np.float64(2.5)
    d.attrs['counts'] = np.array([1, 2, 3], dtype='i4')
    d.attrs['grid'] = np.arange(6, dtype='u2').reshape(2, 3)
    d.attrs['flag'] = np.int8(-3)
    d.attrs['names'] = np.array(['a', 'bc'], dtype=h5py.string_dtype())
    f.attrs['title'] = 'root "quoted"'
EOF
"$CAIRN" h5 attrs --json "$t/at.h5" /x >"$t/attrs.json"
check "h5 attrs --json: exit 0" '[ $? -eq 0 ]'
"$CAIRN" h5 attrs "$t/at.h5" / --json >"$t/rattrs.json"
check "h5 attrs --json: names, shapes and values equal h5py's attrs" '"$PY" - "$t/at.h5" "$t/attrs.json" "$t/rattrs.json" <<EOF
import sys, json, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
for path, fn in (("/x", sys.argv[2]), ("/", sys.argv[3])):
    rows = [json.loads(l) for l in open(fn)]
    a = f[path].attrs
    assert sorted(r["attr"] for r in rows) == sorted(a.keys()), (rows, list(a.keys()))
    for r in rows:
        assert r["path"] == path and "error" not in r, r
        v = a[r["attr"]]
        want = np.asarray(v)
        shape = list(want.shape)
        assert r["shape"] == (shape if shape else "scalar"), (r, shape)
        got = r["data"]
        if want.dtype.kind in "OSU":
            w = want.tolist()
            w = [x.decode() if isinstance(x, bytes) else x for x in w] if isinstance(w, list) else (w.decode() if isinstance(w, bytes) else w)
            assert got == w, (got, w)
        else:
            assert np.array_equal(np.asarray(got), want), (got, want)
        assert r["type"]["class"] in ("integer", "float", "string", "vlen"), r
EOF'
check "h5 attrs: text form unchanged (one NAME = line per attribute)" '[ "$("$CAIRN" h5 attrs "$t/at.h5" /x | grep -c " = ")" -eq 6 ]'
"$CAIRN" h5 attrs --bogus "$t/at.h5" /x >/dev/null 2>&1
check "h5 attrs --bogus: exit 2" '[ $? -eq 2 ]'

S=$t/s.cas
"$CAIRN" store put --store "$S" "$t/a.txt" "$t/b.bin" >"$t/ids"
"$CAIRN" store put --store "$S" --no-name "$t/empty" >>"$t/ids"
"$CAIRN" store ls --store "$S" --json >"$t/ls.json" 2>"$t/ls.err"
check "store ls --json: exit 0, the summary only on stderr" '[ $? -eq 0 ] && grep -q payloads "$t/ls.err" && ! grep -q payloads "$t/ls.json"'
check "store ls --json: ids as put printed them, sizes as stat, names (null without)" '"$PY" - "$t" <<EOF
import sys, json, os
t = sys.argv[1]
rows = [json.loads(l) for l in open(t + "/ls.json")]
ids = [l.split()[0] for l in open(t + "/ids")]
assert sorted(r["id"] for r in rows) == sorted(ids), (rows, ids)
by = {r["id"]: r for r in rows}
for i, (fn, name) in enumerate([(t + "/a.txt", t + "/a.txt"), (t + "/b.bin", t + "/b.bin"), (t + "/empty", None)]):
    r = by[ids[i]]
    assert r["size"] == os.path.getsize(fn) and r["name"] == name and len(r["id"]) == 64, r
    assert set(r) == {"id", "size", "name"}, r
EOF'
check "store ls: text lines equal the JSON rows" '[ "$("$CAIRN" store ls --store "$S" -q | awk "{print \$1, \$2}" | sort)" = "$("$PY" -c "import json,sys; [print(json.loads(l)[\"id\"], json.loads(l)[\"size\"]) for l in open(sys.argv[1])]" "$t/ls.json" | sort)" ]'

M=$t/m.h5
"$CAIRN" mem add "$M" --text-only "the first memory" "a second one" "and a third" -q >/dev/null
"$CAIRN" mem stats "$M" --json >"$t/stats.json"
check "mem stats --json: exit 0" '[ $? -eq 0 ]'
check "mem stats --json: counts and sizes as the store and the file say" '"$PY" - "$t" "$M" <<EOF
import sys, json, os
s = json.load(open(sys.argv[1] + "/stats.json"))
keys = {"memories","textOnly","dim","metric","diskVectors","model","sessions","roles","terms","postings","textBytes","fileBytes","index","nlist","format","checkpointed","logBytes","kernel","openMs"}
assert set(s) == keys, set(s) ^ keys
assert s["memories"] == 3 and s["textOnly"] is True and s["metric"] is None and s["dim"] == 0, s
assert s["fileBytes"] == os.path.getsize(sys.argv[2]), (s["fileBytes"], os.path.getsize(sys.argv[2]))
assert s["textBytes"] >= len("the first memory" "a second one" "and a third"), s
assert s["terms"] >= 4 and s["format"] in (1, 2) and s["index"] == "exact", s
EOF'
check "mem stats: the text form says the same count" '"$CAIRN" mem stats "$M" | grep -q "^memories    3$"'

rm -rf "$t"
exit $fail
