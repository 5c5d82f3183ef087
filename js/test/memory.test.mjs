// 2026-11-29 - agent memory from JS (js/src/memory.js): results checked against the native CLI
// on the same file (native kernels, POSIX I/O), against a brute-force cosine search written in
// JS, and against the filters' meaning; reopening, durability and errors as CairnError.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { Memory, MemoryFile, NodeFile, CairnError } from '../src/node.js';
import { cli, run, tmp } from './helpers.mjs';

const DAY = 86400000;
const { turns, questions } = await Memory.demoData();
// The CLI's demo stores "Speaker: text" so that questions naming a person find their turns.
const records = turns.map((t) => ({ text: `${t.speaker}: ${t.text}`, session: t.session, role: t.speaker, time: t.time, created: t.time }));

function assertSameHits(js, native, what) {
  assert.deepEqual(js.map((h) => h.id), native.map((h) => h.id), `${what}: ids`);
  for (let i = 0; i < js.length; i++) {
    assert.ok(Math.abs(js[i].score - native[i].score) <= 1e-5 * Math.max(1, Math.abs(native[i].score)), `${what}: score ${js[i].score} vs ${native[i].score}`);
    assert.equal(js[i].text, native[i].text);
    assert.equal(js[i].session, native[i].session);
  }
}
const cliSearch = (file, q, mode, k = 5, extra = []) =>
  run('mem', 'search', file, q, '--k', String(k), '--mode', mode, '--json', ...extra).trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));

test('demo data: the same conversation and questions as `cairn mem demo`', { skip: !cli && 'native CLI not built' }, () => {
  assert.ok(turns.length >= 20 && questions.length >= 5);
  const out = run('mem', 'demo');
  assert.match(out, new RegExp(`ingested ${turns.length} turns`));
  for (const q of questions) assert.ok(out.includes(`Q: ${q.question}`), q.question);
});

test('JS writes a NodeFile, the native CLI searches it: same hits; reopening gives the same results', { skip: !cli && 'native CLI not built' }, async () => {
  const file = tmp('demo.mem');
  fs.rmSync(file, { force: true });
  const f = new NodeFile(file, 'w+');
  const mem = await Memory.open(f);
  const ids = mem.addMany(records);
  assert.deepEqual(ids, records.map((_, i) => i + 1));
  mem.commit();
  const before = {};
  for (const q of questions) for (const mode of ['hybrid', 'vector', 'bm25']) before[`${mode} ${q.question}`] = mem.search(q.question, { k: 5, mode });
  mem.close();
  f.close();

  for (const q of questions)
    for (const mode of ['hybrid', 'vector', 'bm25']) assertSameHits(before[`${mode} ${q.question}`], cliSearch(file, q.question, mode), `${mode}: ${q.question}`);

  // Reopen read-only from the same file: every index rebuilt, the same answers.
  const g = new NodeFile(file, 'r');
  const again = await Memory.open(g, { readOnly: true });
  assert.equal(again.stats().memories, records.length);
  for (const q of questions)
    for (const mode of ['hybrid', 'vector', 'bm25']) assert.deepEqual(again.search(q.question, { k: 5, mode }), before[`${mode} ${q.question}`]);
  // The answering turn is found for most questions (built-in embedder: word overlap only).
  const top3 = questions.filter((q) => again.search(q.question, { k: 3 }).some((h) => h.id === q.turn + 1)).length;
  assert.ok(top3 >= questions.length * 0.7, `${top3} of ${questions.length} in the top 3`);
  assert.throws(() => again.add({ text: 'x' }), (e) => e instanceof CairnError && e.codeName === 'READONLY');
  again.close();
  g.close();
});

