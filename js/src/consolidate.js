// 2026-12-02
// js/src/consolidate.js - a memory that tends itself, on the Memory class (issue 18): the
// consolidation cycle, the session tick and explain (core/include/cairn/consolidate.h, glue in
// bindings/em/em_cons.c), and the gate, the observer and the ephemeral tier (ephemeral.js) attached
// where the issue names them:
//
//   await mem.consolidate({ capacity: 100, summarise: async (texts, ids) => llm(texts) });
//   mem.tick({ budgetMs: 20 });          // { due, done, skipped, ms, taskMs, consolidate? }
//   mem.explain(id);                     // { decision, why, score: {...}, history: [...] }
//   await Memory.gate('ok thanks');      // { save: false, reason: 'trivial', ... }
//   mem.observe({ user, assistant });    // the gate and the save strategy; saves into mem
//   mem.ephemeral.set('plan', 'book the flight', { ttlMs: 60000 });
//
// consolidate() is async because the summariser may be (an LLM): it runs a dry run for the
// groups, awaits the summariser for each, then runs the cycle with their texts (a group whose
// members changed in between gets the extractive rule). A summariser that throws, or returns
// something other than a non-empty string, leaves the store unchanged.

/** @param {object} ctx the package internals (api.js); Memory the class; eph makeEphemeral's result */
export function attachConsolidation(Memory, ctx, eph) {
  const { CairnError } = ctx;
  const misuse = (msg) => new CairnError(7, msg);
  const { Ephemeral, Observer, gate } = eph;
  const KEYS = ['capacity', 'halfLifeHours', 'accessHalf', 'linkHalf', 'weights', 'mergeThreshold', 'minGroup', 'linkMerge', 'now', 'dryRun'];

  // The options of the core's JSON form (Dates become ms; unknown keys are refused by the core too).
  function consOptions(o, what) {
    if (o === undefined || o === null) return {};
    if (typeof o !== 'object') throw misuse(`${what}: options must be an object such as { capacity: 100 }`);
    const out = {};
    for (const [k, v] of Object.entries(o)) {
      if (v === undefined || k === 'summarise') continue;
      if (!KEYS.includes(k)) throw misuse(`${what}: unknown option '${k}' (${KEYS.join(', ')}, summarise)`);
      out[k] = k === 'now' && v instanceof Date ? v.getTime() : v;
    }
    return out;
  }
  const fromReport = (r) => r;

  Object.defineProperties(Memory.prototype, {
    consolidate: {
      /**
       * One consolidation cycle: score every memory, evict the working tier beyond `capacity` into
       * the episodic tier, merge episodic memories that recur into semantic ones citing them.
       * `summarise(texts, ids)` (may be async) writes a group's text; without it the most central
       * member's text is used. Resolves to the report { scored, working, evicted, hot, episodic,
       * compared, promoted, merged, dissolved, summarised, ms, evict, groups }.
       */
      async value(options = {}) {
        const opts = consOptions(options, 'Memory.consolidate');
        const { summarise } = options || {};
        if (summarise !== undefined && typeof summarise !== 'function') throw misuse('Memory.consolidate: summarise must be a function (texts, ids) => text');
        if (summarise && !opts.dryRun) {
          const plan = JSON.parse(this._json('Memory.consolidate', (M, s, pz, h) => M._cairn_mem_consolidate_json(h, s.str(JSON.stringify({ ...opts, dryRun: true })), pz)));
          const summaries = [];
          for (const g of plan.groups) {
            const text = await summarise(g.texts, g.sources);
            if (typeof text !== 'string') throw new CairnError(12, `Memory.consolidate: the summariser returned ${text === null ? 'null' : typeof text} for the memories ${g.sources.join(', ')} (a non-empty string is needed; nothing was changed)`);
            summaries.push({ sources: g.sources, text });
          }
          opts.summaries = summaries;
        }
        return fromReport(JSON.parse(this._json('Memory.consolidate', (M, s, pz, h) => M._cairn_mem_consolidate_json(h, s.str(JSON.stringify(opts)), pz))));
      },
      writable: true, configurable: true,
    },
    tick: {
      /**
       * The session tick: the maintenance that is due and fits `budgetMs` (default 50; 0 runs
       * nothing): commit, consolidation (options.consolidate: its options, or false), IVF upkeep,
       * checkpoint (once the log holds `checkpointAt` memories). Returns { due, done, skipped, budgetMs,
       * ms, taskMs, consolidate? }.
       */
      value(options = {}) {
        if (!options || typeof options !== 'object') throw misuse('Memory.tick takes { budgetMs, consolidate, checkpointAt }');
        const o = {};
        for (const [k, v] of Object.entries(options)) {
          if (v === undefined) continue;
          if (k === 'budgetMs' || k === 'checkpointAt') {
            if (typeof v !== 'number' || !Number.isFinite(v)) throw misuse(`Memory.tick: ${k} must be a number`);
            o[k] = v;
          } else if (k === 'consolidate') o.consolidate = v === false ? false : consOptions(v, 'Memory.tick');
          else throw misuse(`Memory.tick: unknown option '${k}' (budgetMs, consolidate, checkpointAt)`);
        }
        return JSON.parse(this._json('Memory.tick', (M, s, pz, h) => M._cairn_mem_tick_json(h, s.str(JSON.stringify(o)), pz)));
      },
      writable: true, configurable: true,
    },
    explain: {
      /** Why memory id is in its tier: { decision, why, score: { score, value, access, recency, links },
       *  inputs, rank?, working?, evictedMs?, scoreAtEviction?, mergedInto?, sources?, history }. */
      value(id, options = {}) {
        if (!Number.isInteger(id) || id < 1) throw misuse('Memory.explain: id must be a positive integer');
        const opts = consOptions(options, 'Memory.explain');
        return JSON.parse(this._json(`Memory.explain ${id}`, (M, s, pz, h) => M._cairn_em_mem_explain(h, id, s.str(JSON.stringify(opts)), pz)));
      },
      writable: true, configurable: true,
    },
    observe: {
      /** The decision gate and the save strategy on one exchange { user, assistant, ... }, saving into
       *  this store (Observer.observe). The observer is made at the first call with `options`
       *  (strategy, thresholds, the gate's options) and kept until close(). */
      value(exchange, options) {
        if (!this._observer) this._observer = Observer.openSync({ dim: this.stats().dim, ...(options || {}) });
        return this._observer.observe(exchange, this);
      },
      writable: true, configurable: true,
    },
    ephemeral: {
      /** This store's ephemeral tier (Ephemeral: TTLs, LRU capacity, embeddings of the store's
       *  dimension), made at first use with capacity 10000; closed with the store. For other settings
       *  use Ephemeral.open and promote() into the store. */
      get() {
        if (!this._ephemeral) {
          const st = this.stats();
          this._ephemeral = Ephemeral.openSync({ capacity: 10000, dim: st.textOnly ? 0 : st.dim });
        }
        return this._ephemeral;
      },
      configurable: true,
    },
  });
  const close = Memory.prototype.close;
  Object.defineProperty(Memory.prototype, 'close', {
    value(...args) {
      if (this._ephemeral) this._ephemeral.close(), (this._ephemeral = null);
      if (this._observer) this._observer.close(), (this._observer = null);
      return close.apply(this, args);
    },
    writable: true, configurable: true,
  });
  /** The decision gate (gate()): would `text` be worth saving? */
  Memory.gate = gate;
  return Memory;
}
