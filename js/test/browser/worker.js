// 2026-11-29 - runs in a dedicated worker: the file objects that need synchronous browser APIs.
import { sha256, sha256File, zstd, OpfsFile, BlobFile, HttpFile, MemoryFile, Store } from '/js/src/index.js';

const r = {};
try {
  // OPFS: write through cairn's zstd stream into an OPFS file, read it back and hash it.
  const data = new TextEncoder().encode('opfs bytes '.repeat(20000));
  const f = await OpfsFile.open('cairn-test/data.zst');
  f.truncate(0);
  const res = await zstd.compressFile(new MemoryFile(data), f);
  r.opfsWritten = res.bytesOut;
  f.sync();
  f.close();
  const g = await OpfsFile.open('cairn-test/data.zst', { create: false });
  const back = new MemoryFile();
  await zstd.decompressFile(g, back);
  g.close();
  r.opfsRoundTrip = (await sha256(back.bytes())) === (await sha256(data));
  // Blob through FileReaderSync.
  const blob = new Blob([data]);
  r.blobSha = (await sha256File(new BlobFile(blob))) === (await sha256(data));
  // HTTP range reads of a file the test server serves (size given in the query string).
  const http = new HttpFile('/js/test/browser/range-target.bin', { blockSize: 4096 });
  const slice = http.read(100000, 1000);
  r.httpSize = http.size();
  r.httpSliceSha = await sha256(slice);
  r.httpFetched = http.bytesFetched;
  // Larger than 4 blocks: one request each, read() returning it, readInto() copying it once;
  // then a read across the end of the file (fewer bytes, no request past the end).
  const nReq = http.requests;
  r.httpBigSha = await sha256(http.read(200000, 20000));
  const into = new Uint8Array(20000);
  r.httpBigIntoN = http.readInto(300000, into);
  r.httpBigIntoSha = await sha256(into);
  r.httpBigRequests = http.requests - nReq;
  const tail = new Uint8Array(1000);
  r.httpTailN = http.readInto(http.size() - 100, tail);
  r.httpTailSha = await sha256(tail.subarray(0, r.httpTailN));
  r.httpFetchedTotal = http.bytesFetched;
  // Chunk store in an OPFS file: put a stream, close, reopen, read a verified range.
  const payload = pseudoRandom(3 << 20, 77);
  const sf = await OpfsFile.open('cairn-test/store.cas');
  sf.truncate(0);
  const store = await Store.open(sf);
  r.storeId = await store.put(new Blob([payload]).stream(), { name: 'payload' });
  store.close();
  sf.close();
  const sf2 = await OpfsFile.open('cairn-test/store.cas', { create: false });
  const store2 = await Store.open(sf2);
  r.storeList = store2.list().map((e) => ({ id: e.id, size: e.size, name: e.name }));
  r.storeRangeSha = await sha256(store2.get('payload', { start: 1000000, end: 2000000 }));
  r.storeVerify = store2.verify().ok;
  store2.close();
  sf2.close();
} catch (e) {
  r.error = String(e && e.stack || e);
}
postMessage(r);

// The same bytes as js/test/helpers.mjs pseudoRandom (xorshift32).
function pseudoRandom(n, seed) {
  const b = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    b[i] = x & 0xff;
  }
  return b;
}
