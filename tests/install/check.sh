#!/usr/bin/env bash
# tests/install/check.sh - install the native build into a scratch prefix, then build a downstream
# program twice: with find_package(cairn) and with pkg-config; both must hash like sha256sum.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
prefix=$here/build/install-test/prefix
rm -rf "$here/build/install-test" && mkdir -p "$prefix"
cmake --install "$here/build/native" --prefix "$prefix" >/dev/null
cmake -S "$here/tests/install" -B "$here/build/install-test/cmake" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$here/build/install-test/cmake" >/dev/null
echo "installed cairn links" > "$here/build/install-test/x.txt"
want=$(sha256sum "$here/build/install-test/x.txt")
got=$(LD_LIBRARY_PATH="$prefix/lib" "$here/build/install-test/cmake/consumer" "$here/build/install-test/x.txt")
[ "$got" = "$want" ] || { echo "FAIL find_package consumer: $got"; exit 1; }
cc "$here/tests/install/main.c" -o "$here/build/install-test/pc-consumer" \
   $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs cairn)
got=$(LD_LIBRARY_PATH="$prefix/lib" "$here/build/install-test/pc-consumer" "$here/build/install-test/x.txt")
[ "$got" = "$want" ] || { echo "FAIL pkg-config consumer: $got"; exit 1; }
echo "ok   find_package(cairn) and pkg-config consumers build and run"
