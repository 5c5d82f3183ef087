// 2026-11-29 - the npm package's HDF5 API (js/src/h5.js) in Node, checked against independent
// tools: files written by h5py (Debian's python3-h5py over libhdf5 1.10) are read and every
// dataset and attribute value is compared with what h5py reads (exact: integers as decimal
// strings, floats as repr); the same files are compared with h5wasm 0.8.8 (libhdf5 in wasm)
// for dtype/shape/metadata/filters/values; files written from JS are read back by h5py and
// checked by h5dump. Fixtures are generated into a temporary directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import cairn, { h5, MemoryFile, NodeFile, CairnError } from '../src/node.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const PY = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3'; // Debian's, with h5py
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-h5-'));
const py = (args, input) => execFileSync(PY, args, { maxBuffer: 1 << 28, input, encoding: 'utf8' });
const make = (name, ...flags) => {
  const p = path.join(tmp, name);
  py([path.join(here, 'fixtures/h5py_make.py'), p, ...flags]);
  return p;
};
const dump = (p) => JSON.parse(py([path.join(here, 'fixtures/h5py_dump.py'), p]));

const earliest = make('earliest.h5');
const latest = make('latest.h5', '--latest');

const pyFloat = (s) => ({ inf: Infinity, '-inf': -Infinity, nan: NaN })[s] ?? Number(s);
/** Compare one value from cairn with h5py's exact text form (see h5py_dump.py). */
function same(act, exp, where) {
  if (Array.isArray(exp)) {
    assert.ok(Array.isArray(act), `${where}: expected an array, got ${typeof act}`);
    assert.equal(act.length, exp.length, `${where}: length`);
    exp.forEach((e, i) => same(act[i], e, `${where}[${i}]`));
  } else if (exp && typeof exp === 'object') {
    assert.deepEqual(Object.keys(act), Object.keys(exp), `${where}: members`);
    for (const k of Object.keys(exp)) same(act[k], exp[k], `${where}.${k}`);
  } else if (typeof act === 'bigint') assert.equal(String(act), exp, where);
  else if (typeof act === 'number') {
    if (exp === 'true' || exp === 'false') assert.equal(act, exp === 'true' ? 1 : 0, where);
    else assert.ok(Object.is(act, pyFloat(exp)), `${where}: ${act} != ${exp}`);
  } else assert.equal(act, exp, where);
}
/** Flat list of a cairn value (scalars wrapped, typed arrays copied, array-type elements spread). */
function flat(v) {
  if (v === null || v === undefined) return [];
  if (ArrayBuffer.isView(v)) return Array.from(v);
  if (!Array.isArray(v)) return [v];
  return v.flat(Infinity);
}

function checkAgainstH5py(f, expected, label) {
  let n = 0;
  for (const [key, e] of Object.entries(expected)) {
    const at = key.indexOf('@');
    const objPath = at < 0 ? key : key.slice(0, at) || '/';
    const obj = f.get(objPath);
    assert.ok(obj, `${label} ${objPath} missing`);
    const x = at < 0 ? obj : obj.attrs[key.slice(at + 1)];
    assert.ok(x, `${label} ${key} missing`);
    const v = x.value;
    const actFlat = flat(v);
    assert.equal(actFlat.length, e.data.length, `${label} ${key}: element count`);
    same(actFlat, e.data, `${label} ${key}`);
    // h5py expands array-type elements into extra dimensions.
    assert.deepEqual(x.shape, e.shape.slice(0, x.shape.length), `${label} ${key}: shape`);
    n++;
  }
  return n;
}

test('h5py files: every dataset and attribute equals what h5py reads (MemoryFile and NodeFile, superblock v0 and v3)', async () => {
  for (const p of [earliest, latest]) {
    const expected = dump(p);
    const viaNode = await h5.File.open(new NodeFile(p));
    const viaMem = await h5.File.open(new MemoryFile(fs.readFileSync(p)));
    const viaPath = await h5.File.open(p);
    try {
      assert.ok(checkAgainstH5py(viaNode, expected, `${path.basename(p)} NodeFile`) > 40);
      checkAgainstH5py(viaMem, expected, `${path.basename(p)} MemoryFile`);
      checkAgainstH5py(viaPath, expected, `${path.basename(p)} path`);
    } finally {
      viaNode.close(), viaMem.close(), viaPath.close();
    }
  }
});

