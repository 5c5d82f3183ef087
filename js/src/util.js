// 2026-11-29
// js/src/util.js - small helpers shared by memory.js, store.js and zl.js: a scope that owns every
// wasm allocation of one call (freed in a `finally`), and input conversions.

/**
 * Allocations in the wasm heap that are freed together: `const s = scope(M, CairnError);
 * try { ... s.str('x') ... } finally { s.free(); }`.
 */
export function scope(M, CairnError) {
  const ptrs = [];
  return {
    /** n bytes (at least 1), 8-byte aligned; throws CairnError NOMEM when the heap is full. */
    alloc(n) {
      const p = M._malloc(Math.max(1, n));
      if (!p) throw new CairnError(2, `out of memory allocating ${n} bytes in WebAssembly`);
      ptrs.push(p);
      return p;
    },
    /** A NUL-terminated UTF-8 copy of s, or 0 (C NULL) for null/undefined. */
    str(s) {
      if (s === null || s === undefined) return 0;
      s = String(s);
      const n = M.lengthBytesUTF8(s) + 1;
      const p = this.alloc(n);
      M.stringToUTF8(s, p, n);
      return p;
    },
    /** A copy of bytes. */
    bytes(u8) {
      const p = this.alloc(u8.length);
      M.HEAPU8.set(u8, p);
      return p;
    },
    /** A copy of a Float32Array. */
    f32(a) {
      const p = this.alloc(a.length * 4);
      M.HEAPF32.set(a, p >> 2);
      return p;
    },
    free() {
      for (const p of ptrs) M._free(p);
      ptrs.length = 0;
    },
  };
}

/** A C string at p (empty string for NULL) or null when p is 0 and nullable. */
export function cstr(M, p, nullable = false) {
  if (!p) return nullable ? null : '';
  return M.UTF8ToString(p);
}

const enc = new TextEncoder();

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
