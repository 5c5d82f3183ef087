// 2026-11-29 - web-demo/memory-worker.js: the demo's agent memory in a dedicated worker, kept in
// an OPFS file (durable across visits: synchronous access handles exist only in workers).
// Protocol: {id, op: 'open'|'reset'|'ask'|'remember'|'edit'|'remove'|'forgetSession'|'timeline', args}
// -> {id, result} or {id, error} (the operations: web-demo/shared.js playgroundOps).
import { Memory, OpfsFile } from '../js/src/index.js';
import { ingestDemo, playgroundOps, serveOps, statsOf } from './shared.js';

const PATH = 'cairn-demo/memory.cairnmem';
let file = null, mem = null;

async function open() {
  const t0 = performance.now();
  file = await OpfsFile.open(PATH);
  mem = await Memory.open(file);
  const reopened = statsOf(mem).live;
  const ingested = reopened ? 0 : await ingestDemo(mem);
  return { storage: 'OPFS', reopened, ingested, ms: performance.now() - t0, stats: statsOf(mem) };
}

const ops = {
  open,
  ...playgroundOps(() => mem),
  reset: async () => {
    mem.close();
    file.truncate(0);
    file.close();
    return open();
  },
};

serveOps(ops);
