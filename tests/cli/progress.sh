#!/usr/bin/env bash
# 2026-12-02 - tests/cli/progress.sh TMPDIR: the progress line (cli/progress.c) of the long
# commands (repack, eval locomo, store put/get/verify, zstd, zl compress), read from a pseudo-
# terminal on stderr while stdout is a pipe: the percentages never go down and end at 100%, the
# done/total counts agree with them, -q draws nothing, --json output on stdout stays one clean
# JSON document, and a non-terminal stderr gets nothing without -v (a line per second with -v).
# Informational notes (mem add/import/delete/compact, store ls) obey -q. Needs python3 with h5py.
set -u
CAIRN=${CAIRN:?set CAIRN to the cairn binary}
PY=${PYTHON:-/usr/bin/python3}
here=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d "${1:-/tmp}/progress.XXXX")
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

# inputs: an HDF5 file of ~100 MiB logical data (chunked+gzip, contiguous, a small group) and 24 MiB of bytes
"$PY" - "$t/big.h5" <<'EOF' || { echo "FAIL h5py missing"; exit 1; }
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], 'w') as f:
    f.create_dataset('a', data=np.arange(12_000_000, dtype='f8').reshape(3000, 4000), chunks=(100, 4000), compression='gzip', compression_opts=1)
    f.create_dataset('b', data=np.arange(3_000_000, dtype='i4'))
    f['g/c'] = np.ones((10, 10))
EOF
head -c 25165824 /dev/urandom >"$t/rand.bin"
# le-u32 data the zl profile compresses
"$PY" -c "import numpy as np,sys; np.arange(6_000_000,dtype='<u4').tofile(sys.argv[1])" "$t/u32.bin"

# run ARGS with stderr on a pty and stdout a pipe; writes $t/out (stdout) and $t/tty (the pty's bytes)
ptyrun() {
  "$PY" - "$t" "$@" <<'EOF'
import os, pty, subprocess, sys
t, argv = sys.argv[1], sys.argv[2:]
m, s = pty.openpty()
p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=s)
os.close(s)
buf = b''
while True:
    try:
        k = os.read(m, 65536)
    except OSError:
        break
    if not k: break
    buf += k
out = p.stdout.read()
rc = p.wait()
open(t + '/out', 'wb').write(out)
open(t + '/tty', 'wb').write(buf)
sys.exit(rc)
EOF
}
# the progress lines in $t/tty for LABEL rise monotonically to 100%, their done/total agree, >= N lines
rising() {
  "$PY" - "$t/tty" "$1" "${2:-2}" <<'EOF'
import re, sys
raw = open(sys.argv[1], 'rb').read().decode('utf-8', 'replace')
label, nmin = sys.argv[2], int(sys.argv[3])
lines = [l for l in re.split(r'[\r\n]', raw.replace('\x1b[K', '')) if l.startswith('cairn ')]
pat = re.compile(r'^cairn ' + re.escape(label) + r':\s+(\d+)% ([\d.]+)(?: MiB)?/([\d.]+)(?: MiB)?(, [\d.]+(?: MiB)?/s)?(, ETA \d+ s)?$')
got = []
for l in lines:
    mt = pat.match(l)
    if not mt: sys.exit('not a progress line: %r' % l)
    pct, done, total = int(mt.group(1)), float(mt.group(2)), float(mt.group(3))
    if total > 0 and abs(pct - int(done * 100 / total)) > 1: sys.exit('percent %d disagrees with %s/%s' % (pct, done, total))
    got.append((pct, done, total))
if len(got) < nmin: sys.exit('only %d progress lines' % len(got))
if any(b[0] < a[0] or b[1] < a[1] for a, b in zip(got, got[1:])): sys.exit('not monotonic: %r' % got)
if len(set(g[2] for g in got)) != 1: sys.exit('total changed: %r' % got)
if got[-1][0] != 100 or got[-1][1] != got[-1][2]: sys.exit('does not end at 100%%: %r' % got[-1:])
if '\r\x1b[K' not in raw[raw.rfind('100%'):]: sys.exit('the line is not cleared at the end')
EOF
}

