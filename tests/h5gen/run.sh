#!/usr/bin/env bash
# tests/h5gen/run.sh TMPDIR - interop test of cairn's HDF5 reader: gen_c.c (libhdf5 C API) and
# gen.py (h5py; LZ4 plugin from hdf5-filter-plugin, zstd chunks from the zstd CLI) and
# gen_wasm.mjs (h5wasm with the HDF Group's zstd/bitshuffle/lz4 plugins, from npm) write a
# corpus; h5py/h5wasm read every value back, and compare.py checks `cairn h5 dumpall` against it;
# `cairn ls -r` must list what h5ls -r lists and `cairn dump` print what h5dump prints.
# The corpus goes under the build tree and is regenerated when gen.py changes.
set -eu
CAIRN=${CAIRN:?set CAIRN to the cairn binary}
[[ "$CAIRN" == */* && "$CAIRN" != /* ]] && CAIRN=$PWD/$CAIRN # the checks below run in the corpus dir
here=$(cd "$(dirname "$0")" && pwd)
out=$(realpath -m "${1:?tmp dir}/h5gen")
py=/usr/bin/python3 # Debian's python3, which has python3-h5py
export HDF5_PLUGIN_PATH=${HDF5_PLUGIN_PATH:-/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins}
if [ ! -f "$out/expected.jsonl" ] || [ "$here/gen.py" -nt "$out/expected.jsonl" ] || [ "$here/gen_c.c" -nt "$out/expected.jsonl" ] || [ "$here/gen_wasm.mjs" -nt "$out/expected.jsonl" ] || [ "$here/netcdf4.cdl" -nt "$out/expected.jsonl" ]; then
  rm -rf "$out" && mkdir -p "$out"
  cc -O1 -o "$out/gen_c" "$here/gen_c.c" $(pkg-config --cflags --libs hdf5)
  (cd "$out" && ./gen_c .) # relative external-file names land in the corpus dir
  # a netCDF-4 file written by the netCDF library itself (Debian netcdf-bin)
  ncgen -k nc4 -o "$out/netcdf4.h5" "$here/netcdf4.cdl"
  "$py" "$here/gen.py" "$out"
  # zstd, bitshuffle and lz4 through the HDF Group's plugins, written by h5wasm (npm)
  [ -d "$here/node_modules/h5wasm-plugins" ] || (cd "$here" && npm install --no-audit --no-fund --loglevel=error)
  node "$here/gen_wasm.mjs" "$out"
fi
"$py" "$here/compare.py" "$CAIRN" "$out"
# the same comparison with the WASI build when CAIRN_WASM names it (cairn.wasm under Node's WASI;
# output goes through a file: piping a large stdout through scripts/wasi-run.mjs loses data)
if [ -n "${CAIRN_WASM:-}" ]; then
  w="$out/cairn-wasi.sh"
  printf '#!/bin/sh\nt=$(mktemp)\nNODE_NO_WARNINGS=1 node %s --dir %s %s "$@" > "$t"\nrc=$?\ncat "$t"; rm -f "$t"; exit $rc\n' \
    "$here/../../scripts/wasi-run.mjs" "$out" "$CAIRN_WASM" > "$w"
  chmod +x "$w"
  echo "WASI build:"
  "$py" "$here/compare.py" "$w" "$out"
fi
# `cairn ls [-r] FILE [PATH]` prints what `h5ls [-r] FILE[/PATH]` prints, line for line (the "/"
# line, "cur/max" shapes, name order, links); `cairn h5 ls` is the same command. PATH: every group
# and dataset h5ls -r lists in the small files (the first 40 of the large ones).
for f in "$out"/*.h5; do
  for r in "" -r; do
    if ! diff <(h5ls $r "$f") <("$CAIRN" ls $r "$f") > "$out/ls.diff"; then echo "FAIL h5ls $r differs for $f"; head "$out/ls.diff"; exit 1; fi
  done || exit 1
  if [ "$("$CAIRN" h5 ls -r "$f")" != "$("$CAIRN" ls -r "$f")" ]; then echo "FAIL cairn h5 ls -r and cairn ls -r differ for $f"; exit 1; fi
  h5ls -r "$f" | awk '$2 == "Group" || $2 == "Dataset" {print $1}' | head -40 | while read -r p; do
    for r in "" -r; do
      if ! diff <(h5ls $r "$f$p") <("$CAIRN" ls $r "$f" "$p") > "$out/ls.diff"; then echo "FAIL h5ls $r $f$p differs"; head "$out/ls.diff"; exit 1; fi
    done
  done || exit 1
done
echo "h5ls and h5ls -r listings match line for line (whole files and each object)"
# `cairn dump` prints the values h5dump prints, for every dataset and attribute h5dump can read
"$py" "$here/vs_h5dump.py" "$CAIRN" "$out"
# `cairn dump` selections: h5dump's subset forms print what h5dump prints, numpy-like ones what h5py reads
"$py" "$here/vs_h5dump_sel.py" "$CAIRN" "$out"
# random hyperslabs (start/stride/count/block) of chunked and contiguous datasets equal numpy's
"$py" - "$out" "$CAIRN" <<'PY'
import json, os, subprocess, sys, h5py, numpy as np
out, cairn = sys.argv[1], sys.argv[2]
os.chdir(out)  # both find external raw data files here
rng = np.random.default_rng(5)
n = 0
for fn, paths in (('layouts_latest.h5', ['/contig', '/contig_big', '/chunk_fixed', '/chunk_ext1', '/chunk_bt2', '/sparse', '/cube', '/f_all', '/chunk_implicit']),
                  ('layouts_earliest.h5', ['/cube', '/chunk_fixed', '/sparse']), ('c_sb2.h5', ['/external_multi'])):
    with h5py.File(f'{out}/{fn}', 'r') as f:
        for p in paths:
            a = f[p][()]
            for t in range(6):
                parts, idx = [], []
                for dim in a.shape:
                    blk = int(rng.integers(1, 4))
                    std = blk + int(rng.integers(0, 4))
                    st = int(rng.integers(0, max(1, dim - blk)))
                    cnt = max(1, (dim - st - blk) // std + 1)
                    cnt = int(rng.integers(1, cnt + 1))
                    parts.append(f'{st}:{std}:{cnt}:{blk}')
                    idx.append(np.array([st + i * std + j for i in range(cnt) for j in range(blk)]))
                want = a[np.ix_(*idx)]
                r = subprocess.run([cairn, 'h5', 'dump', '--json', '--sel', ','.join(parts), f'{out}/{fn}', p], stdout=subprocess.PIPE)
                got = np.array(json.loads(r.stdout)['data'], dtype=a.dtype)
                assert got.shape == want.shape and np.array_equal(got, want), f'{fn}:{p} sel {parts}: differs'
                n += 1
print(f'ok   {n} random hyperslabs equal numpy fancy indexing')
PY
# `cairn h5 info --json` agrees with h5py on shape, max shape, chunks and filters
"$py" - "$out" "$CAIRN" <<'PY'
import json, subprocess, sys, h5py
out, cairn = sys.argv[1], sys.argv[2]
n = 0
for fn in ('layouts_latest.h5', 'layouts_earliest.h5', 'netcdf4.h5', 'wasm_plugins.h5', 'c_sb2.h5'):
    with h5py.File(f'{out}/{fn}', 'r') as f:
        def visit(name, obj):
            global n
            if not isinstance(obj, h5py.Dataset) or obj.shape is None:
                return
            r = subprocess.run([cairn, 'h5', 'info', '--json', f'{out}/{fn}', '/' + name], stdout=subprocess.PIPE, check=True)
            i = json.loads(r.stdout)
            assert tuple(i['shape']) == obj.shape, (fn, name, i['shape'], obj.shape)
            assert tuple(i['maxshape']) == obj.maxshape, (fn, name, i['maxshape'], obj.maxshape)
            assert (tuple(i['chunks']) if 'chunks' in i else None) == obj.chunks, (fn, name)
            pl = obj.id.get_create_plist()
            want = [pl.get_filter(k)[0] for k in range(pl.get_nfilters())]
            assert [x['id'] for x in i['filters']] == want, (fn, name, i['filters'], want)
            assert sorted(i['attrs']) == sorted(obj.attrs.keys()), (fn, name)
            ext = [(e['name'], e['offset'], h5py.h5f.UNLIMITED if e['size'] is None else e['size']) for e in i['external']] if 'external' in i else None
            assert ext == obj.external, (fn, name, ext, obj.external)
            n += 1
        f.visititems(visit)
print(f'ok   info --json of {n} datasets agrees with h5py (shape, maxshape, chunks, filters, attributes, external files)')
PY
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