test('JS value types follow h5wasm: typed arrays, BigInt64Array, string[], objects, scalars', async () => {
  const f = await h5.File.open(earliest);
  try {
    assert.ok(f.get('ints/i8').value instanceof BigInt64Array);
    assert.ok(f.get('ints/u8').value instanceof BigUint64Array);
    assert.ok(f.get('ints/be_i4').value instanceof Int32Array);
    assert.ok(f.get('ints/u1').value instanceof Uint8Array);
    assert.ok(f.get('floats/f4').value instanceof Float32Array);
    assert.ok(f.get('floats/be_f8').value instanceof Float64Array);
    assert.ok(f.get('floats/f2').value instanceof Float32Array); // h5wasm cannot read float16
    assert.equal(f.get('floats/scalar').value, 2.5);
    assert.equal(f.get('strings/scalar').value, 'a scalar string');
    assert.deepEqual(f.get('strings/vlen_ascii').value, ['one', 'two', 'three']);
    assert.deepEqual(f.get('compound_vlen').value, [{ k: 1, s: 'ünï', y: 1.5 }, { k: 2, s: '', y: -2 }]);
    assert.equal(f.get('compound').value[3].big, 2n ** 62n + 3n);
    assert.deepEqual(f.get('bool').json_value, [true, false, true]);
    assert.deepEqual(f.get('ints/matrix').to_array()[1][2], [20, 21, 22, 23]);
    assert.deepEqual(f.get('chunked/deflate').attrs.matrix.to_array(), [[0, 1, 2], [3, 4, 5]]);
    assert.equal(f.get('floats/empty').value.length, 0);
    assert.equal(f.get('/a').attrs.depth.value, 1);
    assert.equal(f.get_attribute('title'), 'cairn test file');
    assert.equal(f.get_attribute('no such attribute'), null);
    // dtype strings as h5wasm spells them, numpy's in np_dtype.
    assert.equal(f.get('floats/f4').dtype, '<f');
    assert.equal(f.get('ints/be_u8').dtype, '>Q');
    assert.equal(f.get('ints/be_u8').np_dtype, '>u8');
    assert.equal(f.get('strings/fixed').dtype, 'S10');
    assert.equal(f.get('strings/vlen_utf8').dtype, 'S');
    assert.deepEqual(f.get('compound').dtype.compound_type.members.map((m) => m.name), ['id', 'x', 'name', 'big', 'v', 'u']);
    // Links: soft links followed, dangling ones and external links reported, missing -> null.
    assert.deepEqual(f.get('soft').value, new Uint16Array([1, 2, 3]));
    const ext = f.get('ext');
    assert.equal(ext.type, 'ExternalLink');
    assert.equal(ext.filename, 'other.h5');
    assert.equal(ext.obj_path, '/x');
    assert.equal(f.get('nope'), null);
    assert.equal(f.get('a/nope/deeper'), null);
    assert.equal(f.get('a/b').parent.path, '/a');
    assert.equal(f.get('a/b/c').get('leaf').root.path, '/');
    assert.deepEqual([...f.get('a').items()].map(([k, v]) => [k, v.type]), [['b', 'Group']]);
    const nt = f.get('named_type');
    assert.equal(nt.type, 'Datatype');
    assert.equal(nt.metadata.type, 6);
    assert.deepEqual(nt.dtype.compound_type.members.map((m) => m.name), ['a', 'b']);
    assert.equal(nt.attrs.doc.value, 'a committed type');
    assert.deepEqual(f.get('uses_named').value, [{ a: 1, b: 0.5 }, { a: 2, b: -1.5 }]);
    assert.equal(f.get('many').keys().length, 120);
    assert.equal(Object.keys(f.get('many').attrs).length, 120);
    assert.deepEqual(Array.from(f.get('many/d077').value), [77, -77]);
  } finally {
    f.close();
  }
});

