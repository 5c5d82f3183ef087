// 2026-12-02
// js/src/s3worker-core.js - what the helper thread of S3File does (js/src/s3file.js): it signs S3 requests with
// AWS Signature V4 (aws4fetch) and runs them with fetch, which is asynchronous, while the thread
// that asked waits in Atomics.wait, so S3File's reads can stay synchronous as the core needs.
// One request at a time: {id, method, url, headers, ctrl, data} where ctrl is an Int32Array over a
// SharedArrayBuffer ([0] state: 0 waiting, 1 done, 2 failed; [1] HTTP status; [2] body length;
// [3] content length of a HEAD) and data a Uint8Array over a SharedArrayBuffer for the body (or
// the error's text). Transient failures (5xx, 429, network errors) are retried with backoff.
import { AwsClient } from 'aws4fetch';

// The thread's entry is s3worker.js in browsers (self.onmessage) and s3worker-node.js in Node
// (worker_threads), so that a bundler that bundles the browser worker never sees a Node import.
let client = null;

// post(message) answers the configuration message with {ready: true} (S3File.open waits for it).
export async function onMessage(m, post) {
  if (m.config) {
    client = new AwsClient({ accessKeyId: m.config.accessKeyId, secretAccessKey: m.config.secretAccessKey,
      sessionToken: m.config.sessionToken, region: m.config.region, service: 's3', retries: 0 });
    post({ ready: true });
    return;
  }
  const { method, url, headers, ctrl, data, retries } = m;
  const enc = new TextEncoder();
  let last = '';
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await client.fetch(url, { method, headers });
      const body = method === 'HEAD' ? new Uint8Array(0) : new Uint8Array(await res.arrayBuffer());
      if ((res.status >= 500 || res.status === 429) && attempt < retries) {
        last = `HTTP ${res.status}`;
      } else {
        ctrl[1] = res.status;
        ctrl[3] = Number(res.headers.get('content-length') || 0);
        if (res.status >= 300) {
          const t = new TextDecoder().decode(body);
          const code = (t.match(/<Code>([^<]*)<\/Code>/) || [])[1] || '';
          const msg = enc.encode(code);
          data.set(msg.subarray(0, data.length));
          ctrl[2] = Math.min(msg.length, data.length);
        } else {
          if (body.length > data.length) throw new Error(`${method} ${url}: ${body.length} bytes, more than the ${data.length} asked for`);
          data.set(body);
          ctrl[2] = body.length;
        }
        Atomics.store(ctrl, 0, 1);
        Atomics.notify(ctrl, 0);
        return;
      }
    } catch (e) {
      last = String(e && e.message || e);
      if (attempt >= retries) {
        const msg = enc.encode(last);
        data.set(msg.subarray(0, data.length));
        ctrl[2] = Math.min(msg.length, data.length);
        Atomics.store(ctrl, 0, 2);
        Atomics.notify(ctrl, 0);
        return;
      }
    }
    const cap = Math.min(2000, 100 * 2 ** Math.min(attempt, 5));
    await new Promise((r) => setTimeout(r, cap / 2 + Math.random() * cap / 2));
  }
}
