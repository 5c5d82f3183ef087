#!/usr/bin/env bash
# 2026-12-02
# bench/s3/chunks.sh [OUT] - whole chunked datasets from RGW (scripts/objectstore.sh env: a running
# gateway), by chunk shape: 256 gzip chunks (16 MiB of f4), 32 x 1 MiB, 8 x 4 MiB, 64 x 256 KiB.
# Per dataset, 5 rounds, each running side by side: one GET per chunk in sequence (peers.py seqget,
# the goal's baseline), cairn with read plans (bench/s3/h5read: open, metadata and all chunks),
# cairn without (CAIRN_S3_PLAN=0), and what RGW serves at best: one GET of the dataset's whole byte
# span, and the span in GETs of 8/16 MiB on 2/4 connections (peers.py pargets). Prints medians, the
# ratio sequential/cairn (CAIRN_BENCH_SETS="c1m": only those datasets), requests, bytes fetched/dataset bytes, and the CPU seconds RGW and the OSD
# used per second of cairn's reads (the machine's bound: 2 cores shared by RGW, the OSD and the reader).
. "$(cd "$(dirname "$0")" && pwd)/env.sh"
if [ ! -f "$out/chunks.h5" ]; then
  $PY - "$out/chunks.h5" <<'EOF'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("z256", data=np.arange(4 << 20, dtype="f4"), chunks=(16384,), compression="gzip")
    f.create_dataset("c1m", data=np.arange(4 << 20, dtype="f8") + 1, chunks=(1 << 17,))
    f.create_dataset("c4m", data=np.arange(4 << 20, dtype="f8") + 2, chunks=(1 << 19,))
    f.create_dataset("c256k", data=np.arange(2 << 20, dtype="f8") + 3, chunks=(1 << 15,))
EOF
fi
curl -sf -o /dev/null --aws-sigv4 "aws:amz:$AWS_REGION:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
  -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -T "$out/chunks.h5" "$AWS_ENDPOINT_URL/$B/bench/chunks.h5"
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
cpu() { # CPU seconds (user + system) of the daemon whose pid is in $dir/pids/$1
  local p
  p=$(cat "$dir/pids/$1" 2>/dev/null) || { echo 0; return; }
  awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$p/stat" 2>/dev/null || echo 0
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
for d in ${CAIRN_BENCH_SETS:-z256 c1m c4m c256k}; do
  : >"$out/seq" && : >"$out/plan" && : >"$out/noplan" && : >"$out/one" && : >"$out/best"
  rgw=0 osd=0 wall=0
  for i in 1 2 3 4 5; do
    $PY "$here/peers.py" seqget "$out/chunks.h5" /$d bench/chunks.h5 | cut -d' ' -f1 >>"$out/seq"
    r0=$(cpu rgw) o0=$(cpu osd)
    r=$("$out/h5read" "s3://$B/bench/chunks.h5" /$d 8)
    r1=$(cpu rgw) o1=$(cpu osd)
    rgw=$(echo "$rgw + $r1 - $r0" | bc) osd=$(echo "$osd + $o1 - $o0" | bc) wall=$(echo "$wall + ${r%% *}" | bc)
    echo "$r" >>"$out/plan"
    CAIRN_S3_PLAN=0 "$out/h5read" "s3://$B/bench/chunks.h5" /$d 8 >>"$out/noplan"
    $PY "$here/peers.py" pargets "$out/chunks.h5" /$d bench/chunks.h5 1 1000000000 | cut -d' ' -f1 >>"$out/one"
    b=
    for pm in "2 16" "4 8" "2 8"; do
      set -- $pm
      t=$($PY "$here/peers.py" pargets "$out/chunks.h5" /$d bench/chunks.h5 $1 $(($2 << 20)) | cut -d' ' -f1)
      if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
    done
    echo "$b" >>"$out/best"
  done
  seq=$(median <"$out/seq") plan=$(median <"$out/plan") noplan=$(median <"$out/noplan") one=$(median <"$out/one") best=$(median <"$out/best")
  read -r _ n got req <<<"$(sort -g "$out/plan" | sed -n 3p)"
  printf '%-6s %9d B: sequential GETs %.3f s | cairn %.3f s (%.2fx; %s requests, %.2fx bytes) | cairn without plans %.3f s (%.2fx) | one GET of the span %.3f s (%.0f MB/s) | best pattern %.3f s (%.2fx) | RGW %.2f + OSD %.2f cores during cairn\n' \
    $d "$n" "$seq" "$plan" "$(echo "$seq / $plan" | bc -l)" "$req" "$(echo "$got / $n" | bc -l)" "$noplan" "$(echo "$seq / $noplan" | bc -l)" \
    "$one" "$(echo "$n / $one / 1000000" | bc -l)" "$best" "$(echo "$seq / $best" | bc -l)" "$(echo "$rgw / $wall" | bc -l)" "$(echo "$osd / $wall" | bc -l)"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
