// 2026-12-02
// js/test/s3/browser.test.mjs - issue 22 item 6: an HDF5 dataset read from RGW in a browser worker
// through S3File. Run by tests/s3/run.sh (Ceph up, $H5 uploaded as s3://$CAIRN_S3_BUCKET/data/f.h5,
// AWS_* set). The test puts a CORS rule on the bucket (PutBucketCors), serves the repo root from a
// loopback server that makes the page cross-origin isolated (COOP/COEP: SharedArrayBuffer), and runs
// headless Chromium (playwright-core): the worker reads /small, /g/h/v and the gzip-chunked /z
// (4 MiB) from RGW, a different origin; the values equal h5py's, the bytes fetched are bounded; then
// the same in virtual-host style (BUCKET.localhost, which Chromium resolves to loopback itself).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AwsClient } from 'aws4fetch';
import { launchChromium } from '../../tools/chromium.mjs';

const root = path.resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const bucket = process.env.CAIRN_S3_BUCKET;
const endpoint = process.env.AWS_ENDPOINT_URL;
const region = process.env.AWS_REGION || 'us-east-1';
const MIME = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm' };

// The repo root, cross-origin isolated; the bare import of aws4fetch in js/src/s3worker-core.js (which
// bundlers resolve) points at node_modules' ES module build.
const missing = []; // paths the page asked for and did not get
function serveIsolated() {
  const esm = '/js/node_modules/aws4fetch/dist/aws4fetch.esm.mjs';
  const server = http.createServer((req, res) => {
    const p = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = path.join(root, p);
    if (!file.startsWith(root + '/') || !fs.existsSync(file) || !fs.statSync(file).isFile()) { missing.push(p); res.writeHead(404).end(); return; }
    let body = fs.readFileSync(file);
    if (p === '/js/src/s3worker-core.js') body = Buffer.from(body.toString().replace(/from 'aws4fetch'/, `from '${esm}'`));
    res.writeHead(200, { 'Content-Type': MIME[path.extname(file)] || 'application/octet-stream', 'Cache-Control': 'no-store',
      'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' });
    res.end(body);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: server.address().port })));
}

async function putCors(origin) {
  const aws = new AwsClient({ accessKeyId: process.env.AWS_ACCESS_KEY_ID, secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY, region, service: 's3' });
  const xml = `<CORSConfiguration><CORSRule><AllowedOrigin>${origin}</AllowedOrigin><AllowedMethod>GET</AllowedMethod>` +
    '<AllowedMethod>HEAD</AllowedMethod><AllowedHeader>*</AllowedHeader><ExposeHeader>Content-Length</ExposeHeader>' +
    '<ExposeHeader>Content-Range</ExposeHeader><ExposeHeader>ETag</ExposeHeader><MaxAgeSeconds>3000</MaxAgeSeconds></CORSRule></CORSConfiguration>';
  const md5 = crypto.createHash('md5').update(xml).digest('base64');
  const res = await aws.fetch(`${endpoint}/${bucket}?cors`, { method: 'PUT', body: xml, headers: { 'Content-MD5': md5, 'Content-Type': 'application/xml' } });
  assert.equal(res.status, 200, `PutBucketCors: HTTP ${res.status} ${await res.text()}`);
  const got = await aws.fetch(`${endpoint}/${bucket}?cors`);
  assert.match(await got.text(), new RegExp(origin.replace(/[.:/]/g, '\\$&')), 'GetBucketCors');
}

test('a browser worker reads HDF5 datasets from RGW through S3File', { timeout: 90000 }, async () => {
  const { server, port } = await serveIsolated();
  const origin = `http://127.0.0.1:${port}`;
  await putCors(origin);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const logs = [];
    page.on('console', (m) => logs.push(m.text()));
    page.on('pageerror', (e) => logs.push(String(e)));
    await page.goto(`${origin}/js/test/s3/browser.html`);
    assert.equal(await page.evaluate(() => self.crossOriginIsolated), true, 'the page is cross-origin isolated');
    const options = { endpoint, region, accessKeyId: process.env.AWS_ACCESS_KEY_ID, secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY };
    const run = (o) => Promise.race([page.evaluate((x) => window.runS3(x), o),
      new Promise((resolve) => setTimeout(() => resolve({ error: 'no answer from the worker in 30 s' }), 30000).unref())]);
    const r = await run({ url: `s3://${bucket}/data/f.h5`, options });
    assert.equal(r.error, undefined, `${r.error}\n${logs.join('\n')}\nnot found: ${missing.join(' ')}`);
    assert.deepEqual(r.keys, ['big', 'c256k', 'c4m', 'g', 'small', 'z']);
    assert.deepEqual(r.small, Array.from({ length: 100 }, (_, i) => i));
    assert.deepEqual({ ...r.v, mid: undefined }, { n: 1000, first: 0, mid: undefined, last: 1 });
    assert.ok(Math.abs(r.v.mid - 500 / 999) < 1e-15, `v[500] = ${r.v.mid}`);
    assert.deepEqual(r.z, { n: 1 << 20, bad: 0, bytes: 4 << 20 });
    assert.equal(r.size, fs.statSync(process.env.H5).size);
    assert.ok(r.smallFetched <= 262144, `the 200-byte dataset (with the metadata) fetched ${r.smallFetched} bytes`);
    assert.ok(r.zFetched <= (4 << 20) * 1.2, `the 4 MiB gzip dataset fetched ${r.zFetched} bytes`);
    assert.ok(r.bytesFetched < r.size / 5, `fetched ${r.bytesFetched} of ${r.size} bytes`);
    console.log(`browser worker over RGW: /small ${r.smallFetched} B (with metadata), /z (4 MiB, gzip) ${r.zFetched} B; ` +
      `${r.bytesFetched} B in ${r.requests} requests of a ${r.size} B file, ${r.ms} ms`);
    // Virtual-host style: Chromium maps BUCKET.localhost to loopback, RGW has rgw_dns_name = localhost.
    const port = new URL(endpoint).port;
    const v = await run({ url: `s3://${bucket}/data/f.h5`,
      options: { ...options, endpoint: `http://localhost:${port}`, addressing: 'virtual' } });
    assert.equal(v.error, undefined, `virtual-host style: ${v.error}\n${logs.join('\n')}`);
    assert.equal(v.url, `http://${bucket}.localhost:${port}/data/f.h5`);
    assert.deepEqual([v.small, v.z], [r.small, r.z]);
    console.log(`browser worker, virtual-host style (${v.url}): the same values, ${v.bytesFetched} B in ${v.requests} requests`);
  } finally {
    await browser.close();
    server.close();
  }
});
