// 2026-12-02 - the chunk store with several handles (issue 16): two Store handles on one path in
// one process (a second writer is BUSY, a reader beside the writer sees what was committed as of
// its open, refresh() and a miss pick up newer commits, never an unfinished transaction, and
// damage is reported by verify), and two Node processes writing one store (each open either gets
// BUSY or succeeds; no acknowledged payload is lost).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Store, CairnError } from '../src/node.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const nodeEntry = path.join(here, '../src/node.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-store-conc-'));
const isBusy = (e) => e instanceof CairnError && e.codeName === 'BUSY';
const bytes = (seed, n) => {
  const a = new Uint8Array(n);
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    a[i] = x >>> 24;
  }
  return a;
};
const chunking = { min: 1024, avg: 4096, max: 16384 };

test('Store: one writer per path in a process, readers beside it see whole commits', async () => {
  const p = path.join(dir, 'one.cas');
  const w = await Store.open(p, { chunking });
  const id0 = await w.put(bytes(1, 20000), { name: 'first' });
  await assert.rejects(Store.open(p, { chunking }), (e) => isBusy(e) && e.message.includes('one.cas'));
  const r = await Store.open(p, { readOnly: true });
  assert.deepEqual(r.list().map((e) => e.id), [id0]);
  assert.deepEqual(r.get(id0), bytes(1, 20000));
  // A commit after the reader's open: not in its listing until it refreshes; a get of the new id
  // (or name) refreshes by itself.
  const id1 = await w.put(bytes(2, 30000), { name: 'second' });
  assert.equal(r.list().length, 1);
  assert.deepEqual(r.get('second'), bytes(2, 30000));
  assert.deepEqual(r.list().map((e) => e.id).sort(), [id0, id1].sort());
  // An open transaction is invisible, also after a refresh; its commit is not.
  w.begin();
  const id2 = await w.put(bytes(3, 25000));
  r.refresh();
  assert.equal(r.stat(id2), null);
  assert.equal(r.list().length, 2);
  const r2 = await Store.open(p, { readOnly: true });
  assert.equal(r2.list().length, 2);
  assert.equal(r2.verify().ok, true);
  w.commit();
  r.refresh();
  assert.equal(r.list().length, 3);
  assert.deepEqual(r2.get(id2), bytes(3, 25000));
  r.close(), r2.close(), w.close();
  const again = await Store.open(p, { chunking }); // the writer lock is free again
  assert.equal(again.list().length, 3);
  again.close();
});

test('Store: damage is reported by verify and refuses a writer, the file untouched', async () => {
  const p = path.join(dir, 'dmg.cas');
  const w = await Store.open(p, { chunking });
  for (let i = 0; i < 3; i++) await w.put(bytes(10 + i, 9000));
  w.close();
  const img = fs.readFileSync(p);
  img[70] ^= 0x10; // the first record's header
  fs.writeFileSync(p, img);
  await assert.rejects(Store.open(p, { chunking }), (e) => e instanceof CairnError && e.codeName === 'CORRUPT' && /offset 64/.test(e.message));
  assert.deepEqual(fs.readFileSync(p), img);
  const r = await Store.open(p, { readOnly: true });
  const v = r.verify();
  assert.equal(v.ok, false);
  assert.ok(v.problems.some((l) => /offset 64/.test(l)));
  r.close();
});

// A child that opens the store, puts, closes, N times; BUSY opens are retried after a moment.
const child = (p, k, n) => new Promise((resolve, reject) => {
  const c = spawn(process.execPath, ['--input-type=module', '-e', `
    import { Store } from ${JSON.stringify(nodeEntry)};
    const bytes = ${bytes.toString()};
    let busy = 0;
    for (let i = 0; i < ${n}; i++) {
      for (;;) {
        let s;
        try { s = await Store.open(${JSON.stringify(p)}, { chunking: ${JSON.stringify(chunking)} }); }
        catch (e) { if (e.codeName !== 'BUSY') throw e; busy++; await new Promise((r) => setTimeout(r, 5)); continue; }
        const id = await s.put(bytes(${k} * 1000 + i, 5000 + i * 97));
        s.close();
        console.log('ack ' + id + ' ' + (${k} * 1000 + i) + ' ' + (5000 + i * 97));
        break;
      }
    }
    console.log('busy ' + busy);`], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  c.stdout.on('data', (d) => { out += d; });
  c.on('error', reject);
  c.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`child ${k} exited ${code}`))));
});

test('Store: two Node processes writing one store lose no acknowledged payload', async () => {
  const p = path.join(dir, 'two.cas');
  (await Store.open(p, { chunking })).close();
  const outs = await Promise.all([child(p, 1, 25), child(p, 2, 25)]);
  const acks = outs.flatMap((o) => o.split('\n').filter((l) => l.startsWith('ack ')).map((l) => l.split(' ')));
  assert.equal(acks.length, 50);
  const r = await Store.open(p, { readOnly: true });
  for (const [, id, seed, n] of acks) assert.deepEqual(r.get(id), bytes(Number(seed), Number(n)), `payload ${id}`);
  assert.equal(r.list().length, 50);
  assert.equal(r.verify().ok, true);
  r.close();
});
