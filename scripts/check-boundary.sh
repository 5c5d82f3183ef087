#!/usr/bin/env bash
# scripts/check-boundary.sh - the public API is the boundary (CONTRIBUTING.md "Layout"): a file
# in hosts/, cli/ or bindings/ may include only public headers (cairn/*.h), its own folder's
# headers and system headers. Fails, naming the file and line, on any include that reaches into
# core/ (a private header such as "h5/h5int.h", "common/internal.h" or "../core/...").
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
while IFS= read -r -d '' f; do
  dir=$(dirname "$f")
  while IFS=: read -r line inc; do
    name=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/' <<<"$inc")
    case $name in
      cairn/*.h) [ -f "core/include/$name" ] && continue ;;
      */*) ;;                                    # a path: never allowed outside the public headers
      *) [ -f "$dir/$name" ] && continue ;;      # the folder's own header (cli.h, ...)
    esac
    echo "FAIL $f:$line includes \"$name\": front ends use only core/include/cairn/*.h"
    status=1
  done < <(grep -n -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" || true)
done < <(find hosts cli bindings -type f \( -name '*.c' -o -name '*.h' \) -print0)
[ $status = 0 ] && echo "ok   hosts/ cli/ bindings/ include only public headers"
exit $status
