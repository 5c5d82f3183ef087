#!/usr/bin/env bash
# 2026-12-02
# scripts/objectstore.sh - a single-node Ceph cluster with the RADOS Gateway (S3) on loopback,
# from Debian's packages (ceph-mon ceph-mgr ceph-osd radosgw), for the S3 tests and benches.
#   scripts/objectstore.sh start [DIR]   create (or warm-restart) the cluster in DIR, make a user
#                                        and a bucket, print the env lines (as `env` does)
#   scripts/objectstore.sh env [DIR]     print AWS_ENDPOINT_URL=... lines for `eval`
#   scripts/objectstore.sh stop [DIR]    stop the daemons this script started (their pids in DIR)
#   scripts/objectstore.sh rgw-stop|rgw-start [DIR]   only the gateway (fault tests: S3 goes away)
# DIR defaults to $CAIRN_S3_DIR or build/objectstore. Ports: S3 on $CAIRN_S3_PORT (8000), the mon
# on $CAIRN_S3_MON_PORT (3300), daemons in 6800-6899. Recipe: ../shared/objectstore.md (order
# matters: mon, mgr, osd, rgw). The OSD's memory target is small (CAIRN_S3_OSD_MEM, 512 MiB).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cmd=${1:-}
dir=${2:-${CAIRN_S3_DIR:-$here/build/objectstore}}
port=${CAIRN_S3_PORT:-8000}
monport=${CAIRN_S3_MON_PORT:-3300}
ak=cairntestaccesskey
sk=cairntestsecretkey0123456789
bucket=${CAIRN_S3_BUCKET:-cairn}
conf=$dir/ceph.conf

say() { echo "objectstore: $*" >&2; }

envlines() {
  cat <<EOF
AWS_ENDPOINT_URL=http://127.0.0.1:$port
AWS_ACCESS_KEY_ID=$ak
AWS_SECRET_ACCESS_KEY=$sk
AWS_REGION=us-east-1
CAIRN_S3_BUCKET=$bucket
EOF
}

# Start a daemon in the background with no inherited descriptors (a caller piping our output
# would otherwise wait for the daemons to exit), its pid in pids/NAME.
spawn() { # name cmd...
  local name=$1; shift
  setsid "$@" </dev/null >"$dir/log/$name.out" 2>&1 &
  echo $! >"$dir/pids/$name"
}

alive() { [ -f "$dir/pids/$1" ] && kill -0 "$(cat "$dir/pids/$1")" 2>/dev/null; }

