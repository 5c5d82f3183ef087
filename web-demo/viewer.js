// 2026-12-02 - web-demo/viewer.js: the HDF5 viewer of the page. The file is read in a worker
// (web-demo/h5-worker.js) that fetches only what a view needs; this side draws the tree, the
// object's description, and a plot: uPlot for 1-D data (a small, fast canvas line chart: 50 KB,
// no dependencies, smooth at 100,000 points), a canvas heatmap with a colour map for 2-D data and
// for 2-D slices of N-D data (a slider per leading dimension), a table for compounds and strings.
import uPlot from '../js/node_modules/uplot/dist/uPlot.esm.js';
import { h5, MemoryFile } from '../js/src/index.js';
import { workerClient } from './shared.js';

const $ = (id) => document.getElementById(id);
const fmt = (n) => n.toLocaleString('en');
const w = new Worker(new URL('./h5-worker.js', import.meta.url), { type: 'module' });
let fileSize = 0, plot = null;
const call = workerClient(w);

function showBytes(r) {
  const pct = fileSize ? ` (${((100 * r.bytes) / fileSize).toFixed(r.bytes < fileSize / 100 ? 2 : 1)}% of the file)` : '';
  $('h5-bytes').textContent = `read ${fmt(r.bytes)} of ${fmt(fileSize)} bytes${pct} in ${fmt(r.reads)} reads` +
    (r.viewBytes !== undefined ? `; this view: ${fmt(r.viewBytes)} bytes` : '');
}

function showError(e) {
  $('h5-error').textContent = String(e.message || e).replace(/^Error: /, '');
  $('h5-error').hidden = false;
}

async function openSource(args, label) {
  $('h5-error').hidden = true;
  $('h5-tree').replaceChildren();
  $('h5-info').replaceChildren();
  $('h5-plot').replaceChildren();
  $('h5-note').textContent = `opening ${label}...`;
  document.body.dataset.h5open = '';
  try {
    const r = await call('open', args);
    fileSize = r.size;
    $('h5-note').textContent = `${r.name}: ${fmt(r.size)} bytes, ${r.tree.length} objects` + (r.note ? ` - ${r.note}` : '');
    showBytes(r);
    for (const o of r.tree) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = `node ${o.kind}`;
      b.style.paddingLeft = `${0.4 + o.depth * 0.9}rem`;
      b.dataset.path = o.path;
      b.textContent = o.path === '/' ? '/' : `${o.path.split('/').pop()}${o.kind === 'Group' ? '/' : ''}`;
      if (o.shape) b.append(Object.assign(document.createElement('span'), { className: 'shape', textContent: ` ${JSON.stringify(o.shape)}` }));
      b.onclick = () => select(o.path);
      $('h5-tree').append(b);
    }
    document.body.dataset.h5open = r.name;
    const first = r.tree.find((o) => o.kind === 'Dataset');
    if (first) await select(first.path);
  } catch (e) {
    $('h5-note').textContent = '';
    showError(e);
  }
}

function row(t, k, v) {
  const tr = t.insertRow();
  tr.insertCell().textContent = k;
  tr.insertCell().textContent = v;
}

async function select(path) {
  for (const b of $('h5-tree').children) b.classList.toggle('selected', b.dataset.path === path);
  $('h5-error').hidden = true;
  try {
    const o = await call('info', { path });
    const t = document.createElement('table');
    t.className = 'kv';
    row(t, 'path', o.path);
    row(t, 'kind', o.kind);
    if (o.kind === 'Group') row(t, 'members', o.members);
    if (o.kind === 'Dataset') {
      row(t, 'shape', o.shape ? `[${o.shape.join(', ')}]` : 'scalar');
      if (o.maxshape && JSON.stringify(o.maxshape) !== JSON.stringify(o.shape)) row(t, 'max shape', `[${o.maxshape.map((x) => x ?? 'unlimited').join(', ')}]`);
      row(t, 'type', o.dtype.startsWith('<') || o.dtype.startsWith('>') || o.dtype.startsWith('|') || o.dtype.length > 80 ? o.np_dtype : `${o.np_dtype} ${o.dtype}`);
      row(t, 'layout', o.layout + (o.chunks ? `, chunks [${o.chunks.join(', ')}]` : ''));
      row(t, 'filters', o.filters.length ? o.filters.join(', ') : 'none');
    }
    const at = document.createElement('table');
    at.className = 'attrs';
    if (o.attrs.length) {
      at.createTHead().insertRow().append(...['attribute', 'type', 'value'].map((h) => Object.assign(document.createElement('th'), { textContent: h })));
      for (const a of o.attrs) {
        const tr = at.insertRow();
        for (const v of [a.name, a.dtype, a.value]) tr.insertCell().textContent = v;
      }
    }
    $('h5-info').replaceChildren(t, ...(o.attrs.length ? [at] : []));
    showBytes(o);
    $('h5-plot').replaceChildren();
    if (o.kind === 'Dataset') await view(o, []);
  } catch (e) {
    showError(e);
  }
}

