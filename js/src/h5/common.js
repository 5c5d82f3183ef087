// 2026-12-02
// js/src/h5/common.js - what every part of the HDF5 API (js/src/h5.js and js/src/h5/*.js)
// shares: status codes, the type-class and memory-type numbering of cairn/h5.h, the UTF-8
// codecs, CairnError construction, HDF5 path helpers and the wasm allocation scope.
import { CairnError } from '../api.js';
import { Scope, utf8, enc } from '../util.js';

export const MISUSE = 7, READONLY = 10, TYPE = 12, RANGE = 9, UNSUPPORTED = 8;
export const CORRUPT = 4, LIMIT = 13;
export const CLASS = { integer: 0, float: 1, time: 2, string: 3, bitfield: 4, opaque: 5, compound: 6, reference: 7, enum: 8, vlen: 9, array: 10 };
// cairn_h5_mtype: NATIVE, I8, U8, I16, U16, I32, U32, I64, U64, F32, F64
export const MT = { NATIVE: 0, I8: 1, U8: 2, I16: 3, U16: 4, I32: 5, U32: 6, I64: 7, U64: 8, F32: 9, F64: 10 };
export const INT_CTOR = { '1s': [Int8Array, MT.I8], '1u': [Uint8Array, MT.U8], '2s': [Int16Array, MT.I16], '2u': [Uint16Array, MT.U16], '4s': [Int32Array, MT.I32], '4u': [Uint32Array, MT.U32], '8s': [BigInt64Array, MT.I64], '8u': [BigUint64Array, MT.U64] };
export const INT_FMT = { 1: 'b', 2: 'h', 4: 'i', 8: 'q' };
export const FLOAT_FMT = { 2: 'e', 4: 'f', 8: 'd' };
// memory type -> typed array (cairn_h5_mtype numbering, as MT)
export const MT_CTOR = [null, Int8Array, Uint8Array, Int16Array, Uint16Array, Int32Array, Uint32Array, BigInt64Array, BigUint64Array, Float32Array, Float64Array];

export { utf8, enc };
export const err = (code, msg) => new CairnError(code, msg);

/** Join and normalise an HDF5 path ("/a//b/" -> "/a/b"; relative names are under base). */
export function joinPath(base, name) {
  const full = name.startsWith('/') ? name : `${base}/${name}`;
  const parts = full.split('/').filter((p) => p && p !== '.');
  return '/' + parts.join('/');
}
export const dirname = (p) => (p.lastIndexOf('/') <= 0 ? '/' : p.slice(0, p.lastIndexOf('/')));
export const basename = (p) => p.slice(p.lastIndexOf('/') + 1);
export const prod = (a) => a.reduce((x, y) => x * y, 1);

/** Integer type size rounded up to a JS typed array width (3-byte ints read as 4 bytes...). */
export function intWidth(size) {
  return size <= 1 ? 1 : size <= 2 ? 2 : size <= 4 ? 4 : 8;
}

/** Scratch wasm allocations of one call, all freed by free() (call it in a finally). */
export const arena = (M) => new Scope(M, CairnError);