test('the native CLI writes, JS reads the records and finds the same hits', { skip: !cli && 'native CLI not built' }, async () => {
  const file = tmp('cli.mem');
  fs.rmSync(file, { force: true });
  run('mem', 'add', file, 'I adopted a beagle called Pepper', 'Pepper howls when I leave', '--session', 'a', '--role', 'user', '--tier', '1', '--time', '1700000000000', '--meta', '{"topic":"dog"}');
  run('mem', 'add', file, 'My sister lives in Montreal', '--session', 'b', '--role', 'assistant', '--importance', '0.5');
  const f = new NodeFile(file, 'r+');
  const mem = await Memory.open(f);
  assert.equal(mem.stats().memories, 3);
  const r1 = mem.get(1);
  assert.equal(r1.text, 'I adopted a beagle called Pepper');
  assert.equal(r1.session, 'a');
  assert.equal(r1.role, 'user');
  assert.equal(r1.tier, 1);
  assert.equal(r1.time, 1700000000000);
  assert.deepEqual(r1.metadata, { topic: 'dog' });
  assert.equal(mem.get(3).importance, 0.5);
  assert.equal(mem.get(3).metadata, null);
  assert.equal(mem.get(4), null);
  for (const mode of ['hybrid', 'vector', 'bm25']) assertSameHits(mem.search('where does my sister live', { k: 3, mode }), cliSearch(file, 'where does my sister live', mode, 3), mode);
  // JS appends to the CLI's file; the CLI sees it.
  const id = mem.add({ text: 'Pepper learned to fetch', session: 'a', role: 'user' });
  mem.close(); // commits by default
  f.close();
  assert.equal(id, 4);
  assert.match(run('mem', 'stats', file), /memories\s+4/);
  assert.equal(cliSearch(file, 'fetch', 'bm25', 1)[0].id, 4);
});

test('caller embeddings: vector search equals a brute-force cosine top-k computed in JS', async () => {
  const dim = 24, n = 300;
  let x = 12345;
  const rnd = () => ((x = (x * 1103515245 + 12345) >>> 0) / 2 ** 32) * 2 - 1;
  const vecs = Array.from({ length: n }, () => Float32Array.from({ length: dim }, rnd));
  const mem = await Memory.open({ dim });
  for (let i = 0; i < n; i++) mem.add({ text: `memory number ${i}`, embedding: vecs[i], session: `s${i % 3}` });
  const norm = (v) => Math.hypot(...v);
  const cos = (a, b) => a.reduce((s, ai, i) => s + ai * b[i], 0) / (norm(a) * norm(b));
  for (let t = 0; t < 5; t++) {
    const q = Float32Array.from({ length: dim }, rnd);
    const want = vecs.map((v, i) => ({ id: i + 1, s: cos(q, v) })).sort((a, b) => b.s - a.s).slice(0, 10);
    const got = mem.search(q, { k: 10, mode: 'vector', index: 'flat' });
    assert.deepEqual(got.map((h) => h.id), want.map((w) => w.id));
    for (let i = 0; i < 10; i++) assert.ok(Math.abs(got[i].score - want[i].s) < 1e-5);
    // Filter inside the search: the best of session s1 only, still exact.
    const want1 = want.length && vecs.map((v, i) => ({ id: i + 1, s: cos(q, v) })).filter((w) => (w.id - 1) % 3 === 1).sort((a, b) => b.s - a.s).slice(0, 5);
    assert.deepEqual(mem.search(q, { k: 5, mode: 'vector', filter: { session: 's1' } }).map((h) => h.id), want1.map((w) => w.id));
    // int8 scan + exact re-rank finds the same top 10 here.
    assert.deepEqual(mem.search(q, { k: 10, mode: 'vector', index: 'int8' }).map((h) => h.id), want.map((w) => w.id));
  }
  const e = mem.embedding(1);
  assert.ok(Math.abs(norm(e) - 1) < 1e-5); // cosine stores keep unit vectors
  assert.ok(Math.abs(cos(e, vecs[0]) - 1) < 1e-5);
  mem.close();
});

test('IVF index: built, searched with full probing equal to the exact scan, kept in the file', async () => {
  const dim = 16, n = 2000;
  let x = 99;
  const rnd = () => ((x = (x * 1103515245 + 12345) >>> 0) / 2 ** 32) * 2 - 1;
  const centres = Array.from({ length: 20 }, () => Float32Array.from({ length: dim }, rnd));
  const file = new MemoryFile();
  const mem = await Memory.open(file, { dim });
  for (let i = 0; i < n; i++) mem.add({ text: `v${i}`, embedding: centres[i % 20].map((c) => c + 0.1 * rnd()) });
  mem.buildIndex({ kind: 'ivf', nlist: 20, seed: 7 });
  assert.equal(mem.stats().index, 'ivf');
  assert.equal(mem.stats().indexLists, 20);
  const queries = Array.from({ length: 10 }, () => Float32Array.from({ length: dim }, rnd));
  const exact = queries.map((q) => mem.search(q, { k: 10, mode: 'vector', index: 'flat' }).map((h) => h.id));
  for (let i = 0; i < queries.length; i++) assert.deepEqual(mem.search(queries[i], { k: 10, mode: 'vector', index: 'ivf', nprobe: 20, rerank: 2000 }).map((h) => h.id), exact[i]);
  let found = 0;
  for (let i = 0; i < queries.length; i++) found += mem.search(queries[i], { k: 10, mode: 'vector', index: 'ivf', nprobe: 4 }).filter((h) => exact[i].includes(h.id)).length;
  assert.ok(found >= 60, `recall@10 with nprobe 4: ${found / 100}`);
  mem.close();
  const again = await Memory.open(file);
  assert.equal(again.stats().index, 'ivf'); // not retrained: read back from the file
  assert.deepEqual(again.search(queries[0], { k: 10, mode: 'vector', index: 'ivf', nprobe: 20, rerank: 2000 }).map((h) => h.id), exact[0]);
  assert.throws(() => again.buildIndex({ kind: 'hnsw' }), (e) => e instanceof CairnError && e.codeName === 'MISUSE');
  again.close();
});

