// 2026-12-02
// bench/s3/h5wasm.mjs URL DATASET - the h5wasm peer of bench/s3/run.sh: h5wasm has no range
// reads over HTTP, so it fetches the whole object (SigV4-signed with aws4fetch, the same request
// a browser would make), writes it into its in-memory FS and reads the dataset. Prints seconds.
const nm = new URL('../../js/node_modules/', import.meta.url);
const { AwsClient } = await import(new URL('aws4fetch/dist/aws4fetch.esm.mjs', nm));
const h5wasm = (await import(new URL('h5wasm/dist/node/hdf5_hl.js', nm))).default;
const { FS } = await h5wasm.ready;
const [url, dset] = process.argv.slice(2);
const aws = new AwsClient({ accessKeyId: process.env.AWS_ACCESS_KEY_ID, secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY,
  region: process.env.AWS_REGION || 'us-east-1', service: 's3' });
const t0 = performance.now();
const res = await aws.fetch(url);
if (res.status !== 200) throw new Error(`GET ${url}: HTTP ${res.status}`);
const buf = new Uint8Array(await res.arrayBuffer());
FS.writeFile('/tmp.h5', buf);
const f = new h5wasm.File('/tmp.h5', 'r');
const v = f.get(dset).value;
f.close();
console.log(`h5wasm over HTTP (whole file, ${buf.length} B fetched): ${((performance.now() - t0) / 1000).toFixed(3)} s for ${v.length * v.BYTES_PER_ELEMENT} B of ${dset}`);
