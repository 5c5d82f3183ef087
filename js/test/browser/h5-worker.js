// 2026-11-29 - the h5 API in a dedicated worker, where files can be read synchronously:
// an HDF5 file over HTTP range requests (HttpFile), a Blob (BlobFile), and one written to and
// read back from OPFS (OpfsFile). The paths are served by js/tools/serve.mjs from the repo root.
import { h5, HttpFile, BlobFile, OpfsFile } from '/js/src/index.js';

const b64 = (u8) => { let s = ''; for (let i = 0; i < u8.length; i += 0x8000) s += String.fromCharCode(...u8.subarray(i, i + 0x8000)); return btoa(s); };
const r = {};
try {
  // HTTP: one small dataset and one chunk of a large one, fetching a small part of the file.
  const http = new HttpFile('/build/test-h5/range.h5', { blockSize: 16384 });
  const f = await h5.File.open(http);
  r.keys = f.keys();
  const labels = f.get('small/labels');
  r.labels = Array.from(labels.value);
  r.labelsDtype = labels.dtype;
  r.note = f.get('small').attrs.note.value;
  r.httpFetchedSmall = http.bytesFetched;
  r.corner = Array.from(f.get('big').slice([[0, 2], [0, 3]]));
  r.bigShape = f.get('big').shape;
  r.bigFilters = f.get('big').filters.map((x) => x.name);
  r.httpFetched = http.bytesFetched;
  r.httpRequests = http.requests;
  r.httpSize = http.size();
  f.close();
  http.close();
  // Blob (a File from an <input> works the same way).
  const blob = await (await fetch('/build/test-h5/blob.h5')).blob();
  const bf = await h5.File.open(new BlobFile(blob));
  r.blobLabels = Array.from(bf.get('small/labels').value);
  bf.close();
  // OPFS: write, close, reopen, read; then hand the bytes to the test for h5py.
  const of = await OpfsFile.open('cairn-test/written.h5');
  const w = await h5.File.create(of);
  w.create_dataset({ name: 'x', data: new Float32Array([1.5, 2.5, -3]) });
  w.create_dataset({ name: 'rows', data: new Int32Array([0, 1, 2]), shape: [1, 3], maxshape: [null, 3], chunks: [8, 3], compression: 'gzip' });
  for (let i = 1; i < 20; i++) w.get('rows').append(new Int32Array([3 * i, 3 * i + 1, 3 * i + 2]));
  w.create_dataset({ name: 'names', data: ['opfs', 'wörker'] });
  w.create_attribute('origin', 'worker');
  w.close();
  of.close();
  const of2 = await OpfsFile.open('cairn-test/written.h5', { create: false });
  const rf = await h5.File.open(of2);
  r.opfsBack = { x: Array.from(rf.get('x').value), rows: rf.get('rows').shape, last: Array.from(rf.get('rows').slice([[19, 20]])), names: rf.get('names').value, origin: rf.attrs.origin.value };
  rf.close();
  // A second session edits the OPFS file in place: more rows and an attribute.
  const ed = await h5.File.open(of2, 'a');
  ed.get('rows').append(new Int32Array([60, 61, 62, 63, 64, 65]));
  ed.create_attribute('sessions', 2);
  ed.close();
  const bytes = new Uint8Array(of2.size());
  bytes.set(of2.read(0, bytes.length));
  of2.close();
  r.opfsBytes = b64(bytes);
} catch (e) {
  r.error = String(e && e.stack || e);
}
postMessage(r);
