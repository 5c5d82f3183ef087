#!/usr/bin/env bash
# 2026-12-02 - tests/interop/h5_hostile.sh CAIRN TMPDIR: valid but hostile HDF5 files that h5py
# (libhdf5) writes here (never committed), issue 16 item 5:
#  - hard-link cycles (a group linking to its ancestor, to the root, two groups linking each
#    other, a dataset and a committed type under two names, a soft link): `cairn ls -r` prints
#    exactly what `h5ls -r` prints (its "/" line included), `cairn ls` what `h5ls` prints, and
#    `cairn h5 dumpall` ends listing each object once;
#  - a never-written 8 TB dataset: `cairn dump` fails with CAIRN_LIMIT naming it, the bytes (as
#    JSON: the 8 TB of values and at least 2 bytes of text per value) and
#    the budget (in well under a second, allocating nothing), a slice reads the fill value,
#    --max-memory lowers the budget; `cairn repack` writes no chunk for it (each index type
#    h5py writes: v1 B-tree, fixed array, extensible array, v2 B-tree) and h5py reads the same
#    shape, chunks, fill and the few written values back.
set -u
CAIRN=${1:?cairn}; t=${2:?tmp}/h5-hostile; PY=${PYTHON:-/usr/bin/python3}
rm -rf "$t" && mkdir -p "$t"
fail=0
"$PY" - "$t" <<'PYEOF' || exit 1
import sys, h5py, numpy as np
d = sys.argv[1]
for lv in ("earliest", "latest"):
    with h5py.File(f"{d}/cyc_{lv}.h5", "w", libver=lv) as f:
        f.create_group("a/b")
        f["a/x"] = np.arange(3)
        f["a/b/c"] = f["a"]            # to an ancestor
        f["loop"] = f["/"]             # to the root
        f["same"] = f["a/b"]           # a group under two names
        f["d2"] = f["a/x"]             # a dataset under two names
        f["t"] = np.dtype("i4"); f["t2"] = f["t"]
        f["soft"] = h5py.SoftLink("/a")
        p = f.create_group("p"); q = f.create_group("q"); p["toq"] = q; q["top"] = p
        p.attrs["n"] = 1
    with h5py.File(f"{d}/big_{lv}.h5", "w", libver=lv) as f:
        f.create_dataset("big", shape=(10**6, 10**6), dtype="f8", chunks=(1000, 1000), fillvalue=7.5)
        f.create_dataset("ext", shape=(10**6, 1000), maxshape=(None, 1000), dtype="f4", chunks=(1000, 1000))
        f.create_dataset("bt2", shape=(10**5, 10**5), maxshape=(None, None), dtype="i4", chunks=(1000, 1000), fillvalue=-1)
        s = f.create_dataset("some", shape=(10**6, 10**6), dtype="f8", chunks=(1000, 1000), compression="gzip")
        s[5, 5] = 3; s[999999, 999999] = 4
PYEOF
for lv in earliest latest; do
  f="$t/cyc_$lv.h5"
  # both time-limited: before 2026-12-02 cairn ran forever on these
  a=$(h5ls -r "$f"); b=$(timeout 20 "$CAIRN" ls -r "$f")
  if [ "$a" != "$b" ]; then echo "FAIL ls -r differs from h5ls -r on $f"; diff <(echo "$a") <(echo "$b") | head; fail=1; fi
  a=$(h5ls "$f"); b=$(timeout 20 "$CAIRN" ls "$f")
  if [ "$a" != "$b" ]; then echo "FAIL ls differs from h5ls on $f"; diff <(echo "$a") <(echo "$b") | head; fail=1; fi
  n=$(timeout 20 "$CAIRN" h5 dumpall "$f" | grep -c '"path"') || true
  if [ "$n" != 2 ]; then echo "FAIL dumpall $f: $n lines, want 2 (/a/x once, /p@n)"; fail=1; fi
  # repack: a second hard link to a group is refused, or left out with --skip
  timeout 20 "$CAIRN" repack "$f" "$t/rc_$lv.h5" 2>/dev/null && { echo "FAIL repack of a cycle succeeded"; fail=1; }
  timeout 20 "$CAIRN" repack --skip "$f" "$t/rc_$lv.h5" 2>/dev/null || { echo "FAIL repack --skip of $f"; fail=1; }

  f="$t/big_$lv.h5"
  e=$(timeout 20 "$CAIRN" dump "$f" /big 2>&1 >/dev/null); rc=$?
  case "$e" in *"/big needs 10000000000000 bytes"*"budget of"*) ;; *) echo "FAIL dump /big ($rc): $e"; fail=1;; esac
  [ $rc = 1 ] || { echo "FAIL dump /big exit $rc"; fail=1; }
  v=$("$CAIRN" dump --sel 999998:1:2,3:1:2 "$f" /big)
  [ "$v" = "[[7.5,7.5],[7.5,7.5]]" ] || { echo "FAIL slice of /big: $v"; fail=1; }
  v=$("$CAIRN" dump --sel 4:1:2,4:1:2 "$f" /some)
  [ "$v" = "[[0.0,0.0],[0.0,3.0]]" ] || { echo "FAIL slice of /some: $v"; fail=1; }
  e=$("$CAIRN" dump --max-memory 1K --sel 0:1:20,0:1:20 "$f" /bt2 2>&1 >/dev/null)
  case "$e" in *"needs 2400 bytes"*"budget of 1024 bytes"*) ;; *) echo "FAIL --max-memory: $e"; fail=1;; esac
  "$CAIRN" h5 dumpall --max-memory 1M "$f" >/dev/null 2>&1 && { echo "FAIL dumpall of 8 TB succeeded"; fail=1; }
  rm -f "$t/out_$lv.h5"
  timeout 60 "$CAIRN" repack "$f" "$t/out_$lv.h5" || { echo "FAIL repack $f"; fail=1; continue; }
  sz=$(stat -c %s "$t/out_$lv.h5")
  [ "$sz" -lt 200000 ] || { echo "FAIL repack of $f wrote $sz bytes"; fail=1; }
  "$PY" - "$f" "$t/out_$lv.h5" <<'PYEOF' || fail=1
