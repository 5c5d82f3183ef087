// 2026-11-29 - web-demo/shared.js: what the page and the worker both do with a Memory.
import { Memory } from '../js/src/index.js';

/** Add the built-in synthetic 5-session conversation (the one `cairn mem demo` uses); returns the count. */
export async function ingestDemo(mem) {
  const { turns } = await Memory.demoData();
  for (const t of turns) mem.add({ text: `${t.speaker}: ${t.text}`, session: t.session, role: t.speaker, time: t.time, created: t.time });
  mem.commit();
  return turns.length;
}

/** A search hit as the page shows it (plain data: it crosses postMessage). */
export function toAnswer(h) {
  return { id: h.id, score: h.score, vectorScore: h.vectorScore, bm25Score: h.bm25Score, session: h.session, role: h.role, time: h.time, text: h.text };
}

/** A worker's side of the page protocol: {id, op, ...args} -> {id, result} or {id, error}. */
export function serveOps(ops) {
  onmessage = async (e) => {
    const { id, op, ...args } = e.data;
    try {
      postMessage({ id, result: await ops[op](args) });
    } catch (err) {
      postMessage({ id, error: `${err.name}: ${err.message}` });
    }
  };
}