test('slices equal numpy slicing in h5py', async () => {
  const cases = [
    ['chunked/deflate', [[1, 3], [10, 20, 3]], 'd[1:3, 10:20:3]'],
    ['chunked/deflate', [[190], [null, null, 7]], 'd[190:, ::7]'],
    ['chunked/deflate', [[-5, -1]], 'd[-5:-1, :]'],
    ['ints/matrix', [[1, 2], [0, 3, 2], [1, 4]], 'd[1:2, 0:3:2, 1:4]'],
    ['strings/vlen_utf8', [[1, 4, 2]], 'd[1:4:2]'],
    ['compound', [[1, 3]], 'd[1:3]'],
    ['chunked/resizable', [[3, 9, 2], [1, 3]], 'd[3:9:2, 1:3]'],
    ['ints/i8', [[2, 2]], 'd[2:2]'],
  ];
  const script = `
import sys, json, h5py, numpy as np
sys.path.insert(0, ${JSON.stringify(path.join(here, 'fixtures'))})
from h5py_dump import conv
f = h5py.File(sys.argv[1], 'r')
out = []
for name, expr in json.loads(sys.stdin.read()):
    d = f[name]
    if h5py.check_string_dtype(d.dtype): d = d.asstr()
    v = np.asarray(eval(expr), dtype=object if h5py.check_string_dtype(f[name].dtype) else None)
    out.append([conv(x) for x in v.reshape(-1)])
print(json.dumps(out))
`;
  const exp = JSON.parse(execFileSync(PY, ['-c', script, latest], { input: JSON.stringify(cases.map((c) => [c[0], c[2]])), encoding: 'utf8' }));
  const f = await h5.File.open(new NodeFile(latest));
  try {
    cases.forEach(([name, ranges, expr], i) => same(flat(f.get(name).slice(ranges)), exp[i], `${name} ${expr}`));
    assert.deepEqual(f.get('floats/scalar').slice([]), 2.5);
  } finally {
    f.close();
  }
});

test('same dtype, shape, metadata, filters and values as h5wasm 0.8.8', async () => {
  const { default: h5wasm } = await import('h5wasm/node');
  await h5wasm.ready;
  const theirs = new h5wasm.File(earliest, 'r');
  const ours = await h5.File.open(earliest);
  try {
    const paths = theirs.paths().filter((p) => theirs.get(p) instanceof h5wasm.Dataset);
    assert.deepEqual(ours.paths().filter((p) => ours.get(p) && ours.get(p).type === 'Dataset'), paths);
    assert.deepEqual(ours.keys(), theirs.keys());
    let compared = 0;
    for (const p of paths) {
      const t = theirs.get(p), o = ours.get(p);
      assert.deepEqual(o.shape, t.shape, `${p} shape`);
      const tm = t.metadata, om = o.metadata;
      for (const k of ['type', 'vlen', 'chunks', 'total_size']) assert.deepEqual(om[k], tm[k], `${p} metadata.${k}`);
      if (tm.type === 0 || tm.type === 1) for (const k of ['size', 'signed', 'littleEndian']) assert.equal(om[k], tm[k], `${p} metadata.${k}`);
      if (tm.type === 3) assert.equal(om.cset, tm.cset, `${p} cset`);
      if (!(tm.maxshape || []).includes(4294967295)) assert.deepEqual(om.maxshape, tm.maxshape, `${p} maxshape`);
      assert.deepEqual(o.filters, t.filters, `${p} filters`);
      // h5wasm says 'unknown' for enums and gives compounds in memory layout (vlen members as
      // 4-byte pointers); cairn gives the file layout: compare compound members by name and class.
      const names = (d) => d.compound_type.members.map((m) => [m.name, m.type, m.vlen]);
      if (tm.type === 6) assert.deepEqual(names(o.dtype), names(t.dtype), `${p} dtype`);
      else if (tm.type !== 8) assert.deepEqual(o.dtype, t.dtype, `${p} dtype`);
      if (p === 'compound_vlen') continue; // h5wasm 0.8.8 leaves its big-endian float member unswapped (h5py agrees with cairn)
      let tv;
      try {
        tv = t.value;
      } catch {
        continue; // float16: h5wasm cannot read it
      }
      const ov = o.value;
      if (tm.type === 6) assert.deepEqual(ov.map((r) => Object.values(r)), tv, `${p} value`);
      else assert.deepEqual(ov, tv, `${p} value`);
      // h5wasm nests array types one level too deep; compounds are rows there, objects here.
      if (tm.type === 6) assert.deepEqual(o.to_array().map((r) => Object.values(r)), t.to_array(), `${p} to_array`);
      else if (tm.type !== 10) assert.deepEqual(o.to_array(), t.to_array(), `${p} to_array`);
      compared++;
    }
    assert.ok(compared > 25, `compared ${compared} datasets`);
    for (const [name, a] of Object.entries(theirs.attrs)) {
      assert.deepEqual(ours.attrs[name].value, a.value, `attribute ${name}`);
      assert.deepEqual(ours.attrs[name].shape, a.shape, `attribute ${name} shape`);
    }
    assert.deepEqual(Object.keys(ours.get('chunked/deflate').attrs), Object.keys(theirs.get('chunked/deflate').attrs));
  } finally {
    theirs.close();
    ours.close();
  }
});

