// 2026-12-02 - Dataset.read_into (docs/js-memory.md): values land in the caller's typed array,
// equal to value / slice() for contiguous (large: read straight from the file), chunked and
// compact datasets; the wrong class, length or element type is refused; a reused array takes no
// fresh pages (minor faults per read stay near zero, where value faults in its whole result).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { h5 } from '../src/node.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-h5ri-'));

test('read_into fills the caller array with what value and slice() return, and refuses a wrong one', async () => {
  const p = path.join(tmp, 'ri.h5');
  let f = await h5.File.open(p, 'w');
  const big = new Float32Array(1 << 20).map((_, i) => i * 0.5);
  f.create_dataset({ name: 'big', data: big, layout: 'contiguous' });
  f.create_dataset({ name: 'ch', data: new Int32Array(1000).map((_, i) => i - 500), chunks: [64], filters: 'shuffle,zstd:3' });
  f.create_dataset({ name: 'i64', data: new BigInt64Array([1n, -2n, 3n]) });
  f.create_dataset({ name: 's', data: ['a', 'b'] });
  f.close();
  f = await h5.File.open(p, 'r');
  try {
    for (const name of ['big', 'ch', 'i64']) {
      const ds = f.get(name), v = ds.value, out = new v.constructor(v.length);
      assert.equal(ds.read_into(out), out);
      assert.deepEqual(out, v, name);
      const sl = ds.slice([[1, 3]]), o2 = new v.constructor(2);
      assert.deepEqual(ds.read_into(o2, [[1, 3]]), sl, `${name} slice`);
    }
    const ds = f.get('big');
    assert.throws(() => ds.read_into(new Float64Array(1 << 20)), (e) => e.code === 9);
    assert.throws(() => ds.read_into(new Float32Array(10)), (e) => e.code === 9);
    assert.throws(() => f.get('s').read_into(new Float32Array(2)), (e) => e.code === 12);
    // reused: no fresh pages after the first read (value faults in ~1,024 per 4 MiB result)
    const out = new Float32Array(1 << 20);
    ds.read_into(out);
    const f0 = process.resourceUsage().minorPageFault;
    for (let i = 0; i < 10; i++) ds.read_into(out);
    const per = (process.resourceUsage().minorPageFault - f0) / 10;
    assert.ok(per < 100, `read_into of a reused 4 MiB array took ${per} faults per read`);
    assert.equal(out[12345], 12345 * 0.5);
  } finally {
    f.close();
  }
});
