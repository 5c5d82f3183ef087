// 2026-11-29 - loads the npm module in headless Chromium (playwright-core driving Debian's
// /usr/bin/chromium) from a plain <script type=module> and checks real results on the page:
// SHA-256 against WebCrypto and node:crypto, a zstd round trip, and in a worker OPFS, Blob and
// HTTP range reads (fetching a small fraction of the file).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../tools/serve.mjs';

const root = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
const sha = (b) => crypto.createHash('sha256').update(b).digest('hex');

test('npm module in headless Chromium: main thread and worker', { timeout: 120000 }, async () => {
  const target = path.join(root, 'js/test/browser/range-target.bin');
  const big = crypto.randomBytes(4 << 20);
  fs.writeFileSync(target, big);
  const { server, port, stats } = await serve(root);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
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
    assert.ok(stats.bytes.get('/js/test/browser/range-target.bin') < big.length / 100);
    // The page itself shows the result.
    assert.match(await page.textContent('#out'), /"roundTrip": true/);
  } finally {
    await browser.close();
    server.close();
    fs.rmSync(target, { force: true });
  }
});
