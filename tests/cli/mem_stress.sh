#!/usr/bin/env bash
# tests/cli/mem_stress.sh TMPDIR - many processes on one memory store (issue 16): 4 writers (loops
# of `cairn mem add`, each open takes the writer lock, waits with --busy-timeout, commits and
# checkpoints at close) and 4 readers (`cairn mem search` / `cairn mem stats` loops) for
# STRESS_SECONDS (default 10; 60 for the long run). At the end every acknowledged add is in the
# store (found by its unique word), no reader ever failed, the count a reader saw never went
# down (each open sees one whole committed state), and `cairn mem verify` passes.
set -u
CAIRN=${CAIRN:?set CAIRN to the cairn binary}
t=${1:?tmp dir}/cli-mem-stress
secs=${STRESS_SECONDS:-10}
rm -rf "$t" && mkdir -p "$t"
S="$t/s.mem"
fail=0
ko() { echo "FAIL $1"; fail=1; }
"$CAIRN" mem add "$S" "stress seed memory" >/dev/null || ko "create the store"
end=$(( $(date +%s) + secs ))

writer() { # $1: writer number; acks go to $t/ack.$1 once `add` exited 0
  local i=0
  while [ "$(date +%s)" -lt "$end" ]; do
    i=$((i+1))
    if "$CAIRN" mem add "$S" "stress writer $1 word u$1x$i" --session "w$1" --busy-timeout 60000 >/dev/null 2>>"$t/werr.$1"; then
      echo "u$1x$i" >> "$t/ack.$1"
    else
      echo "add u$1x$i failed" >> "$t/werr.$1"
    fi
  done
}
reader() { # $1: reader number; any failure or a count going down is an error
  local last=0 n
  while [ "$(date +%s)" -lt "$end" ]; do
    if [ $(( RANDOM % 2 )) = 0 ]; then
      "$CAIRN" mem search "$S" "stress word" --k 3 --mode bm25 >/dev/null 2>>"$t/rerr.$1" || echo "search failed" >> "$t/rerr.$1"
    else
      n=$("$CAIRN" mem stats "$S" 2>>"$t/rerr.$1" | awk '/^memories/ {print $2}')
      if [ -z "$n" ]; then echo "stats failed" >> "$t/rerr.$1"
      elif [ "$n" -lt "$last" ]; then echo "count went down: $last then $n" >> "$t/rerr.$1"
      else last=$n; fi
    fi
  done
}
for k in 1 2 3 4; do : > "$t/ack.$k"; : > "$t/werr.$k"; : > "$t/rerr.$k"; done
for k in 1 2 3 4; do writer $k & reader $k & done
wait
nAck=$(cat "$t"/ack.* | wc -l)
[ "$nAck" -gt 8 ] || ko "only $nAck adds were acknowledged"
for k in 1 2 3 4; do
  [ -s "$t/werr.$k" ] && { ko "writer $k: $(head -3 "$t/werr.$k")"; }
  [ -s "$t/rerr.$k" ] && { ko "reader $k: $(head -3 "$t/rerr.$k")"; }
done
"$CAIRN" mem verify "$S" > "$t/verify" || ko "verify: $(cat "$t/verify")"
n=$("$CAIRN" mem stats "$S" | awk '/^memories/ {print $2}')
[ "$n" = $((nAck + 1)) ] || ko "the store holds $n memories, $((nAck + 1)) were acknowledged"
# every acknowledged add, by its unique word (one search lists a writer's memories by session)
for k in 1 2 3 4; do
  "$CAIRN" mem search "$S" "stress writer $k" --mode bm25 --k 1000 --filter "{\"session\":\"w$k\"}" --json > "$t/found.$k"
  while read -r w; do grep -q "word $w\"" "$t/found.$k" || { [ "$(wc -l < "$t/ack.$k")" -ge 1000 ] && "$CAIRN" mem search "$S" "$w" --mode bm25 --k 1 --json | grep -q "word $w\""; } || { ko "acknowledged add $w is missing"; break; }; done < "$t/ack.$k"
done
[ "$fail" = 0 ] && echo "ok   mem stress: $nAck acknowledged adds from 4 writers beside 4 readers for ${secs}s, all present, verify ok"
exit $fail
