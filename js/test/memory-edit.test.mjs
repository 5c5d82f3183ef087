// 2026-12-02 - issue 17 from JS: Memory.open(file, { embed, model }) with a deterministic fake
// embedding provider (an async function of the texts, as transformers.js, OpenAI-style APIs or
// Ollama would be wrapped), batching, scopes, put (dedup), update + history + asOf, delete with
// the file's bytes checked, list / export / import round trip, and errors as CairnError.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Memory, NodeFile, CairnError } from '../src/node.js';
import { tmp } from './helpers.mjs';

// A fake provider: 8 dimensions from the letters of each word (deterministic), and a log of
// every call so that batching is visible.
function fakeProvider() {
  const calls = [];
  const embed = async (texts) => {
    calls.push(texts.length);
    await new Promise((r) => setTimeout(r, 1));
    return texts.map((t) => {
      const v = new Array(8).fill(0);
      for (const w of t.toLowerCase().split(/\W+/).filter(Boolean)) v[w.charCodeAt(0) % 8] += 1;
      return v;
    });
  };
  return { embed, calls };
}
const isErr = (name, re) => (e) => e instanceof CairnError && e.codeName === name && (!re || re.test(e.message));

test('embed callback: adds and searches call the caller model, batched', async () => {
  const p = fakeProvider();
  const mem = await Memory.open({ dim: 8, embed: p.embed, model: 'fake-8', batchSize: 3 });
  const ids = await mem.addMany(['apple pie', 'banana bread', 'cherry tart', 'date cake', 'egg nog', 'fig jam', 'grape juice']);
  assert.deepEqual(ids, [1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(p.calls, [3, 3, 1]);
  const id = await mem.add({ text: 'honey toast', user: 'ana' });
  assert.equal(id, 8);
  const hits = await mem.search('honey toast', { k: 1, mode: 'vector' });
  assert.equal(hits[0].id, 8);
  assert.equal(hits[0].user, 'ana');
  assert.equal(mem.stats().memories, 8);
  // the vector stored is the provider's (normalised)
  const e = mem.embedding(8);
  const raw = (await p.embed(['honey toast']))[0];
  const n = Math.hypot(...raw);
  raw.forEach((x, i) => assert.ok(Math.abs(e[i] - x / n) < 1e-6));
  // a provider that returns the wrong number of vectors, or NaN: a clear error
  const bad = await Memory.open({ dim: 8, embed: async (t) => t.map(() => [NaN, 0, 0, 0, 0, 0, 0, 0]) });
  await assert.rejects(bad.add('x'), isErr('TYPE', /finite/));
  const short = await Memory.open({ dim: 8, embed: async () => [] });
  await assert.rejects(short.add('x'), isErr('MISUSE', /must return 1 vector/));
  bad.close(), short.close(), mem.close();
});

test('model name and dimension are recorded and enforced', async () => {
  const file = tmp('mem-model.mem');
  fs.rmSync(file, { force: true });
  const p = fakeProvider();
  let f = new NodeFile(file, 'w+');
  let mem = await Memory.open(f, { dim: 8, embed: p.embed, model: 'fake-8' });
  await mem.add('kiwi salad');
  mem.close(), f.close();
  f = new NodeFile(file, 'r+');
  await assert.rejects(Memory.open(f, { embed: p.embed, model: 'other-model' }), isErr('MISUSE', /fake-8.*other-model/));
  f.close();
  f = new NodeFile(file, 'r+');
  mem = await Memory.open(f); // no embedder: text alone falls back to BM25, adds need a vector
  assert.throws(() => mem.add('no vector'), isErr('MISUSE', /fake-8/));
  assert.throws(() => mem.search('kiwi', { mode: 'vector' }), isErr('MISUSE', /fake-8/));
  assert.equal(mem.search('kiwi')[0].text, 'kiwi salad');
  assert.throws(() => mem.search([1, 2, 3]), isErr('MISUSE', /3 dimensions, the store 8/));
  mem.close(), f.close();
});

test('scopes, put, update with history and asOf, delete gone from the bytes, export/import', async () => {
  const file = tmp('mem-edit-js.mem');
  fs.rmSync(file, { force: true });
  const f = new NodeFile(file, 'w+');
  const mem = await Memory.open(f, { noSync: true });
  const a = mem.put({ text: 'I live in Lisbon', user: 'ana', run: 'r1' });
  assert.equal(a.status, 'added');
  assert.deepEqual(mem.put({ text: 'i live in  LISBON', user: 'ana', run: 'r1' }), { id: a.id, version: 0, status: 'exact', duplicateOf: a.id, similarity: 1 });
  const b = mem.put({ text: 'I live in Lisbon', user: 'bo' });
  assert.equal(b.status, 'added');
  assert.notEqual(b.id, a.id);
  const near = mem.put({ text: 'I live in Lisbon!', user: 'bo' }, { nearThreshold: 0.8, nearPolicy: 'skip' });
  assert.equal(near.status, 'near_skipped');
  assert.equal(near.duplicateOf, b.id);
  assert.deepEqual(mem.search('Lisbon', { user: 'bo', mode: 'bm25' }).map((h) => h.user), ['bo']);
  assert.deepEqual(mem.search('Lisbon', { filter: { user: { ne: 'bo' } }, mode: 'bm25' }).map((h) => h.user), ['ana']);
  mem.add({ text: 'zebrasecret4711 lives here', metadata: { ssn: 'ssn-5566' } });
  mem.commit();
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, 5));
  const v = mem.update(a.id, { text: 'I live in Porto', tier: 2 });
  assert.ok(v > a.id);
  assert.equal(mem.get(a.id).text, 'I live in Porto');
  assert.equal(mem.get(a.id).tier, 2);
  const h = mem.history(a.id);
  assert.deepEqual(h.map((x) => x.text), ['I live in Lisbon', 'I live in Porto']);
  assert.equal(h[0].validTo, h[1].validFrom);
  assert.equal(h[1].validTo, null);
  assert.deepEqual(mem.search('Lisbon', { user: 'ana', mode: 'bm25' }), []);
  assert.deepEqual(mem.search('Lisbon', { user: 'ana', mode: 'bm25', asOf: t0 }).map((x) => [x.id, x.version, x.text]), [[a.id, a.id, 'I live in Lisbon']]);
  assert.throws(() => mem.update(99, { text: 'x' }), isErr('NOTFOUND'));
  assert.throws(() => mem.update(a.id, { colour: 'x' }), isErr('MISUSE', /colour/));
  assert.throws(() => mem.list({ filter: { tier: { bigger: 1 } } }), isErr('MISUSE'));
  // list: filter, order, pagination
  assert.deepEqual(mem.list({ order: 'id', desc: true, limit: 2 }).map((x) => x.id), [3, b.id]);
  assert.deepEqual(mem.list({ history: true }).map((x) => x.version), [1, 2, 3, 4]);
  assert.deepEqual(mem.list({ filter: { 'meta.ssn': { exists: true } } }).map((x) => x.id), [3]);
  // forget: gone from the bytes after the checkpoint
  mem.commit();
  mem.checkpoint();
  assert.ok(fs.readFileSync(file).includes('zebrasecret4711'));
  assert.equal(mem.deleteWhere({ 'meta.ssn': 'ssn-5566' }), 1);
  assert.equal(mem.get(3), null);
  mem.checkpoint();
  const bytes = fs.readFileSync(file);
  assert.ok(!bytes.includes('zebrasecret4711') && !bytes.includes('ssn-5566'));
  // export / import round trip into a new store
  const jsonl = mem.export({ embeddings: true });
  assert.equal(jsonl.trim().split('\n').length, 3);
  const other = await Memory.open();
  assert.equal(other.import(jsonl), 3);
  assert.equal(other.export({ embeddings: true }), jsonl);
  assert.equal(other.get(a.id).text, 'I live in Porto');
  assert.throws(() => other.import('{"text": "fine"}\n{"text": 5}\n'), isErr('MISUSE', /line 2/));
  assert.equal(other.stats().memories, 4); // ids 1..4 (3 forgotten): nothing of the bad import
  const before = fs.statSync(file).size;
  mem.delete(b.id);
  mem.commit();
  mem.compact();
  assert.ok(fs.statSync(file).size <= before);
  other.close(), mem.close(), f.close();
});

test('addMany is all or nothing: a bad record in the middle adds none of them', async () => {
  const mem = await Memory.open({ dim: 8 });
  mem.add('kept before the call');
  const ok = [1, 0, 0, 0, 0, 0, 0, 0];
  assert.throws(() => mem.addMany([{ text: 'quokka one', embedding: ok, user: 'u1' }, 'quokka two', { text: 'quokka three', embedding: [1, 2] }]), isErr('MISUSE'));
  assert.equal(mem.stats().memories, 1);
  assert.deepEqual(mem.search('quokka', { mode: 'bm25' }), []);
  assert.deepEqual(mem.addMany(['quokka two', 'quokka four']), [2, 3]);
  assert.deepEqual(mem.search('quokka', { mode: 'bm25' }).map((h) => h.id).sort(), [2, 3]);
  mem.commit();
  mem.close();
});
