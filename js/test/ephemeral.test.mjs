// 2026-12-02 - the ephemeral tier, the decision gate and the observer from JS (js/src/ephemeral.js):
// set/get/delete against a Map with an LRU model, TTLs (real clock, short), capacity, binary keys,
// embedding search against a brute-force scan in JS, promotion into a Memory, the gate's verdicts
// against the native CLI's, and the observer's strategies saving into a Memory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ephemeral, Observer, gate, Memory, CairnError } from '../src/node.js';
import cairn from '../src/node.js';
import { cli, run } from './helpers.mjs';

function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => ((s ^= s << 13, s ^= s >>> 17, s ^= s << 5) >>> 0) / 4294967296;
}

test('exported from the package entry and its default export', () => {
  assert.equal(typeof Ephemeral.open, 'function');
  assert.equal(cairn.Ephemeral, Ephemeral);
  assert.equal(cairn.gate, gate);
  assert.equal(cairn.Observer, Observer);
});

test('sync forms for getters and statics (after init): openSync, gate.sync', async () => {
  await cairn.init();
  const e = Ephemeral.openSync({ capacity: 4 });
  e.set('k', 'v');
  assert.equal(e.get('k'), 'v');
  e.close();
  assert.equal(gate.sync('ok').reason, 'trivial');
  const o = Observer.openSync({ strategy: 'importance' });
  assert.equal(o.observe({ user: 'My sister Ana lives in Porto', importance: 0.9 }).why, 'important');
  o.close();
});

test('set, get, delete, overwrite, binary keys, stats', async () => {
  const e = await Ephemeral.open({ capacity: 100 });
  e.set('a', 'apple').set('b', '').set('ünï', 'côdé ✓');
  assert.equal(e.get('a'), 'apple');
  assert.equal(e.get('b'), '');
  assert.equal(e.get('ünï'), 'côdé ✓');
  assert.equal(e.get('zz'), null);
  e.set('a', 'x'.repeat(10000));
  assert.equal(e.get('a').length, 10000);
  assert.equal(e.delete('a'), true);
  assert.equal(e.delete('a'), false);
  assert.equal(e.has('a'), false);
  e.set(new Uint8Array([1, 0, 2]), new Uint8Array([9, 0, 9]));
  assert.deepEqual([...e.getBytes(new Uint8Array([1, 0, 2]))], [9, 0, 9]);
  assert.equal(e.get(new Uint8Array([1, 0, 3])), null);
  const st = e.stats();
  assert.equal(st.count, 3);
  assert.equal(st.capacity, 100);
  assert.equal(st.deletes, 1);
  assert.equal(e.size, 3);
  assert.throws(() => e.set('', 'v'), (err) => err instanceof CairnError && err.codeName === 'RANGE');
  assert.throws(() => e.set('k', undefined), (err) => err instanceof CairnError && err.codeName === 'MISUSE');
  assert.throws(() => e.set('k', 'v', { ttlMs: -1 }), (err) => err instanceof CairnError && err.codeName === 'RANGE');
  e.clear();
  assert.equal(e.size, 0);
  e.close();
  assert.throws(() => e.get('a'), /closed/);
});

test('capacity 0 is refused; LRU order against a model', async () => {
  await assert.rejects(Ephemeral.open({ capacity: 0 }), (err) => err instanceof CairnError && err.codeName === 'RANGE');
  const cap = 37, e = await Ephemeral.open({ capacity: cap });
  const model = new Map(); // insertion order = LRU order (oldest first)
  const r = rng(5);
  for (let i = 0; i < 20000; i++) {
    const k = `k${Math.floor(r() * 120)}`, op = r();
    if (op < 0.5) {
      const v = `v${i}`;
      e.set(k, v);
      model.delete(k);
      if (model.size === cap) model.delete(model.keys().next().value);
      model.set(k, v);
    } else if (op < 0.85) {
      const got = e.get(k);
      assert.equal(got, model.has(k) ? model.get(k) : null);
      if (model.has(k)) {
        const v = model.get(k);
        model.delete(k);
        model.set(k, v);
      }
    } else {
      assert.equal(e.delete(k), model.delete(k));
    }
  }
  assert.equal(e.size, model.size);
  e.close();
});

test('TTL: expiry, default TTL, expire(), Infinity, purge', async () => {
  // Margins of 850 ms and more: the event loop of a loaded machine can be late by a lot.
  const e = await Ephemeral.open({ capacity: 10, defaultTtlMs: 1000 });
  e.set('short', 's', { ttlMs: 20 }).set('dflt', 'd').set('never', 'n', { ttlMs: Infinity });
  assert.ok(e.entry('short').ttlLeftMs <= 20);
  assert.equal(e.entry('never').ttlLeftMs, null);
  await new Promise((res) => setTimeout(res, 150));
  assert.equal(e.get('short'), null);
  assert.equal(e.get('dflt'), 'd');
  assert.equal(e.expire('never', 10), true);
  assert.equal(e.expire('nope', 10), false);
  await new Promise((res) => setTimeout(res, 1000));
  assert.equal(e.purge(), 2); // dflt (1000 ms) and never (now 10 ms)
  assert.equal(e.size, 0);
  assert.equal(e.stats().expired, 3);
  e.close();
});

