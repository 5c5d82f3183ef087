#!/usr/bin/env bash
# scripts/check-exports.sh BUILD_DIR - libcairn.so exports only cairn_* functions (hidden
# visibility by default, CAIRN_API on the public declarations: core/include/cairn/export.h), and
# every global symbol libcairn.a defines starts with "cairn", so a program can link libcairn
# statically beside libhdf5, zstd or zlib without a clash. Prints the offenders.
set -euo pipefail
b=${1:-build/native}
status=0
so=$(ls "$b"/libcairn.so.[0-9]* 2>/dev/null | head -1 || true)
[ -n "$so" ] || so=$b/libcairn.so
bad=$(nm -D --defined-only "$so" | awk '$2 ~ /[TDBRVW]/ {print $3}' | grep -v '^cairn_' | grep -Ev '^(_init|_fini|_edata|_end|__bss_start)$' || true)
n=$(nm -D --defined-only "$so" | awk '$2 ~ /[TDBRVW]/' | grep -c ' cairn_' || true)
if [ -n "$bad" ]; then echo "FAIL $so exports symbols that are not cairn_*:"; echo "$bad" | sed 's/^/    /'; status=1
else echo "ok   $so exports $n symbols, all cairn_*"; fi
# Internal symbols: every symbol of the core exported by the .so must be declared CAIRN_API in
# the public headers (a cairn_ name that is internal would otherwise slip through).
public=$(grep -ho 'cairn_[a-z0-9_]*(' core/include/cairn/*.h | tr -d '(' | sort -u)
extra=$(nm -D --defined-only "$so" | awk '$2 ~ /[TDBRVW]/ {print $3}' | grep '^cairn_' | sort -u | comm -23 - <(echo "$public") || true)
if [ -n "$extra" ]; then echo "FAIL $so exports cairn_ symbols no public header declares:"; echo "$extra" | sed 's/^/    /'; status=1; fi
a=$b/libcairn.a
bad=$(nm --defined-only "$a" 2>/dev/null | awk 'NF>=3 && $2 ~ /[TDBRCVWG]/ {print $3}' | grep -v '^cairn' | sort -u || true)
if [ -n "$bad" ]; then echo "FAIL $a defines $(echo "$bad" | wc -l) global symbols without the cairn prefix:"; echo "$bad" | head -200 | sed 's/^/    /'; status=1
else echo "ok   $a: every global symbol starts with cairn"; fi
exit $status
