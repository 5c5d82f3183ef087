#!/usr/bin/env bash
# tests/h5gen/run.sh TMPDIR - interop test of cairn's HDF5 reader: gen.py writes a corpus with
# Debian's h5py/libhdf5 (plus the LZ4 plugin from hdf5-filter-plugin and zstd chunks from the
# zstd CLI), h5py reads every value back, and compare.py checks `cairn h5 dumpall` against it.
# The corpus goes under the build tree and is regenerated when gen.py changes.
set -eu
CAIRN=${CAIRN:?set CAIRN to the cairn binary}
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?tmp dir}/h5gen
py=/usr/bin/python3 # Debian's python3, which has python3-h5py
export HDF5_PLUGIN_PATH=${HDF5_PLUGIN_PATH:-/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins}
if [ ! -f "$out/expected.jsonl" ] || [ "$here/gen.py" -nt "$out/expected.jsonl" ]; then
  rm -rf "$out"
  "$py" "$here/gen.py" "$out"
fi
"$py" "$here/compare.py" "$CAIRN" "$out"
# h5ls -r and `cairn h5 ls -r` list the same objects
for f in "$out"/groups_latest.h5 "$out"/types_earliest.h5; do
  a=$(h5ls -r "$f" | awk '$1 != "/" {print $1}' | sort)
  b=$("$CAIRN" h5 ls -r "$f" | awk '{print $1}' | sort)
  if [ "$a" != "$b" ]; then echo "FAIL h5ls -r differs for $f"; diff <(echo "$a") <(echo "$b") | head; exit 1; fi
done
echo "h5ls -r listings match"
