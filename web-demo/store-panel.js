// 2026-12-02 - web-demo/store-panel.js: the chunk-store and codec panel. Each dropped (or chosen)
// file is published into one chunk store kept in memory for the visit (content-defined chunks
// named by SHA-256): the table shows its chunks, how many bytes the store had to add (what
// deduplicates against earlier drops costs nothing), and the size of an OpenZL-format frame of it
// beside zstd's at level 3 and 19.
import { Store, compress, zstd } from '../js/src/index.js';

const $ = (id) => document.getElementById(id);
const fmt = (n) => n.toLocaleString('en');
const store = await Store.open(null, { chunking: { min: 16384, avg: 65536, max: 262144 } });

function profileOf(name, bytes) {
  if (/\.csv$/i.test(name)) return 'csv';
  return bytes.length % 4 === 0 && /\.(bin|u32|i32|f32)$/i.test(name) ? 'le-u32' : 'serial';
}

async function add(name, bytes) {
  const before = store.stats();
  const id = await store.put(bytes, { name });
  const after = store.stats();
  const entry = store.list().find((e) => e.id === id);
  const profile = profileOf(name, bytes);
  const [zl, z3, z19] = await Promise.all([compress(bytes, { profile, level: 3 }), zstd.compress(bytes, { level: 3 }), zstd.compress(bytes, { level: 19 })]);
  const added = after.storedBytes - before.storedBytes;
  const tr = $('cas-rows').insertRow();
  const cells = [name, fmt(bytes.length), fmt(entry.chunks), `${fmt(added)} (${bytes.length ? Math.round((100 * added) / bytes.length) : 0}%)`,
    `${fmt(zl.length)} (${profile})`, fmt(z3.length), fmt(z19.length), id.slice(0, 12) + '...'];
  for (const c of cells) tr.insertCell().textContent = c;
  $('cas-total').textContent = `store: ${fmt(after.payloads)} payloads, ${fmt(after.chunks)} distinct chunks, ${fmt(after.rawBytes)} bytes published, ${fmt(after.storedBytes)} stored`;
  document.body.dataset.casRows = String($('cas-rows').rows.length);
}

async function addFiles(files) {
  for (const f of files) await add(f.name, new Uint8Array(await f.arrayBuffer()));
}
$('cas-file').onchange = () => addFiles($('cas-file').files);
$('cas-sample').onclick = async () => {
  // a log, then the same log with one line changed: the second costs only the chunks around it
  const lines = Array.from({ length: 40000 }, (_, i) => `${1700000000 + i * 7},sensor-${i % 17},${(Math.sin(i / 50) * 20 + 20).toFixed(3)}\n`);
  const a = new TextEncoder().encode('time,sensor,value\n' + lines.join(''));
  lines[20000] = '1700140000,sensor-0,99.999\n';
  const b = new TextEncoder().encode('time,sensor,value\n' + lines.join(''));
  await add('log-monday.csv', a);
  await add('log-monday-edited.csv', b);
};
const drop = $('cas-drop');
drop.ondragover = (e) => { e.preventDefault(); drop.classList.add('over'); };
drop.ondragleave = () => drop.classList.remove('over');
drop.ondrop = (e) => { e.preventDefault(); drop.classList.remove('over'); addFiles(e.dataTransfer.files); };
window.storeReady = true;
