// 2026-11-29 - the chunk store from JS (js/src/store.js): ids checked against the native CLI's
// `cairn put` and against ids computed independently with node:crypto from the store format
// (core/cas/FORMAT.md) and the FastCDC 2020 reference vectors; dedup, verified range reads,
// streams, durability in a NodeFile, and a damaged chunk reported by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import cairn, { Store, MemoryFile, NodeFile, CairnError } from '../src/node.js';
import { cli, cliHas, data, pseudoRandom, tmp } from './helpers.mjs';
import { execFileSync } from 'node:child_process';

const sha = (b) => crypto.createHash('sha256').update(b).digest();
// `cairn put` arrives on main with the chunk store's CLI; CAIRN_CAS_CLI may point at a build that has it.
const casCli = process.env.CAIRN_CAS_CLI || (cliHas('put') ? cli : null);
const runCas = (...args) => execFileSync(casCli, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** A payload id from its chunk list, per FORMAT.md: SHA-256 of "cairnMF1" size n 0 (hash len)*. */
function manifestId(chunks, size) {
  const b = Buffer.alloc(24 + 36 * chunks.length);
  b.write('cairnMF1', 0, 'latin1');
  b.writeBigUInt64LE(BigInt(size), 8);
  b.writeUInt32LE(chunks.length, 16);
  chunks.forEach((c, i) => {
    c.hash.copy(b, 24 + 36 * i);
    b.writeUInt32LE(c.length, 24 + 36 * i + 32);
  });
  return sha(b).toString('hex');
}

test('ids: independent manifest hashes (one chunk; FastCDC 2020 reference vectors, both seeds)', async () => {
  const store = await Store.open();
  for (const n of [0, 1, 1000, 200000]) {
    const b = pseudoRandom(n, n + 7);
    const want = manifestId(n ? [{ hash: sha(b), length: n }] : [], n);
    assert.equal(await store.put(b), want, `${n} bytes`);
  }
  store.close();
  const jpg = fs.readFileSync(path.join(data, 'fastcdc/SekienAkashita.jpg'));
  const vectors = fs.readFileSync(path.join(data, 'fastcdc/fastcdc2020_test_vectors.txt'), 'utf8');
  for (const seed of [0, 666]) {
    const part = vectors.split(`# Seed: ${seed}\n`)[1].split('\n\n')[0];
    const chunks = part.trim().split('\n').filter((l) => l && !l.startsWith('#')).map((l) => {
      const [, length, hash] = l.split('\t');
      return { length: Number(length), hash: Buffer.from(hash, 'hex') };
    });
    const s = await Store.open({ chunking: { min: 4096, avg: 16384, max: 65535, level: 2, seed } });
    const id = await s.put(jpg);
    assert.equal(id, manifestId(chunks, jpg.length), `seed ${seed}`);
    assert.equal(s.stats().chunks, chunks.length);
    assert.deepEqual(s.get(id), new Uint8Array(jpg));
    s.close();
  }
});

test('ids equal the native CLI `cairn put` ids for the same files; each side reads the other\'s store', { skip: !casCli && 'no CLI with `cairn put` (set CAIRN_CAS_CLI)' }, async () => {
  const files = [['small.bin', pseudoRandom(5000, 1)], ['big.bin', pseudoRandom(5 << 20, 2)], ['empty.bin', new Uint8Array(0)]];
  const cliStore = tmp('cli.cas');
  fs.rmSync(cliStore, { force: true });
  const jsFile = tmp('js.cas');
  fs.rmSync(jsFile, { force: true });
  const f = new NodeFile(jsFile, 'w+');
  const store = await Store.open(f);
  const ids = {};
  for (const [name, bytes] of files) {
    fs.writeFileSync(tmp(name), bytes);
    const cliId = runCas('put', '--store', cliStore, tmp(name)).trim();
    assert.match(cliId, /^[0-9a-f]{64}$/);
    assert.equal(await store.put(bytes), cliId, name);
    ids[name] = cliId;
    assert.equal(await store.put(new NodeFile(tmp(name))), cliId, `${name} as a file object`);
  }
  store.close();
  f.close();
  // The CLI reads the store JS wrote (verified ranges), JS reads the store the CLI wrote.
  const big = files[1][1];
  const bigId = ids['big.bin'];
  runCas('get', '--store', jsFile, bigId, '--range', '1000000:3000000', '-o', tmp('range.out'));
  assert.deepEqual(new Uint8Array(fs.readFileSync(tmp('range.out'))), big.subarray(1000000, 3000000));
  assert.match(runCas('verify', '--store', jsFile), /^ok: 3 payloads/); // execFileSync throws on a non-zero exit
  const g = new NodeFile(cliStore, 'r');
  const fromCli = await Store.open(g, { readOnly: true });
  assert.equal(fromCli.list().length, 3);
  assert.deepEqual(fromCli.get(bigId, { start: 4 << 20, end: 5 << 20 }), big.subarray(4 << 20, 5 << 20));
  assert.equal(fromCli.getName(tmp('big.bin')), bigId); // the CLI names payloads after their files
  fromCli.close();
  g.close();
});

test('dedup: the same payload again adds nothing; a one-byte edit adds one or two chunks', async () => {
  const store = await Store.open({ chunking: { min: 16384, avg: 65536, max: 262144 } });
  const a = pseudoRandom(8 << 20, 9);
  const id = await store.put(a);
  const s1 = store.stats();
  assert.ok(s1.chunks > 64, `${s1.chunks} chunks`);
  assert.equal(await store.put(a.slice()), id);
  assert.deepEqual(store.stats(), s1);
  const b = a.slice();
  b[4 << 20] ^= 0xff;
  const id2 = await store.put(b);
  assert.notEqual(id2, id);
  const s2 = store.stats();
  assert.ok(s2.chunks - s1.chunks >= 1 && s2.chunks - s1.chunks <= 2, `${s2.chunks - s1.chunks} new chunks`);
  assert.ok(s2.rawBytes - s1.rawBytes <= 2 * 262144);
  assert.equal(s2.payloads, 2);
  assert.deepEqual(store.get(id2, { start: (4 << 20) - 10, end: (4 << 20) + 10 }), b.subarray((4 << 20) - 10, (4 << 20) + 10));
  store.close();
});

test('put accepts strings, Blobs, ReadableStreams and async iterables; get ranges; names; list; stat', async () => {
  const store = await Store.open({ compression: 'zstd' });
  const bytes = new TextEncoder().encode('the same bytes, however they arrive. '.repeat(40000));
  const id = await store.put(bytes, { name: 'doc' });
  const pieces = (n) => Array.from({ length: Math.ceil(bytes.length / n) }, (_, i) => bytes.subarray(i * n, (i + 1) * n));
  assert.equal(await store.put(new TextDecoder().decode(bytes)), id);
  assert.equal(await store.put(new Blob(pieces(100000))), id);
  assert.equal(await store.put(new ReadableStream({ start(c) { for (const p of pieces(7777)) c.enqueue(p); c.close(); } })), id);
  assert.equal(await store.put((async function* () { for (const p of pieces(1 << 20)) yield p; })()), id);
  assert.equal(await store.put(pieces(3)), id); // a plain iterable
  // Concurrent puts queue up and all finish.
  const ids = await Promise.all([1, 2, 3].map((k) => store.put((async function* () { yield pseudoRandom(100000, k); yield pseudoRandom(100, k); })())));
  assert.equal(new Set(ids).size, 3);
  assert.ok(store.stats().storedBytes < store.stats().rawBytes); // zstd chunks
  for (const [start, end] of [[0, 1], [5, 5], [1000, 200000], [bytes.length - 3, undefined], [0, bytes.length + 100]])
    assert.deepEqual(store.get('doc', { start, end }), bytes.subarray(start, end), `${start}:${end}`);
  assert.deepEqual(store.stat(id), { id, size: bytes.length });
  assert.equal(store.stat('0'.repeat(64)), null);
  assert.equal(store.stat('nobody'), null);
  assert.equal(store.getName('doc'), id);
  store.setName('doc2', id);
  store.deleteName('doc');
  assert.equal(store.getName('doc'), null);
  const listed = store.list();
  assert.equal(listed.length, 4);
  const entry = listed.find((e) => e.id === id);
  assert.equal(entry.size, bytes.length);
  assert.equal(entry.name, 'doc2');
  assert.ok(Math.abs(entry.time - Date.now()) < 60000, 'publication time from the host clock');
  const out = new MemoryFile();
  store.getFile(id, out, { start: 10, end: 20 });
  assert.deepEqual(out.bytes(), bytes.subarray(10, 20));
  assert.deepEqual(store.verify(), { ok: true, bad: 0, problems: [] });
  const isErr = (name) => (e) => e instanceof CairnError && e.codeName === name;
  assert.throws(() => store.get('f'.repeat(64)), isErr('NOTFOUND'));
  assert.throws(() => store.get('no such name'), isErr('NOTFOUND'));
  assert.throws(() => store.get(id, { start: 10, end: 5 }), isErr('RANGE'));
  await assert.rejects(store.put(12345), isErr('MISUSE'));
  await assert.rejects(Store.open(new Blob(['x'])), isErr('MISUSE')); // not a file object: refused, not ignored
  await assert.rejects(store.put((async function* () { yield 'ok'; yield 42; })()), isErr('MISUSE'));
  store.close();
  assert.throws(() => store.list(), isErr('MISUSE'));
});

test('large buffers stream through the wasm heap in pieces: same id as a file object and a stream', async () => {
  const store = await Store.open({ chunking: { min: 65536, avg: 262144, max: 1048576 } });
  const big = pseudoRandom(17 << 20, 5); // above the 16 MiB single-copy limit
  const id = await store.put(big);
  assert.equal(await store.put(new MemoryFile(big)), id);
  assert.equal(await store.put((function* () { for (let i = 0; i < big.length; i += 3 << 20) yield big.subarray(i, i + (3 << 20)); })()), id);
  assert.equal(store.stats().payloads, 1);
  assert.deepEqual(store.get(id, { start: (17 << 20) - 5 }), big.subarray((17 << 20) - 5));
  // Read back as a stream: pieces of at most pieceSize, concatenated equal to the range.
  const pieces = [];
  for await (const p of store.stream(id, { start: 12345, end: (9 << 20) + 7, pieceSize: 1 << 20 })) pieces.push(p);
  assert.ok(pieces.every((p) => p.length <= 1 << 20) && pieces.length === 9);
  assert.deepEqual(new Uint8Array(Buffer.concat(pieces)), big.subarray(12345, (9 << 20) + 7));
  const whole = new Uint8Array(await new Response(store.stream(id)).arrayBuffer());
  assert.equal(whole.length, big.length);
  assert.ok(Buffer.from(whole).equals(Buffer.from(big)));
  assert.throws(() => store.stream('0'.repeat(64)), (e) => e instanceof CairnError && e.codeName === 'NOTFOUND');
  store.close();
});

test('getInto: a payload into the caller\'s array, in pieces through a heap that does not grow; ranges, views, errors', async () => {
  const M = cairn._internal.module;
  const store = await Store.open({ chunking: { min: 65536, avg: 262144, max: 1048576 } });
  const big = pseudoRandom(21 << 20, 9); // five 4 MiB pieces and a tail, chunks cut by the pieces
  const id = await store.put(big, { name: 'big' });
  const out = new Uint8Array(big.length);
  assert.equal(store.getInto(id, out), big.length); // the first call may grow the heap by one piece
  assert.ok(Buffer.from(out).equals(Buffer.from(big)));
  const heap = M.HEAPU8.length;
  for (const start of [0, 1, 12345, (4 << 20) - 1]) {
    out.fill(0);
    const n = store.getInto('big', out, { start });
    assert.equal(n, big.length - start);
    assert.ok(Buffer.from(out.subarray(0, n)).equals(Buffer.from(big.subarray(start))), `start ${start}`);
    assert.ok(out.subarray(n).every((b) => b === 0), 'bytes past the payload are left alone');
  }
  assert.equal(M.HEAPU8.length, heap, 'the wasm heap grew while reading a 21 MiB payload into a caller array');
  // A shorter array takes a range; other typed arrays take bytes; start at the end reads none.
  const few = new Uint8Array(1000);
  assert.equal(store.getInto(id, few, { start: 5 << 20 }), 1000);
  assert.deepEqual(few, big.subarray(5 << 20, (5 << 20) + 1000));
  const f32 = new Float32Array(256);
  assert.equal(store.getInto(id, f32, { start: 7 }), 1024);
  assert.deepEqual(new Uint8Array(f32.buffer), big.subarray(7, 1031));
  assert.equal(store.getInto(id, few, { start: big.length }), 0);
  assert.throws(() => store.getInto(id, few, { start: big.length + 1 }), (e) => e instanceof CairnError && e.codeName === 'RANGE');
  assert.throws(() => store.getInto(id, [1, 2, 3]), (e) => e instanceof CairnError && e.codeName === 'TYPE');
  assert.throws(() => store.getInto('0'.repeat(64), few), (e) => e instanceof CairnError && e.codeName === 'NOTFOUND');
  store.close();
});

test('Node: Store.open(path) opens (or creates) the file itself and closes it with the store', async () => {
  const file = tmp('by-path.cas');
  fs.rmSync(file, { force: true });
  const a = await Store.open(file);
  const id = await a.put('opened by path');
  a.close();
  const b = await Store.open(file, { readOnly: true });
  assert.equal(new TextDecoder().decode(b.get(id)), 'opened by path');
  b.close();
});

test('transactions: rollback drops everything since begin; commit keeps it', async () => {
  const file = new MemoryFile();
  const store = await Store.open(file);
  const keep = await store.put('kept');
  store.begin();
  await store.put('dropped');
  store.rollback();
  store.begin();
  for (let i = 0; i < 100; i++) await store.put(`small payload ${i}`);
  store.commit();
  store.close();
  const again = await Store.open(file);
  assert.equal(again.list().length, 101);
  assert.equal(again.stat(keep).size, 4);
  again.close();
});

test('durable in a NodeFile: close, reopen, get; a damaged chunk gives a CairnError naming it', async () => {
  const file = tmp('damage.cas');
  fs.rmSync(file, { force: true });
  const payload = pseudoRandom(300000, 42);
  let f = new NodeFile(file, 'w+');
  let store = await Store.open(f, { chunking: { min: 16384, avg: 65536, max: 131072 } });
  const id = await store.put(payload, { name: 'p' });
  store.close();
  f.close();
  f = new NodeFile(file, 'r+');
  store = await Store.open(f);
  assert.deepEqual(store.get('p'), payload);
  store.close();
  f.close();
  // Flip one byte of the payload inside the file (stored uncompressed) and find which chunk holds it.
  const raw = fs.readFileSync(file);
  const at = 200000;
  const pos = raw.indexOf(Buffer.from(payload.subarray(at, at + 64)));
  assert.ok(pos > 0);
  raw[pos] ^= 1;
  fs.writeFileSync(file, raw);
  f = new NodeFile(file, 'r');
  store = await Store.open(f, { readOnly: true });
  assert.deepEqual(store.get(id, { start: 0, end: 1000 }), payload.subarray(0, 1000)); // other chunks still read
  let chunkHash = null;
  assert.throws(() => store.get(id, { start: at, end: at + 1 }), (e) => {
    assert.ok(e instanceof CairnError);
    assert.equal(e.codeName, 'CHECKSUM');
    const m = /chunk ([0-9a-f]{64}), bytes (\d+)\.\.(\d+) of payload/.exec(e.message);
    assert.ok(m, e.message);
    chunkHash = m[1];
    // The chunk named is the one holding the damaged byte: its name is the SHA-256 of the original bytes.
    assert.ok(Number(m[2]) <= at && at < Number(m[3]));
    assert.equal(sha(payload.subarray(Number(m[2]), Number(m[3]))).toString('hex'), chunkHash);
    return true;
  });
  const v = store.verify();
  assert.equal(v.ok, false);
  assert.ok(v.bad >= 1);
  assert.ok(v.problems.some((p) => p.includes(chunkHash)), v.problems.join('\n'));
  store.close();
  f.close();
});
