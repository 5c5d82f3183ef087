// 2026-12-02
// js/test/s3/virtual.test.mjs - S3File's virtual-host style (BUCKET.HOST/KEY) against RGW, which
// tests/s3 starts with rgw_dns_name = localhost. Node cannot open BUCKET.localhost here: glibc
// resolves only the names in /etc/hosts ("localhost"), not its subdomains (curl and Chromium map
// *.localhost to loopback themselves; js/test/s3/browser.test.mjs reads through that in Chromium).
// So this test checks the URL S3File builds, and sends a request signed for it exactly as the S3
// helper thread signs it (aws4fetch) to 127.0.0.1 with the virtual host in the Host header: RGW
// takes the bucket from the Host, checks the signature (a Host of another bucket is refused) and
// returns the bytes of the local file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import dns from 'node:dns/promises';
import fs from 'node:fs';
import http from 'node:http';
import { AwsClient } from 'aws4fetch';
import { s3Config, s3HttpUrl } from '../../src/s3file.js';

const bucket = process.env.CAIRN_S3_BUCKET;
const port = new URL(process.env.AWS_ENDPOINT_URL).port;

function send(signed, host) { // the signed request to 127.0.0.1, Host: host
  const u = new URL(signed.url);
  const headers = Object.fromEntries(signed.headers);
  headers.host = host;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: signed.method, path: u.pathname + u.search, headers }, (res) => {
      const parts = [];
      res.on('data', (d) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(parts) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('virtual-host style: the URL, and a request signed for it, against RGW', async () => {
  const cfg = s3Config({ endpoint: `http://localhost:${port}`, addressing: 'virtual' });
  const url = s3HttpUrl(cfg, bucket, 'data/f.h5');
  assert.equal(url, `http://${bucket}.localhost:${port}/data/f.h5`);
  assert.equal(s3HttpUrl(cfg, 'b', "a b/c+d(1)!.h5"), `http://b.localhost:${port}/a%20b/c%2Bd%281%29%21.h5`);
  assert.equal(s3HttpUrl({ ...cfg, addressing: 'path' }, 'b', 'k/x.h5'), `http://localhost:${port}/b/k/x.h5`);
  assert.equal(s3HttpUrl({ endpoint: 'https://s3.eu-west-1.amazonaws.com', addressing: 'virtual' }, 'b', 'k'),
    'https://b.s3.eu-west-1.amazonaws.com/k');
  const resolved = await dns.lookup(`${bucket}.localhost`).then((a) => a.address, (e) => e.code);
  console.log(`${bucket}.localhost from Node: ${resolved}`);

  const client = new AwsClient({ accessKeyId: cfg.accessKeyId, secretAccessKey: cfg.secretAccessKey, region: cfg.region, service: 's3', retries: 0 });
  const signed = await client.sign(url, { method: 'GET', headers: { Range: 'bytes=1000-4999' } });
  const r = await send(signed, new URL(url).host);
  assert.equal(r.status, 206, r.body.toString());
  assert.deepEqual(r.body, fs.readFileSync(process.env.H5).subarray(1000, 5000));
  const head = await send(await client.sign(url, { method: 'HEAD' }), new URL(url).host);
  assert.equal(head.status, 200);
  // The Host is part of what is signed: the same request for another bucket's host is refused.
  const other = await send(signed, `other-${bucket}.localhost:${port}`);
  assert.equal(other.status, 403, `another Host: HTTP ${other.status}`);
});
