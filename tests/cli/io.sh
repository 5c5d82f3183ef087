#!/usr/bin/env bash
# 2026-12-02 - tests/cli/io.sh TMPDIR - the CLI never destroys input (issue 16 item 4), driving the
# real binary: "-" is stdin/stdout and pipes, FIFOs and <(...) are read to their end; an output
# that is the input is refused with zstd's words; an existing output is replaced only with -f; a
# failed command leaves no output file; a 0-byte file is not a zstd frame; frames of the zstd
# CLI whose content is a multiple of 128 KiB decode (and one byte off); `h5 dumpall` exits 1
# when an object fails; `cairn help` / `--help`.
set -u
CAIRN=${CAIRN:?set CAIRN to the cairn binary}
t=${1:?tmp dir}/cli-io
rm -rf "$t" && mkdir -p "$t"
pass=0 fail=0
ok() { pass=$((pass+1)); echo "ok   $1"; }
ko() { fail=$((fail+1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }
has() { "$CAIRN" help 2>/dev/null | grep -q "^  $1 "; }

seq 1 300000 > "$t/text.txt"
head -c 700000 /dev/urandom > "$t/rand.bin"
sum=$(sha256sum < "$t/text.txt" | cut -d' ' -f1)

# ---- B2: "-", pipes, FIFOs, <(...)
check "hash - reads stdin" '[ "$("$CAIRN" hash - < "$t/text.txt")" = "$sum  -" ]'
check "hash of a pipe (stdin)" '[ "$(cat "$t/text.txt" | "$CAIRN" hash - | cut -d" " -f1)" = "$sum" ]'
check "hash <(cat f) is the file's hash" '[ "$("$CAIRN" hash <(cat "$t/text.txt") | cut -d" " -f1)" = "$sum" ]'
mkfifo "$t/fifo"
cat "$t/text.txt" > "$t/fifo" &
check "hash of a FIFO" '[ "$("$CAIRN" hash "$t/fifo" | cut -d" " -f1)" = "$sum" ]'
wait
check "zstd - -o - (pipe to pipe) decodes with zstd" 'cat "$t/text.txt" | "$CAIRN" zstd - -o - 2>/dev/null | zstd -q -d -c | cmp -s - "$t/text.txt"'
check "zstd <(...) -o F" '"$CAIRN" zstd <(cat "$t/text.txt") -o "$t/p.zst" 2>/dev/null && zstd -q -d -c "$t/p.zst" | cmp -s - "$t/text.txt"'
cat "$t/text.txt" > "$t/fifo" &
check "zstd FIFO -o F" '"$CAIRN" zstd "$t/fifo" -o "$t/fifo.zst" 2>/dev/null && zstd -q -d -c "$t/fifo.zst" | cmp -s - "$t/text.txt"'
wait
check "unzstd - -o - from the zstd CLI" 'zstd -q -c "$t/text.txt" | "$CAIRN" unzstd - -o - 2>/dev/null | cmp -s - "$t/text.txt"'
check "gzip - -o - | gunzip - -o -" 'cat "$t/rand.bin" | "$CAIRN" gzip - -o - 2>/dev/null | "$CAIRN" gunzip - -o - 2>/dev/null | cmp -s - "$t/rand.bin"'
check "gzip of a pipe decodes with gzip" 'cat "$t/rand.bin" | "$CAIRN" gzip - -o "$t/p.gz" 2>/dev/null && gzip -d -c "$t/p.gz" | cmp -s - "$t/rand.bin"'
if has compress; then
  check "compress <(...) | decompress - -o -" '"$CAIRN" compress <(cat "$t/text.txt") -o - | "$CAIRN" decompress - -o - | cmp -s - "$t/text.txt"'
  check "compress - of a pipe is not empty" 'cat "$t/text.txt" | "$CAIRN" compress - -o "$t/p.zl" && "$CAIRN" decompress "$t/p.zl" -o "$t/p.back" && cmp -s "$t/p.back" "$t/text.txt"'
fi
if has put; then
  S="$t/s.cas"
  id=$(cat "$t/rand.bin" | "$CAIRN" put --store "$S" -)
  idf=$("$CAIRN" put --store "$t/f.cas" "$t/rand.bin")
  check "put - (a pipe) stores the whole input" '[ "$id" = "$idf" ] && "$CAIRN" get --store "$S" "$id" -o - | cmp -s - "$t/rand.bin"'
  check "put <(...)" '[ "$("$CAIRN" put --store "$S" --no-name <(cat "$t/rand.bin"))" = "$idf" ]'
  check "get -o - writes stdout" '"$CAIRN" get --store "$S" "$id" --range 10:20 -o - | cmp -s - <(tail -c +11 "$t/rand.bin" | head -c 10)'
  check "get -o STORE is refused, the store intact" '! "$CAIRN" get --store "$S" "$id" -o "$S" 2>"$t/err" && grep -q "Refusing to open an output file which will overwrite the input file" "$t/err" && "$CAIRN" verify --store "$S" >/dev/null'
  check "failed get leaves no output" '! "$CAIRN" get --store "$S" 0000000000000000000000000000000000000000000000000000000000000000 -o "$t/nope.out" 2>/dev/null && [ ! -e "$t/nope.out" ] && ! ls "$t"/nope.out.* 2>/dev/null'
fi
if has mem; then
  printf '{"text":"the cat sat on the mat","session":"a"}\n{"text":"dogs bark at night","session":"b"}\n' > "$t/m.jsonl"
  check "mem add --jsonl - reads stdin" 'cat "$t/m.jsonl" | "$CAIRN" mem add "$t/a.mem" --jsonl - 2>"$t/err" && grep -q "^2 memories added" "$t/err" && "$CAIRN" mem stats "$t/a.mem" | grep -q "^memories *2$"'
  check "mem add --jsonl <(...)" '"$CAIRN" mem add "$t/b.mem" --jsonl <(cat "$t/m.jsonl") 2>"$t/err" && grep -q "^2 memories added" "$t/err"'
fi

# ---- B1: output == input, existing output, no partial output
cp "$t/text.txt" "$t/in.txt"
check "zstd IN -o IN is refused with zstd's words, IN intact" '! "$CAIRN" zstd "$t/in.txt" -o "$t/in.txt" 2>"$t/err" && grep -q "Refusing to open an output file which will overwrite the input file" "$t/err" && cmp -s "$t/in.txt" "$t/text.txt"'
check "same file by another path (./, ../) is refused" '! "$CAIRN" zstd "$t/in.txt" -o "$t/../cli-io/./in.txt" -f 2>"$t/err" && grep -q "Refusing" "$t/err" && cmp -s "$t/in.txt" "$t/text.txt"'
ln -f "$t/in.txt" "$t/hard.txt"
check "a hard link to the input is refused (device+inode)" '! "$CAIRN" gzip "$t/in.txt" -o "$t/hard.txt" -f 2>"$t/err" && grep -q "Refusing" "$t/err" && cmp -s "$t/in.txt" "$t/text.txt"'
if has repack; then
  check "repack IN IN is refused" '"$CAIRN" h5w new "$t/r.h5" && ! "$CAIRN" repack "$t/r.h5" "$t/r.h5" 2>"$t/err" && grep -q "Refusing" "$t/err" && "$CAIRN" h5w verify "$t/r.h5" >/dev/null'
fi
echo keep > "$t/exists"
check "existing output without -f: refused, kept" '! "$CAIRN" zstd "$t/text.txt" -o "$t/exists" 2>"$t/err" && grep -q "already exists" "$t/err" && [ "$(cat "$t/exists")" = keep ]'
check "existing output with -f: replaced" '"$CAIRN" zstd -f "$t/text.txt" -o "$t/exists" 2>/dev/null && zstd -q -d -c "$t/exists" | cmp -s - "$t/text.txt"'
check "unzstd to an existing output needs -f" '! "$CAIRN" unzstd "$t/exists" -o "$t/in.txt" 2>/dev/null && "$CAIRN" unzstd "$t/exists" -o "$t/in.txt" -f 2>/dev/null && cmp -s "$t/in.txt" "$t/text.txt"'
head -c 5000 "$t/exists" > "$t/trunc.zst"
check "failed unzstd leaves no output (nor a temporary)" '! "$CAIRN" unzstd "$t/trunc.zst" -o "$t/t.out" 2>/dev/null && [ ! -e "$t/t.out" ] && [ -z "$(ls "$t" | grep cairn-part)" ]'
echo old > "$t/t2.out"
check "failed unzstd -f keeps the old output" '! "$CAIRN" unzstd -f "$t/trunc.zst" -o "$t/t2.out" 2>/dev/null && [ "$(cat "$t/t2.out")" = old ]'
check "failed gunzip leaves no output" '! "$CAIRN" gunzip "$t/trunc.zst" -o "$t/g.out" 2>/dev/null && [ ! -e "$t/g.out" ]'
check "-o /dev/null (a device) is written in place" '"$CAIRN" zstd "$t/text.txt" -o /dev/null 2>/dev/null && [ -c /dev/null ]'

# ---- B2: a 0-byte file is not a zstd frame
: > "$t/empty.zst"
check "0-byte zstd: error, exit 1, no output" '"$CAIRN" unzstd "$t/empty.zst" -o "$t/e.out" 2>"$t/err"; [ $? = 1 ] && grep -q "empty input" "$t/err" && [ ! -e "$t/e.out" ]'
check "0 bytes from a pipe: the same" '! "$CAIRN" unzstd - -o - < /dev/null 2>/dev/null'
check "empty input compresses to a valid frame" '"$CAIRN" zstd - -o "$t/e2.zst" < /dev/null 2>/dev/null && [ "$(zstd -q -d -c "$t/e2.zst" | wc -c)" = 0 ]'

# ---- B3: frames of the zstd CLI whose content is a multiple of 128 KiB (and one byte off)
for n in 131072 131071 131073 262144 262143 262145 1048576 1048575 1048577; do
  for kind in zero text rand; do
    case $kind in
      zero) head -c $n /dev/zero > "$t/b3" ;;
      text) seq 1 10000000 | head -c $n > "$t/b3" ;;
      rand) head -c $n /dev/urandom > "$t/b3" ;;
    esac
    zstd -q -f "$t/b3" -o "$t/b3.zst"
    rm -f "$t/b3.out"
    if "$CAIRN" unzstd "$t/b3.zst" -o "$t/b3.out" 2>"$t/err" && cmp -s "$t/b3.out" "$t/b3"; then pass=$((pass+1))
    else ko "unzstd of a zstd CLI frame of $n bytes ($kind): $(cat "$t/err")"; fi
  done