test('filters: session, role, tier, time range and metadata apply inside the search', async () => {
  const mem = await Memory.open();
  const t0 = Date.UTC(2026, 0, 1);
  const rows = [];
  for (let i = 0; i < 60; i++) {
    const r = { text: `note ${i} about the garden and ${['tomatoes', 'roses', 'bees'][i % 3]}`, session: `s${i % 4}`, role: i % 2 ? 'user' : 'assistant', tier: i % 3, time: t0 + i * DAY, metadata: { kind: i % 5 === 0 ? 'plan' : 'chat', n: i } };
    rows.push({ ...r, id: mem.add(r) });
  }
  const cases = [
    [{ session: 's2' }, (r) => r.session === 's2'],
    [{ role: 'user' }, (r) => r.role === 'user'],
    [{ tier: [0, 2] }, (r) => r.tier === 0 || r.tier === 2],
    [{ tier: 1 }, (r) => r.tier === 1],
    [{ after: new Date(t0 + 10 * DAY), before: t0 + 20 * DAY }, (r) => r.time >= t0 + 10 * DAY && r.time < t0 + 20 * DAY],
    [{ meta: { kind: 'plan' } }, (r) => r.metadata.kind === 'plan'],
    [{ session: 's1', role: 'user', tier: [1] }, (r) => r.session === 's1' && r.role === 'user' && r.tier === 1],
  ];
  for (const [filter, pred] of cases) {
    const want = rows.filter(pred).map((r) => r.id).sort((a, b) => a - b);
    for (const mode of ['bm25', 'vector', 'hybrid']) {
      const got = mem.search('garden', { k: 100, mode, filter });
      assert.deepEqual(got.map((h) => h.id).sort((a, b) => a - b), want, `${mode} ${JSON.stringify(filter)}`);
    }
  }
  // A word only some memories have: BM25 returns exactly those that also pass the filter.
  const bees = mem.search('bees', { k: 100, mode: 'bm25', filter: { session: 's3' } });
  assert.deepEqual(bees.map((h) => h.id).sort((a, b) => a - b), rows.filter((r) => r.session === 's3' && r.text.includes('bees')).map((r) => r.id));
  assert.throws(() => mem.search('x', { filter: { colour: 'red' } }), (e) => e instanceof CairnError && /colour/.test(e.message));
  assert.throws(() => mem.search('x', { filter: { tier: 'high' } }), (e) => e instanceof CairnError && /tier/.test(e.message));
  mem.close();
});

test('search options: recency, weighted fusion, touch counts', async () => {
  const mem = await Memory.open();
  const t0 = Date.UTC(2026, 0, 1);
  const old = mem.add({ text: 'the meeting moved to Tuesday', time: t0 });
  const recent = mem.add({ text: 'the meeting moved to Tuesday', time: t0 + 60 * DAY });
  mem.add({ text: 'lunch with Ana on Friday', time: t0 + 61 * DAY });
  // Identical texts tie; a recency term puts the newer one first.
  const withRecency = mem.search('meeting', { k: 2, mode: 'bm25', recency: { weight: 1, halfLifeHours: 24 * 7 } });
  assert.equal(withRecency[0].id, recent);
  assert.ok(withRecency[0].score > withRecency[1].score);
  const noRecency = mem.search('meeting', { k: 2, mode: 'bm25' });
  assert.equal(noRecency[0].score, noRecency[1].score);
  assert.deepEqual(noRecency.map((h) => h.id).sort(), [old, recent]);
  // Weighted fusion: with all weight on BM25, the ranking follows BM25 scores.
  const w = mem.search('lunch Friday', { k: 3, mode: 'hybrid', fusion: 'weighted', weights: { vector: 0, bm25: 1 } }); // (the default, auto, is BM25 here)
  assert.equal(w[0].text, 'lunch with Ana on Friday');
  assert.ok(w[0].bm25Score > 0 && w[0].vectorScore !== null);
  // touch: every returned hit counts one access.
  mem.search('meeting', { k: 2, mode: 'bm25', touch: true });
  mem.touch(old);
  assert.equal(mem.get(old).accessCount, 2);
  assert.equal(mem.get(recent).accessCount, 1);
  mem.close();
});

