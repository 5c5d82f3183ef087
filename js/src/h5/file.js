// 2026-12-02
// js/src/h5/file.js - the File class: the root group of an open HDF5 file over a file object
// (or a Node path), its modes, File.open / File.create, flush / commit, close and stats.
import { arena } from './common.js';

/** The File class over the context c of makeH5 (FileState and Group defined). */
export function defineFile(c) {
  const { init, options, FileState, Group } = c;

  /**
   * An HDF5 file over a file object. Modes: 'r' read-only; 'a' / 'r+' edit (an empty file is
   * created); 'w' create, discarding what was there; 'x' create, failing if not empty.
   * The module must be loaded: use `await File.open(...)` or `await h5.ready` first.
   * Options: durable (default true); maxMemory: the bytes one read may use (default 256 MiB,
   * the core's budget in wasm; Infinity lifts it): a larger read throws CairnError LIMIT naming
   * the dataset, the bytes it would need and the budget, before allocating (read a slice).
   */
  class File extends Group {
    constructor(file, mode = 'r', { durable = true, maxMemory = 0 } = {}) {
      if (!['r', 'a', 'r+', 'w', 'x'].includes(mode)) throw new TypeError(`mode '${mode}' (use 'r', 'a', 'r+', 'w' or 'x')`);
      let owned = false;
      if (typeof file === 'string') {
        if (!options.openPath) throw new TypeError('a path needs the Node entry; in browsers pass a file object (MemoryFile, BlobFile, OpfsFile, HttpFile)');
        file = options.openPath(file, mode);
        owned = true;
      }
      if (!file || typeof file.read !== 'function' || typeof file.size !== 'function') throw new TypeError('expected a file object (MemoryFile, NodeFile, BlobFile, OpfsFile, HttpFile) or a path');
      let st;
      try {
        st = new FileState(file, mode, { durable, owned, maxMemory });
        if (mode === 'r') st.reader(); // fail now on a file that is not HDF5
      } catch (e) {
        if (st) st.close();
        else if (owned && file.close) file.close();
        throw e;
      }
      super(st, '/');
      this.filename = file.name || '';
      this.mode = mode;
      /** The file object the HDF5 file lives in (yours to close unless opened by path). */
      this.file = file;
    }
    /** Load the module if needed, then open (see the constructor). */
    static async open(file, mode = 'r', opts = {}) {
      await init();
      return new File(file, mode, opts);
    }
    /** A new file in `file` (mode 'w'). */
    static async create(file, opts = {}) {
      await init();
      return new File(file, 'w', opts);
    }
    /** Commit every change (durable unless opened with {durable: false}). */
    flush() { this._s.commit(); }
    /** Same as flush(). */
    commit() { this._s.commit(); }
    /** Commit (if writable) and release the file; the file object itself stays open unless opened by path. Returns 0. */
    close() {
      this._s.close();
      return 0;
    }
    /** Host reads and bytes read by the reader since it was opened (cairn extension). */
    stats() {
      const s = this._s, h = s.reader(), a = arena(s.M);
      try {
        const p = a.alloc(16);
        s.M._cairn_em_h5_stats(h, p);
        return { reads: s.M.HEAPF64[p >> 3], bytes: s.M.HEAPF64[(p >> 3) + 1] };
      } finally {
        a.free();
      }
    }
    toString() { return `File(${this.filename}, mode=${this.mode})`; }
  }

  return File;
}
