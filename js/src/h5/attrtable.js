// 2026-12-02
// js/src/h5/attrtable.js - the attribute block of one HDF5 object (cairn_em_h5_attrs) read
// straight from wasm memory: attribute names as shared, internalized lists, per-attribute type,
// dataspace and shape, and the values the block holds. FileState.attrsAll (state.js) makes them.
import { utf8, MT_CTOR } from './common.js';

export const NOVAL = Symbol('noval'); // AttrTable.value: not served from the table, read it
// Attribute name lists seen lately, shared by every file: reopening a file, or files of one
// layout, give the same strings again. Fresh strings from split() cost more as object keys than
// the whole wasm call (V8 internalizes each one on its first use as a key, a runtime call per
// key: ~10 us for 128 names); these are internalized once. Found by the names block's length,
// then compared byte for byte with the block in wasm memory: no decoding nor hashing of the
// text when the list is known. At most NAMES_MAX lengths, NAMES_PER_LEN lists each.
const namesSeen = new Map(), NAMES_MAX = 64, NAMES_PER_LEN = 4;
function sameBytes(e, u8, p) {
  const raw = e.raw, n = raw.length;
  let i = 0;
  if ((p & 3) === 0) { // 4 bytes at a time (the block's names start 4-aligned)
    const a = e.w, b = new Int32Array(u8.buffer, p, n >> 2);
    for (; i < a.length; i++) if (a[i] !== b[i]) return false;
    i <<= 2;
  }
  for (; i < n; i++) if (raw[i] !== u8[p + i]) return false;
  return true;
}
/** The names in u8[p, p + n) (UTF-8, NUL-separated) as a shared {names, index}. */
function nameList(u8, p, n) {
  let bucket = namesSeen.get(n);
  if (bucket !== undefined) for (const e of bucket) if (sameBytes(e, u8, p)) return e;
  const raw = u8.slice(p, p + n);
  const e = { raw, w: new Int32Array(raw.buffer, 0, n >> 2), names: utf8.decode(raw).split('\0'), index: null };
  if (bucket === undefined) {
    if (namesSeen.size >= NAMES_MAX) namesSeen.delete(namesSeen.keys().next().value);
    namesSeen.set(n, (bucket = []));
  }
  if (bucket.length >= NAMES_PER_LEN) bucket.shift();
  bucket.push(e);
  return e;
}
/** One little-endian element of memory type mt (MT numbering) at off (scalars decode without a view). */
function scalarAt(dv, off, mt) {
  switch (mt) {
    case 1: return dv.getInt8(off);
    case 2: return dv.getUint8(off);
    case 3: return dv.getInt16(off, true);
    case 4: return dv.getUint16(off, true);
    case 5: return dv.getInt32(off, true);
    case 6: return dv.getUint32(off, true);
    case 7: return dv.getBigInt64(off, true);
    case 8: return dv.getBigUint64(off, true);
    case 9: return dv.getFloat32(off, true);
    default: return dv.getFloat64(off, true);
  }
}
const NO_LIST = { names: [], index: null };
/**
 * Every attribute of one object, as cairn_em_h5_attrs lays them out (bindings/em/em_h5.c), read straight
 * from wasm memory (the block is freed after): names (shared lists, see nameList), type index,
 * dataspace and shape per attribute, and the values the block holds (numbers and BigInts as
 * they are, arrays as bytes each read copies). Descriptions are made only when asked for, so
 * listing 128 attributes does not build 128 descriptions up front.
 */
export class AttrTable {
  constructor(M, z) {
    const u8 = M.HEAPU8, dv = new DataView(u8.buffer, z), u32 = (o) => dv.getUint32(o, true);
    const nAttr = u32(0), nType = u32(4), offNames = u32(8), offTypes = u32(12), offRecs = u32(16), offData = u32(20);
    this.stale = false; // set when the file changes: values are then read afresh
    this.list = nAttr ? nameList(u8, z + offNames, offTypes - 1 - offNames) : NO_LIST;
    this.names = this.list.names; // shared: never modified
    this.types = new Array(nType);
    for (let k = 0, q = offTypes; k < nType; k++) {
      const len = u32(q);
      this.types[k] = JSON.parse(utf8.decode(u8.subarray(z + q + 4, z + q + 4 + len)));
      q += 4 + len;
    }
    // plain arrays, not typed ones: a typed array of 128 entries has its own off-heap buffer
    const ti = (this.ti = new Array(nAttr)); // type index, -1: did not decode
    const space = (this.space = new Array(nAttr)); // 0 scalar, 1 simple, 2 null
    const mts = (this.mt = new Array(nAttr)); // memory type of vals[i] (255: not held)
    const shapes = (this.shapes = new Array(nAttr)); // rank > 0 only
    const vals = (this.vals = new Array(nAttr)); // value, or ArrayBuffer of an array's bytes, or NOVAL
    for (let i = 0, q = offRecs; i < nAttr; i++) {
      const t = dv.getInt32(q, true), sp = u8[z + q + 4], rank = u8[z + q + 5], mt = u8[z + q + 6];
      ti[i] = t;
      space[i] = sp;
      mts[i] = mt;
      let shape;
      if (rank) {
        shape = new Array(rank);
        for (let r = 0; r < rank; r++) shape[r] = dv.getFloat64(q + 16 + 8 * r, true);
      }
      shapes[i] = shape;
      let v = NOVAL;
      if (t >= 0 && mt !== 255 && sp !== 2) { // (a NULL dataspace reads as null: not held)
        const off = offData + dv.getUint32(q + 8, true), n = dv.getUint32(q + 12, true);
        v = sp === 0 && n === MT_CTOR[mt].BYTES_PER_ELEMENT ? scalarAt(dv, off, mt) : u8.buffer.slice(z + off, z + off + n);
      }
      vals[i] = v;
      q += 16 + 8 * rank;
    }
    this.descs = new Array(nAttr);
  }
  indexOf(name) {
    const l = this.list; // name -> i, built on the first lookup by name (shared like the names)
    if (!l.index) {
      l.index = new Map();
      for (let i = 0; i < l.names.length; i++) l.index.set(l.names[i], i);
    }
    const i = l.index.get(name);
    return i === undefined ? -1 : i;
  }
  /** Whether attribute i described (if not, reading it alone reports why). */
  ok(i) { return this.ti[i] >= 0; }
  /** Description of attribute i as describe() gives it, or null if it did not describe. */
  desc(i) {
    let d = this.descs[i];
    if (d !== undefined) return d;
    if (this.ti[i] < 0) d = null;
    else {
      const shape = this.shapes[i] || [];
      d = { kind: 4, addr: 0, space: this.space[i], shape, maxshape: shape, type: this.types[this.ti[i]] };
    }
    return (this.descs[i] = d);
  }
  /** Value of attribute i if the table holds it (numeric types), else NOVAL. */
  value(i) {
    if (this.stale) return NOVAL;
    const v = this.vals[i];
    if (v instanceof ArrayBuffer) return new MT_CTOR[this.mt[i]](v.slice(0)); // a fresh array each time, as a read gives
    return v;
  }
}
