// 2026-11-29 - web-demo/demo.js: the memory playground of the page (web-demo/viewer.js and
// store-panel.js are its other parts). The memory lives in a worker with an OPFS file when the
// browser allows it (web-demo/memory-worker.js), else in this thread, in memory only. Answers
// carry score bars (fused, BM25, vector, recency) and edit / delete / forget-session buttons; the
// timeline draws every memory at its event time, one lane per session, with its versions.
import { Memory } from '../js/src/index.js';
import { ingestDemo, playgroundOps, statsOf, workerClient } from './shared.js';

const $ = (id) => document.getElementById(id);

// The same small interface over either backend: call(op, args) -> Promise.
async function workerBackend() {
  const w = new Worker(new URL('./memory-worker.js', import.meta.url), { type: 'module' });
  const call = workerClient(w);
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
  const opened = { storage: `memory only (${reason})`, reopened: 0, ingested, ms: performance.now() - t0, stats: statsOf(mem) };
  const ops = {
    ...playgroundOps(() => mem),
    reset: async () => {
      mem.close();
      mem = await Memory.open();
      await ingestDemo(mem);
      return { ...opened, stats: statsOf(mem) };
    },
  };
  return { call: async (op, args) => ops[op](args), opened };
}

function showStatus(o) {
  const how = o.reopened ? `reopened ${o.reopened} memories` : `ingested ${o.ingested} turns`;
  $('status').textContent = `${how} in ${o.ms.toFixed(0)} ms - storage: ${o.storage} - ${o.stats.live} memories, ` +
    `${o.stats.sessions} sessions, ${o.stats.dim}-d vectors (${o.stats.kernel} kernels)`;
}

// Each part of a hit's score as a bar, against the best of the list for that part: near-equal
// fused scores (0.0328 vs 0.0318) then show whether one hit matched words and the other only
// vectors. Labels carry the numbers (the bars are aria-hidden).
function scoreBars(h, hits) {
  const box = document.createElement('div');
  box.className = 'bars';
  // recency is 2^(-age/halfLife), already on a 0..1 scale: drawn against 1, not the best hit
  const parts = [['score', 'total', (x) => x.score], ['BM25', 'bm25', (x) => x.bm25Score], ['vector', 'vector', (x) => x.vectorScore],
    ['recency', 'recency', (x) => x.recency, 1]];
  for (const [label, cls, get, scale] of parts) {
    const v = get(h);
    if (v === null || v === undefined) continue;
    const best = scale ?? Math.max(...hits.map((x) => get(x) ?? 0));
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
    if (h.recency !== null) parts.push(`recency ${h.recency.toFixed(3)}`);
    if (h.version !== h.id) parts.push(`version #${h.version}`);
    meta.textContent = parts.join(' \u00b7 ');
    li.append(text, meta, scoreBars(h, hits), answerActions(h, li, text));
    ol.append(li);
  }
  document.body.dataset.answered = question;
}

// Edit (a new version; the old one stays in the history), delete (this memory and its history,
// gone from the file), forget the session (every memory of it). Each re-runs the question.
function answerActions(h, li, textDiv) {
  const row = document.createElement('div');
  row.className = 'actions';
  const btn = (label, cls, title, onclick) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = cls;
    b.textContent = label;
    b.title = title;
    b.onclick = onclick;
    row.append(b);
    return b;
  };
  btn('Edit', 'edit', 'write a new version of this memory', () => {
    const form = document.createElement('form');
    form.className = 'editor';
    const input = document.createElement('input');
    input.type = 'text';
    input.value = h.text;
    input.setAttribute('aria-label', `new text of memory #${h.id}`);
    const save = document.createElement('button');
    save.type = 'submit';
    save.className = 'primary';
    save.textContent = 'Save';
    const cancel = document.createElement('button');
    cancel.type = 'button';
    cancel.textContent = 'Cancel';
    cancel.onclick = () => form.replaceWith(textDiv);
    form.append(input, save, cancel);
    form.onsubmit = async (e) => {
      e.preventDefault();
      const text = input.value.trim();
      if (!text || text === h.text) return form.replaceWith(textDiv);
      await act('edit', { id: h.id, text }, `memory #${h.id} edited: a new version, the old one kept in its history`);
    };
    textDiv.replaceWith(form);
    input.focus();
  });
  btn('Delete', 'delete', 'forget this memory and its history (gone from the file)', () =>
    act('remove', { id: h.id }, `memory #${h.id} and its history forgotten`));
  if (h.session) btn(`Forget session ${h.session}`, 'forget', 'forget every memory of this session', () =>
    act('forgetSession', { session: h.session }, `session ${h.session} forgotten`));
  li.dataset.session = h.session ?? '';
  return row;
}

async function act(op, args, said) {
  try {
    const r = await backend.call(op, args);
    showStatus({ ...backend.opened, stats: r.stats });
    $('mem-said').textContent = op === 'forgetSession' ? `${said} (${r.forgotten} memories)` : said;
    document.body.dataset.memAct = `${op}:${Object.values(args)[0]}`;
  } catch (e) {
    $('mem-said').textContent = String(e.message);
  }
  await drawTimeline();
  if ($('question').value.trim()) await ask();
}

