#!/usr/bin/env bash
# tests/interop/run.sh CAIRN_TESTS CAIRN TMPDIR - every file cairn's HDF5 writer produces in the
# tests, checked by independent readers:
#   1. the writer corpus (tests/core/test_h5w.c) and the crash images of tests/core/h5w_fault.c;
#   2. h5dump (libhdf5 1.10) dumps every file; each crash image dumps exactly like its reference
#      state (the last commit before the crash); `cairn dump` prints the values h5dump prints;
#   3. h5py compares every value (check_h5py.py), a C program linked to libhdf5 too (h5w_read.c);
#   4. h5wasm (with the zstd/lz4 plugins) and jsfive compare values (check_js.mjs);
#   5. kill -9 of the CLI in the middle of commits (tests/cli/h5w_kill.sh);
#   also edit_h5py.sh (cairn edits h5py files) and repack.sh (cairn repack vs h5diff).
set -u
TESTS=${1:?cairn_tests binary}
CAIRN=${2:?cairn binary}
here=$(cd "$(dirname "$0")" && pwd)
t=${3:?tmp dir}/interop-h5w
PY=${PYTHON:-/usr/bin/python3}
rm -rf "$t" && mkdir -p "$t"
fail=0
ko() { echo "FAIL $1"; fail=1; }

"$TESTS" --tmp "$t" h5w h5w_fault h5w_dense >"$t/tests.log" 2>&1 || { cat "$t/tests.log"; ko "cairn_tests h5w h5w_fault h5w_dense"; }
plug=$(dpkg -L hdf5-filter-plugin 2>/dev/null | grep '/plugins$' | head -1)
export HDF5_PLUGIN_PATH=${plug:-/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins}

# 2. h5dump: whole files; the chunked file without its zstd datasets (no zstd plugin in Debian)
for f in h5w_types.h5 h5w_wide.h5 h5w_dense_10k.h5 h5w_dense_sessions.h5; do
  h5dump "$t/$f" >"$t/$f.dump" 2>&1 || ko "h5dump $f"
done
h5dump -d /c0 -d /c1 -d /c3 -d /c4 -d /c6 -d /c7 -d /ext -d /fillonly -d /long "$t/h5w_chunked.h5" >"$t/chunked.dump" 2>&1 || ko "h5dump h5w_chunked.h5"
h5dump -H "$t/h5w_chunked.h5" >/dev/null 2>&1 || ko "h5dump -H h5w_chunked.h5"
grep -q '(998): 246.5, 246.75' "$t/h5w_types.h5.dump" || ko "h5dump f32 values"
[ "$(grep -c '^ *GROUP "[gh][0-9]*" {' "$t/h5w_dense_10k.h5.dump")" = 10100 ] || ko "h5dump: the 10,100 groups of the dense group"
n=0
if [ -f "$t/h5w_fault/manifest.txt" ]; then
  for ref in $(awk '{print $2}' "$t/h5w_fault/manifest.txt" | sort -u); do
    h5dump "$t/h5w_fault/$ref" 2>&1 | tail -n +2 >"$t/h5w_fault/$ref.dump"
  done
  while read -r img ref; do
    h5dump "$t/h5w_fault/$img" 2>&1 | tail -n +2 | cmp -s - "$t/h5w_fault/$ref.dump" || ko "crash image $img differs from $ref in h5dump"
    n=$((n+1))
  done <"$t/h5w_fault/manifest.txt"
else
  ko "no crash images"
fi
[ "$fail" = 0 ] && echo "ok   h5dump: corpus, and $n crash images identical to their last commit"
# cairn's reader on the writer corpus prints every value h5dump prints (zstd datasets: h5dump has no plugin)
"$PY" "$here/../h5gen/vs_h5dump.py" "$CAIRN" "$t" || fail=1

# 3. h5py and a C reader on libhdf5
"$PY" "$here/check_h5py.py" "$t" || fail=1
if gcc -O1 -o "$t/h5w_read" "$here/h5w_read.c" $(pkg-config --cflags --libs hdf5) -lm 2>"$t/gcc.log"; then
  "$t/h5w_read" "$t" || fail=1
else
  cat "$t/gcc.log"; ko "cannot build the libhdf5 C reader"
fi

# 4. h5wasm and jsfive (npm packages in tests/interop/package.json)
if [ ! -d "$here/node_modules/h5wasm" ] || [ ! -d "$here/node_modules/jsfive" ]; then
  (cd "$here" && npm install --no-audit --no-fund --loglevel=error >/dev/null 2>&1)
fi
node "$here/check_js.mjs" "$t" || fail=1

# 4b. editing files libhdf5/h5py wrote
bash "$here/edit_h5py.sh" "$CAIRN" "$t" || fail=1

# 4c. cairn repack (reader + writer) against h5diff
bash "$here/repack.sh" "$CAIRN" "$t" "$t" || fail=1

# 5. kill -9
CAIRN="$CAIRN" H5W_KILLS=${H5W_KILLS:-15} bash "$here/../cli/h5w_kill.sh" "$t" || fail=1

[ "$fail" = 0 ] && echo "interop.h5w: all readers agree" || echo "interop.h5w: FAILED"
exit $fail
