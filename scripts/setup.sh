#!/usr/bin/env bash
# scripts/setup.sh - install everything cairn's builds, tests and demo need on Debian 12.
# Idempotent: packages already present are skipped by apt; sources already unpacked are kept.
# Installs only from Debian's and npm's registries (see ../shared/toolchain.md).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
export DEBIAN_FRONTEND=noninteractive

PKGS=(build-essential cmake pkg-config git ca-certificates
      emscripten wasi-libc libclang-rt-14-dev-wasm32 lld-14 llvm-14 clang-14
      libzstd-dev zlib1g-dev zstd hyperfine
      libhdf5-dev hdf5-tools python3-h5py python3-numpy hdf5-filter-plugin netcdf-bin
      chromium qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross
      libclang-rt-14-dev openssl
      # the S3 host (hosts/s3.c): HTTP with SigV4 signing (CURLOPT_AWS_SIGV4), Debian's libcurl
      libcurl4-openssl-dev
      # a real S3 endpoint for the s3 test step: single-node Ceph + RADOS Gateway (scripts/objectstore.sh)
      ceph-mon ceph-mgr ceph-osd radosgw ceph-common
      # the peer of bench/s3: restic backups into the same RGW
      restic)
# The ephemeral tier's peer (bench/eph/run.sh, issue 18): a real Redis server on loopback, driven
# through hiredis, pipelined and not; the bench builds only where hiredis is present.
PKGS+=(redis-server libhiredis-dev)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Sources of zstd and zlib for the two wasm targets: npm tarballs that embed the C sources
# (toolchain.md). Kept under build/deps (ignored by git), never committed.
"$here/scripts/fetch-deps.sh"

# npm packages for the JS package tests, the browser test and interop peers, exactly as locked.
if [ ! -d "$here/js/node_modules/playwright-core" ] || [ "$here/js/package.json" -nt "$here/js/node_modules/.setup-stamp" ]; then
  (cd "$here/js" && npm ci --no-audit --no-fund --loglevel=error && touch node_modules/.setup-stamp)
fi
# Independent HDF5 readers for the writer's interop tests (h5wasm + plugins, jsfive).
if [ ! -d "$here/tests/interop/node_modules/h5wasm" ] || [ "$here/tests/interop/package.json" -nt "$here/tests/interop/node_modules/.setup-stamp" ]; then
  (cd "$here/tests/interop" && npm ci --no-audit --no-fund --loglevel=error && touch node_modules/.setup-stamp)
fi
echo "setup: ok"