/** A NodeFile that counts bytes read (what a network or disk would carry). */
class CountingFile extends NodeFile {
  constructor(p) {
    super(p);
    this.bytesRead = 0;
  }
  read(off, n) {
    const b = super.read(off, n);
    this.bytesRead += b.length;
    return b;
  }
}

test('lazy: one small dataset out of a large chunked file reads a small fraction of it', async () => {
  const p = path.join(tmp, 'big.h5');
  py(['-c', `
import h5py, numpy as np
with h5py.File(${JSON.stringify(p)}, 'w') as f:
    r = np.random.default_rng(1)
    f.create_dataset('big', data=r.standard_normal((1024, 1024)).astype('<f4'), chunks=(64, 64), compression='gzip', compression_opts=1)
    f.create_dataset('other', data=r.integers(0, 1000, (512, 1024)).astype('<i4'))
    f.create_dataset('small/labels', data=np.arange(100, dtype='<i2') * 3)
    f['small'].attrs['note'] = 'tiny'
`]);
  const size = fs.statSync(p).size;
  assert.ok(size > 4e6, `fixture is ${size} bytes`);
  const file = new CountingFile(p);
  const f = await h5.File.open(file);
  try {
    assert.deepEqual(Array.from(f.get('small/labels').value), Array.from({ length: 100 }, (_, i) => i * 3));
    assert.equal(f.get('small').attrs.note.value, 'tiny');
    assert.ok(file.bytesRead < size / 100, `read ${file.bytesRead} of ${size} bytes`);
    const before = file.bytesRead;
    const corner = f.get('big').slice([[0, 10], [0, 10]]);
    assert.equal(corner.length, 100);
    assert.ok(file.bytesRead - before < size / 50, `one chunk cost ${file.bytesRead - before} bytes`);
    const st = f.stats();
    assert.ok(st.reads > 0 && st.bytes <= file.bytesRead);
  } finally {
    f.close();
    file.close();
  }
});

test('errors: not HDF5, read-only writes, closed files, bad arguments', async () => {
  await assert.rejects(h5.File.open(new MemoryFile(new Uint8Array(1000))), (e) => e instanceof CairnError && /open/.test(e.message));
  await assert.rejects(h5.File.open({}), TypeError);
  await assert.rejects(h5.File.open(new MemoryFile(), 'q'), TypeError);
  const f = await h5.File.open(new NodeFile(latest));
  assert.throws(() => f.create_group('x'), (e) => e.codeName === 'READONLY');
  assert.throws(() => f.create_attribute('x', 1), (e) => e.codeName === 'READONLY');
  assert.throws(() => f.get('ints/i4').slice([[0, 3, 0]]), RangeError);
  f.close();
  assert.throws(() => f.keys(), (e) => e instanceof CairnError && e.codeName === 'MISUSE');
  assert.equal(f.close(), 0); // closing twice is harmless
  // An h5py file with libver='earliest' (superblock v0) opens for editing, but this one holds
  // object references, which the writer refuses to break: a clear UNSUPPORTED, file intact.
  const copy = path.join(tmp, 'earliest-edit.h5');
  fs.copyFileSync(earliest, copy);
  const e = await h5.File.open(new NodeFile(copy, 'r+'), 'a');
  assert.throws(() => e.create_group('added_by_js'), (err) => err instanceof CairnError && err.codeName === 'UNSUPPORTED' && /object references/.test(err.message));
  e.close();
  assert.equal(py(['-c', 'import h5py,sys; f=h5py.File(sys.argv[1]); print("added_by_js" in f)', copy]).trim(), 'False');
  // A throwing host surfaces its message.
  const broken = { name: 'broken.h5', read() { throw new Error('disk on fire'); }, size() { return 4096; } };
  await assert.rejects(h5.File.open(broken), (e) => e.codeName === 'IOERR' && /disk on fire/.test(e.message));
});

