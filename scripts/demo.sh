#!/usr/bin/env bash
# scripts/demo.sh - the main job: set up, build the native CLI, the WASI CLI and the npm package,
# then run them on a built-in data set (generated here; needs nothing from ../shared/data), and
# end by printing the command that serves the web app. Works in a fresh clone, with or without
# SKIP_SETUP=1 (then the machine must already have scripts/setup.sh's packages). Each step says
# what it does and how long it took; the builds' output goes to build/demo-build.log.
# Builds only what the demo runs (the CLIs and the wasm package, not the test programs), in the
# same build folders scripts/build.sh and scripts/test.sh use.
# Every module adds its part of the demo here as it lands.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
export NODE_NO_WARNINGS=1 NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
mkdir -p build
t_start=$(date +%s)
step_n=0
step() { step_n=$((step_n + 1)); printf '\n[%d/%d, %ss] %s\n' "$step_n" 11 "$(( $(date +%s) - t_start ))" "$*"; }
log=build/demo-build.log
: > "$log"
build() { # what folder cmake-args... -- targets...
  local what=$1 dir=$2; shift 2
  local cfg=() tgt=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do cfg+=("$1"); shift; done
  shift; tgt=("$@")
  local t0=$(date +%s)
  printf '   %-34s' "$what"
  if [ ! -f "$dir/CMakeCache.txt" ]; then "${cfg[@]}" >> "$log" 2>&1 || { echo; tail -30 "$log"; exit 1; }; fi
  for x in "${tgt[@]}"; do cmake --build "$dir" -j"${JOBS:-2}" --target "$x" >> "$log" 2>&1 || { echo; tail -30 "$log"; exit 1; }; done
  echo "done in $(( $(date +%s) - t0 )) s"
}

if [ "${SKIP_SETUP:-0}" = 1 ]; then
  echo "== cairn demo: about 4-8 minutes on 2 cores from a fresh clone (builds 3-7 min, the demo ~15 s;"
  echo "   seconds when the builds are there already)"
  echo "   SKIP_SETUP=1: no packages installed (scripts/setup.sh's must be there already)"
else
  echo "== cairn demo: about 6-10 minutes on 2 cores from a fresh clone: setup ~1.5 min (apt-get and"
  echo "   npm; seconds when done before), builds 3-7 min, the demo ~15 s"
fi
step "setup"
if [ "${SKIP_SETUP:-0}" = 1 ]; then echo "   skipped (SKIP_SETUP=1)"; else scripts/setup.sh >> "$log" 2>&1 || { tail -30 "$log"; exit 1; }; echo "   done"; fi
step "build (log: $log)"
[ -f build/deps/zstd/zstd.h ] && [ -f build/deps/zlib/zlib.h ] || { printf '   %-34s' "zstd/zlib sources (npm)"; scripts/fetch-deps.sh >> "$log" 2>&1; echo done; }
mkdir -p build/wasi-sysroot/include build/wasi-sysroot/lib
ln -sfn /usr/include/wasm32-wasi build/wasi-sysroot/include/wasm32-wasi
ln -sfn /usr/lib/wasm32-wasi build/wasi-sysroot/lib/wasm32-wasi
build "native CLI (build/native/cairn)" build/native cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release -- cairn_cli
build "WASI CLI (build/wasi/cairn.wasm)" build/wasi cmake -S . -B build/wasi -DCMAKE_TOOLCHAIN_FILE=cmake/wasi.cmake -DCMAKE_BUILD_TYPE=Release -- cairn_cli
build "npm package wasm (js/dist)" build/em emcmake cmake -S . -B build/em -DCMAKE_BUILD_TYPE=Release -- cairn_em

cairn=build/native/cairn
wasi() { node scripts/wasi-run.mjs --dir "$d" build/wasi/cairn.wasm "$@"; }
d=$(mktemp -d "$here/build/demo-XXXX")
step "the built-in data set (in $d)"
$cairn version