// viridis, 5 stops, linearly interpolated
const STOPS = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
function colour(t) {
  const x = Math.max(0, Math.min(1, t)) * (STOPS.length - 1), i = Math.min(STOPS.length - 2, Math.floor(x)), f = x - i;
  return STOPS[i].map((c, k) => Math.round(c + (STOPS[i + 1][k] - c) * f));
}

async function view(o, index) {
  const r = await call('read', { path: o.path, index });
  showBytes(r);
  const box = $('h5-plot');
  box.replaceChildren();
  if (plot) plot.destroy(), (plot = null);
  if (r.kind === 'scalar') box.textContent = `value: ${r.text}`;
  else if (r.kind === 'table') {
    const t = document.createElement('table');
    t.className = 'data';
    t.createTHead().insertRow().append(...['#', ...r.cols].map((h) => Object.assign(document.createElement('th'), { textContent: h })));
    r.rows.forEach((cells, i) => {
      const tr = t.insertRow();
      for (const v of [i, ...cells]) tr.insertCell().textContent = v;
    });
    const wrap = Object.assign(document.createElement('div'), { className: 'scroll' });
    wrap.append(t);
    box.append(wrap, Object.assign(document.createElement('p'), { className: 'note', textContent: `first ${r.rows.length} of ${fmt(r.total)} rows` }));
  } else if (r.kind === 'line') {
    const x = Float64Array.from(r.y, (_, i) => i);
    const width = Math.max(280, Math.min(box.clientWidth || 600, 900));
    plot = new uPlot({ width, height: 260, scales: { x: { time: false } }, legend: { show: false },
      series: [{}, { label: o.path, stroke: '#2f6fb3', width: 1.5 }], axes: [{}, { size: 56 }] }, [x, r.y], box);
    box.dataset.kind = 'line';
    if (r.total > r.y.length) box.append(Object.assign(document.createElement('p'), { className: 'note', textContent: `first ${fmt(r.y.length)} of ${fmt(r.total)} points` }));
  } else if (r.kind === 'image') {
    let lo = Infinity, hi = -Infinity;
    for (const v of r.z) if (Number.isFinite(v)) (lo = Math.min(lo, v)), (hi = Math.max(hi, v));
    const c = Object.assign(document.createElement('canvas'), { width: r.w, height: r.h, id: 'h5-heat' });
    const ctx = c.getContext('2d');
    const img = ctx.createImageData(r.w, r.h);
    for (let i = 0; i < r.z.length; i++) {
      const [R, G, B] = Number.isFinite(r.z[i]) ? colour(hi > lo ? (r.z[i] - lo) / (hi - lo) : 0.5) : [200, 200, 200];
      img.data.set([R, G, B, 255], i * 4);
    }
    ctx.putImageData(img, 0, 0);
    c.style.aspectRatio = `${r.w} / ${r.h}`;
    const bar = Object.assign(document.createElement('div'), { className: 'colourbar' });
    bar.style.background = `linear-gradient(to right, ${STOPS.map((s) => `rgb(${s.join(',')})`).join(', ')})`;
    const legend = Object.assign(document.createElement('div'), { className: 'legend' });
    legend.append(Object.assign(document.createElement('span'), { textContent: lo.toPrecision(4) }), bar, Object.assign(document.createElement('span'), { textContent: hi.toPrecision(4) }));
    box.dataset.kind = 'image';
    box.append(c, legend);
    if (r.step[0] > 1 || r.step[1] > 1) box.append(Object.assign(document.createElement('p'), { className: 'note', textContent: `every ${r.step[0]}th row and ${r.step[1]}th column` }));
    const lead = o.shape.slice(0, -2);
    if (lead.length) {
      const ctl = Object.assign(document.createElement('div'), { className: 'slicer' });
      lead.forEach((n, i) => {
        const l = document.createElement('label');
        const s = Object.assign(document.createElement('input'), { type: 'range', min: 0, max: n - 1, value: r.lead[i], id: `h5-dim${i}` });
        s.setAttribute('aria-label', `index in dimension ${i}`);
        const out = Object.assign(document.createElement('output'), { textContent: `${r.lead[i]} / ${n - 1}` });
        s.onchange = () => view(o, lead.map((_, k) => Number($(`h5-dim${k}`).value)));
        l.append(`dimension ${i}: `, s, out);
        ctl.append(l);
      });
      box.prepend(ctl);
    }
  }
  document.body.dataset.h5view = `${o.path}:${r.kind}:${index.join(',')}`;
}