waitfor() { # what seconds cmd...
  local what=$1 n=$2; shift 2
  for ((i = 0; i < n * 10; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  say "timed out waiting for $what (logs in $dir/log)"
  return 1
}

rgwready() { curl -s --max-time 2 "http://127.0.0.1:$port/" | grep -q ListAllMyBucketsResult; }
osdup() { ceph -c "$conf" osd stat -f json 2>/dev/null | grep -q '"num_up_osds":1'; }
portfree() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

stop() {
  local left=0
  for d in rgw osd mgr mon; do
    if alive $d; then kill -TERM "$(cat "$dir/pids/$d")" 2>/dev/null || true; fi
  done
  for ((i = 0; i < 100; i++)); do
    left=0
    for d in rgw osd mgr mon; do alive $d && left=1; done
    [ $left = 0 ] && break
    sleep 0.1
  done
  for d in rgw osd mgr mon; do
    if alive $d; then kill -KILL "$(cat "$dir/pids/$d")" 2>/dev/null || true; fi
    rm -f "$dir/pids/$d"
  done
}

writeconf() {
  local fsid
  fsid=$(cat /proc/sys/kernel/random/uuid)
  cat >"$conf" <<EOF
[global]
fsid = $fsid
mon_host = v2:127.0.0.1:$monport
public_network = 127.0.0.0/8
public_addr = 127.0.0.1
cluster_addr = 127.0.0.1
ms_bind_msgr1 = false
ms_bind_msgr2 = true
ms_bind_port_min = 6800
ms_bind_port_max = 6899
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
ms_mon_client_mode = crc
keyring = /dev/null
run_dir = $dir/run
crash_dir = $dir/crash
log_file = $dir/log/\$name.log
admin_socket = $dir/run/\$name.asok
osd_pool_default_size = 1
osd_pool_default_min_size = 1
mon_allow_pool_size_one = true
mon_warn_on_pool_no_redundancy = false
osd_crush_chooseleaf_type = 0
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
osd_pool_default_pg_autoscale_mode = off
mon_max_pg_per_osd = 1000
[mon]
mon_data = $dir/mon/\$name
mon_data_avail_warn = 1
mon_data_avail_crit = 0
paxos_propose_interval = 0.1
[mgr]
mgr_data = $dir/mgr/\$name
[osd]
osd_data = $dir/osd/\$name
osd_objectstore = bluestore
bluestore_block_create = true
bluestore_block_size = 8589934592
osd_memory_target = $(( ${CAIRN_S3_OSD_MEM:-512} * 1048576 ))
bluestore_cache_autotune = true
bluestore_fsck_on_mount = false
osd_check_max_object_name_len_on_startup = false
[client.rgw.cairn]
rgw_data = $dir/rgw
rgw_frontends = beast endpoint=127.0.0.1:$port tcp_nodelay=1
rgw_dns_name = localhost
EOF
}

start() {
  local t0=$SECONDS fresh=0
  mkdir -p "$dir"/{mon,mgr,osd,rgw,run,log,pids,crash}
  command -v ceph-mon >/dev/null || { say "ceph-mon missing: apt-get install ceph-mon ceph-mgr ceph-osd radosgw ceph-common"; exit 1; }
  if alive rgw && rgwready; then envlines; return 0; fi
  stop # whatever of ours is left from a failed start
  for p in $port $monport; do portfree $p || { say "port $p is in use"; exit 1; }; done
  trap 'say "start failed; stopping what it started"; stop' ERR
  if [ ! -d "$dir/mon/mon.a/store.db" ]; then
    fresh=1
    rm -rf "$dir"/{mon,mgr,osd,rgw}/* "$dir/run"/*
    writeconf
    local fsid
    fsid=$(sed -n 's/^fsid = //p' "$conf")
    monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$monport]" "$dir/monmap" >/dev/null
    ceph-mon -c "$conf" --mkfs -i a --monmap "$dir/monmap" >"$dir/log/mkfs-mon.out" 2>&1
  fi
  spawn mon ceph-mon -c "$conf" -i a -f
  waitfor "the mon" 30 ceph -c "$conf" --connect-timeout 2 mon stat
  mkdir -p "$dir/mgr/mgr.x"
  spawn mgr ceph-mgr -c "$conf" -i x -f
  if [ $fresh = 1 ]; then
    local uuid
    uuid=$(cat /proc/sys/kernel/random/uuid)
    ceph -c "$conf" osd new "$uuid" >/dev/null
    mkdir -p "$dir/osd/osd.0"
    ceph-osd -c "$conf" -i 0 --mkfs --osd-uuid "$uuid" >"$dir/log/mkfs-osd.out" 2>&1
  fi
  spawn osd ceph-osd -c "$conf" -i 0 -f
  waitfor "the OSD" 60 osdup
  spawn rgw radosgw -c "$conf" -n client.rgw.cairn -f
  waitfor "the RADOS gateway" 90 rgwready
  if [ $fresh = 1 ]; then
    radosgw-admin -c "$conf" user create --uid test --display-name test --access-key "$ak" --secret "$sk" >/dev/null 2>&1
  fi
  # the bucket (an existing one is fine: 200 or 409 BucketAlreadyOwnedByYou)
  curl -s -o /dev/null --aws-sigv4 "aws:amz:us-east-1:s3" --user "$ak:$sk" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
    -X PUT "http://127.0.0.1:$port/$bucket"
  trap - ERR
  say "ready in $((SECONDS - t0)) s ($([ $fresh = 1 ] && echo cold || echo warm)), S3 at http://127.0.0.1:$port"
  envlines
}

case "$cmd" in
  start) start ;;
  rgw-stop)
    if alive rgw; then kill -KILL "$(cat "$dir/pids/rgw")"; fi
    for ((i = 0; i < 50; i++)); do alive rgw || break; sleep 0.1; done
    rm -f "$dir/pids/rgw" ;;
  rgw-start)
    alive rgw || spawn rgw radosgw -c "$conf" -n client.rgw.cairn -f
    waitfor "the RADOS gateway" 60 rgwready ;;
  stop) stop; say "stopped" ;;
  env) envlines ;;
  *) echo "usage: scripts/objectstore.sh start|stop|env|rgw-stop|rgw-start [DIR]" >&2; exit 2 ;;
esac
