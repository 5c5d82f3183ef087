#!/usr/bin/env bash
# tests/cli/h5w_kill.sh TMPDIR - crash safety of cairn's HDF5 writer with a real kill -9: the
# native CLI appends rows one commit at a time (`cairn h5w loop`), each commit also setting the
# dataset's attribute "rows"; we kill it at random moments, copy the file, and let the next run
# continue on it. Every copy must open in h5dump and in h5py (libhdf5) and in `cairn h5w verify`,
# with rows == number of rows and row k == k: the state of one complete commit.
set -u
CAIRN=${CAIRN:?set CAIRN to the cairn binary}
PY=${PYTHON:-/usr/bin/python3}
t=${1:?tmp dir}/h5w-kill
rm -rf "$t" && mkdir -p "$t"
f="$t/k.h5"
fail=0
"$CAIRN" h5w new "$f" && "$CAIRN" h5w dataset "$f" /d f32 0x4 --max ux4 --chunk 16x4 --filter shuffle,deflate:6 || exit 1
n=${H5W_KILLS:-25}
for i in $(seq 1 "$n"); do
  "$CAIRN" h5w loop "$f" /d 1000000 2>/dev/null &
  pid=$!
  sleep "0.$(( (RANDOM % 25) + 2 ))"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  cp "$f" "$t/kill_$i.h5"
  if ! h5dump -H "$t/kill_$i.h5" >/dev/null 2>&1; then echo "FAIL h5dump cannot open kill_$i.h5"; fail=1; fi
  if ! "$CAIRN" h5w verify "$t/kill_$i.h5" >/dev/null; then echo "FAIL cairn h5w verify kill_$i.h5"; fail=1; fi
done
"$PY" - "$t" "$n" <<'PYEOF' || fail=1
import sys, h5py, numpy as np
t, n = sys.argv[1], int(sys.argv[2])
bad = 0
last = -1
for i in range(1, n + 1):
    with h5py.File(f"{t}/kill_{i}.h5", "r") as f:
        d = f["d"]
        rows = int(d.attrs["rows"]) if "rows" in d.attrs else 0
        data = d[:]
        ok = d.shape[0] == rows and np.array_equal(data, np.repeat(np.arange(rows, dtype=np.float32)[:, None], 4, axis=1))
        if not ok or rows < last:
            print(f"FAIL kill_{i}.h5: shape {d.shape}, rows attribute {rows}")
            bad += 1
        last = rows
print(f"h5py: {n} killed runs checked, last had {last} rows")
sys.exit(1 if bad or last <= 0 else 0)
PYEOF
if [ "$fail" = 0 ]; then echo "ok   h5w kill -9 x$n"; else echo "FAIL h5w kill -9"; fi
exit $fail
