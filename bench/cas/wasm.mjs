// 2026-11-29
// bench/cas/wasm.mjs - the wasm goal of issue 5: cairn's SHA-256 in the WASI build (run under
// Node's node:wasi) and in the Emscripten build (the npm package: `cairn.sha256(bytes)`), against
// hash-wasm's SHA-256 in the same Node, on the same 32 MiB seeded-PRNG payload; also the npm
// package's Store.put / Store.get throughput. Called by bench/cas/run.sh:
//   node bench/cas/wasm.mjs PAYLOAD BENCH_WASI.wasm [ROUNDS]
// PAYLOAD is bench_cas's `--payload rand 33554432` file; the WASI program makes the same bytes
// itself and prints their digest, which is checked against the other two.
// Method: ROUNDS rounds; in each, every peer hashes the payload REPS times (best kept), peers in a
// fixed order, so a busy machine slows all of them alike. Times are CPU time of this process
// (process.cpuUsage, user + system) next to wall-clock; the ratio per round is cairn / hash-wasm
// on CPU time, and the reported ratio is the median over the rounds (values: the best round).
// Prints "key value unit" lines for run.sh.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { createSHA256 } from 'hash-wasm';
import * as cairn from '../../js/src/node.js';

const [payloadPath, wasiPath, roundsArg] = process.argv.slice(2);
if (!payloadPath || !wasiPath) {
  console.error('usage: node bench/cas/wasm.mjs PAYLOAD BENCH_WASI.wasm [ROUNDS]');
  process.exit(2);
}
const ROUNDS = Number(roundsArg ?? 3), REPS = 3;
const buf = new Uint8Array(readFileSync(payloadPath));
const N = buf.length;
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const wall = () => performance.now() / 1e3;

// Minor page faults of this process (issue 23): each row's fewest per call go at its end.
const faults = () => process.resourceUsage().minorPageFault;
// Best of REPS of an async function: {cpu, wall} seconds, fewest faults and its last result.
async function best(fn) {
  let c = Infinity, w = Infinity, f = Infinity, out;
  for (let r = 0; r < REPS; r++) {
    const c0 = cpu(), w0 = wall(), f0 = faults();
    out = await fn();
    c = Math.min(c, cpu() - c0);
    w = Math.min(w, wall() - w0);
    f = Math.min(f, faults() - f0);
  }
  return { cpu: c, wall: w, flt: f, out };
}

const hw = await createSHA256();
const hashWasm = () => { hw.init(); hw.update(buf); return hw.digest('hex'); };
await cairn.init();
const cairnEm = () => cairn.sha256(buf);

// The WASI program runs in a child Node (scripts/wasi-run.mjs, as the CLI runs): in this process,
// next to the other two modules' memories, Node 20 crashed instantiating it (V8 SIGSEGV). It
// measures itself: best of REPS, wall-clock and its process's CPU time (node:wasi gives it).
const here = dirname(fileURLToPath(import.meta.url));
function runWasi(...args) {
  const r = spawnSync(process.execPath, ['--no-warnings', join(here, '../../scripts/wasi-run.mjs'), wasiPath, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`bench_wasi ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr}`);
  const out = {};
  for (const line of r.stdout.split('\n')) {
    const [k, ...v] = line.trim().split(/\s+/);
    if (k) out[k] = v;
  }
  return out;
}

const mbps = (s) => N / s / 1e6;
const median = (a) => { const b = [...a].sort((x, y) => x - y), m = b.length >> 1; return b.length % 2 ? b[m] : (b[m - 1] + b[m]) / 2; };
const rows = { hashwasm: [], wasi: [], em: [], put: [], get: [] };
let digests = new Set(), kernel = '';
for (let round = 0; round < ROUNDS; round++) {
  const a = await best(hashWasm);
  const w = runWasi('sha', String(REPS));
  const e = await best(cairnEm);
  digests.add(a.out).add(e.out).add(w.wasi_digest[0]);
  kernel = w.wasi_kernel[0];
  rows.hashwasm.push({ cpu: mbps(a.cpu), wall: mbps(a.wall), flt: a.flt });
  rows.wasi.push({ cpu: Number(w.wasi_sha256[1]), wall: Number(w.wasi_sha256[0]), flt: NaN }); // another process
  rows.em.push({ cpu: mbps(e.cpu), wall: mbps(e.wall), flt: e.flt });
}
if (digests.size !== 1) {
  console.error(`wasm.mjs: the peers disagree on the SHA-256 of the payload: ${[...digests].join(' ')}`);
  process.exit(1);
}
// The npm package's Store: put the payload into a fresh memory store, read it back verified.
for (let round = 0; round < ROUNDS; round++) {
  let id, pc = Infinity, pw = Infinity, gc = Infinity, gw = Infinity, pf = Infinity, gf = Infinity;
  for (let r = 0; r < REPS; r++) {
    const store = await cairn.Store.open();
    let c0 = cpu(), w0 = wall(), f0 = faults();
    id = await store.put(buf);
    pc = Math.min(pc, cpu() - c0), pw = Math.min(pw, wall() - w0), pf = Math.min(pf, faults() - f0);
    c0 = cpu(), w0 = wall(), f0 = faults();
    const back = store.get(id);
    gc = Math.min(gc, cpu() - c0), gw = Math.min(gw, wall() - w0), gf = Math.min(gf, faults() - f0);
    if (back.length !== N || Buffer.compare(Buffer.from(back.buffer, back.byteOffset, back.length), Buffer.from(buf.buffer, buf.byteOffset, N)) !== 0) {
      console.error('wasm.mjs: Store.get returned other bytes than were put');
      process.exit(1);
    }
    store.close();
  }
  rows.put.push({ cpu: mbps(pc), wall: mbps(pw), flt: pf });
  rows.get.push({ cpu: mbps(gc), wall: mbps(gw), flt: gf });
}
const w2 = runWasi('store', String(REPS));

const top = (r) => Math.max(...r.map((x) => x.cpu));
const fl = (r) => `faults/op ${Math.min(...r.map((x) => x.flt))}`; // fewest over the rounds (NaN: not measured here)
const ratio = (r) => median(r.map((x, i) => x.cpu / rows.hashwasm[i].cpu));
console.log(`wasm_kernel ${kernel}`);
console.log(`hashwasm_sha256 ${top(rows.hashwasm).toFixed(0)} MB/s - ${fl(rows.hashwasm)}`);
console.log(`wasi_sha256 ${top(rows.wasi).toFixed(0)} MB/s ${ratio(rows.wasi).toFixed(2)}`);
console.log(`em_sha256 ${top(rows.em).toFixed(0)} MB/s ${ratio(rows.em).toFixed(2)} ${fl(rows.em)}`);
console.log(`em_store_put ${top(rows.put).toFixed(0)} MB/s - ${fl(rows.put)}`);
console.log(`em_store_get ${top(rows.get).toFixed(0)} MB/s - ${fl(rows.get)}`);
console.log(`wasi_put_mem ${w2.wasi_put_mem[1]} MB/s`);
console.log(`wasi_read_mem ${w2.wasi_read_mem[1]} MB/s`);
console.log(`wasm_wall_mbps hash-wasm ${rows.hashwasm.map((x) => x.wall.toFixed(0)).join(',')} wasi ${rows.wasi.map((x) => x.wall.toFixed(0)).join(',')} em ${rows.em.map((x) => x.wall.toFixed(0)).join(',')}`);
