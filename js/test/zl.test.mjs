// 2026-11-29 - the OpenZL-format codec from JS (js/src/zl.js): the golden frames written by
// OpenZL itself decode to their inputs, JS frames equal the native CLI's `cairn compress` byte
// for byte (profiles given or inferred from typed arrays), round trips, and bad frames.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { compress, decompress, zl, MemoryFile, NodeFile, CairnError } from '../src/node.js';
import { cli, run, wasiCli, runWasi, data, pseudoRandom, tmp } from './helpers.mjs';

const dir = path.join(data, 'openzl-v26');
const manifest = fs.readFileSync(path.join(dir, 'MANIFEST.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => {
  const [frame, input, profile, inputBytes, , , , inputSha] = l.split('\t');
  return { frame, input, profile, inputBytes: Number(inputBytes), inputSha };
});
const sha = (b) => crypto.createHash('sha256').update(b).digest('hex');
const read = (p) => new Uint8Array(fs.readFileSync(path.join(dir, p)));

// The typed array a profile implies (what a JS caller would hold).
function typed(bytes, profile) {
  const b = bytes.slice(); // aligned copy
  switch (profile) {
    case 'le-u16': return new Uint16Array(b.buffer);
    case 'le-u32': return new Uint32Array(b.buffer);
    case 'le-u64': return new BigUint64Array(b.buffer);
    case 'le-i64': return new BigInt64Array(b.buffer);
    case 'serial': return b;
    default: return null;
  }
}

test('golden frames written by OpenZL decode to their inputs', async () => {
  assert.ok(manifest.length >= 10);
  for (const m of manifest) {
    const out = await decompress(read(m.frame));
    assert.equal(out.length, m.inputBytes, m.frame);
    assert.equal(sha(out), m.inputSha, m.frame);
    assert.deepEqual(out, read(m.input), m.frame);
  }
});

// decompress() keeps one decompression context across calls: a failing frame between two good
// ones (zstd-staged, Huffman-staged, csv) leaves it decoding them as before.
test('decompress after failures: same bytes from the reused context', async () => {
  for (const m of manifest) {
    const f = read(m.frame), bad = f.slice();
    bad[bad.length >> 1] ^= 0x21;
    const first = await decompress(f).catch((e) => e);
    await decompress(bad).catch(() => {});
    await decompress(f.subarray(0, f.length >> 1)).catch(() => {});
    const again = await decompress(f).catch((e) => e);
    if (first instanceof Error) assert.equal(String(again), String(first), m.frame);
    else assert.deepEqual(again, first, m.frame);
  }
});

