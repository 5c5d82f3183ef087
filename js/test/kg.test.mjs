// 2026-12-02 - the knowledge graph from JS (js/src/kg.js): facts with validity and functional
// predicates, as-of views, neighbours, all-or-none batches, the extractor, a file-backed graph
// reopened from JS and read by the native CLI, and a memory store's own graph (mem.graph(): /graph
// in the store's file, forgetting a memory drops its facts) read back and by the CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Graph, Memory, MemoryFile, CairnError } from '../src/node.js';
import { run, tmp } from './helpers.mjs';

const may2023 = Date.UTC(2023, 4, 1);

test('Graph: functional facts invalidate and keep the old edge; asOf sees it', async () => {
  const g = await Graph.open();
  g.functional('lives_in');
  assert.equal(g.addFacts([{ subject: 'Maya', predicate: 'lives_in', object: 'Porto', validAt: Date.UTC(2020, 0, 1) }]), 1);
  g.addFacts([{ subject: 'Maya', predicate: 'lives_in', object: 'Lisbon', validAt: new Date(may2023), sources: [7] }]);
  const now = g.facts();
  assert.deepEqual(now.map((f) => f.object), ['Lisbon']);
  assert.deepEqual(now[0].sources, [7]);
  assert.deepEqual(g.facts({ asOf: Date.UTC(2021, 0, 1) }).map((f) => f.object), ['Porto']);
  assert.equal(g.facts({ asOf: 'all' }).length, 2);
  const porto = g.facts({ asOf: 'all' }).find((f) => f.object === 'Porto');
  assert.equal(porto.invalidAt, may2023);
  const n = g.neighbors('maya', { depth: 1, asOf: 'all' });
  assert.deepEqual(n.nodes.map((x) => x.name).sort(), ['Lisbon', 'Maya', 'Porto']);
  assert.deepEqual(g.entities().map((e) => e.name).sort(), ['Lisbon', 'Maya', 'Porto']);
  g.close();
});

test('Graph: a bad batch adds nothing and throws CairnError', async () => {
  const g = await Graph.open();
  assert.throws(() => g.addFacts([{ subject: 'A', predicate: 'knows', object: 'B' }, { subject: 'C', predicate: 'knows' }]),
    (e) => e instanceof CairnError && /no object/.test(e.message));
  assert.equal(g.entities().length, 0);
  assert.throws(() => g.addFacts([{ subject: 'A', predicate: 'p', object: 'B', validAt: 1e300 }]), CairnError);
  assert.throws(() => g.neighbors('nobody'), CairnError);
  g.close();
  assert.throws(() => g.facts(), /closed/);
});

test('Graph: extractor, kinship coreference and times', async () => {
  const g = await Graph.open();
  g.extract(1, 'My sister Ines moved to Lisbon last May.', { speaker: 'Caroline', time: Date.UTC(2023, 4, 8) });
  g.extract(2, 'I called my sister yesterday.', { speaker: 'Caroline', time: Date.UTC(2023, 4, 8) });
  const ines = g.entities().find((e) => e.name === 'Ines');
  assert.ok(ines.aliases.includes("Caroline's sister"));
  assert.equal(ines.mentions, 2);
  assert.ok(g.facts().some((f) => f.predicate === 'lives_in' && f.object === 'Lisbon'));
  g.close();
});

test('Graph: a file-backed graph reopens and the native CLI reads it', async () => {
  const dir = tmp('kg-js');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 's.cmem.graph');
  fs.rmSync(file, { force: true });
  let g = await Graph.open(file);
  g.addFacts([{ subject: 'Jon', predicate: 'works_at', object: 'Studio', validAt: may2023 }]);
  g.close();
  g = await Graph.open(file, { readOnly: true });
  assert.equal(g.facts().length, 1);
  g.close();
  const mem = await Memory.open(path.join(dir, 's.cmem'), { textOnly: true });
  mem.add('Jon works at the Studio');
  mem.close();
  const out = run('mem', 'facts', path.join(dir, 's.cmem'), '--json'); // s.cmem.graph: a graph of before
  assert.equal(JSON.parse(out)[0].object, 'Studio');
  const mf = new MemoryFile();
  g = await Graph.open(mf);
  g.addFacts([{ subject: 'x', predicate: 'y', literal: 'z' }]);
  g.commit();
  g.close();
});

test('Memory.graph: the graph lives in the store file, survives reopen, forgets with its memory', async () => {
  const dir = tmp('kg-js-mem');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'm.cmem');
  fs.rmSync(file, { force: true });
  let mem = await Memory.open(file, { textOnly: true });
  const a = mem.add('Maya moved to Lisbon'), b = mem.add('Maya cooks a stew');
  mem.graph().functional('lives_in');
  assert.equal(mem.addFacts([
    { subject: 'Maya', predicate: 'lives_in', object: 'Lisbon', sources: [a] },
    { subject: 'Maya', predicate: 'favourite_dish', literal: 'wombat-saffron-stew-31', sources: [b] },
  ]), 2);
  assert.equal(mem.graph(), mem.graph());
  mem.commit();
  mem.close();
  assert.ok(!fs.existsSync(file + '.graph'));
  assert.ok(fs.readFileSync(file).includes('wombat-saffron-stew-31'));
  mem = await Memory.open(file);
  assert.deepEqual(mem.facts().map((f) => f.predicate).sort(), ['favourite_dish', 'lives_in']);
  assert.ok(mem.neighbors('maya').nodes.some((n) => n.name === 'Lisbon'));
  mem.delete(b);
  assert.deepEqual(mem.facts({ asOf: 'all' }).map((f) => f.predicate), ['lives_in']);
  mem.close();
  assert.ok(!fs.readFileSync(file).includes('wombat-saffron-stew-31'));
  const out = JSON.parse(run('mem', 'facts', file, '--as-of', 'all', '--json'));
  assert.deepEqual(out.map((f) => f.object), ['Lisbon']);
  mem = await Memory.open(file, { readOnly: true });
  assert.equal(mem.entities().filter((e) => e.name === 'Maya').length, 1);
  assert.throws(() => mem.addFacts([{ subject: 'x', predicate: 'y', object: 'z' }]), CairnError);
  mem.close();
});
