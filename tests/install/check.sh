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
if [ -f "$here/build/native/libcairn_s3.a" ]; then # the S3 host is installed with its header and links
  [ -f "$prefix/lib/libcairn_s3.a" ] && [ -f "$prefix/include/cairn/objstore.h" ] || { echo "FAIL libcairn_s3.a or cairn/objstore.h not installed"; exit 1; }
  printf '#include "cairn/objstore.h"\n#include <stdio.h>\nint main(void) { printf("%%d%%d\\n", cairn_s3_is_url("s3://b/k"), cairn_s3_is_url("/k")); return 0; }\n' \
    >"$here/build/install-test/s3.c"
  cc "$here/build/install-test/s3.c" -o "$here/build/install-test/s3-consumer" \
     $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs cairn-s3)
  [ "$(LD_LIBRARY_PATH="$prefix/lib" "$here/build/install-test/s3-consumer")" = 10 ] || { echo "FAIL cairn-s3 consumer"; exit 1; }
fi
echo "ok   find_package(cairn) and pkg-config consumers build and run (and cairn-s3, when built)"
