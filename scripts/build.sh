#!/usr/bin/env bash
# scripts/build.sh [native|wasi|em|asan|aarch64|all]... - configure and build targets from one tree.
#   native   build/native   libcairn.a/.so, cairn CLI, tests          (Release)
#   wasi     build/wasi     cairn.wasm (WASI preview1 CLI), cairn_tests.wasm
#   em       build/em       js/dist/cairn-core.mjs + .wasm (npm package), cairn_tests.cjs (Node)
#   asan     build/asan     native tests with AddressSanitizer + UBSan
#   aarch64  build/aarch64  cross-compiled tests, run under qemu-user (NEON, ARMv8 SHA-2)
#   minimal  build/minimal  the smallest configuration: no h5, zl, cas, mem (base only), with its CLI
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}   # emcc's JS optimizer needs Debian's acorn
jobs=${JOBS:-2}
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(all)
[ "${targets[0]}" = all ] && targets=(native wasi em asan aarch64)

need_deps() { [ -f build/deps/zstd/zstd.h ] && [ -f build/deps/zlib/zlib.h ] || scripts/fetch-deps.sh; }

for t in "${targets[@]}"; do
  echo "== build $t"
  case $t in
    native)
      cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
      cmake --build build/native -j"$jobs" ;;
    asan)
      cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DCAIRN_SANITIZE=ON >/dev/null
      cmake --build build/asan -j"$jobs" ;;
    wasi)
      need_deps
      mkdir -p build/wasi-sysroot/include build/wasi-sysroot/lib
      ln -sfn /usr/include/wasm32-wasi build/wasi-sysroot/include/wasm32-wasi
      ln -sfn /usr/lib/wasm32-wasi build/wasi-sysroot/lib/wasm32-wasi
      cmake -S . -B build/wasi -DCMAKE_TOOLCHAIN_FILE=cmake/wasi.cmake -DCMAKE_BUILD_TYPE=Release >/dev/null
      cmake --build build/wasi -j"$jobs" ;;
    em)
      need_deps
      emcmake cmake -S . -B build/em -DCMAKE_BUILD_TYPE=Release >/dev/null
      cmake --build build/em -j"$jobs" ;;
    aarch64)
      need_deps
      cmake -S . -B build/aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64.cmake -DCMAKE_BUILD_TYPE=Release >/dev/null
      cmake --build build/aarch64 -j"$jobs" ;;
    minimal)
      cmake -S . -B build/minimal -DCMAKE_BUILD_TYPE=Release -DCAIRN_WITH_H5=OFF -DCAIRN_WITH_ZL=OFF \
        -DCAIRN_WITH_CAS=OFF -DCAIRN_WITH_MEM=OFF -DCAIRN_TESTS=OFF >/dev/null
      cmake --build build/minimal -j"$jobs" --target cairn_static cairn_shared cairn_cli ;;
    *) echo "unknown target $t" >&2; exit 2 ;;
  esac
done
