#!/usr/bin/env bash
# tests/cli/cas.sh TMPDIR - the chunk store through the native CLI: put prints a 64-hex ID, get
# returns the bytes (whole and byte ranges, checked against head/tail), ls and verify, dedup
# (the same file again leaves the store file unchanged), compression, several files in one
# transaction, a damaged store byte caught by verify and get, usage errors, the progress bar
# on a terminal, and a 1 GiB payload published and read back under 64 MiB peak RSS.
set -u
CAIRN=${CAIRN:?set CAIRN to the cairn binary}
t=${1:?tmp dir}/cli-cas
rm -rf "$t" && mkdir -p "$t"
pass=0 fail=0
ok() { pass=$((pass+1)); echo "ok   $1"; }
ko() { fail=$((fail+1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }
S="$t/s.cas"

head -c 20000000 /dev/urandom > "$t/rand.bin"
seq 1 3000000 > "$t/text.txt"
: > "$t/empty"

id=$("$CAIRN" put --store "$S" "$t/rand.bin")
check "put prints a 64-hex ID" '[[ "$id" =~ ^[0-9a-f]{64}$ ]]'
check "get returns the same bytes" '"$CAIRN" get --store "$S" "$id" -o "$t/out" && cmp -s "$t/out" "$t/rand.bin"'
check "get by name" '"$CAIRN" get --store "$S" "$t/rand.bin" -o "$t/out2" && cmp -s "$t/out2" "$t/rand.bin"'
for r in 0:1 0:0 5:70000 1048575:1048577 12345678: :999 19999999:20000000 0:20000000; do
  a=${r%%:*}; b=${r#*:}; a=${a:-0}; b=${b:-20000000}
  check "range $r" '"$CAIRN" get -f --store "$S" "$id" --range "$r" -o "$t/r" && cmp -s "$t/r" <(tail -c +$((a+1)) "$t/rand.bin" | head -c $((b-a)))'
done
check "range past the end fails" '! "$CAIRN" get -f --store "$S" "$id" --range 20000001:20000002 -o "$t/r" 2>/dev/null'
size1=$(stat -c %s "$S")
id2=$("$CAIRN" put --store "$S" --no-name "$t/rand.bin")
check "same file again: same ID, store unchanged" '[ "$id2" = "$id" ] && [ "$(stat -c %s "$S")" = "$size1" ]'
ide=$("$CAIRN" put --store "$S" "$t/empty")
check "empty file" '"$CAIRN" get --store "$S" "$ide" -o "$t/e" && [ ! -s "$t/e" ]'
"$CAIRN" put --store "$t/z.cas" --zstd "$t/text.txt" > "$t/zid"
check "--zstd store is smaller than its input" '[ "$(stat -c %s "$t/z.cas")" -lt $(( $(stat -c %s "$t/text.txt") / 3 )) ]'
check "--zstd round trip" '"$CAIRN" get --store "$t/z.cas" "$(cat "$t/zid")" -o "$t/zt" && cmp -s "$t/zt" "$t/text.txt"'
"$CAIRN" put --store "$t/m.cas" --zlib "$t/text.txt" "$t/rand.bin" "$t/empty" > "$t/multi"
check "several files, one transaction" '[ "$(wc -l < "$t/multi")" = 3 ] && "$CAIRN" verify --store "$t/m.cas" >/dev/null'
check "ls lists ID, size, name" '"$CAIRN" ls --store "$S" 2>/dev/null | grep -q "^$id  *20000000  $t/rand.bin$"'
check "verify ok" '"$CAIRN" verify --store "$S" | grep -q "^ok: 2 payloads"'

# Damage one byte in the middle of the store: verify and get name the chunk; get leaves no file.
# The byte is inverted, not overwritten with a constant: random data holds any given value at a
# given offset once in 256 runs, and writing that value back would damage nothing.
cp "$S" "$t/bad.cas"
mid=$((size1 / 2))
byte=$(od -An -tu1 -j "$mid" -N1 "$t/bad.cas" | tr -d ' ')
printf "\\$(printf '%03o' $((byte ^ 255)))" | dd of="$t/bad.cas" bs=1 seek="$mid" conv=notrunc status=none
check "the damage changed the byte" '! cmp -s "$S" "$t/bad.cas"'
check "verify finds the damaged chunk" '! "$CAIRN" verify --store "$t/bad.cas" 2>"$t/err" >/dev/null && grep -q "chunk [0-9a-f]\{64\}.*SHA-256 mismatch" "$t/err"'
check "get of the damaged payload fails cleanly" '! "$CAIRN" get --store "$t/bad.cas" "$id" -o "$t/bad.out" 2>"$t/err" && grep -q "SHA-256 mismatch" "$t/err" && [ ! -e "$t/bad.out" ]'

check "bad usage exits 2" '"$CAIRN" put --store "$S" 2>/dev/null; [ $? = 2 ]'
check "unknown ID exits 1 naming it" '! "$CAIRN" get --store "$S" 0000000000000000000000000000000000000000000000000000000000000000 -o "$t/x" 2>"$t/err" && grep -q "no payload 0000" "$t/err"'
check "not a store exits 1" '! "$CAIRN" ls --store "$t/text.txt" 2>"$t/err" && grep -q "not a cairn store" "$t/err"'
check "progress bar on a terminal" 'script -qec "\"$CAIRN\" put --store \"$t/p.cas\" \"$t/rand.bin\"" /dev/null | grep -q "cairn put: *[0-9]*% "'

# 1 GiB, published and read back, peak RSS measured by the kernel (getrusage via GNU time).
head -c 1073741824 /dev/urandom > "$t/big.bin"
/usr/bin/time -f "%M" -o "$t/rss.put" "$CAIRN" put --store "$t/big.cas" "$t/big.bin" > "$t/bigid"
/usr/bin/time -f "%M" -o "$t/rss.get" "$CAIRN" get --store "$t/big.cas" "$(cat "$t/bigid")" -o "$t/big.out"
echo "     1 GiB: put peak RSS $(( $(tail -1 "$t/rss.put") / 1024 )) MiB, get peak RSS $(( $(tail -1 "$t/rss.get") / 1024 )) MiB"
check "1 GiB round trip" 'cmp -s "$t/big.bin" "$t/big.out"'
check "1 GiB put under 64 MiB peak RSS" '[ "$(tail -1 "$t/rss.put")" -lt 65536 ]'
check "1 GiB get under 64 MiB peak RSS" '[ "$(tail -1 "$t/rss.get")" -lt 65536 ]'
rm -rf "$t"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