test('search matches a brute-force scan (cosine, ip, l2), skips entries without embeddings', async () => {
  const D = 24, N = 600, r = rng(11);
  const vecs = Array.from({ length: N }, () => Float32Array.from({ length: D }, () => r() * 2 - 1));
  for (const metric of ['cosine', 'ip', 'l2']) {
    const e = await Ephemeral.open({ capacity: N, dim: D, metric });
    for (let i = 0; i < N; i++) e.set(`k${i}`, `v${i}`, i % 9 ? { embedding: vecs[i] } : {});
    for (let i = 0; i < N; i += 13) e.delete(`k${i}`);
    const live = (i) => i % 9 !== 0 && i % 13 !== 0;
    const score = (a, q) => {
      let dot = 0, na = 0, nq = 0, l2 = 0;
      for (let j = 0; j < D; j++) dot += a[j] * q[j], na += a[j] * a[j], nq += q[j] * q[j], l2 += (a[j] - q[j]) ** 2;
      return metric === 'cosine' ? dot / Math.sqrt(na * nq) : metric === 'ip' ? dot : -l2;
    };
    const q = vecs[7];
    const ref = [];
    for (let i = 0; i < N; i++) if (live(i)) ref.push({ key: `k${i}`, score: score(vecs[i], q) });
    ref.sort((a, b) => b.score - a.score);
    const hits = e.search(q, { k: 10 });
    assert.equal(hits.length, 10);
    for (let i = 0; i < 10; i++) {
      assert.ok(Math.abs(hits[i].score - ref[i].score) < 1e-4 * (metric === 'cosine' ? 1 : D), `${metric} ${i}`);
      assert.equal(hits[i].key, ref[i].key, `${metric} rank ${i}`);
      assert.equal(hits[i].value, `v${hits[i].key.slice(1)}`);
    }
    assert.equal(e.search(q, { k: 5000 }).length, ref.length);
    assert.throws(() => e.search(new Float32Array(D - 1)), (err) => err.codeName === 'MISUSE');
    e.close();
  }
});

test('promote into a Memory: with the embedding when the dimension matches, else the text', async () => {
  const e = await Ephemeral.open({ capacity: 10, dim: 8 });
  const mem = await Memory.open({ dim: 8 });
  e.set('plan', 'book the flight to Lisbon', { embedding: [3, 0, 0, 4, 0, 0, 0, 0] });
  const id = e.promote('plan', mem, { session: 's1', importance: 0.5 });
  assert.equal(id, 1);
  assert.equal(mem.get(id).text, 'book the flight to Lisbon');
  assert.equal(mem.get(id).session, 's1');
  assert.equal(e.get('plan'), 'book the flight to Lisbon');
  e.promote('plan', mem, {}, { remove: true });
  assert.equal(e.get('plan'), null);
  assert.throws(() => e.promote('plan', mem), (err) => err instanceof CairnError && err.codeName === 'NOTFOUND');
  const other = await Memory.open({ dim: 32 });
  e.set('x', 'hello there', { embedding: [1, 0, 0, 0, 0, 0, 0, 0] });
  assert.equal(e.promote('x', other), 1); // the store embedded the text itself
  other.close();
  mem.close();
  e.close();
});

test('gate: verdicts, options, and the same as the native CLI', async () => {
  const cases = {
    ok: 'trivial', 'thank you so much!': 'trivial', '': 'empty', '  ?! ': 'empty', Paris: 'short',
    'I moved to Lisbon in May': 'pass',
    'well it is what it is and that is how it was with the weather and the rain': 'low content',
  };
  for (const [text, reason] of Object.entries(cases)) {
    const g = await gate(text);
    assert.equal(g.reason, reason, text);
    assert.equal(g.save, reason === 'pass');
    if (cli && text.trim()) {
      const native = JSON.parse(run('mem', 'gate', '--json', text));
      assert.deepEqual({ ...g, ratio: Math.round(g.ratio * 1e4) / 1e4 }, native, text);
    }
  }
  assert.equal((await gate('Paris', { minBytes: 3, minContentWords: 1 })).reason, 'pass');
  assert.equal((await gate('x'.repeat(2 << 20))).reason, 'too long');
  await assert.rejects(gate(42), (err) => err.codeName === 'MISUSE');
});

test('observer: every exchange, on shift, on importance; saving into a Memory', async () => {
  const mem = await Memory.open();
  const every = await Observer.open();
  let o = every.observe({ user: 'I moved to Lisbon in May', assistant: 'ok', session: 's1' }, mem);
  assert.equal(o.why, 'every');
  assert.deepEqual(o.saved, { user: 1, assistant: null });
  assert.equal(o.assistant.reason, 'trivial');
  assert.equal(mem.get(1).role, 'user');
  o = every.observe({ user: 'thanks' });
  assert.equal(o.why, 'gated');
  assert.equal(o.save, false);
  every.close();

  const shift = await Observer.open({ strategy: 'shift', shiftThreshold: 0.5 });
  const ex = { user: 'My dog Biscuit loves the beach', assistant: 'Biscuit sounds like a happy dog at the beach' };
  o = shift.observe(ex, mem);
  assert.equal(o.shift, 1);
  assert.equal(o.why, 'shift');
  assert.deepEqual(o.saved, { user: 2, assistant: 3 });
  o = shift.observe(ex, mem);
  assert.equal(o.why, 'no shift');
  assert.ok(o.shift < 0.05);
  o = shift.observe({ user: 'What is the capital of Australia', assistant: 'Canberra is the capital city of Australia' });
  assert.equal(o.why, 'shift');
  assert.deepEqual(o.saved, { user: null, assistant: null }); // no Memory given: decided only
  shift.close();

  const imp = await Observer.open({ strategy: 'importance', importanceThreshold: 0.6 });
  assert.equal(imp.observe({ user: 'My sister Ana lives in Porto', importance: 0.9 }).why, 'important');
  assert.equal(imp.observe({ user: 'My sister Ana lives in Porto', importance: 0.1 }).why, 'unimportant');
  imp.close();
  await assert.rejects(Observer.open({ strategy: 'sometimes' }), (err) => err.codeName === 'MISUSE');
  mem.close();
});
