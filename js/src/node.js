// 2026-11-29
// js/src/node.js - the Node entry: the same API as index.js, loading the .wasm from the package
// with fs (Emscripten 3.1.6's web build would otherwise call fetch on a file path), plus NodeFile.
import { readFileSync } from 'node:fs';
import createCairnCore from '../dist/cairn-core.mjs';
import { makeApi } from './api.js';
import { NodeFile } from './nodefile.js';

let wasmBinary;
const api = makeApi((options) => {
  wasmBinary ??= options.wasmBinary ?? readFileSync(new URL('../dist/cairn-core.wasm', import.meta.url));
  return createCairnCore({ ...options, wasmBinary });
}, { openPath });

// Memory.open('agent.mem'), Store.open('data.cas'), h5.File.open('data.h5', mode) in Node: a
// NodeFile, closed with the object. mode 'r' read-only, 'w' create (discarding), 'x' create new,
// 'a' / 'r+' read-write ('a' creates).
function openPath(path, mode) {
  if (mode === 'r') return new NodeFile(path, 'r');
  if (mode === 'w') return new NodeFile(path, 'c+'); // h5 only: cairn_h5w_create discards the content
  if (mode === 'x') return new NodeFile(path, 'wx+');
  try {
    return new NodeFile(path, 'r+');
  } catch (e) {
    if (mode === 'a' && e.code === 'ENOENT') return new NodeFile(path, 'w+');
    throw e;
  }
}

export const { init, sha256, sha256File, zstd, deflate, gzip, version, Memory, Graph, Store, zl, compress, decompress, h5, Ephemeral, Observer, gate } = api;
export { CairnError } from './api.js';
export { MemoryFile, BlobFile, OpfsFile, HttpFile } from './hosts.js';
export { S3File } from './s3file.js';
export { NodeFile } from './nodefile.js';
export default api;
