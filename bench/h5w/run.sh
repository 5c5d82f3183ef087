#!/usr/bin/env bash
# bench/h5w/run.sh [BUILD] - cairn's HDF5 writer vs libhdf5 (C), side by side in one run.
# Needs a native Release build (default build/native) and libhdf5-dev. Prints a markdown table.
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
