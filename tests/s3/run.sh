#!/usr/bin/env bash
# 2026-12-02
# tests/s3/run.sh CAIRN TMPDIR - the S3 tests against a real single-node Ceph RADOS Gateway that
# this script starts (scripts/objectstore.sh, its own folder and ports) and stops on exit:
#   HDF5 from S3 (ls -r and dump equal the local file's, bytes fetched bounded; the read planner,
#   tests/s3/plan.c, alone and as request counts against RGW, bytes equal h5py's), the chunk store in
#   S3 (put/get/ls/verify, re-put sends nothing, push/pull, two writers at once, the same name from
#   two writers; also as cairn put/get/ls/verify --store s3://), memory snapshots (search from S3), the
#   JS S3File (js/test/s3: Node; a browser worker in headless Chromium, CORS set on the bucket; virtual-host
#   style), and faults: a wrong key
#   (clear error), a 503 storm through tests/s3/proxy503.py (retries), RGW killed mid-upload (the
#   store stays consistent, the put resumes).
# Needs ceph-mon ceph-mgr ceph-osd radosgw (scripts/setup.sh) and python3-h5py.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
CAIRN=${1:?usage: run.sh CAIRN TMPDIR}
mkdir -p "${2:?usage: run.sh CAIRN TMPDIR}"
T=$(cd "$2" && pwd)/s3 # absolute: the JS tests run from js/
PY=/usr/bin/python3
export CAIRN_S3_DIR=$T/ceph CAIRN_S3_PORT=${CAIRN_S3_TEST_PORT:-8177} CAIRN_S3_MON_PORT=${CAIRN_S3_TEST_MON_PORT:-3377}
OS=$here/scripts/objectstore.sh
rm -rf "$T" && mkdir -p "$T"
# the read planner on made-up ranges (tests/s3/plan.c), before any daemon starts
L=$(cd "$(dirname "$CAIRN")" && pwd)
cc -O2 -o "$T/plan" "$here/tests/s3/plan.c" -I"$here/core/include" "$L/libcairn_s3.a" "$L/libcairn.a" -lcurl -lzstd -lz -lpthread -lm
"$T/plan" plan || { echo "FAIL: the read planner" >&2; exit 1; }
proxy_pid=
cleanup() {
  [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null || true
  "$OS" stop >/dev/null 2>&1 || true
}
trap cleanup EXIT
t0=$SECONDS
set -a
eval "$("$OS" start)"
set +a
echo "ceph + rgw up in $((SECONDS - t0)) s"
B=$CAIRN_S3_BUCKET
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok   $*"; }
s3put() { curl -sf -o /dev/null --aws-sigv4 "aws:amz:$AWS_REGION:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
  -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -T "$1" "$AWS_ENDPOINT_URL/$B/$2"; }
fetched() { sed -n 's/.* \([0-9]*\) bytes fetched.*/\1/p' "$1"; }

# ---- HDF5 from S3
$PY - "$T/f.h5" <<'EOF'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("big", data=np.arange(4 * 1024 * 1024, dtype="f8").reshape(512, 8192), chunks=(16, 8192))
    f.create_dataset("z", data=np.arange(1 << 20, dtype="i4"), chunks=(16384,), compression="gzip")
    f.create_dataset("small", data=np.arange(100, dtype="i2"))
    f.create_dataset("c4m", data=np.arange(4 << 20, dtype="f8") * -1.5, chunks=(1 << 19,))
    f.create_dataset("c256k", data=np.arange(2 << 20, dtype="i8") - 7, chunks=(1 << 15,))
    g = f.create_group("g/h"); g.attrs["unit"] = "m"
    g.create_dataset("v", data=np.linspace(0, 1, 1000))
EOF
s3put "$T/f.h5" data/f.h5
"$CAIRN" ls -r "$T/f.h5" >"$T/ls.local"
"$CAIRN" ls -r "s3://$B/data/f.h5" >"$T/ls.s3"
cmp "$T/ls.local" "$T/ls.s3" || fail "ls -r from S3 differs"
for d in /big /z /small /g/h/v; do
  "$CAIRN" dump "$T/f.h5" $d >"$T/d.local"
  CAIRN_S3_STATS=1 "$CAIRN" dump "s3://$B/data/f.h5" $d >"$T/d.s3" 2>"$T/d.err"
  cmp "$T/d.local" "$T/d.s3" || fail "dump $d from S3 differs"
done
CAIRN_S3_STATS=1 "$CAIRN" dump "s3://$B/data/f.h5" /small >/dev/null 2>"$T/small.err"
n=$(fetched "$T/small.err"); [ "$n" -le 262144 ] || fail "a 200-byte dataset fetched $n bytes"
CAIRN_S3_STATS=1 "$CAIRN" dump "s3://$B/data/f.h5" /big >/dev/null 2>"$T/big.err"
n=$(fetched "$T/big.err"); [ "$n" -le $((33554432 * 12 / 10)) ] || fail "a 32 MiB dataset fetched $n bytes"
ok "HDF5 from S3: ls -r and dump equal the local file's; /small fetched $(fetched "$T/small.err") B, /big (32 MiB) $n B"
# read plans: the chunks of a dataset coalesced into few range GETs (at most max(4, ceil(bytes /
# 16 MiB)) runs, plus the HEAD and metadata reads), every chunk read served from them, the bytes equal
# h5py's reading of the local copy
for d in big:33554432:32 z:4194304:64 c4m:33554432:8 c256k:16777216:64; do
  IFS=: read -r name nb nch <<<"$d"
  read -r got req gets runs hits <<<"$("$T/plan" read "s3://$B/data/f.h5" /$name "$T/$name.raw")"
  $PY -c "import sys, h5py; sys.exit(h5py.File(sys.argv[1])[sys.argv[2]][...].tobytes() != open(sys.argv[3], 'rb').read())" \
    "$T/f.h5" "$name" "$T/$name.raw" || fail "/$name read with a plan differs from h5py's"
  [ "$got" = "$nb" ] || fail "/$name: $got bytes, not $nb"
  [ "$hits" = "$nch" ] || fail "/$name: $hits of $nch chunk reads served by the plan"
  # runs of total/CONNS (4) within [1, 16] MiB: at most max(4, ceil(bytes / 16 MiB)); plus the HEAD and metadata
  maxRuns=$(((nb + (16 << 20) - 1) / (16 << 20))) && [ "$maxRuns" -ge 4 ] || maxRuns=4
  [ "$runs" -le "$maxRuns" ] && [ "$req" -le $((runs + 5)) ] || fail "/$name: $req requests ($runs plan runs) for $nb bytes"
  echo "     /$name: $nch chunks in $runs GETs, $req requests in all"
done
CAIRN_S3_PLAN=0 "$T/plan" read "s3://$B/data/f.h5" /big "$T/big0.raw" >"$T/noplan"
read -r _ req0 _ runs0 _ <"$T/noplan"
[ "$runs0" = 0 ] && [ "$req0" -gt $((33554432 / (8 << 20) + 4)) ] || fail "without a plan: $(cat "$T/noplan")"
cmp "$T/big.raw" "$T/big0.raw" || fail "/big with and without a plan differ"
ok "read plans: whole datasets in few GETs, bytes equal h5py's (without a plan /big takes $req0 requests)"
"$CAIRN" ls "s3://$B/data/missing.h5" 2>"$T/e" && fail "a missing key opened"
grep -q "HEAD s3://$B/data/missing.h5: HTTP 404" "$T/e" || fail "missing key: $(cat "$T/e")"
ok "missing key: $(cat "$T/e")"

# ---- the chunk store in S3
S=s3://$B/store
head -c 20000000 /dev/urandom >"$T/p1"
id=$("$CAIRN" store put --store "$S" --name p1 "$T/p1" 2>"$T/put.err")
"$CAIRN" store get --store "$S" p1 -o "$T/p1.out"
cmp "$T/p1" "$T/p1.out" || fail "get differs"
"$CAIRN" store get --store "$S" "$id" --range 1000:2000 -o "$T/r.out"
cmp <(head -c 2000 "$T/p1" | tail -c 1000) "$T/r.out" || fail "range get differs"
id2=$("$CAIRN" store put --store "$S" --name p1 "$T/p1" 2>"$T/put2.err")
[ "$id" = "$id2" ] || fail "same bytes, other ID"
grep -q " 0 chunks uploaded" "$T/put2.err" || fail "re-put uploaded chunks: $(cat "$T/put2.err")"
ok "store put/get/range, re-put sends no chunk"
# the old command forms route to the S3 store too
"$CAIRN" put --store "$S" --name old/p1 "$T/p1" >"$T/old.id" 2>/dev/null
[ "$(cat "$T/old.id")" = "$id" ] || fail "cairn put --store s3://: other ID"
"$CAIRN" get --store "$S" old/p1 -o - | cmp - "$T/p1" || fail "cairn get --store s3:// differs"
"$CAIRN" ls --store "$S" 2>/dev/null | grep -q "^$id " || fail "cairn ls --store s3:// lacks $id"
"$CAIRN" verify --store="$S" >/dev/null || fail "cairn verify --store=s3://"
ok "cairn put/get/ls/verify --store s3://... are the store's commands"
# a one-byte edit uploads one or two chunks
cp "$T/p1" "$T/p1e" && printf 'X' | dd of="$T/p1e" bs=1 seek=10000000 conv=notrunc status=none
"$CAIRN" store put --store "$S" --name p1e "$T/p1e" >/dev/null 2>"$T/put3.err"
nUp=$(sed -n 's/.*payloads, \([0-9]*\) chunks uploaded.*/\1/p' "$T/put3.err")
[ "$nUp" -le 2 ] || fail "a one-byte edit uploaded $nUp chunks"
ok "one-byte edit: $nUp chunk(s) uploaded"
# two writers at once (two processes, different payloads and one shared name)
head -c 6000000 /dev/urandom >"$T/w1"; head -c 6000000 /dev/urandom >"$T/w2"
"$CAIRN" store put --store "$S" --name both -q "$T/w1" >"$T/w1.id" &
"$CAIRN" store put --store "$S" --name both -q "$T/w2" >"$T/w2.id" &
wait
"$CAIRN" store ls --store "$S" >"$T/ls" 2>/dev/null
grep -q "$(cat "$T/w1.id")" "$T/ls" && grep -q "$(cat "$T/w2.id")" "$T/ls" || fail "a concurrent writer's payload is missing"
"$CAIRN" store get --store "$S" both -o "$T/both.out"
cmp -s "$T/both.out" "$T/w1" || cmp -s "$T/both.out" "$T/w2" || fail "the shared name points at neither payload"
"$CAIRN" store verify --store "$S" >/dev/null || fail "verify after two writers"
ok "two writers at once: both payloads kept, the name points at one of them, verify passes"
# push / pull against a local store
"$CAIRN" put --store "$T/local.cas" --name loc "$T/w1" >/dev/null
head -c 3000000 /dev/urandom >"$T/w3" && "$CAIRN" put --store "$T/local.cas" --name w3 "$T/w3" >/dev/null
"$CAIRN" store push "$T/local.cas" "$S" 2>"$T/push.err"
grep -q "^store push: 1 payloads" "$T/push.err" || fail "push: $(cat "$T/push.err")"
"$CAIRN" store pull "$S" "$T/pulled.cas" 2>/dev/null
"$CAIRN" verify --store "$T/pulled.cas" >/dev/null
"$CAIRN" get --store "$T/pulled.cas" w3 -o "$T/w3.out" && cmp "$T/w3" "$T/w3.out" || fail "pulled payload differs"
"$CAIRN" store pull "$S" "$T/pulled.cas" 2>"$T/pull2.err"
grep -q "0 payloads" "$T/pull2.err" || fail "second pull copied again: $(cat "$T/pull2.err")"
ok "push sends only what S3 lacks; pull copies the rest, verified; a second pull copies nothing"

# ---- memory snapshots
"$CAIRN" mem add "$T/m.h5" "the cat sat on the mat" "dogs chase cats in the park" "a recipe for pancakes with syrup" \
  "notes on the s3 gateway" --text-only >/dev/null
"$CAIRN" mem checkpoint "$T/m.h5" >/dev/null 2>&1
"$CAIRN" store put --store "$S" --name mem/snap1 -q "$T/m.h5" >/dev/null
"$CAIRN" mem search "$T/m.h5" pancakes --mode bm25 --k 2 >"$T/ms.local"
"$CAIRN" mem search "s3://$B/store#mem/snap1" pancakes --mode bm25 --k 2 >"$T/ms.s3"
cmp "$T/ms.local" "$T/ms.s3" || fail "search of the snapshot differs"
"$CAIRN" ls -r "s3://$B/store#p1e" 2>/dev/null && fail "random bytes listed as HDF5"
ok "memory snapshot: search from S3 equals the local search"

# ---- configuration from profile files instead of the environment
cat >"$T/credentials" <<EOF2
[other]
aws_access_key_id = nobody
aws_secret_access_key = nothing
[cairntest]
aws_access_key_id = $AWS_ACCESS_KEY_ID
aws_secret_access_key = $AWS_SECRET_ACCESS_KEY
EOF2
printf '[profile cairntest]\nregion = %s\nendpoint_url = %s\n' "$AWS_REGION" "$AWS_ENDPOINT_URL" >"$T/config"
env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_ENDPOINT_URL -u AWS_REGION AWS_PROFILE=cairntest \
  AWS_SHARED_CREDENTIALS_FILE="$T/credentials" AWS_CONFIG_FILE="$T/config" "$CAIRN" ls "s3://$B/data/f.h5" >/dev/null ||
  fail "profile files"
env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY HOME=$T/nohome "$CAIRN" ls "s3://$B/data/f.h5" 2>"$T/e" && fail "no credentials worked"
grep -q "no credentials" "$T/e" || fail "no credentials: $(cat "$T/e")"
ok "profile files (AWS_PROFILE, credentials + config with endpoint_url); none: $(cat "$T/e")"

# virtual-host style (bucket.localhost: curl resolves *.localhost to loopback; RGW has rgw_dns_name)
AWS_ENDPOINT_URL=http://localhost:$CAIRN_S3_PORT CAIRN_S3_ADDRESSING=virtual "$CAIRN" ls -r "s3://$B/data/f.h5" | cmp - "$T/ls.local" ||
  fail "virtual-host style ls"
AWS_ENDPOINT_URL=http://localhost:$CAIRN_S3_PORT CAIRN_S3_ADDRESSING=virtual "$CAIRN" store ls --store "$S" 2>/dev/null | grep -q " p1$" ||
  fail "virtual-host style listing"
ok "virtual-host style requests (read, list)"

# ---- faults: a wrong key
AWS_SECRET_ACCESS_KEY=wrong "$CAIRN" store ls --store "$S" 2>"$T/e" && fail "a wrong key listed"
grep -q "HTTP 403" "$T/e" && grep -q "s3://$B/" "$T/e" || fail "wrong key: $(cat "$T/e")"
ok "wrong key: $(cat "$T/e")"
# a 503 storm: every 3rd request answered 503 by a proxy
pport=$((CAIRN_S3_PORT + 1))
$PY "$here/tests/s3/proxy503.py" $pport "$CAIRN_S3_PORT" 3 2>"$T/proxy.err" &
proxy_pid=$!
for ((i = 0; i < 50; i++)); do (exec 3<>/dev/tcp/127.0.0.1/$pport) 2>/dev/null && break; sleep 0.1; done
head -c 12000000 /dev/urandom >"$T/p503"
CAIRN_S3_STATS=1 AWS_ENDPOINT_URL=http://127.0.0.1:$pport "$CAIRN" store put --store "$S" --name storm "$T/p503" >/dev/null 2>"$T/storm.err"
CAIRN_S3_STATS=1 AWS_ENDPOINT_URL=http://127.0.0.1:$pport "$CAIRN" store get --store "$S" storm -o "$T/p503.out" 2>>"$T/storm.err"
cmp "$T/p503" "$T/p503.out" || fail "503 storm: bytes differ"
CAIRN_S3_STATS=1 AWS_ENDPOINT_URL=http://127.0.0.1:$pport "$CAIRN" dump "s3://$B/data/f.h5" /z >"$T/d503" 2>>"$T/storm.err"
"$CAIRN" dump "$T/f.h5" /z | cmp - "$T/d503" || fail "503 storm: dump differs"
grep -q " [1-9][0-9]* retries" "$T/storm.err" || fail "503 storm: no retries? $(cat "$T/storm.err")"
kill $proxy_pid; wait $proxy_pid 2>/dev/null || true; proxy_pid=
ok "503 storm: put, get and dump succeed ($(grep -o '[0-9]* retries' "$T/storm.err" | tr '\n' ' '))"
# RGW killed in the middle of an upload
nchunks() { curl -s --aws-sigv4 "aws:amz:$AWS_REGION:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
  -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$AWS_ENDPOINT_URL/$B?list-type=2&prefix=store%2Fchunks%2F" | grep -o "<Key>" | wc -l; }
head -c 200000000 /dev/urandom >"$T/big"
n0=$(nchunks)
CAIRN_S3_RETRIES=1 "$CAIRN" store put --store "$S" --name big "$T/big" >/dev/null 2>"$T/kill.err" &
pid=$!
for ((i = 0; i < 300; i++)); do [ "$(nchunks)" -ge $((n0 + 8)) ] && break; sleep 0.05; done # some chunks are in
"$OS" rgw-stop
wait $pid && fail "the put survived RGW's death (too fast? raise the size)"
grep -q "s3: " "$T/kill.err" || fail "RGW killed: $(cat "$T/kill.err")"
ok "RGW killed mid-upload: put fails: $(tail -1 "$T/kill.err")"
"$OS" rgw-start
"$CAIRN" store verify --store "$S" >/dev/null || fail "store inconsistent after the interrupted put"
"$CAIRN" store get --store "$S" big -o "$T/x" 2>/dev/null && fail "a half-uploaded payload is readable"
"$CAIRN" store put --store "$S" --name big "$T/big" >/dev/null 2>"$T/resume.err"
grep -q "[1-9][0-9]* chunks already there" "$T/resume.err" || fail "resume re-sent everything: $(cat "$T/resume.err")"
"$CAIRN" store get --store "$S" big -o "$T/big.out" && cmp "$T/big" "$T/big.out" || fail "resumed payload differs"
"$CAIRN" store verify --store "$S" >/dev/null
ok "after RGW restart: verify passes, no half payload, put resumes ($(cat "$T/resume.err"))"

# ---- the sweep of chunks no manifest names (cairn store gc)
s3del() { curl -sf -o /dev/null -X DELETE --aws-sigv4 "aws:amz:$AWS_REGION:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
  -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$AWS_ENDPOINT_URL/$B/$1"; }
marker() { printf '%s/%016x-%s' "$1" "$(date +%s%N)" "$2"; }
# the put killed with RGW above could not remove its writer marker: a sweep waits for it (grace)
"$CAIRN" store gc --store "$S" 2>"$T/e" && fail "gc swept while a writer marker was fresh"
grep -q "writer marker.*nothing swept" "$T/e" || fail "gc with a fresh writer marker: $(cat "$T/e")"
ok "gc refuses while a writer's marker is younger than the grace: $(cat "$T/e")"
# two orphan chunks (as a failed put leaves them), then a sweep with a 1 s grace
head -c 5000 /dev/urandom >"$T/o1" && head -c 7000 /dev/urandom >"$T/o2"
s3put "$T/o1" "store/chunks/$(sha256sum "$T/o1" | cut -c1-64)" && s3put "$T/o2" "store/chunks/$(sha256sum "$T/o2" | cut -c1-64)"
sleep 1.2
nch() { sed -n 's/^store gc: \([0-9]*\) chunks.*/\1/p' "$1"; }
"$CAIRN" store gc --store "$S" --grace 1 --dry-run >"$T/gc0" && grep -q " 2 named by no manifest (12000 bytes): 0 deleted" "$T/gc0" ||
  fail "gc --dry-run: $(cat "$T/gc0")"
"$CAIRN" store gc --store "$S" --grace 1 >"$T/gc1" && grep -q ": 2 deleted; [1-9][0-9]* expired markers removed" "$T/gc1" || fail "gc: $(cat "$T/gc1")"
"$CAIRN" store gc --store "$S" --grace 1 --dry-run >"$T/gc2"
[ "$(nch "$T/gc0")" = "$(nch "$T/gc1")" ] && [ "$(nch "$T/gc2")" = "$(($(nch "$T/gc1") - 2))" ] && grep -q " 0 named by no manifest" "$T/gc2" ||
  fail "chunks before/after gc: $(cat "$T/gc0" "$T/gc1" "$T/gc2")"
"$CAIRN" store verify --store "$S" >/dev/null || fail "verify after gc"
"$CAIRN" store get --store "$S" big -o - | cmp - "$T/big" || fail "a payload differs after gc"
ok "gc: $(cat "$T/gc1"); verify passes, payloads intact"
# a writer does not start while a sweep's marker is fresh
: >"$T/empty" && m=$(marker store/gc 00000000000000aa) && s3put "$T/empty" "$m"
"$CAIRN" store put --store "$S" --name later "$T/w3" 2>"$T/e" && fail "a put ran during a sweep"
grep -q "a sweep (cairn store gc)" "$T/e" || fail "put during a sweep: $(cat "$T/e")"
s3del "$m"
"$CAIRN" store put --store "$S" --name later -q "$T/w3" >/dev/null || fail "put after the sweep"
ok "a put waits for a running sweep: $(cat "$T/e")"

# ---- JS: S3File + h5.File.open against RGW (Node), in a browser worker (Chromium), virtual-host style
if [ -f "$here/js/dist/cairn-core.mjs" ] && [ -f "$here/js/test/s3/s3file.test.mjs" ]; then
  (cd "$here/js" && H5=$T/f.h5 node --test test/s3/) || fail "js S3File"
  ok "js S3File"
else
  echo "skip js S3File (js/dist not built)"
fi
echo "all S3 tests passed in $((SECONDS - t0)) s"
