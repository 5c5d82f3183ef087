// 2026-12-02 - valid but hostile HDF5 files in the npm package (issue 16 item 5), made by h5py
// in a temporary directory: hard-link cycles end paths() as h5wasm's (each group entered once,
// by object header address) instead of exhausting the heap; a never-written 8 TB dataset's
// .value throws CairnError LIMIT naming it, the bytes and the budget, a slice reads the fill
// value, and the File option maxMemory sets the budget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { h5, MemoryFile, CairnError } from '../src/node.js';

const PY = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3'; // Debian's, with h5py
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-h5-hostile-'));
const cyc = path.join(tmp, 'cyc.h5'), big = path.join(tmp, 'big.h5');
execFileSync(PY, ['-c', `
import h5py, numpy as np, sys
with h5py.File(sys.argv[1], 'w') as f:
    f.create_group('a/b'); f['a/x'] = np.arange(3)
    f['a/b/c'] = f['a']; f['loop'] = f['/']; f['same'] = f['a/b']
    f['soft'] = h5py.SoftLink('/a')
    p = f.create_group('p'); q = f.create_group('q'); p['toq'] = q; q['top'] = p
with h5py.File(sys.argv[2], 'w') as f:
    f.create_dataset('big', shape=(10**6, 10**6), dtype='f8', chunks=(1000, 1000), fillvalue=7.5)
    f.create_dataset('small', data=np.arange(1000, dtype='f8'))
`, cyc, big]);
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('paths() ends on hard-link cycles, entering each group once (as h5wasm)', async () => {
  const f = await h5.File.open(cyc);
  try {
    const want = ['a', 'a/b', 'a/b/c', 'a/x', 'loop', 'p', 'p/toq', 'p/toq/top', 'q', 'same', 'soft'];
    assert.deepEqual(f.paths(), want);
    assert.deepEqual(f.get('a').paths(), ['b', 'b/c', 'x']);
    assert.deepEqual(f.get('p/toq/top/toq').paths(), ['top', 'top/toq']);
    // the same group under two names is the same object
    assert.equal(f.get('a/b/c/b/c').paths().length, 3);
  } finally {
    f.close();
  }
  // h5wasm (libhdf5's H5Lvisit) lists the same paths
  const h5wasm = await import('h5wasm/node').catch(() => null);
  if (h5wasm) {
    await h5wasm.ready;
    const g = new h5wasm.File(cyc, 'r');
    try {
      assert.deepEqual(g.paths().map((p) => p.replace(/^\//, '')).sort(), new h5.File(new MemoryFile(fs.readFileSync(cyc)), 'r').paths().sort());
    } finally {
      g.close();
    }
  }
});

test('a read obeys the budget: a never-written 8 TB dataset fails, a slice reads the fill value', async () => {
  const f = await h5.File.open(big);
  try {
    const ds = f.get('big');
    assert.deepEqual(ds.shape, [1e6, 1e6]);
    assert.throws(() => ds.value, (e) => e instanceof CairnError && e.codeName === 'LIMIT' && /big needs 8000000000000 bytes, over the read budget of 268435456 bytes/.test(e.message));
    assert.deepEqual(Array.from(ds.slice([[999998, 1000000], [5, 7]])), [7.5, 7.5, 7.5, 7.5]);
    assert.equal(f.get('small').value.length, 1000);
  } finally {
    f.close();
  }
  const g = await h5.File.open(big, 'r', { maxMemory: 4000 });
  try {
    assert.throws(() => g.get('small').value, (e) => e.codeName === 'LIMIT' && /small needs 8000 bytes, over the read budget of 4000 bytes/.test(e.message));
    assert.equal(g.get('small').slice([[0, 500]]).length, 500);
  } finally {
    g.close();
  }
  assert.throws(() => new h5.File(big, 'r', { maxMemory: -1 }), TypeError);
});
