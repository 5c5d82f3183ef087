// 2026-11-29 - every wasm allocation is freed: the bytes in use in the wasm heap (dlmalloc's
// mallinfo, bindings/em/em_services.c) are the same before and after rounds of Memory, Store and codec
// calls, successful and failing ones, once a first round has warmed up any lazy state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import cairn, { Memory, Store, MemoryFile, compress, decompress, zl, CairnError } from '../src/node.js';
import { pseudoRandom } from './helpers.mjs';

await cairn.init();
const used = () => cairn._internal.module._cairn_em_heap_used();
const swallow = async (fn) => {
  try {
    await fn();
  } catch (e) {
    assert.ok(e instanceof CairnError, String(e));
  }
};

async function memoryRound() {
  const file = new MemoryFile();
  const mem = await Memory.open(file, { dim: 32 });
  for (let i = 0; i < 40; i++) mem.add({ text: `memory ${i} about ${i % 3 ? 'cats' : 'dogs'}`, session: `s${i % 2}`, metadata: { i }, embedding: i % 2 ? undefined : new Float32Array(32).fill(i + 1) });
  mem.commit();
  for (const mode of ['hybrid', 'vector', 'bm25']) mem.search('dogs', { k: 5, mode, filter: { session: 's1', meta: { i: 3 } } });
  mem.get(3), mem.embedding(4), mem.stats(), mem.touch(2), mem.embed('x');
  await swallow(() => mem.add({ text: 'x', embedding: [1, 2] }));
  await swallow(() => mem.search('x', { filter: { nope: 1 } }));
  await swallow(() => mem.add({ text: '' }));
  mem.close();
  const again = await Memory.open(file);
  again.search('cats', { k: 3 });
  again.close();
  await Memory.tokenize('the dogs were running');
  await Memory.embed('hello', { dim: 64 });
  await Memory.demoData();
  await swallow(() => Memory.open(new MemoryFile(new Uint8Array(100).fill(7))));
}

async function storeRound() {
  const file = new MemoryFile();
  const store = await Store.open(file, { compression: 'zstd', chunking: { min: 4096, avg: 16384, max: 65536 } });
  const a = pseudoRandom(300000, 3);
  const id = await store.put(a, { name: 'a' });
  await store.put((async function* () { yield a.subarray(0, 1000); yield a.subarray(1000); })());
  store.get('a', { start: 10, end: 100000 });
  for await (const piece of store.stream(id, { pieceSize: 65536 })) void piece;
  store.list(), store.stat(id), store.stats(), store.verify(), store.getName('a'), store.setName('b', id), store.deleteName('b');
  store.getFile(id, new MemoryFile(), { start: 5 });
  await swallow(() => store.get('f'.repeat(64)));
  await swallow(() => store.get(id, { start: 9, end: 1 }));
  await swallow(() => store.put((async function* () { yield a; yield 5; })()));
  store.close();
  const raw = file.bytes();
  raw[raw.indexOf(a[5000]) + 1] ^= 1; // some damage somewhere
  await swallow(async () => {
    const again = await Store.open(new MemoryFile(raw));
    try {
      again.verify();
      again.get(id);
    } finally {
      again.close();
    }
  });
}

async function codecRound() {
  const u32 = Uint32Array.from({ length: 5000 }, (_, i) => i * 3);
  const frame = await compress(u32);
  await decompress(frame);
  await compress('a,b\n1,2\n3,4\n', { profile: 'csv' });
  await zl.compressFile(new MemoryFile(new Uint8Array(u32.buffer)), new MemoryFile(), { profile: 'le-u32' });
  await swallow(() => decompress(frame.subarray(0, frame.length - 3)));
  await swallow(() => compress(new Uint8Array(3), { profile: 'le-u32' }));
  await swallow(() => decompress(frame, { maxSize: 10 }));
}

for (const [name, round] of [['Memory', memoryRound], ['Store', storeRound], ['codec', codecRound]]) {
  test(`${name}: no wasm heap leak across rounds of calls (errors included)`, async () => {
    await round();
    await round();
    const before = used();
    for (let i = 0; i < 3; i++) await round();
    assert.equal(used(), before, `${used() - before} bytes still allocated`);
  });
}
