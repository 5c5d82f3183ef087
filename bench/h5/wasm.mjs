// 2026-11-29 - bench/h5/wasm.mjs DIR: the npm package's HDF5 reader (cairn wasm, js/src/node.js)
// against h5wasm 0.8.8 (libhdf5 in wasm) in one Node process, on the files bench/h5/mkdata.py
// writes with h5py (the native bench reads the same ones). Prints microseconds per operation and
// the ratio h5wasm time / cairn time (> 1: cairn is faster). Both sides do the same work per
// operation: open the file from disk (NodeFile for cairn, h5wasm/node's own file access), read,
// close. Timings are the best of 5 runs. Run by bench/h5/run.sh after the native rows.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const jsDir = path.join(here, '../../js');
const dir = process.argv[2] || path.join(here, '../../build/bench-h5');
const p = (n) => path.join(dir, n);
if (!fs.existsSync(p('mid.h5'))) throw new Error(`no ${p('mid.h5')}: run bench/h5/mkdata.py ${dir} (bench/h5/run.sh does)`);

const { h5, NodeFile } = await import(pathToFileURL(path.join(jsDir, 'src/node.js')).href);
// h5wasm is a devDependency of js/ (npm ci there): its node entry, as js/ would resolve it.
const { default: h5wasm } = await import(pathToFileURL(path.join(jsDir, 'node_modules/h5wasm/dist/node/hdf5_hl.js')).href);
await h5wasm.ready;
await h5.ready;

// A full collection before each timing (run.sh passes --expose-gc), so garbage from earlier
// rows (the 64 MiB arrays) is not collected inside a later one; the same for both sides.
function time(n, fn) {
  globalThis.gc?.();
  fn();
  let best = Infinity;
  for (let r = 0; r < 5; r++) {
    const t = performance.now();
    for (let i = 0; i < n; i++) fn();
    best = Math.min(best, ((performance.now() - t) * 1000) / n);
  }
  return best;
}
function row(name, n, cairnFn, h5wasmFn, check) {
  check(cairnFn(), 'cairn');
  check(h5wasmFn(), 'h5wasm');
  const c = time(n, cairnFn), w = time(Math.max(1, Math.ceil(n / 4)), h5wasmFn);
  console.log(`wasm ${name.padEnd(40)} h5wasm ${w.toFixed(1).padStart(9)} us   cairn ${c.toFixed(1).padStart(9)} us   ratio ${(w / c).toFixed(2).padStart(6)}`);
}
const cOpen = (f, fn) => {
  const nf = new NodeFile(p(f));
  const h = new h5.File(nf);
  try { return fn(h); } finally { h.close(); nf.close(); }
};
const wOpen = (f, fn) => {
  const h = new h5wasm.File(p(f), 'r');
  try { return fn(h); } finally { h.close(); }
};
const same = (want) => (v, who) => {
  if (v.length !== want.length) throw new Error(`${who}: ${v.length} values, want ${want.length}`);
  for (let i = 0; i < want.length; i += Math.max(1, want.length >> 4)) if (v[i] !== want[i]) throw new Error(`${who}: value ${i} differs`);
};
const ref = (f, q) => wOpen(f, (h) => h.get(q).value);
// all attributes of an object: open, list, read every value
const allAttrs = (h, q) => {
  const a = h.get(q).attrs, out = [];
  for (const k in a) out.push(Number(a[k].value));
  return out;
};

row('open+read 1K f32+close', 300, () => cOpen('small.h5', (f) => f.get('x').value), () => wOpen('small.h5', (f) => f.get('x').value), same(ref('small.h5', 'x')));
row('open+read 1M f32 contiguous+close', 20, () => cOpen('mid.h5', (f) => f.get('x').value), () => wOpen('mid.h5', (f) => f.get('x').value), same(ref('mid.h5', 'x')));
row('open+read 16M f32 contiguous+close', 2, () => cOpen('large.h5', (f) => f.get('x').value), () => wOpen('large.h5', (f) => f.get('x').value), same(ref('large.h5', 'x')));
row('deflate+shuffle 2048^2 f32, v1 B-tree', 1, () => cOpen('chunked.h5', (f) => f.get('x').value), () => wOpen('chunked.h5', (f) => f.get('x').value), same(ref('chunked.h5', 'x')));
const attrsWant = wOpen('attrs.h5', (f) => allAttrs(f, 'g'));
row('open+read 128 attributes+close', 50, () => cOpen('attrs.h5', (f) => allAttrs(f, 'g')), () => wOpen('attrs.h5', (f) => allAttrs(f, 'g')), same(attrsWant));
row('open+read 1 dataset of 10,000+close', 100, () => cOpen('many.h5', (f) => f.get('d05000').value), () => wOpen('many.h5', (f) => f.get('d05000').value), same(ref('many.h5', 'd05000')));
