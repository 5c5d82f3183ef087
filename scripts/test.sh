#!/usr/bin/env bash
# scripts/test.sh - everything CI runs, on a fresh Debian 12 machine or this one:
# set up (idempotent), build all targets, and run every test. Each step's log is kept under
# build/logs/; a failing step prints the end of its log. Ends with "N passed, N failed" (steps).
#   SKIP_SETUP=1 scripts/test.sh     skip apt/npm (already set up)
#   scripts/test.sh native wasi ...  run only the named steps
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
export NODE_NO_WARNINGS=1 NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
mkdir -p build/logs
pass=0 fail=0 failed=()
start_all=$(date +%s)

step() { # name command...
  local name=$1; shift
  if [ ${#only[@]} -gt 0 ] && [[ ! " ${only[*]} " == *" $name "* ]]; then return; fi
  local t0=$(date +%s) log=build/logs/$name.log
  if "$@" >"$log" 2>&1; then
    pass=$((pass+1)); printf 'ok   %-14s %4ss\n' "$name" $(( $(date +%s) - t0 ))
  else
    fail=$((fail+1)); failed+=("$name"); printf 'FAIL %-14s %4ss  (log: %s)\n' "$name" $(( $(date +%s) - t0 )) "$log"
    tail -n 40 "$log" | sed 's/^/     | /'
  fi
}

only=("$@")
[ "${SKIP_SETUP:-0}" = 1 ] || step setup scripts/setup.sh
step build-native scripts/build.sh native
step build-wasi   scripts/build.sh wasi
step build-em     scripts/build.sh em
step build-asan   scripts/build.sh asan
step build-arm64  scripts/build.sh aarch64
step build-min    scripts/build.sh minimal
step core-symbols scripts/check-core-symbols.sh build/native/libcairn_core.a build/wasi/libcairn_core.a
step boundary     scripts/check-boundary.sh
step exports      scripts/check-exports.sh build/native
step native       ctest --test-dir build/native --output-on-failure -j2 --timeout 900
step asan         env ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
                  ctest --test-dir build/asan --output-on-failure -j2 --timeout 1800
step fuzz         scripts/fuzz.sh
step arm64-qemu   ctest --test-dir build/aarch64 --output-on-failure -j2 --timeout 1800
step wasm         node --test --test-concurrency=1 tests/wasm/
step js           bash -c 'cd js && npm test'
step readme       node tests/readme/run.mjs   # every js/sh block of README.md and docs/ runs as written
step install      tests/install/check.sh
# S3: starts a single-node Ceph + RGW itself (scripts/objectstore.sh, ports 8177/3377) and stops it
step s3           bash tests/s3/run.sh build/native/cairn build/native/tmp

echo "total $(( $(date +%s) - start_all ))s"
[ $fail -eq 0 ] || echo "failed steps: ${failed[*]}"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
