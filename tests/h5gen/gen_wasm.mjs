// 2026-11-29 - tests/h5gen/gen_wasm.mjs OUTDIR: files written by h5wasm 0.8.8 (libhdf5 compiled
// to wasm) through the HDF Group's filter plugins from h5wasm-plugins 0.2.1: zstd (32015),
// bitshuffle (32008: LZ4, zstd and plain modes), LZ4 (32004). h5wasm reads every dataset back
// and the values are appended to OUTDIR/expected.jsonl for compare.py (same format as gen.py).
import * as h5wasm from 'h5wasm/node';
import { install_local_plugins } from 'h5wasm-plugins';
import { appendFileSync } from 'node:fs';

const out = process.argv[2];
const Module = await h5wasm.ready;
install_local_plugins(Module);

const n = 5000;
const i32 = Int32Array.from({ length: n }, (_, i) => ((i * 2654435761) >>> 0) % 100000 - 50000);
const f64 = Float64Array.from({ length: n }, (_, i) => Math.sin(i / 10) * 1000 + i);
const u16 = Uint16Array.from({ length: n }, (_, i) => (i * 7) & 0xffff);
const u8 = Uint8Array.from({ length: 3001 }, (_, i) => (i * 13) & 0xff);
const cases = [
  ['zstd_i32', i32, '<i', [500], 32015, [3]],
  ['zstd_f64', f64, '<d', [1000], 32015, [9]],
  ['bshuf_lz4_i32', i32, '<i', [700], 32008, [0, 2]],
  ['bshuf_lz4_f64', f64, '<d', [1000], 32008, [0, 2]],
  ['bshuf_zstd_u16', u16, '<H', [900], 32008, [0, 3]],
  ['bshuf_none_i32', i32, '<i', [1000], 32008, [0, 0]],
  ['bshuf_lz4_blk64_u8', u8, 'B', [3001], 32008, [64, 2]],
  ['lz4_hdfgroup_f64', f64, '<d', [1000], 32004, [0]],
];
const name = `${out}/wasm_plugins.h5`;
const f = new h5wasm.File(name, 'w');
for (const [dname, data, dtype, chunks, comp, opts] of cases) {
  f.create_dataset({ name: dname, data, shape: [data.length], dtype, chunks, compression: comp, compression_opts: opts });
}
f.close();
const r = new h5wasm.File(name, 'r');
for (const [dname, data] of cases) {
  const v = r.get(dname).value;
  const same = v.length === data.length && v.every((x, i) => x === data[i]);
  if (!same) throw new Error(`h5wasm read back ${dname} differently`);
  const e = { file: 'wasm_plugins.h5', path: '/' + dname, attr: null, data: Array.from(v) };
  appendFileSync(`${out}/expected.jsonl`, JSON.stringify(e) + '\n');
}
r.close();
console.log(`gen_wasm: ${cases.length} datasets through the zstd, bitshuffle and lz4 plugins`);
