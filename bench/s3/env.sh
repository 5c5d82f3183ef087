# 2026-12-02
# bench/s3/env.sh - sourced by bench/s3/parallel.sh and chunks.sh: strict mode, paths (here, root,
# out = $1 or build/bench-s3), the running gateway's AWS_* variables (scripts/objectstore.sh env),
# B (the bucket), PY, dir (the gateway's folder: its pids/), and bench/s3/h5read built into $out.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/build/bench-s3}
mkdir -p "$out"
PY=/usr/bin/python3
set -a
eval "$("$root/scripts/objectstore.sh" env)"
set +a
B=$CAIRN_S3_BUCKET
dir=${CAIRN_S3_DIR:-$root/build/objectstore}
cc -O2 -o "$out/h5read" "$here/h5read.c" -I"$root/core/include" "$root/build/native/libcairn_s3.a" \
  "$root/build/native/libcairn.a" -lcurl -lzstd -lz -lpthread -lm
