// 2026-12-02
// js/src/h5/state.js - FileState, what every object of one open HDF5 file shares: the reader
// and writer handles (opened lazily; pending writes committed before a read), the LRU of open
// object handles, the caches of descriptions and attribute tables, and read(), which turns a
// dataset or attribute selection into typed arrays, strings or objects.
import { MISUSE, READONLY, CORRUPT, LIMIT, RANGE, TYPE, MT, INT_CTOR, err, prod, intWidth, arena } from './common.js';
import { NOVAL, AttrTable } from './attrtable.js';
import { needsJson, decoder, fixJson } from './types.js';

/** nb bytes at offset of a file object into a new ArrayBuffer (readInto when it has one). */
function readExtent(file, offset, nb, path, into = null) {
  // Node: no zero-filling of memory the read overwrites whole (checked below); large Buffers
  // own their ArrayBuffer (offset 0, exact length). `into` (Dataset.read_into): the caller's
  // bytes, already mapped if the caller reuses them: no fresh page at all.
  const big = nb >= 1 << 20 && typeof globalThis.Buffer?.allocUnsafeSlow === 'function';
  const out = into || (big ? globalThis.Buffer.allocUnsafeSlow(nb) : new Uint8Array(nb));
  let got;
  if (into && typeof file.readInto === 'function') got = file.readInto(offset, out);
  else if (typeof file.readInto === 'function') {
    // Fresh memory faults in one page at a time on its first write. Taking those faults here,
    // one store per 4 KiB page, costs ~10% less CPU than taking them inside the kernel's copy
    // of a pread (Linux 6.18 VM: 4 MiB 1.78 -> 1.60 ms, 64 MiB 36 -> 32 ms in C, alternated;
    // Node: 7-10% less CPU per 1M/16M read). A Float64Array view, not the Buffer: its stores
    // are cheaper before the loop is optimised (64 MiB: ~0.9 ms on the first call instead of
    // 2-5 ms; 0.15 ms once optimised, ~10 us for 4 MiB).
    if (nb >= 1 << 20) {
      const pages = new Float64Array(out.buffer, out.byteOffset, Math.floor(nb / 8)), n = pages.length;
      for (let i = 0; i < n; i += 512) pages[i] = 0;
    }
    got = file.readInto(offset, out);
  } else {
    const b = file.read(offset, nb);
    got = Math.min(b.length, nb);
    out.set(got === b.length ? b : b.subarray(0, got));
  }
  if (got !== nb) throw err(CORRUPT, `hdf5: ${path}: file truncated: ${nb} bytes at offset ${offset} go past its end`);
  return into ? null : out.buffer;
}

