#!/bin/sh
# tests/interop/zl_openzl.sh - independent check of cairn's OpenZL frames: compress every input
# of ../shared/data/openzl-v26/MANIFEST.tsv with its profile through cairn's CLI, decode the
# frame with OpenZL's own CLI and compare bytes; also decode OpenZL's golden frames with cairn.
#   OPENZL_ZLI=/path/to/zli tests/interop/zl_openzl.sh [CAIRN]
# OpenZL is not part of this tree: build it yourself and point OPENZL_ZLI at its `zli`.
# Without OPENZL_ZLI the script says so and exits 77 (skipped).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CAIRN=${1:-$ROOT/build/native/cairn}
DATA=${DATA:-$ROOT/../shared/data}/openzl-v26
if [ -z "${OPENZL_ZLI:-}" ] || [ ! -x "$OPENZL_ZLI" ]; then
  echo "skipped: set OPENZL_ZLI to OpenZL's CLI (zli)"; exit 77
fi
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0; n=0
tail -n +2 "$DATA/MANIFEST.tsv" | while IFS='	' read -r frame input profile rest; do
  name=$(basename "$frame" .zl)
  "$CAIRN" compress -p "$profile" "$DATA/$input" -o "$T/$name.zl"
  "$OPENZL_ZLI" decompress "$T/$name.zl" -o "$T/$name.out" >/dev/null 2>&1 || { echo "FAIL zli cannot decode $name"; exit 1; }
  cmp -s "$T/$name.out" "$DATA/$input" || { echo "FAIL zli output differs: $name"; exit 1; }
  "$CAIRN" decompress "$DATA/$frame" -o "$T/$name.back"
  cmp -s "$T/$name.back" "$DATA/$input" || { echo "FAIL cairn output differs: $name"; exit 1; }
  echo "ok   $name ($profile): cairn $(wc -c < "$T/$name.zl") bytes, openzl $(wc -c < "$DATA/$frame") bytes"
done