done
ok "unzstd of zstd CLI frames at 128 KiB, 256 KiB, 1 MiB and one byte off (27 frames)"
head -c 262144 /dev/zero > "$t/b3"
zstd -q -f "$t/b3" -o "$t/b3.zst"
check "two concatenated 256 KiB frames" 'cat "$t/b3.zst" "$t/b3.zst" | "$CAIRN" unzstd - -o - 2>/dev/null | cmp -s - <(cat "$t/b3" "$t/b3")'

# ---- B4: h5 dumpall exits non-zero when an object fails
if has h5w; then
  "$CAIRN" h5w new "$t/d.h5" && "$CAIRN" h5w dataset "$t/d.h5" /ok i32 3 1 2 3 &&
    "$CAIRN" h5w dataset "$t/d.h5" /z i32 64 --chunk 64 --filter shuffle,deflate:6 $(seq 1 64) && "$CAIRN" h5w append "$t/d.h5" /ok 4 2>/dev/null
  check "dumpall of a good file exits 0" '"$CAIRN" h5 dumpall "$t/d.h5" > "$t/d.jsonl" && ! grep -q "\"error\"" "$t/d.jsonl"'
  # damage the deflate stream of /z's chunk (its zlib header: 78 xx) so that one object fails
  python3 - "$t/d.h5" "$t/bad.h5" <<'PYEOF'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
