// 2026-11-29 - the package through a bundler: `vite build` of a tiny app that imports 'cairn' by
// name (resolved through package.json "exports"), then the built app runs in headless Chromium.
// Checks that the .wasm is emitted as a hashed asset referenced through new URL(...,
// import.meta.url), as sqlite-wasm's bundler test does after its regression #120.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { launchChromium } from '../tools/chromium.mjs';
import { serve } from '../tools/serve.mjs';

const pkg = path.resolve(fileURLToPath(new URL('..', import.meta.url)));

test('vite build of an app importing cairn, run in Chromium', { timeout: 180000 }, async () => {
  const app = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-vite-'));
  for (const f of ['index.html', 'main.js']) fs.copyFileSync(path.join(pkg, 'test/bundler', f), path.join(app, f));
  fs.mkdirSync(path.join(app, 'node_modules'));
  fs.symlinkSync(pkg, path.join(app, 'node_modules/cairn'), 'dir');
  await build({ root: app, logLevel: 'error', build: { outDir: path.join(app, 'dist'), target: 'es2022' } });
  const assets = fs.readdirSync(path.join(app, 'dist/assets'));
  const wasm = assets.find((f) => f.endsWith('.wasm'));
  assert.ok(wasm, `no .wasm asset among ${assets.join(', ')}`);
  const js = assets.filter((f) => f.endsWith('.js')).map((f) => fs.readFileSync(path.join(app, 'dist/assets', f), 'utf8')).join('\n');
  assert.ok(js.includes(wasm), 'the bundle references the emitted wasm asset');
  const { server, port } = await serve(path.join(app, 'dist'));
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`http://127.0.0.1:${port}/index.html`);
    await page.waitForFunction(() => window.results !== undefined, null, { timeout: 60000 });
    const r = await page.evaluate(() => window.results);
    assert.equal(r.sha, crypto.createHash('sha256').update('bundled cairn '.repeat(1000)).digest('hex'), errors.join('\n'));
    assert.equal(r.roundTrip, true);
  } finally {
    await browser.close();
    server.close();
    fs.rmSync(app, { recursive: true, force: true });
  }
});
