// 2026-12-02 - the web app (web-demo/) in headless Chromium with real interactions: the HDF5 viewer
// on its sample file (tree clicks, a 1-D line plot, a 2-D heatmap, an N-D slice moved with the
// keyboard, a compound table), on a URL read through range requests (fewer bytes than the file),
// on a server without range requests (whole download, said so) and on a file that is not HDF5
// (the reader's error shown); the memory playground's score bars (recency too), its timeline,
// edit (a version in the history), delete and forget-a-session; the chunk-store panel's dedup;
// canvases not blank, no console errors, no horizontal overflow at 390 px. SHOTS=dir keeps the
// screenshots (docs/web-app.png is one of them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../tools/chromium.mjs';
import { serve } from '../tools/serve.mjs';
import { h5 } from '../src/node.js';

const repo = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));

// A canvas is "not blank" when it has many distinct colours.
const colours = (sel) => `(() => { const c = document.querySelector(${JSON.stringify(sel)}); const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  const s = new Set(); for (let i = 0; i < d.length; i += 16) s.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]); return s.size; })()`;

test('web app: HDF5 viewer, memory playground, chunk-store panel', { timeout: 240000 }, async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-webapp-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  for (const d of ['web-demo', 'js']) fs.symlinkSync(path.join(repo, d), path.join(root, d));
  // a 4 MB chunked file: opening it by URL must not download it
  const big = await h5.File.create(path.join(root, 'big.h5'));
  big.create_dataset({ name: 'series', data: Float32Array.from({ length: 1 << 20 }, (_, i) => Math.sin(i / 1000)), chunks: [16384] });
  big.close();
  fs.writeFileSync(path.join(root, 'notes.txt'), 'not an HDF5 file\n'.repeat(100));
  const { server, port } = await serve(root);
  const shots = process.env.SHOTS || fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-webapp-shots-'));
  const browser = await launchChromium();
  t.after(async () => { await browser.close(); server.close(); });
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  const errors = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`http://127.0.0.1:${port}/web-demo/`);
  await page.waitForFunction(() => window.viewerReady && window.storeReady && window.demoReady, null, { timeout: 60000 });

  // the sample file: tree, description, a line plot
  await page.click('#h5-sample');
  await page.waitForFunction(() => document.body.dataset.h5open === 'sample.h5');
  const tree = await page.$$eval('#h5-tree button', (bs) => bs.map((b) => b.dataset.path));
  for (const p of ['/', '/signals', '/signals/sine', '/images/gauss', '/images/cube', '/table/events', '/table/names']) assert.ok(tree.includes(p), `${p} in ${tree}`);
  await page.click('#h5-tree button[data-path="/signals/sine"]');
  await page.waitForFunction(() => document.body.dataset.h5view === '/signals/sine:line:');
  const info = await page.textContent('#h5-info');
  assert.match(info, /shape\[2000\]/);
  assert.match(info, /chunks \[500\]/);
  assert.match(info, /deflate/);
  assert.match(info, /unitsvolt|units.*volt/);
  assert.ok((await page.evaluate(colours('#h5-plot canvas'))) > 3, 'the line plot is drawn');
  assert.match(await page.textContent('#h5-bytes'), /^read [\d,]+ of [\d,]+ bytes .* this view: [\d,]+ bytes$/);
  // 2-D heatmap
  await page.click('#h5-tree button[data-path="/images/gauss"]');
  await page.waitForFunction(() => document.body.dataset.h5view === '/images/gauss:image:');
  assert.ok((await page.evaluate(colours('#h5-heat'))) > 50, 'the heatmap has many colours');
  await page.screenshot({ path: path.join(shots, 'web-app.png') });
  // N-D: a slider per leading dimension, moved with the keyboard
  await page.click('#h5-tree button[data-path="/images/cube"]');
  await page.waitForFunction(() => document.body.dataset.h5view === '/images/cube:image:');
  const first = await page.evaluate(() => document.getElementById('h5-heat').toDataURL());
  await page.focus('#h5-dim0');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.body.dataset.h5view === '/images/cube:image:1');
  assert.notEqual(await page.evaluate(() => document.getElementById('h5-heat').toDataURL()), first, 'slice 1 differs from slice 0');
  // the tree is keyboard-usable: Tab to a node, Enter opens it
  await page.focus('#h5-tree button[data-path="/table/events"]');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.body.dataset.h5view === '/table/events:table:');
  const table = await page.textContent('#h5-plot table');
  for (const w of ['kind', 'start', 'step', 'stop', '1.25']) assert.ok(table.includes(w), `${w} in ${table}`);
  await page.click('#h5-tree button[data-path="/table/names"]');
  await page.waitForFunction(() => document.body.dataset.h5view === '/table/names:table:');
  assert.match(await page.textContent('#h5-plot table'), /alpha.*beta.*gamma.*delta/s);

  // a URL: range requests, only what the view needs
  await page.fill('#h5-url', `/big.h5`);
  await page.click('#h5-url-form button');
  await page.waitForFunction(() => document.body.dataset.h5view === '/series:line:' || !document.getElementById('h5-error').hidden, null, { timeout: 60000 });
  assert.equal(await page.isHidden('#h5-error'), true, await page.textContent('#h5-error'));
  const bytes = await page.textContent('#h5-bytes');
  const [read, size] = bytes.match(/read ([\d,]+) of ([\d,]+)/).slice(1).map((x) => Number(x.replace(/,/g, '')));
  assert.ok(size > 4e6 && read < size / 2, `fetched ${read} of ${size} bytes (a view of 100,000 points needs ~400 KB)`);
  assert.ok((await page.evaluate(colours('#h5-plot canvas'))) > 3);
  // a server that ignores Range: whole download, said so
  await page.fill('#h5-url', '/big.h5?norange');
  await page.click('#h5-url-form button');
  await page.waitForFunction(() => /does not answer range requests/.test(document.getElementById('h5-note').textContent), null, { timeout: 30000 });
  assert.match(await page.textContent('#h5-note'), /downloaded the whole file, [\d,]+ bytes/);
  // not HDF5: the reader's error, not a blank page
  await page.fill('#h5-url', '/notes.txt');
  await page.click('#h5-url-form button');
  await page.waitForSelector('#h5-error:not([hidden])');
  assert.match(await page.textContent('#h5-error'), /CairnError|HDF5|signature|superblock/i);

  // memory playground: answers with score bars
  await page.fill('#question', "Who is Maya's cello teacher?");
  await page.click('#go');
  await page.waitForSelector('#answers li.answer .bars .bar');
  assert.match(await page.textContent('#answers li.answer'), /My teacher is called Rui/);
  assert.ok((await page.$$('#answers li.answer:first-child .bar')).length >= 2, 'bars for the fused score and its parts');
  assert.ok(await page.$('#answers li.answer:first-child .bar.recency'), 'a recency bar beside the others');
  const rec = await page.$eval('#answers li.answer:first-child .meta', (m) => Number(/recency ([\d.]+)/.exec(m.textContent)[1]));
  assert.ok(rec > 0 && rec <= 1, `recency ${rec} in (0, 1]`);
  // the timeline: every memory drawn, no version yet
  await page.waitForFunction(() => /^\d+:\d+$/.test(document.body.dataset.timeline || ''));
  const [nMem0, nRow0] = (await page.evaluate(() => document.body.dataset.timeline)).split(':').map(Number);
  assert.ok(nMem0 >= 20 && nRow0 === nMem0, `timeline ${nMem0} memories, ${nRow0} versions`);
  assert.ok((await page.evaluate(colours('#mem-timeline'))) > 3, 'the timeline is drawn');
  // edit with the keyboard: a new version, the old text kept in the history the timeline lists
  const id0 = await page.$eval('#answers li.answer:first-child', (li) => li.dataset.id);
  await page.focus('#answers li.answer:first-child button.edit');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('Maya: My cello teacher is now called Ines.');
  await page.keyboard.press('Enter');
  await page.waitForFunction((id) => document.body.dataset.memAct === `edit:${id}`, id0);
  await page.waitForFunction((n) => document.body.dataset.timeline === `${n}:${n + 1}`, nMem0);
  const edits = await page.textContent('#mem-edits');
  assert.match(edits, new RegExp(`memory #${id0}, 2 versions: ".*Rui.*" .*"Maya: My cello teacher is now called Ines\\."`));
  await page.waitForFunction((id) => [...document.querySelectorAll('#answers li.answer')].some((li) => li.dataset.id === id && /Ines/.test(li.textContent)), id0);
  // delete: gone from the answers and the timeline, its versions with it
  await page.click(`#answers li.answer[data-id="${id0}"] button.delete`);
  await page.waitForFunction((id) => document.body.dataset.memAct === `remove:${id}`, id0);
  await page.waitForFunction((n) => document.body.dataset.timeline === `${n - 1}:${n - 1}`, nMem0);
  assert.ok(!(await page.$(`#answers li.answer[data-id="${id0}"]`)), 'the deleted memory is not an answer');
  assert.equal(await page.textContent('#mem-edits'), '');
  assert.match(await page.textContent('#status'), new RegExp(` ${nMem0 - 1} memories, `), 'the status counts the memories held, not the highest id');
  // forget a whole session
  const sess = await page.$eval('#answers li.answer:first-child', (li) => li.dataset.session);
  await page.click('#answers li.answer:first-child button.forget');
  await page.waitForFunction((s) => document.body.dataset.memAct === `forgetSession:${s}`, sess);
  assert.match(await page.textContent('#mem-said'), new RegExp(`session ${sess} forgotten \\((\\d+) memories\\)`));
  const nForgot = Number(/\((\d+) memories\)/.exec(await page.textContent('#mem-said'))[1]);
  assert.ok(nForgot >= 1, 'some memories forgotten');
  await page.waitForFunction((n) => document.body.dataset.timeline === `${n}:${n}`, nMem0 - 1 - nForgot);
  await page.waitForFunction((s) => document.querySelectorAll('#answers li.answer').length > 0 && ![...document.querySelectorAll('#answers li.answer')].some((li) => li.dataset.session === s), sess);
  await page.screenshot({ path: path.join(shots, 'web-app-memory.png'), fullPage: true });

  // chunk store: the edited log adds only a few chunks
  await page.click('#cas-sample');
  await page.waitForFunction(() => document.body.dataset.casRows === '2', null, { timeout: 120000 }).catch(async (e) => {
    throw new Error(`${e.message}; rows: ${await page.evaluate(() => document.body.dataset.casRows)}; errors: ${errors.join(' | ')}`);
  });
  const rows = await page.$$eval('#cas-rows tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  const stored = rows.map((r) => Number(r[3].split(' ')[0].replace(/,/g, '')));
  const sizes = rows.map((r) => Number(r[1].replace(/,/g, '')));
  assert.ok(stored[0] === sizes[0] && stored[1] < sizes[1] / 4, `stored ${stored} of ${sizes}`);
  assert.ok(Number(rows[0][4].split(' ')[0].replace(/,/g, '')) < Number(rows[0][5].replace(/,/g, '')), 'the csv frame is smaller than zstd -3');

  // 390 px wide: nothing overflows sideways
  await page.setViewportSize({ width: 390, height: 844 });
  await page.click('#h5-sample');
  await page.waitForFunction(() => document.body.dataset.h5open === 'sample.h5');
  await page.click('#h5-tree button[data-path="/images/gauss"]');
  await page.waitForFunction(() => document.body.dataset.h5view === '/images/gauss:image:');
  await page.click('#h5-tree button[data-path="/signals/sine"]');
  await page.waitForFunction(() => document.body.dataset.h5view === '/signals/sine:line:');
  await page.fill('#question', 'Where does Maya live?');
  await page.click('#go');
  await page.waitForFunction(() => document.body.dataset.answered === 'Where does Maya live?');
  await page.focus('#answers li.answer:first-child button.edit');
  await page.keyboard.press('Enter'); // the editor open at 390 px too
  const over = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(over <= 0, `horizontal overflow of ${over} px at 390 px`);
  await page.screenshot({ path: path.join(shots, 'web-app-390.png'), fullPage: true });
  assert.deepEqual(errors.filter((e) => !/the server responded with a status of 404/.test(e) || /favicon/.test(e)), [], errors.join('\n'));
  const favicon = await (await fetch(`http://127.0.0.1:${port}/web-demo/favicon.svg`)).text();
  assert.match(favicon, /^<svg/);
});
