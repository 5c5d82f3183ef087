// 2026-11-29
// js/src/api.js - the JavaScript API over the Emscripten build of the core, shared by the browser
// entry (index.js) and the Node entry (node.js), which differ only in how they load the .wasm.
//
// One async init, then every call is synchronous inside; the exported functions are async only
// so that they can initialise on first use (`await cairn.sha256(bytes)` just works).

import { MemoryFile } from './hosts.js';
import { makeMemory } from './memory.js';
import { makeGraph } from './kg.js';
import { makeStore } from './store.js';
import { makeZl } from './zl.js';
import { makeH5 } from './h5.js';
import { makeEphemeral } from './ephemeral.js';
import { attachConsolidation } from './consolidate.js';

const STATUS = ['OK', 'ERROR', 'NOMEM', 'IOERR', 'CORRUPT', 'NOTFOUND', 'EXISTS', 'MISUSE', 'UNSUPPORTED', 'RANGE', 'READONLY', 'CHECKSUM', 'TYPE', 'LIMIT', 'BUSY'];

/** An error from the core: `code` is the status number, `codeName` its name (e.g. "CORRUPT"). */
export class CairnError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'CairnError';
    this.code = code;
    this.codeName = STATUS[code & 0xff] || 'UNKNOWN';
  }
}

const KIND = { zstd: 1, deflate: 2, gzip: 3 };
const enc = new TextEncoder();

function toBytes(data) {
  if (typeof data === 'string') return enc.encode(data);
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw new TypeError('expected a string, ArrayBuffer or typed array');
}

