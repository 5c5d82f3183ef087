// 2026-11-29 - the npm package in Node: hashes checked against node:crypto, codecs against
// node:zlib and the zstd CLI (independent implementations), file objects, and errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import cairn, { sha256, sha256File, zstd, gzip, deflate, MemoryFile, NodeFile, CairnError } from '../src/node.js';

const nodeSha = (b) => crypto.createHash('sha256').update(b).digest('hex');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-js-'));

function pseudoRandom(n, seed = 1) {
  const b = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    b[i] = x & 0xff;
  }
  return b;
}
function text(n) {
  const words = ['agent ', 'memory ', 'chunk ', 'store ', 'vector ', 'cairn '];
  let s = '';
  for (let i = 0; s.length < n; i++) s += words[(i * 7919) % words.length];
  return new TextEncoder().encode(s.slice(0, n));
}

test('sha256 matches node:crypto across sizes, strings and views', async () => {
  for (const n of [0, 1, 55, 56, 63, 64, 65, 1000, (1 << 20) + 17, 3 * (1 << 20)]) {
    const b = pseudoRandom(n, n + 1);
    assert.equal(await sha256(b), nodeSha(b), `length ${n}`);
  }
  assert.equal(await sha256('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.equal(await sha256('héllo wörld'), nodeSha(Buffer.from('héllo wörld')));
  const big = pseudoRandom(1000, 3);
  assert.equal(await sha256(big.subarray(100, 900)), nodeSha(big.subarray(100, 900)));
  assert.equal(await sha256(new Float32Array([1, 2, 3])), nodeSha(Buffer.from(new Float32Array([1, 2, 3]).buffer)));
  const raw = await sha256('abc', { encoding: 'bytes' });
  assert.ok(raw instanceof Uint8Array && raw.length === 32);
});

test('sha256File through MemoryFile and NodeFile (the JS host path) matches node:crypto', async () => {
  const data = pseudoRandom(700000, 9);
  assert.equal(await sha256File(new MemoryFile(data)), nodeSha(data));
  const p = path.join(tmp, 'h.bin');
  fs.writeFileSync(p, data);
  assert.equal(await sha256File(new NodeFile(p)), nodeSha(data));
});

test('zstd frames decode with the zstd CLI, and CLI frames decode with cairn', async () => {
  const data = text(500000);
  const frame = await zstd.compress(data, { level: 5 });
  assert.ok(frame.length < data.length / 10);
  const p = path.join(tmp, 'a.zst');
  fs.writeFileSync(p, frame);
  assert.deepEqual(new Uint8Array(execFileSync('zstd', ['-q', '-d', '-c', p], { maxBuffer: 1 << 26 })), data);
  const q = path.join(tmp, 'b.txt');
  fs.writeFileSync(q, data);
  const cliFrame = execFileSync('zstd', ['-q', '-19', '-c', q], { maxBuffer: 1 << 26 });
  assert.deepEqual(await zstd.decompress(cliFrame), data);
});

test('gzip and deflate round-trip with node:zlib in both directions', async () => {
  const data = text(200000);
  assert.deepEqual(new Uint8Array(zlib.gunzipSync(await gzip.compress(data))), data);
  assert.deepEqual(await gzip.decompress(zlib.gzipSync(data)), data);
  assert.deepEqual(new Uint8Array(zlib.inflateSync(await deflate.compress(data, { level: 9 }))), data);
  // No size hint for deflate: the decoder grows its buffer until it fits.
  const highlyCompressible = new Uint8Array(5_000_000);
  assert.deepEqual(await deflate.decompress(zlib.deflateSync(highlyCompressible)), highlyCompressible);
});

test('file streaming: NodeFile -> zstd -> NodeFile, read back by the zstd CLI', async () => {
  const data = pseudoRandom(3_000_000, 4);
  data.set(text(1_000_000), 1_000_000);
  const src = path.join(tmp, 'src.bin'), dst = path.join(tmp, 'dst.zst');
  fs.writeFileSync(src, data);
  const r = await zstd.compressFile(new NodeFile(src), new NodeFile(dst, 'w+'));
  assert.equal(r.bytesIn, data.length);
  assert.equal(r.bytesOut, fs.statSync(dst).size);
  assert.ok(nodeSha(execFileSync('zstd', ['-q', '-d', '-c', dst], { maxBuffer: 1 << 26 })) === nodeSha(data));
  const back = new MemoryFile();
  await zstd.decompressFile(new NodeFile(dst), back);
  assert.equal(nodeSha(back.bytes()), nodeSha(data));
});

test('errors: corrupt and truncated input, read-only output, throwing host', async () => {
  const frame = await zstd.compress(text(10000));
  await assert.rejects(zstd.decompress(frame.subarray(0, frame.length - 5)), (e) => e instanceof CairnError && e.codeName === 'CORRUPT');
  await assert.rejects(gzip.decompress(new Uint8Array([1, 2, 3, 4])), (e) => e instanceof CairnError);
  const p = path.join(tmp, 'ro.bin');
  fs.writeFileSync(p, 'x');
  await assert.rejects(zstd.compressFile(new MemoryFile(text(10)), new NodeFile(p, 'r')), (e) => e.codeName === 'READONLY');
  const broken = { name: 'broken', read() { throw new Error('disk on fire'); }, size() { return 100; } };
  await assert.rejects(sha256File(broken), (e) => e.codeName === 'IOERR' && /disk on fire/.test(e.message) && /broken/.test(e.message));
  // The module keeps working after errors.
  assert.equal(await sha256('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
});

test('version reports the linked libraries', async () => {
  const v = await cairn.version();
  assert.match(v.cairn, /^\d+\.\d+\.\d+$/);
  assert.match(v.zstd, /^1\.5\./);
  assert.match(v.zlib, /^1\./);
});