# Built-in data set: a synthetic agent log (deterministic) and a table of numbers.
awk 'BEGIN { for (i = 1; i <= 60000; i++) printf "turn %d session %d user asked about item %d and the agent answered with %d facts\n", i, i % 37, (i * 7919) % 1000, i % 13 }' > "$d/agent-log.txt"
seq 1 3 3000000 > "$d/numbers.txt"
ls -l "$d" | tail -n +2 | awk '{print "   " $5 " bytes  " $9}'

step "SHA-256: native CLI, WASI CLI (cairn.wasm under node:wasi) and coreutils agree"
$cairn hash "$d/agent-log.txt" "$d/numbers.txt" | tee "$d/native.sha"
wasi hash "$d/agent-log.txt" "$d/numbers.txt" > "$d/wasi.sha"
sha256sum "$d/agent-log.txt" "$d/numbers.txt" > "$d/coreutils.sha"
cmp -s "$d/native.sha" "$d/wasi.sha" && cmp -s "$d/native.sha" "$d/coreutils.sha" && echo "   native == wasi == sha256sum"

step "zstd and gzip round trips (cairn writes, the standard tools read)"
$cairn zstd -l 6 "$d/agent-log.txt" -o "$d/agent-log.zst"
zstd -q -d -c "$d/agent-log.zst" | cmp - "$d/agent-log.txt" && echo "   zstd -d reads cairn's frame"
wasi gzip "$d/numbers.txt" -o "$d/numbers.gz"
gzip -d -c "$d/numbers.gz" | cmp - "$d/numbers.txt" && echo "   gzip -d reads the WASI CLI's output"

step "the npm package (WebAssembly) on the same file"
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
step "agent memory: the built-in multi-session conversation, questions answered by hybrid search"
$cairn mem demo "$d/agent.mem"
echo "   the same store, searched by the WASI CLI:"
wasi mem search "$d/agent.mem" "is Maya allergic to any food" --k 3 | sed 's/^/   /'

step "HDF5: write with cairn, read back with libhdf5's h5dump"
$cairn h5w new "$d/run.h5"
$cairn h5w group "$d/run.h5" /sensors
$cairn h5w dataset "$d/run.h5" /sensors/temp f32 0 --max u --chunk 1024 --filter shuffle,deflate:6
for i in 1 2 3; do $cairn h5w append "$d/run.h5" /sensors/temp 20.5 21.0 21.25 $i; done
$cairn h5w attr "$d/run.h5" /sensors/temp units str celsius
h5dump -d /sensors/temp "$d/run.h5" | sed -n '1,12p' | sed 's/^/   /'
$cairn h5 ls -r "$d/run.h5" | sed 's/^/   /'

step "content-addressed store: publish twice, dedup, verified range read"
$cairn store put --store "$d/store.cas" "$d/agent-log.txt" | sed 's/^/   /'
id=$($cairn store put --store "$d/store.cas" "$d/agent-log.txt" | awk '{print $1}')
$cairn store get --store "$d/store.cas" "$id" --range 0:120 -o "$d/range.out" && head -c 120 "$d/agent-log.txt" | cmp - "$d/range.out" && echo "   range 0:120 verified and identical"
$cairn store ls --store "$d/store.cas" | sed 's/^/   /'

step "format-aware compression (OpenZL frames) on 64-bit timestamps vs zstd -19"
python3 -c "import struct; open('$d/ts.bin','wb').write(struct.pack('<100000q', *[1700000000000 + i * 1000 + (i * 7919) % 97 for i in range(100000)]))"
$cairn zl compress -p le-i64 "$d/ts.bin" -o "$d/ts.zl"
zstd -q -19 -f "$d/ts.bin" -o "$d/ts.zst"
echo "   $(stat -c %s "$d/ts.bin") bytes -> cairn (le-i64) $(stat -c %s "$d/ts.zl"), zstd -19 $(stat -c %s "$d/ts.zst")"
$cairn zl decompress "$d/ts.zl" -o "$d/ts.back" && cmp -s "$d/ts.back" "$d/ts.bin" && echo "   round trip identical"
step "the web app"
echo "   demo data kept in $d; total $(( $(date +%s) - t_start )) s"
echo "   serve the web app (HDF5 viewer, memory playground, chunk store) and open http://127.0.0.1:8080/web-demo/ :"
echo
echo "   node js/tools/serve.mjs . 8080"
