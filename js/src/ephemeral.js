// 2026-12-02
// js/src/ephemeral.js - the ephemeral tier and the decision gate in the npm package
// (core/include/cairn/eph.h and gate.h, glue in bindings/em/em_eph.c):
//
//   const eph = await Ephemeral.open({ capacity: 10000, dim: 384 });
//   eph.set('plan', 'book the flight', { ttlMs: 60000, embedding });   // TTL one minute
//   eph.get('plan');                        // 'book the flight', or null once expired / evicted
//   eph.search(queryEmbedding, { k: 5 });   // [{ key, value, score }], best first
//   eph.promote('plan', mem, { session: 's1' });   // into a Memory (mem.add), returns its id
//
//   await gate('ok thanks');                // { save: false, reason: 'trivial', ... }
//   const obs = await Observer.open({ strategy: 'shift' });
//   obs.observe({ user, assistant }, mem);  // { save, why, saved: { user: id, assistant: id }, ... }
//
// After the async open every method is synchronous. Keys and values are strings (UTF-8) or bytes;
// get() returns a string, getBytes() the bytes. A capacity is required: a set of a new key beyond it
// evicts the least recently used entry. TTLs run on the core's monotonic clock (the package's host).
import { scope, enc, utf8 } from './util.js';

const METRICS = { cosine: 0, ip: 1, l2: 2 };
const STRATEGIES = { every: 0, shift: 1, importance: 2 };
const REASONS = ['pass', 'empty', 'too long', 'trivial', 'short', 'low content'];
const WHY = ['every', 'shift', 'no shift', 'important', 'unimportant', 'gated'];

