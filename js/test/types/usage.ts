// 2026-11-29 - type-checked usage of the package's declarations (npm run typecheck): compiles
// against src/index.d.ts through the package's own "exports" (moduleResolution bundler), and a
// few @ts-expect-error lines prove that wrong calls are rejected. Not executed.
import cairn, { Memory, Graph, type GraphFact, Store, compress, decompress, zl, zstd, sha256, MemoryFile, NodeFile, CairnError, type MemoryHit, type ZlProfile, Ephemeral, Observer, gate, type EphemeralHit, type GateResult, type ObserveResult } from 'cairn-store';

async function main(): Promise<void> {
  const mem: Memory = await Memory.open(new MemoryFile(), { dim: 384, metric: 'cosine' });
  const inMemory = await Memory.open({ dim: 8 });
  const id: number = mem.add({ text: 'I moved to Lisbon', session: 's1', role: 'user', time: new Date(), tier: 1, metadata: { topic: 'home', n: [1, 2] } });
  mem.add({ text: 'with a vector', embedding: new Float32Array(384) });
  mem.add('just text');
  const hits: MemoryHit[] = mem.search('where do I live?', { k: 5, mode: 'hybrid', filter: { session: 's1', tier: [0, 1], after: Date.now() - 1e9 } });
  const first = hits[0];
  const score: number = first.score;
  const v: number | null = first.vectorScore;
  mem.search(new Float32Array(384), { mode: 'vector', index: 'int8' });
  mem.search({ text: 'x', embedding: [0, 1] }, { fusion: 'weighted', weights: { vector: 0.7, bm25: 0.3 }, recency: { weight: 0.1 } });
  const rec = mem.get(id);
  if (rec) console.log(rec.text.toUpperCase(), rec.session ?? 'none');
  mem.commit();
  console.log(mem.stats().memories, (await Memory.embed('x', { dim: 64 })).length, score, v);
  // @ts-expect-error mode must be one of the three
  mem.search('x', { mode: 'fuzzy' });
  // @ts-expect-error text is required
  mem.add({ session: 's1' });
  mem.close();
  inMemory.close({ commit: false });

  const store = await Store.open(new NodeFile('/tmp/x.cas', 'w+'), { compression: 'zstd', chunking: { avg: 65536 } });
  const pid: string = await store.put(new Uint8Array(10), { name: 'a' });
  await store.put(new Blob(['x']).stream());
  await store.put((async function* () { yield new Uint8Array(1); })());
  const bytes: Uint8Array = store.get(pid, { start: 0, end: 5 });
  const st = store.stat('a');
  if (st) console.log(st.size, bytes.length, store.list()[0].id, store.verify().ok);
  // @ts-expect-error put takes bytes, streams or files
  await store.put(42);
  store.close();

  const frame = await compress(new Uint32Array([1, 2, 3]));
  const p: ZlProfile = zl.inferProfile(new BigInt64Array(2));
  await compress('a,b\n1,2\n', { profile: 'csv', level: 3 });
  await compress(new Uint8Array(14), { fields: [4, 2, 8] });
  await compress(new Uint8Array(14), { profile: 'records:4,2,8' });
  // @ts-expect-error unknown profile
  await compress(new Uint8Array(1), { profile: 'jpeg' });
  const back: Uint8Array = await decompress(frame);
  console.log(p, back, await sha256('abc'), await zstd.compress('x', { level: 3 }), cairn.Memory === Memory);
  try {
    await decompress(new Uint8Array(3));
  } catch (e) {
    if (e instanceof CairnError) console.log(e.code, e.codeName);
  }
}
void main;
async function paths(): Promise<void> {
  (await Memory.open('agent.mem', { readOnly: true })).close();
  (await Store.open('data.cas')).close();
}
void paths;

// The ephemeral tier, the gate and the observer (js/src/ephemeral.d.ts).
async function ephemeral(mem: Memory): Promise<void> {
  const eph: Ephemeral = await Ephemeral.open({ capacity: 1000, dim: 4, metric: 'cosine', defaultTtlMs: 0 });
  eph.set('plan', 'book the flight', { ttlMs: 60000, embedding: [1, 0, 0, 0] }).set(new Uint8Array([1]), new Uint8Array([2]));
  const v: string | null = eph.get('plan');
  const hits: EphemeralHit[] = eph.search(new Float32Array(4), { k: 5 });
  const id: number = eph.promote('plan', mem, { session: 's1' }, { remove: true });
  const g: GateResult = await gate('ok', { minBytes: 3 });
  const g2: GateResult = gate.sync('ok');
  Ephemeral.openSync({ capacity: 2 }).close();
  const obs: Observer = await Observer.open({ strategy: 'shift', window: 8 });
  const o: ObserveResult = obs.observe({ user: 'I moved to Lisbon', assistant: 'Nice' }, mem);
  console.log(v, hits[0]?.score, id, g.reason, g2.save, o.why, o.saved.user, eph.stats().evicted, eph.size);
  obs.close();
  eph.close();
}
void ephemeral;
async function graph(): Promise<void> {
  const g: Graph = await Graph.open();
  g.functional('lives_in');
  const n: number = g.addFacts([{ subject: 'Maya', predicate: 'lives_in', object: 'Lisbon', validAt: new Date(), sources: [1] }]);
  const facts: GraphFact[] = g.facts({ asOf: 'all' });
  const names: string[] = g.neighbors('Maya', { depth: 2 }).nodes.map((x) => x.name);
  void n, void facts, void names, void g.entities();
  g.close();
}
void graph;
