#!/usr/bin/env bash
# tests/cli/smoke.sh TMPDIR - the native CLI against independent tools: `cairn hash` must agree
# with coreutils sha256sum, `cairn zstd` output must decode with the zstd CLI and `cairn unzstd`
# must decode the zstd CLI's output; bad arguments and missing files exit non-zero with one line.
set -u
CAIRN=${CAIRN:?set CAIRN to the cairn binary}
t=${1:?tmp dir}/cli-smoke
rm -rf "$t" && mkdir -p "$t"
pass=0 fail=0
ok() { pass=$((pass+1)); echo "ok   $1"; }
ko() { fail=$((fail+1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }

head -c 3000000 /dev/urandom > "$t/rand.bin"
seq 1 400000 > "$t/text.txt"
: > "$t/empty"
for f in rand.bin text.txt empty; do
  check "hash $f matches sha256sum" '[ "$("$CAIRN" hash "$t/$f" | cut -d" " -f1)" = "$(sha256sum "$t/$f" | cut -d" " -f1)" ]'
done
check "zstd -> zstd -d" '"$CAIRN" zstd "$t/text.txt" -o "$t/a.zst" 2>/dev/null && zstd -q -d -c "$t/a.zst" | cmp -s - "$t/text.txt"'
check "zstd CLI -> unzstd" 'zstd -q -19 -c "$t/text.txt" > "$t/b.zst" && "$CAIRN" unzstd "$t/b.zst" -o "$t/b.out" 2>/dev/null && cmp -s "$t/b.out" "$t/text.txt"'
check "gzip -> gzip -d" '"$CAIRN" gzip "$t/rand.bin" -o "$t/c.gz" 2>/dev/null && gzip -d -c "$t/c.gz" | cmp -s - "$t/rand.bin"'
check "missing file exits 1 with one line" '! "$CAIRN" hash "$t/nope" 2>"$t/err" && [ "$(wc -l < "$t/err")" = 1 ] && grep -q nope "$t/err"'
check "bad usage exits 2" '"$CAIRN" zstd 2>/dev/null; [ $? = 2 ]'
check "unknown command exits 2" '"$CAIRN" frobnicate 2>/dev/null; [ $? = 2 ]'
head -c 1000 "$t/a.zst" > "$t/trunc.zst"
check "truncated zstd fails cleanly" '! "$CAIRN" unzstd "$t/trunc.zst" -o "$t/trunc.out" 2>"$t/err" && grep -q "truncated" "$t/err"'
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
