// 2026-12-02
// js/test/s3/s3file.test.mjs - S3File against a real RGW (run by tests/s3/run.sh, which starts Ceph,
// uploads $H5 as s3://$CAIRN_S3_BUCKET/data/f.h5 and sets the AWS_* variables): h5.File.open over
// S3 reads what it reads from the local file, with the bytes fetched bounded; errors name the
// object and the HTTP status.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h5, NodeFile, S3File } from '../../src/node.js';

const bucket = process.env.CAIRN_S3_BUCKET;
const url = `s3://${bucket}/data/f.h5`;

test('h5.File.open(S3File) reads like the local file', async () => {
  const s3 = await S3File.open(url);
  const f = await h5.File.open(s3, 'r');
  const local = await h5.File.open(new NodeFile(process.env.H5, 'r'), 'r');
  assert.deepEqual([...f.keys()], [...local.keys()]);
  for (const p of ['small', 'g/h/v', 'z']) {
    const a = f.get(p).value, b = local.get(p).value;
    assert.deepEqual(Array.from(a), Array.from(b), p);
  }
  const before = s3.bytesFetched;
  const small = f.get('small').value;
  assert.equal(small.length, 100);
  assert.ok(s3.bytesFetched - before <= 262144, `small dataset fetched ${s3.bytesFetched - before} bytes`);
  f.close();
  local.close();
  s3.close();
});

test('a missing object and a wrong key are clear errors', async () => {
  await assert.rejects(S3File.open(`s3://${bucket}/data/nope.h5`), /HEAD s3:\/\/.*\/data\/nope\.h5: HTTP 404/);
  await assert.rejects(S3File.open(url, { secretAccessKey: 'wrong' }), /HTTP 403.*check the access key/);
});
