#!/usr/bin/env bash
# 2026-12-02
# bench/s3/run.sh [OUT] - cairn on S3 (a single-node Ceph RGW on loopback, scripts/objectstore.sh;
# started here unless one answers already, and then stopped again) against its peers:
#   1. chunk store: `cairn store put` of a 256 MiB payload, then of its one-byte edit, against
#      `restic backup` of the same files into an S3 repository on the same RGW (Debian's restic):
#      seconds and bytes sent;
#   2. HDF5 reads of whole datasets (bench/s3/h5read.c, binary, no text): cairn from S3 against
#      one range GET per chunk in sequence (bench/s3/peers.py seqget), libhdf5's ros3 driver
#      (Debian's build has it; through h5py) and h5wasm reading the whole file fetched over HTTP
#      (bench/s3/h5wasm.mjs); bytes fetched for one dataset of a large file.
# Needs scripts/build.sh native; h5wasm from js/node_modules (devDependency). Prints one line each.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/build/bench-s3}
mkdir -p "$out"
C=$root/build/native/cairn
PY=/usr/bin/python3
OS=$root/scripts/objectstore.sh
started=0
if ! curl -s --max-time 2 "http://127.0.0.1:${CAIRN_S3_PORT:-8000}/" | grep -q ListAllMyBucketsResult; then
  "$OS" start >/dev/null
  started=1
fi
trap '[ $started = 1 ] && "$OS" stop >/dev/null 2>&1 || true' EXIT
set -a
eval "$("$OS" env)"
set +a
B=$CAIRN_S3_BUCKET
run=$(date +%s)
s3put() { curl -sf -o /dev/null --aws-sigv4 "aws:amz:$AWS_REGION:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
  -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -T "$1" "$AWS_ENDPOINT_URL/$B/$2"; }
secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
sent() { sed -n 's/.* \([0-9]*\) sent.*/\1/p' "$1"; }

# ---- 1. chunk store vs restic
if [ ! -f "$out/payload" ]; then
  # 256 MiB: half random, half text-like (repetitive lines), so compression and dedup both matter
  head -c 134217728 /dev/urandom >"$out/payload"
  seq 1 20000000 | head -c 134217728 >>"$out/payload"
fi
cp "$out/payload" "$out/edited" && printf 'Z' | dd of="$out/edited" bs=1 seek=150000000 conv=notrunc status=none
S=s3://$B/bench-$run
timed() { # LOG cmd...: seconds, stderr into LOG
  local log=$1 t0; shift
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>"$log"
  echo "$(date +%s.%N) - $t0" | bc
}
t=$(timed "$out/put1.err" env CAIRN_S3_STATS=1 "$C" store put --store "$S" --zstd -q --name p "$out/payload")
echo "cairn store put 256 MiB: $t s, $(sent "$out/put1.err") bytes sent"
t=$(timed "$out/put2.err" env CAIRN_S3_STATS=1 "$C" store put --store "$S" --zstd -q --name p "$out/edited")
echo "cairn store put one-byte edit: $t s, $(sent "$out/put2.err") bytes sent"
export RESTIC_PASSWORD=bench RESTIC_REPOSITORY=s3:$AWS_ENDPOINT_URL/$B/restic-$run
restic init >/dev/null 2>&1
cp "$out/payload" "$out/rfile"
t=$(timed "$out/r1.err" restic backup --no-cache --json "$out/rfile")
restic stats --no-cache --mode raw-data --json >"$out/rs1.json" 2>/dev/null || true
echo "restic backup 256 MiB: $t s, repository $(sed -n 's/.*"total_size":\([0-9]*\).*/\1/p' "$out/rs1.json") bytes"
cp "$out/edited" "$out/rfile"
t=$(timed "$out/r2.err" restic backup --no-cache --json "$out/rfile")
restic stats --no-cache --mode raw-data --json >"$out/rs2.json" 2>/dev/null || true
echo "restic backup one-byte edit: $t s, repository $(sed -n 's/.*"total_size":\([0-9]*\).*/\1/p' "$out/rs2.json") bytes"

# ---- 2. HDF5 reads
cc -O2 -o "$out/h5read" "$here/h5read.c" -I"$root/core/include" "$root/build/native/libcairn_s3.a" \
  "$root/build/native/libcairn.a" -lcurl -lzstd -lz -lpthread -lm
if [ ! -f "$out/data.h5" ]; then
  $PY - "$out/data.h5" <<'EOF'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    # a large file: 8 datasets of 32 MiB (1 MiB chunks), one of 16 MiB in 256 gzip chunks
    for i in range(8):
        f.create_dataset(f"d{i}", data=np.arange(4 << 20, dtype="f8") + i, chunks=(1 << 17,))
    f.create_dataset("z", data=np.arange(4 << 20, dtype="f4"), chunks=(16384,), compression="gzip")
    f.create_dataset("small", data=np.arange(64 << 10, dtype="f8"), chunks=(8192,))
EOF
fi
s3put "$out/data.h5" bench/data.h5
echo "data.h5: $(stat -c %s "$out/data.h5") bytes"
for d in /d3 /z /small; do
  best=
  for i in 1 2 3; do
    r=$("$out/h5read" "s3://$B/bench/data.h5" $d)
    t=${r%% *}
    if [ -z "$best" ] || [ "$(echo "$t < ${best%% *}" | bc)" = 1 ]; then best=$r; fi
  done
  q=$($PY "$here/peers.py" seqget "$out/data.h5" $d bench/data.h5)
  ro=$($PY "$here/peers.py" ros3 bench/data.h5 $d 2>/dev/null || echo "n/a")
  read -r t n got req <<<"$best"
  echo "dataset $d ($n B): cairn S3 $t s ($got B fetched, $(echo "scale=2; $got / $n" | bc)x, $req requests); sequential chunk GETs ${q%% *} s; libhdf5 ros3 ${ro%% *} s; local $("$out/h5read" "$out/data.h5" $d | cut -d' ' -f1) s"
done
node "$here/h5wasm.mjs" "$AWS_ENDPOINT_URL/$B/bench/data.h5" /d3 || echo "h5wasm: failed"
