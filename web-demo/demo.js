// 2026-11-29 - web-demo/demo.js: the memory playground of the page (web-demo/viewer.js and
// store-panel.js are its other parts). The memory lives in a worker with an OPFS file when the
// browser allows it (web-demo/memory-worker.js), else in this thread, in memory only.
import { Memory } from '../js/src/index.js';
import { ingestDemo, toAnswer } from './shared.js';

const $ = (id) => document.getElementById(id);

// The same small interface over either backend: call(op, args) -> Promise.
async function workerBackend() {
  const w = new Worker(new URL('./memory-worker.js', import.meta.url), { type: 'module' });
  let next = 1;
  const pending = new Map();
  w.onmessage = (e) => {
    const p = pending.get(e.data.id);
    pending.delete(e.data.id);
    if (e.data.error) p.reject(new Error(e.data.error));
    else p.resolve(e.data.result);
  };
  const call = (op, args = {}) => new Promise((resolve, reject) => {
    const id = next++;
    pending.set(id, { resolve, reject });
    w.postMessage({ id, op, ...args });
  });
  try {
    const opened = await Promise.race([call('open'), new Promise((_, rej) => (w.onerror = (e) => rej(new Error(e.message || 'worker failed'))))]);
    return { call, opened };
  } catch (e) {
    w.terminate();
    throw e;
  }
}

async function localBackend(reason) {
  const t0 = performance.now();
  let mem = await Memory.open();
  const ingested = await ingestDemo(mem);
  const opened = { storage: `memory only (${reason})`, reopened: 0, ingested, ms: performance.now() - t0, stats: mem.stats() };
  const ops = {
    ask: ({ question, mode, k }) => mem.search(question, { k, mode }).map(toAnswer),
    remember: ({ text }) => ({ id: mem.add({ text: `You: ${text}`, session: 'you', role: 'You' }), stats: mem.stats() }),
    reset: async () => {
      mem.close();
      mem = await Memory.open();
      await ingestDemo(mem);
      return { ...opened, stats: mem.stats() };
    },
  };
  return { call: async (op, args) => ops[op](args), opened };
}

function showStatus(o) {
  const how = o.reopened ? `reopened ${o.reopened} memories` : `ingested ${o.ingested} turns`;
  $('status').textContent = `${how} in ${o.ms.toFixed(0)} ms - storage: ${o.storage} - ${o.stats.memories} memories, ` +
    `${o.stats.sessions} sessions, ${o.stats.dim}-d vectors (${o.stats.kernel} kernels)`;
}

// Each part of a hit's score as a bar, against the best of the list for that part: near-equal
// fused scores (0.0328 vs 0.0318) then show whether one hit matched words and the other only
// vectors. Labels carry the numbers (the bars are aria-hidden).
function scoreBars(h, hits) {
  const box = document.createElement('div');
  box.className = 'bars';
  const parts = [['score', 'total', (x) => x.score], ['BM25', 'bm25', (x) => x.bm25Score], ['vector', 'vector', (x) => x.vectorScore]];
  for (const [label, cls, get] of parts) {
    const v = get(h);
    if (v === null || v === undefined) continue;
    const best = Math.max(...hits.map((x) => get(x) ?? 0));
    const bar = document.createElement('div');
    bar.className = `bar ${cls}`;
    bar.setAttribute('aria-hidden', 'true');
    const fill = document.createElement('i');
    fill.style.width = `${best > 0 ? Math.max(2, (100 * Math.max(0, v)) / best) : 0}%`;
    bar.append(fill);
    const name = document.createElement('span');
    name.textContent = label;
    box.append(name, bar);
  }
  return box;
}

function showAnswers(hits, question) {
  const ol = $('answers');
  ol.replaceChildren();
  if (!hits.length) {
    ol.innerHTML = '<p class="note">Nothing found.</p>';
    return;
  }
  for (const h of hits) {
    const li = document.createElement('li');
    li.className = 'answer';
    li.dataset.id = h.id;
    const text = document.createElement('div');
    text.textContent = h.text;
    const meta = document.createElement('div');
    meta.className = 'meta';
    const parts = [`memory #${h.id}`, `session ${h.session}`, new Date(h.time).toISOString().slice(0, 10), `score ${h.score.toFixed(4)}`];
    if (h.vectorScore !== null) parts.push(`vector ${h.vectorScore.toFixed(3)}`);
    if (h.bm25Score !== null) parts.push(`bm25 ${h.bm25Score.toFixed(2)}`);
    meta.textContent = parts.join(' \u00b7 ');
    li.append(text, meta, scoreBars(h, hits));
    ol.append(li);
  }
  document.body.dataset.answered = question;
}

// ?memory keeps everything in this thread, in memory (as when the browser has no OPFS).
let backend;
if (new URLSearchParams(location.search).has('memory')) {
  backend = await localBackend('asked for by ?memory');
} else {
  try {
    backend = await workerBackend();
  } catch (e) {
    backend = await localBackend(e.message.includes('getDirectory') || e.message.includes('SyncAccessHandle') ? 'no OPFS here' : e.message);
  }
}
showStatus(backend.opened);
for (const b of ['go', 'add', 'reset']) $(b).disabled = false;

const { questions } = await Memory.demoData();
for (const q of questions) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = q.question;
  b.onclick = () => { $('question').value = q.question; ask(); };
  $('examples').append(b);
}

async function ask() {
  const question = $('question').value.trim();
  if (!question) return;
  try {
    showAnswers(await backend.call('ask', { question, mode: $('mode').value, k: 5 }), question);
  } catch (e) {
    $('answers').textContent = String(e.message);
  }
}
$('ask').onsubmit = (e) => { e.preventDefault(); ask(); };
$('remember').onsubmit = async (e) => {
  e.preventDefault();
  const text = $('fact').value.trim();
  if (!text) return;
  const r = await backend.call('remember', { text });
  $('fact').value = '';
  showStatus({ ...backend.opened, stats: r.stats });
};
$('reset').onclick = async () => {
  backend.opened = await backend.call('reset');
  showStatus(backend.opened);
  $('answers').replaceChildren();
};
window.demoReady = true;
