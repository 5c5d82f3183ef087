// 2026-12-02 - many handles on one memory store (issue 16): two Memory handles on one path in one
// process (the second writer is BUSY, or waits with busyTimeout; a reader opens beside the
// writer and sees its commits after a reopen; none of 3 committed memories is lost), and two
// Node processes adding to one store at once: every acknowledged memory is there at the end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Memory, CairnError } from '../src/node.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const nodeEntry = path.join(here, '../src/node.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-memconc-'));
const isBusy = (e) => e instanceof CairnError && e.codeName === 'BUSY';
const texts = (m) => {
  const out = [];
  for (let id = 1; id <= m.stats().memories; id++) out.push(m.get(id).text);
  return out;
};

test('two Memory handles on one path: the second writer is BUSY or waits, nothing is lost', async () => {
  const p = path.join(dir, 'two.mem');
  const a = await Memory.open(p, { dim: 16 });
  await assert.rejects(Memory.open(p, { dim: 16 }), isBusy);
  a.add({ text: 'first memory about Lisbon' });
  a.commit();
  // a reader beside the writer sees the last commit
  const r = await Memory.open(p, { readOnly: true });
  assert.deepEqual(texts(r), ['first memory about Lisbon']);
  a.add({ text: 'second memory about Ana' });
  a.commit();
  assert.equal(r.stats().memories, 1); // the state as of its open
  r.close();
  // a second writer that waits: it gets the store once the first closes
  const waiting = Memory.open(p, { dim: 16, busyTimeout: 5000 });
  setTimeout(() => {
    a.add({ text: 'third memory about Pixel' });
    a.close();
  }, 50);
  const b = await waiting;
  assert.deepEqual(texts(b), ['first memory about Lisbon', 'second memory about Ana', 'third memory about Pixel']);
  b.close();
  const c = await Memory.open(p, { readOnly: true });
  assert.equal(c.stats().memories, 3);
  c.close();
});

// A child process adding n memories one open at a time; prints each acknowledged text.
function adder(p, k, n) {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ['--input-type=module', '-e', `
      import { Memory } from ${JSON.stringify(nodeEntry)};
      for (let i = 0; i < ${n}; i++) {
        const m = await Memory.open(${JSON.stringify(p)}, { dim: 16, busyTimeout: 30000 });
        const text = 'process ${k} memory ' + i + ' word p${k}x' + i;
        m.add({ text });
        m.close(); // commits (and checkpoints)
        console.log(text);
      }`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (err += d));
    c.on('error', reject);
    c.on('close', (code) => (code === 0 ? resolve(out.split('\n').filter(Boolean)) : reject(new Error(`adder ${k} exited ${code}: ${err}`))));
  });
}

test('two Node processes adding to one store: every acknowledged memory is there', async () => {
  const p = path.join(dir, 'procs.mem');
  const [a, b] = await Promise.all([adder(p, 1, 15), adder(p, 2, 15)]);
  assert.equal(a.length + b.length, 30);
  const m = await Memory.open(p, { readOnly: true });
  const have = new Set(texts(m));
  m.close();
  for (const t of [...a, ...b]) assert.ok(have.has(t), `acknowledged memory missing: ${t}`);
  assert.equal(have.size, 30);
});
