// 2026-11-29 - loads the npm module in headless Chromium (playwright-core driving Debian's
// /usr/bin/chromium) from a plain <script type=module> and checks real results on the page:
// SHA-256 against WebCrypto and node:crypto, a zstd round trip, and in a worker OPFS, Blob and
// HTTP range reads (fetching a small fraction of the file).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../tools/chromium.mjs';
import { serve } from '../tools/serve.mjs';
import { Memory, Store } from '../src/node.js';
import { pseudoRandom } from './helpers.mjs';

const root = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
const sha = (b) => crypto.createHash('sha256').update(b).digest('hex');

test('npm module in headless Chromium: main thread and worker', { timeout: 120000 }, async () => {
  const target = path.join(root, 'js/test/browser/range-target.bin');
  const big = crypto.randomBytes(4 << 20);
  fs.writeFileSync(target, big);
  const { server, port, stats } = await serve(root);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const logs = [];
    page.on('console', (m) => logs.push(m.text()));
    page.on('pageerror', (e) => logs.push(String(e)));
    await page.goto(`http://127.0.0.1:${port}/js/test/browser/page.html`);
    await page.waitForFunction(() => window.results !== undefined, null, { timeout: 60000 });
    const r = await page.evaluate(() => window.results);
    assert.equal(r.error, undefined, `${r.error}\n${logs.join('\n')}`);
    const text = Buffer.from('cairn in the browser '.repeat(5000));
    assert.equal(r.sha, sha(text));
    assert.equal(r.webCrypto, r.sha);
    assert.equal(r.memFileSha, r.sha);
    assert.ok(r.roundTrip);
    assert.ok(r.zstdBytes > 0 && r.zstdBytes < 1000);
    const w = r.worker;
    assert.equal(w.error, undefined, `${w.error}\n${logs.join('\n')}`);
    assert.ok(w.opfsWritten > 0);
    assert.equal(w.opfsRoundTrip, true);
    assert.equal(w.blobSha, true);
    assert.equal(w.httpSize, big.length);
    assert.equal(w.httpSliceSha, sha(big.subarray(100000, 101000)));
    assert.ok(w.httpFetched <= 8192, `fetched ${w.httpFetched} bytes for a 1000-byte read`);
    assert.equal(w.httpBigSha, sha(big.subarray(200000, 220000)));
    assert.equal(w.httpBigIntoN, 20000);
    assert.equal(w.httpBigIntoSha, sha(big.subarray(300000, 320000)));
    assert.equal(w.httpBigRequests, 2);
    assert.equal(w.httpTailN, 100);
    assert.equal(w.httpTailSha, sha(big.subarray(big.length - 100)));
    // what the server sent is what HttpFile counted: two 4 KiB blocks, the two large reads
    // alone, and the file's last block (1.3% of the file)
    assert.equal(stats.bytes.get('/js/test/browser/range-target.bin'), w.httpFetchedTotal);
    assert.ok(w.httpFetchedTotal <= 8192 + 40000 + 4096, `fetched ${w.httpFetchedTotal} bytes`);
    // Memory in the page: the answering turn first, and the same hits and scores as in Node.
    assert.equal(r.memory.count, 34);
    assert.match(r.memory.hits[0].text, /teacher is called Rui/);
    const mem = await Memory.open();
    const { turns } = await Memory.demoData();
    for (const t of turns) mem.add({ text: `${t.speaker}: ${t.text}`, session: t.session, role: t.speaker, time: t.time, created: t.time });
    assert.deepEqual(r.memory.hits, mem.search("Who is Maya's cello teacher?", { k: 3, mode: 'hybrid' }).map((h) => ({ id: h.id, score: h.score, text: h.text })));
    mem.close();
    // Store in the worker's OPFS file: the id Node computes for the same bytes, one payload after
    // reopening, the range verified and equal to node:crypto's hash of the same bytes.
    const payload = pseudoRandom(3 << 20, 77);
    const store = await Store.open();
    assert.equal(w.storeId, await store.put(payload));
    store.close();
    assert.deepEqual(w.storeList, [{ id: w.storeId, size: payload.length, name: 'payload' }]);
    assert.equal(w.storeRangeSha, sha(payload.subarray(1000000, 2000000)));
    assert.equal(w.storeVerify, true);
    // The page itself shows the result.
    assert.match(await page.textContent('#out'), /"roundTrip": true/);
    // The web demo: ask a question, the answering memory is listed; reloading reopens the OPFS file.
    const demo = await browser.newPage();
    demo.on('pageerror', (e) => logs.push(String(e)));
    await demo.goto(`http://127.0.0.1:${port}/web-demo/`);
    await demo.waitForFunction(() => window.demoReady === true, null, { timeout: 60000 });
    assert.match(await demo.textContent('#status'), /ingested 34 turns .* storage: OPFS/);
    await demo.fill('#question', "Who is Maya's cello teacher?");
    await demo.click('#go');
    await demo.waitForSelector('#answers li.answer');
    const answers = await demo.$$eval('#answers li.answer', (lis) => lis.map((li) => li.textContent));
    assert.ok(answers.length > 0 && answers.length <= 5);
    assert.match(answers[0], /My teacher is called Rui/);
    const shot = await demo.screenshot({ path: path.join(os.tmpdir(), 'cairn-web-demo.png'), fullPage: true });
    assert.ok(shot.length > 10000 && shot.subarray(1, 4).toString() === 'PNG', `screenshot of ${shot.length} bytes`);
    await demo.reload();
    await demo.waitForFunction(() => window.demoReady === true, null, { timeout: 60000 });
    assert.match(await demo.textContent('#status'), /reopened 34 memories .* storage: OPFS/);
    await demo.click('#examples button');
    await demo.waitForSelector('#answers li.answer');
    await demo.fill('#fact', 'My favourite colour is teal');
    await demo.click('#add');
    await demo.waitForFunction(() => /35 memories/.test(document.getElementById('status').textContent));
    await demo.fill('#question', 'favourite colour?');
    await demo.click('#go');
    await demo.waitForFunction(() => document.body.dataset.answered === 'favourite colour?');
    assert.match(await demo.textContent('#answers li.answer'), /You: My favourite colour is teal/);
    // Without OPFS (forced with ?memory) the same questions get the same answers.
    await demo.goto(`http://127.0.0.1:${port}/web-demo/index.html?memory`);
    await demo.waitForFunction(() => window.demoReady === true, null, { timeout: 60000 });
    assert.match(await demo.textContent('#status'), /ingested 34 turns .* storage: memory only/);
    await demo.fill('#question', "Who is Maya's cello teacher?");
    await demo.click('#go');
    await demo.waitForSelector('#answers li.answer');
    assert.deepEqual(await demo.$$eval('#answers li.answer', (lis) => lis.map((li) => li.textContent)), answers);
    assert.equal(logs.filter((l) => /Error/.test(l)).length, 0, logs.join('\n'));
  } finally {
    await browser.close();
    server.close();
    fs.rmSync(target, { force: true });
  }
});
