// 2026-12-02
// js/src/h5/types.js - reading HDF5 types: the Reference class, element decoders from the
// reader's type descriptions (JSON of cairn_em_h5_describe), h5wasm Metadata and dtype strings,
// numpy typestrs, and JSON-compatible / nested copies of values.
import { CLASS, INT_FMT, FLOAT_FMT, utf8, prod, intWidth } from './common.js';

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
export const refPath = (x) => (x instanceof Reference ? x.path : x);

/** The reader's JSON spells NaN and infinities as strings, and object references as paths; give
 * numbers back for float types and Reference objects for references. */
export function fixJson(t, v) {
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
export function needsJson(t) {
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
export function decoder(t) {
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
export function typeMetadata(t) {
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
export function typeDtype(t) {
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
export function typeNumpy(t) {
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
export function toJsonValue(v, t) {
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
export function nest(flat, shape) {
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
