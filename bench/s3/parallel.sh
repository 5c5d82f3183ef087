#!/usr/bin/env bash
# 2026-12-02
# bench/s3/parallel.sh [OUT] - is RGW on this machine the bound for reading a chunked dataset of large
# chunks (/d3 of bench/s3/run.sh: 32 x 1 MiB)? Against the running RGW (scripts/objectstore.sh env):
# one GET per chunk in sequence (the goal's baseline), the same GETs in P threads (P = 2..32), adjacent
# chunks coalesced into GETs of 4-32 MiB (parallel and not), and cairn (bench/s3/h5read) with 4..32
# pool threads. Best of 3 each; prints "what seconds MB/s".
. "$(cd "$(dirname "$0")" && pwd)/env.sh"
if [ ! -f "$out/d3.h5" ]; then
  $PY -c "import h5py, numpy as np, sys; f = h5py.File(sys.argv[1], 'w'); f.create_dataset('d3', data=np.arange(4 << 20, dtype='f8') + 3, chunks=(1 << 17,))" "$out/d3.h5"
fi
curl -sf -o /dev/null --aws-sigv4 "aws:amz:$AWS_REGION:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
  -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -T "$out/d3.h5" "$AWS_ENDPOINT_URL/$B/bench/d3.h5"
best() { # command...: the smallest first field of 3 runs
  local b= r
  for i in 1 2 3; do
    r=$("$@")
    r=${r%% *}
    if [ -z "$b" ] || [ "$(echo "$r < $b" | bc)" = 1 ]; then b=$r; fi
  done
  echo "$b"
}
row() { printf '%-44s %6.3f s %6.1f MB/s\n' "$1" "$2" "$(echo "33.554432 / $2" | bc -l)"; }
row "sequential GETs, one per chunk" "$(best $PY "$here/peers.py" seqget "$out/d3.h5" /d3 bench/d3.h5)"
for p in 2 4 8 16 32; do row "chunk GETs in $p threads" "$(best $PY "$here/peers.py" pargets "$out/d3.h5" /d3 bench/d3.h5 $p)"; done
row "one GET of all 32 MiB" "$(best $PY "$here/peers.py" pargets "$out/d3.h5" /d3 bench/d3.h5 1 40000000)"
for m in 4 8 16; do
  for p in 2 4 8; do
    row "coalesced ${m} MiB GETs in $p threads" "$(best $PY "$here/peers.py" pargets "$out/d3.h5" /d3 bench/d3.h5 $p $((m << 20)))"
  done
done
for t in 4 16 32; do row "cairn h5read, $t pool threads" "$(best "$out/h5read" "s3://$B/bench/d3.h5" /d3 $t)"; done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
