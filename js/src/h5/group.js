// 2026-12-02
// js/src/h5/group.js - the Group class: listing links (keys, values, items, paths), get() of an
// object by path (Dataset, Group, Datatype, or the links cairn does not follow) and the writer's
// create_group, create_dataset and soft / external links.
import { CairnError } from '../api.js';
import { RANGE, err, joinPath, dirname, basename, arena } from './common.js';
import { refPath } from './types.js';
import { parseDtype, prepare, filterSpec, buildType, putData } from './dtype.js';

/** The Group class over the context c of makeH5 (HasAttrs and the link classes defined). */
export function defineGroup(c) {
  const { I, HasAttrs, Datatype, BrokenSoftLink, ExternalLink } = c;

  /** A group: links to datasets and groups. */
  class Group extends HasAttrs {
    constructor(state, path) {
      super(state, path);
      this.type = 'Group';
    }
    /** Names of the links in this group (name order). */
    keys() {
      return this._s.describe(this.path, null, { links: true }).links.map((l) => l.name);
    }
    *values() { for (const k of this.keys()) yield this.get(k); }
    *items() { for (const k of this.keys()) yield [k, this.get(k)]; }
    /**
     * Every path below this group (relative to it), depth first, as h5wasm's paths(). Hard links
     * may form cycles: a group already entered (by object header address) is listed again under
     * each name but entered once, as H5Lvisit and h5ls do; soft links are listed, not followed.
     */
    paths() {
      const out = [], s = this._s, seen = new Set([s.describe(this.path).addr]);
      const walk = (g, rel, depth) => {
        for (const l of s.describe(g, null, { links: true }).links) {
          const r = rel ? `${rel}/${l.name}` : l.name;
          out.push(r);
          if (l.type === 0 && depth < 64) {
            const full = joinPath(g, l.name);
            let d = null;
            try { d = s.describe(full); } catch { /* unreadable: listed, not entered */ }
            if (d && d.kind === 1 && !seen.has(d.addr)) {
              seen.add(d.addr);
              walk(full, r, depth + 1);
            }
          }
        }
      };
      walk(this.path, '', 0);
      return out;
    }
    /**
     * The object at `path` (absolute or relative): a Group, Dataset or Datatype; a
     * BrokenSoftLink or ExternalLink for links cairn does not follow; null if absent.
     */
    get(path) {
      const full = joinPath(this.path, refPath(path)), s = this._s;
      if (s.writerShape(full)) return new c.Dataset(s, full); // a dataset, known without committing
      let d;
      try {
        d = s.describe(full);
      } catch (e) {
        if (!(e instanceof CairnError) || (e.codeName !== 'NOTFOUND' && e.codeName !== 'UNSUPPORTED')) throw e;
        if (full === '/') throw e;
        let link;
        try {
          link = s.describe(dirname(full), null, { links: true }).links.find((l) => l.name === basename(full));
        } catch {
          link = null;
        }
        if (link && link.type === 64) return new ExternalLink(link.file, link.target);
        if (link && link.type === 1) return new BrokenSoftLink(link.target);
        if (e.codeName === 'UNSUPPORTED') throw e;
        return null;
      }
      if (d.kind === 1) return new Group(s, full);
      if (d.kind === 2) return new c.Dataset(s, full);
      if (d.kind === 3) return new Datatype(s, full);
      return null;
    }
    /** Create a group (intermediate groups too, like h5py); returns it. */
    create_group(name) {
      const s = this._s, w = s.writer(), full = joinPath(this.path, name), a = arena(s.M);
      try {
        this._mkparents(full, a);
        I.check(s.M._cairn_h5w_group(w, a.str(full)), `create group ${full}`);
        s.dirty = true;
      } finally {
        a.free();
      }
      return new Group(s, full);
    }
    /** Soft link `name` -> `target` (a path, which need not exist yet), as h5wasm. */
    create_soft_link(target, name) {
      if (typeof target !== 'string' || typeof name !== 'string' || !name) throw new TypeError('create_soft_link(target, name) needs two strings');
      const s = this._s, w = s.writer(), full = joinPath(this.path, name), a = arena(s.M);
      try {
        this._mkparents(full, a);
        I.check(s.M._cairn_h5w_softlink(w, a.str(full), a.str(target)), `create soft link ${full}`);
        s.dirty = true;
      } finally {
        a.free();
      }
    }
    /** External link `name` -> object `target` in the file `file_name`, as h5wasm. */
    create_external_link(file_name, target, name) {
      if (typeof file_name !== 'string' || typeof target !== 'string' || typeof name !== 'string' || !name) throw new TypeError('create_external_link(file_name, target, name) needs three strings');
      const s = this._s, w = s.writer(), full = joinPath(this.path, name), a = arena(s.M);
      try {
        this._mkparents(full, a);
        I.check(s.M._cairn_h5w_extlink(w, a.str(full), a.str(file_name), a.str(target)), `create external link ${full}`);
        s.dirty = true;
      } finally {
        a.free();
      }
    }
    /** @private Create missing parent groups of full. */
    _mkparents(full, a) {
      const s = this._s, parts = full.split('/').filter(Boolean);
      for (let i = 1; i < parts.length; i++) {
        const p = '/' + parts.slice(0, i).join('/');
        const rc = s.M._cairn_h5w_group(s.w, a.str(p));
        if (rc === 0) s.dirty = true;
        else if ((rc & 0xff) !== 6) throw I.fail(rc, `create group ${p}`); // 6: EXISTS
      }
    }
    /**
     * Create a dataset. `data`: typed array, array (nested arrays give the shape), scalar,
     * strings, objects for compounds; or null with `shape` (reads as the fill value).
     * Options as h5wasm/h5py: shape, dtype, maxshape (null = unlimited), chunks, compression
     * ('gzip' | level 0-9 | 'zstd' | 'lz4' | filter id), compression_opts (level), shuffle,
     * fletcher32, fillvalue; cairn's `filters` ('shuffle,zstd:3') and layout ('compact' |
     * 'contiguous' | 'chunked').
     */
    create_dataset(args) {
      const { name, data = null, shape, dtype, maxshape, chunks, fillvalue, layout } = args;
      if (typeof name !== 'string' || !name) throw new TypeError('create_dataset needs a name');
      const s = this._s, w = s.writer(), M = s.M, full = joinPath(this.path, name), a = arena(M);
      let t, flat = null, sh;
      if (data === null || data === undefined) {
        if (!shape || !dtype) throw new TypeError('create_dataset without data needs shape and dtype');
        t = parseDtype(dtype);
        sh = [].concat(shape).map(Number);
      } else ({ t, flat, shape: sh } = prepare(data, shape, dtype));
      let ty = 0;
      try {
        ty = buildType(I, M, t, a);
        const mx = maxshape ? [].concat(maxshape).map((x) => (x === null || x === undefined || x === Infinity ? -1 : Number(x))) : null;
        if (mx && mx.length !== sh.length) throw err(RANGE, `maxshape has ${mx.length} dimensions, shape ${sh.length}`);
        if (chunks && chunks.length !== sh.length) throw err(RANGE, `chunks has ${chunks.length} dimensions, shape ${sh.length}`);
        const lay = { compact: 1, contiguous: 2, chunked: 3 }[layout] ?? 0;
        const spec = filterSpec(args);
        const pFill = fillvalue === undefined || fillvalue === null ? 0 : putData(M, t, [fillvalue], a);
        this._mkparents(full, a);
        const rc = M._cairn_em_h5w_dataset(w, a.str(full), ty, sh.length, a.f64(sh), mx ? a.f64(mx) : 0, lay, chunks ? a.f64(chunks) : 0, spec ? a.str(spec) : 0, pFill, flat ? putData(M, t, flat, a) : 0);
        I.check(rc, `create dataset ${full}`);
        s.dirty = true;
        s.types.set(full, t);
      } finally {
        if (ty) M._cairn_h5w_type_free(ty);
        a.free();
      }
      return new c.Dataset(s, full);
    }
    toString() { return `Group(path=${this.path})`; }
  }

  return Group;
}
