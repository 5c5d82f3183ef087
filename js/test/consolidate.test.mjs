// 2026-12-02 - issue 18 from JS (js/src/consolidate.js): mem.consolidate() evicts the weakest
// working memories beyond capacity and merges near duplicates into a semantic memory citing them
// (the extractive rule, and an async summariser); a summariser that throws or returns garbage
// leaves the store unchanged; mem.explain(id) says why; mem.tick({ budgetMs }) reports due/done;
// mem.ephemeral and Memory.gate are there; bad options are CairnError MISUSE / RANGE.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Memory, CairnError } from '../src/node.js';

const isErr = (name) => (e) => e instanceof CairnError && e.codeName === name;
const NOW = Date.UTC(2026, 11, 2);

async function store() {
  const mem = await Memory.open({ textOnly: true });
  const t = NOW - 3600e3;
  mem.add({ text: 'the anchor memory everyone links to', importance: 0.9, time: t });
  mem.add({ text: 'the boiler service is booked for monday at nine', metadata: { links: [1] }, time: t });
  mem.add({ text: 'the boiler service is booked for monday at nine.', metadata: { links: [1] }, time: t });
  for (const w of ['kites', 'lanterns', 'pebbles']) mem.add({ text: `a passing thought about ${w}`, time: t });
  mem.add({ text: 'an important fact: the passport expires in june', importance: 1, time: t });
  return mem;
}
const tiers = (mem) => mem.list().map((r) => r.tier);
const snapshot = (mem) => JSON.stringify(mem.list());

test('consolidate: evicts beyond capacity, merges near duplicates (extractive), explain says why', async () => {
  const mem = await store();
  const dry = await mem.consolidate({ capacity: 2, now: NOW, dryRun: true });
  assert.equal(dry.evicted, 5);
  assert.deepEqual(tiers(mem), [0, 0, 0, 0, 0, 0, 0]); // a dry run changes nothing
  const r = await mem.consolidate({ capacity: 2, now: NOW });
  assert.equal(r.working, 7);
  assert.equal(r.evicted, 5);
  assert.deepEqual(r.evict.includes(1) || r.evict.includes(7), false); // the linked and the important stay
  assert.equal(r.promoted, 1);
  assert.deepEqual([...r.groups[0].sources].sort(), [2, 3]);
  const sem = mem.list().filter((x) => x.tier === 2);
  assert.equal(sem.length, 1);
  assert.deepEqual(sem[0].metadata.sources, [2, 3]);
  assert.equal(sem[0].metadata.rule, 'extractive');
  assert.match(sem[0].text, /boiler service/);
  const e1 = mem.explain(1, { capacity: 2, now: NOW });
  assert.equal(e1.decision, 'kept');
  assert.equal(e1.inputs.links, 2);
  assert.ok(e1.score.links > 0);
  const e2 = mem.explain(2, { now: NOW });
  assert.equal(e2.decision, 'merged');
  assert.equal(e2.mergedInto, sem[0].id);
  assert.deepEqual(e2.history.map((h) => h.tierName), ['working', 'episodic']);
  assert.equal(mem.explain(4, { now: NOW }).decision, 'evicted');
  assert.throws(() => mem.explain(999), isErr('NOTFOUND'));
  // a second cycle has nothing to do
  const again = await mem.consolidate({ capacity: 2, now: NOW });
  assert.equal(again.evicted + again.promoted, 0);
  mem.close();
});

test('consolidate: an async summariser writes the text; one that fails leaves the store unchanged', async () => {
  const mem = await store();
  const before = snapshot(mem);
  await assert.rejects(mem.consolidate({ capacity: 2, now: NOW, summarise: async () => { throw new Error('llm down'); } }), /llm down/);
  assert.equal(snapshot(mem), before);
  await assert.rejects(mem.consolidate({ capacity: 2, now: NOW, summarise: async () => 42 }), isErr('TYPE'));
  assert.equal(snapshot(mem), before);
  await assert.rejects(mem.consolidate({ capacity: 2, now: NOW, summarise: async () => '' }), isErr('TYPE'));
  assert.equal(snapshot(mem), before);
  const seen = [];
  const r = await mem.consolidate({
    capacity: 2, now: NOW,
    summarise: async (texts, ids) => { seen.push(ids); await new Promise((f) => setTimeout(f, 1)); return `merged: ${texts.length} notes on the boiler`; },
  });
  assert.equal(seen.length, 1);
  assert.equal(r.summarised, 1);
  const sem = mem.list().filter((x) => x.tier === 2);
  assert.equal(sem[0].text, 'merged: 2 notes on the boiler');
  assert.equal(sem[0].metadata.rule, 'summariser');
  mem.close();
});

test('tick: budget 0 reports the due and runs nothing; a budget runs the consolidation', async () => {
  const mem = await store();
  const t0 = mem.tick({ budgetMs: 0, consolidate: { capacity: 2, now: NOW } });
  assert.ok(t0.due.includes('consolidate'));
  assert.deepEqual(t0.done, []);
  assert.deepEqual(tiers(mem), [0, 0, 0, 0, 0, 0, 0]);
  const t1 = mem.tick({ budgetMs: 5000, consolidate: { capacity: 2, now: NOW } });
  assert.ok(t1.done.includes('consolidate'));
  assert.equal(t1.consolidate.evicted, 5);
  assert.throws(() => mem.tick({ budgetMs: -1 }), isErr('RANGE'));
  assert.throws(() => mem.tick({ nope: 1 }), isErr('MISUSE'));
  mem.close();
});

test('bad options, gate and the ephemeral tier on Memory', async () => {
  const mem = await store();
  const before = snapshot(mem);
  await assert.rejects(mem.consolidate({ capacity: 0 }), isErr('RANGE'));
  await assert.rejects(mem.consolidate({ mergeThreshold: 2 }), (e) => e instanceof CairnError);
  await assert.rejects(mem.consolidate({ bogus: 1 }), isErr('MISUSE'));
  assert.equal(snapshot(mem), before);
  assert.equal((await Memory.gate('ok')).save, false);
  assert.equal((await Memory.gate('I moved to Lisbon in May with my sister')).save, true);
  mem.ephemeral.set('plan', 'book the flight');
  assert.equal(mem.ephemeral.get('plan'), 'book the flight');
  mem.ephemeral.delete('plan');
  assert.equal(mem.ephemeral.get('plan'), null);
  mem.close();
});

test('observe on Memory: a trivial exchange saves nothing, a worthwhile one is added to the store', async () => {
  const mem = await Memory.open({ textOnly: true });
  const r0 = mem.observe({ user: 'ok', assistant: 'yes' });
  assert.equal(r0.save, false);
  assert.equal(mem.list().length, 0);
  const r1 = mem.observe({ user: 'My sister Ana moved to Porto last spring', assistant: 'Noted: Ana lives in Porto since last spring.' });
  assert.equal(r1.save, true);
  const saved = [r1.saved.user, r1.saved.assistant].filter((x) => x !== null);
  assert.ok(saved.length >= 1);
  const texts = mem.list().map((x) => x.text);
  assert.equal(texts.length, saved.length);
  assert.ok(texts.some((t) => /Porto/.test(t)));
  mem.close();
});