ptyrun "$CAIRN" repack -f "$t/big.h5" "$t/out.h5"
check "repack: exit 0 on a pty" '[ $? -eq 0 ]'
check "repack: fractions rise to 100% (>= 5 lines for ~100 MiB)" 'rising repack 5'
check "repack: the copy holds the same data (h5py)" '"$PY" -c "
import h5py,numpy as np,sys
a,b=h5py.File(sys.argv[1]),h5py.File(sys.argv[2])
assert all(np.array_equal(a[k][...],b[k][...]) for k in (\"a\",\"b\",\"g/c\"))" "$t/big.h5" "$t/out.h5"'
ptyrun "$CAIRN" -q repack -f "$t/big.h5" "$t/out.h5"
check "repack -q: nothing on the terminal" '[ $? -eq 0 ] && [ ! -s "$t/tty" ]'
ptyrun "$CAIRN" repack -f "$t/big.h5" "$t/out.h5" -q
check "repack ... -q (after the operands): nothing" '[ ! -s "$t/tty" ]'
"$CAIRN" repack -f "$t/big.h5" "$t/out.h5" 2>"$t/err"
check "repack, stderr a file: no progress without -v" '[ ! -s "$t/err" ]'
"$CAIRN" -v repack -f "$t/big.h5" "$t/out.h5" 2>"$t/err"
check "repack -v, stderr a file: whole lines, the last 100%" 'grep -c "^cairn repack: " "$t/err" | grep -qv "^0$" && grep "^cairn repack: " "$t/err" | tail -1 | grep -q " 100% " && ! grep -q $'"'"'\r'"'"' "$t/err"'

loc=$here/../shared/data/locomo/locomo_dev.json
[ -f "$loc" ] || loc=/work/shared/data/locomo/locomo_dev.json
ptyrun "$CAIRN" eval locomo "$loc" --json
check "eval locomo --json: exit 0" '[ $? -eq 0 ]'
check "eval locomo: turns and questions rise to 100%" 'rising "eval locomo" 2'
check "eval locomo --json: stdout is one JSON object per mode, no progress in it" '"$PY" -c "import json,sys; L=[json.loads(l) for l in open(sys.argv[1])]; assert len(L)==4 and all(d[\"questions\"]>0 for d in L)" "$t/out" && ! grep -q "%" "$t/out"'
ptyrun "$CAIRN" eval locomo "$loc" -q
check "eval locomo -q: nothing on the terminal, the table on stdout" '[ ! -s "$t/tty" ] && grep -q "LoCoMo retrieval" "$t/out"'

S=$t/s.cas
ptyrun "$CAIRN" store put --store "$S" "$t/rand.bin"
check "store put: fractions rise to 100%" 'rising put 2'
id=$(head -1 "$t/out" | cut -c1-64)
ptyrun "$CAIRN" store get --store "$S" "$id" -o "$t/back.bin"
check "store get: fractions rise to 100%, bytes equal" 'rising get 2 && cmp -s "$t/rand.bin" "$t/back.bin"'
ptyrun "$CAIRN" store verify --store "$S"
check "store verify: fractions rise to 100%" 'rising verify 2'
ptyrun "$CAIRN" -q store verify --store "$S"
check "store verify -q: nothing on the terminal" '[ ! -s "$t/tty" ] && grep -q "^ok" "$t/out"'
ptyrun "$CAIRN" zstd "$t/rand.bin" -o "$t/r.zst" -f
check "zstd: fractions rise to 100%" 'rising zstd 2'
ptyrun "$CAIRN" zl compress -p le-u32 "$t/u32.bin" -o "$t/u.zl" -f
check "zl compress: fractions rise to 100%" 'rising compress 2'

# notes obey -q (and appear without it, so the checks can fail)
M=$t/m.h5
printf '{"text":"alpha one"}\n{"text":"beta two"}\n' >"$t/in.jsonl"
"$CAIRN" mem add "$M" --jsonl "$t/in.jsonl" --text-only >/dev/null 2>"$t/err"
check "mem add --jsonl: a note without -q" 'grep -q "memories added" "$t/err"'
"$CAIRN" -q mem add "$M" --jsonl "$t/in.jsonl" >/dev/null 2>"$t/err"
check "mem add --jsonl -q: no note" '[ ! -s "$t/err" ]'
"$CAIRN" mem add "$M" "alpha one" -q >/dev/null 2>"$t/err"
check "mem add (exact duplicate) -q: no note" '[ ! -s "$t/err" ]'
"$CAIRN" mem add "$M" "alpha one" >/dev/null 2>"$t/err"
check "mem add (exact duplicate): the note without -q" 'grep -q "already stored" "$t/err"'
"$CAIRN" mem export "$M" >"$t/exp.jsonl"
note2() { # NAME ARGS...: a note on stderr, and none with -q (ARGS run twice: first plain, then -q)
  local n=$1; shift
  "$CAIRN" "$@" >/dev/null 2>"$t/err1"
  [ "$n" = import ] && rm -f "$t/m2.h5"
  [ "$n" = delete ] && set -- "${@:1:$(($# - 1))}" 2
  "$CAIRN" -q "$@" >/dev/null 2>"$t/err2"
  check "mem $n: a note, none with -q" '[ -s "$t/err1" ] && [ ! -s "$t/err2" ]'
}
note2 import mem import "$t/m2.h5" "$t/exp.jsonl"
note2 checkpoint mem checkpoint "$t/m2.h5"
note2 compact mem compact "$t/m2.h5"
note2 delete mem delete "$t/m2.h5" 1
"$CAIRN" store ls --store "$S" >/dev/null 2>"$t/err1"
"$CAIRN" store ls --store "$S" -q >/dev/null 2>"$t/err2"
check "store ls: the summary note, none with -q" 'grep -q payloads "$t/err1" && [ ! -s "$t/err2" ]'

rm -rf "$t"
exit $fail