/** @param {object} ctx the package internals (api.js): init, M, fail, CairnError */
export function makeEphemeral(ctx) {
  const { CairnError } = ctx;
  const misuse = (msg) => new CairnError(7, msg);

  function loaded() {
    if (!ctx.M) throw misuse('the package is not initialised yet: await init() (or any async open) first');
    return ctx.M;
  }

  // One scratch block in the wasm heap for the small calls (out doubles, key, value), grown on
  // demand, so that get/set/delete allocate nothing per call.
  let scratch = 0, scratchCap = 0, scratchM = null;
  const OUT = 256; // bytes of doubles at the start of the scratch block
  function room(M, n) {
    if (scratchM !== M) scratch = 0, scratchCap = 0, scratchM = M;
    if (OUT + n <= scratchCap) return scratch;
    const cap = Math.max(4096, 2 ** Math.ceil(Math.log2(OUT + n)));
    const p = M._malloc(cap);
    if (!p) throw new CairnError(2, `out of memory allocating ${cap} bytes in WebAssembly`);
    if (scratch) M._free(scratch);
    scratch = p, scratchCap = cap;
    return p;
  }
  // Write key (and value) into the scratch block: returns [pKey, nKey, pValue, nValue].
  function putKV(M, key, value) {
    const k = typeof key === 'string' ? null : bytesOf(key, 'key');
    const v = value === undefined ? null : typeof value === 'string' ? null : bytesOf(value, 'value');
    const nkMax = k ? k.length : 3 * key.length, nvMax = value === undefined ? 0 : v ? v.length : 3 * value.length;
    const p = room(M, nkMax + nvMax + 1) + OUT;
    const heap = M.HEAPU8;
    let nk;
    if (k) heap.set(k, p), nk = k.length;
    else nk = enc.encodeInto(key, heap.subarray(p, p + nkMax)).written;
    let nv = 0;
    if (v) heap.set(v, p + nk), nv = v.length;
    else if (value !== undefined) nv = enc.encodeInto(value, heap.subarray(p + nk, p + nk + nvMax)).written;
    return [p, nk, p + nk, nv];
  }
  function bytesOf(x, what) {
    if (x instanceof Uint8Array) return x;
    if (x instanceof ArrayBuffer) return new Uint8Array(x);
    if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
    throw misuse(`${what} must be a string, an ArrayBuffer or a typed array`);
  }
  function f32(x, what) {
    if (x === undefined || x === null) return null;
    if (x instanceof Float32Array) return x;
    if (Array.isArray(x) || ArrayBuffer.isView(x)) return Float32Array.from(x);
    throw misuse(`${what} must be a Float32Array or an array of numbers`);
  }
  function ttl(v, what) {
    if (v === undefined || v === null) return 0;
    if (typeof v !== 'number' || Number.isNaN(v)) throw misuse(`${what} must be a number of ms (Infinity: never)`);
    return v === Infinity ? 1e19 : Math.trunc(v);
  }
  // mem.add with the embedding, or without it when the store refuses it (another dimension, a
  // text-only store), as cairnMemAddEmbeddingOrText does in the core.
  function addTo(mem, rec) {
    if (!mem || typeof mem.add !== 'function') throw misuse('expected a Memory (an object with add())');
    try {
      return mem.add(rec);
    } catch (e) {
      if (!(e instanceof CairnError) || (e.code & 0xff) !== 7 || !rec.embedding) throw e;
      const { embedding, ...rest } = rec;
      return mem.add(rest);
    }
  }

  /** An in-process key-value tier with TTLs, an LRU capacity and optional embedding search. */
  class Ephemeral {
    #h;
    #dim;

    /** @private use Ephemeral.open */
    constructor(h, dim) {
      this.#h = h;
      this.#dim = dim;
    }

    /**
     * @param {{capacity: number, dim?: number, metric?: 'cosine'|'ip'|'l2', defaultTtlMs?: number}} options
     *   capacity: entries kept at most (1..2^26); dim: embedding dimension (0: none); defaultTtlMs: TTL of
     *   a set that gives none (0: never expire).
     */
    static async open(options = {}) {
      await ctx.init();
      return Ephemeral.openSync(options);
    }

    /** open() once the package is initialised (any earlier await of it, e.g. Memory.open): for a
     *  getter such as mem.ephemeral. Throws if the WebAssembly module is not loaded yet. */
    static openSync(options = {}) {
      const M = loaded();
      const { capacity, dim = 0, metric, defaultTtlMs = 0 } = options;
      if (!Number.isInteger(capacity) || capacity < 0) throw misuse('capacity must be a positive integer (entries)');
      if (!Number.isInteger(dim) || dim < 0) throw misuse('dim must be a non-negative integer');
      if (metric !== undefined && !(metric in METRICS)) throw misuse(`metric must be one of ${Object.keys(METRICS).join(', ')}`);
      const p = room(M, 0);
      const rc = M._cairn_em_eph_open(capacity, dim, METRICS[metric ?? 'cosine'], ttl(defaultTtlMs, 'defaultTtlMs'), p);
      if (rc) throw ctx.fail(rc, 'Ephemeral.open');
      return new Ephemeral(M.HEAPU32[p >> 2], dim);
    }

    #handle() {
      if (!this.#h) throw misuse('the ephemeral tier is closed');
      return this.#h;
    }

    /**
     * Store value under key (replacing what it held). ttlMs: ms until it expires (0: the tier's
     * default; Infinity: never; negative: refused as a TTL in the past). embedding: dim floats.
     */
    set(key, value, { ttlMs, embedding } = {}) {
      const h = this.#handle(), M = ctx.M;
      if (value === undefined || value === null) throw misuse('set() needs a value (a string or bytes)');
      const emb = f32(embedding, 'embedding');
      let pEmb = 0;
      const s = emb ? scope(M, CairnError) : null;
      try {
        if (emb) pEmb = s.f32(emb);
        const [pk, nk, pv, nv] = putKV(M, key, value);
        const rc = M._cairn_em_eph_set(h, pk, nk, pv, nv, ttl(ttlMs, 'ttlMs'), pEmb, emb ? emb.length : 0);
        if (rc) throw ctx.fail(rc, 'Ephemeral.set');
      } finally {
        if (s) s.free();
      }
      return this;
    }

    #get(key) {
      const h = this.#handle(), M = ctx.M;
      const [pk, nk] = putKV(M, key);
      const out = scratch;
      const rc = M._cairn_em_eph_get(h, pk, nk, out);
      if (rc === 5) return null;
      if (rc) throw ctx.fail(rc, 'Ephemeral.get');
      const o = M.HEAPF64.subarray(out >> 3, (out >> 3) + 4);
      return { p: o[0], n: o[1], emb: o[2], ttl: o[3] };
    }

    /** The value as a string, or null (absent, expired or evicted). Makes it the most recently used. */
    get(key) {
      const r = this.#get(key);
      return r ? utf8.decode(ctx.M.HEAPU8.subarray(r.p, r.p + r.n)) : null;
    }

    /** The value's bytes (a copy), or null. */
    getBytes(key) {
      const r = this.#get(key);
      return r ? ctx.M.HEAPU8.slice(r.p, r.p + r.n) : null;
    }

    /** { value, embedding (a copy, or null), ttlLeftMs (null: never) }, or null. */
    entry(key) {
      const r = this.#get(key);
      if (!r) return null;
      const M = ctx.M;
      return {
        value: utf8.decode(M.HEAPU8.subarray(r.p, r.p + r.n)),
        embedding: r.emb ? M.HEAPF32.slice(r.emb >> 2, (r.emb >> 2) + this.#dim) : null,
        ttlLeftMs: r.ttl < 0 ? null : r.ttl,
      };
    }

    has(key) {
      return this.#get(key) !== null;
    }

    /** Remove key; false if it was absent or expired. */
    delete(key) {
      const h = this.#handle(), M = ctx.M;
      const [pk, nk] = putKV(M, key);
      const rc = M._cairn_eph_delete(h, pk, nk);
      if (rc === 5) return false;
      if (rc) throw ctx.fail(rc, 'Ephemeral.delete');
      return true;
    }

    /** Give key a new TTL (as set's ttlMs); false if it was absent. */
    expire(key, ttlMs) {
      const h = this.#handle(), M = ctx.M;
      const [pk, nk] = putKV(M, key);
      const rc = M._cairn_em_eph_expire(h, pk, nk, ttl(ttlMs, 'ttlMs'));
      if (rc === 5) return false;
      if (rc) throw ctx.fail(rc, 'Ephemeral.expire');
      return true;
    }

    /** Remove every expired entry now; returns how many. */
    purge() {
      const h = this.#handle(), M = ctx.M, p = room(M, 0);
      const rc = M._cairn_eph_purge(h, p);
      if (rc) throw ctx.fail(rc, 'Ephemeral.purge');
      return M.HEAPU32[p >> 2];
    }

    /** Remove every entry. */
    clear() {
      ctx.M._cairn_eph_clear(this.#handle());
    }

    /** The k entries whose embeddings score best against query (dim floats): [{ key, value, score }]. */
    search(query, { k = 10 } = {}) {
      const h = this.#handle(), M = ctx.M;
      const q = f32(query, 'query');
      if (!q) throw misuse('search() takes a query embedding');
      if (!Number.isInteger(k) || k < 1) throw misuse('k must be a positive integer');
      const s = scope(M, CairnError);
      try {
        const pq = s.f32(q), aHit = s.alloc(k * M._cairn_em_eph_hit_size()), aOut = s.alloc(48 * k), pn = s.alloc(4);
        const rc = M._cairn_em_eph_search(h, pq, q.length, k, aHit, aOut, pn);
        if (rc) throw ctx.fail(rc, 'Ephemeral.search');
        const n = M.HEAPU32[pn >> 2], o = M.HEAPF64.subarray(aOut >> 3, (aOut >> 3) + 6 * n), heap = M.HEAPU8;
        const hits = [];
        for (let i = 0; i < n; i++) {
          const b = 6 * i;
          hits.push({
            key: utf8.decode(heap.subarray(o[b], o[b] + o[b + 1])),
            value: utf8.decode(heap.subarray(o[b + 2], o[b + 2] + o[b + 3])),
            score: o[b + 5],
          });
        }
        return hits;
      } finally {
        s.free();
      }
    }

    /**
     * Promote an entry into a Memory: mem.add({ ...record, text: value, embedding }) (the embedding
     * only when the store takes it). remove: delete the entry once added. Returns the memory's id;
     * durable after mem.commit(). Throws CairnError NOTFOUND if the key is absent or expired.
     */
    promote(key, mem, record = {}, { remove = false } = {}) {
      const e = this.entry(key);
      if (!e) throw new CairnError(5, `Ephemeral.promote: no such key ${JSON.stringify(String(key))} (absent or expired)`);
      const rec = { ...record, text: e.value };
      if (e.embedding) rec.embedding = e.embedding;
      else delete rec.embedding;
      const id = addTo(mem, rec);
      if (remove) this.delete(key);
      return id;
    }

    /** Counters: count, capacity, dim, embedded, bytes, sets, hits, misses, deletes, evicted, expired. */
    stats() {
      const h = this.#handle(), M = ctx.M, p = room(M, 0);
      const rc = M._cairn_em_eph_stats(h, p);
      if (rc) throw ctx.fail(rc, 'Ephemeral.stats');
      const a = M.HEAPF64.subarray(p >> 3, (p >> 3) + 11);
      return {
        count: a[0], capacity: a[1], dim: a[2], embedded: a[3], bytes: a[4], sets: a[5], hits: a[6],
        misses: a[7], deletes: a[8], evicted: a[9], expired: a[10],
      };
    }

    /** Entries held (expired ones not yet reclaimed included). */
    get size() {
      return this.stats().count;
    }

    close() {
      if (this.#h) ctx.M._cairn_eph_close(this.#h);
      this.#h = 0;
    }
  }

  // The gate's and the observer's options as the double array em_eph.c reads.
  function gateConfig(o = {}) {
    if (o === null || typeof o !== 'object') throw misuse('gate options must be an object');
    const num = (v, what) => {
      if (v === undefined || v === null) return 0;
      if (typeof v !== 'number' || !Number.isFinite(v)) throw misuse(`${what} must be a finite number`);
      return v;
    };
    if (o.strategy !== undefined && !(o.strategy in STRATEGIES)) throw misuse(`strategy must be one of ${Object.keys(STRATEGIES).join(', ')}`);
    return [num(o.minBytes, 'minBytes'), num(o.minContentWords, 'minContentWords'), num(o.minContentRatio, 'minContentRatio'),
      num(o.trivialMaxWords, 'trivialMaxWords'), num(o.maxBytes, 'maxBytes'), num(o.scanBytes, 'scanBytes'), o.noGate ? 1 : 0,
      STRATEGIES[o.strategy ?? 'every'], num(o.shiftThreshold, 'shiftThreshold'), num(o.window, 'window'),
      num(o.importanceThreshold, 'importanceThreshold'), num(o.dim, 'dim')];
  }
  const gateResult = (a, i) => ({
    save: a[i] !== 0, reason: REASONS[a[i + 1]], bytes: a[i + 2], words: a[i + 3], content: a[i + 4], acks: a[i + 5], ratio: a[i + 6],
  });

  /**
   * The decision gate: would `text` be worth saving? { save, reason: 'pass' | 'empty' | 'too long' |
   * 'trivial' | 'short' | 'low content', bytes, words, content, acks, ratio }. Options: minBytes (12),
   * minContentWords (2), minContentRatio (0.25; negative: off), trivialMaxWords (6), maxBytes, scanBytes.
   */
  async function gate(text, options) {
    await ctx.init();
    return gateSync(text, options);
  }
  /** gate() once the package is initialised: for a static such as Memory.gate. */
  function gateSync(text, options) {
    if (typeof text !== 'string') throw misuse('gate() takes a string');
    const M = loaded(), s = scope(M, CairnError);
    try {
      const n = M.lengthBytesUTF8(text), p = s.alloc(n + 1);
      M.stringToUTF8(text, p, n + 1);
      const cfg = s.f64(gateConfig(options)), out = s.alloc(7 * 8);
      const rc = M._cairn_em_gate_check(p, n, cfg, out);
      if (rc) throw ctx.fail(rc, 'gate');
      return gateResult(M.HEAPF64.subarray(out >> 3, (out >> 3) + 7), 0);
    } finally {
      s.free();
    }
  }

  /** Applies a save strategy and the gate to each exchange of a conversation. */
  class Observer {
    #g;
    #dim;
    /** @private use Observer.open */
    constructor(g, dim) {
      this.#g = g;
      this.#dim = dim;
    }

    /**
     * @param {{strategy?: 'every'|'shift'|'importance', shiftThreshold?: number, window?: number,
     *   importanceThreshold?: number, dim?: number}} [options] plus the gate's options (gate()).
     */
    static async open(options = {}) {
      await ctx.init();
      return Observer.openSync(options);
    }

    /** open() once the package is initialised (see Ephemeral.openSync). */
    static openSync(options = {}) {
      const M = loaded(), s = scope(M, CairnError);
      try {
        const pp = s.alloc(4);
        const rc = M._cairn_em_gate_open(s.f64(gateConfig(options)), pp);
        if (rc) throw ctx.fail(rc, 'Observer.open');
        return new Observer(M.HEAPU32[pp >> 2], options.dim || 256);
      } finally {
        s.free();
      }
    }

    /**
     * Observe one exchange { user?, assistant?, userEmbedding?, assistantEmbedding?, importance?,
     * session?, time? }. With a Memory, each side that is to be saved is added (role 'user' /
     * 'assistant', tier 0); without one, nothing is saved. Returns { save, why, shift (null unless
     * on-shift), importance, user, assistant (the gate on each side), saved: { user, assistant } (ids
     * or null) }.
     */
    observe(ex, mem) {
      if (!this.#g) throw misuse('the observer is closed');
      if (!ex || typeof ex !== 'object') throw misuse('observe() takes { user, assistant, ... }');
      const M = ctx.M, s = scope(M, CairnError);
      const ue = f32(ex.userEmbedding, 'userEmbedding'), ae = f32(ex.assistantEmbedding, 'assistantEmbedding');
      const nEmb = ue ? ue.length : ae ? ae.length : 0;
      if (ue && ae && ue.length !== ae.length) throw misuse('userEmbedding and assistantEmbedding differ in length');
      const str = (v, what) => {
        if (v === undefined || v === null) return null;
        if (typeof v !== 'string') throw misuse(`${what} must be a string`);
        return v;
      };
      const user = str(ex.user, 'user'), assistant = str(ex.assistant, 'assistant');
      const imp = typeof ex.importance === 'number' ? ex.importance : NaN;
      let r;
      try {
        const out = s.alloc(20 * 8);
        const rc = M._cairn_em_gate_observe(this.#g, s.str(user), s.str(assistant), ue ? s.f32(ue) : 0, ae ? s.f32(ae) : 0, nEmb, imp, out);
        if (rc) throw ctx.fail(rc, 'Observer.observe');
        const a = M.HEAPF64.subarray(out >> 3, (out >> 3) + 20);
        r = {
          save: a[0] !== 0, why: WHY[a[1]], shift: Number.isNaN(a[2]) ? null : a[2], importance: a[3],
          user: gateResult(a, 6), assistant: gateResult(a, 13), saved: { user: null, assistant: null },
          saveUser: a[4] !== 0, saveAssistant: a[5] !== 0,
        };
      } finally {
        s.free();
      }
      if (mem && r.save) {
        const base = { session: ex.session ?? undefined, importance: r.importance, time: ex.time ?? undefined, tier: 0 };
        if (r.saveUser) r.saved.user = addTo(mem, { ...base, text: user, role: ex.userRole ?? 'user', embedding: ue ?? undefined });
        if (r.saveAssistant) r.saved.assistant = addTo(mem, { ...base, text: assistant, role: ex.assistantRole ?? 'assistant', embedding: ae ?? undefined });
      }
      delete r.saveUser, delete r.saveAssistant;
      return r;
    }

    close() {
      if (this.#g) ctx.M._cairn_gate_close(this.#g);
      this.#g = 0;
    }
  }

  gate.sync = gateSync;
  return { Ephemeral, Observer, gate };
}
