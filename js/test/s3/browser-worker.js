// 2026-12-02 - js/test/s3/browser-worker.js: in a browser's dedicated worker, open an HDF5 object in
// RGW through S3File (requests signed with SigV4 and fetched cross-origin from the S3 helper thread)
// and read three datasets with h5.File; posts their values (or digests) and the bytes fetched.
import { h5, S3File } from '/js/src/index.js';

self.onmessage = async (e) => {
  const o = e.data, r = {};
  try {
    const t0 = performance.now();
    const s3 = await S3File.open(o.url, o.options);
    const f = await h5.File.open(s3, 'r');
    r.url = s3.httpUrl;
    r.keys = [...f.keys()];
    r.small = Array.from(f.get('small').value);
    r.smallFetched = s3.bytesFetched;
    const v = f.get('g/h/v').value;
    r.v = { n: v.length, first: v[0], mid: v[500], last: v[v.length - 1] };
    const before = s3.bytesFetched;
    const z = f.get('z').value; // 1 Mi int32 in gzip chunks of 16 Ki
    r.zFetched = s3.bytesFetched - before;
    let bad = 0;
    for (let i = 0; i < z.length; i++) if (z[i] !== i) bad++;
    r.z = { n: z.length, bad, bytes: z.byteLength };
    r.bytesFetched = s3.bytesFetched;
    r.requests = s3.requests;
    r.size = s3.size();
    r.ms = Math.round(performance.now() - t0);
    f.close();
    s3.close();
  } catch (err) {
    r.error = String(err && err.stack || err);
  }
  postMessage(r);
};
