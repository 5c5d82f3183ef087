// 2026-11-29 - bench/h5w/wasm.mjs: the npm package's HDF5 writer (cairn's Emscripten build,
// js/dist) against h5wasm 0.8.8 (libhdf5 1.14 in WebAssembly) in one Node process, the same
// rows as bench_h5w.c, files on disk (TMPDIR, default /tmp). Both open their file by path with
// mode 'w' (cairn: a NodeFile, created without O_TRUNC, the old content discarded by the
// writer; h5wasm: libhdf5's H5F_ACC_TRUNC through NODERAWFS). cairn commits without syncs
// ({durable: false}) like libhdf5, which never syncs. Each case alternates cairn and h5wasm
// until 1 s has passed (at least 3 runs each) and keeps the fastest of each. Prints a markdown
// table; ratio = h5wasm time / cairn time (> 1: cairn is faster).
// Run by bench/h5w/run.sh (needs scripts/build.sh em and `npm install` in bench/h5w).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { h5 } from '../../js/src/node.js';

const { default: h5wasm } = await import('h5wasm/node');
await h5wasm.ready;
await h5.ready;
const dir = fs.mkdtempSync(path.join(process.env.TMPDIR || os.tmpdir(), 'cairn-bench-h5w-'));
const pc = path.join(dir, 'cairn.h5'), pw = path.join(dir, 'h5wasm.h5');

// Each side's fewest minor page faults in one run go beside its time (issue 23).
const faults = () => process.resourceUsage().minorPageFault;
function pair(a, b) {
  let ta = Infinity, tb = Infinity, fa = Infinity, fb = Infinity, n = 0;
  const t0 = performance.now();
  while (n < 200 && (n < 3 || performance.now() - t0 < 1000)) {
    let f = faults(), s = performance.now();
    a();
    ta = Math.min(ta, performance.now() - s), fa = Math.min(fa, faults() - f);
    f = faults(), s = performance.now();
    b();
    tb = Math.min(tb, performance.now() - s), fb = Math.min(fb, faults() - f);
    n++;
  }
  return [ta * 1000, tb * 1000, fa, fb];
}
const out = [];
function row(name, a, b, goal = '>= 3x') {
  const [c, w, fc, fw] = pair(a, b);
  const line = `| ${name.padEnd(52)} | ${c.toFixed(1).padStart(9)} | ${w.toFixed(1).padStart(9)} | ${(w / c).toFixed(2).padStart(6)}x | ${String(fc).padStart(6)} | ${String(fw).padStart(6)} | ${goal} |`;
  out.push(line);
  console.log(line);
}
const cNew = (fn) => {
  const f = new h5.File(pc, 'w', { durable: false });
  try { fn(f); } finally { f.close(); }
};
const wNew = (fn) => {
  const f = new h5wasm.File(pw, 'w');
  try { fn(f); } finally { f.close(); }
};

const k1 = new Float32Array(1024).map((_, i) => i), m1 = new Float32Array(1 << 20).map((_, i) => Math.sin(i));
const img = new Float32Array(512 * 512).map((_, i) => Math.sin(i / 100) * 100 + (i % 7));
const i64 = new BigInt64Array([7n]);
const r384 = new Float32Array(384).map((_, i) => i);

console.log(`h5wasm ${h5wasm.Module?.H5_VERSION ?? '0.8.8'}, node ${process.version}, files in ${dir}`);
console.log('| case (wasm in Node) | cairn us | h5wasm us | ratio | cairn faults/op | h5wasm faults/op | goal |\n|---|---:|---:|---:|---:|---:|---|');
row('create + write 1K f32 + close', () => cNew((f) => f.create_dataset({ name: 'x', data: k1 })), () => wNew((f) => f.create_dataset({ name: 'x', data: k1 })));
row('1M f32 contiguous', () => cNew((f) => f.create_dataset({ name: 'x', data: m1 })), () => wNew((f) => f.create_dataset({ name: 'x', data: m1 })));
// h5wasm 0.8.8 has no shuffle option: the same-work row is deflate alone on both sides
row('512x512 f32 chunked 64x64 deflate(6)', () => cNew((f) => f.create_dataset({ name: 'x', data: img, shape: [512, 512], chunks: [64, 64], compression: 'gzip', compression_opts: 6 })),
  () => wNew((f) => f.create_dataset({ name: 'x', data: img, shape: [512, 512], chunks: [64, 64], compression: 'gzip', compression_opts: 6 })));
row('  cairn shuffle+deflate(6) vs h5wasm deflate(6)', () => cNew((f) => f.create_dataset({ name: 'x', data: img, shape: [512, 512], chunks: [64, 64], shuffle: true, compression: 'gzip', compression_opts: 6 })),
  () => wNew((f) => f.create_dataset({ name: 'x', data: img, shape: [512, 512], chunks: [64, 64], compression: 'gzip', compression_opts: 6 })), '-');
row('128 int64 attributes on one dataset', () => cNew((f) => {
  const d = f.create_dataset({ name: 'x', data: k1.subarray(0, 16) });
  for (let i = 0; i < 128; i++) d.create_attribute(`a${i}`, i64[0], [], '<i8');
}), () => wNew((f) => {
  const d = f.create_dataset({ name: 'x', data: k1.subarray(0, 16) });
  for (let i = 0; i < 128; i++) d.create_attribute(`a${i}`, i64, [], '<q');
}));
row('64 groups', () => cNew((f) => { for (let i = 0; i < 64; i++) f.create_group(`g${i}`); }), () => wNew((f) => { for (let i = 0; i < 64; i++) f.create_group(`g${i}`); }));
row('10,000 single-row appends of 384 f32, one commit', () => cNew((f) => {
  const d = f.create_dataset({ name: 'x', data: null, shape: [0, 384], dtype: '<f4', maxshape: [null, 384], chunks: [64, 384] });
  for (let i = 0; i < 10000; i++) d.append(r384);
}), () => wNew((f) => {
  const d = f.create_dataset({ name: 'x', data: new Float32Array(0), shape: [0, 384], maxshape: [null, 384], chunks: [64, 384] });
  for (let i = 0; i < 10000; i++) {
    d.resize([i + 1, 384]);
    d.write_slice([[i, i + 1], []], r384);
  }
}));
// Same output check: both files must hold the same values (a bench that writes wrong data
// proves nothing).
{
  const a = new h5.File(pc, 'r'), b = new h5wasm.File(pw, 'r');
  const x = a.get('x').value, y = b.get('x').value;
  a.close(), b.close();
  if (x.length !== 3840000 || y.length !== 3840000 || x.some((v, i) => v !== y[i])) throw new Error('cairn and h5wasm files differ');
}
fs.rmSync(dir, { recursive: true, force: true });