import sys, h5py
with h5py.File(sys.argv[1]) as a, h5py.File(sys.argv[2]) as b:
    for k in a:
        x, y = a[k], b[k]
        want = 2 if k == "some" else 0
        got = (y.shape, y.dtype, y.chunks, y.fillvalue, y.id.get_num_chunks())
        if got != (x.shape, x.dtype, x.chunks, x.fillvalue, want) or y[0, 0] != x[0, 0] or y[5, 5] != x[5, 5] or y[-1, -1] != x[-1, -1]:
            print(f"FAIL repack {sys.argv[1]}:{k}: {got} vs {x.shape, x.dtype, x.chunks, x.fillvalue, want}"); sys.exit(1)
PYEOF
done
# Deep v1 chunk B-trees as libhdf5 grows them (chunks written in random order, sparse, rank 1-3,
# resized): cairn checks every node's keys as it reads them (core/h5/format.h), and must still read
# every value h5py reads, and `cairn h5w append` must still extend such a tree.
"$PY" - "$t/bt.h5" <<'PYEOF' || exit 1
import sys, random, h5py, numpy as np
random.seed(1)
with h5py.File(sys.argv[1], "w", libver="earliest") as f:
    d = f.create_dataset("a", (0,), maxshape=(None,), chunks=(4,), dtype="i4")
    for k in range(50):
        d.resize((d.shape[0] + 300,)); d[-300:] = np.arange(d.shape[0] - 300, d.shape[0])
    e = f.create_dataset("sparse", (100000,), chunks=(8,), dtype="f8", fillvalue=-1)
    for i in random.sample(range(100000 // 8), 3000): e[i * 8:i * 8 + 8] = i
    g = f.create_dataset("two", (300, 300), chunks=(7, 9), dtype="i2", compression="gzip")
    order = [(i, j) for i in range(0, 300, 7) for j in range(0, 300, 9)]; random.shuffle(order)
    for (i, j) in order[:1200]: g[i:i + 7, j:j + 9] = (i + j) % 300
    h = f.create_dataset("three", (20, 30, 40), chunks=(3, 4, 5), dtype="u1", maxshape=(None, None, None))
    h[...] = np.arange(24000).reshape(20, 30, 40) % 251
    h.resize((25, 33, 41))
PYEOF
for ds in a sparse two three; do
  "$CAIRN" dump --json "$t/bt.h5" /$ds >"$t/bt_$ds.json" || { echo "FAIL cairn dump of libhdf5's deep B-tree /$ds"; fail=1; }
done
"$CAIRN" h5w append "$t/bt.h5" /a 7 8 9 || { echo "FAIL h5w append to libhdf5's deep B-tree"; fail=1; }
"$PY" - "$t" <<'PYEOF' || fail=1
import sys, json, h5py, numpy as np
t = sys.argv[1]
with h5py.File(f"{t}/bt.h5") as f:
    for n in ("a", "sparse", "two", "three"):
        got = np.asarray(json.load(open(f"{t}/bt_{n}.json"))["data"])
        want = f[n][...]
        if n == "a": want = want[:-3]
        if f[n].id.get_num_chunks() < 400 or not np.array_equal(got.reshape(want.shape), want):
            print(f"FAIL deep B-tree /{n}: cairn's values differ from h5py's"); sys.exit(1)
    if list(f["a"][-4:]) != [14999, 7, 8, 9]: print("FAIL append to the deep B-tree"); sys.exit(1)
PYEOF
[ $fail = 0 ] && echo "hostile HDF5 files: ls/dumpall end on cycles as h5ls, reads keep the budget, repack writes no unwritten chunk, deep libhdf5 B-trees read as h5py"
exit $fail
