#!/usr/bin/env bash
# scripts/demo.sh - the main job: set up, build the native CLI, the WASI CLI and the npm package,
# then run them on a built-in data set (generated here; needs nothing from ../shared/data).
# Every module adds its part of the demo here as it lands.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
export NODE_NO_WARNINGS=1 NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
[ "${SKIP_SETUP:-0}" = 1 ] || scripts/setup.sh
scripts/build.sh native wasi em > build/demo-build.log 2>&1 || { tail -30 build/demo-build.log; exit 1; }

cairn=build/native/cairn
wasi() { node scripts/wasi-run.mjs --dir "$d" build/wasi/cairn.wasm "$@"; }
d=$(mktemp -d "$here/build/demo-XXXX")
echo "== cairn demo (data in $d)"
$cairn version

# Built-in data set: a synthetic agent log (deterministic) and a table of numbers.
for i in $(seq 1 60000); do
  echo "turn $i session $((i % 37)) user asked about item $((i * 7919 % 1000)) and the agent answered with $((i % 13)) facts"
done > "$d/agent-log.txt"
seq 1 3 3000000 > "$d/numbers.txt"
ls -l "$d" | tail -n +2 | awk '{print "   " $5 " bytes  " $9}'

echo "== SHA-256: native CLI, WASI CLI (cairn.wasm under node:wasi) and coreutils agree"
$cairn hash "$d/agent-log.txt" "$d/numbers.txt" | tee "$d/native.sha"
wasi hash "$d/agent-log.txt" "$d/numbers.txt" > "$d/wasi.sha"
sha256sum "$d/agent-log.txt" "$d/numbers.txt" > "$d/coreutils.sha"
cmp -s "$d/native.sha" "$d/wasi.sha" && cmp -s "$d/native.sha" "$d/coreutils.sha" && echo "   native == wasi == sha256sum"

echo "== zstd and gzip round trips (cairn writes, the standard tools read)"
$cairn zstd -l 6 "$d/agent-log.txt" -o "$d/agent-log.zst"
zstd -q -d -c "$d/agent-log.zst" | cmp - "$d/agent-log.txt" && echo "   zstd -d reads cairn's frame"
wasi gzip "$d/numbers.txt" -o "$d/numbers.gz"
gzip -d -c "$d/numbers.gz" | cmp - "$d/numbers.txt" && echo "   gzip -d reads the WASI CLI's output"

echo "== the npm package (WebAssembly) on the same file"
node --input-type=module -e "
import { sha256File, NodeFile, zstd, version } from '$here/js/src/node.js';
import fs from 'node:fs';
const f = '$d/agent-log.txt';
console.log('   js sha256:', await sha256File(new NodeFile(f)));
const bytes = fs.readFileSync(f);
const z = await zstd.compress(bytes, { level: 6 });
console.log('   js zstd:', bytes.length, '->', z.length, 'bytes, ratio', (bytes.length / z.length).toFixed(1));
console.log('   ', JSON.stringify(await version()));
"
echo "== agent memory: the built-in multi-session conversation, questions answered by hybrid search"
$cairn mem demo "$d/agent.mem"
echo "   the same store, searched by the WASI CLI:"
wasi mem search "$d/agent.mem" "is Maya allergic to any food" --k 3 | sed 's/^/   /'

echo "== HDF5: write with cairn, read back with libhdf5's h5dump"
$cairn h5w new "$d/run.h5"
$cairn h5w group "$d/run.h5" /sensors
$cairn h5w dataset "$d/run.h5" /sensors/temp f32 0 --max u --chunk 1024 --filter shuffle,deflate:6
for i in 1 2 3; do $cairn h5w append "$d/run.h5" /sensors/temp 20.5 21.0 21.25 $i; done
$cairn h5w attr "$d/run.h5" /sensors/temp units str celsius
h5dump -d /sensors/temp "$d/run.h5" | sed -n '1,12p' | sed 's/^/   /'
$cairn h5 ls "$d/run.h5" | sed 's/^/   /'

echo "== content-addressed store: publish twice, dedup, verified range read"
$cairn put --store "$d/store.cas" "$d/agent-log.txt" | sed 's/^/   /'
id=$($cairn put --store "$d/store.cas" "$d/agent-log.txt" | awk '{print $1}')
$cairn get --store "$d/store.cas" "$id" --range 0:120 -o "$d/range.out" && head -c 120 "$d/agent-log.txt" | cmp - "$d/range.out" && echo "   range 0:120 verified and identical"
$cairn ls --store "$d/store.cas" | sed 's/^/   /'

echo "== format-aware compression (OpenZL frames) on 64-bit timestamps vs zstd -19"
i=0; while [ $i -lt 100000 ]; do printf '%016x\n' $((1700000000000 + i * 1000 + (i * 7919) % 97)); i=$((i+1)); done > "$d/ts.hex"
python3 -c "import struct,sys; d=[int(l,16) for l in open('$d/ts.hex')]; open('$d/ts.bin','wb').write(struct.pack('<%dq'%len(d),*d))"
$cairn compress -p le-i64 "$d/ts.bin" -o "$d/ts.zl"
zstd -q -19 -f "$d/ts.bin" -o "$d/ts.zst"
echo "   $(stat -c %s "$d/ts.bin") bytes -> cairn (le-i64) $(stat -c %s "$d/ts.zl"), zstd -19 $(stat -c %s "$d/ts.zst")"
$cairn decompress "$d/ts.zl" -o "$d/ts.back" && cmp -s "$d/ts.back" "$d/ts.bin" && echo "   round trip identical"
echo "== done"