test('MemoryFile: committed memories survive reopening, uncommitted ones do not', async () => {
  const file = new MemoryFile();
  const a = await Memory.open(file, { dim: 64 });
  a.add({ text: 'kept one', metadata: { a: [1, 2] } });
  a.add({ text: 'kept two' });
  a.commit();
  a.add({ text: 'dropped' });
  a.close({ commit: false });
  const b = await Memory.open(file);
  assert.equal(b.stats().dim, 64); // the store keeps its own dimension
  assert.equal(b.stats().memories, 2);
  assert.deepEqual(b.get(1).metadata, { a: [1, 2] });
  assert.equal(b.search('dropped', { mode: 'bm25' }).length, 0);
  b.add({ text: 'third' });
  b.close(); // commits
  const c = await Memory.open(new MemoryFile(file.bytes()));
  assert.equal(c.stats().memories, 3);
  assert.equal(c.get(3).text, 'third');
  c.close();
  await assert.rejects(Memory.open(file, { dim: 32 }), (e) => e instanceof CairnError && e.codeName === 'MISUSE');
});

test('Node: Memory.open(path) opens (or creates) the file itself and closes it with the store', async () => {
  const file = tmp('by-path.mem');
  fs.rmSync(file, { force: true });
  const fds = () => fs.readdirSync('/proc/self/fd').length;
  const n0 = fds();
  const a = await Memory.open(file, { dim: 16 });
  assert.equal(fds(), n0 + 1);
  a.add({ text: 'opened by path' });
  a.close();
  assert.equal(fds(), n0, 'the file is closed with the store');
  const b = await Memory.open(file, { readOnly: true });
  assert.equal(b.get(1).text, 'opened by path');
  b.close();
  assert.equal(fds(), n0);
  await assert.rejects(Memory.open(tmp('missing.mem'), { readOnly: true }), (e) => e instanceof CairnError && e.codeName === 'IOERR');
});

test('disk: f16/int8 vectors in the file where the core supports them, else a clear UNSUPPORTED', async () => {
  let mem;
  try {
    mem = await Memory.open(new MemoryFile(), { dim: 8, disk: 'int8' });
  } catch (e) {
    assert.ok(e instanceof CairnError && e.codeName === 'UNSUPPORTED', String(e));
    return;
  }
  assert.equal(mem.stats().disk, 'int8');
  mem.add({ text: 'a', embedding: [1, 0, 0, 0, 0, 0, 0, 0] });
  assert.equal(mem.search([1, 0, 0, 0, 0, 0, 0, 0], { mode: 'vector', k: 1 })[0].id, 1);
  mem.close();
});

test('the built-in embedder: deterministic, unit length, word overlap', async () => {
  const a = await Memory.embed('Pepper the beagle howls');
  const b = await Memory.embed('Pepper the beagle howls');
  const c = await Memory.embed('quarterly tax filing');
  assert.equal(a.length, 256);
  assert.deepEqual(a, b);
  const dot = (x, y) => x.reduce((s, v, i) => s + v * y[i], 0);
  assert.ok(Math.abs(dot(a, a) - 1) < 1e-5);
  assert.ok(dot(a, await Memory.embed('my beagle Pepper')) > dot(a, c) + 0.2);
  assert.deepEqual(await Memory.tokenize("The dogs' names were Pepper and Rex!"), ['dog', 'name', 'pepper', 'rex']);
  // A store without a caller embedding uses exactly this embedder.
  const mem = await Memory.open();
  const id = mem.add({ text: 'Pepper the beagle howls' });
  assert.deepEqual(mem.embedding(id), a);
  mem.close();
});