test('no leaked wasm memory over many reads', async () => {
  const M = cairn._internal.module;
  const f = await h5.File.open(new NodeFile(latest));
  try {
    for (let i = 0; i < 20; i++) f.get('chunked/deflate').value; // warm up, let the heap settle
    const heap = M.HEAPU8.length;
    for (let i = 0; i < 300; i++) {
      f.get('chunked/deflate').value; // 240 KB each: a leak would grow the heap by 70 MB
      f.get('compound_vlen').value;
      f.get('strings/vlen_utf8').slice([[1, 3]]);
      f.attrs.names.value;
      assert.equal(f.get(`missing${i}`), null);
    }
    assert.ok(M.HEAPU8.length - heap < 16 << 20, `heap grew from ${heap} to ${M.HEAPU8.length}`);
  } finally {
    f.close();
  }
});

test('damaged files: every failure is a CairnError, never a crash or a JS exception', async () => {
  const good = fs.readFileSync(earliest);
  let x = 12345, opened = 0, failures = 0;
  const rnd = (n) => ((x = (x * 1103515245 + 12345) >>> 0) % n);
  for (let round = 0; round < 120; round++) {
    const bad = new Uint8Array(good);
    for (let k = 0; k < 1 + rnd(8); k++) bad[rnd(Math.min(bad.length, 8192))] ^= 1 << rnd(8); // metadata sits early
    let f;
    try {
      f = await h5.File.open(new MemoryFile(bad));
      opened++;
      for (const p of f.paths()) {
        try {
          const o = f.get(p);
          if (o && o.type === 'Dataset') {
            o.value;
            o.dtype;
            o.metadata;
            o.slice([[0, 2]]);
          }
          if (o && o.attrs) for (const a of Object.values(o.attrs)) a.value;
        } catch (e) {
          assert.ok(e instanceof CairnError, `round ${round} ${p}: ${e && e.stack}`);
          failures++;
        }
      }
    } catch (e) {
      assert.ok(e instanceof CairnError, `round ${round}: ${e && e.stack}`);
      failures++;
    } finally {
      if (f) f.close();
    }
  }
  assert.ok(opened > 0 && failures > 0, `opened ${opened}, failures ${failures}`);
});

