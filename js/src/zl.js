// 2026-11-29
// js/src/zl.js - the OpenZL-format codec in the npm package (core/include/cairn/zl.h, glue in
// bindings/em/em_zl.c): typed data goes through transform graphs (delta, transpose, bit-pack...) into
// self-describing OpenZL frames (format 26) that OpenZL's own decoder reads, and any such frame
// decodes back to its bytes.
//
//   const frame = await compress(new Uint32Array(ids));          // profile 'le-u32' inferred
//   const bytes = await decompress(frame);                        // Uint8Array
//   const ids2 = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
import { scope, asBytes } from './util.js';

/** Profiles cairn knows, as OpenZL's CLI names them. */
export const PROFILES = ['serial', 'u8', 'le-u16', 'le-u32', 'le-u64', 'le-i64', 'csv'];

/** Graphs that can be named in compress({ graph }), as OpenZL's standard graphs (fse and field_lz: decode only). */
export const GRAPHS = ['auto', 'store', 'zstd', 'lz4', 'huffman', 'entropy', 'flatpack', 'bitpack'];

/** The profile a typed array implies (little-endian, as typed arrays are on every platform JS runs on). */
export function inferProfile(data) {
  if (typeof BigInt64Array !== 'undefined') {
    if (data instanceof BigUint64Array) return 'le-u64';
    if (data instanceof BigInt64Array) return 'le-i64';
  }
  if (data instanceof Uint16Array || data instanceof Int16Array) return 'le-u16';
  if (data instanceof Uint32Array || data instanceof Int32Array || data instanceof Float32Array) return 'le-u32';
  if (data instanceof Float64Array) return 'le-u64';
  return 'serial'; // Uint8Array, Int8Array, DataView, ArrayBuffer, string
}