// The timeline: one lane per session, the memories in event-time order at equal steps (a session
// lasts minutes and the gaps months: on a time axis each session would be one dot), a tick and
// its date where a new day starts. A memory edited has a square per earlier version above its dot
// (its history, up to three drawn). Drawn on a canvas as wide as its box; the edited ones are
// listed below it as text (versions, and when each was written).
const LANE_COLOURS = ['#1f6feb', '#8250df', '#1a7f37', '#bc4c00', '#bf3989', '#0a7ea4', '#6e7781'];
async function drawTimeline() {
  let rows;
  try {
    rows = await backend.call('timeline');
  } catch (e) {
    $('mem-edits').textContent = String(e.message);
    return;
  }
  const byId = new Map();
  for (const r of rows) (byId.get(r.id) ?? byId.set(r.id, []).get(r.id)).push(r);
  const sessions = [...new Set(rows.map((r) => r.session ?? '-'))].sort();
  const canvas = $('mem-timeline');
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(200, canvas.clientWidth), lane = 22, top = 8, h = top + lane * Math.max(1, sessions.length) + 24;
  canvas.width = Math.round(w * dpr);
  canvas.height = Math.round(h * dpr);
  canvas.style.height = `${h}px`;
  const g = canvas.getContext('2d');
  g.scale(dpr, dpr);
  g.fillStyle = '#fbfcfd';
  g.fillRect(0, 0, w, h);
  for (const v of byId.values()) v.sort((p, q) => p.validFrom - q.validFrom);
  const order = [...byId.values()].map((v) => v[v.length - 1]).sort((p, q) => p.time - q.time || p.id - q.id);
  const left = 50, right = 12, span = w - left - right;
  const x = (k) => left + (order.length > 1 ? (k / (order.length - 1)) * span : span / 2);
  const day = (t) => new Date(t).toISOString().slice(0, 10);
  g.font = '11px system-ui, sans-serif';
  g.textBaseline = 'middle';
  sessions.forEach((s, i) => {
    const y = top + lane * i + lane / 2;
    g.fillStyle = '#59636e';
    g.fillText(s.length > 7 ? `${s.slice(0, 6)}\u2026` : s, 4, y);
    g.strokeStyle = '#e6eaee';
    g.beginPath();
    g.moveTo(left, y);
    g.lineTo(w - right, y);
    g.stroke();
  });
  // a tick and a short date where a day starts, skipped when it would overlap the previous label
  g.textBaseline = 'alphabetic';
  let lastEnd = -Infinity;
  order.forEach((r, k) => {
    if (k > 0 && day(r.time) === day(order[k - 1].time)) return;
    const tx = x(k);
    g.strokeStyle = '#c9d1d9';
    g.beginPath();
    g.moveTo(tx, top);
    g.lineTo(tx, h - 18);
    g.stroke();
    const label = new Date(r.time).toLocaleDateString('en', { month: 'short', day: 'numeric', timeZone: 'UTC' });
    const lw = g.measureText(label).width, lx = Math.min(tx, w - right - lw);
    if (lx < lastEnd + 6) return;
    g.fillStyle = '#59636e';
    g.fillText(label, lx, h - 6);
    lastEnd = lx + lw;
  });
  order.forEach((cur, k) => {
    const versions = byId.get(cur.id), i = sessions.indexOf(cur.session ?? '-');
    const cx = x(k), cy = top + lane * i + lane / 2;
    g.fillStyle = LANE_COLOURS[i % LANE_COLOURS.length];
    g.beginPath();
    g.arc(cx, cy, 4, 0, 2 * Math.PI);
    g.fill();
    g.fillStyle = '#f0a500';
    for (let v = 0; v < Math.min(3, versions.length - 1); v++) g.fillRect(cx - 3, cy - 9 - 5 * v, 6, 4);
  });
  const [first, end] = order.length ? [day(order[0].time), day(order[order.length - 1].time)] : ['-', '-'];
  canvas.setAttribute('aria-label', `timeline of ${byId.size} memories in ${sessions.length} sessions, from ${first} to ${end}`);
  const edited = [...byId.values()].filter((v) => v.length > 1);
  const ul = $('mem-edits');
  ul.replaceChildren();
  for (const v of edited) {
    const li = document.createElement('li');
    li.textContent = `memory #${v[0].id}, ${v.length} versions: ` +
      v.map((r) => `"${r.text}" (${new Date(r.validFrom).toISOString().slice(0, 16).replace('T', ' ')})`).join(' \u2192 ');
    ul.append(li);
  }
  document.body.dataset.timeline = `${byId.size}:${rows.length}`;
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
    showAnswers(await backend.call('ask', { question, mode: $('mode').value, k: 5, recency: Number($('recency').value) }), question);
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
  await drawTimeline();
};
$('reset').onclick = async () => {
  backend.opened = await backend.call('reset');
  showStatus(backend.opened);
  $('answers').replaceChildren();
  $('mem-said').textContent = '';
  await drawTimeline();
};
window.addEventListener('resize', () => drawTimeline());
await drawTimeline();
window.demoReady = true;
