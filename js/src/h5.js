// 2026-11-29
// js/src/h5.js - HDF5 files from JavaScript, shaped like h5wasm (File / Group / Dataset /
// Attribute, `keys()`, `get()`, `attrs`, `value`, `slice()`, `create_dataset()`...) so that its
// users can switch in minutes, over cairn's C reader (cairn/h5.h) and writer (cairn/h5w.h).
//
// Differences from h5wasm worth knowing:
//  - Files are JS file objects (MemoryFile, NodeFile, BlobFile, OpfsFile, HttpFile; in Node
//    also a path), read lazily: only the metadata on the way and the chunks a read touches.
//  - `await h5.File.open(file, mode)` (or `await h5.ready` then `new h5.File(file, mode)`).
//  - Compound values are objects ({x: 1, y: 2}), not arrays; 64-bit integers inside them are
//    bigints (as h5wasm), enums read as their integer values.
//  - Writing: create_group, create_dataset (chunks, maxshape, compression gzip/zstd/lz4,
//    shuffle, fletcher32), create_attribute, delete_attribute and `Dataset.append(rows)`
//    (the C writer grows the first dimension only; no write_slice/resize). Changes are made
//    durable by flush() (= commit()) and close(). Reading from a file open for writing first
//    commits what was written, so reads always see every change.
//  - Editing an existing file ('a', 'r+') needs a superblock v2/v3 file: files cairn wrote or
//    that libhdf5/h5py wrote with libver='latest' (a limit of the C writer).
//
// Every wasm allocation is freed in a `finally` (see Arena); errors are CairnError (code,
// codeName, message naming the object), TypeError or RangeError, never strings.

import { CairnError } from './api.js';

const MISUSE = 7, READONLY = 10, TYPE = 12, RANGE = 9, UNSUPPORTED = 8;
const CORRUPT = 4;
const CLASS = { integer: 0, float: 1, time: 2, string: 3, bitfield: 4, opaque: 5, compound: 6, reference: 7, enum: 8, vlen: 9, array: 10 };
// cairn_h5_mtype: NATIVE, I8, U8, I16, U16, I32, U32, I64, U64, F32, F64
const MT = { NATIVE: 0, I8: 1, U8: 2, I16: 3, U16: 4, I32: 5, U32: 6, I64: 7, U64: 8, F32: 9, F64: 10 };
const INT_CTOR = { '1s': [Int8Array, MT.I8], '1u': [Uint8Array, MT.U8], '2s': [Int16Array, MT.I16], '2u': [Uint16Array, MT.U16], '4s': [Int32Array, MT.I32], '4u': [Uint32Array, MT.U32], '8s': [BigInt64Array, MT.I64], '8u': [BigUint64Array, MT.U64] };
const INT_FMT = { 1: 'b', 2: 'h', 4: 'i', 8: 'q' };
const FLOAT_FMT = { 2: 'e', 4: 'f', 8: 'd' };
const utf8 = new TextDecoder('utf-8');
// memory type -> typed array (cairn_h5_mtype numbering, as MT)
const MT_CTOR = [null, Int8Array, Uint8Array, Int16Array, Uint16Array, Int32Array, Uint32Array, BigInt64Array, BigUint64Array, Float32Array, Float64Array];
const enc = new TextEncoder();

