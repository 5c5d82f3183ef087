// 2026-11-29 - bench/mem/peers.mjs DIR LOCOMO.json
// The peers of cairn's memory store on the same data as bench_mem.c (DIR holds base.f32,
// queries.f32, gt10k.u32, gt100k.u32 written by it) and the same LoCoMo turns and questions as
// `cairn eval locomo`: usearch (exact and HNSW), hnswlib-node (HNSW), minisearch (BM25) and
// flexsearch (not BM25). One query at a time, median latency, recall next to every latency.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import * as usearch from 'usearch';
import hnswlib from 'hnswlib-node';
import MiniSearch from 'minisearch';
import FlexSearch from 'flexsearch';

const [dir, locomoPath] = process.argv.slice(2);
const DIM = 384, NQ = 50;
const f32 = (name) => { const b = readFileSync(`${dir}/${name}`); return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4); };
const u32 = (name) => { const b = readFileSync(`${dir}/${name}`); return new Uint32Array(b.buffer, b.byteOffset, b.byteLength / 4); };
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
const recall = (got, gt) => { let h = 0; for (let q = 0; q < NQ; q++) { const g = new Set(gt.slice(q * 10, q * 10 + 10)); for (const id of got[q]) if (g.has(Number(id))) h++; } return h / (NQ * 10); };

const base = f32('base.f32'), queries = f32('queries.f32');
// Copies: usearch's exactSearch ignores the byteOffset of a subarray (it read query 0 for every
// query in a first version of this script), so every query gets its own buffer.
const aQuery = Array.from({ length: NQ }, (_, q) => queries.slice(q * DIM, (q + 1) * DIM));
const Q = (q) => aQuery[q];
console.log(`peers (Node ${process.version}): usearch ${JSON.parse(readFileSync(new URL('./node_modules/usearch/package.json', import.meta.url))).version}, hnswlib-node, minisearch, flexsearch`);

for (const [n, gtName] of [[10000, 'gt10k.u32'], [100000, 'gt100k.u32']]) {
  const gt = u32(gtName), data = base.subarray(0, n * DIM);
  const lat = [], got = [];
  for (let q = 0; q < NQ; q++) {
    const t0 = performance.now();
    const r = usearch.exactSearch(data, Q(q), DIM, 10, usearch.MetricKind.IP, 1);
    lat.push(performance.now() - t0);
    got.push(Array.from(r.keys ?? r.get(0).keys));
  }
  console.log(`${n / 1000}K usearch exactSearch (1 thread): ${median(lat).toFixed(3)} ms  recall@10 ${recall(got, gt).toFixed(4)}`);
}

{ // HNSW at 100K: usearch and hnswlib-node, recall vs latency
  const n = 100000, gt = u32('gt100k.u32');
  let t0 = performance.now();
  const ix = new usearch.Index({ metric: 'ip', connectivity: 16, dimensions: DIM, expansion_add: 128, expansion_search: 64 });
  const keys = new BigUint64Array(n); for (let i = 0; i < n; i++) keys[i] = BigInt(i);
  ix.add(keys, base.subarray(0, n * DIM));
  console.log(`100K usearch HNSW (M 16, ef_add 128) build ${(performance.now() - t0).toFixed(0)} ms`);
  { // the JS binding fixes expansion_search at construction: one point
    const lat = [], got = [];
    for (let q = 0; q < NQ; q++) { const s = performance.now(); const r = ix.search(Q(q), 10); lat.push(performance.now() - s); got.push(Array.from(r.keys)); }
    console.log(`  usearch HNSW ef  64  ${median(lat).toFixed(3)} ms  recall@10 ${recall(got, gt).toFixed(4)}`);
  }
  t0 = performance.now();
  const h = new hnswlib.HierarchicalNSW('ip', DIM);
  h.initIndex(n, 16, 100, 100);
  for (let i = 0; i < n; i++) h.addPoint(Array.from(base.subarray(i * DIM, (i + 1) * DIM)), i);
  console.log(`100K hnswlib-node HNSW (M 16, efConstruction 100) build ${(performance.now() - t0).toFixed(0)} ms`);
  for (const ef of [16, 32, 64, 128]) {
    h.setEf(ef);
    const lat = [], got = [];
    for (let q = 0; q < NQ; q++) { const qa = Array.from(Q(q)); const s = performance.now(); const r = h.searchKnn(qa, 10); lat.push(performance.now() - s); got.push(r.neighbors); }
    console.log(`  hnswlib HNSW ef ${String(ef).padStart(3)}  ${median(lat).toFixed(3)} ms  recall@10 ${recall(got, gt).toFixed(4)}`);
  }
}

// ---- LoCoMo full text: the same turn texts and questions as `cairn eval locomo`
if (locomoPath) {
  const convs = JSON.parse(readFileSync(locomoPath, 'utf8'));
  const peers = {
    minisearch: {
      build: (docs) => { const ms = new MiniSearch({ fields: ['text'], storeFields: [] }); ms.addAll(docs); return ms; },
      search: (ix, q) => ix.search(q).slice(0, 10).map((r) => r.id),
    },
    flexsearch: {
      build: (docs) => { const ix = new FlexSearch.Index({ tokenize: 'forward' }); for (const d of docs) ix.add(d.id, d.text); return ix; },
      search: (ix, q) => ix.search(q, { limit: 10, suggest: true }),
    },
  };
  for (const [name, p] of Object.entries(peers)) {
    let buildMs = 0, n = 0, any5 = 0, turns = 0;
    const lat = [];
    for (const conv of convs) {
      const c = conv.conversation, docs = [], sessOf = new Map();
      for (let s = 1; s <= 60; s++) {
        const sess = c[`session_${s}`];
        if (!Array.isArray(sess)) continue;
        for (const t of sess) {
          if (typeof t.text !== 'string' || typeof t.dia_id !== 'string') continue;
          let text = `${t.speaker ?? ''}: ${t.text}`;
          if (typeof t.blip_caption === 'string') text += ` [shares ${t.blip_caption}]`;
          docs.push({ id: docs.length, text, dia: t.dia_id });
        }
      }
      turns += docs.length;
      const byDia = new Map(docs.map((d) => [d.dia, d.id]));
      const t0 = performance.now();
      const ix = p.build(docs);
      buildMs += performance.now() - t0;
      for (const qa of conv.qa) {
        if (!(qa.category >= 1 && qa.category <= 4) || !Array.isArray(qa.evidence)) continue;
        const rel = new Set();
        for (const e of qa.evidence) for (const w of String(e).split(/[ ;,]+/)) if (byDia.has(w)) rel.add(byDia.get(w));
        if (!rel.size) continue;
        const s = performance.now();
        const hits = p.search(ix, qa.question);
        lat.push(performance.now() - s);
        n++;
        if (hits.slice(0, 5).some((id) => rel.has(id))) any5++;
      }
    }
    console.log(`LoCoMo ${name}: ${turns} turns, ${n} questions, build ${buildMs.toFixed(1)} ms, median query ${median(lat).toFixed(3)} ms, turn recall_any@5 ${(any5 / n).toFixed(4)}`);
  }
}
