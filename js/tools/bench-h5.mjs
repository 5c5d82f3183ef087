// 2026-11-29 - js/tools/bench-h5.mjs: the npm package's HDF5 API against h5wasm 0.8.8 in one
// Node process, same files on disk (NodeFile for cairn, h5wasm/node's host paths), printing
// microseconds per operation and the ratio h5wasm / cairn (> 1: cairn is faster). The rows are
// those of issues 3 and 4. Input files are written by h5py; run: node js/tools/bench-h5.mjs
// (needs python3-h5py and the devDependencies). Timings are the best of 5 runs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { h5, NodeFile } from '../src/node.js';

const { default: h5wasm } = await import('h5wasm/node');
await h5wasm.ready;
await h5.ready;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-h5-'));
const PY = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
execFileSync(PY, ['-c', `
import h5py, numpy as np
d = ${JSON.stringify(dir)}
r = np.random.default_rng(1)
with h5py.File(d + '/small.h5', 'w') as f: f['x'] = np.arange(1024, dtype='<f4')
with h5py.File(d + '/big.h5', 'w') as f: f['x'] = r.standard_normal(1 << 20).astype('<f4')
with h5py.File(d + '/chunked.h5', 'w') as f: f.create_dataset('x', data=r.standard_normal((512, 512)).astype('<f4'), chunks=(64, 64), shuffle=True, compression='gzip', compression_opts=6)
with h5py.File(d + '/attrs.h5', 'w') as f:
    f['x'] = np.zeros(4, dtype='<f4')
    for i in range(128): f['x'].attrs['a%03d' % i] = np.int64(i)
with h5py.File(d + '/many.h5', 'w') as f:
    for g in range(100):
        grp = f.create_group('g%03d' % g)
        for i in range(99): grp['d%03d' % i] = np.arange(4, dtype='<i4') + i
`]);
const p = (n) => path.join(dir, n);

function time(n, fn) {
  fn();
  let best = Infinity;
  for (let r = 0; r < 5; r++) {
    const t = performance.now();
    for (let i = 0; i < n; i++) fn();
    best = Math.min(best, ((performance.now() - t) * 1000) / n);
  }
  return best;
}
const rows = [];
function row(name, n, cairnFn, h5wasmFn) {
  const c = time(n, cairnFn), w = time(Math.max(1, Math.ceil(n / 4)), h5wasmFn);
  rows.push([name, c, w]);
  console.log(`${name.padEnd(46)} cairn ${c.toFixed(1).padStart(9)} us   h5wasm ${w.toFixed(1).padStart(9)} us   ratio ${(w / c).toFixed(1)}`);
}
const cOpen = (f, fn) => {
  const nf = new NodeFile(f);
  const h = new h5.File(nf);
  try { return fn(h); } finally { h.close(); nf.close(); }
};
const wOpen = (f, fn, mode = 'r') => {
  const h = new h5wasm.File(f, mode);
  try { return fn(h); } finally { h.close(); }
};

console.log('-- read');
row('open + read 1K f32 + close', 200, () => cOpen(p('small.h5'), (f) => f.get('x').value), () => wOpen(p('small.h5'), (f) => f.get('x').value));
row('1M f32 contiguous', 10, () => cOpen(p('big.h5'), (f) => f.get('x').value), () => wOpen(p('big.h5'), (f) => f.get('x').value));
row('512x512 f32 chunked 64x64 shuffle+deflate(6)', 10, () => cOpen(p('chunked.h5'), (f) => f.get('x').value), () => wOpen(p('chunked.h5'), (f) => f.get('x').value));
row('128 int64 attributes', 20, () => cOpen(p('attrs.h5'), (f) => { const a = f.get('x').attrs; for (const k in a) a[k].value; }), () => wOpen(p('attrs.h5'), (f) => { const a = f.get('x').attrs; for (const k in a) a[k].value; }));
row('one dataset out of 10,000 objects', 50, () => cOpen(p('many.h5'), (f) => f.get('g050/d050').value), () => wOpen(p('many.h5'), (f) => f.get('g050/d050').value));

console.log('-- write');
const k1 = new Float32Array(1024).map((_, i) => i), m1 = new Float32Array(1 << 20).map((_, i) => Math.sin(i));
const img = new Float32Array(512 * 512).map((_, i) => Math.sin(i / 100));
const cNew = (fn) => {
  const nf = new NodeFile(p('w-cairn.h5'), 'w+');
  const f = new h5.File(nf, 'w', { durable: false });
  try { fn(f); } finally { f.close(); nf.close(); }
};
const wNew = (fn) => wOpen(p('w-h5wasm.h5'), fn, 'w');
row('create + write 1K f32 + close', 100, () => cNew((f) => f.create_dataset({ name: 'x', data: k1 })), () => wNew((f) => f.create_dataset({ name: 'x', data: k1 })));
row('1M f32 contiguous', 10, () => cNew((f) => f.create_dataset({ name: 'x', data: m1 })), () => wNew((f) => f.create_dataset({ name: 'x', data: m1 })));
row('512x512 f32 chunked 64x64 shuffle+deflate(6)', 5, () => cNew((f) => f.create_dataset({ name: 'x', data: img, shape: [512, 512], chunks: [64, 64], shuffle: true, compression: 'gzip', compression_opts: 6 })),
  () => wNew((f) => f.create_dataset({ name: 'x', data: img, shape: [512, 512], chunks: [64, 64], compression: 'gzip', compression_opts: 6 })));
const i64 = new BigInt64Array([7n]);
row('128 int64 attributes', 20, () => cNew((f) => { for (let i = 0; i < 128; i++) f.create_attribute(`a${i}`, i64[0], [], '<i8'); }), () => wNew((f) => { for (let i = 0; i < 128; i++) f.create_attribute(`a${i}`, i64, [], '<q'); }));
row('64 groups', 20, () => cNew((f) => { for (let i = 0; i < 64; i++) f.create_group(`g${i}`); }), () => wNew((f) => { for (let i = 0; i < 64; i++) f.create_group(`g${i}`); }));
const r384 = new Float32Array(384).map((_, i) => i);
row('10,000 single-row appends of 384 f32', 1, () => cNew((f) => {
  f.create_dataset({ name: 'x', data: null, shape: [0, 384], dtype: '<f4', maxshape: [null, 384], chunks: [64, 384] });
  const d = f.get('x');
  for (let i = 0; i < 10000; i++) d.append(r384);
}), () => wNew((f) => {
  const d = f.create_dataset({ name: 'x', data: new Float32Array(0), shape: [0, 384], maxshape: [null, 384], chunks: [64, 384] });
  for (let i = 0; i < 10000; i++) {
    d.resize([i + 1, 384]);
    d.write_slice([[i, i + 1], []], r384);
  }
}));
fs.rmSync(dir, { recursive: true, force: true });
