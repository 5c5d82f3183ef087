#!/usr/bin/env bash
# 2026-12-02
# tests/interop/locks_h5py.sh LOCKPROBE TMPDIR - cairn's locks against libhdf5's (h5py, which
# takes flock on open unless HDF5_USE_FILE_LOCKING=FALSE), in both directions, through
# tests/interop/lockprobe.c (opens a file with cairn_open + cairn_file_lock, prints OK/BUSY):
#   h5py holding a file in 'a' mode makes a cairn writer and a cairn reader BUSY;
#   a cairn writer makes h5py's open fail in 'r' and 'a'; a cairn reader lets h5py read, not write;
#   a cairn reader and a cairn writer together; HDF5_USE_FILE_LOCKING=FALSE on both sides.
set -u
PROBE=${1:?lockprobe}; t=${2:?tmp}/locks-h5py; PY=${PYTHON:-/usr/bin/python3}
rm -rf "$t" && mkdir -p "$t"
pass=0 fail=0
ok() { pass=$((pass+1)); echo "ok   $1"; }
ko() { fail=$((fail+1)); echo "FAIL $1"; }
expect() { # name want(OK|BUSY) got-line
  if [[ "$3" == "$2"* ]]; then ok "$1"; else ko "$1 (got: $3)"; fi
}
F="$t/f.h5"
"$PY" -c "import h5py, numpy; f = h5py.File('$F', 'w'); f['x'] = numpy.arange(10); f.close()" || { echo "FAIL h5py cannot write"; exit 1; }

# h5py holds the file open (mode $1) until its stdin closes; sets got to "open" or the error.
h5hold() {
  coproc H5 { "$PY" -u -c "
import sys, h5py
try:
    f = h5py.File('$F', '$1')
except OSError as e:
    print('fail', e); sys.exit(1)
print('open'); sys.stdin.read(); f.close()"; }
  read -r got <&"${H5[0]}"
}
h5stop() { exec {H5[1]}>&-; wait "$H5_PID" 2>/dev/null; }
h5try() { # mode -> "open" or "fail ..."
  "$PY" -c "
import h5py
try:
    h5py.File('$F', '$1').close(); print('open')
except OSError as e:
    print('fail', e)" 2>&1 | tail -1
}
# lockprobe holds a lock until its stdin closes; sets got to its first line
phold() { coproc P { "$PROBE" "$1" "$F" --hold; }; read -r got <&"${P[0]}"; }
pstop() { exec {P[1]}>&-; wait "$P_PID" 2>/dev/null; }

# 1. h5py writing ('a'): cairn writer and reader BUSY
h5hold a; expect "h5py holds the file for writing" open "$got"
expect "cairn writer BUSY beside an h5py writer" BUSY "$("$PROBE" write "$F")"
expect "cairn reader BUSY beside an h5py writer" BUSY "$("$PROBE" read "$F")"
h5stop
expect "cairn writer OK once h5py closed" OK "$("$PROBE" write "$F")"

# 2. h5py reading ('r'): a cairn writer BUSY (as a libhdf5 writer would be), a reader fine
h5hold r; expect "h5py holds the file for reading" open "$got"
expect "cairn writer BUSY beside an h5py reader" BUSY "$("$PROBE" write "$F")"
expect "cairn reader OK beside an h5py reader" OK "$("$PROBE" read "$F")"
h5stop

# 3. a cairn writer: h5py can open it neither to write nor to read
phold write; expect "cairn holds the writer lock" OK "$got"
expect "h5py 'a' fails beside a cairn writer" fail "$(h5try a)"
expect "h5py 'r' fails beside a cairn writer" fail "$(h5try r)"
expect "a second cairn writer BUSY" BUSY "$("$PROBE" write "$F")"
expect "a cairn reader OK beside the cairn writer" OK "$("$PROBE" read "$F")"
pstop
expect "h5py 'a' opens once the cairn writer is gone" open "$(h5try a)"

# 4. a cairn reader: h5py may read, not write; a cairn writer may join
phold read; expect "cairn holds a reader lock" OK "$got"
expect "h5py 'r' opens beside a cairn reader" open "$(h5try r)"
expect "h5py 'a' fails beside a cairn reader" fail "$(h5try a)"
expect "a cairn writer OK beside a cairn reader" OK "$("$PROBE" write "$F")"
pstop

# 5. kill -9 of a cairn writer frees the file for h5py
coproc K { "$PROBE" write "$F" --hold; }; read -r line <&"${K[0]}"
kill -9 "$K_PID"; wait "$K_PID" 2>/dev/null
expect "h5py 'a' opens after kill -9 of the cairn writer" open "$(h5try a)"
expect "cairn writer OK after kill -9 of the last one (stale lock file broken)" OK "$("$PROBE" write "$F")"

# 6. HDF5_USE_FILE_LOCKING=FALSE: neither side takes flock
export HDF5_USE_FILE_LOCKING=FALSE
h5hold a; expect "h5py without file locking holds the file" open "$got"
expect "cairn writer OK with HDF5_USE_FILE_LOCKING=FALSE" OK "$("$PROBE" write "$F")"
h5stop
unset HDF5_USE_FILE_LOCKING

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
