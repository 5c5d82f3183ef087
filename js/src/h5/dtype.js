// 2026-12-02
// js/src/h5/dtype.js - writing HDF5 data: dtypes (h5wasm/numpy strings, compound lists, metadata)
// to the reader's JSON type form, shape inference and flattening, element encoders to
// little-endian bytes, the writer's filter spec, and the wasm side: cairn_h5w_type objects and
// data put into the heap for cairn_h5w calls.
import { UNSUPPORTED, RANGE, INT_FMT, enc, err, prod } from './common.js';
import { Reference, refPath } from './types.js';

/**
 * A datatype for writing, in the reader's JSON form ({class, size, signed, ...}), from an
 * h5wasm or numpy dtype string (`<f`, `<f4`, `<i8`, `>I`, `u1`, `S10`, `S`, `bool`), a compound
 * as `[[name, dtype], [name, dtype, shape]...]`, a dataset's metadata/dtype object, or such a
 * JSON type itself. Numbers are always stored little-endian ('>' gives the same values).
 */
export function parseDtype(d) {
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
export function flatten(data, t) {
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

/** Resolve data + dtype + shape for create_dataset / create_attribute. */
export function prepare(data, shape, dtype) {
  let t = dtype === undefined || dtype === null ? null : parseDtype(dtype);
  const f = flatten(data, t);
  if (!t) t = parseDtype(guessDtype(f.flat));
  const finalShape = shape === undefined || shape === null ? f.shape : [].concat(shape).map(Number);
  if (prod(finalShape) !== f.flat.length) throw err(RANGE, `shape [${finalShape}] holds ${prod(finalShape)} elements but the data has ${f.flat.length}`);
  return { t, flat: f.flat, shape: finalShape };
}

/** The writer's filter spec ("shuffle,deflate:6,fletcher32") from h5py/h5wasm-style options. */
export function filterSpec({ compression, compression_opts, shuffle, fletcher32, filters }) {
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

// ---------------------------------------------------------------- the wasm side

/** Build a cairn_h5w_type for t (I: api._internal, for its errors); the caller frees it with
 * _cairn_h5w_type_free. */
export function buildType(I, M, t, a) {
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
      const base = buildType(I, M, t.base, a);
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
      const base = buildType(I, M, t.base, a);
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
          mt = buildType(I, M, m.type, a);
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
export function putData(M, t, flat, a) {
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
