// 2026-12-02
// js/src/h5/dataset.js - the Dataset class: shape, dtype and metadata, reading all values or a
// hyperslab (slice), and the writer's append, write_slice and resize.
import { RANGE, TYPE, UNSUPPORTED, err, prod, arena } from './common.js';
import { typeMetadata, typeDtype, typeNumpy, toJsonValue, nest } from './types.js';
import { flatten, putData } from './dtype.js';

/**
 * The reader's selection ([[start, step, count], ...]) of h5wasm-style ranges over shape: one
 * [start, end, step] per dimension (missing dims and null bounds mean all; negative indices count
 * from the end). `what` names the call in the RangeError of a bad step.
 */
function selection(shape, ranges, what) {
  return shape.map((n, i) => {
    const r = (ranges && ranges[i]) || [];
    const step = r[2] ?? 1;
    if (!Number.isInteger(step) || step < 1) throw new RangeError(`${what} step ${step} must be a positive integer`);
    const norm = (x, dflt) => (x === null || x === undefined ? dflt : Math.min(n, Math.max(0, x < 0 ? n + x : x)));
    const start = norm(r[0], 0), end = norm(r[1], n);
    return [start, step, end > start ? Math.ceil((end - start) / step) : 0];
  });
}

/** The Dataset class over the context c of makeH5 (HasAttrs defined). */
export function defineDataset(c) {
  const { I, HasAttrs } = c;

  /** A dataset: shape, dtype, metadata, filters, value, slice(). */
  class Dataset extends HasAttrs {
    constructor(state, path) {
      super(state, path);
      this.type = 'Dataset';
    }
    /** @private */
    get _d() { return this._s.describe(this.path); }
    /**
     * h5wasm-style metadata: {type (HDF5 class), size, signed, littleEndian, vlen, cset,
     * shape, maxshape (null = unlimited), chunks, total_size, compound_type, enum_type,
     * array_type} plus cairn's layout ('compact' | 'contiguous' | 'chunked' | 'virtual').
     */
    get metadata() {
      const d = this._d;
      return {
        ...typeMetadata(d.type),
        shape: this.shape,
        maxshape: d.space === 2 ? null : d.maxshape,
        chunks: d.chunks,
        total_size: d.space === 2 ? 0 : prod(d.shape),
        layout: ['compact', 'contiguous', 'chunked', 'virtual'][d.layout],
      };
    }
    /** Element type as h5wasm spells it: `<f`, `<d`, `>i`, `<Q`, `S10`, `S` (vlen), or an object. */
    get dtype() { return typeDtype(this._d.type); }
    /** numpy typestr of the element type (cairn extension): `<f4`, `>i8`, `|S10`, `|O`... */
    get np_dtype() { return typeNumpy(this._d.type); }
    /** Shape ([] for scalars, null for an empty (NULL) dataspace). */
    get shape() {
      const ws = this._s.writerShape(this.path);
      if (ws) return ws;
      const d = this._d;
      return d.space === 2 ? null : d.shape;
    }
    /** Filter pipeline: [{id, name, cd_values}]. */
    get filters() { return this._d.filters.map(({ id, name, cd_values }) => ({ id, name, cd_values })); }
    /** All values, flat row-major: typed array (int64 -> BigInt64Array), string[], objects. */
    get value() { return this._s.read(this.path, null, null); }
    get json_value() { return toJsonValue(this.value, this._d.type); }
    /**
     * All values (or, with `ranges`, a hyperslab as slice() takes it) of an integer or float
     * dataset into the caller's typed array `out` (cairn extension): the class value would
     * return (Float32Array for f16/f32, BigInt64Array for int64...) and exactly as many
     * elements; returns `out`. value allocates a new array per call, whose fresh memory costs
     * a page fault per 4 KiB (64 MiB: ~16K faults, 12-16 us each on some VMs); an array reused
     * across reads costs none (docs/js-memory.md). Throws RangeError-coded CairnError (RANGE)
     * on a wrong class or length, TYPE for other element types.
     */
    read_into(out, ranges) {
      const shape = this.shape;
      if (!shape) throw err(TYPE, `read_into ${this.path}: the dataset has no dataspace`);
      const sel = ranges === undefined || shape.length === 0 ? null : selection(shape, ranges, 'read_into');
      return this._s.read(this.path, null, sel, out);
    }
    /** Nested arrays following the shape. */
    to_array() {
      const v = this.json_value;
      return Array.isArray(v) ? nest(v, this.shape) : v;
    }
    /**
     * A hyperslab, flat: one [start, end, step] per dimension (missing dims and null bounds
     * mean all; negative indices count from the end).
     */
    slice(ranges) {
      const shape = this.shape;
      if (!shape) return null;
      if (shape.length === 0) return this.value;
      const sel = selection(shape, ranges, 'slice');
      return this._s.read(this.path, null, sel);
    }
    /**
     * Append rows along the first dimension of a resizable dataset (cairn extension: the
     * writer grows datasets this way). `data` holds whole rows, flat or nested.
     */
    append(data) {
      const s = this._s, w = s.writer(), M = s.M, a = arena(M);
      try {
        const pr = a.alloc(4), pd = a.alloc(8 * 8);
        I.check(M._cairn_em_h5w_shape(w, a.str(this.path), pr, pd), `append to ${this.path}`);
        const rank = M.HEAPU32[pr >> 2], dims = Array.from(M.HEAPF64.subarray(pd >> 3, (pd >> 3) + rank));
        const t = s.typeOf(this.path);
        const { flat } = flatten(data, t);
        const row = prod(dims.slice(1));
        if (row === 0 || flat.length % row) throw err(RANGE, `${flat.length} values are not whole rows of ${row} for ${this.path}`);
        I.check(M._cairn_em_h5w_append(w, a.str(this.path), flat.length / row, putData(M, t, flat, a)), `append to ${this.path}`);
        s.dirty = true;
      } finally {
        a.free();
      }
    }
    /**
     * Overwrite a hyperslab, as h5wasm: one [start, end, step] per dimension (missing dims and
     * null bounds mean all; negative indices count from the end); `data` holds exactly the
     * selected elements (flat or nested). Whole rows (every inner dimension complete, step 1
     * along the first) are written as they are; any other selection reads the rows it touches
     * (committing pending changes first), merges and writes them back.
     */
    write_slice(ranges, data) {
      const s = this._s, w = s.writer(), M = s.M, shape = this.shape;
      if (!shape) throw err(TYPE, `${this.path} has no dataspace to write into`);
      const t = s.typeOf(this.path);
      const sel = selection(shape, ranges, 'write_slice');
      const { flat } = flatten(data, t);
      const count = prod(sel.map((x) => x[2]));
      if (flat.length !== count) throw err(RANGE, `write_slice: the selection holds ${count} elements, the data ${flat.length}`);
      if (count === 0) return;
      const a = arena(M);
      try {
        if (shape.length === 0) {
          I.check(M._cairn_em_h5w_write(w, a.str(this.path), 0, 1, putData(M, t, flat, a)), `write ${this.path}`);
          s.dirty = true;
          return;
        }
        const [r0, step0, n0] = sel[0], nRows = (n0 - 1) * step0 + 1;
        const whole = step0 === 1 && sel.every(([st, sp, c], i) => i === 0 || (st === 0 && sp === 1 && c === shape[i]));
        let block = flat;
        if (!whole) {
          const cur = this.slice([[r0, r0 + nRows]]);
          block = ArrayBuffer.isView(cur) ? cur.slice() : Array.from(cur);
          const big = block instanceof BigInt64Array || block instanceof BigUint64Array;
          const rank = shape.length, stride = new Array(rank).fill(1), k = new Array(rank).fill(0);
          for (let i = rank - 2; i >= 0; i--) stride[i] = stride[i + 1] * shape[i + 1];
          for (let j = 0; j < count; j++) {
            let at = k[0] * step0 * stride[0];
            for (let i = 1; i < rank; i++) at += (sel[i][0] + k[i] * sel[i][1]) * stride[i];
            block[at] = big ? BigInt(flat[j]) : flat[j];
            for (let i = rank - 1; i >= 0 && ++k[i] === sel[i][2]; i--) k[i] = 0;
          }
        }
        I.check(M._cairn_em_h5w_write(w, a.str(this.path), r0, nRows, putData(M, t, block, a)), `write ${this.path}`);
        s.dirty = true;
      } finally {
        a.free();
      }
    }
    /**
     * Resize, as h5wasm: only the first dimension can change, and only grow (up to maxshape);
     * the new rows read as the fill value. Shrinking fails (UNSUPPORTED) and changes nothing.
     */
    resize(newShape) {
      const s = this._s, w = s.writer(), M = s.M, shape = this.shape, ns = [].concat(newShape).map(Number);
      if (!shape || ns.length !== shape.length) throw err(RANGE, `resize ${this.path}: new shape [${ns}] must have rank ${shape ? shape.length : 0}`);
      if (ns.some((x, i) => i > 0 && x !== shape[i])) throw err(UNSUPPORTED, `resize ${this.path}: only the first dimension can change ([${shape}] -> [${ns}])`);
      if (!Number.isInteger(ns[0]) || ns[0] < 0) throw new RangeError(`resize ${this.path}: ${ns[0]} rows`);
      const a = arena(M);
      try {
        I.check(M._cairn_em_h5w_resize(w, a.str(this.path), ns[0]), `resize ${this.path}`);
        if (ns[0] !== shape[0]) s.dirty = true;
      } finally {
        a.free();
      }
    }
    /** Forget cached metadata and reopen the reader on next use, to see what another writer committed. */
    refresh() {
      if (!this._s.dirty) this._s.closeReader();
    }
    toString() { return `Dataset(path=${this.path})`; }
  }

  return Dataset;
}
