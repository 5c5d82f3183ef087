// 2026-12-02 - web-demo/h5-worker.js: the HDF5 viewer's reader, in a dedicated worker (BlobFile and
// HttpFile read synchronously, which only workers may). A dropped or chosen file is read through
// BlobFile (File.slice + FileReaderSync: only the bytes the reader asks for); a URL through
// HttpFile (HTTP range requests, cached in blocks), or, when the server does not answer range
// requests, downloaded whole (the page says so and shows the size). Every reply carries the bytes
// read from the source so far, so the page can show what each view cost.
// Protocol: {id, op: 'open'|'info'|'read', ...} -> {id, result} or {id, error}.
import { h5, BlobFile, HttpFile, MemoryFile } from '../js/src/index.js';
import { serveOps } from './shared.js';

let f = null, src = null, note = '';

/** A file object that counts what the reader takes from it. */
function counting(file) {
  const c = { bytes: 0, reads: 0 };
  const w = {
    name: file.name,
    size: () => file.size(),
    read(offset, length) {
      const b = file.read(offset, length);
      c.bytes += b.length, c.reads++;
      return b;
    },
    close: () => file.close?.(),
  };
  if (file.readInto) w.readInto = (offset, u8) => {
    const n = file.readInto(offset, u8);
    c.bytes += n, c.reads++;
    return n;
  };
  return { file: w, c };
}

function source(http) {
  // HttpFile counts the bytes that crossed the network (blocks fetched), which is what a URL costs.
  return http ? { bytes: http.bytesFetched, reads: http.requests } : src.c;
}
let httpFile = null;

async function open({ blob, url }) {
  if (f) f.close();
  f = null, httpFile = null, note = '';
  let file;
  if (blob) file = new BlobFile(blob, blob.name);
  else {
    try {
      httpFile = new HttpFile(url, { blockSize: 64 * 1024 });
      httpFile.fetchRange(0, Math.min(httpFile.size(), 8));
      file = httpFile;
    } catch (e) {
      httpFile = null;
      const r = await fetch(url);
      if (!r.ok) throw new Error(`GET ${url}: HTTP ${r.status}`);
      const whole = new Uint8Array(await r.arrayBuffer());
      note = `this server does not answer range requests (${e.message.split(' (')[0]}): downloaded the whole file, ${whole.length.toLocaleString('en')} bytes`;
      file = new MemoryFile(whole, url);
    }
  }
  src = counting(file);
  f = await h5.File.open(src.file);
  const tree = [{ path: '/', kind: 'Group', depth: 0 }];
  for (const p of f.paths().slice(0, 5000)) {
    const o = f.get(p);
    const kind = o ? (o.type === 'Group' || o.type === 'File' ? 'Group' : o.type) : 'missing';
    tree.push({ path: '/' + p, kind, depth: p.split('/').length, shape: kind === 'Dataset' ? o.shape : undefined });
  }
  return { name: blob ? blob.name : url, size: file.size(), tree, note, ...stats() };
}

function stats() {
  const s = source(httpFile);
  return { bytes: s.bytes, reads: s.reads };
}

const dtypeText = (d) => (typeof d === 'string' ? d : JSON.stringify(d));
function valueText(v) {
  if (v === null || v === undefined) return String(v);
  if (ArrayBuffer.isView(v)) v = Array.from(v, (x) => (typeof x === 'bigint' ? x.toString() : x));
  const s = JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? x.toString() : x));
  return s.length > 300 ? s.slice(0, 300) + '...' : s;
}

function info({ path }) {
  const o = f.get(path);
  if (!o) throw new Error(`${path}: not found`);
  const out = { path, kind: o.type === 'File' ? 'Group' : o.type, attrs: [] };
  for (const [name, a] of Object.entries(o.attrs)) out.attrs.push({ name, dtype: dtypeText(a.dtype), shape: a.shape, value: valueText(a.value) });
  if (out.kind === 'Dataset') {
    const m = o.metadata;
    Object.assign(out, { shape: o.shape, maxshape: m.maxshape ?? null, dtype: dtypeText(o.dtype), np_dtype: o.np_dtype, layout: m.layout, chunks: m.chunks ?? null,
      filters: o.filters.map((x) => `${x.name}${x.cd_values.length ? ' (' + x.cd_values.join(', ') + ')' : ''}`),
      typeClass: m.type, size: m.size, compound: m.compound_type ? m.compound_type.members.map((x) => x.name) : null });
  }
  if (out.kind === 'Group') out.members = o.keys().length;
  return { ...out, ...stats() };
}

// Read what the page shows: 1-D up to 100,000 points, 2-D (or the last two dimensions of an N-D
// slice) with a step so at most ~512 x 512 values come back, tables of the first 100 rows.
function read({ path, index = [] }) {
  const d = f.get(path);
  const shape = d.shape ?? [];
  const m = d.metadata;
  const numeric = m.type === 0 || m.type === 1;
  const before = stats().bytes;
  if (!shape.length) return { kind: 'scalar', text: valueText(d.value), ...stats(), viewBytes: stats().bytes - before };
  if (!numeric) {
    const n = Math.min(shape[0], 100);
    const ranges = shape.map((s, i) => (i === 0 ? [0, n] : [0, Math.min(s, 8)]));
    const v = d.slice(ranges);
    const rows = Array.from(v, (x) => (x && typeof x === 'object' && !ArrayBuffer.isView(x) ? x : { value: x }));
    const cols = rows.length && typeof rows[0] === 'object' ? Object.keys(rows[0]) : ['value'];
    return { kind: 'table', cols, rows: rows.map((r) => cols.map((c) => valueText(r[c]))), total: shape[0], ...stats(), viewBytes: stats().bytes - before };
  }
  if (shape.length === 1) {
    const n = Math.min(shape[0], 100000);
    const v = d.slice([[0, n]]);
    return { kind: 'line', y: Float64Array.from(v, Number), total: shape[0], ...stats(), viewBytes: stats().bytes - before };
  }
  const lead = shape.slice(0, -2).map((s, i) => Math.max(0, Math.min(s - 1, index[i] ?? 0)));
  const [H, W] = shape.slice(-2);
  const sy = Math.ceil(H / 512), sx = Math.ceil(W / 512);
  const v = d.slice([...lead.map((i) => [i, i + 1]), [0, H, sy], [0, W, sx]]);
  const h = Math.ceil(H / sy), w = Math.ceil(W / sx);
  return { kind: 'image', z: Float64Array.from(v, Number), h, w, step: [sy, sx], lead, ...stats(), viewBytes: stats().bytes - before };
}

const ops = { open, info, read };
serveOps(ops);