i = b.find(b'\x78\x9c') if b.find(b'\x78\x9c') >= 0 else b.find(b'\x78\x5e')
assert i > 0, 'no deflate chunk found'
for k in range(i + 2, min(i + 12, len(b))): b[k] ^= 0xff
open(sys.argv[2], 'wb').write(b)
PYEOF
  check "dumpall with a failing object exits 1, the others still printed" '"$CAIRN" h5 dumpall "$t/bad.h5" > "$t/bad.jsonl" 2>"$t/err"; [ $? = 1 ] && grep -q "\"error\"" "$t/bad.jsonl" && grep -q "\"path\":\"/ok\"" "$t/bad.jsonl" && grep -q "failed" "$t/err"'
fi

# ---- help from the table
check "help lists families" '"$CAIRN" help | grep -q "^hashing & compression:" && "$CAIRN" help | grep -q "^general:"'
check "help CMD and CMD --help print the same" '[ "$("$CAIRN" help zstd)" = "$("$CAIRN" zstd --help)" ] && "$CAIRN" help zstd | grep -q -- "-o OUT"'
check "help text names no source file" '! "$CAIRN" help | grep -q "\.c\b"'
if has h5w; then
  check "help h5w lists every subcommand" '[ "$("$CAIRN" help h5w | grep -c "^  h5w ")" = 9 ]'
  check "h5w dataset --help" '"$CAIRN" h5w dataset --help | grep -q "^usage: cairn h5w dataset FILE PATH TYPE DIMS"'
  check "h5 ls -h (exit 0)" '"$CAIRN" h5 ls -h | grep -q "^usage: cairn h5 ls"'
fi
if has mem; then check "mem add --help" '"$CAIRN" mem add --help | grep -q -- "--jsonl"'; fi
check "help of an unknown command exits 2" '"$CAIRN" help frobnicate 2>/dev/null; [ $? = 2 ]'

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
