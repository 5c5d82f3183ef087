#!/usr/bin/env bash
# bench/h5/run.sh - build bench_h5 against build/native/libcairn.a and Debian's libhdf5, write
# the data files with h5py (once) and run the comparison: libhdf5 against cairn native
# (bench_h5.c), then h5wasm against cairn wasm in Node on the same files (wasm.mjs: needs
# scripts/build.sh em and js/'s devDependencies). Prints times and ratios.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/build/bench-h5}
mkdir -p "$out"
[ -f "$out/many.h5" ] && [ -f "$out/mid.h5" ] || /usr/bin/python3 "$here/mkdata.py" "$out"
cc -O2 -o "$out/bench_h5" "$here/bench_h5.c" -I"$root/core/include" "$root/build/native/libcairn.a" \
   $(pkg-config --cflags --libs hdf5) -lzstd -lz -lpthread
"$out/bench_h5" "$out"
node --expose-gc "$here/wasm.mjs" "$out"