function hex(bytes) {
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

/**
 * Build the API around a loader: loader(options) -> Promise<EmscriptenModule>. openPath(path,
 * mode) (Node; mode 'r' read-only, 'a' read-write, created if missing) turns a path into a file
 * object, so Memory.open/Store.open also take paths there.
 */
export function makeApi(loader, { openPath } = {}) {
  let modPromise = null;
  let M = null;
  let nextFileId = 1;

  async function init(options = {}) {
    if (!modPromise) {
      modPromise = loader(options).then((m) => {
        m.cairnFiles = new Map();
        m.cairnOwned = new Set();
        // The core opening a file by name (HDF5 raw data in external files): read-only, through
        // openPath (Node), the name resolved as Node resolves it (from the working directory, as
        // libhdf5 does); the file is registered as one the package owns, and its id returned.
        // Without openPath (browsers) such opens fail with a clear error.
        m.cairnOpenPath = openPath ? (path, flags) => {
          if (flags !== 1) { // CAIRN_OPEN_READONLY
            const e = new Error('the package opens files by name only for reading');
            e.cairnCode = 8;
            throw e;
          }
          return register(m, openPath(path, 'r'), true);
        } : null;
        m._cairn_em_host_install(); // a clock for the core (bindings/em/em_services.c)
        M = m;
        return m;
      });
    }
    return modPromise;
  }

  function fail(rc, what) {
    const msg = M.UTF8ToString(M._cairn_errmsg());
    return new CairnError(rc, `${what}: ${msg || STATUS[rc & 0xff] || rc}`);
  }
  function check(rc, what) {
    if (rc !== 0) throw fail(rc, what);
  }
  // Copy bytes into the wasm heap; the caller frees.
  function put(bytes) {
    const p = M._malloc(Math.max(1, bytes.length));
    if (!p) throw new CairnError(2, `out of memory copying ${bytes.length} bytes into WebAssembly`);
    M.HEAPU8.set(bytes, p);
    return p;
  }
  // Put a JS file object in module m's table under a new id; own=true: releasing it calls
  // file.close().
  function register(m, file, own) {
    const id = nextFileId++;
    m.cairnFiles.set(id, file);
    if (own) m.cairnOwned.add(id);
    return id;
  }
  // Register a JS file object; returns a cairn_file pointer (released with M._cairn_file_close).
  // The caller keeps ownership of `file` unless own=true (then releasing it calls file.close()).
  function openFile(file, own = false) {
    const id = register(M, file, own);
    const f = M._cairn_em_file_open(id);
    if (!f) {
      M.cairnFiles.delete(id);
      M.cairnOwned.delete(id);
      throw fail(2, 'open');
    }
    return f;
  }

  /** SHA-256 of bytes or a string (UTF-8), as 64 hex digits. Large inputs are fed in 1 MiB pieces. */
  async function sha256(data, { encoding = 'hex' } = {}) {
    await init();
    const bytes = toBytes(data);
    const STEP = 1 << 20;
    const ctx = M._malloc(128), out = M._malloc(32), buf = M._malloc(Math.min(STEP, Math.max(1, bytes.length)));
    try {
      M._cairn_sha256_init(ctx);
      for (let i = 0; i < bytes.length; i += STEP) {
        const part = bytes.subarray(i, Math.min(bytes.length, i + STEP));
        M.HEAPU8.set(part, buf);
        M._cairn_sha256_update(ctx, buf, part.length);
      }
      M._cairn_sha256_final(ctx, out);
      const d = M.HEAPU8.slice(out, out + 32);
      return encoding === 'bytes' ? d : hex(d);
    } finally {
      M._free(ctx), M._free(out), M._free(buf);
    }
  }

  /** SHA-256 of a file object (MemoryFile, NodeFile, BlobFile, OpfsFile, HttpFile). */
  async function sha256File(file) {
    await init();
    const f = openFile(file), out = M._malloc(32);
    try {
      check(M._cairn_em_sha256_file(f, out), `sha256 ${file.name || ''}`.trim());
      return hex(M.HEAPU8.subarray(out, out + 32));
    } finally {
      M._free(out);
      M._cairn_file_close(f);
    }
  }

  function compressWith(kind, bytes, level) {
    const bound = M._cairn_zbound(kind, bytes.length);
    if (!bound) throw new CairnError(9, `input of ${bytes.length} bytes is too large for one buffer; use the file API`);
    const p = put(bytes), out = M._malloc(bound), pn = M._malloc(4);
    try {
      check(M._cairn_zcompress(kind, level, p, bytes.length, out, bound, pn), 'compress');
      const n = M.HEAPU32[pn >> 2];
      return M.HEAPU8.slice(out, out + n);
    } finally {
      M._free(p), M._free(out), M._free(pn);
    }
  }

  function decompressWith(kind, bytes, maxSize) {
    const p = put(bytes), pn = M._malloc(4);
    let cap = maxSize;
    if (cap === undefined && kind === KIND.zstd) {
      const cs = M._cairn_em_zstd_content_size(p, bytes.length);
      if (cs >= 0) cap = cs;
    }
    if (cap === undefined) cap = Math.max(1024, bytes.length * 4);
    try {
      for (;;) {
        const out = M._malloc(Math.max(1, cap));
        if (!out) throw new CairnError(2, `out of memory allocating ${cap} bytes`);
        const rc = M._cairn_zdecompress(kind, p, bytes.length, out, cap, pn);
        if (rc === 0) {
          const n = M.HEAPU32[pn >> 2];
          const r = M.HEAPU8.slice(out, out + n);
          M._free(out);
          return r;
        }
        M._free(out);
        // Unknown size: grow and retry, up to the caller's limit (default 2 GiB).
        if ((rc & 0xff) === 9 && maxSize === undefined && cap < 2 ** 31) {
          cap *= 4;
          continue;
        }
        throw fail(rc, 'decompress');
      }
    } finally {
      M._free(p), M._free(pn);
    }
  }

  const codec = (name) => ({
    async compress(data, { level } = {}) {
      await init();
      return compressWith(KIND[name], toBytes(data), level ?? (name === 'zstd' ? 3 : 6));
    },
    async decompress(data, { maxSize } = {}) {
      await init();
      return decompressWith(KIND[name], toBytes(data), maxSize);
    },
    /** Stream between two file objects in bounded memory; returns {bytesIn, bytesOut}. */
    async compressFile(input, output, { level } = {}) {
      await init();
      return zfile(1, KIND[name], level ?? (name === 'zstd' ? 3 : 6), input, output);
    },
    async decompressFile(input, output) {
      await init();
      return zfile(0, KIND[name], 0, input, output);
    },
  });

  function zfile(compress, kind, level, input, output) {
    const fi = openFile(input);
    let fo = 0;
    const sizes = M._malloc(16);
    try {
      fo = openFile(output);
      check(M._cairn_em_zfile(compress, kind, level, fi, fo, sizes), compress ? 'compress' : 'decompress');
      return { bytesIn: M.HEAPF64[sizes >> 3], bytesOut: M.HEAPF64[(sizes >> 3) + 1] };
    } finally {
      M._free(sizes);
      M._cairn_file_close(fi);
      if (fo) M._cairn_file_close(fo);
    }
  }

  async function version() {
    await init();
    return {
      cairn: M.UTF8ToString(M._cairn_version()),
      zstd: M.UTF8ToString(M._cairn_zstd_version()),
      zlib: M.UTF8ToString(M._cairn_zlib_version()),
      sha256Kernel: M.UTF8ToString(M._cairn_sha256_kernel()),
    };
  }

  // What memory.js, store.js and zl.js need from here.
  const ctx = { init, get M() { return M; }, openFile, check, fail, CairnError, openPath };
  const zl = makeZl(ctx);
  const eph = makeEphemeral(ctx);

  const api = {
    init,
    sha256,
    sha256File,
    zstd: codec('zstd'),
    deflate: codec('deflate'),
    gzip: codec('gzip'),
    version,
    Memory: attachConsolidation(makeMemory(ctx), ctx, eph), // + consolidate/tick/explain/observe/ephemeral, Memory.gate
    Graph: (ctx.Graph = makeGraph(ctx)), // memory.js: mem.graph()
    Store: makeStore(ctx),
    ...eph, // Ephemeral, Observer, gate
    zl,
    compress: zl.compress,
    decompress: zl.decompress,
    MemoryFile,
    CairnError,
    /** Low-level access for other modules of this package. */
    _internal: { get module() { return M; }, openFile, check, put, fail },
  };
  /** HDF5 files, h5wasm-like (js/src/h5.js). */
  api.h5 = makeH5(api, { openPath });
  return api;
}
