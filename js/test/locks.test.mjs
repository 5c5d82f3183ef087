// 2026-12-02 - writer locks in Node (js/src/nodefile.js; "Locking" in core/include/cairn/host.h):
// one writable handle per file per process (NodeFile, Store, Memory, h5.File), a second Node
// process gets CairnError BUSY too, kill -9 of the holder frees the file (its stale lock file
// is broken), and a native cairn writer (build/native/cairn_lockprobe) and a Node writer
// exclude each other in both directions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NodeFile, Store, Memory, h5, CairnError } from '../src/node.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const nodeEntry = path.join(here, '../src/node.js');
const probe = path.resolve(here, '../../build/native/cairn_lockprobe');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-locks-'));
const tmp = (n) => path.join(dir, n);
const isBusy = (e) => e instanceof CairnError && e.codeName === 'BUSY' && e.code === 14;

function fresh(name, bytes = 'data') {
  const p = tmp(name);
  fs.rmSync(p + '.cairn-lock', { force: true });
  fs.writeFileSync(p, bytes);
  return p;
}

// A child that runs `cmd args`, waits for its first line, and is killed or released later.
function holder(cmd, args) {
  return new Promise((resolve, reject) => {
    const c = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    c.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve({ child: c, line: out.split('\n')[0] });
    });
    c.on('error', reject);
    c.on('close', (code) => { if (!out.includes('\n')) reject(new Error(`holder exited ${code}: ${out}`)); }); // close: after stdout's last data
  });
}
const exited = (c) => new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.on('exit', r)));
const nodeHolder = (p) => holder(process.execPath, ['--input-type=module', '-e', `
  import { NodeFile } from ${JSON.stringify(nodeEntry)};
  const f = new NodeFile(${JSON.stringify(p)}, 'r+');
  console.log('locked');
  process.stdin.on('data', () => {}); process.stdin.on('end', () => { f.close(); process.exit(0); });`]);

test('NodeFile: one writable handle per file per process, readers beside it', () => {
  const p = fresh('two.bin');
  const w = new NodeFile(p, 'r+');
  assert.equal(w.lockLevel, 2);
  assert.ok(fs.existsSync(p + '.cairn-lock'));
  assert.match(fs.readFileSync(p + '.cairn-lock', 'utf8'), new RegExp(`^cairn-lock pid=${process.pid} host=`));
  assert.throws(() => new NodeFile(p, 'r+'), isBusy);
  assert.throws(() => new NodeFile(p, 'c+'), (e) => isBusy(e) && /another handle in this process/.test(e.message));
  // 'w+' must not truncate the file another handle writes
  assert.throws(() => new NodeFile(p, 'w+'), isBusy);
  assert.equal(fs.readFileSync(p, 'utf8'), 'data');
  // through a symbolic link: the same file
  fs.rmSync(tmp('two.link'), { force: true });
  fs.symlinkSync(p, tmp('two.link'));
  assert.throws(() => new NodeFile(tmp('two.link'), 'r+'), isBusy);
  const r1 = new NodeFile(p), r2 = new NodeFile(p); // readers take nothing
  r1.lock(1);
  assert.equal(r1.lockLevel, 1);
  assert.throws(() => r1.lock(2), (e) => e instanceof CairnError && e.codeName === 'READONLY');
  r1.close(), r2.close();
  const u = new NodeFile(p, 'r+', { lock: false }); // opted out
  assert.equal(u.lockLevel, 0);
  u.close();
  w.close();
  assert.ok(!fs.existsSync(p + '.cairn-lock'));
  const again = new NodeFile(p, 'w+');
  assert.equal(again.size(), 0);
  again.unlock(0);
  assert.ok(!fs.existsSync(p + '.cairn-lock'));
  const third = new NodeFile(p, 'r+');
  assert.throws(() => again.lock(2), isBusy);
  third.close();
  again.lock(2);
  again.close();
});

test('Store, Memory and h5.File by path: a second writer in this process is BUSY', async () => {
  const s = tmp('s.cas');
  fs.rmSync(s, { force: true });
  const a = await Store.open(s);
  await assert.rejects(Store.open(s), isBusy);
  const ro = await Store.open(s, { readOnly: true });
  ro.close();
  a.close();
  (await Store.open(s)).close();

  const m = tmp('m.mem');
  fs.rmSync(m, { force: true });
  const ma = await Memory.open(m);
  await assert.rejects(Memory.open(m), isBusy);
  ma.close();
  (await Memory.open(m)).close();

  const f = tmp('f.h5');
  const w = await h5.File.open(f, 'w');
  w.create_dataset({ name: 'x', data: new Float64Array([1, 2, 3]) });
  w.flush();
  await assert.rejects(h5.File.open(f, 'a'), isBusy);
  w.close();
  const again = await h5.File.open(f, 'a');
  again.close();
});

test('two Node processes: the second writer is BUSY; kill -9 of the first frees the file', async () => {
  const p = fresh('procs.bin');
  const { child, line } = await nodeHolder(p);
  assert.equal(line, 'locked');
  assert.throws(() => new NodeFile(p, 'r+'), (e) => isBusy(e) && e.message.includes(`pid=${child.pid}`));
  const r = new NodeFile(p); // a reader is fine
  r.close();
  child.kill('SIGKILL');
  await exited(child);
  assert.ok(fs.existsSync(p + '.cairn-lock'), 'the killed holder leaves its lock file');
  const w = new NodeFile(p, 'r+'); // stale: broken
  assert.match(fs.readFileSync(p + '.cairn-lock', 'utf8'), new RegExp(`pid=${process.pid} `));
  w.close();
  assert.ok(!fs.existsSync(p + '.cairn-lock'));
  // a holder that closes normally leaves nothing
  const h = await nodeHolder(p);
  h.child.stdin.end();
  await exited(h.child);
  assert.ok(!fs.existsSync(p + '.cairn-lock'));
});

