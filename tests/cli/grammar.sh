#!/usr/bin/env bash
# 2026-12-02 - tests/cli/grammar.sh TMPDIR: the CLI's conventions (cli/cli.c's table and
# dispatcher): `cairn help CMD`, `cairn CMD --help` and `cairn FAMILY SUB --help` for every row;
# the noun-verb forms and today's aliases give the same results; long and short spellings of
# options; -q / -v; --json refused where a command has no JSON output; unknown options and
# non-numeric values get exit 2, one line naming the command's help, and the command's usage;
# the examples of the help pages run as printed.
set -u
CAIRN=${CAIRN:?set CAIRN to the cairn binary}
case $CAIRN in /*) ;; *) CAIRN=$PWD/$CAIRN ;; esac
t=$(mktemp -d "${1:-/tmp}/grammar.XXXX")
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
# a refusal: exit 2, nothing on stdout, one line naming the problem and the help, then the usage
usage2() { "$CAIRN" "$@" >"$t/out" 2>"$t/err"; [ $? -eq 2 ] && [ ! -s "$t/out" ] && [ "$(wc -l <"$t/err")" -le 2 ] && head -1 "$t/err" | grep -q "see 'cairn help" && { [ "$(wc -l <"$t/err")" -eq 1 ] || sed -n 2p "$t/err" | grep -q '^usage: cairn '; }; }

# every command and subcommand has help both ways
tops=$("$CAIRN" help | awk '/^  [a-z0-9]+ / && $1 != "aliases:" {print $1}'; "$CAIRN" help | sed -n 's/^  aliases: //p' | tr ',' '\n' | awk '{print $1}')
n=0
for c in $tops; do
  "$CAIRN" help "$c" >"$t/h1" 2>&1 && "$CAIRN" "$c" --help >"$t/h2" 2>&1 && grep -q '^usage: cairn' "$t/h1" && cmp -s "$t/h1" "$t/h2" || { echo "FAIL help $c"; fail=1; }
  n=$((n + 1))
  for s in $(sed -n '/^subcommands/,$p' "$t/h1" | awk -v c="$c" '$1 == c {print $2}'); do
    "$CAIRN" help "$c" "$s" >"$t/h1" 2>&1 && "$CAIRN" "$c" "$s" --help >"$t/h2" 2>&1 && grep -q "^usage: cairn $c $s" "$t/h1" && cmp -s "$t/h1" "$t/h2" && grep -q -- '--quiet' "$t/h1" || { echo "FAIL help $c $s"; fail=1; }
    n=$((n + 1))
  done
done
check "help CMD and CMD --help print the same usage for all $n commands and subcommands" '[ $n -gt 40 ]'

# the examples of the help pages: the rows that have them, in the order cli.c lists them (one session in
# an empty folder, each using what the earlier ones wrote), all run and exit 0
ex_rows="h5w new,h5w dataset,h5w attr,h5 ls,h5 dump,h5 info,h5 repack,hash,store put,store ls,store get,store verify,zl compress,zl decompress,zstd,mem add,mem search,mem list,mem update,mem history,mem delete,mem stats"
mkdir -p "$t/ex" && : >"$t/ex.log"
nex=0
while IFS= read -r r; do
  # shellcheck disable=SC2086
  "$CAIRN" help $r | sed -n '/^examples:$/,/^$/p' | sed -n 's/^  cairn /cairn /p' >"$t/ex.cmds"
  [ -s "$t/ex.cmds" ] || { echo "FAIL help $r has no examples"; fail=1; }
  while IFS= read -r line; do
    case $line in "cairn $r "*) ;; *) echo "FAIL example of $r runs another command: $line"; fail=1 ;; esac
    (cd "$t/ex" && cairn() { "$CAIRN" "$@"; } && eval "$line") >>"$t/ex.log" 2>&1 || { echo "FAIL example: $line"; tail -3 "$t/ex.log"; fail=1; }
    nex=$((nex + 1))
  done <"$t/ex.cmds"
done < <(echo "$ex_rows" | tr ',' '\n')
# every help page, to count those with examples
pages() { for c in $tops; do "$CAIRN" help "$c"; for s in $("$CAIRN" help "$c" | sed -n '/^subcommands/,$p' | awk -v c="$c" '$1 == c {print $2}'); do "$CAIRN" help "$c" "$s"; done; done; }
nwith=$(pages | grep -c '^examples:$')
check "the $nex examples of the help pages ($nwith pages, aliases too) run in order in one folder" '[ $nex -ge 25 ] && cmp -s "$t/ex/copy.h5" "$t/ex/run.h5" && [ "$nwith" -ge 22 ]'

# noun-verb forms and their aliases
printf 'alpha beta gamma\n%.0s' $(seq 1 2000) > "$t/in.txt"
a=$("$CAIRN" store put --store "$t/s.cas" "$t/in.txt"); b=$("$CAIRN" put --store "$t/s2.cas" "$t/in.txt")
check "store put == put" '[ -n "$a" ] && [ "$a" = "$b" ]'
check "store ls == ls --store" '[ "$("$CAIRN" store ls --store "$t/s.cas" 2>/dev/null)" = "$("$CAIRN" ls --store "$t/s.cas" 2>/dev/null)" ]'
id=${a%% *}
"$CAIRN" store get --store "$t/s.cas" "$id" --output "$t/g1" && "$CAIRN" get --store "$t/s.cas" "$id" -o "$t/g2"
check "store get --output == get -o" 'cmp -s "$t/g1" "$t/in.txt" && cmp -s "$t/g2" "$t/in.txt"'
"$CAIRN" zl compress -p u8 --level 3 "$t/in.txt" --output "$t/f1" && "$CAIRN" compress --profile u8 -l 3 "$t/in.txt" -o "$t/f2"
check "zl compress == compress (long and short options)" 'cmp -s "$t/f1" "$t/f2"'
"$CAIRN" zl decompress "$t/f1" -o "$t/d1"
check "zl decompress round trip" 'cmp -s "$t/d1" "$t/in.txt"'
"$CAIRN" h5w new "$t/a.h5" && "$CAIRN" h5w dataset "$t/a.h5" /x i32 2x3 1 2 3 4 5 6
check "h5 ls == ls, h5 dump == dump" '[ "$("$CAIRN" h5 ls -r "$t/a.h5")" = "$("$CAIRN" ls --recursive "$t/a.h5")" ] && [ "$("$CAIRN" h5 dump "$t/a.h5" /x --sel 0:2,1:3)" = "[[2,3],[5,6]]" ] && [ "$("$CAIRN" dump -s 1,0 -c 1,3 "$t/a.h5" /x)" = "[[4,5,6]]" ]'
check "h5 repack == repack" '"$CAIRN" h5 repack "$t/a.h5" "$t/b.h5" && "$CAIRN" repack "$t/a.h5" "$t/c.h5" && [ "$("$CAIRN" dump "$t/b.h5" /x)" = "$("$CAIRN" dump "$t/c.h5" /x)" ]'

# -q / -v
"$CAIRN" zstd -f "$t/in.txt" -o "$t/z1" 2>"$t/e1"; "$CAIRN" -q zstd -f "$t/in.txt" -o "$t/z2" 2>"$t/e2"; "$CAIRN" zstd -f -q "$t/in.txt" -o "$t/z3" 2>"$t/e3"
check "-q silences the notes (before or after the command)" '[ -s "$t/e1" ] && [ ! -s "$t/e2" ] && [ ! -s "$t/e3" ] && cmp -s "$t/z1" "$t/z2"'
check "-v says what ran and how long" '"$CAIRN" -v hash "$t/in.txt" 2>&1 >/dev/null | grep -q "cairn: hash: exit 0 after"'
check "-v names where an error was raised (or at least the failure)" '! "$CAIRN" -v h5 ls "$t/in.txt" 2>"$t/e" && grep -q "exit 1 after" "$t/e"'

# refusals: one line, exit 2, the command's help named
check "unknown option (and the usage line)" 'usage2 h5 ls --bogus "$t/a.h5" && sed -n 2p "$t/err" | grep -q "^usage: cairn h5 ls "'
check "unknown subcommand" 'usage2 store frob'
check "--json where there is none" 'usage2 zstd --json "$t/in.txt" -o "$t/zj" && grep -q "json is not supported" "$t/err" && [ ! -e "$t/zj" ]'
check "ls --json: one JSON object per line" '"$CAIRN" ls -r --json "$t/a.h5" | python3 -c "import json,sys; r=[json.loads(l) for l in sys.stdin]; assert [x[\"path\"] for x in r]==[\"/\",\"/x\"] and r[1][\"shape\"]==[2,3]"'
check "version --json" '"$CAIRN" version --json | python3 -c "import json,sys; assert json.load(sys.stdin)[\"cairn\"]"'
check "--json refused on a command without it" 'usage2 h5w group --json "$t/a.h5" /g'
check "a non-numeric value (--tier abc)" 'usage2 mem add "$t/m.mem" hello --tier abc && grep -q "tier needs a whole number" "$t/err" && [ ! -e "$t/m.mem" ]'
check "a non-numeric value (-l x)" 'usage2 zstd "$t/in.txt" -o "$t/z9" -l x'
check "a negative count (--k -1)" 'usage2 mem search "$t/m.mem" hello --k -1'
check "an unknown option last (not 'needs a value')" 'usage2 mem import "$t/m.mem" "$t/none.jsonl" --text-only && grep -q "unknown option .--text-only." "$t/err"'
check "an option of another mem command (mem compact --limit)" 'usage2 mem compact "$t/m.mem" --limit 3 && grep -q "unknown option .--limit." "$t/err"'
check "mem stats with an extra option" 'usage2 mem stats "$t/m.mem" --history'
check "a codec level that is not one (store put --zstd=abc, --zlib=10)" 'usage2 store put --store "$t/lv.cas" --zstd=abc "$t/in.txt" && grep -q "level must be a whole number" "$t/err" && usage2 store put --store "$t/lv.cas" --zlib=10 "$t/in.txt" && [ ! -e "$t/lv.cas" ]'
check "a level out of the codec's range (zstd -l 99, gzip -l 12): usage, no OUT" 'usage2 zstd "$t/in.txt" -o "$t/zr" -l 99 && usage2 gzip "$t/in.txt" -o "$t/zr" -l 12 && [ ! -e "$t/zr" ]'
check "a bad selection" 'usage2 dump --sel 0:2,0:5,7 "$t/a.h5" /x'
"$CAIRN" mem add "$t/m.mem" "I live in Lisbon" "the cat is grey" --text-only >/dev/null 2>&1
check "mem search -k == --k" '[ "$("$CAIRN" mem search "$t/m.mem" lisbon -k 1)" = "$("$CAIRN" mem search "$t/m.mem" lisbon --k 1)" ] && [ "$("$CAIRN" mem search "$t/m.mem" lisbon -k 1 | wc -l)" = 1 ]'
rm -rf "$t"
exit $fail