// The reader's fast paths (issue 3, speed): all attributes of an object in one call into the
// core (numbers carried as binary values), and large contiguous datasets read from the file
// straight into the result array. Both must give exactly what h5py reads, through NodeFile
// (readInto) and MemoryFile (read) alike, and fall back cleanly where they do not apply.
test('attributes in bulk and contiguous reads without copies equal h5py, for every numeric kind', async () => {
  const p = path.join(tmp, 'fast.h5');
  py(['-c', `
import h5py, numpy as np
with h5py.File(${JSON.stringify(p)}, 'w') as f:
    g = f.create_group('g')
    for t in ['<i1', '<u1', '<i2', '>u2', '<i4', '>i4', '<u4', '<i8', '>u8', '<f2', '<f4', '>f4', '<f8', '>f8']:
        g.attrs['s' + t[1:] + ('be' if t[0] == '>' else '')] = np.array(-3 if t[1] in 'if' else 3, dtype=t)
        g.attrs['a' + t[1:] + ('be' if t[0] == '>' else '')] = (np.arange(12).reshape(3, 4) * (1 if t[1] == 'u' else -1)).astype(t)
    g.attrs['enum'] = np.array([0, 42, 1], dtype=h5py.enum_dtype({'R': 0, 'G': 1, 'B': 42}, basetype='u1'))
    g.attrs['text'] = 'words'
    g.attrs['texts'] = np.array(['x', 'yz'], dtype=h5py.string_dtype())
    g.attrs['empty'] = np.zeros(0, dtype='<f4')
    g.attrs['big'] = (np.arange(17000) % 2048).astype('<f2')  # 68 KB as float32, over the bulk's 64 KiB: read alone
    f['le'] = np.arange(40000, dtype='<f4') / 8
    f['be'] = np.arange(40000, dtype='>i4') - 7
    f['u2'] = np.arange(70000, dtype='<u4').astype('<u2')
`]);
  const expected = dump(p);
  py(['-c', `
import h5py
with h5py.File(${JSON.stringify(p)}, 'a') as f: f['g'].attrs.create('null', data=h5py.Empty('<f8'))
`]); // after the dump: h5py_dump.py has no form for an empty (NULL) dataspace
  for (const viaMem of [false, true]) {
    const file = viaMem ? new MemoryFile(fs.readFileSync(p)) : new NodeFile(p);
    const f = await h5.File.open(file);
    try {
      const label = viaMem ? 'MemoryFile' : 'NodeFile';
      assert.equal(checkAgainstH5py(f, expected, label), 36);
      const a = f.get('g').attrs;
      assert.equal(typeof a.si8, 'object');
      assert.equal(a.si8.value, -3n); // scalars come out as single values, like h5wasm
      assert.ok(a.au8be.value instanceof BigUint64Array && a.au8be.value[5] === 5n);
      assert.ok(a.af2.value instanceof Float32Array && a.af4be.value instanceof Float32Array);
      assert.deepEqual(a.af4.shape, [3, 4]);
      assert.equal(a.null.value, null);
      assert.equal(a.null.shape, null);
      assert.equal(a.empty.value.length, 0);
      assert.deepEqual(Array.from(a.enum.value), [0, 42, 1]);
      assert.deepEqual(a.texts.value, ['x', 'yz']);
      // each read gives a fresh array: changing one does not change the next
      const v1 = a.ai4.value;
      v1[0] = 99;
      assert.equal(f.get('g').attrs.ai4.value[0], 0);
      const le = f.get('le').value;
      le[1] = 0;
      assert.equal(f.get('le').value[1], 0.125);
    } finally {
      f.close();
      file.close?.();
    }
  }
  // data past the end of the file is an error on the direct path too, never short values
  const cut = path.join(tmp, 'fast-cut.h5');
  const bytes = fs.readFileSync(p);
  const info = JSON.parse(py(['-c', `
import h5py, json
with h5py.File(${JSON.stringify(p)}, 'r') as f: print(json.dumps(f['le'].id.get_offset()))
`]));
  fs.writeFileSync(cut, bytes.subarray(0, info + 1000));
  const f = await h5.File.open(new MemoryFile(fs.readFileSync(cut)));
  try {
    assert.throws(() => f.get('le').value, (e) => e instanceof CairnError && /past the end|truncated/.test(e.message));
  } finally {
    f.close();
  }
});