test('a lock file from another host, or a fresh half-written one, is held', () => {
  const p = fresh('foreign.bin');
  fs.writeFileSync(p + '.cairn-lock', 'cairn-lock pid=1 host=elsewhere.invalid\n');
  assert.throws(() => new NodeFile(p, 'r+'), (e) => isBusy(e) && e.message.includes('elsewhere.invalid'));
  fs.writeFileSync(p + '.cairn-lock', '');
  assert.throws(() => new NodeFile(p, 'r+'), isBusy);
  const old = new Date(Date.now() - 60000);
  fs.utimesSync(p + '.cairn-lock', old, old); // an old unreadable one: its creator died
  new NodeFile(p, 'r+').close();
  assert.ok(!fs.existsSync(p + '.cairn-lock'));
});

test('native and Node writers exclude each other', { skip: !fs.existsSync(probe) && 'build/native/cairn_lockprobe not built' }, async () => {
  const p = fresh('native.bin');
  const n = await holder(probe, ['write', p, '--hold']);
  assert.equal(n.line, 'OK');
  assert.throws(() => new NodeFile(p, 'r+'), (e) => isBusy(e) && e.message.includes(`pid=${n.child.pid}`));
  n.child.stdin.end();
  await exited(n.child);
  const w = new NodeFile(p, 'r+');
  const busy = await holder(probe, ['write', p]);
  assert.match(busy.line, /^BUSY: .*open for writing by another process/);
  const reader = await holder(probe, ['read', p]);
  assert.equal(reader.line, 'OK'); // a native reader beside a Node writer
  w.close();
  const ok = await holder(probe, ['write', p]);
  assert.equal(ok.line, 'OK');
  // kill -9 of a native writer: Node breaks its stale lock file
  const k = await holder(probe, ['write', p, '--hold']);
  k.child.kill('SIGKILL');
  await exited(k.child);
  new NodeFile(p, 'r+').close();
});

// Node readers have no OFD or flock locks: a NodeFile that takes the reader lock leaves a marker
// in "<file>.cairn-readers/", which a native writer's cairn_file_no_readers sees (so it keeps
// the space the reader may read); the last close removes it; a killed reader's marker is stale.
test('a Node reader is visible to a native writer; its marker goes with it', { skip: !fs.existsSync(probe) && 'build/native/cairn_lockprobe not built' }, async () => {
  const p = fresh('nodereader.bin');
  const dirM = fs.realpathSync(p) + '.cairn-readers';
  const probeLine = async () => (await holder(probe, ['noreaders', p])).line;
  assert.equal(await probeLine(), 'OK');
  const r1 = new NodeFile(p, 'r'), r2 = new NodeFile(p, 'r');
  assert.ok(!fs.existsSync(dirM)); // opening alone makes none
  r1.lock(1);
  r2.lock(1);
  const names = fs.readdirSync(dirM);
  assert.equal(names.length, 1); // one per file per process
  assert.match(fs.readFileSync(path.join(dirM, names[0]), 'utf8'), new RegExp(`^cairn-reader pid=${process.pid} host=`));
  assert.match(await probeLine(), /^BUSY: .*has readers.*cairn-reader pid=/);
  r1.close();
  assert.ok(fs.existsSync(dirM)); // r2 still reads
  r2.close();
  assert.ok(!fs.existsSync(dirM));
  assert.equal(await probeLine(), 'OK');
  // lock: false: no marker
  const r3 = new NodeFile(p, 'r', { lock: false });
  r3.lock(1);
  assert.ok(!fs.existsSync(dirM));
  r3.close();
  // the core takes the reader lock on an h5 file's first read past what the open read (a file
  // read whole at open needs none: nothing a writer does can reach the reader's copy)
  const hp = tmp('nodereader.h5');
  fs.rmSync(hp + '.cairn-lock', { force: true });
  const big = Float64Array.from({ length: 100000 }, (_, i) => i * 0.5);
  const w = await h5.File.open(hp, 'w');
  w.create_dataset({ name: 'x', data: big });
  w.close();
  const hf = await h5.File.open(hp, 'r');
  assert.deepEqual(hf.get('x').value, big);
  assert.ok(fs.existsSync(fs.realpathSync(hp) + '.cairn-readers'));
  hf.close();
  assert.ok(!fs.existsSync(fs.realpathSync(hp) + '.cairn-readers'));
  // kill -9 of a reader: its marker stays, and the native writer finds it dead and removes it
  const k = await holder(process.execPath, ['--input-type=module', '-e', `
    import { NodeFile } from ${JSON.stringify(nodeEntry)};
    const f = new NodeFile(${JSON.stringify(p)}, 'r'); f.lock(1);
    console.log('reading'); setInterval(() => {}, 1000);`]);
  assert.equal(k.line, 'reading');
  assert.match(await probeLine(), /^BUSY: /);
  k.child.kill('SIGKILL');
  await exited(k.child);
  assert.ok(fs.existsSync(dirM));
  assert.equal(await probeLine(), 'OK');
  assert.ok(!fs.existsSync(dirM));
  // a Node writer cannot see native readers: it never claims there are none
  const nw = new NodeFile(p, 'r+');
  assert.throws(() => nw.lock(4), (e) => isBusy(e) && /readers cannot be ruled out/.test(e.message));
  nw.close();
});
