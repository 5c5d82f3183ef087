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
if [ ! -f "$out/expected.jsonl" ] || [ "$here/gen.py" -nt "$out/expected.jsonl" ] || [ "$here/gen_c.c" -nt "$out/expected.jsonl" ]; then
  rm -rf "$out" && mkdir -p "$out"
  cc -O1 -o "$out/gen_c" "$here/gen_c.c" $(pkg-config --cflags --libs hdf5)
  "$out/gen_c" "$out"
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
# a sparse file over 4 GiB whose datasets sit past the 4 GiB mark
"$py" - "$out/c_big.h5big" "$CAIRN" <<'PY'
import json, subprocess, sys, h5py, numpy as np
path, cairn = sys.argv[1], sys.argv[2]
with h5py.File(path, 'r') as f:
    for name in ('after', 'after_chunked'):
        d = f[name]
        off = d.id.get_offset() if d.chunks is None else d.id.get_chunk_info(0).byte_offset
        assert off > (4 << 30), f'{name} at {off}: not past 4 GiB'
        want = d[()].tolist()
        got = json.loads(subprocess.run([cairn, 'h5', 'dump', '--json', path, '/' + name], stdout=subprocess.PIPE, check=True).stdout)
        assert got['data'] == want, f'{name}: values differ'
        print(f'ok   {name} at offset {off} (> 4 GiB) equals h5py')
PY
