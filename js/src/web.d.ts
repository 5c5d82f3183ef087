// 2026-12-02
// js/src/web.d.ts - the types of the browser / bundler entry (src/index.js): everything of
// index.d.ts (the Node entry's types) but NodeFile, which exists in Node only. package.json
// "exports" gives TypeScript this file unless the "node" condition applies.
export {
  init, sha256, sha256File, zstd, deflate, gzip, version, Memory, Graph, Store, zl, compress, decompress, h5,
  Ephemeral, Observer, gate, CairnError, MemoryFile, BlobFile, OpfsFile, HttpFile, S3File,
} from './index.js';
// Every type of index.d.ts, h5's included (NodeFile too, but as a type only: `new NodeFile` is an
// error in browser code, as it would be at run time).
export type * from './index.js';
export { default } from './index.js';
