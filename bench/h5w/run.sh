#!/usr/bin/env bash
# bench/h5w/run.sh [BUILD] - cairn's HDF5 writer vs libhdf5 (C), side by side in one run.
# Needs a native Release build (default build/native) and libhdf5-dev; then, if js/dist is built
# (scripts/build.sh em), the npm package vs h5wasm (bench/h5w/wasm.mjs). Prints markdown tables.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/native}
out=$root/build/bench-h5w
mkdir -p "$out"
gcc -O2 -o "$out/bench_h5w" "$here/bench_h5w.c" -I"$root/core/include" "$build/libcairn.a" \
    $(pkg-config --cflags --libs hdf5) $(pkg-config --libs libzstd zlib) -lpthread -lm
echo "cairn $(git -C "$root" rev-parse --short HEAD), libhdf5 $(pkg-config --modversion hdf5), $(date -u +%F), $(nproc) cores"
"$out/bench_h5w" "${TMPDIR:-/tmp}"
# cairn's deflate encoder vs zlib's at levels 1-9: compressed sizes and speed on the chunks above
# and on the shared corpus (../shared/data), every stream checked with zlib's inflate.
gcc -O2 -o "$out/deflate_cmp" "$here/deflate_cmp.c" -I"$root/core/include" -I"$root/core" "$build/libcairn.a" \
    $(pkg-config --libs libzstd zlib) -lpthread -lm
data=$root/../shared/data
echo
DEFL_TIME=${DEFL_TIME:-0.2} "$out/deflate_cmp" "${DEFLATE_LEVELS:-1-9}" $(ls "$data"/openzl-v26/inputs/* "$data"/locomo/*.json "$data"/fastcdc/*.jpg 2>/dev/null) | grep -E '^\| (data|---|\*\*all|native bench|wasm bench)'
# The npm package (Emscripten build, js/dist) against h5wasm in Node: same write rows.
if [ -f "$root/js/dist/cairn-core.wasm" ]; then
  [ -d "$here/node_modules/h5wasm" ] || (cd "$here" && npm install --no-audit --no-fund --loglevel=error)
  echo
  node "$here/wasm.mjs"
else
  echo "(no js/dist: run scripts/build.sh em for the wasm rows)"
fi
