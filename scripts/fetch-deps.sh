#!/usr/bin/env bash
# scripts/fetch-deps.sh - C sources of zstd and zlib for the targets that cannot use Debian's
# libraries (WASI, Emscripten, the aarch64 cross build). They come from npm tarballs that embed
# the upstream sources (zstd 1.5.7 in zstd-napi, zlib 1.3.1 in zlib-sync), are unpacked under
# build/deps (ignored by git) and never committed. Idempotent.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
deps="$here/build/deps"
mkdir -p "$deps"
cd "$deps"
get() { # name@version subdir-marker
  local spec=$1 dir=$2 marker=$3
  if [ -f "$dir/$marker" ]; then return; fi
  rm -rf "$dir" "$dir.tmp" && mkdir -p "$dir.tmp"
  local tgz
  tgz=$(cd "$dir.tmp" && npm pack --silent "$spec" 2>/dev/null | tail -n 1)
  tar -xzf "$dir.tmp/$tgz" -C "$dir.tmp"
  mv "$dir.tmp" "$dir"
}
get zstd-napi@0.0.13 zstd-napi package/deps/zstd/lib/zstd.h
get zlib-sync@0.1.10 zlib-sync package/deps/zlib/zlib.h
ln -sfn "$deps/zstd-napi/package/deps/zstd/lib" "$deps/zstd"
ln -sfn "$deps/zlib-sync/package/deps/zlib" "$deps/zlib"
test -f "$deps/zstd/zstd.h" && test -f "$deps/zlib/zlib.h"