// A sample file made here with cairn's writer: 1-D, 2-D, 3-D, a compound table, strings, attributes.
async function sample() {
  const out = await h5.File.create(new MemoryFile());
  const n = 2000;
  out.create_group('signals');
  out.create_dataset({ name: 'signals/sine', data: Float32Array.from({ length: n }, (_, i) => Math.sin(i / 40) + 0.3 * Math.sin(i / 7)), chunks: [500], compression: 'gzip' });
  out.get('signals/sine').create_attribute('units', 'volt');
  out.create_group('images');
  out.create_group('table');
  const H = 120, W = 160;
  out.create_dataset({ name: 'images/gauss', data: Float32Array.from({ length: H * W }, (_, i) => { const y = Math.floor(i / W) - H / 2, x = (i % W) - W / 2; return Math.exp(-(x * x + y * y) / 900) + 0.5 * Math.exp(-((x - 40) ** 2 + (y + 20) ** 2) / 120); }), shape: [H, W], chunks: [40, 40], compression: 'gzip', shuffle: true });
  out.create_dataset({ name: 'images/cube', data: Uint16Array.from({ length: 6 * 50 * 60 }, (_, i) => { const z = Math.floor(i / 3000), y = Math.floor(i / 60) % 50, x = i % 60; return ((x * (z + 1)) ^ (y * 3)) & 255; }), shape: [6, 50, 60], chunks: [1, 50, 60] });
  out.create_dataset({ name: 'table/events', data: [{ t: 0.5, id: 1, kind: 'start' }, { t: 1.25, id: 2, kind: 'step' }, { t: 3.0, id: 3, kind: 'stop' }], dtype: [['t', '<f8'], ['id', '<i4'], ['kind', 'S8']] });
  out.create_dataset({ name: 'table/names', data: ['alpha', 'beta', 'gamma', 'delta'] });
  out.create_attribute('title', 'cairn sample file');
  out.close();
  return new File([out.file.bytes()], 'sample.h5', { type: 'application/x-hdf5' });
}

$('h5-file').onchange = () => $('h5-file').files[0] && openSource({ blob: $('h5-file').files[0] }, $('h5-file').files[0].name);
$('h5-url-form').onsubmit = (e) => {
  e.preventDefault();
  const url = $('h5-url').value.trim();
  if (url) openSource({ url: new URL(url, location.href).href }, url);
};
$('h5-sample').onclick = async () => openSource({ blob: await sample() }, 'sample.h5');
const drop = $('h5-drop');
drop.ondragover = (e) => { e.preventDefault(); drop.classList.add('over'); };
drop.ondragleave = () => drop.classList.remove('over');
drop.ondrop = (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  const file = e.dataTransfer.files[0];
  if (file) openSource({ blob: file }, file.name);
};
window.viewerReady = true;
