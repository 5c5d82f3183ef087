#!/usr/bin/env bash
# tests/interop/mem_h5.sh CAIRN TMPDIR - memory stores written by `cairn mem` (core/mem/FORMAT.md),
# read by independent tools: h5py (check_mem_h5py.py compares text, session/role names, times,
# tier, importance, metadata and embeddings with the JSONL that was added, for f32/f16/int8 and
# text-only stores) and h5dump (libhdf5's own tool, on every file). A store whose newest
# memories are still in the log after the HDF5 part (--no-checkpoint) must read as its last
# checkpoint in both, and as everything after `cairn mem checkpoint`.
set -u
CAIRN=${1:?cairn binary}
t=${2:?tmp dir}/interop-mem
PY=${PYTHON:-/usr/bin/python3}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$t" && mkdir -p "$t"
fail=0
ko() { echo "FAIL $1"; fail=1; }

"$PY" "$here/check_mem_h5py.py" gen "$t" || ko "generate the JSONL"
for kind in f32 f16 int8 text; do
  f="$t/$kind.mem"
  opts=(--dim 24 --metric ip --disk "$kind")
  [ "$kind" = text ] && opts=(--text-only)
  # two batches: the second lands in the log only, then a checkpoint moves it
  "$CAIRN" mem add "$f" "${opts[@]}" --jsonl "$t/$kind.a.jsonl" >/dev/null 2>"$t/$kind.log" || { cat "$t/$kind.log"; ko "add $kind"; }
  "$CAIRN" mem add "$f" --jsonl "$t/$kind.b.jsonl" --no-checkpoint >/dev/null 2>>"$t/$kind.log" || { cat "$t/$kind.log"; ko "add $kind (log)"; }
  "$CAIRN" mem stats "$f" >"$t/$kind.stats1" || ko "stats $kind"
  h5dump "$f" >"$t/$kind.dump1" 2>&1 || ko "h5dump $kind with a log tail"
  "$PY" "$here/check_mem_h5py.py" check "$t" "$kind" a || ko "h5py $kind: first batch (log tail ignored)"
  "$CAIRN" mem checkpoint "$f" 2>>"$t/$kind.log" || { cat "$t/$kind.log"; ko "checkpoint $kind"; }
  h5dump "$f" >"$t/$kind.dump2" 2>&1 || ko "h5dump $kind after the checkpoint"
  "$PY" "$here/check_mem_h5py.py" check "$t" "$kind" ab || ko "h5py $kind: both batches"
  # h5dump agrees with the JSONL on the count and shows the first text
  n=$(cat "$t/$kind.a.jsonl" "$t/$kind.b.jsonl" | wc -l)
  h5dump -a /memory/count "$f" | grep -q "(0): $n\$" || ko "h5dump $kind: /memory@count is not $n"
  grep -q "memories    $n" "$t/$kind.stats1" || ko "cairn $kind: $n memories before the checkpoint"
  [ "$kind" != text ] && { h5dump -d /memory/embedding "$f" | grep -q "DATASPACE  SIMPLE { ( $n, 24 ) / ( H5S_UNLIMITED, 24 ) }" || ko "h5dump $kind: embedding shape"; }
done
# every dataset is checksummed (Fletcher-32, read by libhdf5), and a flip is caught by h5py and cairn
"$PY" "$here/check_mem_h5py.py" checksums "$t/f32.mem" || ko "h5py: checksums"
"$CAIRN" mem verify "$t/f32.mem" >/dev/null || ko "cairn mem verify of a good store"
"$CAIRN" mem verify "$t/f32.mem.flipped" >"$t/flipped.verify" 2>&1 && ko "cairn mem verify passed a flipped chunk"
grep -q "DAMAGED" "$t/flipped.verify" || ko "cairn mem verify does not say DAMAGED"
"$CAIRN" mem search "$t/f32.mem.flipped" "heron" --mode bm25 --k 1 >/dev/null 2>&1 && ko "search of a flipped store exits 0"
# cairn still finds what it added, by text and by vector, after all this
"$CAIRN" mem search "$t/f32.mem" "heron" --mode bm25 --k 1 --json | grep -q heron || ko "search after checkpoint"
[ "$fail" = 0 ] && echo "interop.mem: h5py and h5dump read every store as added" || echo "interop.mem: FAILED"
exit $fail
