#!/usr/bin/env bash
# tests/cli/mem_kill.sh TMPDIR - kill -9 during concurrent writers (issue 16): rounds of 3 `cairn
# mem add` loops on one store, all killed with SIGKILL at a random moment (mid-commit, mid-
# checkpoint, holding the lock or waiting for it); then the store opens, `cairn mem verify`
# passes and every add acknowledged so far (the command exited 0) is there. A writer that died
# leaves its lock file behind: the next one breaks it (same host, dead pid).
set -u
CAIRN=${CAIRN:?set CAIRN to the cairn binary}
t=${1:?tmp dir}/cli-mem-kill
rounds=${KILL_ROUNDS:-4}
rm -rf "$t" && mkdir -p "$t"
S="$t/s.mem"
fail=0
ko() { echo "FAIL $1"; fail=1; }
: > "$t/ack"
writer() { # acks go to $t/ack.$1 only after `add` exited 0
  local i=0
  while :; do
    i=$((i+1))
    "$CAIRN" mem add "$S" "kill round $2 writer $1 word r$2w$1x$i" --busy-timeout 60000 >/dev/null 2>>"$t/werr" && echo "r$2w$1x$i" >> "$t/ack.$1"
  done
}
set -m # each loop in its own process group: kill -9 reaches the cairn process inside it
for r in $(seq 1 "$rounds"); do
  pids=()
  for k in 1 2 3; do writer $k "$r" & pids+=($!); done
  sleep "$(( (RANDOM % 10) + 5 ))e-1" 2>/dev/null || sleep 1
  for p in "${pids[@]}"; do kill -9 -- -"$p" 2>/dev/null; done
  wait 2>/dev/null
  cat "$t"/ack.* >> "$t/ack" 2>/dev/null; rm -f "$t"/ack.*
  "$CAIRN" mem verify "$S" > "$t/verify.$r" 2>&1 || ko "round $r: verify: $(cat "$t/verify.$r")"
  "$CAIRN" mem stats "$S" > "$t/stats.$r" || ko "round $r: the store does not open"
done
set +m
nAck=$(wc -l < "$t/ack")
[ "$nAck" -gt 0 ] || ko "no add was acknowledged"
"$CAIRN" mem search "$S" "kill round" --mode bm25 --k 1000 --json > "$t/found"
while read -r w; do grep -q "word $w\"" "$t/found" || "$CAIRN" mem search "$S" "$w" --mode bm25 --k 1 --json | grep -q "word $w\"" || { ko "acknowledged add $w is missing"; break; }; done < "$t/ack"
"$CAIRN" mem add "$S" "after the kills" >/dev/null || ko "a writer after the kills"
[ "$fail" = 0 ] && echo "ok   mem kill -9: $rounds rounds, $nAck acknowledged adds all present, verify ok"
exit $fail
