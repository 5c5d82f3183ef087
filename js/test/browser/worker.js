// 2026-11-29 - runs in a dedicated worker: the file objects that need synchronous browser APIs.
import { sha256, sha256File, zstd, OpfsFile, BlobFile, HttpFile, MemoryFile } from '/js/src/index.js';

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
} catch (e) {
  r.error = String(e && e.stack || e);
}
postMessage(r);
