// 2026-12-02
// js/src/kg.js - the knowledge graph in the npm package: `Graph` over cairn's C graph
// (core/include/cairn/kg.h, glue in bindings/em/em_kg.c). Entities (name, type, aliases, the
// memories that mention them) and facts (subject, predicate, object or literal) with validity in
// the world (validAt/invalidAt) and in the store (createdAt/expiredAt); a fact on a functional
// predicate invalidates the old one and keeps it.
//
//   const g = await Graph.open(file?);          // file: MemoryFile, NodeFile, a path in Node...
//   g.functional('lives_in');
//   g.addFacts([{ subject: 'Maya', predicate: 'lives_in', object: 'Lisbon', validAt: Date.UTC(2023, 4, 1) }]);
//   g.facts({ asOf: new Date('2022-01-01') }); g.neighbors('Maya', { depth: 2 }); g.entities();
//   g.extract(memoryId, 'My sister Ines moved to Lisbon last May', { speaker: 'Caroline', time: Date.now() });
//   g.commit(); g.close();
//
// The graph is stored in a /graph group of an HDF5 file (core/kg/FORMAT.md); h5py reads it. A
// memory store's own graph is `mem.graph()` (or mem.entities(), mem.facts(), mem.neighbors(),
// mem.addFacts()): its /graph lives in the store's file, written at the store's checkpoints, and
// mem.delete(id) removes the facts only that memory supported.
import { scope, storeFileArg } from './util.js';

