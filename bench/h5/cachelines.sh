#!/usr/bin/env bash
# bench/h5/cachelines.sh [FILE] [LIB] - distinct cache lines (64 bytes) of code and of data that
# one open + get "/x" + read (f32) + close touches, counted by valgrind's lackey on the third of
# four iterations (a marker store delimits them), with the code lines per function. After each
# system call the caches are cold, so for a small file these lines cost about as much as the
# instructions (bench/RESULTS.md, session 5). FILE: build/bench-h5/small.h5; LIB:
# build/native/libcairn.a. Needs valgrind, python3 and nm.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
file=${1:-$root/build/bench-h5/small.h5}
lib=${2:-$root/build/native/libcairn.a}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cat > "$t/trace.c" <<'C'
#include <stdio.h>
#include "cairn/cairn.h"
#include "cairn/platform.h"
volatile long gMark;
int main(int argc, char **argv) {
  static float out[1024];
  cairn_posix_install(1);
  fprintf(stderr, "MARK %p\n", (void *)&gMark);
  for (int i = 0; i < 4; i++) {
    cairn_h5 *h;
    cairn_h5_obj *o;
    gMark = i;
    if (argc < 2 || cairn_h5_open_path(argv[1], &h) || cairn_h5_get(h, "/x", &o) ||
        cairn_h5_read(o, NULL, CAIRN_H5_F32, out, sizeof out))
      return 1;
    cairn_h5_obj_close(o);
    cairn_h5_close(h);
  }
  gMark = -1;
  return 0;
}
C
cc -O2 -o "$t/trace" "$t/trace.c" -I"$root/core/include" "$lib" -lzstd -lz -lpthread
valgrind --tool=lackey --trace-mem=yes "$t/trace" "$file" 2> "$t/trace.out" > /dev/null
nm -n -S --defined-only "$t/trace" > "$t/syms"
python3 - "$t/trace.out" "$t/syms" <<'P'
import bisect, re, sys
lines = open(sys.argv[1]).read().splitlines()
mark = int(next(l for l in lines if l.startswith("MARK")).split()[1], 16)
syms = [l.split() for l in open(sys.argv[2])]
gm = next(int(s[0], 16) for s in syms if s[-1] == "gMark")
base = mark - gm  # where the executable was loaded
stores = [i for i, l in enumerate(lines) if re.match(r"\s*S 0*%x," % mark, l)]
a, b = stores[2], stores[3]  # the third iteration
code, data, nInstr = {}, set(), 0
for l in lines[a:b]:
    m = re.match(r"\s*([ILSM])\s+([0-9a-f]+),(\d+)", l)
    if not m:
        continue
    kind, addr, size = m.group(1), int(m.group(2), 16), int(m.group(3))
    if kind == "I":
        nInstr += 1
        code.setdefault(addr >> 6, set()).add(addr)
    else:
        data.update(range(addr >> 6, ((addr + size - 1) >> 6) + 1))
fns = sorted((int(s[0], 16) + base, int(s[1], 16), s[3]) for s in syms if len(s) == 4 and s[2] in "tTwW")
starts = [f[0] for f in fns]
per = {}
for line, addrs in code.items():
    names = set()
    for ad in addrs:
        i = bisect.bisect_right(starts, ad) - 1
        names.add(re.sub(r"\.(constprop|part|isra|cold)(\.\d+)?", "", fns[i][2]) if i >= 0 and ad < fns[i][0] + fns[i][1] else "(libc, PLT)")
    for n in names:
        per[n] = per.get(n, 0) + 1
print("instructions %d   code lines %d   data lines %d" % (nInstr, len(code), len(data)))
print("code lines by function: " + ", ".join("%s %d" % kv for kv in sorted(per.items(), key=lambda kv: -kv[1])[:20]))
P