/** The FileState class over api._internal (I): one per makeH5 call. */
export function defineFileState(I) {

  // 16 bytes of wasm memory for the out-arguments of one call at a time (read right after it),
  // instead of two allocations per call
  let scratchM = null, scratchP = 0;
  function scratch(M) {
    if (scratchM !== M) {
      scratchP = M._malloc(16);
      if (!scratchP) throw err(2, 'out of memory in WebAssembly');
      scratchM = M;
    }
    return scratchP;
  }

  function module() {
    const M = I.module;
    if (!M) throw err(MISUSE, 'the WebAssembly module is not loaded yet: await h5.ready (or use await h5.File.open(...))');
    return M;
  }

  /** State shared by every object of one open file. */
  class FileState {
    constructor(file, mode, { durable = true, owned = false, maxMemory = 0 } = {}) {
      const M = module();
      this.M = M;
      this.file = file;
      this.owned = owned;
      this.mode = mode;
      if (maxMemory !== undefined && maxMemory !== null && !(maxMemory >= 0)) throw new TypeError(`maxMemory ${maxMemory} (bytes, >= 0)`);
      this.maxMemory = maxMemory || 0; // 0: the core's default read budget
      this.budget = 0; // the read budget in force, learnt from the reader
      this.h = 0; // cairn_h5 * (reader), opened lazily
      this.rf = 0; // its cairn_file *
      this.w = 0; // cairn_h5w * (writer)
      this.wf = 0;
      this.dirty = false;
      this.closed = false;
      this.info = new Map(); // path or path@attr -> described object, until the next commit
      this.types = new Map(); // dataset path -> type (types never change)
      this.objs = new Map(); // path -> open cairn_h5_obj *, LRU order
      this.attrTabs = new Map(); // path -> AttrTable from attrsAll (until the next commit)
      if (mode === 'r') return;
      if (typeof file.write !== 'function' || typeof file.truncate !== 'function') throw err(READONLY, `${file.name || 'file'} is read-only (mode '${mode}' needs write and truncate)`);
      const a = arena(M);
      try {
        this.wf = I.openFile(file);
        const create = mode === 'w' || mode === 'x' || ((mode === 'a' || mode === 'r+') && file.size() === 0);
        if (mode === 'x' && file.size() > 0) throw err(6, `${file.name || 'file'} exists and is not empty (mode 'x')`);
        const pp = a.alloc(4);
        const flags = durable ? 0 : 2; // CAIRN_H5W_NOSYNC
        const rc = create ? M._cairn_h5w_create(this.wf, flags, pp) : M._cairn_h5w_open(this.wf, flags, pp);
        if (rc) throw I.fail(rc, `${create ? 'create' : 'open for writing'} ${file.name || ''}`.trim());
        this.w = M.HEAPU32[pp >> 2];
        this.dirty = create;
      } catch (e) {
        if (this.wf) M._cairn_file_close(this.wf);
        this.wf = 0;
        throw e;
      } finally {
        a.free();
      }
    }
    live() {
      if (this.closed) throw err(MISUSE, `${this.file.name || 'file'} is closed`);
    }
    /** The reader, after committing pending writes (so reads see them). */
    reader() {
      this.live();
      if (this.w && this.dirty) this.commit();
      if (this.h) return this.h;
      const M = this.M, a = arena(M);
      try {
        this.rf = I.openFile(this.file);
        const pp = a.alloc(4);
        const rc = M._cairn_h5_open(this.rf, 0, pp);
        if (rc) throw I.fail(rc, `open ${this.file.name || ''}`.trim());
        this.h = M.HEAPU32[pp >> 2];
        this.budget = M._cairn_em_h5_read_budget(this.h, this.maxMemory);
        return this.h;
      } catch (e) {
        if (this.rf) M._cairn_file_close(this.rf);
        this.rf = 0;
        throw e;
      } finally {
        a.free();
      }
    }
    closeReader() {
      for (const o of this.objs.values()) this.M._cairn_h5_obj_close(o);
      this.objs.clear();
      if (this.h) this.M._cairn_h5_close(this.h);
      if (this.rf) this.M._cairn_file_close(this.rf);
      this.h = this.rf = 0;
      this.info.clear();
      for (const t of this.attrTabs.values()) t.stale = true; // Attributes holding one read afresh
      this.attrTabs.clear();
    }
    writer() {
      this.live();
      if (!this.w) throw err(READONLY, `${this.file.name || 'file'} is open read-only (mode 'r'); open it with mode 'a' to edit`);
      return this.w;
    }
    /**
     * The open object at path. Handles are kept (at most 256, least recently used closed first)
     * because opening parses the object header and its attributes: reading 128 attributes
     * one by one then costs one parse, not 256.
     */
    handle(path) {
      const h = this.reader(), M = this.M;
      let o = this.objs.get(path);
      if (o) {
        this.objs.delete(path);
        this.objs.set(path, o);
        return o;
      }
      const a = arena(M);
      try {
        const pp = a.alloc(4);
        I.check(M._cairn_h5_get(h, a.str(path), pp), path);
        o = M.HEAPU32[pp >> 2];
      } finally {
        a.free();
      }
      this.objs.set(path, o);
      if (this.objs.size > 256) {
        const [oldest, p] = this.objs.entries().next().value;
        this.objs.delete(oldest);
        M._cairn_h5_obj_close(p);
      }
      return o;
    }
    /** Run fn(objPtr, arena) on the object at path (or its attribute `attr`); frees after. */
    withObj(path, attr, fn) {
      const M = this.M, a = arena(M);
      let at = 0;
      try {
        const o = this.handle(path);
        if (attr === null) return fn(o, a);
        const pp = a.alloc(4);
        I.check(M._cairn_h5_attr(o, a.str(attr), pp), `${path}@${attr}`);
        at = M.HEAPU32[pp >> 2];
        return fn(at, a);
      } finally {
        if (at) M._cairn_h5_obj_close(at);
        a.free();
      }
    }
    /**
     * Describe an object (cached until the next commit): kind, shape, type, layout, filters;
     * attribute names with {attrs: true}, group links with {links: true}.
     */
    describe(path, attr = null, { links = false, attrs = false } = {}) {
      this.reader(); // commits first if needed, which clears the cache
      const key = attr === null ? path : `${path}@${attr}`;
      let d = this.info.get(key);
      if (d && (!links || d.links) && (!attrs || d.attrs)) return d;
      if (attr !== null && !d) {
        const e = this.attrEntry(path, attr);
        if (e && (d = e[0].desc(e[1]))) return d;
      }
      d = this.withObj(path, attr, (o, a) => {
        const pz = a.alloc(4), pn = a.alloc(8);
        I.check(this.M._cairn_em_h5_describe(o, (links ? 1 : 0) | (attrs ? 2 : 0), pz, pn), `describe ${key}`);
        return JSON.parse(a.takeText(pz, pn));
      });
      this.info.set(key, d);
      if (d.type && attr === null) this.types.set(path, d.type);
      return d;
    }
    /**
     * Every attribute of the object at path in one call into the core (names, descriptions and
     * the values of the numeric ones, which read() then serves), cached like describe(): an
     * object's 128 attributes cost one crossing, not 128 descriptions and 128 reads.
     */
    attrsAll(path) {
      this.reader(); // commits first if needed, which clears the caches
      let tab = this.attrTabs.get(path);
      if (tab) return tab;
      const M = this.M, o = this.handle(path), pz = scratch(M);
      I.check(M._cairn_em_h5_attrs(o, pz, pz + 8), `attributes of ${path}`);
      const z = M.HEAPU32[pz >> 2];
      try {
        tab = new AttrTable(M, z); // reads the block where it is: no copy into a JS buffer
      } finally {
        M._cairn_free(z);
      }
      this.attrTabs.set(path, tab);
      return tab;
    }
    /** The attribute table entry of path@attr if attrsAll has listed path: [table, index] or null. */
    attrEntry(path, attr) {
      const tab = this.attrTabs.get(path);
      if (!tab) return null;
      const i = tab.indexOf(attr);
      return i < 0 ? null : [tab, i];
    }
    /**
     * Read values of a dataset or attribute; sel is null or [[start, step, count], ...]. `into`
     * (Dataset.read_into): a typed array of the element type's array class and exactly the
     * selection's length, filled and returned instead of a new array.
     */
    read(path, attr, sel, into = null) {
      if (attr !== null && !sel) {
        this.reader(); // commits pending edits first (which drops the tables)
        const e = this.attrEntry(path, attr);
        if (e) {
          const v = e[0].value(e[1]);
          if (v !== NOVAL) return v;
        }
      }
      const d = this.describe(path, attr);
      if (d.space === 2) return null; // NULL dataspace
      const t = d.type, count = sel ? sel.map((s) => s[2]) : d.shape, n = prod(count);
      // the read budget, checked before anything is allocated (the core checks it too)
      const need = n * (t.class === 'float' && t.size <= 4 ? 4 : t.size || 1);
      if (need > this.budget && this.budget > 0) {
        throw err(LIMIT, `hdf5: reading ${attr === null ? path : path + '@' + attr} needs ${need} bytes, over the read budget of ${this.budget} bytes (read a selection, or raise the budget: File option maxMemory)`);
      }
      const scalar = d.space === 0;
      const ret = (v) => (scalar ? (Array.isArray(v) || ArrayBuffer.isView(v) ? v[0] : v) : v);
      return this.withObj(path, attr, (o, a) => {
        const M = this.M, rank = sel ? sel.length : 0, pSel = sel ? a.f64(sel.flat()) : 0;
        const json = () => {
          if (n === 0) return [];
          const pz = a.alloc(4), pn = a.alloc(8);
          I.check(M._cairn_em_h5_read_json(o, rank, pSel, pz, pn), `read ${path}${attr === null ? '' : '@' + attr}`);
          const v = JSON.parse(a.takeText(pz, pn));
          return scalar && !sel ? [v] : count.length > 1 ? v.flat(count.length - 1) : v;
        };
        // `dst`: the caller's bytes (read_into) or null (a new ArrayBuffer, returned)
        const raw = (mt, size, dst = null) => {
          const nb = n * size;
          if (!sel && attr === null && nb >= 65536) { // large contiguous data: file -> result array, no copy through wasm
            const pe = a.alloc(16), r = M._cairn_em_h5_raw_extent(o, mt, pe);
            if (r < 0) I.check(-r, `read ${path}`);
            if (r === 1 && M.HEAPF64[(pe >> 3) + 1] === nb) return readExtent(this.file, M.HEAPF64[pe >> 3], nb, path, dst);
          }
          const p = a.alloc(nb);
          if (n) I.check(M._cairn_em_h5_read(o, rank, pSel, mt, p, nb), `read ${path}${attr === null ? '' : '@' + attr}`);
          const out = dst || new Uint8Array(nb); // new + set copies about twice as fast as HEAPU8.slice in V8
          out.set(M.HEAPU8.subarray(p, p + nb));
          return dst ? null : out.buffer;
        };
        // numeric values: a new array of class C, or the caller's (read_into)
        const num = (C, mt) => {
          if (!into) return ret(new C(raw(mt, C.BYTES_PER_ELEMENT)));
          if (!(into instanceof C) || into.length !== n) {
            throw err(RANGE, `read_into ${path}: needs a ${C.name} of ${n} elements, got ${into?.constructor?.name} of ${into?.length}`);
          }
          raw(mt, C.BYTES_PER_ELEMENT, new Uint8Array(into.buffer, into.byteOffset, into.byteLength));
          return into;
        };
        const b = t.class === 'enum' ? t.base : t;
        if ((b.class === 'integer' || b.class === 'bitfield') && b.size <= 8) {
          const [C, mt] = INT_CTOR[intWidth(b.size) + (b.class === 'integer' && b.signed ? 's' : 'u')];
          return num(C, mt);
        }
        if (b.class === 'float') {
          if (b.size === 4 || b.size === 2) return num(Float32Array, MT.F32);
          return num(Float64Array, MT.F64);
        }
        if (into) throw err(TYPE, `read_into ${path}: only integer and float datasets read into a caller's array`);
        if (t.class === 'string' || (t.class === 'vlen' && t.string)) return ret(json());
        if (t.class === 'opaque') return new Uint8Array(raw(MT.NATIVE, t.size)); // all elements' bytes, as h5wasm
        if (t.class === 'compound' || t.class === 'array') {
          const bytes = raw(MT.NATIVE, t.size), dv = new DataView(bytes);
          const js = needsJson(t) ? json() : null, dec = decoder(t), out = new Array(n);
          for (let i = 0; i < n; i++) out[i] = dec(dv, i * t.size, js && js[i]);
          return ret(out);
        }
        return ret(json().map((v) => fixJson(t, v)));
      });
    }
    commit() {
      this.live();
      if (!this.w) return;
      I.check(this.M._cairn_h5w_commit(this.w), `commit ${this.file.name || ''}`.trim());
      this.dirty = false;
      this.closeReader();
    }
    close() {
      if (this.closed) return;
      const M = this.M;
      let e = null;
      this.closeReader();
      if (this.w) {
        const rc = M._cairn_h5w_close(this.w);
        if (rc) e = I.fail(rc, `close ${this.file.name || ''}`.trim());
        M._cairn_file_close(this.wf);
        this.w = this.wf = 0;
      }
      this.closed = true;
      if (this.owned && this.file.close) this.file.close();
      if (e) throw e;
    }
    /** Shape of a dataset from the writer while changes are pending (no commit), else null. */
    writerShape(path) {
      if (!this.w || !this.dirty) return null;
      const M = this.M, a = arena(M);
      try {
        const pr = a.alloc(4), pd = a.alloc(8 * 8);
        if (M._cairn_em_h5w_shape(this.w, a.str(path), pr, pd) !== 0) return null;
        return Array.from(M.HEAPF64.subarray(pd >> 3, (pd >> 3) + M.HEAPU32[pr >> 2]));
      } finally {
        a.free();
      }
    }
    /** Type of a dataset for appending (from the reader once; types never change). */
    typeOf(path) {
      return this.types.get(path) || this.describe(path).type;
    }
  }
  return FileState;
}
