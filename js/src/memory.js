// 2026-11-29
// js/src/memory.js - agent memory in the npm package: `Memory` over cairn's C store
// (core/include/cairn/mem.h, glue in bindings/em/em_mem.c). A memory is a text plus an embedding,
// who (session, role) and when (time), a tier, an importance and free JSON metadata; search is
// vector, BM25 or hybrid (reciprocal rank fusion), with filters applied inside it; the default
// mode 'auto' is hybrid with a query embedding, BM25 without one.
//
//   const mem = await Memory.open(file?, { dim: 384 });   // file: MemoryFile, NodeFile, OpfsFile...
//   const id = mem.add({ text: 'I moved to Lisbon in May', session: 's1', role: 'user' });
//   mem.commit();                                          // durable after this returns
//   mem.search('where do I live?', { k: 5, mode: 'hybrid', filter: { session: 's1' } });
//
// After the async open every method is synchronous (the work happens in WebAssembly). Without an
// embedding, texts and queries go through the built-in embedder: signed feature hashing of words
// and character n-grams. It captures WORD AND SPELLING OVERLAP, NOT MEANING; pass embeddings
// from a real model (Float32Array of the store's dimension) for semantic search.
import { scope, cstr, storeFileArg, utf8 } from './util.js';

const MODES = { auto: 0, vector: 1, bm25: 2, hybrid: 3 }; // CAIRN_MEM_* (cairn/mem.h)
const METRICS = { cosine: 0, ip: 1, l2: 2 };
const FUSIONS = { rrf: 0, weighted: 1 };
const INDEXES = { auto: 0, flat: 1, f16: 2, int8: 3, ivf: 4, ivfpq: 5 };
const INDEX_NAMES = Object.keys(INDEXES);
const DISK = { f32: 0, f16: 1, int8: 2 };
const MAX_K = 10000;

