// 2026-11-29 - the h5 API in headless Chromium (playwright-core driving /usr/bin/chromium):
// a chunked h5py file of a few MB served by js/tools/serve.mjs is opened over HTTP range
// requests in a worker and one small dataset is read (values checked against h5py; only a small
// fraction of the file crosses the network); the same file as a Blob; a file written to OPFS in
// the worker (then edited in place) and one written to a MemoryFile on the page are read back by h5py.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../tools/chromium.mjs';
import { serve } from '../tools/serve.mjs';

const root = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
const here = path.join(root, 'js/test');
const PY = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const dump = (p) => JSON.parse(execFileSync(PY, [path.join(here, 'fixtures/h5py_dump.py'), p], { maxBuffer: 1 << 28, encoding: 'utf8' }));

test('h5 in headless Chromium: HTTP range reads, Blob and OPFS in a worker, MemoryFile on the page', { timeout: 180000 }, async () => {
  const dir = path.join(root, 'build/test-h5');
  fs.mkdirSync(dir, { recursive: true });
  const target = path.join(dir, 'range.h5');
  execFileSync(PY, ['-c', `
import h5py, numpy as np
with h5py.File(${JSON.stringify(target)}, 'w') as f:
    r = np.random.default_rng(3)
    f.create_dataset('big', data=r.standard_normal((1024, 1024)).astype('<f4'), chunks=(128, 128), compression='gzip', compression_opts=1, shuffle=True)
    f.create_dataset('noise', data=r.integers(0, 2**31, (400, 1024)).astype('<i4'))
    f.create_dataset('small/labels', data=np.arange(50, dtype='<i2') * 7)
    f['small'].attrs['note'] = 'served over HTTP'
`]);
  fs.copyFileSync(target, path.join(dir, 'blob.h5'));
  const size = fs.statSync(target).size;
  assert.ok(size > 3e6, `fixture of ${size} bytes`);
  const expected = dump(target);
  const corner = JSON.parse(execFileSync(PY, ['-c', `import h5py, json; print(json.dumps(h5py.File(${JSON.stringify(target)}, 'r')['big'][0:2, 0:3].astype(float).ravel().tolist()))`], { encoding: 'utf8' }));

  const { server, port, stats } = await serve(root);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const logs = [];
    page.on('console', (m) => logs.push(m.text()));
    page.on('pageerror', (e) => logs.push(String(e)));
    await page.goto(`http://127.0.0.1:${port}/js/test/browser/h5.html`);
    await page.waitForFunction(() => window.results !== undefined, null, { timeout: 120000 });
    const r = await page.evaluate(() => window.results);
    assert.equal(r.error, undefined, `${r.error}\n${logs.join('\n')}`);
    const w = r.worker;
    assert.equal(w.error, undefined, `${w.error}\n${logs.join('\n')}`);

    // HTTP range reads: values as h5py reads them, a small fraction of the file fetched.
    assert.deepEqual(w.keys, ['big', 'noise', 'small']);
    assert.deepEqual(w.labels.map(String), expected['/small/labels'].data);
    assert.equal(w.labelsDtype, '<h');
    assert.equal(w.note, 'served over HTTP');
    assert.deepEqual(w.corner, corner);
    assert.deepEqual(w.bigShape, [1024, 1024]);
    assert.deepEqual(w.bigFilters, ['shuffle', 'deflate']);
    assert.equal(w.httpSize, size);
    console.log(`HTTP: ${w.httpFetchedSmall} bytes for the small dataset, ${w.httpFetched} in ${w.httpRequests} requests in all, of ${size}`);
    assert.ok(w.httpFetchedSmall < size / 50, `fetched ${w.httpFetchedSmall} of ${size} bytes for the small dataset`);
    assert.ok(w.httpFetched < size / 10, `fetched ${w.httpFetched} of ${size} bytes in all`);
    const served = stats.bytes.get('/build/test-h5/range.h5');
    assert.ok(served <= w.httpFetched + 1 && served < size / 10, `server sent ${served} bytes`);
    assert.deepEqual(w.blobLabels.map(String), expected['/small/labels'].data);

    // OPFS: read back in the worker, then by h5py.
    assert.deepEqual(w.opfsBack, { x: [1.5, 2.5, -3], rows: [20, 3], last: [57, 58, 59], names: ['opfs', 'wörker'], origin: 'worker' });
    const op = path.join(dir, 'opfs.h5');
    fs.writeFileSync(op, Buffer.from(w.opfsBytes, 'base64'));
    const o = dump(op);
    assert.deepEqual(o['/x'].data, ['1.5', '2.5', '-3.0']);
    assert.deepEqual(o['/rows'].shape, [22, 3]);
    assert.deepEqual(o['/rows'].data, Array.from({ length: 66 }, (_, i) => String(i)));
    assert.deepEqual(o['/@sessions'].data, ['2']);
    assert.deepEqual(o['/names'].data, ['opfs', 'wörker']);
    assert.deepEqual(o['/@origin'].data, ['worker']);

    // Main thread: MemoryFile -> Blob -> read back; and by h5py.
    assert.deepEqual(r.pageBack, { values: [0.5, -2, 1e300], words: ['main', 'thread'], where: 'page' });
    const pp = path.join(dir, 'page.h5');
    fs.writeFileSync(pp, Buffer.from(r.pageBytes, 'base64'));
    const q = dump(pp);
    assert.deepEqual(q['/page/values'].data, ['0.5', '-2.0', '1e+300']);
    assert.deepEqual(q['/page/words'].data, ['main', 'thread']);
    assert.match(await page.textContent('#out'), /"where": "page"/);
  } finally {
    await browser.close();
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
