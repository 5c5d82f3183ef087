// 2026-11-29
// js/src/util.js - small helpers shared by memory.js, store.js, zl.js and the HDF5 API (h5/): a
// scope that owns every wasm allocation of one call (freed in a `finally`), and input conversions.

/** UTF-8 codecs, one of each for the package. */
export const enc = new TextEncoder();
export const utf8 = new TextDecoder('utf-8');

/**
 * Allocations in the wasm heap that are freed together: `const s = scope(M, CairnError);
 * try { ... s.str('x') ... } finally { s.free(); }` (the HDF5 API's arena is one too). A class,
 * not an object of closures: the HDF5 API makes one per call on its hot paths.
 */
export class Scope {
  constructor(M, CairnError) {
    this.M = M;
    this.CairnError = CairnError;
    this.ptrs = [];
  }
  /** n bytes (at least 1), 8-byte aligned; throws CairnError NOMEM when the heap is full. */
  alloc(n) {
    const p = this.M._malloc(Math.max(1, n));
    if (!p) throw new this.CairnError(2, `out of memory allocating ${n} bytes in WebAssembly`);
    this.ptrs.push(p);
    return p;
  }
  /** A NUL-terminated UTF-8 copy of s, or 0 (C NULL) for null/undefined. */
  str(s) {
    if (s === null || s === undefined) return 0;
    s = String(s);
    const M = this.M, n = M.lengthBytesUTF8(s) + 1;
    const p = this.alloc(n);
    M.stringToUTF8(s, p, n);
    return p;
  }
  /** A copy of bytes. */
  bytes(u8) {
    const p = this.alloc(u8.length);
    this.M.HEAPU8.set(u8, p);
    return p;
  }
  /** A copy of a Float32Array. */
  f32(a) {
    const p = this.alloc(a.length * 4);
    this.M.HEAPF32.set(a, p >> 2);
    return p;
  }
  /** A copy of numbers as doubles. */
  f64(a) {
    const p = this.alloc(8 * a.length);
    this.M.HEAPF64.set(a, p >> 3);
    return p;
  }
  /**
   * The text of a string the core allocated (cairn_malloc), pointer at pp and length (double)
   * at pn: decoded, then freed.
   */
  takeText(pp, pn) {
    const M = this.M, z = M.HEAPU32[pp >> 2], n = M.HEAPF64[pn >> 3];
    try {
      return utf8.decode(M.HEAPU8.subarray(z, z + n));
    } finally {
      M._cairn_free(z);
    }
  }
  free() {
    for (const p of this.ptrs) this.M._free(p);
    this.ptrs.length = 0;
  }
}

/** A Scope over module M (CairnError: the class its errors are made with). */
export function scope(M, CairnError) {
  return new Scope(M, CairnError);
}

/** A C string at p (empty string for NULL) or null when p is 0 and nullable. */
export function cstr(M, p, nullable = false) {
  if (!p) return nullable ? null : '';
  return M.UTF8ToString(p);
}

/** Bytes of a string (UTF-8), ArrayBuffer or any typed array / DataView, without copying views. */
export function asBytes(data) {
  if (typeof data === 'string') return enc.encode(data);
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return null;
}

export function hex(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += bytes[i].toString(16).padStart(2, '0');
  return s;
}

/**
 * Open a path through the Node entry's ctx.openPath ('r' read-only, 'a' read-write, created if
 * missing); the caller closes the file object. In a browser there are no paths: a CairnError
 * MISUSE says to pass a file object instead.
 */
/**
 * The file argument of Memory.open / Store.open: a Node path (opened here: owned = true), a file
 * object with read(), or nothing (in memory). Returns { file, owned }.
 */
export function storeFileArg(ctx, file, readOnly) {
  const owned = typeof file === 'string';
  if (owned) file = openNodePath(ctx, file, readOnly);
  if (file && typeof file.read !== 'function') throw new ctx.CairnError(7, 'file must be a file object (MemoryFile, NodeFile, OpfsFile...), a path (Node) or nothing');
  return { file, owned };
}

export function openNodePath(ctx, path, readOnly) {
  if (!ctx.openPath) throw new ctx.CairnError(7, `paths work in Node only; in a browser pass a file object (OpfsFile, MemoryFile...) instead of ${JSON.stringify(path)}`);
  try {
    return ctx.openPath(path, readOnly ? 'r' : 'a');
  } catch (e) {
    // a lock the file is held under (BUSY) keeps its code; other failures are IOERR
    throw new ctx.CairnError(typeof e.cairnCode === 'number' ? e.cairnCode : 3, `cannot open ${path}: ${e.message}`);
  }
}