/** @param {object} ctx the package internals (api.js): init, M, openFile, fail, CairnError */
export function makeMemory(ctx) {
  const { CairnError } = ctx;
  const misuse = (msg) => new CairnError(7, msg);
  // A path (Node only): opened here, closed when the store closes.

  function pick(table, value, what, dflt) {
    if (value === undefined || value === null) return dflt;
    if (!(value in table)) throw misuse(`${what} must be one of ${Object.keys(table).join(', ')} (got ${JSON.stringify(value)})`);
    return table[value];
  }
  function ms(v, what) {
    if (v === undefined || v === null) return 0;
    const n = v instanceof Date ? v.getTime() : v;
    if (typeof n !== 'number' || !Number.isFinite(n)) throw misuse(`${what} must be a Date or milliseconds since 1970`);
    return Math.trunc(n);
  }
  function vec(v, what) {
    if (v === undefined || v === null) return null;
    if (v instanceof Float32Array) return v;
    if (Array.isArray(v) || ArrayBuffer.isView(v)) return Float32Array.from(v);
    throw misuse(`${what} must be a Float32Array or an array of numbers`);
  }
  function str(v, what) {
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string') throw misuse(`${what} must be a string`);
    return v;
  }
  // The filter object as the JSON the core parses (cairn_mem_filter_parse); Dates become ms.
  function filterJson(filter) {
    if (filter === undefined || filter === null) return null;
    if (typeof filter === 'string') return filter;
    if (typeof filter !== 'object') throw misuse('filter must be an object such as { session: "s1", tier: [0, 1] }');
    const f = { ...filter };
    for (const key of ['after', 'before']) if (f[key] instanceof Date) f[key] = f[key].getTime();
    return JSON.stringify(f);
  }

  // user / agent / run options ANDed with a filter.
  function scoped(filter, o = {}) {
    const parts = [];
    for (const [k, key] of [['user', 'user'], ['agent', 'agent'], ['run', 'session']]) if (o[k] != null) parts.push({ [key]: str(o[k], k) });
    if (!parts.length) return filter;
    if (filter != null) parts.push(typeof filter === 'string' ? JSON.parse(filter) : filter);
    return parts.length === 1 ? parts[0] : { and: parts };
  }
  function listOptions(o) {
    const out = {};
    const f = scoped(o.filter, o);
    if (f != null) out.filter = JSON.parse(filterJson(f));
    for (const k of ['order', 'desc', 'offset', 'limit', 'history', 'embeddings']) if (o[k] !== undefined) out[k] = o[k];
    if (o.asOf !== undefined) out.asOf = ms(o.asOf, 'asOf');
    return out;
  }
  // A record in the JS shape as the JSON the core reads (cairn_mem_put_json / update_json).
  function recordJson(r, partial = false) {
    if (!r || typeof r !== 'object') throw misuse('a memory is an object { text, embedding?, user?, agent?, run?, session?, role?, time?, ... }');
    const o = {};
    const map = { text: 'text', user: 'user', agent: 'agent', run: 'session', session: 'session', role: 'role', tier: 'tier', importance: 'importance' };
    for (const [k, v] of Object.entries(r)) {
      if (v === undefined) continue;
      if (k in map) o[map[k]] = v;
      else if (k === 'time') o.eventMs = v === null ? 0 : ms(v, 'time');
      else if (k === 'created') o.createdMs = ms(v, 'created');
      else if (k === 'metadata') o.meta = v;
      else if (k === 'embedding') o.embedding = v === null ? null : Array.from(vec(v, 'embedding'));
      else throw misuse(`unknown field '${k}' (text, embedding, user, agent, run, session, role, time, created, tier, importance, metadata)`);
    }
    if (!partial && typeof o.text !== 'string') throw misuse('a memory needs a text');
    return o;
  }
  // The core's JSON record in the JS shape of get().
  function fromJson(j) {
    return {
      id: j.id, version: j.version, text: j.text, user: j.user ?? null, agent: j.agent ?? null, session: j.session ?? null,
      role: j.role ?? null, time: j.eventMs, created: j.createdMs, tier: j.tier, importance: j.importance,
      accessCount: j.accessCount, metadata: j.meta ?? null, validFrom: j.validFromMs, validTo: j.validToMs || null,
      ...(j.embedding ? { embedding: Float32Array.from(j.embedding) } : {}),
    };
  }
  // What an embed callback returned: n vectors of finite numbers.
  function checkVectors(v, n) {
    if (!Array.isArray(v) || v.length !== n) throw misuse(`embed() must return ${n} vector(s) (got ${Array.isArray(v) ? v.length : typeof v})`);
    return v.map((x, i) => {
      const f = vec(x, `embed() vector ${i}`);
      for (let j = 0; j < f.length; j++) if (!Number.isFinite(f[j])) throw new CairnError(12, `embed() vector ${i}: element ${j} is not a finite number`);
      return f;
    });
  }

  /** An agent memory store. Create it with `await Memory.open(...)`. */
  class Memory {
    #h;
    #name;
    #readOnly;
    #graph = null;

    /** @private use Memory.open */
    constructor(handle, name, readOnly) {
      this.#h = handle;
      this.#name = name;
      this.#readOnly = readOnly;
    }

    /**
     * Open or create a store. `file` is a file object (MemoryFile, NodeFile, OpfsFile...; it
     * stays yours to close after mem.close()), or nothing for a store that lives in memory only.
     * An existing store keeps its own dimension and metric.
     * @param {object|string} [file] a file object, or a path in Node (opened here, closed with the store)
     * `disk` is how the file keeps vectors, fixed at creation: 'f32' (exact), 'f16' or 'int8'
     * (a half / a quarter of the bytes; searches then use the decoded values), where the core has it.
     * @param {{dim?: number, metric?: 'cosine'|'ip'|'l2', readOnly?: boolean, noSync?: boolean, textOnly?: boolean,
     *   disk?: 'f32'|'f16'|'int8', busyTimeout?: number}} [options] busyTimeout: ms to wait while another writer
     *   holds the store (default 0: CairnError BUSY at once). Read-only opens never wait: they read beside a writer,
     *   and see the store as of its last commit before the open.
     */
    static async open(file, options = {}) {
      if (file && Object.getPrototypeOf(file) === Object.prototype && typeof file.read !== 'function' && Object.keys(options).length === 0) {
        options = file; // Memory.open({ dim: 64 })
        file = null;
      }
      await ctx.init();
      const M = ctx.M;
      const { dim = 0, metric, readOnly = false, noSync = false, textOnly = false, disk, busyTimeout = 0, embed, model, batchSize = 64 } = options;
      if (embed !== undefined && typeof embed !== 'function') throw misuse('embed must be a function (texts) => vectors (or a promise of them)');
      if (model !== undefined && (typeof model !== 'string' || !model)) throw misuse('model must be a non-empty string');
      if (!Number.isInteger(batchSize) || batchSize < 1) throw misuse('batchSize must be a positive integer');
      if (!Number.isInteger(dim) || dim < 0) throw misuse('dim must be a non-negative integer');
      if (typeof busyTimeout !== 'number' || !(busyTimeout >= 0)) throw misuse('busyTimeout must be a number of ms >= 0');
      const met = pick(METRICS, metric, 'metric', 0);
      let owned;
      // Another writer (a handle in this process or another process) holds the store: wait for
      // it up to busyTimeout ms, as the CLI's --busy-timeout does (1, 2, 5... 100 ms apart).
      for (let t0 = Date.now(), i = 0; ; i++) {
        try {
          ({ file, owned } = storeFileArg(ctx, file, readOnly));
          break;
        } catch (e) {
          if (!(e instanceof CairnError) || (e.code & 0xff) !== 14 || Date.now() - t0 >= busyTimeout) throw e;
          await new Promise((r) => setTimeout(r, [1, 2, 5, 10, 15, 20, 25, 50][i] || 100));
        }
      }
      const s = scope(M, CairnError);
      try {
        const pp = s.alloc(4);
        const f = file ? ctx.openFile(file, owned) : 0; // the store owns the wrapper from here on (and a file it opened)
        const rc = M._cairn_em_mem_open(f, dim, met, readOnly ? 1 : 0, noSync ? 1 : 0, textOnly ? 1 : 0, pick(DISK, disk, 'disk', 0), pp);
        if (rc) throw ctx.fail(rc, `Memory.open${file && file.name ? ' ' + file.name : ''}`);
        const mem = new Memory(M.HEAPU32[pp >> 2], (file && file.name) || 'memory', readOnly);
        mem._embedder = embed ? { embed, batchSize } : null;
        if (model) {
          const rc2 = M._cairn_mem_model(mem.#h, s.str(model));
          if (rc2) {
            const err = ctx.fail(rc2, 'Memory.open (model)');
            mem.close({ commit: false });
            throw err;
          }
        }
        return mem;
      } finally {
        s.free();
      }
    }

    #handle() {
      if (!this.#h) throw misuse(`memory store ${this.#name} is closed`);
      return this.#h;
    }

    /**
     * The store's knowledge graph (a Graph, js/src/kg.js), kept in the store's own file (/graph
     * beside /memory), written at each checkpoint with the memories; delete(id) removes the facts
     * only that memory supported. One per store, closed with it.
     */
    graph() {
      const h = this.#handle();
      if (!this.#graph) this.#graph = ctx.Graph._ofStore(h, this.#name, this.#readOnly);
      return this.#graph;
    }
    /** The graph's canonical entities (mem.graph().entities()). */
    entities() { return this.graph().entities(); }
    /** The graph's facts valid at asOf (mem.graph().facts()). */
    facts(options) { return this.graph().facts(options); }
    /** Entities within depth hops of name (mem.graph().neighbors()). */
    neighbors(name, options) { return this.graph().neighbors(name, options); }
    /** Add facts to the graph, all or none (mem.graph().addFacts()); durable at commit() (a checkpoint). */
    addFacts(facts) { return this.graph().addFacts(facts); }

    /**
     * Add a memory; returns its id (1, 2, 3... in order of addition). Searchable at once,
     * durable after commit(). A failed add changes nothing.
     * @param {string|{text: string, embedding?: Float32Array|number[], session?: string, role?: string,
     *   time?: Date|number, created?: Date|number, tier?: number, importance?: number, metadata?: object}} rec
     * @returns {number}
     */
    add(rec) {
      if (typeof rec === 'string') rec = { text: rec };
      if (this._embedder && rec && typeof rec === 'object' && rec.embedding == null) return this.addMany([rec]).then((ids) => ids[0]);
      if (rec && typeof rec === 'object' && (rec.user != null || rec.agent != null || rec.run != null)) {
        return this.put(rec, { dedup: false }).id; // scoped: through the JSON form (a raw add, no dedup)
      }
      const h = this.#handle();
      if (!rec || typeof rec !== 'object') throw misuse('add() takes { text, embedding?, session?, role?, time?, tier?, importance?, metadata? }');
      const text = str(rec.text, 'text');
      if (text === null) throw misuse('add(): text is required');
      const emb = vec(rec.embedding, 'embedding');
      const tier = rec.tier ?? 0, importance = rec.importance ?? 0;
      if (!Number.isInteger(tier)) throw misuse('tier must be an integer (0..31)');
      if (typeof importance !== 'number') throw misuse('importance must be a number');
      let meta = null;
      if (rec.metadata !== undefined && rec.metadata !== null) {
        if (typeof rec.metadata !== 'object' || Array.isArray(rec.metadata)) throw misuse('metadata must be a plain object');
        meta = JSON.stringify(rec.metadata);
      }
      const created = ms(rec.created, 'created') || Date.now();
      const M = ctx.M, s = scope(M, CairnError);
      try {
        const pId = s.alloc(8);
        const rc = M._cairn_em_mem_add(h, s.str(text), emb ? s.f32(emb) : 0, emb ? emb.length : 0, created, ms(rec.time, 'time'),
          s.str(str(rec.session, 'session')), s.str(str(rec.role, 'role')), tier, importance, s.str(meta), pId);
        if (rc) throw ctx.fail(rc, 'Memory.add');
        return M.HEAPF64[pId >> 3];
      } finally {
        s.free();
      }
    }

    /** Add many memories; returns their ids. All or nothing: if one fails (bad record, out of
     * memory), none is added (cairn_mem_batch_begin / end) and the error is thrown.
     * With an `embed` callback (Memory.open) the texts without an embedding are embedded in batches
     * of `batchSize` and a promise of the ids is returned. */
    addMany(records) {
      const recs = Array.from(records, (r) => (typeof r === 'string' ? { text: r } : r));
      if (!this._embedder) return this.#addAll(recs);
      return this.#withEmbeddings(recs).then((rs) => this.#addAll(rs));
    }

    #addAll(recs) {
      const h = this.#handle(), M = ctx.M;
      const rc = M._cairn_mem_batch_begin(h);
      if (rc) throw ctx.fail(rc, 'Memory.addMany');
      let ids;
      try {
        ids = recs.map((r) => {
          if (this._embedder && (!r || typeof r !== 'object' || r.embedding == null)) throw misuse('addMany(): a memory needs a text');
          return this.add(r);
        });
      } catch (e) {
        M._cairn_mem_batch_end(h, 0); // every add of this call taken back
        throw e;
      }
      M._cairn_mem_batch_end(h, 1);
      return ids;
    }

    // Records with the caller's embeddings filled in where they had none (batched).
    async #withEmbeddings(recs) {
      const { embed, batchSize } = this._embedder;
      const need = recs.map((r, i) => (r && r.embedding == null && typeof r.text === 'string' ? i : -1)).filter((i) => i >= 0);
      const out = recs.map((r) => ({ ...r }));
      for (let b = 0; b < need.length; b += batchSize) {
        const idx = need.slice(b, b + batchSize);
        const vecs = checkVectors(await embed(idx.map((i) => recs[i].text)), idx.length);
        idx.forEach((i, j) => { out[i].embedding = vecs[j]; });
      }
      return out;
    }

    /**
     * Add with dedup: the same normalised text in the same scope (user, agent, session) is not
     * stored twice (the existing id comes back, its access counted); with nearThreshold, a near
     * duplicate is reported and handled by nearPolicy ('keep', 'skip' or 'supersede').
     * @returns {{id: number, version: number, status: 'added'|'exact'|'near_kept'|'near_skipped'|'superseded',
     *   duplicateOf?: number, similarity?: number}} (a promise with an `embed` callback)
     */
    put(rec, { dedup = true, nearThreshold, nearPolicy } = {}) {
      if (typeof rec === 'string') rec = { text: rec };
      if (this._embedder && rec && rec.embedding == null) return this.#withEmbeddings([rec]).then((r) => this.put(r[0], { dedup, nearThreshold, nearPolicy }));
      const opts = { dedup };
      if (nearThreshold !== undefined) opts.nearThreshold = nearThreshold;
      if (nearPolicy !== undefined) opts.nearPolicy = nearPolicy;
      return JSON.parse(this.#callJson('Memory.put', (M, s, pz) => M._cairn_mem_put_json(this.#handle(), s.str(JSON.stringify(recordJson(rec))), s.str(JSON.stringify(opts)), pz)));
    }

    /**
     * Write a new version of memory id with the given fields changed (text, embedding, metadata,
     * time, created, tier, importance, user, agent, session, role); the old one stays in history(id)
     * and in searches with asOf. Returns the new version's id. Unknown or deleted ids: CairnError NOTFOUND.
     */
    update(id, fields) {
      if (!fields || typeof fields !== 'object') throw misuse('update(id, fields) takes an object of the fields to change');
      if (this._embedder && typeof fields.text === 'string' && fields.embedding == null) {
        return Promise.resolve(this._embedder.embed([fields.text])).then((v) => this.update(id, { ...fields, embedding: checkVectors(v, 1)[0] }));
      }
      const M = ctx.M, s = scope(M, CairnError);
      try {
        const pv = s.alloc(8);
        const rc = M._cairn_em_mem_update_json(this.#handle(), id, s.str(JSON.stringify(recordJson(fields, true))), pv);
        if (rc) throw ctx.fail(rc, `Memory.update ${id}`);
        return M.HEAPF64[pv >> 3];
      } finally {
        s.free();
      }
    }

    /** Every version of memory id, oldest first ({...memory, version, validFrom, validTo}). */
    history(id) {
      return JSON.parse(this.#callJson(`Memory.history ${id}`, (M, s, pz) => M._cairn_em_mem_history_json(this.#handle(), id, 0, pz))).map(fromJson);
    }

    /** Forget memory id and its history (gone from the file's bytes at the next checkpoint / close). */
    delete(id) {
      const rc = ctx.M._cairn_em_mem_delete(this.#handle(), id);
      if (rc) throw ctx.fail(rc, `Memory.delete ${id}`);
    }

    /** Forget every memory a filter selects ({} or no filter: all); returns how many. */
    deleteWhere(filter = {}, options = {}) {
      const M = ctx.M, s = scope(M, CairnError);
      try {
        const pn = s.alloc(8);
        const rc = M._cairn_em_mem_delete_where(this.#handle(), s.str(filterJson(scoped(filter, options)) || '{}'), pn);
        if (rc) throw ctx.fail(rc, 'Memory.deleteWhere');
        return M.HEAPF64[pn >> 3];
      } finally {
        s.free();
      }
    }

    /**
     * List memories: { filter, user, agent, run, order: 'id'|'eventMs'|'createdMs'|'importance'|'accessCount',
     * desc, offset, limit, history (every version), asOf, embeddings }.
     */
    list(options = {}) {
      const o = listOptions(options);
      return JSON.parse(this.#callJson('Memory.list', (M, s, pz) => M._cairn_mem_list_json(this.#handle(), s.str(JSON.stringify(o)), pz))).map(fromJson);
    }

    /** Export as JSONL (one line per version, every field; { embeddings: true } for vectors too). */
    export(options = {}) {
      const o = listOptions(options);
      return this.#callJson('Memory.export', (M, s, pz) => M._cairn_em_mem_export(this.#handle(), s.str(JSON.stringify(o)), pz));
    }

    /** Import JSONL (an export or plain records); checked whole first, errors name the line. Returns the count. */
    import(jsonl) {
      if (typeof jsonl !== 'string') throw misuse('import() takes a JSONL string');
      const M = ctx.M, s = scope(M, CairnError);
      try {
        const pn = s.alloc(8);
        const rc = M._cairn_em_mem_import(this.#handle(), s.str(jsonl), M.lengthBytesUTF8(jsonl), pn);
        if (rc) throw ctx.fail(rc, 'Memory.import');
        return M.HEAPF64[pn >> 3];
      } finally {
        s.free();
      }
    }

    /** Rewrite the file with only what it holds: forgotten memories and free space gone, the file shrinks. */
    compact() {
      const rc = ctx.M._cairn_mem_compact(this.#handle());
      if (rc) throw ctx.fail(rc, 'Memory.compact');
    }

    /** One version by its version id (search hits carry it), or null. */
    getVersion(version) {
      if (!Number.isInteger(version) || version < 1) return null;
      try {
        return fromJson(JSON.parse(this.#callJson(`Memory.getVersion ${version}`, (M, s, pz) => M._cairn_em_mem_get_json(this.#handle(), version, 0, 1, pz))));
      } catch (e) {
        if (e instanceof CairnError && (e.code & 0xff) === 5) return null;
        throw e;
      }
    }

    /** @private for the modules that extend Memory (consolidate.js): f(M, scope, pz, handle) */
    _json(what, f) {
      return this.#callJson(what, (M, s, pz) => f(M, s, pz, this.#handle()));
    }

    // Call f(M, scope, pz) that leaves a C string in *pz; returns it (freed).
    #callJson(what, f) {
      const M = ctx.M, s = scope(M, CairnError);
      try {
        const pz = s.alloc(4);
        M.HEAPU32[pz >> 2] = 0;
        const rc = f(M, s, pz);
        const z = M.HEAPU32[pz >> 2];
        const out = z ? cstr(M, z) : '';
        if (z) M._cairn_free(z);
        if (rc) throw ctx.fail(rc, what);
        return out;
      } finally {
        s.free();
      }
    }

    /** Make every add so far durable (appended to the file and synced). */
    commit() {
      const rc = ctx.M._cairn_mem_commit(this.#handle());
      if (rc) throw ctx.fail(rc, 'Memory.commit');
      if (this.#graph) this.#graph.commit(); // graph changes: a checkpoint (none if it has none)
    }

    /**
     * Commit, then move the log into the file's HDF5 datasets (/memory, core/mem/FORMAT.md), so
     * that h5py, h5dump or h5wasm see every memory. Crash-safe. Commits do it every 4096
     * memories and close() does it too; call it before handing the file to another tool.
     */
    checkpoint() {
      const rc = ctx.M._cairn_mem_checkpoint(this.#handle());
      if (rc) throw ctx.fail(rc, 'Memory.checkpoint');
    }

    /**
     * Search. `query` is a text, a query vector, or { text, embedding }. Scores are "higher is
     * better" in the chosen mode; vectorScore/bm25Score are null where not computed.
     * @param {string|Float32Array|number[]|{text?: string, embedding?: Float32Array|number[]}} query
     * @param {{k?: number, mode?: 'auto'|'hybrid'|'vector'|'bm25', filter?: object, fusion?: 'rrf'|'weighted',
     *   rrfK?: number, weights?: {vector?: number, bm25?: number}, recency?: {weight?: number, halfLifeHours?: number, now?: Date|number},
     *   index?: 'auto'|'flat'|'f16'|'int8'|'ivf'|'ivfpq', nprobe?: number, rerank?: number, bm25?: {k1?: number, b?: number},
     *   touch?: boolean}} [options]
     */
    search(query, options = {}) {
      const e = this._embedder;
      if (e && typeof query === 'string' && !options.embedding && options.mode !== 'bm25') {
        // the caller's model embeds the query (a promise then)
        return Promise.resolve(e.embed([query])).then((v) => this.search({ text: query, embedding: checkVectors(v, 1)[0] }, options));
      }
      const h = this.#handle();
      let text = null, emb = null;
      if (typeof query === 'string') text = query;
      else if (query instanceof Float32Array || Array.isArray(query)) emb = vec(query, 'query');
      else if (query && typeof query === 'object') text = str(query.text, 'query.text'), emb = vec(query.embedding, 'query.embedding');
      else throw misuse('search() takes a text, a query vector or { text, embedding }');
      if (options.embedding) emb = vec(options.embedding, 'embedding');
      const k = options.k ?? 10;
      if (!Number.isInteger(k) || k < 1 || k > MAX_K) throw misuse(`k must be an integer in 1..${MAX_K}`);
      const mode = pick(MODES, options.mode, 'mode', 0);
      const fusion = pick(FUSIONS, options.fusion, 'fusion', 0);
      const vindex = pick(INDEXES, options.index, 'index', 0);
      const w = options.weights || {}, rec = options.recency || {}, bm = options.bm25 || {};
      const M = ctx.M, s = scope(M, CairnError);
      try {
        const out = s.alloc(k * 40), pn = s.alloc(4);
        const rc = M._cairn_em_mem_search(h, s.str(text), emb ? s.f32(emb) : 0, emb ? emb.length : 0, k, mode, fusion,
          options.rrfK ?? 0, w.vector ?? 0, w.bm25 ?? 0, rec.weight ?? 0, rec.halfLifeHours ?? 0, ms(rec.now, 'recency.now'),
          vindex, options.nprobe ?? 0, options.rerank ?? 0, bm.k1 ?? 0, bm.b ?? 0, s.str(filterJson(scoped(options.filter, options))),
          options.touch ? 1 : 0, ms(options.asOf, 'asOf'), out, pn);
        if (rc) throw ctx.fail(rc, 'Memory.search');
        const n = M.HEAPU32[pn >> 2];
        const raw = M.HEAPF64.slice(out >> 3, (out >> 3) + 5 * n);
        const hits = [];
        for (let i = 0; i < n; i++) {
          const v = raw[5 * i + 2], b = raw[5 * i + 3];
          hits.push({ ...this.getVersion(raw[5 * i + 4]), score: raw[5 * i + 1], vectorScore: Number.isNaN(v) ? null : v, bm25Score: Number.isNaN(b) ? null : b });
        }
        return hits;
      } finally {
        s.free();
      }
    }

    /**
     * A memory by id, or null if there is none.
     * @returns {{id: number, text: string, session: string|null, role: string|null, time: number, created: number,
     *   tier: number, importance: number, accessCount: number, metadata: object|null}|null}
     */
    get(id) {
      this.#handle();
      if (!Number.isInteger(id) || id < 1) return null;
      try {
        return fromJson(JSON.parse(this.#callJson(`Memory.get ${id}`, (M, s, pz) => M._cairn_em_mem_get_json(this.#handle(), id, 0, 0, pz))));
      } catch (e) {
        if (e instanceof CairnError && (e.code & 0xff) === 5) return null; // NOTFOUND
        throw e;
      }
    }

    /** The stored embedding of a memory (L2-normalised in cosine stores), or null if no such id. */
    embedding(id) {
      const h = this.#handle();
      const dim = this.stats().dim;
      const M = ctx.M, s = scope(M, CairnError);
      try {
        const out = s.alloc(dim * 4);
        const rc = M._cairn_em_mem_embedding(h, id, out);
        if ((rc & 0xff) === 5) return null;
        if (rc) throw ctx.fail(rc, `Memory.embedding ${id}`);
        return M.HEAPF32.slice(out >> 2, (out >> 2) + dim);
      } finally {
        s.free();
      }
    }

    /** Count one more access of a memory (durable at the next commit). */
    touch(id) {
      const rc = ctx.M._cairn_em_mem_touch(this.#handle(), id);
      if (rc) throw ctx.fail(rc, `Memory.touch ${id}`);
    }

    /** The built-in embedder applied to text, at this store's dimension. */
    embed(text) {
      return embedWith(ctx.M, String(text), this.stats().dim);
    }

    /**
     * Train an approximate vector index over the memories so far (later adds join it); kept
     * in the file at the next commit. Searches use it with index 'auto'.
     * @param {{kind?: 'ivf'|'ivfpq', nlist?: number, m?: number, iterations?: number, sample?: number, seed?: number}} [options]
     */
    buildIndex(options = {}) {
      const kind = options.kind === 'ivfpq' ? 5 : options.kind === undefined || options.kind === 'ivf' ? 4 : -1;
      if (kind < 0) throw misuse("index kind must be 'ivf' or 'ivfpq'");
      const rc = ctx.M._cairn_em_mem_build_index(this.#handle(), kind, options.nlist ?? 0, options.m ?? 0, options.iterations ?? 0,
        options.sample ?? 0, options.seed ?? 0);
      if (rc) throw ctx.fail(rc, 'Memory.buildIndex');
    }

    /** Counts and sizes: memories, uncommitted adds, dim, metric, sessions, roles, terms... */
    stats() {
      const h = this.#handle();
      const M = ctx.M, s = scope(M, CairnError);
      try {
        const num = s.alloc(16 * 8), pk = s.alloc(4);
        const rc = M._cairn_em_mem_stats(h, num, pk);
        if (rc) throw ctx.fail(rc, 'Memory.stats');
        const a = M.HEAPF64.slice(num >> 3, (num >> 3) + 16);
        return {
          memories: a[0], uncommitted: a[1], dim: a[2], metric: Object.keys(METRICS)[a[3]], sessions: a[4], roles: a[5],
          terms: a[6], postings: a[7], textBytes: a[8], fileBytes: a[9], index: a[10] ? INDEX_NAMES[a[10]] : null,
          indexLists: a[11], indexPqM: a[12], openMs: a[13] / 1e6, kernel: cstr(M, M.HEAPU32[pk >> 2]),
          textOnly: a[14] < 0 ? null : a[14] === 1, disk: a[15] < 0 ? null : Object.keys(DISK)[a[15]],
        };
      } finally {
        s.free();
      }
    }

    /**
     * Close the store. By default pending adds are committed first (pass { commit: false } to
     * drop them, as the C API does). The file object stays yours to close. Closing twice is a no-op.
     */
    close({ commit = true } = {}) {
      if (!this.#h) return;
      const h = this.#h;
      let err = null;
      if (this.#graph) { // before the store: its commit is the store's checkpoint
        try {
          this.#graph.close();
        } catch (e) {
          err = e;
        }
        this.#graph = null;
      }
      if (commit && !this.#readOnly) {
        const rc = ctx.M._cairn_mem_commit(h);
        if (rc) err = ctx.fail(rc, 'Memory.close (commit)');
      }
      this.#h = 0;
      const rc = ctx.M._cairn_mem_close(h);
      if (err) throw err;
      if (rc) throw ctx.fail(rc, 'Memory.close');
    }

    /**
     * The built-in embedder (word and character n-gram hashing, L2-normalised): WORD OVERLAP,
     * NOT MEANING. dim defaults to 256, the dimension of stores opened without one.
     */
    static async embed(text, { dim = 256 } = {}) {
      await ctx.init();
      return embedWith(ctx.M, String(text), dim);
    }

    /** The tokens BM25 indexes for a text (lowercased, stop words dropped, light stemming). */
    static async tokenize(text) {
      await ctx.init();
      const M = ctx.M, s = scope(M, CairnError);
      const t = String(text);
      try {
        const p = s.str(t), pz = s.alloc(4), pn = s.alloc(4);
        const rc = M._cairn_em_mem_tokenize(p, M.lengthBytesUTF8(t), pz, pn);
        if (rc) throw ctx.fail(rc, 'Memory.tokenize');
        const z = M.HEAPU32[pz >> 2], n = M.HEAPU32[pn >> 2];
        if (!z) return [];
        const bytes = M.HEAPU8.slice(z, z + n);
        M._cairn_free(z);
        return utf8.decode(bytes.subarray(0, n - 1)).split('\0');
      } finally {
        s.free();
      }
    }

    /**
     * The built-in synthetic multi-session conversation (the same one `cairn mem demo` uses):
     * turns {session, speaker, text, time} and questions {question, turn} where turn is the
     * index of the answering turn.
     */
    static async demoData() {
      await ctx.init();
      const M = ctx.M, s = scope(M, CairnError);
      try {
        const strs = s.alloc(12), pi = s.alloc(4);
        const turns = [], questions = [];
        const nT = M._cairn_em_mem_demo_count(0), nQ = M._cairn_em_mem_demo_count(1);
        for (let i = 0; i < nT; i++) {
          const time = M._cairn_em_mem_demo_turn(i, strs);
          const p = M.HEAPU32.slice(strs >> 2, (strs >> 2) + 3);
          turns.push({ session: cstr(M, p[0]), speaker: cstr(M, p[1]), text: cstr(M, p[2]), time });
        }
        for (let i = 0; i < nQ; i++) {
          const q = cstr(M, M._cairn_em_mem_demo_question(i, pi));
          questions.push({ question: q, turn: M.HEAP32[pi >> 2] });
        }
        return { turns, questions };
      } finally {
        s.free();
      }
    }
  }

  function embedWith(M, text, dim) {
    if (!Number.isInteger(dim) || dim < 1) throw misuse('dim must be a positive integer');
    const s = scope(M, CairnError);
    try {
      const p = s.str(text), out = s.alloc(dim * 4);
      const rc = M._cairn_mem_embed(p, M.lengthBytesUTF8(text), out, dim);
      if (rc) throw ctx.fail(rc, 'Memory.embed');
      return M.HEAPF32.slice(out >> 2, (out >> 2) + dim);
    } finally {
      s.free();
    }
  }

  return Memory;
}
