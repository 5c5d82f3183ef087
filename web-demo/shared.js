// 2026-11-29 - web-demo/shared.js: what the page and the worker both do with a Memory: the demo
// ingest, and the playground's operations (ask, remember, edit, delete, forget a session, the
// timeline), the same whether the Memory is in the worker (OPFS) or in the page.
import { Memory } from '../js/src/index.js';

/** Add the built-in synthetic 5-session conversation (the one `cairn mem demo` uses); returns the count. */
export async function ingestDemo(mem) {
  const { turns } = await Memory.demoData();
  for (const t of turns) mem.add({ text: `${t.speaker}: ${t.text}`, session: t.session, role: t.speaker, time: t.time, created: t.time });
  mem.commit();
  return turns.length;
}

// Recency as the core scores it (core/include/cairn/mem.h, cairn_mem_query): 2^(-age / halfLife),
// the age from the newest event time in the store. The core's default half-life is a week; the
// demo conversation spans eight months, so the page uses 60 days (else every hit but the last
// session's would score 0.000).
export const HALF_LIFE_HOURS = 60 * 24;
export function recencyOf(time, now, halfLifeHours = HALF_LIFE_HOURS) {
  return 2 ** (-Math.max(0, now - time) / (halfLifeHours * 3600e3));
}

/** A search hit as the page shows it (plain data: it crosses postMessage); recency against `now`. */
export function toAnswer(h, now) {
  return {
    id: h.id, version: h.version ?? h.id, score: h.score, vectorScore: h.vectorScore, bm25Score: h.bm25Score,
    recency: now === undefined ? null : recencyOf(h.time, now), session: h.session, role: h.role, time: h.time, text: h.text,
  };
}

/** mem.stats() and `live`, the memories it holds now (stats().memories is the highest id, forgotten ones included). */
export function statsOf(mem) {
  return { ...mem.stats(), live: mem.list().length };
}

/** The playground's operations over the Memory getMem() returns (each commits what it changes). */
export function playgroundOps(getMem) {
  const newest = (mem) => mem.list({ order: 'eventMs', desc: true, limit: 1 })[0]?.time ?? 0;
  const done = (mem, more = {}) => {
    mem.commit();
    return { ...more, stats: statsOf(mem) };
  };
  return {
    ask: ({ question, mode, k, recency }) => {
      const mem = getMem(), now = newest(mem);
      const options = { k, mode };
      if (recency > 0) options.recency = { weight: recency, halfLifeHours: HALF_LIFE_HOURS, now };
      return mem.search(question, options).map((h) => toAnswer(h, now));
    },
    remember: ({ text }) => {
      const mem = getMem();
      const now = Math.max(Date.now(), newest(mem) + 1000);
      return done(mem, { id: mem.add({ text: `You: ${text}`, session: 'you', role: 'You', time: now, created: now }) });
    },
    /** A new version with this text; the old one stays in the memory's history. */
    edit: ({ id, text }) => {
      const mem = getMem();
      return done(mem, { version: mem.update(id, { text }) });
    },
    /** Forget one memory and its history; checkpointed, so its bytes leave the file now. */
    remove: ({ id }) => {
      const mem = getMem();
      mem.delete(id);
      mem.checkpoint();
      return done(mem);
    },
    /** Forget every memory of a session (deleteWhere), checkpointed. */
    forgetSession: ({ session }) => {
      const mem = getMem();
      const n = mem.deleteWhere({ session });
      mem.checkpoint();
      return done(mem, { forgotten: n });
    },
    /** Every version of every memory, by event time: {id, version, time, validFrom, validTo, session, text}. */
    timeline: () => getMem().list({ history: true, order: 'eventMs' }).map((r) => ({
      id: r.id, version: r.version ?? r.id, time: r.time, validFrom: r.validFrom ?? r.created, validTo: r.validTo ?? null, session: r.session, text: r.text,
    })),
  };
}

/** The page's side of the protocol: call(op, args) -> a Promise of the worker's result. */
export function workerClient(w) {
  let next = 1;
  const pending = new Map();
  w.onmessage = (e) => {
    const p = pending.get(e.data.id);
    if (!p) return;
    pending.delete(e.data.id);
    if (e.data.error) p.reject(new Error(e.data.error));
    else p.resolve(e.data.result);
  };
  // args apart from id and op: an edit's own id must not clobber the message's
  return (op, args = {}) => new Promise((resolve, reject) => {
    const id = next++;
    pending.set(id, { resolve, reject });
    w.postMessage({ id, op, args });
  });
}

/** A worker's side of the page protocol: {id, op, args} -> {id, result} or {id, error}. */
export function serveOps(ops) {
  onmessage = async (e) => {
    const { id, op, args } = e.data;
    try {
      if (!Object.hasOwn(ops, op)) throw new Error(`unknown operation ${op}`);
      postMessage({ id, result: await ops[op](args ?? {}) });
    } catch (err) {
      postMessage({ id, error: `${err.name}: ${err.message}` });
    }
  };
}
