// 2026-11-29
// js/src/node.js - the Node entry: the same API as index.js, loading the .wasm from the package
// with fs (Emscripten 3.1.6's web build would otherwise call fetch on a file path), plus NodeFile.
import { readFileSync } from 'node:fs';
import createCairnCore from '../dist/cairn-core.mjs';
import { makeApi } from './api.js';

let wasmBinary;
const api = makeApi((options) => {
  wasmBinary ??= options.wasmBinary ?? readFileSync(new URL('../dist/cairn-core.wasm', import.meta.url));
  return createCairnCore({ ...options, wasmBinary });
});

export const { init, sha256, sha256File, zstd, deflate, gzip, version } = api;
export { CairnError } from './api.js';
export { MemoryFile, BlobFile, OpfsFile, HttpFile } from './hosts.js';
export { NodeFile } from './nodefile.js';
export default api;