// The zstd stages make frames depend on the zstd version: the npm package and the WASI CLI use the
// vendored zstd (build/deps), the native CLI Debian's libzstd. Byte equality is required with every
// CLI built on the same zstd; across versions each side must decode the other's frames.
async function checkAgainst(name, runCli) {
  const { version } = await import('../src/node.js');
  const same = runCli('version').includes(`zstd ${(await version()).zstd}`);
  const seen = new Set();
  let nSame = 0;
  for (const m of manifest) {
    const key = `${m.input} ${m.profile}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const out = tmp(`${name}.${path.basename(m.frame)}`);
    runCli('compress', '-p', m.profile, path.join(dir, m.input), '-o', out);
    const theirs = new Uint8Array(fs.readFileSync(out));
    const input = read(m.input);
    const frame = await compress(input, { profile: m.profile });
    const t = typed(input, m.profile);
    if (t && m.profile !== 'serial') assert.deepEqual(await compress(t), frame, `${key} inferred from ${t.constructor.name}`);
    if (same) {
      assert.deepEqual(frame, theirs, `${name}: ${key}`);
    } else {
      nSame += Buffer.compare(Buffer.from(frame), Buffer.from(theirs)) === 0;
      assert.deepEqual(await decompress(theirs), input, `${name} frame of ${key} decoded by JS`);
      fs.writeFileSync(tmp('js.zl'), frame);
      runCli('decompress', '-f', tmp('js.zl'), '-o', tmp('js.out'));
      assert.deepEqual(new Uint8Array(fs.readFileSync(tmp('js.out'))), input, `JS frame of ${key} decoded by the ${name} CLI`);
    }
  }
  return { same, nSame, n: seen.size };
}

test('frames equal the WASI CLI `cairn compress` byte for byte (same C, same zstd); inferred profiles match', { skip: !wasiCli && 'WASI CLI not built' }, async () => {
  const r = await checkAgainst('wasi', runWasi);
  assert.ok(r.same, 'the WASI CLI and the npm package link the same zstd');
  // Another level, as the CLI's -l.
  runWasi('compress', '-p', 'le-u32', '-l', '3', path.join(dir, 'inputs/u32_ramp.bin'), '-o', tmp('l3.zl'));
  assert.deepEqual(await compress(new Uint32Array(read('inputs/u32_ramp.bin').buffer), { level: 3 }), new Uint8Array(fs.readFileSync(tmp('l3.zl'))));
});

test('frames against the native CLI: byte for byte when it links the same zstd, else each decodes the other', { skip: !cli && 'native CLI not built' }, async (t) => {
  const r = await checkAgainst('native', run);
  if (!r.same) t.diagnostic(`native CLI links another zstd version: ${r.nSame} of ${r.n} frames identical, all cross-decoded`);
});

test('typed arrays round-trip with their inferred profile and beat plain serial on numbers', async () => {
  const n = 20000;
  const ramp32 = Uint32Array.from({ length: n }, (_, i) => 1000000 + i * 3 + (i % 7));
  const cases = [
    [pseudoRandom(5000, 3), 'serial'],
    [Uint16Array.from({ length: n }, (_, i) => 3000 + Math.round(100 * Math.sin(i / 50))), 'le-u16'],
    [ramp32, 'le-u32'],
    [Int32Array.from({ length: n }, (_, i) => (i % 2 ? -1 : 1) * i), 'le-u32'],
    [BigUint64Array.from({ length: n }, (_, i) => 1700000000000000n + BigInt(i) * 1000n), 'le-u64'],
    [BigInt64Array.from({ length: n }, (_, i) => BigInt(i - n / 2) * 977n), 'le-i64'],
  ];
  for (const [arr, profile] of cases) {
    assert.equal(zl.inferProfile(arr), profile);
    const frame = await compress(arr);
    const back = await decompress(frame);
    assert.deepEqual(back, new Uint8Array(arr.buffer), profile);
    assert.deepEqual(new arr.constructor(back.buffer), arr);
  }
  const typedFrame = await compress(ramp32);
  const serialFrame = await compress(ramp32, { profile: 'serial' });
  assert.ok(typedFrame.length < serialFrame.length, `${typedFrame.length} vs ${serialFrame.length}`);
  const csv = 'id,name,score\n' + Array.from({ length: 2000 }, (_, i) => `${i},user${i % 37},${(i * 7) % 101}`).join('\n') + '\n';
  assert.equal(new TextDecoder().decode(await decompress(await compress(csv, { profile: 'csv' }))), csv);
  // A view into a larger buffer compresses only its own bytes.
  const big = new Uint32Array(100).map((_, i) => i);
  assert.deepEqual(await decompress(await compress(big.subarray(10, 20))), new Uint8Array(big.buffer, 40, 40));
});

test('fixed-width records: one column per field where the codec has them, else UNSUPPORTED', async () => {
  const n = 5000, rec = new DataView(new ArrayBuffer(n * 14));
  for (let i = 0; i < n; i++) {
    rec.setUint32(14 * i, 100000 + i, true);
    rec.setUint16(14 * i + 4, 20 + (i % 13), true);
    rec.setBigUint64(14 * i + 6, 1700000000000n + BigInt(i) * 250n, true);
  }
  const bytes = new Uint8Array(rec.buffer);
  let frame;
  try {
    frame = await compress(bytes, { fields: [4, 2, 8] });
  } catch (e) {
    assert.ok(e instanceof CairnError && e.codeName === 'UNSUPPORTED', String(e));
    return;
  }
  assert.deepEqual(await decompress(frame), bytes);
  assert.deepEqual(await compress(bytes, { profile: 'records:4,2,8' }), frame);
  assert.ok(frame.length < (await compress(bytes)).length);
  const out = new MemoryFile();
  await zl.compressFile(new MemoryFile(bytes), out, { fields: [4, 2, 8] });
  assert.deepEqual(out.bytes(), frame);
  // issue 21: any length, a partial last record kept as a tail
  assert.deepEqual(await decompress(await compress(bytes.subarray(1), { fields: [4, 2, 8] })), bytes.subarray(1));
  await assert.rejects(compress(bytes, { fields: [0] }), (e) => e instanceof CairnError && e.codeName === 'MISUSE');
});

test('compressFile/decompressFile stream between file objects and match compress()', async () => {
  const input = read('inputs/i64_timestamps.bin');
  const src = new MemoryFile(input), frameFile = new MemoryFile(), back = new MemoryFile();
  const r = await zl.compressFile(src, frameFile, { profile: 'le-i64' });
  assert.equal(r.bytesIn, input.length);
  assert.deepEqual(frameFile.bytes(), await compress(input, { profile: 'le-i64' }));
  await zl.decompressFile(frameFile, back);
  assert.deepEqual(back.bytes(), input);
  const golden = new NodeFile(path.join(dir, 'frames/table.csv.zl'));
  const out = new MemoryFile();
  await zl.decompressFile(golden, out);
  golden.close();
  assert.deepEqual(out.bytes(), read('inputs/table.csv'));
});

test('bad input: CairnErrors, never a crash', async () => {
  const isErr = (...names) => (e) => e instanceof CairnError && names.includes(e.codeName);
  const frame = read('frames/u32_ramp.le-u32.zl');
  await assert.rejects(decompress(frame.subarray(0, frame.length - 10)), isErr('CORRUPT', 'CHECKSUM'));
  await assert.rejects(decompress(frame.subarray(0, 3)), isErr('CORRUPT'));
  await assert.rejects(decompress(new Uint8Array(0)), isErr('CORRUPT'));
  for (const at of [frame.length >> 1, frame.length - 2, 30]) {
    const bad = frame.slice();
    bad[at] ^= 0x40;
    await assert.rejects(decompress(bad), isErr('CORRUPT', 'CHECKSUM', 'UNSUPPORTED'), `byte ${at}`);
  }
  for (let i = 0; i < 200; i++) {
    const bad = frame.slice();
    for (let k = 0; k < 3; k++) bad[(i * 7919 + k * 104729) % bad.length] ^= 1 + (i % 255);
    try {
      await decompress(bad);
    } catch (e) {
      assert.ok(e instanceof CairnError, String(e));
    }
  }
  await assert.rejects(decompress(frame, { maxSize: 1000 }), isErr('LIMIT'));
  assert.deepEqual(await decompress(await compress(new Uint8Array(10), { profile: 'le-u32' })), new Uint8Array(10)); // issue 21: any length
  await assert.rejects(compress(new Uint8Array(10), { profile: 'jpeg' }), isErr('MISUSE'));
  await assert.rejects(compress(new Uint8Array(10), { level: 99 }), isErr('MISUSE'));
  await assert.rejects(compress(42), isErr('MISUSE'));
  await assert.rejects(decompress('a string'), isErr('MISUSE'));
});

// 2026-12-02 (issue 21): frame introspection, named graphs, multi-output frames, any length.
test('zl.info, graphs, decompressMulti', async () => {
  const corpus = new URL('../../tests/fuzz/corpus/zl_decode/', import.meta.url);
  const huf = new Uint8Array(fs.readFileSync(new URL('v26_hufstruct_tok2.zl', corpus)));
  const inf = await zl.info(huf);
  assert.equal(inf.format, 26);
  assert.ok(inf.chunks[0].decoders.some((d) => d.codec === 51 && d.name === 'huffman_struct_v2'));
  assert.ok((await zl.info(huf, { text: true })).includes('huffman_struct_v2 (51)'));
  assert.equal(sha(await decompress(huf)).length, 64);
  const multi = new Uint8Array(fs.readFileSync(new URL('v26_multi3.zl', corpus)));
  const outs = await zl.decompressMulti(multi);
  assert.deepEqual(outs.map((o) => [o.type, o.count]), [['serial', 2072], ['numeric', 500], ['string', 600]]);
  assert.equal(sha(outs[1].data), '200e9a6602e971c99248c0413c6d79a9e0d9d2469449947a3cb0995bcd9a25da');
  assert.equal(outs[2].lengths.reduce((a, b) => a + b, 0), outs[2].data.length);
  await assert.rejects(decompress(multi), (e) => e instanceof CairnError && e.codeName === 'UNSUPPORTED');
  const text = new TextEncoder().encode('12,ab,345\n'.repeat(300) + 'x');
  for (const graph of zl.GRAPHS) {
    for (const profile of ['serial', 'le-u16', 'le-u32']) {
      const f = await compress(text, { profile, graph, level: 3 });
      assert.deepEqual(await decompress(f), text, `${graph} ${profile}`);
    }
  }
  const fp = await zl.info(await compress(text, { graph: 'flatpack' }));
  assert.ok(fp.chunks[0].decoders.some((d) => d.name === 'flatpack'));
  await assert.rejects(compress(text, { graph: 'fse' }), (e) => e instanceof CairnError && e.codeName === 'UNSUPPORTED');
  await assert.rejects(compress(text, { graph: 'nope' }), (e) => e instanceof CairnError && e.codeName === 'MISUSE');
});