test('bad input: clear CairnErrors, nothing half-added', async () => {
  const mem = await Memory.open({ dim: 4 });
  const isErr = (name, re) => (e) => e instanceof CairnError && e.codeName === name && (!re || re.test(e.message));
  assert.throws(() => mem.add({ text: 'x', embedding: [1, 2, 3] }), isErr('MISUSE', /3 dimensions, the store 4/));
  assert.throws(() => mem.add({ text: 'x', embedding: [1, NaN, 0, 0] }), isErr('TYPE', /NaN/));
  assert.throws(() => mem.add({ text: '' }), isErr('RANGE'));
  assert.throws(() => mem.add({ text: 'x'.repeat((1 << 20) + 1) }), isErr('RANGE'));
  assert.throws(() => mem.add({ text: 'x', tier: 40 }), isErr('RANGE'));
  assert.throws(() => mem.add({}), isErr('MISUSE', /text is required/));
  assert.throws(() => mem.add({ text: 'x', metadata: 'no' }), isErr('MISUSE'));
  assert.throws(() => mem.search('x', { mode: 'fuzzy' }), isErr('MISUSE', /mode/));
  assert.throws(() => mem.search('x', { k: 0 }), isErr('MISUSE', /k must/));
  assert.throws(() => mem.search([1, 2], { mode: 'vector' }), isErr('MISUSE'));
  assert.equal(mem.stats().memories, 0);
  mem.add({ text: 'fine', embedding: [1, 0, 0, 0] });
  assert.equal(mem.stats().memories, 1);
  mem.close();
  mem.close(); // twice is a no-op
  assert.throws(() => mem.search('x'), isErr('MISUSE', /closed/));
  await assert.rejects(Memory.open(new MemoryFile(new TextEncoder().encode('this is not a memory store at all, not even close'))), (e) => e instanceof CairnError);
});

// The file is an HDF5 file: after checkpoint() (and close()) h5py, an independent reader, sees
// every memory with its text, names, times and embedding; memories committed after the last
// checkpoint live in the log past the HDF5 end of allocation, which h5py ignores.
const havePy = (() => {
  try {
    execFileSync('/usr/bin/python3', ['-c', 'import h5py, numpy'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
test('JS writes, h5py reads /memory after checkpoint()', { skip: !havePy && 'no /usr/bin/python3 with h5py' }, async () => {
  const file = tmp('h5py.mem');
  fs.rmSync(file, { force: true });
  const mem = await Memory.open(file, { dim: 8, metric: 'ip' });
  const recs = [];
  for (let i = 0; i < 30; i++) {
    const embedding = Float32Array.from({ length: 8 }, (_, j) => ((i * 7 + j * 3) % 11) / 4 - 1);
    recs.push({ text: `turn ${i}: café №${i}`, session: `s${i % 3}`, role: i % 2 ? 'assistant' : 'user', time: 1600000000000 + i, created: 1700000000000 + i, embedding });
  }
  mem.addMany(recs.slice(0, 20));
  mem.checkpoint();
  mem.addMany(recs.slice(20));
  mem.commit(); // in the log only
  const py = `
import h5py, json, sys
g = h5py.File(sys.argv[1], "r")["memory"]
n = int(g.attrs["count"])
o, b = g["text_offsets"][:], g["text_bytes"][:]
no, nb = g["names_offsets"][:], g["names_bytes"][:]
name = lambda k: None if k == 0xFFFFFFFF else bytes(nb[no[k]:no[k + 1]]).decode()
print(json.dumps({"n": n, "text": [bytes(b[o[i]:o[i + 1]]).decode() for i in range(n)],
  "session": [name(k) for k in g["session"][:]], "role": [name(k) for k in g["role"][:]],
  "event": g["event_ms"][:].tolist(), "created": g["created_ms"][:].tolist(), "emb": g["embedding"][:].tolist()}))`;
  const read = () => JSON.parse(execFileSync('/usr/bin/python3', ['-c', py, file], { encoding: 'utf8' }));
  const check = (got, n) => {
    assert.equal(got.n, n);
    assert.deepEqual(got.text, recs.slice(0, n).map((r) => r.text));
    assert.deepEqual(got.session, recs.slice(0, n).map((r) => r.session));
    assert.deepEqual(got.role, recs.slice(0, n).map((r) => r.role));
    assert.deepEqual(got.event, recs.slice(0, n).map((r) => r.time));
    assert.deepEqual(got.created, recs.slice(0, n).map((r) => r.created));
    assert.deepEqual(got.emb, recs.slice(0, n).map((r) => Array.from(r.embedding))); // inner product: stored as given
  };
  check(read(), 20); // the last 10 are in the log
  assert.equal(mem.stats().memories, 30);
  mem.close(); // checkpoints
  check(read(), 30);
  const again = await Memory.open(file, { readOnly: true });
  assert.equal(again.stats().memories, 30);
  assert.equal(again.get(30).text, recs[29].text);
  again.close();
});
