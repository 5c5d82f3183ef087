// 2026-12-02 - h5.File writers across handles and processes (issue 16): two writable h5.File
// handles on one path in one process (the second BUSY, the first's commits intact), an h5.File
// writer in another Node process (BUSY here), and the native `cairn h5w append` against a Node
// writer (BUSY, exit 1) and after it (its row lands; Node reads every committed row).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { h5, CairnError } from '../src/node.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const nodeEntry = path.join(here, '../src/node.js');
const cli = path.resolve(here, '../../build/native/cairn');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-h5locks-'));
const isBusy = (e) => e instanceof CairnError && e.codeName === 'BUSY';

test('two writable h5.File handles on one path in one process: the second is BUSY', async () => {
  const f = path.join(dir, 'one.h5');
  const a = await h5.File.open(f, 'w');
  a.create_dataset({ name: 'x', data: new Int32Array([1, 2, 3]), maxshape: [null], chunks: [4] });
  a.flush();
  await assert.rejects(h5.File.open(f, 'a'), isBusy);
  await assert.rejects(h5.File.open(f, 'w'), isBusy); // 'w' must not wipe the file another handle writes
  const r = await h5.File.open(f, 'r'); // a reader beside the writer sees the last commit
  assert.deepEqual(Array.from(r.get('x').value), [1, 2, 3]);
  r.close();
  a.close();
  const b = await h5.File.open(f, 'r');
  assert.deepEqual(Array.from(b.get('x').value), [1, 2, 3]);
  b.close();
});

test('two Node processes, and the native CLI: one h5 writer at a time', async () => {
  const f = path.join(dir, 'two.h5');
  const w = await h5.File.open(f, 'w');
  w.create_dataset({ name: 'd', data: new BigInt64Array([1n]), maxshape: [null], chunks: [16] });
  w.flush();
  // another Node process: BUSY while this one writes
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', `
    import { h5 } from ${JSON.stringify(nodeEntry)};
    try { await h5.File.open(${JSON.stringify(f)}, 'a'); console.log('opened'); } catch (e) { console.log(e.codeName); }`], { encoding: 'utf8' });
  assert.equal(child.stdout.trim(), 'BUSY');
  if (fs.existsSync(cli)) {
    const r = spawnSync(cli, ['h5w', 'append', '--busy-timeout', '100', f, '/d', '2'], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /open for writing by another process/);
  }
  w.close();
  if (fs.existsSync(cli)) {
    const r = spawnSync(cli, ['h5w', 'append', f, '/d', '3'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  }
  const r = await h5.File.open(f, 'r');
  assert.deepEqual(Array.from(r.get('d').value, Number), fs.existsSync(cli) ? [1, 3] : [1]);
  r.close();
});
