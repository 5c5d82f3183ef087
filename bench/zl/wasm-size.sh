#!/bin/sh
# bench/zl/wasm-size.sh - what the zl codec adds to an Emscripten wasm, with zstd built as the
# project builds it for wasm (CMakeLists.txt, target cairn_zstd): links four programs against
# build/em's libraries (run `scripts/build.sh em` first) and prints their .wasm sizes:
#   base   exports malloc/free only (the runtime every program has)
#   zl     + cairn_zl_compress + cairn_zl_decompress (codec: decoder + encoder + zstd)
#   zl-dec + cairn_zl_decompress only (decode-only build: the encoder is not linked)
#   zstd   + ZSTD_compress + ZSTD_decompress (zstd alone)
# With SPEED=1 it also builds bench/zl/wasm_speed.c and runs it under node on the golden inputs
# (zstd -3 compress, zstd decoding its -3/-19 frames, cairn level 3 compress, cairn decode).
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
E=$ROOT/build/em
DATA=${DATA:-$ROOT/../shared/data}
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
echo 'int main(void) { return 0; }' > "$T/empty.c"
size() { # name exports
  emcc -O3 -msimd128 "$T/empty.c" -o "$T/$1.mjs" -sEXPORTED_FUNCTIONS="$2" -sFILESYSTEM=0 -sALLOW_MEMORY_GROWTH=1 \
    "$E/libcairn_core.a" "$E/libcairn_zstd.a" 2>/dev/null
  stat -c %s "$T/$1.wasm"
}
b=$(size base _malloc,_free)
z=$(size zl _malloc,_free,_cairn_zl_compress,_cairn_zl_decompress)
d=$(size zldec _malloc,_free,_cairn_zl_decompress)
s=$(size zstd _malloc,_free,_ZSTD_compress,_ZSTD_decompress)
echo "emcc $(emcc --version | head -1 | sed 's/.*) //'), zstd from $(readlink -f "$ROOT/build/deps/zstd" | sed 's|.*/build/deps/||')"
printf "  %-44s %8s bytes\n" "base program (malloc/free)" "$b"
printf "  %-44s %8s bytes, adds %s\n" "zl encoder + decoder (zstd linked)" "$z" "$((z - b))"
printf "  %-44s %8s bytes, adds %s\n" "zl decode-only" "$d" "$((d - b))"
printf "  %-44s %8s bytes, adds %s\n" "zstd alone (ZSTD_compress + ZSTD_decompress)" "$s" "$((s - b))"
echo "  goal: zl encoder + decoder adds at most 400 KB (400000 bytes): $([ $((z - b)) -le 400000 ] && echo met || echo NOT met)"
if [ "${SPEED:-0}" = 1 ]; then
  emcc -O3 -msimd128 -I"$ROOT/core/include" -I"$ROOT/build/deps/zstd" "$ROOT/bench/zl/wasm_speed.c" -o "$T/ws.cjs" \
    -sENVIRONMENT=node -sNODERAWFS=1 -sSINGLE_FILE=1 -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=134217728 \
    "$E/libcairn_core.a" "$E/libcairn_zstd.a" 2>/dev/null
  I=$DATA/openzl-v26/inputs
  node "$T/ws.cjs" "$I/text_256k.bin" u8 "$I/u16_sensor.bin" le-u16 "$I/records16.bin" le-u32 "$I/table.csv" csv "$I/f32_signal.bin" le-u32
fi
