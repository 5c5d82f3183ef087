// 2026-12-02
// js/src/s3file.js - S3File: a read-only file over one S3 object (Ceph RGW, AWS, MinIO...), for
// h5.File.open(new S3File('s3://bucket/key.h5')) and every other reader of the package.
// Requests are signed with AWS Signature V4 (aws4fetch) and sent with fetch from a helper thread
// (js/src/s3worker-core.js: worker_threads in Node, a Worker in browsers); the calling thread waits for
// each answer with Atomics.wait, so reads stay synchronous as the core needs. That works in Node
// and in browser workers (not on a browser's main thread, where Atomics.wait is not allowed).
// Caching is HttpFile's (js/src/hosts.js): 64 KiB blocks for small reads, large reads in one range
// GET; S3File only replaces how a range is fetched (its prototype chain includes HttpFile's).
// Configuration: options, else (Node) AWS_ENDPOINT_URL / AWS_ENDPOINT_URL_S3, AWS_REGION /
// AWS_DEFAULT_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN. Path-style URLs
// when an endpoint is given, virtual-host style for AWS (addressing: 'path' | 'virtual').
import { HttpFile } from './hosts.js';

const env = typeof process !== 'undefined' && process.env ? process.env : {};
const isNode = typeof process !== 'undefined' && process.versions && process.versions.node;

function encodeKey(key) {
  return key.split('/').map((s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())).join('/');
}

/** Process-wide S3 configuration from options and the environment. */
export function s3Config(o = {}) {
  const endpoint = o.endpoint || env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || null;
  const region = o.region || env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1';
  const c = {
    endpoint: (endpoint || `https://s3.${region}.amazonaws.com`).replace(/\/+$/, ''),
    region,
    accessKeyId: o.accessKeyId || env.AWS_ACCESS_KEY_ID,
    secretAccessKey: o.secretAccessKey || env.AWS_SECRET_ACCESS_KEY,
    sessionToken: o.sessionToken || env.AWS_SESSION_TOKEN,
    addressing: o.addressing || env.CAIRN_S3_ADDRESSING || (endpoint ? 'path' : 'virtual'),
    retries: o.retries ?? 8,
  };
  if (!c.accessKeyId || !c.secretAccessKey) throw new Error('S3File: no credentials (options accessKeyId/secretAccessKey, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)');
  return c;
}

/** The HTTP URL of an object: path style `ENDPOINT/BUCKET/KEY`, or virtual-host style `BUCKET.HOST/KEY`. */
export function s3HttpUrl(cfg, bucket, key) {
  if (cfg.addressing !== 'virtual') return `${cfg.endpoint}/${bucket}/${encodeKey(key)}`;
  const e = new URL(cfg.endpoint);
  return `${e.protocol}//${bucket}.${e.host}/${encodeKey(key)}`;
}

let nodeWorker = null;
async function nodeWorkerClass() {
  if (!nodeWorker) nodeWorker = (await import('node:worker_threads')).Worker;
  return nodeWorker;
}

/**
 * A read-only S3 object as a synchronous file. Create it with `await S3File.open(url, options)`
 * (the helper thread starts asynchronously); `bytesFetched` and `requests` count what it cost.
 */
export class S3File {
  static async open(url, options = {}) {
    const W = isNode ? await nodeWorkerClass() : Worker;
    const f = new S3File(url, options, W, true);
    // A browser starts a nested worker only while its creator's event loop turns: wait for the
    // helper thread to answer before the first request blocks this thread in Atomics.wait.
    await new Promise((resolve, reject) => {
      const w = f.worker;
      if (w.once) w.once('message', resolve), w.once('error', reject);
      else w.addEventListener('message', resolve, { once: true }), w.addEventListener('error', (e) => reject(new Error(`S3File: the helper thread failed to start: ${e.message || e}`)), { once: true });
    });
    if (f.worker.unref) f.worker.unref();
    f.head();
    return f;
  }
  constructor(url, options = {}, WorkerClass = isNode ? nodeWorker : Worker, _started = false) {
    const m = /^s3:\/\/([^/]+)\/(.+)$/.exec(url);
    if (!m) throw new Error(`S3File: '${url}' is not s3://BUCKET/KEY`);
    if (!WorkerClass) throw new Error('S3File: use await S3File.open(url) in Node');
    this.bucket = m[1];
    this.key = m[2];
    this.name = url;
    this.cfg = s3Config(options);
    this.httpUrl = s3HttpUrl(this.cfg, this.bucket, this.key);
    this.blockSize = options.blockSize || 65536;
    this.cache = new Map();
    this.maxCached = options.maxCachedBlocks || 256;
    this.bytesFetched = 0;
    this.requests = 0;
    // Written out literally for browsers so that bundlers (vite, webpack) bundle the worker and its
    // import of aws4fetch; Node's worker_threads takes the same file URL.
    this.worker = isNode ? new WorkerClass(new URL('./s3worker-node.js', import.meta.url))
      : new Worker(new URL('./s3worker.js', import.meta.url), { type: 'module' });
    this.worker.postMessage({ config: this.cfg }); // answered with {ready: true}
    if (_started) return; // open() waits for the answer, then calls head()
    if (this.worker.unref) this.worker.unref(); // a forgotten close() does not keep Node alive
    this.head();
  }
  head() {
    this.length = this.request('HEAD', {}, 1024).contentLength;
  }
  /** One signed request, waited for synchronously; the body (at most nMax bytes) or an Error. */
  request(method, headers, nMax) {
    const ctrl = new Int32Array(new SharedArrayBuffer(16));
    const data = new Uint8Array(new SharedArrayBuffer(Math.max(nMax, 1024)));
    this.worker.postMessage({ method, url: this.httpUrl, headers, ctrl, data, retries: this.cfg.retries });
    Atomics.wait(ctrl, 0, 0);
    this.requests++;
    const what = `S3 ${method} s3://${this.bucket}/${this.key}${headers.Range ? ' ' + headers.Range : ''}`;
    if (ctrl[0] === 2) throw new Error(`${what}: ${new TextDecoder().decode(data.slice(0, ctrl[2]))} (${this.cfg.endpoint})`);
    const status = ctrl[1];
    if (status >= 300) {
      const code = new TextDecoder().decode(data.slice(0, ctrl[2]));
      throw new Error(`${what}: HTTP ${status}${code ? ' ' + code : ''}${status === 403 ? ' (check the access key and secret)' : ''}`);
    }
    this.bytesFetched += ctrl[2];
    return { status, contentLength: ctrl[3], body: data.slice(0, ctrl[2]) };
  }
  fetchRange(start, end) {
    const r = this.request('GET', { Range: `bytes=${start}-${end - 1}` }, end - start);
    if (r.body.length !== end - start) throw new Error(`S3 GET s3://${this.bucket}/${this.key} bytes ${start}-${end - 1}: got ${r.body.length} bytes`);
    return r.body;
  }
  close() {
    this.cache.clear();
    this.worker.terminate();
  }
}
// block(), readInto(), read(), size(): HttpFile's, over S3File's fetchRange.
Object.setPrototypeOf(S3File.prototype, HttpFile.prototype);
