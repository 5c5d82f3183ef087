#!/usr/bin/env bash
# 2026-12-02 - tests/cli/mem_gate.sh TMPDIR - `cairn mem gate` and `cairn eph bench` (issue 18):
# the verdicts and reasons of the decision gate, its JSON, stdin, thresholds, bad usage (exit 2),
# and a tiny run of the ephemeral tier's bench whose JSON names every figure.
set -u
CAIRN=${CAIRN:?set CAIRN to the cairn binary}
t=${1:?tmp dir}/cli-mem-gate
rm -rf "$t" && mkdir -p "$t"
pass=0 fail=0
ok() { pass=$((pass+1)); echo "ok   $1"; }
ko() { fail=$((fail+1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }

check "ok is trivial" '"$CAIRN" mem gate ok | grep -q "^skip: trivial"'
check "a fact passes" '"$CAIRN" mem gate I moved to Lisbon in May | grep -q "^save: pass"'
check "one short word" '"$CAIRN" mem gate Paris | grep -q "^skip: short"'
check "thin text" '"$CAIRN" mem gate "well it is what it is and that is how it was with the weather and the rain" | grep -q "^skip: low content"'
check "empty text" '"$CAIRN" mem gate "  " | grep -q "^skip: empty"'
check "--json" '[ "$("$CAIRN" mem gate --json "thank you so much")" = "{\"save\":false,\"reason\":\"trivial\",\"bytes\":17,\"words\":4,\"content\":0,\"acks\":1,\"ratio\":0}" ]'
check "stdin" 'echo "My dog Biscuit turned three yesterday" | "$CAIRN" mem gate --json - | grep -q "\"save\":true"'
head -c 3000000 /dev/zero | tr "\0" "a" > "$t/huge.txt"
check "huge text from stdin: too long" '"$CAIRN" mem gate - < "$t/huge.txt" | grep -q "^skip: too long"'
check "--min-bytes and --min-content" '"$CAIRN" mem gate --min-bytes 3 --min-content 1 Paris | grep -q "^save: pass"'
check "--min-ratio off" '"$CAIRN" mem gate --min-ratio -1 "well it is what it is and that is how it was with the weather and the rain" | grep -q "^save: pass"'
check "no text: usage (2)" '"$CAIRN" mem gate 2>/dev/null; [ $? = 2 ]'
check "unknown option: usage (2)" '"$CAIRN" mem gate --nope x 2>/dev/null; [ $? = 2 ]'
check "bad --min-ratio: usage (2)" '"$CAIRN" mem gate --min-ratio x y 2>/dev/null; [ $? = 2 ]'
check "help lists mem gate" '"$CAIRN" help mem gate | grep -q "min-ratio"'
check "eph bench --json" '"$CAIRN" eph bench --n 300 --dim 8 --rounds 1 --json > "$t/b.json" && for k in set_ns get_ns miss_ns delete_ns set_emb_ns search_ms gate_trivial_ns gate_pass_ns observe_every_ns observe_shift_save_ns; do grep -q "\"$k\":[0-9]" "$t/b.json" || exit 1; done'
check "eph bench --n 1: usage (2)" '"$CAIRN" eph bench --n 1 2>/dev/null; [ $? = 2 ]'
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