const NOVAL = Symbol('noval'); // AttrTable.value: not served from the table, read it
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
class AttrTable {
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

const err = (code, msg) => new CairnError(code, msg);

/** Join and normalise an HDF5 path ("/a//b/" -> "/a/b"; relative names are under base). */
function joinPath(base, name) {
  const full = name.startsWith('/') ? name : `${base}/${name}`;
  const parts = full.split('/').filter((p) => p && p !== '.');
  return '/' + parts.join('/');
}
const dirname = (p) => (p.lastIndexOf('/') <= 0 ? '/' : p.slice(0, p.lastIndexOf('/')));
const basename = (p) => p.slice(p.lastIndexOf('/') + 1);
const prod = (a) => a.reduce((x, y) => x * y, 1);

/** Integer type size rounded up to a JS typed array width (3-byte ints read as 4 bytes...). */
function intWidth(size) {
  return size <= 1 ? 1 : size <= 2 ? 2 : size <= 4 ? 4 : 8;
}

/** IEEE half -> number. */
function halfToNumber(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 31, m = h & 1023;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/**
 * An object reference read from a file, as h5wasm gives them (its Reference class): hand it to
 * `dereference()` (or `get()`) for the object. cairn resolves it when reading, so it carries the
 * object's path (`path`); `String(ref)`, template strings and JSON give that path, which is what
 * reads returned before this class (0.x: plain path strings).
 */
export class Reference {
  constructor(path) {
    /** Absolute path of the referenced object. */
    this.path = path;
  }
  toString() { return this.path; }
  toJSON() { return this.path; }
  [Symbol.toPrimitive]() { return this.path; }
}
const refPath = (x) => (x instanceof Reference ? x.path : x);

/** The reader's JSON spells NaN and infinities as strings, and object references as paths; give
 * numbers back for float types and Reference objects for references. */
function fixJson(t, v) {
  if (v === null || v === undefined) return v;
  switch (t.class) {
    case 'reference':
      return t.ref === 'object' && typeof v === 'string' ? new Reference(v) : v;
    case 'float':
      return typeof v === 'string' ? (v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : Number(v)) : v;
    case 'vlen':
      return t.string ? v : v.map((x) => fixJson(t.base, x));
    case 'array':
      return Array.isArray(v) ? v.map((x) => (Array.isArray(x) ? fixJson({ ...t, class: 'array' }, x) : fixJson(t.base, x))) : v;
    case 'compound': {
      for (const m of t.members) v[m.name] = fixJson(m.type, v[m.name]);
      return v;
    }
    default:
      return v;
  }
}

/** Does decoding a value of type t need the reader's JSON (vlen data, references, odd ints)? */
function needsJson(t) {
  switch (t.class) {
    case 'integer': case 'bitfield': return !!t.precision || ![1, 2, 4, 8].includes(t.size);
    case 'float': return ![2, 4, 8].includes(t.size);
    case 'string': case 'opaque': return false;
    case 'enum': return needsJson(t.base);
    case 'array': return needsJson(t.base);
    case 'compound': return t.members.some((m) => needsJson(m.type));
    default: return true; // vlen, reference, time, unknown
  }
}

/** A string of a fixed-size string type from its bytes (padding as the type says). */
function fixedString(t, u8, off) {
  let end = off + t.size;
  if (t.pad === 'nullterm') {
    const z = u8.indexOf(0, off);
    if (z >= 0 && z < end) end = z;
  } else {
    while (end > off && (u8[end - 1] === 0 || (t.pad === 'spacepad' && u8[end - 1] === 32))) end--;
  }
  return utf8.decode(u8.subarray(off, end));
}

/**
 * Decoder of one element of type t from native-order bytes (DataView dv, byte offset off);
 * j is the element as the reader's JSON gave it (only when needsJson(t)).
 */
function decoder(t) {
  switch (t.class) {
    case 'integer': case 'bitfield': case 'enum': {
      const b = t.class === 'enum' ? t.base : t;
      if (needsJson(b)) return (dv, off, j) => (typeof j === 'string' && t.class === 'enum' ? t.members[j] : j);
      const s = b.class === 'integer' && b.signed;
      switch (b.size) {
        case 1: return s ? (dv, off) => dv.getInt8(off) : (dv, off) => dv.getUint8(off);
        case 2: return s ? (dv, off) => dv.getInt16(off, true) : (dv, off) => dv.getUint16(off, true);
        case 4: return s ? (dv, off) => dv.getInt32(off, true) : (dv, off) => dv.getUint32(off, true);
        default: return s ? (dv, off) => dv.getBigInt64(off, true) : (dv, off) => dv.getBigUint64(off, true);
      }
    }
    case 'float':
      if (t.size === 4) return (dv, off) => dv.getFloat32(off, true);
      if (t.size === 8) return (dv, off) => dv.getFloat64(off, true);
      if (t.size === 2) return (dv, off) => halfToNumber(dv.getUint16(off, true));
      return (dv, off, j) => fixJson(t, j);
    case 'string':
      return (dv, off) => fixedString(t, new Uint8Array(dv.buffer, dv.byteOffset), off);
    case 'opaque':
      return (dv, off) => new Uint8Array(dv.buffer.slice(dv.byteOffset + off, dv.byteOffset + off + t.size));
    case 'compound': {
      const ms = t.members.map((m) => [m.name, m.offset, decoder(m.type)]);
      return (dv, off, j) => {
        const o = {};
        for (const [name, mo, d] of ms) o[name] = d(dv, off + mo, j && j[name]);
        return o;
      };
    }
    case 'array': {
      const d = decoder(t.base), bs = t.base.size, dims = t.dims;
      const build = (dv, off, j, k) => {
        const inner = prod(dims.slice(k + 1)) * bs, out = new Array(dims[k]);
        for (let i = 0; i < dims[k]; i++) out[i] = k + 1 < dims.length ? build(dv, off + i * inner, j && j[i], k + 1) : d(dv, off + i * bs, j && j[i]);
        return out;
      };
      return (dv, off, j) => build(dv, off, j, 0);
    }
    default:
      return (dv, off, j) => fixJson(t, j);
  }
}

/** h5wasm-style Metadata of a type (plus shape fields when given). */
function typeMetadata(t) {
  const m = { type: CLASS[t.class] ?? -1, size: t.size, signed: false, littleEndian: t.order !== 'be', vlen: false };
  switch (t.class) {
    case 'integer': case 'bitfield': m.signed = !!t.signed; break;
    case 'string': m.littleEndian = false; m.cset = t.cset === 'utf-8' ? 1 : 0; m.strpad = { nullterm: 0, nullpad: 1, spacepad: 2 }[t.pad]; break;
    case 'vlen':
      if (t.string) {
        m.type = CLASS.string; m.vlen = true; m.cset = t.cset === 'utf-8' ? 1 : 0;
      } else m.vlen_type = typeMetadata(t.base);
      break;
    case 'compound':
      m.compound_type = { nmembers: t.members.length, members: t.members.map((x) => ({ ...typeMetadata(x.type), name: x.name, offset: x.offset, shape: [] })) };
      break;
    case 'enum':
      Object.assign(m, { signed: !!t.base.signed, littleEndian: t.base.order !== 'be' });
      m.enum_type = { type: CLASS[t.base.class], nmembers: Object.keys(t.members).length, members: { ...t.members } };
      break;
    case 'array':
      m.array_type = { ...typeMetadata(t.base), shape: t.dims, total_size: prod(t.dims) };
      break;
    case 'reference': m.ref_type = t.ref; break;
  }
  return m;
}

/** h5wasm dtype string (`<f`, `>i`, `<Q`, `S10`, `S`) or a descriptor object for compound/array. */
function typeDtype(t) {
  const o = (x) => (x.order === 'be' ? '>' : '<');
  switch (t.class) {
    case 'integer': case 'bitfield': {
      const f = INT_FMT[intWidth(t.size)];
      return o(t) + (t.signed ? f : f.toUpperCase());
    }
    case 'enum': return typeDtype(t.base);
    case 'float': return o(t) + (FLOAT_FMT[t.size] || 'f');
    case 'string': return `S${t.size}`;
    case 'vlen': return t.string ? 'S' : { vlen_type: typeMetadata(t.base) };
    case 'compound': return { compound_type: typeMetadata(t).compound_type };
    case 'array': return { array_type: typeMetadata(t).array_type };
    case 'reference': return t.ref === 'region' ? 'RegionReference' : 'Reference';
    default: return 'unknown';
  }
}

/** numpy typestr (`<f4`, `>i8`, `|u1`, `|S10`, `|O` for vlen, `|V24` for compounds). */
function typeNumpy(t) {
  const o = (x) => (x.size === 1 ? '|' : x.order === 'be' ? '>' : '<');
  switch (t.class) {
    case 'integer': case 'bitfield': return o(t) + (t.signed ? 'i' : 'u') + intWidth(t.size);
    case 'enum': return typeNumpy(t.base);
    case 'float': return o(t) + 'f' + t.size;
    case 'string': return `|S${t.size}`;
    case 'vlen': return '|O';
    default: return `|V${t.size}`;
  }
}

/** Is this the enum h5py writes for numpy bools (FALSE = 0, TRUE = 1)? */
const isBoolEnum = (t) => t.class === 'enum' && Object.keys(t.members).length === 2 && t.members.FALSE === 0 && t.members.TRUE === 1;

/** JSON-compatible copy of a value (typed arrays -> arrays, bigint -> number, bool enums -> booleans). */
function toJsonValue(v, t) {
  if (v === null || v === undefined) return v;
  if (v instanceof Reference) return v.path;
  if (typeof v === 'bigint') return Number(v);
  if (ArrayBuffer.isView(v) && !(v instanceof Uint8Array && t && t.class === 'opaque')) {
    const a = Array.from(v, (x) => (typeof x === 'bigint' ? Number(x) : x));
    return t && isBoolEnum(t) ? a.map((x) => !!x) : a;
  }
  if (typeof v === 'number' && t && isBoolEnum(t)) return !!v;
  if (Array.isArray(v)) return v.map((x) => toJsonValue(x, t && t.class === 'compound' ? t : undefined));
  if (typeof v === 'object' && !(v instanceof Uint8Array)) {
    const o = {};
    for (const k of Object.keys(v)) o[k] = toJsonValue(v[k]);
    return o;
  }
  return v;
}

/** Nest a flat array (or typed array) into arrays of the given shape. */
function nest(flat, shape) {
  if (!shape || shape.length === 0) return flat;
  const a = Array.isArray(flat) ? flat : Array.from(flat);
  const build = (off, k) => {
    if (k === shape.length - 1) return a.slice(off, off + shape[k]);
    const inner = prod(shape.slice(k + 1)), out = [];
    for (let i = 0; i < shape[k]; i++) out.push(build(off + i * inner, k + 1));
    return out;
  };
  return build(0, 0);
}

// ---------------------------------------------------------------- writing: dtypes and data

/**
 * A datatype for writing, in the reader's JSON form ({class, size, signed, ...}), from an
 * h5wasm or numpy dtype string (`<f`, `<f4`, `<i8`, `>I`, `u1`, `S10`, `S`, `bool`), a compound
 * as `[[name, dtype], [name, dtype, shape]...]`, a dataset's metadata/dtype object, or such a
 * JSON type itself. Numbers are always stored little-endian ('>' gives the same values).
 */
function parseDtype(d) {
  if (d && typeof d === 'object' && !Array.isArray(d) && d.class) return d;
  if (d && typeof d === 'object' && !Array.isArray(d)) return parseDtype(fromMetadata(d));
  if (Array.isArray(d)) {
    let off = 0;
    const members = d.map((m) => {
      if (!Array.isArray(m) || typeof m[0] !== 'string') throw new TypeError('a compound dtype is [[name, dtype], [name, dtype, shape], ...]');
      let type = parseDtype(m[1]);
      if (type.class === 'vlen') throw err(UNSUPPORTED, `compound member '${m[0]}': variable-length strings inside compounds cannot be written; use a fixed size such as 'S16'`);
      if (m[2] !== undefined) {
        const dims = [].concat(m[2]);
        type = { class: 'array', size: type.size * prod(dims), dims, base: type };
      }
      const r = { name: m[0], offset: off, type };
      off += type.size;
      return r;
    });
    return { class: 'compound', size: off, members };
  }
  if (typeof d !== 'string') throw new TypeError(`dtype must be a string or a compound list, got ${typeof d}`);
  if (d === 'bool' || d === '?' || d === '|b1' || d === 'b1') return { class: 'enum', size: 1, base: { class: 'integer', size: 1, signed: true, order: 'le' }, members: { FALSE: 0, TRUE: 1 } };
  let m = /^([<>|=]?)([bhiqefdBHIQ])$/.exec(d);
  let order, kind, size;
  if (m) {
    order = m[1];
    const c = m[2];
    if ('efd'.includes(c)) (kind = 'f'), (size = { e: 2, f: 4, d: 8 }[c]);
    else (kind = c === c.toLowerCase() ? 'i' : 'u'), (size = { b: 1, h: 2, i: 4, q: 8 }[c.toLowerCase()]);
  } else if ((m = /^([<>|=]?)([iuf])([1248])$/.exec(d))) {
    [, order, kind] = m;
    size = Number(m[3]);
  } else if ((m = /^\|?([SU])(\d*)$/.exec(d))) {
    if (!m[2]) return { class: 'vlen', size: 16, string: true, cset: 'utf-8' };
    return { class: 'string', size: Number(m[2]), cset: m[1] === 'U' ? 'utf-8' : 'ascii', pad: 'nullpad' };
  } else throw new TypeError(`'${d}' is not a dtype cairn knows (e.g. '<f4', '<d', '<i8', 'u1', 'S10', 'S', 'bool', or [[name, dtype], ...])`);
  if (kind === 'f' && size === 1) throw new TypeError(`'${d}' is not a float size`);
  return kind === 'f' ? { class: 'float', size, order: 'le' } : { class: 'integer', size, signed: kind === 'i', order: 'le' };
}

/** A write dtype from Dataset.metadata or .dtype ({compound_type}, {array_type}), to copy datasets (enums need metadata). */
function fromMetadata(m) {
  if (m.compound_type) return m.compound_type.members.map((x) => [x.name, fromMetadata(x)]);
  if (m.array_type) {
    const base = parseDtype(fromMetadata(m.array_type)), dims = m.array_type.shape;
    return { class: 'array', size: base.size * prod(dims), dims, base };
  }
  if (m.enum_type) return { class: 'enum', size: m.size, base: parseDtype(fromMetadata({ ...m, enum_type: undefined, type: 0 })), members: { ...m.enum_type.members } };
  if (m.type === 0) return '<' + (m.signed ? INT_FMT[m.size] : INT_FMT[m.size].toUpperCase());
  if (m.type === 1) return `<f${m.size}`;
  if (m.type === 3) return m.vlen ? 'S' : `S${m.size}`;
  throw new TypeError(`cannot write data of HDF5 class ${m.type} from its metadata`);
}

const DTYPE_OF_ARRAY = [[Float32Array, '<f4'], [Float64Array, '<f8'], [Int8Array, '<i1'], [Uint8Array, '<u1'], [Uint8ClampedArray, '<u1'], [Int16Array, '<i2'], [Uint16Array, '<u2'], [Int32Array, '<i4'], [Uint32Array, '<u4'], [BigInt64Array, '<i8'], [BigUint64Array, '<u8']];

/** A dtype for data given without one (as h5wasm guesses: ints -> <i4, numbers -> <f8, strings -> vlen). */
function guessDtype(flat) {
  for (const [C, d] of DTYPE_OF_ARRAY) if (flat instanceof C) return d;
  if (flat.length && flat.every((x) => typeof x === 'string')) return 'S';
  if (flat.length && flat.every((x) => typeof x === 'boolean')) return 'bool';
  if (flat.every((x) => typeof x === 'bigint')) return flat.length ? '<i8' : '<f8';
  if (flat.every((x) => typeof x === 'number')) return flat.every(Number.isInteger) && flat.every((x) => x >= -(2 ** 31) && x < 2 ** 31) ? '<i4' : '<f8';
  if (flat.length && flat.every((x) => x && typeof x === 'object' && !Array.isArray(x))) throw new TypeError('compound data needs a dtype: [[name, dtype], ...]');
  throw new TypeError('cannot guess a dtype for this data; pass dtype');
}

/**
 * Flatten data (scalar, array, nested arrays, typed array) and infer its shape. Elements of an
 * array type are nested arrays themselves; compound elements are objects (or, in a 1-D list,
 * h5wasm-style rows given as arrays in member order).
 */
function flatten(data, t) {
  if (ArrayBuffer.isView(data)) return { flat: data, shape: [data.length] };
  const r = flattenAny(data, t);
  // references read from a file are written back as their paths (strings), as before they had a class
  if (r.flat.some((x) => x instanceof Reference)) r.flat = r.flat.map(refPath);
  return r;
}
function flattenAny(data, t) {
  if (!Array.isArray(data)) return { flat: [data], shape: [] };
  let dims;
  if (t && t.class === 'compound') dims = Array.isArray(data[0]) && !data[0].some((x) => x && typeof x === 'object' && !Array.isArray(x)) && !Array.isArray(data[0][0]) ? 1 : depthOf(data);
  else dims = depthOf(data) - (t && t.class === 'array' ? t.dims.length : 0);
  if (dims <= 0) return { flat: [data], shape: [] };
  const shape = [];
  for (let cur = data, k = 0; k < dims; k++, cur = cur[0]) shape.push(cur.length);
  return { flat: dims > 1 ? data.flat(dims - 1) : data, shape };
}
const depthOf = (a) => (Array.isArray(a) ? 1 + (a.length ? depthOf(a[0]) : 0) : 0);

/** Bytes of fixed-size string s: UTF-8, cut at a character boundary to n bytes, NUL-padded. */
function fixedBytes(s, n, out, off) {
  const b = enc.encode(String(s));
  let k = Math.min(b.length, n);
  while (k < b.length && k > 0 && (b[k] & 0xc0) === 0x80) k--;
  out.set(b.subarray(0, k), off);
}

/** Round half to even (x >= 0). */
function roundEven(x) {
  const f = Math.floor(x), d = x - f;
  return d > 0.5 || (d === 0.5 && f % 2 === 1) ? f + 1 : f;
}
/** IEEE half-precision bits of a number, rounded to nearest even straight from the double (no
** double rounding through float32); overflow gives infinity, NaN a quiet NaN. */
function numberToHalf(v) {
  if (Number.isNaN(v)) return 0x7e00;
  const sign = v < 0 || Object.is(v, -0) ? 0x8000 : 0, a = Math.abs(v);
  if (a < 2 ** -14) return sign | roundEven(a * 2 ** 24); // subnormal (1024 is the smallest normal: same bits)
  if (a >= 65520) return sign | 0x7c00; // 65504 is the largest half; halfway and above round to infinity
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  let m = roundEven((a / 2 ** e - 1) * 1024);
  if (m === 1024) (m = 0), e++;
  return sign | ((e + 15) << 10) | m;
}

/** Element encoder for writing: (DataView, offset, value) for fixed-size types. */
function encoder(t) {
  switch (t.class) {
    case 'integer': {
      const s = t.signed;
      switch (t.size) {
        case 1: return s ? (dv, o, v) => dv.setInt8(o, Number(v)) : (dv, o, v) => dv.setUint8(o, Number(v));
        case 2: return s ? (dv, o, v) => dv.setInt16(o, Number(v), true) : (dv, o, v) => dv.setUint16(o, Number(v), true);
        case 4: return s ? (dv, o, v) => dv.setInt32(o, Number(v), true) : (dv, o, v) => dv.setUint32(o, Number(v), true);
        default: return s ? (dv, o, v) => dv.setBigInt64(o, BigInt(v), true) : (dv, o, v) => dv.setBigUint64(o, BigInt(v), true);
      }
    }
    case 'enum': {
      const e = encoder(t.base);
      return (dv, o, v) => e(dv, o, typeof v === 'boolean' ? +v : typeof v === 'string' ? t.members[v] ?? NaN : v);
    }
    case 'float':
      if (t.size === 2) return (dv, o, v) => dv.setUint16(o, numberToHalf(Number(v)), true);
      return t.size === 4 ? (dv, o, v) => dv.setFloat32(o, Number(v), true) : (dv, o, v) => dv.setFloat64(o, Number(v), true);
    case 'string': return (dv, o, v) => fixedBytes(v, t.size, new Uint8Array(dv.buffer, dv.byteOffset), o);
    case 'array': {
      const e = encoder(t.base), n = prod(t.dims), bs = t.base.size;
      return (dv, o, v) => {
        const flat = Array.isArray(v) ? v.flat(t.dims.length - 1) : Array.from(v);
        if (flat.length !== n) throw new RangeError(`array member needs ${n} values, got ${flat.length}`);
        for (let i = 0; i < n; i++) e(dv, o + i * bs, flat[i]);
      };
    }
    case 'compound': {
      const ms = t.members.map((m) => [m.name, m.offset, encoder(m.type)]);
      return (dv, o, v) => {
        if (Array.isArray(v)) ms.forEach(([, mo, e], i) => e(dv, o + mo, v[i])); // h5wasm-style rows
        else
          for (const [name, mo, e] of ms) {
            if (!(name in v)) throw new TypeError(`compound value is missing member '${name}'`);
            e(dv, o + mo, v[name]);
          }
      };
    }
    default: throw err(UNSUPPORTED, `writing ${t.class} data from JS is not supported`);
  }
}

const FAST = { ...(typeof Float16Array === 'function' ? { '<f2': Float16Array } : {}), '<f4': Float32Array, '<f8': Float64Array, '<i1': Int8Array, '<u1': Uint8Array, '<i2': Int16Array, '<u2': Uint16Array, '<i4': Int32Array, '<u4': Uint32Array, '<i8': BigInt64Array, '<u8': BigUint64Array };

/** Encode flat values of type t (not vlen) into little-endian bytes. */
function encodeFixed(t, flat) {
  const key = (t.class === 'float' ? '<f' : t.class === 'integer' ? (t.signed ? '<i' : '<u') : '') + t.size;
  const C = FAST[key];
  if (C && flat instanceof C) return new Uint8Array(flat.buffer, flat.byteOffset, flat.byteLength);
  if (C && !(C === BigInt64Array || C === BigUint64Array) && (Array.isArray(flat) || ArrayBuffer.isView(flat)) && !(flat instanceof BigInt64Array || flat instanceof BigUint64Array)) {
    const a = C.from(flat, Number);
    return new Uint8Array(a.buffer);
  }
  const out = new Uint8Array(t.size * flat.length), dv = new DataView(out.buffer), e = encoder(t);
  for (let i = 0; i < flat.length; i++) e(dv, i * t.size, flat[i]);
  return out;
}

// ---------------------------------------------------------------- the module

/**
 * The h5 namespace over an API made by makeApi (api.js). `options.openPath(path, mode)` turns a
 * string path into a file object (the Node entry passes one that makes NodeFiles).
 */
export function makeH5(api, options = {}) {
  const { init } = api;
  const I = api._internal;

  /** nb bytes at offset of a file object into a new ArrayBuffer (readInto when it has one). */
  function readExtent(file, offset, nb, path) {
    // Node: no zero-filling of memory the read overwrites whole (checked below); large Buffers
    // own their ArrayBuffer (offset 0, exact length)
    const big = nb >= 1 << 20 && typeof globalThis.Buffer?.allocUnsafeSlow === 'function';
    const out = big ? globalThis.Buffer.allocUnsafeSlow(nb) : new Uint8Array(nb);
    let got;
    if (typeof file.readInto === 'function') {
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
    return out.buffer;
  }

  /** Scratch wasm allocations, all freed by free() (call it in a finally). */
  class Arena {
    constructor(M) { this.M = M; this.ptrs = []; }
    alloc(n) {
      const p = this.M._malloc(Math.max(1, n));
      if (!p) throw err(2, `out of memory allocating ${n} bytes in WebAssembly`);
      this.ptrs.push(p);
      return p;
    }
    str(s) {
      const n = this.M.lengthBytesUTF8(s) + 1, p = this.alloc(n);
      this.M.stringToUTF8(s, p, n);
      return p;
    }
    bytes(u8) {
      const p = this.alloc(u8.length);
      this.M.HEAPU8.set(u8, p);
      return p;
    }
    f64(arr) {
      const p = this.alloc(8 * arr.length);
      this.M.HEAPF64.set(arr, p >> 3);
      return p;
    }
    /** Take a C string allocated by the core (cairn_malloc) out of the heap and free it. */
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
    constructor(file, mode, { durable = true, owned = false } = {}) {
      const M = module();
      this.M = M;
      this.file = file;
      this.owned = owned;
      this.mode = mode;
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
      const a = new Arena(M);
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
      const M = this.M, a = new Arena(M);
      try {
        this.rf = I.openFile(this.file);
        const pp = a.alloc(4);
        const rc = M._cairn_h5_open(this.rf, 0, pp);
        if (rc) throw I.fail(rc, `open ${this.file.name || ''}`.trim());
        this.h = M.HEAPU32[pp >> 2];
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
      const a = new Arena(M);
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
      const M = this.M, a = new Arena(M);
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
    /** Read values of a dataset or attribute; sel is null or [[start, step, count], ...]. */
    read(path, attr, sel) {
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
        const raw = (mt, size) => {
          const nb = n * size;
          if (!sel && attr === null && nb >= 65536) { // large contiguous data: file -> result array, no copy through wasm
            const pe = a.alloc(16), r = M._cairn_em_h5_raw_extent(o, mt, pe);
            if (r < 0) I.check(-r, `read ${path}`);
            if (r === 1 && M.HEAPF64[(pe >> 3) + 1] === nb) return readExtent(this.file, M.HEAPF64[pe >> 3], nb, path);
          }
          const p = a.alloc(nb);
          if (n) I.check(M._cairn_em_h5_read(o, rank, pSel, mt, p, nb), `read ${path}${attr === null ? '' : '@' + attr}`);
          const out = new Uint8Array(nb); // new + set copies about twice as fast as HEAPU8.slice in V8
          out.set(M.HEAPU8.subarray(p, p + nb));
          return out.buffer;
        };
        const b = t.class === 'enum' ? t.base : t;
        if ((b.class === 'integer' || b.class === 'bitfield') && b.size <= 8) {
          const [C, mt] = INT_CTOR[intWidth(b.size) + (b.class === 'integer' && b.signed ? 's' : 'u')];
          return ret(new C(raw(mt, C.BYTES_PER_ELEMENT)));
        }
        if (b.class === 'float') {
          if (b.size === 4 || b.size === 2) return ret(new Float32Array(raw(MT.F32, 4)));
          return ret(new Float64Array(raw(MT.F64, 8)));
        }
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
      const M = this.M, a = new Arena(M);
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

  /** Build a cairn_h5w_type for t; the caller frees it with _cairn_h5w_type_free. */
  function buildType(M, t, a) {
    let p = 0;
    switch (t.class) {
      case 'integer': p = M._cairn_h5w_type_int(t.size, t.signed ? 1 : 0); break;
      case 'float': p = M._cairn_h5w_type_float(t.size); break;
      case 'string': p = M._cairn_h5w_type_string(t.size, { nullterm: 0, nullpad: 1, spacepad: 2 }[t.pad] ?? 1, t.cset === 'utf-8' ? 1 : 0); break;
      case 'vlen':
        if (!t.string) throw err(UNSUPPORTED, 'the writer has variable-length strings but no other variable-length sequences');
        p = M._cairn_h5w_type_vstring(t.cset === 'ascii' ? 0 : 1);
        break;
      case 'enum': {
        const base = buildType(M, t.base, a);
        try {
          p = M._cairn_h5w_type_enum(base);
          if (!p) break;
          for (const [name, v] of Object.entries(t.members)) {
            const pv = a.bytes(encodeFixed(t.base, [v]));
            const rc = M._cairn_h5w_type_enum_insert(p, a.str(name), pv);
            if (rc) {
              M._cairn_h5w_type_free(p);
              throw I.fail(rc, `enum member ${name}`);
            }
          }
        } finally {
          M._cairn_h5w_type_free(base);
        }
        break;
      }
      case 'array': {
        const base = buildType(M, t.base, a);
        try {
          p = M._cairn_em_h5w_type_array(base, t.dims.length, a.f64(t.dims));
        } finally {
          M._cairn_h5w_type_free(base);
        }
        break;
      }
      case 'compound': {
        p = M._cairn_h5w_type_compound(t.size);
        if (!p) break;
        for (const m of t.members) {
          let mt = 0;
          try {
            mt = buildType(M, m.type, a);
            const rc = M._cairn_h5w_type_insert(p, a.str(m.name), m.offset, mt);
            if (rc) throw I.fail(rc, `compound member ${m.name}`);
          } catch (e) {
            M._cairn_h5w_type_free(p);
            throw e;
          } finally {
            if (mt) M._cairn_h5w_type_free(mt);
          }
        }
        break;
      }
      default: throw err(UNSUPPORTED, `cannot write ${t.class} data`);
    }
    if (!p) throw I.fail(2, `datatype ${JSON.stringify(t)}`);
    return p;
  }

  /** Put values of type t into the heap; returns the data pointer (arena-owned). */
  function putData(M, t, flat, a) {
    if (t.class === 'vlen') {
      // Each element a NUL-terminated UTF-8 string; the data is an array of 32-bit pointers.
      const parts = Array.from(flat, (s) => {
        if (typeof s !== 'string') throw new TypeError(`string data expected, got ${typeof s}`);
        return enc.encode(s);
      });
      const total = parts.reduce((x, b) => x + b.length + 1, 0), base = a.alloc(total), ptrs = a.alloc(4 * parts.length);
      let off = base;
      parts.forEach((b, i) => {
        M.HEAPU8.set(b, off);
        M.HEAPU8[off + b.length] = 0;
        M.HEAPU32[(ptrs >> 2) + i] = off;
        off += b.length + 1;
      });
      return ptrs;
    }
    return a.bytes(encodeFixed(t, flat));
  }

  /** Resolve data + dtype + shape for create_dataset / create_attribute. */
  function prepare(data, shape, dtype) {
    let t = dtype === undefined || dtype === null ? null : parseDtype(dtype);
    const f = flatten(data, t);
    if (!t) t = parseDtype(guessDtype(f.flat));
    const finalShape = shape === undefined || shape === null ? f.shape : [].concat(shape).map(Number);
    if (prod(finalShape) !== f.flat.length) throw err(RANGE, `shape [${finalShape}] holds ${prod(finalShape)} elements but the data has ${f.flat.length}`);
    return { t, flat: f.flat, shape: finalShape };
  }

  /** The writer's filter spec ("shuffle,deflate:6,fletcher32") from h5py/h5wasm-style options. */
  function filterSpec({ compression, compression_opts, shuffle, fletcher32, filters }) {
    if (filters) return filters;
    const out = [];
    if (shuffle) out.push('shuffle');
    if (compression !== undefined && compression !== null && compression !== false) {
      let name = String(compression).toLowerCase(), level = Array.isArray(compression_opts) ? compression_opts[0] : compression_opts;
      if (typeof compression === 'number') {
        // h5wasm: a number alone is a gzip level; with compression_opts it is a filter id.
        if (compression_opts === undefined) (name = 'gzip'), (level = compression);
        else name = { 1: 'gzip', 32015: 'zstd', 32004: 'lz4' }[compression] || `filter ${compression}`;
      }
      if (name === 'gzip' || name === 'deflate') out.push(`deflate:${level ?? 4}`);
      else if (name === 'zstd') out.push(level === undefined ? 'zstd' : `zstd:${level}`);
      else if (name === 'lz4') out.push('lz4');
      else throw err(UNSUPPORTED, `compression '${compression}' (cairn writes gzip, zstd and lz4)`);
    }
    if (fletcher32) out.push('fletcher32');
    return out.length ? out.join(',') : null;
  }

  /** Base of every object in a file: attributes, parent, root. */
  class HasAttrs {
    constructor(state, path) {
      Object.defineProperty(this, '_s', { value: state }); // hidden: keeps console.log readable
      /** Absolute path of the object. */
      this.path = path;
    }
    /** Attributes by name, like h5wasm: described at once (one call into the core for all), values read when accessed. */
    get attrs() {
      const out = {}, s = this._s, path = this.path, tab = s.attrsAll(path), names = tab.names;
      for (let i = 0; i < names.length; i++) {
        const name = names[i];
        // one that did not describe (or a name plain assignment would misread) stays a getter,
        // so its error comes when it is used
        if (name !== '__proto__' && tab.ok(i)) out[name] = new Attribute(s, path, name, null, tab, i);
        else Object.defineProperty(out, name, { get: () => new Attribute(s, path, name), enumerable: true, configurable: true });
      }
      return out;
    }
    /** The value of attribute `name` (json_compatible: plain JSON values). */
    get_attribute(name, json_compatible = false) {
      let a;
      try {
        a = new Attribute(this._s, this.path, name);
      } catch (e) {
        if (e instanceof CairnError && e.codeName === 'NOTFOUND') return null;
        throw e;
      }
      return json_compatible ? a.json_value : a.value;
    }
    /** Create or overwrite an attribute: data, optional shape and dtype (guessed like h5wasm). */
    create_attribute(name, data, shape = null, dtype = null) {
      const s = this._s, w = s.writer(), M = s.M, a = new Arena(M);
      const { t, flat, shape: sh } = prepare(data, shape, dtype);
      let ty = 0;
      try {
        ty = buildType(M, t, a);
        I.check(M._cairn_em_h5w_attr(w, a.str(this.path), a.str(name), ty, sh.length, a.f64(sh), putData(M, t, flat, a)), `attribute ${this.path}@${name}`);
        s.dirty = true;
      } finally {
        if (ty) M._cairn_h5w_type_free(ty);
        a.free();
      }
    }
    /** Remove an attribute (CairnError NOTFOUND if absent). Returns 0 like h5wasm. */
    delete_attribute(name) {
      const s = this._s, w = s.writer(), a = new Arena(s.M);
      try {
        I.check(s.M._cairn_h5w_attr_delete(w, a.str(this.path), a.str(name)), `delete attribute ${this.path}@${name}`);
        s.dirty = true;
        return 0;
      } finally {
        a.free();
      }
    }
    /** The object an object reference (a Reference, or its path) points to, like h5wasm's. */
    dereference(ref) {
      return this.root.get(refPath(ref));
    }
    /** The root group. */
    get root() { return new Group(this._s, '/'); }
    /** The parent group. */
    get parent() { return new Group(this._s, dirname(this.path)); }
  }

  /** An attribute of a group, dataset or committed datatype. */
  class Attribute {
    #s;
    #d;
    #t; // AttrTable and index when listed by attrs (description and value made on first use)
    #i;
    constructor(state, path, name, d = null, tab = null, i = -1) {
      this.#s = state; // private fields: hidden from console.log, and cheaper than defineProperty
      this.#t = tab;
      this.#i = i;
      this.#d = d || (tab ? null : state.describe(path, name));
      /** Path of the object the attribute is on. */
      this.path = path;
      this.name = name;
    }
    get _s() { return this.#s; }
    get _d() { return this.#d || (this.#d = this.#t.desc(this.#i)); }
    /** h5wasm-style metadata: {type, size, signed, littleEndian, vlen, shape, total_size, ...}. */
    get metadata() { return { ...typeMetadata(this._d.type), shape: this.shape, maxshape: this.shape, chunks: null, total_size: prod(this.shape || [0]) }; }
    get dtype() { return typeDtype(this._d.type); }
    /** numpy typestr of the element type (cairn extension): `<f4`, `|S10`, `|O`... */
    get np_dtype() { return typeNumpy(this._d.type); }
    /** Shape ([] for a scalar, null for an empty (NULL) dataspace). */
    get shape() { return this._d.space === 2 ? null : this._d.shape; }
    /** The value: a typed array, string[], objects for compounds; a single value for scalars. */
    get value() {
      const t = this.#t;
      this.#s.reader(); // commits pending edits first (which marks the table stale)
      if (t && !t.stale) {
        const v = t.value(this.#i);
        if (v !== NOVAL) return v;
      }
      return this._s.read(this.path, this.name, null);
    }
    get json_value() { return toJsonValue(this.value, this._d.type); }
    /** Nested arrays following the shape. */
    to_array() {
      const v = this.json_value;
      return Array.isArray(v) ? nest(v, this.shape) : v;
    }
  }

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
    /** Every path below this group (relative to it), depth first, as h5wasm's paths(). */
    paths() {
      const out = [];
      const walk = (g, rel, depth) => {
        for (const l of this._s.describe(g, null, { links: true }).links) {
          const r = rel ? `${rel}/${l.name}` : l.name;
          out.push(r);
          if (l.type === 0 && depth < 64) {
            const full = joinPath(g, l.name);
            let d = null;
            try { d = this._s.describe(full); } catch { /* unreadable: listed, not entered */ }
            if (d && d.kind === 1) walk(full, r, depth + 1);
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
      if (s.writerShape(full)) return new Dataset(s, full); // a dataset, known without committing
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
      if (d.kind === 2) return new Dataset(s, full);
      if (d.kind === 3) return new Datatype(s, full);
      return null;
    }
    /** Create a group (intermediate groups too, like h5py); returns it. */
    create_group(name) {
      const s = this._s, w = s.writer(), full = joinPath(this.path, name), a = new Arena(s.M);
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
      const s = this._s, w = s.writer(), full = joinPath(this.path, name), a = new Arena(s.M);
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
      const s = this._s, w = s.writer(), full = joinPath(this.path, name), a = new Arena(s.M);
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
      const s = this._s, w = s.writer(), M = s.M, full = joinPath(this.path, name), a = new Arena(M);
      let t, flat = null, sh;
      if (data === null || data === undefined) {
        if (!shape || !dtype) throw new TypeError('create_dataset without data needs shape and dtype');
        t = parseDtype(dtype);
        sh = [].concat(shape).map(Number);
      } else ({ t, flat, shape: sh } = prepare(data, shape, dtype));
      let ty = 0;
      try {
        ty = buildType(M, t, a);
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
      return new Dataset(s, full);
    }
    toString() { return `Group(path=${this.path})`; }
  }

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
      const sel = shape.map((n, i) => {
        const r = (ranges && ranges[i]) || [];
        const step = r[2] ?? 1;
        if (!Number.isInteger(step) || step < 1) throw new RangeError(`slice step ${step} must be a positive integer`);
        const norm = (x, dflt) => (x === null || x === undefined ? dflt : Math.min(n, Math.max(0, x < 0 ? n + x : x)));
        const start = norm(r[0], 0), end = norm(r[1], n);
        return [start, step, end > start ? Math.ceil((end - start) / step) : 0];
      });
      return this._s.read(this.path, null, sel);
    }
    /**
     * Append rows along the first dimension of a resizable dataset (cairn extension: the
     * writer grows datasets this way). `data` holds whole rows, flat or nested.
     */
    append(data) {
      const s = this._s, w = s.writer(), M = s.M, a = new Arena(M);
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
      const sel = shape.map((n, i) => {
        const r = (ranges && ranges[i]) || [];
        const step = r[2] ?? 1;
        if (!Number.isInteger(step) || step < 1) throw new RangeError(`write_slice step ${step} must be a positive integer`);
        const norm = (x, dflt) => (x === null || x === undefined ? dflt : Math.min(n, Math.max(0, x < 0 ? n + x : x)));
        const start = norm(r[0], 0), end = norm(r[1], n);
        return [start, step, end > start ? Math.ceil((end - start) / step) : 0];
      });
      const { flat } = flatten(data, t);
      const count = prod(sel.map((x) => x[2]));
      if (flat.length !== count) throw err(RANGE, `write_slice: the selection holds ${count} elements, the data ${flat.length}`);
      if (count === 0) return;
      const a = new Arena(M);
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
      const a = new Arena(M);
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

  /** A committed (named) datatype. */
  class Datatype extends HasAttrs {
    constructor(state, path) {
      super(state, path);
      this.type = 'Datatype';
    }
    get metadata() { return typeMetadata(this._s.describe(this.path).type); }
    get dtype() { return typeDtype(this._s.describe(this.path).type); }
  }

  /** A soft link whose target does not exist. */
  class BrokenSoftLink {
    constructor(target) { this.target = target; this.type = 'BrokenSoftLink'; }
  }
  /** A link to an object in another file (not followed). */
  class ExternalLink {
    constructor(filename, obj_path) { this.filename = filename; this.obj_path = obj_path; this.type = 'ExternalLink'; }
  }

  /**
   * An HDF5 file over a file object. Modes: 'r' read-only; 'a' / 'r+' edit (an empty file is
   * created); 'w' create, discarding what was there; 'x' create, failing if not empty.
   * The module must be loaded: use `await File.open(...)` or `await h5.ready` first.
   */
  class File extends Group {
    constructor(file, mode = 'r', { durable = true } = {}) {
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
        st = new FileState(file, mode, { durable, owned });
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
      const s = this._s, h = s.reader(), a = new Arena(s.M);
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

  const h5 = {
    File, Group, Dataset, Attribute, Datatype, BrokenSoftLink, ExternalLink, Reference,
    ACCESS_MODES: { r: 'r', a: 'a', 'r+': 'r+', w: 'w', x: 'x' },
    /** Resolves when the WebAssembly module is loaded. */
    get ready() { return init().then(() => undefined); },
  };
  return h5;
}