/** @param {object} ctx the package internals (api.js): init, M, openFile, fail, CairnError */
export function makeZl(ctx) {
  const { CairnError } = ctx;
  const misuse = (msg) => new CairnError(7, msg);

  function profileNumber(M, s, name) {
    const p = M._cairn_zl_profile_from_name(s.str(String(name)));
    if (p < 0) throw misuse(`unknown profile ${JSON.stringify(name)} (${PROFILES.join(', ')}, records:W1,W2,...)`);
    return p;
  }
  // Field widths of a 'records:4,2,8' profile or a fields option, or null for other profiles.
  function recordFields(profile, fields) {
    let f = fields;
    if (f === undefined && typeof profile === 'string' && profile.startsWith('records:')) f = profile.slice(8).split(',').map(Number);
    if (f === undefined) return null;
    if (!Array.isArray(f) || !f.length || f.length > 64 || !f.every((w) => Number.isInteger(w) && w >= 1 && w <= 4096))
      throw misuse('record fields must be 1..64 widths of 1..4096 bytes, e.g. { fields: [4, 2, 8] } or profile "records:4,2,8"');
    return f;
  }

  function u32(M, s, a) {
    const p = s.alloc(4 * a.length);
    M.HEAPU32.set(a, p >> 2);
    return p;
  }

  /**
   * Compress a typed array (or bytes / a string) to one OpenZL frame. The profile is inferred
   * from the array type unless given: Uint8Array 'serial', Uint16Array 'le-u16',
   * Uint32Array/Int32Array 'le-u32', BigUint64Array 'le-u64', BigInt64Array 'le-i64'; text
   * tables want 'csv'; fixed-width records `{ fields: [4, 2, 8] }` (or profile 'records:4,2,8',
   * as the CLI) compress one column per field, where the codec has them. level (1..22) is that
   * of the zstd stages: 19 by default (as the CLI), 1..3 for speed. The frame equals
   * `cairn compress -p PROFILE` output byte for byte when both link the same zstd.
   * @param {ArrayBufferView|ArrayBuffer|string} data
   * graph names one graph for the whole input (GRAPHS) instead of the profile's selection.
   * @param {{profile?: string, level?: number, fields?: number[], graph?: string}} [options]
   * @returns {Promise<Uint8Array>}
   */
  async function compress(data, { profile, level = 19, fields, graph } = {}) {
    await ctx.init();
    const bytes = asBytes(data);
    if (!bytes) throw misuse('compress() takes a typed array, an ArrayBuffer or a string');
    if (!Number.isInteger(level) || level < 1 || level > 22) throw misuse('level must be an integer in 1..22');
    const M = ctx.M, s = scope(M, CairnError);
    try {
      const rec = recordFields(profile, fields);
      const prof = rec ? -1 : profileNumber(M, s, profile ?? inferProfile(data));
      const bound = M._cairn_zl_compress_bound(bytes.length);
      if (!bound) throw new CairnError(9, `input of ${bytes.length} bytes is too large for one buffer; use compressFile`);
      const p = s.bytes(bytes), out = s.alloc(bound), pn = s.alloc(4);
      let g = 0;
      if (graph !== undefined && graph !== 'auto') {
        if (rec) throw misuse('graph and record fields do not combine');
        g = M._cairn_zl_graph_from_name(s.str(String(graph)));
        if (g < 0) throw misuse(`unknown graph ${JSON.stringify(graph)} (${GRAPHS.join(', ')})`);
      }
      const rc = rec
        ? M._cairn_em_zl_compress_records(u32(M, s, rec), rec.length, level, p, bytes.length, out, bound, pn)
        : g
          ? M._cairn_zl_compress_graph(prof, g, level, p, bytes.length, out, bound, pn)
          : M._cairn_zl_compress_level(prof, level, p, bytes.length, out, bound, pn);
      if (rc) throw ctx.fail(rc, `compress (${profile ?? inferProfile(data)})`);
      return M.HEAPU8.slice(out, out + M.HEAPU32[pn >> 2]);
    } finally {
      s.free();
    }
  }

  /**
   * Decode one OpenZL frame (cairn's or OpenZL's own) to its bytes, both checksums verified.
   * Frames that declare more than maxSize bytes (default 1 GiB) are refused (CairnError LIMIT).
   * @param {ArrayBufferView|ArrayBuffer} frame
   * @param {{maxSize?: number}} [options]
   * @returns {Promise<Uint8Array>}
   */
  // One decompression context for every decompress() call of this module (JS runs them one at
  // a time): it keeps zstd's decoder between frames instead of setting one up per frame. Made
  // on first use, never freed (a fixed ~100 KB of the wasm heap once a frame with a zstd stage
  // was decoded); 0 if it could not be made, then each call uses a temporary one.
  let dctx = -1;
  async function decompress(frame, { maxSize = 2 ** 30 } = {}) {
    await ctx.init();
    const bytes = asBytes(frame);
    if (!bytes || typeof frame === 'string') throw misuse('decompress() takes the frame as bytes (Uint8Array or ArrayBuffer)');
    const M = ctx.M, s = scope(M, CairnError);
    try {
      const p = s.bytes(bytes), psize = s.alloc(8);
      let rc = M._cairn_em_zl_size(p, bytes.length, psize);
      if (rc) throw ctx.fail(rc, 'decompress');
      const size = M.HEAPF64[psize >> 3];
      if (size > maxSize) throw new CairnError(13, `decompress: the frame declares ${size} bytes, more than maxSize (${maxSize}); raise maxSize or use decompressFile`);
      const out = s.alloc(size), pn = s.alloc(4);
      if (dctx < 0) dctx = M._cairn_zl_dctx_create();
      rc = M._cairn_zl_decompress_dctx(dctx, p, bytes.length, out, size, pn);
      if (rc) throw ctx.fail(rc, 'decompress');
      return M.HEAPU8.slice(out, out + M.HEAPU32[pn >> 2]);
    } finally {
      s.free();
    }
  }

  function zlFile(compressIt, profile, level, input, output, fields) {
    const M = ctx.M, s = scope(M, CairnError);
    let fi = 0, fo = 0;
    try {
      const rec = compressIt ? recordFields(profile, fields) : null;
      const prof = compressIt && !rec ? profileNumber(M, s, profile) : 0;
      const sizes = s.alloc(16);
      fi = ctx.openFile(input);
      fo = ctx.openFile(output);
      const rc = rec
        ? M._cairn_em_zl_records_file(u32(M, s, rec), rec.length, level, fi, fo, sizes)
        : M._cairn_em_zl_file(compressIt ? 1 : 0, prof, level, fi, fo, sizes);
      if (rc) throw ctx.fail(rc, compressIt ? 'compressFile' : 'decompressFile');
      return { bytesIn: M.HEAPF64[sizes >> 3], bytesOut: M.HEAPF64[(sizes >> 3) + 1] };
    } finally {
      if (fi) M._cairn_file_close(fi);
      if (fo) M._cairn_file_close(fo);
      s.free();
    }
  }

  /**
   * Stream a file object into an OpenZL frame in another, in bounded memory (4 MiB segments);
   * the frame is the same as compress() of the whole input. Returns {bytesIn, bytesOut}.
   * @param {{profile?: string, level?: number}} [options] profile defaults to 'serial'
   */
  async function compressFile(input, output, { profile = 'serial', level = 19, fields } = {}) {
    await ctx.init();
    return zlFile(true, profile, level, input, output, fields);
  }
  /** Stream a frame from one file object to its bytes in another, in bounded memory. */
  async function decompressFile(input, output) {
    await ctx.init();
    return zlFile(false, null, 0, input, output);
  }

  /**
   * A frame's anatomy (cairn_zl_info): format, checksums, outputs, dictionary bundle, and per
   * chunk the decoder graph (codec ID and name, header size, stream numbers) and every stream
   * (stored or regenerated, type, width, count, bytes, producer and consumer decoder).
   * @returns {Promise<object>} the parsed JSON; {text: true} gives the text form instead
   */
  async function info(frame, { text = false } = {}) {
    await ctx.init();
    const bytes = asBytes(frame);
    if (!bytes || typeof frame === 'string') throw misuse('info() takes the frame as bytes');
    const M = ctx.M, s = scope(M, CairnError);
    try {
      const p = s.bytes(bytes), pz = s.alloc(4), pn = s.alloc(4);
      const rc = M._cairn_zl_info(p, bytes.length, text ? 0 : 1, pz, pn);
      if (rc) throw ctx.fail(rc, 'info');
      const z = M.HEAPU32[pz >> 2], n = M.HEAPU32[pn >> 2];
      const str = new TextDecoder().decode(M.HEAPU8.subarray(z, z + n));
      M._cairn_free(z);
      return text ? str : JSON.parse(str);
    } finally {
      s.free();
    }
  }

  const TYPES = { 1: 'serial', 2: 'struct', 4: 'numeric', 8: 'string' };
  /**
   * Decode a frame of several typed outputs (OpenZL's multi-input compression) or of a string
   * output: [{type, width, count, data: Uint8Array, lengths?: Uint32Array}] in frame order.
   */
  async function decompressMulti(frame) {
    await ctx.init();
    const bytes = asBytes(frame);
    if (!bytes || typeof frame === 'string') throw misuse('decompressMulti() takes the frame as bytes');
    const M = ctx.M, s = scope(M, CairnError);
    try {
      const p = s.bytes(bytes), pa = s.alloc(4), pn = s.alloc(4);
      const rc = M._cairn_zl_decompress_multi(p, bytes.length, pa, pn);
      if (rc) throw ctx.fail(rc, 'decompressMulti');
      const a = M.HEAPU32[pa >> 2], n = M.HEAPU32[pn >> 2], res = [];
      for (let k = 0; k < n; k++) { // cairn_zl_output on wasm32: type, width, n, nb, declared (u64), p, aLen
        const o = a + 40 * k, u = o >> 2;
        const count = M.HEAPU32[u + 2] + M.HEAPU32[u + 3] * 2 ** 32, nb = M.HEAPU32[u + 4] + M.HEAPU32[u + 5] * 2 ** 32;
        const dp = M.HEAPU32[u + 8], lp = M.HEAPU32[u + 9];
        const out = { type: TYPES[M.HEAP32[u]] ?? M.HEAP32[u], width: M.HEAPU32[u + 1], count, data: M.HEAPU8.slice(dp, dp + nb) };
        if (out.type === 'string') out.lengths = lp ? M.HEAPU32.slice(lp >> 2, (lp >> 2) + count) : new Uint32Array(0);
        res.push(out);
      }
      M._cairn_zl_outputs_free(a, n);
      return res;
    } finally {
      s.free();
    }
  }

  return { compress, decompress, compressFile, decompressFile, info, decompressMulti, inferProfile, PROFILES, GRAPHS };
}
