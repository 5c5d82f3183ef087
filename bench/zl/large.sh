#!/bin/sh
# 2026-12-02
# bench/zl/large.sh - large inputs (>= 16 MiB) side by side: cairn's frame at its default level
# (19) and at level 6 (OpenZL's default), zstd -19, and OpenZL when given: OPENZL="cmd" is a
# command taking "PROFILE IN OUT" that writes OpenZL's frame (e.g. a wrapper around a local
# `zli compress -p PROFILE IN -o OUT`; nothing here builds OpenZL). Prints sizes, seconds and the
# ratios cairn/OpenZL and cairn/zstd-19. Inputs: FILE:PROFILE arguments, or the three synthetic
# 20 MiB inputs generated into $T (u32 sensor series, mixed binary records, log text).
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
C=$ROOT/build/native/cairn
T=${T:-$(mktemp -d)}
if [ $# -eq 0 ]; then
  python3 - "$T" <<'PY'
import random, struct, math, io, sys
random.seed(7); d = sys.argv[1] + '/'; n = 20 << 20
v = []; x = 100000.0
for i in range(n // 4):
    x += random.gauss(0, 3); v.append(int(x + 50 * math.sin(i / 500.0)) & 0xffffffff)
open(d + 'u32_sensor.bin', 'wb').write(struct.pack('<%dI' % len(v), *v))
b = io.BytesIO(); tags = [b'alpha---', b'beta----', b'gamma---', b'delta---', b'epsilon-']; i = 0
while b.tell() < n:
    b.write(struct.pack('<IfHH', i, math.sin(i / 100.0) * random.random() * 100, random.randint(0, 7), 0)); b.write(random.choice(tags)); i += 1
open(d + 'mixed.bin', 'wb').write(b.getvalue()[:n])
b = io.StringIO(); i = 0
while b.tell() < n:
    b.write('2026-12-02T%02d:%02d:%02d.%03d host%d GET /api/v1/items/%d status=%d bytes=%d\n' % (i // 3600000 % 24, i // 60000 % 60, i // 1000 % 60, i % 1000, random.randint(1, 9), random.randint(1, 50000), random.choice([200, 200, 200, 404, 500]), random.randint(100, 99999))); i += 37
open(d + 'text.log', 'w').write(b.getvalue()[:n])
PY
  set -- "$T/u32_sensor.bin:le-u64" "$T/u32_sensor.bin:le-u32" "$T/mixed.bin:serial" "$T/text.log:serial"
fi
secs() { s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc; }
for a in "$@"; do
  f=${a%:*}; p=${a##*:}
  t19=$(secs "$C" compress -p "$p" "$f" -o "$T/c19.zl" -f); c19=$(stat -c%s "$T/c19.zl")
  t6=$(secs "$C" compress -p "$p" -l 6 "$f" -o "$T/c6.zl" -f); c6=$(stat -c%s "$T/c6.zl")
  z19=$(zstd -19 -T1 -c "$f" | wc -c)
  line="$(basename "$f") $p: cairn-19 $c19 B ${t19}s, cairn-6 $c6 B ${t6}s, zstd-19 $z19 B, cairn-19/zstd-19 $(echo "scale=3; $c19 / $z19" | bc)"
  if [ -n "$OPENZL" ]; then
    to=$(secs sh -c "$OPENZL $p $f $T/o.zl"); o=$(stat -c%s "$T/o.zl")
    line="$line, openzl $o B ${to}s, cairn-6/openzl $(echo "scale=3; $c6 / $o" | bc) (time $(echo "scale=2; $t6 / $to" | bc)x)"
  fi
  echo "$line"
done
