// 2026-11-29 - bench/h5/wasm.mjs DIR: the npm package's HDF5 reader (cairn wasm, js/src/node.js)
// against h5wasm 0.8.8 (libhdf5 in wasm) in one Node process, on the files bench/h5/mkdata.py
// writes with h5py (the native bench reads the same ones). Prints microseconds per operation and
// the ratio h5wasm time / cairn time (> 1: cairn is faster). Both sides do the same work per
// operation: open the file from disk (NodeFile for cairn, h5wasm/node's own file access), read,
// close. Timings: best of RUNS runs of n calls per side after a warm-up (see row()); the large
// contiguous rows: medians of calls alternating side by side (see rowCalls()). Run by bench/h5/run.sh after the native rows.
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

// Both sides are timed the same way: one full collection at the start of the row (run.sh passes
// --expose-gc: garbage of earlier rows, e.g. the 64 MiB arrays, is not collected inside this
// one), a warm-up of at least WARM_MS of calls (and 5 calls) so the JIT tiers (JS and wasm) have
// settled, then RUNS alternating runs of the same n calls for each side; best run per side.
// Before 2026-11-30 the warm-up was one call and the two sides got different repeat counts: cairn's
// JS was still being optimised in its first runs of 50 (500-1000 us per call, then 60-100), so
// its best of 5 depended on when the tier-up landed. No forced collection between runs: a forced
// full GC drops the maps of objects no longer alive (every File of an open-read-close loop) and
// with them the optimised code of cairn's JS ("weak objects" deopts, --trace-deopt), so each run
// started cold again (100-800 us instead of ~55); a real program does not force a GC every 50 calls.
const WARM_MS = 300, RUNS = 7;
function warm(fn) {
  const t = performance.now();
  for (let i = 0; i < 5 || performance.now() - t < WARM_MS; i++) fn();
}
// Minor page faults of this process (issue 23: a fresh 4 KiB page costs 2-16 us on these VMs,
// whatever the load), per call: printed beside each side's time.
const faults = () => process.resourceUsage().minorPageFault;
let lastFaults = 0; // faults per call of the last run()
function run(n, fn) {
  const f0 = faults(), t = performance.now();
  for (let i = 0; i < n; i++) fn();
  const us = ((performance.now() - t) * 1000) / n;
  lastFaults = (faults() - f0) / n;
  return us;
}
const fl = (v) => (v < 10 ? v.toFixed(1) : v.toFixed(0));
const only = process.env.ROW; // run only rows whose name contains it
// Both kinds of row start alike: skipped unless ROW matches, both results checked, one GC, then
// each side warmed up.
function prepare(name, cairnFn, h5wasmFn, check) {
  if (only && !name.includes(only)) return false;
  check(cairnFn(), 'cairn');
  check(h5wasmFn(), 'h5wasm');
  globalThis.gc?.();
  warm(cairnFn);
  warm(h5wasmFn);
  return true;
}
function row(name, n, cairnFn, h5wasmFn, check) {
  if (!prepare(name, cairnFn, h5wasmFn, check)) return;
  let c = Infinity, w = Infinity, fc = Infinity, fw = Infinity;
  for (let r = 0; r < RUNS; r++) {
    c = Math.min(c, run(n, cairnFn)), fc = Math.min(fc, lastFaults);
    w = Math.min(w, run(n, h5wasmFn)), fw = Math.min(fw, lastFaults);
  }
  console.log(`wasm ${name.padEnd(40)} h5wasm ${w.toFixed(1).padStart(9)} us   cairn ${c.toFixed(1).padStart(9)} us   ratio ${(w / c).toFixed(2).padStart(6)}` +
    `   faults/op h5wasm ${fl(fw)} cairn ${fl(fc)} (fewest of ${RUNS} runs)`);
}
// The large contiguous rows (1M, 16M f32: a 4 / 64 MiB result per call) are timed call by call
// instead: each side's call allocates a fresh result array, and whether that memory is already
// mapped (freed by the last collection and reused by malloc: ~0.3 ms per 4 MiB) or fresh (a page
// fault per 4 KiB: ~2 ms) depends on where the collections fall, not on the library. Best-of-7
// runs of 20 calls picked whichever side had a lucky run (1M: 0.66x-1.82x on one build). Here the
// two sides alternate call by call, CALLS times each after the same GC + warm-up, which one goes
// first in each pair drawn at random (a fixed ABBA order put every collection on cairn's calls:
// V8 scavenges for external memory every 32 MiB here, 8 calls of 4 MiB, a multiple of the period),
// and the row prints each side's median, minimum and mean per call; ratio = h5wasm median /
// cairn median, and the mean ratio (throughput over all calls, collections included) beside it.
// The 1M times are bimodal (reused memory or not; 30-60% of calls reuse, the same share for
// both sides in a run), so when about half reuse, one side's median can sit in the fast mode
// and the other's in the slow one: the median ratio then jumps (1M 3.3x), the mean does not.
// Also the median process CPU time per call (user + system, all threads: getrusage around each
// call, outside the wall-clock timing), which a loaded machine inflates less than wall time
// (at load 4-5 the 16M calls took 60-95 ms of wall time for ~40 ms of CPU).
function rowCalls(name, calls, cairnFn, h5wasmFn, check) {
  if (!prepare(name, cairnFn, h5wasmFn, check)) return;
  const tc = [], tw = [], uc = [], uw = [], pc = [], pw = [];
  const one = (fn, to, uo, po) => {
    const r0 = process.resourceUsage(), t = performance.now();
    fn();
    to.push((performance.now() - t) * 1000);
    const r1 = process.resourceUsage();
    uo.push(r1.userCPUTime + r1.systemCPUTime - r0.userCPUTime - r0.systemCPUTime);
    po.push(r1.minorPageFault - r0.minorPageFault);
  };
  let seed = 0x9e3779b9; // xorshift32, fixed seed: the same order every run
  for (let i = 0; i < calls; i++) {
    seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5;
    if (seed & 1) { one(h5wasmFn, tw, uw, pw); one(cairnFn, tc, uc, pc); } else { one(cairnFn, tc, uc, pc); one(h5wasmFn, tw, uw, pw); }
  }
  const st = (a) => {
    a.sort((x, y) => x - y);
    return { min: a[0], med: a.length & 1 ? a[a.length >> 1] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2, mean: a.reduce((x, y) => x + y, 0) / a.length };
  };
  const c = st(tc), w = st(tw), cu = st(uc), wu = st(uw), cp = st(pc), wp = st(pw), f = (v) => v.toFixed(1).padStart(9);
  console.log(`wasm ${name.padEnd(40)} h5wasm ${f(w.med)} us   cairn ${f(c.med)} us   ratio ${(w.med / c.med).toFixed(2).padStart(6)}` +
    `   (medians of ${calls} calls; min h5wasm ${w.min.toFixed(1)} cairn ${c.min.toFixed(1)} us; mean h5wasm ${w.mean.toFixed(1)} cairn ${c.mean.toFixed(1)} us, ratio ${(w.mean / c.mean).toFixed(2)};` +
    ` process CPU median h5wasm ${wu.med.toFixed(0)} cairn ${cu.med.toFixed(0)} us, ratio ${(wu.med / cu.med).toFixed(2)})` +
    `   faults/op median h5wasm ${fl(wp.med)} cairn ${fl(cp.med)}`);
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
// all attributes of an object: open, list, read every value. Two textually separate copies of
// the same loop, one per side: V8 keeps type feedback per function literal, so one shared loop
// fed both libraries' objects turns polymorphic and is optimised for neither (cairn's row went
// from ~55 to ~100 us once the runs of the two sides alternated).
const allAttrsC = (h, q) => {
  const a = h.get(q).attrs, out = [];
  for (const k in a) out.push(Number(a[k].value));
  return out;
};
const allAttrsW = (h, q) => {
  const a = h.get(q).attrs, out = [];
  for (const k in a) out.push(Number(a[k].value));
  return out;
};

row('open+read 1K f32+close', 300, () => cOpen('small.h5', (f) => f.get('x').value), () => wOpen('small.h5', (f) => f.get('x').value), same(ref('small.h5', 'x')));
rowCalls('open+read 1M f32 contiguous+close', 140, () => cOpen('mid.h5', (f) => f.get('x').value), () => wOpen('mid.h5', (f) => f.get('x').value), same(ref('mid.h5', 'x')));
rowCalls('open+read 16M f32 contiguous+close', 41, () => cOpen('large.h5', (f) => f.get('x').value), () => wOpen('large.h5', (f) => f.get('x').value), same(ref('large.h5', 'x')));
// The same two reads with cairn filling one array reused across calls (Dataset.read_into, cairn
// extension; docs/js-memory.md) against h5wasm's value (no such API there): what a program that
// reads the same dataset repeatedly pays, without a fresh result per call (issue 23).
const reuse = (f, n) => {
  const out = new Float32Array(n);
  return () => cOpen(f, (h) => h.get('x').read_into(out));
};
rowCalls('1M f32 contiguous, cairn read_into (reused)', 140, reuse('mid.h5', 1 << 20), () => wOpen('mid.h5', (f) => f.get('x').value), same(ref('mid.h5', 'x')));
rowCalls('16M f32 contiguous, cairn read_into (reused)', 41, reuse('large.h5', 1 << 24), () => wOpen('large.h5', (f) => f.get('x').value), same(ref('large.h5', 'x')));
row('deflate+shuffle 2048^2 f32, v1 B-tree', 1, () => cOpen('chunked.h5', (f) => f.get('x').value), () => wOpen('chunked.h5', (f) => f.get('x').value), same(ref('chunked.h5', 'x')));
const attrsWant = wOpen('attrs.h5', (f) => allAttrsW(f, 'g'));
row('open+read 128 attributes+close', 50, () => cOpen('attrs.h5', (f) => allAttrsC(f, 'g')), () => wOpen('attrs.h5', (f) => allAttrsW(f, 'g')), same(attrsWant));
row('open+read 1 dataset of 10,000+close', 100, () => cOpen('many.h5', (f) => f.get('d05000').value), () => wOpen('many.h5', (f) => f.get('d05000').value), same(ref('many.h5', 'd05000')));
