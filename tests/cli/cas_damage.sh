#!/usr/bin/env bash
# 2026-12-02
# tests/cli/cas_damage.sh TMPDIR - damage in a chunk store through the native CLI (issue 16):
# a flipped bit in committed data makes `verify` exit 1 naming the offset and listing what is
# lost and intact (never "ok"); `put` refuses the store and leaves it byte for byte as it was
# (before, it cut 323 KB to 407 B); `salvage` copies the intact payloads and their names into a
# new store and reports what it dropped; garbage after the last commit stays a torn tail; a second
# writer waits (--busy-timeout) or gets "locked".
set -u
CAIRN=${CAIRN:?set CAIRN to the cairn binary}
t=${1:?tmp dir}/cli-cas-damage
rm -rf "$t" && mkdir -p "$t"
pass=0 fail=0
ok() { pass=$((pass+1)); echo "ok   $1"; }
ko() { fail=$((fail+1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }
flip() { # FILE OFFSET: invert one bit
  local b; b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
  printf "\\$(printf '%03o' $((b ^ 16)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
S="$t/s.cas"
for i in 1 2 3 4 5 6; do head -c $((40000 + i * 7000)) /dev/urandom > "$t/p$i"; done
for i in 1 2 3 4 5 6; do "$CAIRN" put --store "$S" --chunk 4096,16384,65536 "$t/p$i" > "$t/id$i" || ko "put p$i"; done
check "a clean store verifies" '"$CAIRN" verify --store "$S" | grep -q "^ok: 6 payloads"'

# The first record's header (offset 64): the old recovery took this for a torn tail.
cp "$S" "$t/d.cas"; flip "$t/d.cas" 70
cp "$t/d.cas" "$t/d.orig"
check "verify exits 1 on damage, naming the offset" '! "$CAIRN" verify --store "$t/d.cas" > "$t/out" 2>"$t/err" && grep -q "offset 64" "$t/err" && ! grep -q "^ok" "$t/out"'
check "verify lists what is intact" 'grep -q "5 of 5 listed payloads intact\|of [0-9]* listed payloads intact" "$t/err"'
check "put refuses a damaged store, naming it" '! "$CAIRN" put --store "$t/d.cas" "$t/p1" 2>"$t/err" && grep -q "store damaged" "$t/err" && grep -q "d.cas" "$t/err"'
check "and leaves it byte for byte" 'cmp -s "$t/d.cas" "$t/d.orig"'
check "salvage refuses to write over its input" '! "$CAIRN" salvage --store "$t/d.cas" -o "$t/d.cas" 2>/dev/null && cmp -s "$t/d.cas" "$t/d.orig"'
check "salvage copies what verifies" '"$CAIRN" salvage --store "$t/d.cas" -o "$t/new.cas" > "$t/out" 2>"$t/err" && grep -q "^salvaged 5 payloads and 5 names" "$t/out" && grep -q "dropped" "$t/err"'
check "the new store verifies" '"$CAIRN" verify --store "$t/new.cas" | grep -q "^ok: 5 payloads"'
for i in 2 3 4 5 6; do
  check "payload $i salvaged byte for byte, same ID" '"$CAIRN" get --store "$t/new.cas" "$(cat "$t/id$i")" -o "$t/o$i" && cmp -s "$t/o$i" "$t/p$i"'
done
check "salvage does not replace an existing output without -f" '! "$CAIRN" salvage --store "$t/d.cas" -o "$t/new.cas" 2>/dev/null'
check "salvage -f replaces it" '"$CAIRN" salvage -f --store "$t/d.cas" -o "$t/new.cas" > /dev/null 2>&1'
check "the new store takes puts" '"$CAIRN" put --store "$t/new.cas" "$t/p1" > /dev/null && "$CAIRN" verify --store "$t/new.cas" | grep -q "^ok: 6 payloads"'

# A manifest in the middle: that payload is lost, the others intact.
mid=$(( $(stat -c %s "$S") / 2 ))
cp "$S" "$t/m.cas"; flip "$t/m.cas" "$mid"
check "damage in the middle: verify exits 1" '! "$CAIRN" verify --store "$t/m.cas" > /dev/null 2>&1'
# Garbage after the last commit: a torn tail, cut by the next writer, verify ok.
cp "$S" "$t/tail.cas"; head -c 5000 /dev/urandom >> "$t/tail.cas"
check "a torn tail is not damage" '"$CAIRN" verify --store "$t/tail.cas" | grep -q "^ok: 6 payloads"'
check "the next writer cuts it" '"$CAIRN" put --store "$t/tail.cas" "$t/p1" > /dev/null && [ "$(stat -c %s "$t/tail.cas")" = "$(stat -c %s "$S")" ]'

# Two writers: the second waits for the first (busy timeout) or, with 0, is refused.
head -c 30000000 /dev/urandom > "$t/big"
"$CAIRN" put --store "$S" "$t/big" > "$t/bigid" &
bg=$!
for i in $(seq 1 100); do [ -e "$S.cairn-lock" ] && break; sleep 0.02; done
check "a second writer with --busy-timeout 0 is refused, naming the file" '! "$CAIRN" put --store "$S" --busy-timeout 0 "$t/p1" 2>"$t/err" && grep -q "s.cas" "$t/err" || ! kill -0 $bg 2>/dev/null'
check "a second writer with the default timeout waits its turn" '"$CAIRN" put --store "$S" --no-name "$t/p2" > /dev/null'
wait $bg
check "the first writer finished" '"$CAIRN" get --store "$S" "$(cat "$t/bigid")" -o "$t/bigout" && cmp -s "$t/bigout" "$t/big"'
rm -rf "$t"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
