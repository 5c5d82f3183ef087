// 2026-11-29
// js/src/store.js - the content-addressed chunk store in the npm package: `Store` over cairn's C
// store (core/include/cairn/cas.h, glue in bindings/em/em_cas.c). A payload is cut into content-defined
// chunks (FastCDC 2020), each chunk is named by its SHA-256 and kept once, and the payload's id
// is the SHA-256 of its manifest (64 hex digits): the same bytes give the same id in every store
// with the same chunking, in C, the CLI (`cairn put`) and here. Every read verifies each chunk
// it touches: a damaged chunk throws a CairnError (code CHECKSUM) naming it, never wrong bytes.
//
//   const store = await Store.open(file?);            // file: MemoryFile, NodeFile, OpfsFile...
//   const id = await store.put(bytes | stream, { name: 'report.pdf' });
//   store.get(id, { start: 0, end: 1024 });            // Uint8Array, verified
import { scope, cstr, asBytes, hex, storeFileArg } from './util.js';

const CODECS = { none: 0, zstd: 1, deflate: 2 };
const PIECE = 4 << 20; // bytes copied into the wasm heap at a time when streaming

/** @param {object} ctx the package internals (api.js): init, M, openFile, fail, CairnError */
export function makeStore(ctx) {
  const { CairnError } = ctx;
  const misuse = (msg) => new CairnError(7, msg);
  // A path (Node only): opened here, closed when the store closes.
  const HEX64 = /^[0-9a-fA-F]{64}$/;

  /** An open chunk store. Create it with `await Store.open(...)`. */
  class Store {
    #h;
    #name;
    #busy = false; // a streaming put holds the store between awaits
    #readOnly = false;
    #queue = Promise.resolve();

    /** @private use Store.open */
    constructor(handle, name) {
      this.#h = handle;
      this.#name = name;
    }

    /**
     * Open a store in a file object (an empty writable file becomes a new store), or in memory
     * when no file is given. The file stays yours to close after store.close(). Chunking is
     * fixed when a store is created (default 256 KiB / 1 MiB / 4 MiB, as the CLI's).
     * @param {object|string} [file] a file object, or a path in Node (opened here, closed with the store)
     * @param {{compression?: 'none'|'zstd'|'deflate', level?: number, readOnly?: boolean, noSync?: boolean,
     *   chunking?: {min?: number, avg?: number, max?: number, level?: number, seed?: number}}} [options]
     */
    static async open(file, options = {}) {
      if (file && Object.getPrototypeOf(file) === Object.prototype && typeof file.read !== 'function' && Object.keys(options).length === 0) {
        options = file; // Store.open({ compression: 'zstd' })
        file = null;
      }
      await ctx.init();
      const M = ctx.M;
      const { compression = 'none', level = 0, readOnly = false, noSync = false, chunking = {} } = options;
      if (!(compression in CODECS)) throw misuse(`compression must be one of ${Object.keys(CODECS).join(', ')}`);
      let owned;
      ({ file, owned } = storeFileArg(ctx, file, readOnly));
      const s = scope(M, CairnError);
      try {
        const pp = s.alloc(4);
        const f = file ? ctx.openFile(file, owned) : 0; // the store owns the wrapper from here on (and a file it opened)
        const rc = M._cairn_em_cas_open(f, CODECS[compression], level, readOnly ? 1 : 0, noSync ? 1 : 0, chunking.min ?? 0,
          chunking.avg ?? 0, chunking.max ?? 0, chunking.level ?? -1, chunking.seed ?? 0, pp);
        if (rc) throw ctx.fail(rc, `Store.open${file && file.name ? ' ' + file.name : ''}`);
        const store = new Store(M.HEAPU32[pp >> 2], (file && file.name) || 'memory');
        store.#readOnly = !!readOnly;
        return store;
      } finally {
        s.free();
      }
    }

    // A miss on a read-only store beside a writer: refresh once (1 if that may have changed something).
    #refreshed() {
      if (this.#readOnly === false || this.#busy) return false;
      return ctx.M._cairn_cas_refresh(this.#h) === 0;
    }

    #handle(mutating = false) {
      if (!this.#h) throw misuse(`chunk store ${this.#name} is closed`);
      if (mutating && this.#busy) throw misuse('a streaming put is in progress on this store; await it first');
      return this.#h;
    }

    // The 32-byte id of a 64-hex id or of a catalog name, into a scope allocation.
    #resolve(s, idOrName) {
      const M = ctx.M, p = s.alloc(32);
      if (typeof idOrName !== 'string') throw misuse('a payload id (64 hex digits) or a name is required');
      if (HEX64.test(idOrName)) {
        for (let i = 0; i < 32; i++) M.HEAPU8[p + i] = parseInt(idOrName.substr(2 * i, 2), 16);
        return p;
      }
      let rc = M._cairn_cas_name_get(this.#handle(), s.str(idOrName), p);
      if ((rc & 0xff) === 5 && this.#refreshed()) rc = M._cairn_cas_name_get(this.#h, s.str(idOrName), p);
      if (rc) throw ctx.fail(rc, `Store: ${JSON.stringify(idOrName)} is neither a payload id nor a name`);
      return p;
    }

    /**
     * Publish a payload; resolves to its id (64 hex digits). Accepts bytes (string as UTF-8,
     * ArrayBuffer, typed array), a Blob, a ReadableStream or any (async) iterable of byte
     * chunks, or a file object (read in bounded memory). Publishing the same bytes again adds
     * nothing. Puts on one store run one after another.
     * @param {string|ArrayBuffer|ArrayBufferView|Blob|ReadableStream<Uint8Array>|AsyncIterable<Uint8Array>|Iterable<Uint8Array>|object} data
     * @param {{name?: string}} [options] also bind this name to the payload
     * @returns {Promise<string>}
     */
    put(data, options = {}) {
      const run = this.#queue.then(() => this.#put(data, options));
      this.#queue = run.catch(() => {});
      return run;
    }

    async #put(data, { name } = {}) {
      this.#handle(true);
      let id;
      const bytes = asBytes(data);
      if (bytes && bytes.length <= 4 * PIECE) id = this.#putBytes(bytes);
      else if (bytes) id = await this.#putStream([bytes]);
      else if (data && typeof data.read === 'function' && typeof data.size === 'function') id = this.#putFile(data);
      else if (data && typeof data.stream === 'function' && typeof data.arrayBuffer === 'function') id = await this.#putStream(data.stream());
      else if (data && (typeof data.getReader === 'function' || data[Symbol.asyncIterator] || data[Symbol.iterator])) id = await this.#putStream(data);
      else throw misuse('put() takes bytes, a string, a Blob, a ReadableStream, an (async) iterable of Uint8Array or a file object');
      if (name !== undefined) this.setName(name, id);
      return id;
    }

    #putBytes(bytes) {
      const M = ctx.M, s = scope(M, CairnError);
      try {
        const p = s.bytes(bytes), pid = s.alloc(32);
        const rc = M._cairn_cas_put(this.#h, p, bytes.length, pid);
        if (rc) throw ctx.fail(rc, 'Store.put');
        return hex(M.HEAPU8.subarray(pid, pid + 32));
      } finally {
        s.free();
      }
    }

    #putFile(file) {
      const M = ctx.M, s = scope(M, CairnError);
      let f = 0;
      try {
        const pid = s.alloc(32);
        f = ctx.openFile(file);
        const rc = M._cairn_em_cas_put_file(this.#h, f, pid);
        if (rc) throw ctx.fail(rc, `Store.put ${file.name || ''}`.trim());
        return hex(M.HEAPU8.subarray(pid, pid + 32));
      } finally {
        if (f) M._cairn_file_close(f);
        s.free();
      }
    }

    async #putStream(source) {
      const M = ctx.M, s = scope(M, CairnError);
      let w = 0, reader = null;
      this.#busy = true;
      try {
        const pw = s.alloc(4), buf = s.alloc(PIECE), pid = s.alloc(32);
        let rc = M._cairn_cas_writer_open(this.#h, pw);
        if (rc) throw ctx.fail(rc, 'Store.put');
        w = M.HEAPU32[pw >> 2];
        const write = (piece) => {
          const b = asBytes(piece);
          if (!b) throw misuse('a stream given to put() must yield Uint8Array (or other byte) chunks');
          for (let i = 0; i < b.length; i += PIECE) {
            const part = b.subarray(i, Math.min(b.length, i + PIECE));
            M.HEAPU8.set(part, buf);
            const rc2 = M._cairn_cas_writer_write(w, buf, part.length);
            if (rc2) throw ctx.fail(rc2, 'Store.put');
          }
        };
        if (typeof source.getReader === 'function') {
          reader = source.getReader();
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            write(value);
          }
          reader = null;
        } else {
          for await (const piece of source) write(piece);
        }
        const w0 = w;
        w = 0; // finish frees the writer, also on failure
        rc = M._cairn_cas_writer_finish(w0, pid);
        if (rc) throw ctx.fail(rc, 'Store.put');
        return hex(M.HEAPU8.subarray(pid, pid + 32));
      } finally {
        if (w) M._cairn_cas_writer_abort(w);
        if (reader) reader.cancel().catch(() => {});
        this.#busy = false;
        s.free();
      }
    }

    /**
     * Bytes [start, end) of a payload (by id or name), each chunk verified against its SHA-256
     * first. end defaults to the payload's end and is clipped to it.
     * @param {string} id
     * @param {{start?: number, end?: number}} [range]
     * @returns {Uint8Array}
     */
    get(id, { start = 0, end } = {}) {
      const h = this.#handle();
      const M = ctx.M, s = scope(M, CairnError);
      try {
        const pid = this.#resolve(s, id), psize = s.alloc(8);
        let rc = M._cairn_em_cas_stat(h, pid, psize);
        if ((rc & 0xff) === 5 && this.#refreshed()) rc = M._cairn_em_cas_stat(h, pid, psize);
        if (rc) throw ctx.fail(rc, `Store.get ${id}`);
        const size = M.HEAPF64[psize >> 3];
        if (end === undefined || end > size) end = size;
        if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || start > end)
          throw new CairnError(9, `Store.get ${id}: bad range ${start}:${end} of a ${size}-byte payload`);
        const n = end - start, p = s.alloc(n), pn = s.alloc(4);
        rc = M._cairn_em_cas_read(h, pid, start, p, n, pn);
        if (rc) throw ctx.fail(rc, `Store.get ${id}`);
        return M.HEAPU8.slice(p, p + M.HEAPU32[pn >> 2]);
      } finally {
        s.free();
      }
    }

    /**
     * Bytes [start, start + out.byteLength) of a payload (clipped to its end) into the caller's
     * out (a Uint8Array or any typed array / DataView: its bytes), each chunk verified; returns
     * the number of bytes written. No new array: a program that reads many payloads reuses one
     * (docs/js-memory.md). The bytes pass through the wasm heap PIECE bytes at a time, so the
     * heap does not grow with the payload.
     * @param {string} id
     * @param {ArrayBufferView} out
     * @param {{start?: number}} [options]
     * @returns {number}
     */
    getInto(id, out, { start = 0 } = {}) {
      if (!ArrayBuffer.isView(out)) throw new CairnError(12, `Store.getInto ${id}: out must be a typed array or DataView`);
      const dst = out instanceof Uint8Array ? out : new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
      const h = this.#handle();
      const M = ctx.M, s = scope(M, CairnError);
      let pl = 0;
      try {
        const pid = this.#resolve(s, id), psize = s.alloc(8), ppl = s.alloc(4), pn = s.alloc(4);
        let rc = M._cairn_em_cas_stat(h, pid, psize);
        if ((rc & 0xff) === 5 && this.#refreshed()) rc = M._cairn_em_cas_stat(h, pid, psize);
        if (!rc) rc = M._cairn_em_cas_payload_open(h, pid, ppl);
        if (rc) throw ctx.fail(rc, `Store.getInto ${id}`);
        pl = M.HEAPU32[ppl >> 2];
        const size = M.HEAPF64[psize >> 3];
        if (!Number.isSafeInteger(start) || start < 0 || start > size)
          throw new CairnError(9, `Store.getInto ${id}: bad start ${start} of a ${size}-byte payload`);
        const n = Math.min(dst.length, size - start), p = s.alloc(Math.min(n, PIECE));
        for (let done = 0; done < n; ) {
          const k = Math.min(PIECE, n - done);
          rc = M._cairn_em_cas_payload_read(pl, start + done, p, k, pn);
          if (rc) throw ctx.fail(rc, `Store.getInto ${id}`);
          dst.set(M.HEAPU8.subarray(p, p + k), done);
          done += k;
        }
        return n;
      } finally {
        if (pl) M._cairn_em_cas_payload_close(pl);
        s.free();
      }
    }

    /**
     * A ReadableStream of bytes [start, end) of a payload, read and verified piece by piece
     * (pieceSize bytes at a time, default 4 MiB), so memory stays bounded for any payload size.
     * @returns {ReadableStream<Uint8Array>}
     */
    stream(id, { start = 0, end, pieceSize = 4 << 20 } = {}) {
      const info = this.stat(id);
      if (!info) throw new CairnError(5, `Store.stream: no payload ${JSON.stringify(id)}`);
      const stop = Math.min(end ?? info.size, info.size);
      if (!Number.isSafeInteger(start) || start < 0 || start > stop) throw new CairnError(9, `Store.stream ${id}: bad range ${start}:${end}`);
      let pos = start;
      return new ReadableStream({
        pull: (controller) => {
          if (pos >= stop) {
            controller.close();
            return;
          }
          const n = Math.min(pieceSize, stop - pos);
          controller.enqueue(this.get(info.id, { start: pos, end: pos + n }));
          pos += n;
        },
      });
    }

    /** Write [start, end) of a payload to a file object in bounded memory (truncated there). */
    getFile(id, file, { start = 0, end } = {}) {
      const h = this.#handle();
      const M = ctx.M, s = scope(M, CairnError);
      let f = 0;
      try {
        const pid = this.#resolve(s, id);
        f = ctx.openFile(file);
        const rc = M._cairn_em_cas_get_file(h, pid, start, end ?? -1, f);
        if (rc) throw ctx.fail(rc, `Store.getFile ${id}`);
      } finally {
        if (f) M._cairn_file_close(f);
        s.free();
      }
    }

    /** {id, size} of a payload (by id or name), or null if the store does not hold it. */
    stat(id) {
      const h = this.#handle();
      const M = ctx.M, s = scope(M, CairnError);
      try {
        let pid;
        try {
          pid = this.#resolve(s, id);
        } catch (e) {
          if (e.codeName === 'NOTFOUND') return null;
          throw e;
        }
        const psize = s.alloc(8);
        let rc = M._cairn_em_cas_stat(h, pid, psize);
        if ((rc & 0xff) === 5 && this.#refreshed()) rc = M._cairn_em_cas_stat(h, pid, psize);
        if ((rc & 0xff) === 5) return null;
        if (rc) throw ctx.fail(rc, `Store.stat ${id}`);
        return { id: hex(M.HEAPU8.subarray(pid, pid + 32)), size: M.HEAPF64[psize >> 3] };
      } finally {
        s.free();
      }
    }

    /** Every payload: [{id, size, chunks, time (ms since 1970), name (newest, or null)}]. */
    list() {
      const h = this.#handle();
      const M = ctx.M, s = scope(M, CairnError);
      try {
        const pid = s.alloc(32), num = s.alloc(24), pz = s.alloc(4);
        const n = M._cairn_cas_count(h), out = [];
        for (let i = 0; i < n; i++) {
          const rc = M._cairn_em_cas_entry(h, i, pid, num, pz);
          if (rc) throw ctx.fail(rc, 'Store.list');
          const a = M.HEAPF64.subarray(num >> 3, (num >> 3) + 3);
          out.push({ id: hex(M.HEAPU8.subarray(pid, pid + 32)), size: a[0], chunks: a[1], time: a[2], name: cstr(M, M.HEAPU32[pz >> 2], true) });
        }
        return out;
      } finally {
        s.free();
      }
    }

    /** Bind a name to a payload id (a name bound again points at the new id). */
    setName(name, id) {
      const h = this.#handle(true);
      if (typeof name !== 'string' || !name) throw misuse('a name must be a non-empty string');
      const M = ctx.M, s = scope(M, CairnError);
      try {
        if (!HEX64.test(id)) throw misuse(`setName: ${JSON.stringify(id)} is not a payload id (64 hex digits)`);
        const rc = M._cairn_cas_name_set(h, s.str(name), this.#resolve(s, id));
        if (rc) throw ctx.fail(rc, `Store.setName ${name}`);
      } finally {
        s.free();
      }
    }

    /** The id a name is bound to, or null. */
    getName(name) {
      const h = this.#handle();
      const M = ctx.M, s = scope(M, CairnError);
      try {
        const pid = s.alloc(32);
        const rc = M._cairn_cas_name_get(h, s.str(String(name)), pid);
        if ((rc & 0xff) === 5) return null;
        if (rc) throw ctx.fail(rc, `Store.getName ${name}`);
        return hex(M.HEAPU8.subarray(pid, pid + 32));
      } finally {
        s.free();
      }
    }

    /** Remove a name from the catalog (the payload stays). */
    deleteName(name) {
      const h = this.#handle(true);
      const M = ctx.M, s = scope(M, CairnError);
      try {
        const rc = M._cairn_cas_name_delete(h, s.str(String(name)));
        if (rc) throw ctx.fail(rc, `Store.deleteName ${name}`);
      } finally {
        s.free();
      }
    }

    /**
     * Check every chunk against its SHA-256 and every manifest against its id and chunks.
     * Never throws for damage: returns {ok, bad, problems} with one line per problem.
     */
    verify() {
      const h = this.#handle();
      const M = ctx.M, s = scope(M, CairnError);
      try {
        const pn = s.alloc(8), pz = s.alloc(4);
        M.HEAPU32[pz >> 2] = 0;
        const rc = M._cairn_em_cas_verify(h, pn, pz);
        const z = M.HEAPU32[pz >> 2];
        const text = cstr(M, z);
        if (z) M._cairn_free(z);
        const code = rc & 0xff;
        if (rc && code !== 4 && code !== 11) throw ctx.fail(rc, 'Store.verify'); // not CORRUPT/CHECKSUM: a real failure
        const problems = text ? text.replace(/\n$/, '').split('\n') : [];
        return { ok: rc === 0, bad: M.HEAPF64[pn >> 3], problems };
      } finally {
        s.free();
      }
    }

    /**
     * Pick up payloads and names other handles (in this process or another) committed since this
     * store was opened or last refreshed. A read-only store sees the committed state as of its
     * open (never a writer's unfinished transaction) until it refreshes; a writer holds the file's
     * writer lock, so for it this changes nothing. get()/stat() of an id or name this store does
     * not know refresh once by themselves.
     */
    refresh() { this.#call('_cairn_cas_refresh', 'Store.refresh', true); }

    /** Counts and sizes: payloads, chunks, names, raw/stored/file bytes, chunking parameters. */
    stats() {
      const h = this.#handle();
      const M = ctx.M, s = scope(M, CairnError);
      try {
        const num = s.alloc(80);
        const rc = M._cairn_em_cas_stats(h, num);
        if (rc) throw ctx.fail(rc, 'Store.stats');
        const a = M.HEAPF64.slice(num >> 3, (num >> 3) + 10);
        return { payloads: a[0], chunks: a[1], names: a[2], rawBytes: a[3], storedBytes: a[4], fileBytes: a[5],
          chunking: { min: a[6], avg: a[7], max: a[8], level: a[9] } };
      } finally {
        s.free();
      }
    }

    /**
     * Transactions: between begin() and commit() everything published becomes durable at once
     * (one pair of syncs); without them every put commits by itself. rollback() drops it all.
     */
    begin() { this.#call('_cairn_cas_begin', 'Store.begin', true); }
    commit() { this.#call('_cairn_cas_commit', 'Store.commit', true); }
    rollback() { this.#call('_cairn_cas_rollback', 'Store.rollback', true); }
    #call(fn, what, mutating) {
      const rc = ctx.M[fn](this.#handle(mutating));
      if (rc) throw ctx.fail(rc, what);
    }

    /** Close the store (an open transaction is rolled back). The file stays yours. Twice is a no-op. */
    close() {
      if (!this.#h) return;
      if (this.#busy) throw misuse('a streaming put is in progress on this store; await it first');
      const h = this.#h;
      this.#h = 0;
      const rc = ctx.M._cairn_cas_close(h);
      if (rc) throw ctx.fail(rc, 'Store.close');
    }
  }

  return Store;
}