// Contiguous datasets of 1 MiB and more take readExtent's large path in Node: an uninitialized
// Buffer the size of the data, its pages touched, then one read from the file into it. The
// values must be h5py's, the array must own exactly its own memory (no pool slice, no view of
// a shared buffer) and a short file must be an error, through every kind of host.
test('large contiguous reads (>= 1 MiB) equal h5py through NodeFile, a read()-overriding NodeFile and MemoryFile', async () => {
  const p = path.join(tmp, 'big.h5');
  const sums = JSON.parse(py(['-c', `
import h5py, numpy as np, hashlib, json
with h5py.File(${JSON.stringify(p)}, 'w') as f:
    f['f4'] = (np.arange(300001) / 8 - 1000).astype('<f4')
    f['f4be'] = (np.arange(300001) / 8 - 1000).astype('>f4')
    f['i8'] = (np.arange(150001) * -123457).astype('<i8')
    f['u2'] = (np.arange(600001) * 7 % 65536).astype('<u2')
    f['f8_2d'] = (np.arange(400 * 401) / 3).reshape(400, 401)
with h5py.File(${JSON.stringify(p)}, 'r') as f:
    le = {'f4': '<f4', 'f4be': '<f4', 'i8': '<i8', 'u2': '<u2', 'f8_2d': '<f8'}
    out = {k: [hashlib.sha256(f[k][()].astype(t).tobytes()).hexdigest(), int(f[k].size)] for k, t in le.items()}
    out['f8_2d_part'] = f['f8_2d'][100:103, 398:401].ravel().tolist()
    out['f4_off'] = int(f['f4'].id.get_offset())
print(json.dumps(out))
`]));
  const hex = (a) => createHash('sha256').update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength)).digest('hex');
  class Counting extends NodeFile {
    read(offset, length) {
      this.reads = (this.reads || 0) + 1;
      return super.read(offset, length);
    }
  }
  for (const [label, file] of [['NodeFile', new NodeFile(p)], ['Counting', new Counting(p)], ['MemoryFile', new MemoryFile(fs.readFileSync(p))]]) {
    const f = await h5.File.open(file);
    try {
      for (const k of ['f4', 'f4be', 'i8', 'u2', 'f8_2d']) {
        const v = f.get(k).value, [sum, n] = sums[k];
        assert.equal(v.length, n, `${label} ${k}: length`);
        assert.equal(v.byteOffset, 0, `${label} ${k}: own buffer`);
        assert.equal(v.buffer.byteLength, v.byteLength, `${label} ${k}: buffer exactly the data`);
        assert.equal(hex(v), sum, `${label} ${k}: bytes`);
      }
      const a = f.get('f4').value;
      a[5] = 42;
      assert.equal(f.get('f4').value[5], 5 / 8 - 1000, `${label}: each read a fresh array`);
      assert.deepEqual(Array.from(f.get('f8_2d').slice([[100, 103], [398, 401]])), sums.f8_2d_part, `${label}: hyperslab`);
      if (label === 'Counting') assert.ok(file.reads > 0, 'the overriding read() saw the reads');
    } finally {
      f.close();
      file.close();
    }
  }
  // a file cut inside the 1.2 MB f4 data: an error on every host, never short or stale values
  const cut = path.join(tmp, 'big-cut.h5');
  fs.writeFileSync(cut, fs.readFileSync(p).subarray(0, sums.f4_off + 1000000));
  for (const file of [new NodeFile(cut), new MemoryFile(fs.readFileSync(cut))]) {
    const f = await h5.File.open(file);
    try {
      assert.throws(() => f.get('f4').value, (e) => e instanceof CairnError && /past the end|truncated/.test(e.message));
    } finally {
      f.close();
      file.close();
    }
  }
});

test('attribute names: lists of one length but other names, reopened files and non-ASCII names come out right', async () => {
  // h5.js keeps recent name lists to give back the same strings (found by the names block's
  // length, then compared byte for byte): files whose names differ in one byte, or in order of
  // their values, must each get their own names and values
  const sets = [['ab', 'cd', 'ef'], ['ab', 'cd', 'eg'], ['ab', 'ce', 'ef'], ['zz', 'yy', 'xx'], ['é', 'cd', 'ef'], ['ab', 'cd', 'e\u00e9'.slice(0, 2)]];
  const files = sets.map((names, k) => {
    const p = path.join(tmp, `names${k}.h5`);
    py(['-c', `
import h5py, json
names = json.loads(${JSON.stringify(JSON.stringify(names))})
with h5py.File(${JSON.stringify(p)}, 'w') as f:
    g = f.create_group('g')
    for i, n in enumerate(names): g.attrs[n] = float(100 * ${k} + i)
`]);
    return p;
  });
  const want = files.map((p) => JSON.parse(py(['-c', `
import h5py, json
with h5py.File(${JSON.stringify(p)}, 'r') as f: print(json.dumps({k: float(v) for k, v in f['g'].attrs.items()}))
`])));
  for (let round = 0; round < 2; round++) {
    for (let k = 0; k < files.length; k++) {
      const f = await h5.File.open(new NodeFile(files[k]));
      try {
        const a = f.get('g').attrs, got = {};
        for (const n in a) got[n] = a[n].value;
        assert.deepEqual(Object.keys(got).sort(), Object.keys(want[k]).sort(), `file ${k} round ${round}`);
        assert.deepEqual(got, want[k], `file ${k} round ${round}`);
        for (const n of Object.keys(want[k])) assert.equal(f.get('g').get_attribute(n), want[k][n]);
      } finally {
        f.close();
        f.file.close();
      }
    }
  }
});

