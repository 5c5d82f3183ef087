// 2026-11-29
// js/src/index.js - the browser / bundler entry. The .wasm sits next to dist/cairn-core.mjs and is
// found through `new URL('cairn-core.wasm', import.meta.url)`, which webpack 5 and Vite resolve.
// Override with init({ locateFile }) or init({ wasmBinary }).
import createCairnCore from '../dist/cairn-core.mjs';
import { makeApi } from './api.js';

const api = makeApi((options) => createCairnCore(options));

export const { init, sha256, sha256File, zstd, deflate, gzip, version, Memory, Graph, Store, zl, compress, decompress, h5, Ephemeral, Observer, gate } = api;
export { CairnError } from './api.js';
export { MemoryFile, BlobFile, OpfsFile, HttpFile } from './hosts.js';
export { S3File } from './s3file.js';
export default api;