/** @param {object} ctx the package internals (api.js): init, M, openFile, fail, CairnError */
export function makeGraph(ctx) {
  const { CairnError } = ctx;
  const misuse = (msg) => new CairnError(7, msg);
  function asOf(v) { // [kind, ms]: 0 now, 1 any, 2 a time
    if (v === undefined || v === null || v === 'now') return [0, 0];
    if (v === 'all' || v === 'any') return [1, 0];
    const n = v instanceof Date ? v.getTime() : v;
    if (typeof n !== 'number' || !Number.isFinite(n)) throw misuse("asOf must be a Date, ms since 1970, 'now' or 'all'");
    return [2, Math.trunc(n)];
  }
  function ms(v) {
    if (v === undefined || v === null) return undefined;
    const n = v instanceof Date ? v.getTime() : v;
    if (typeof n !== 'number' || !Number.isFinite(n)) throw misuse('times must be Dates or ms since 1970');
    return Math.trunc(n);
  }

  /** A knowledge graph. Create it with `await Graph.open(...)`. */
  class Graph {
    #h;
    #name;
    constructor(h, name) {
      this.#h = h;
      this.#name = name;
    }

    /**
     * Open or create a graph: in memory (no file), on a file object (closed with the graph) or
     * a path in Node. `readOnly` refuses changes.
     */
    static async open(file, options = {}) {
      if (file && Object.getPrototypeOf(file) === Object.prototype && typeof file.read !== 'function') {
        options = file;
        file = null;
      }
      await ctx.init();
      const M = ctx.M, { readOnly = false } = options;
      let owned;
      ({ file, owned } = storeFileArg(ctx, file, readOnly));
      const s = scope(M, CairnError);
      try {
        const pp = s.alloc(4);
        const f = file ? ctx.openFile(file, owned) : 0;
        const rc = M._cairn_em_kg_open(f, readOnly ? 1 : 0, pp);
        if (rc) throw ctx.fail(rc, 'Graph.open');
        return new Graph(M.HEAPU32[pp >> 2], (file && file.name) || 'memory');
      } finally {
        s.free();
      }
    }

    /** @private the graph inside a memory store's file: Memory.graph() */
    static _ofStore(memHandle, name, readOnly) {
      const M = ctx.M, s = scope(M, CairnError);
      try {
        const pp = s.alloc(4);
        const rc = M._cairn_em_kg_open_mem(memHandle, readOnly ? 1 : 0, pp);
        if (rc) throw ctx.fail(rc, `Memory.graph ${name}`);
        return new Graph(M.HEAPU32[pp >> 2], name);
      } finally {
        s.free();
      }
    }

    #handle() {
      if (!this.#h) throw misuse(`graph ${this.#name} is closed`);
      return this.#h;
    }
    #json(what, call) {
      const M = ctx.M, s = scope(M, CairnError);
      try {
        const pz = s.alloc(4), pn = s.alloc(8);
        const rc = call(s, pz, pn);
        if (rc) throw ctx.fail(rc, what);
        return JSON.parse(s.takeText(pz, pn));
      } finally {
        s.free();
      }
    }

    /** Canonical entities: [{id, name, type, aliases, mentions}]. */
    entities() {
      const h = this.#handle();
      return this.#json('Graph.entities', (s, pz, pn) => ctx.M._cairn_em_kg_entities(h, pz, pn));
    }
    /** Facts valid at `asOf` (Date, ms, 'now' = not invalidated (default), 'all'). */
    facts({ asOf: t } = {}) {
      const h = this.#handle(), [kind, v] = asOf(t);
      return this.#json('Graph.facts', (s, pz, pn) => ctx.M._cairn_em_kg_facts(h, kind, v, pz, pn));
    }
    /** Entities within `depth` hops of `name` and the facts between them: {entity, nodes, edges}. */
    neighbors(name, { depth = 1, asOf: t } = {}) {
      if (typeof name !== 'string') throw misuse('name must be a string');
      if (!Number.isInteger(depth) || depth < 0) throw misuse('depth must be an integer >= 0');
      const h = this.#handle(), [kind, v] = asOf(t);
      return this.#json('Graph.neighbors', (s, pz, pn) => ctx.M._cairn_em_kg_graph(h, s.str(name), depth, kind, v, pz, pn));
    }
    /**
     * Add facts, all or none: [{subject, predicate, object | literal, validAt, invalidAt,
     * createdAt, expiredAt, sources: [memory ids]}]. Returns how many were added.
     */
    addFacts(facts) {
      if (!Array.isArray(facts)) throw misuse('addFacts takes an array of facts');
      const list = facts.map((f) => {
        const o = { ...f };
        for (const k of ['validAt', 'invalidAt', 'createdAt', 'expiredAt']) if (k in o) o[k] = ms(o[k]);
        return o;
      });
      const h = this.#handle(), M = ctx.M, s = scope(M, CairnError);
      try {
        const pn = s.alloc(8);
        const rc = M._cairn_em_kg_add_facts(h, s.str(JSON.stringify(list)), pn);
        if (rc) throw ctx.fail(rc, 'Graph.addFacts');
        return M.HEAPF64[pn >> 3];
      } finally {
        s.free();
      }
    }
    /** Declare a predicate functional; `resolve` keeps the latest value where several are current. */
    functional(predicate, { resolve = false } = {}) {
      const h = this.#handle(), M = ctx.M, s = scope(M, CairnError);
      try {
        const rc = M._cairn_em_kg_functional(h, s.str(predicate), resolve ? 1 : 0);
        if (rc) throw ctx.fail(rc, 'Graph.functional');
      } finally {
        s.free();
      }
    }
    /** Run the built-in extractor on one memory's text (entities, kinship, times, a few relations). */
    extract(memoryId, text, { speaker, time } = {}) {
      const h = this.#handle(), M = ctx.M, s = scope(M, CairnError);
      try {
        const rc = M._cairn_em_kg_extract(h, memoryId, s.str(text), s.str(speaker), ms(time) ?? Date.now());
        if (rc) throw ctx.fail(rc, 'Graph.extract');
      } finally {
        s.free();
      }
    }
    /** Make every change durable (a file-backed graph; a store's graph: checkpoints the store). */
    commit() {
      const rc = ctx.M._cairn_em_kg_commit(this.#handle());
      if (rc) throw ctx.fail(rc, 'Graph.commit');
    }
    /** Commit and close (the graph's file too). */
    close() {
      if (!this.#h) return;
      const h = this.#h;
      this.#h = 0;
      const rc = ctx.M._cairn_em_kg_close(h);
      if (rc) throw ctx.fail(rc, 'Graph.close');
    }
  }
  return Graph;
}