test('object references read as h5wasm-like Reference objects: path, dereference, get, JSON, written back as paths', async () => {
  // written by h5py: a dataset of references, a scalar reference attribute, a compound with one
  const p = path.join(tmp, 'refs.h5');
  py(['-c', `
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], 'w') as f:
    f['grp/target'] = np.arange(3, dtype='<i4')
    f['other'] = np.float64(2.5)
    r = f.create_dataset('refs', (3,), dtype=h5py.ref_dtype)
    r[0] = f['grp/target'].ref
    r[1] = f['other'].ref
    r[2] = f['grp'].ref
    f['other'].attrs['back'] = f['grp/target'].ref
    ct = np.dtype([('id', '<i4'), ('r', h5py.ref_dtype)])
    c = np.zeros(1, dtype=ct)
    c[0] = (7, f['other'].ref)
    f['comp'] = c
`, p]);
  // what h5py resolves the references to (the independent answer)
  const want = JSON.parse(py(['-c', `
import sys, json, h5py
with h5py.File(sys.argv[1], 'r') as f:
    print(json.dumps([f[x].name for x in f['refs'][()]] + [f[f['other'].attrs['back']].name, f[f['comp'][0]['r']].name]))
`, p]));
  const f = await h5.File.open(p);
  try {
    const refs = f.get('refs').value;
    assert.equal(refs.length, 3);
    for (let i = 0; i < 3; i++) {
      assert.ok(refs[i] instanceof h5.Reference, `element ${i} is a Reference`);
      assert.equal(refs[i].path, want[i]);
      assert.equal(String(refs[i]), want[i]); // the path, as reads gave before the class
      assert.equal(`${refs[i]}`, want[i]);
    }
    assert.deepEqual(Array.from(f.dereference(refs[0]).value), [0, 1, 2]);
    assert.equal(f.dereference(refs[1]).value, 2.5);
    assert.equal(f.dereference(refs[2]).type, 'Group');
    assert.equal(f.get(refs[0]).path, want[0]); // get() takes one too
    assert.equal(f.get('grp').dereference(refs[1]).path, '/other'); // absolute, from any group
    const back = f.get('other').attrs.back.value;
    assert.ok(back instanceof h5.Reference);
    assert.equal(back.path, want[3]);
    const comp = f.get('comp').value;
    assert.equal(comp[0].id, 7);
    assert.ok(comp[0].r instanceof h5.Reference);
    assert.equal(comp[0].r.path, want[4]);
    // JSON-compatible values stay plain path strings
    assert.deepEqual(f.get('refs').json_value, want.slice(0, 3));
    assert.equal(JSON.stringify(refs), JSON.stringify(want.slice(0, 3)));
    // written back (the writer makes no references): their paths, as strings
    const q = path.join(tmp, 'refs-back.h5');
    const w = await h5.File.create(q);
    w.create_dataset({ name: 'paths', data: refs });
    w.close();
    const g = await h5.File.open(q);
    try {
      assert.deepEqual(g.get('paths').value, want.slice(0, 3));
    } finally {
      g.close();
    }
  } finally {
    f.close();
  }
});

test('raw data in external files: read in Node by the names the file holds, from the working directory as libhdf5 does', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-ext-'));
  // 30 i32 over three segments of two files, written and read back by h5py
  const want = JSON.parse(py(['-c', `import os, json, h5py, numpy as np
os.chdir(${JSON.stringify(dir)})
with h5py.File('ext.h5', 'w') as f:
    f.create_dataset('x', data=np.arange(30, dtype='<i4') ** 2 - 100,
                     external=[('ext_a.raw', 16, 40), ('ext_b.raw', 0, 48), ('ext_a.raw', 100, 32)])
with h5py.File('ext.h5', 'r') as f:
    print(json.dumps(f['x'][()].tolist()))`]));
  assert.equal(want.length, 30);
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    const f = await h5.File.open(path.join(dir, 'ext.h5'));
    const d = f.get('x');
    assert.deepEqual(Array.from(d.value), want);
    assert.deepEqual(Array.from(d.slice([[3, 29, 4]])), want.filter((_, i) => i >= 3 && i < 29 && (i - 3) % 4 === 0));
    f.close();
    // the same file from memory: the external files still come from the working directory
    const g = await h5.File.open(new MemoryFile(fs.readFileSync(path.join(dir, 'ext.h5'))));
    assert.deepEqual(Array.from(g.get('x').value), want);
    g.close();
    fs.unlinkSync(path.join(dir, 'ext_b.raw'));
    const k = await h5.File.open(path.join(dir, 'ext.h5'));
    assert.throws(() => k.get('x').value, (e) => e instanceof CairnError && /external file 'ext_b\.raw', which cannot be opened/.test(e.message));
    k.close();
  } finally {
    process.chdir(cwd);
  }
});
