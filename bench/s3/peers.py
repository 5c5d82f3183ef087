#!/usr/bin/env python3
# 2026-12-02
# bench/s3/peers.py - the peers of bench/s3/run.sh for HDF5 reads from S3 (RGW):
#   seqget LOCAL.h5 DSET KEY   one range GET per chunk of DSET, one after the other, on one kept-alive
#                              connection (the baseline "sequential GETs of its chunks"), signed with
#                              SigV4 here (stdlib hmac/hashlib); chunk addresses from h5py on LOCAL
#   ros3 KEY DSET              libhdf5's read-only S3 driver (Debian's build has it) through h5py
# Both print "seconds bytes". Endpoint, keys, region: AWS_* variables; bucket: CAIRN_S3_BUCKET.
import datetime, hashlib, hmac, http.client, os, sys, time, urllib.parse
import h5py

EP = urllib.parse.urlparse(os.environ["AWS_ENDPOINT_URL"])
AK, SK = os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"]
REGION = os.environ.get("AWS_REGION", "us-east-1")
BUCKET = os.environ.get("CAIRN_S3_BUCKET", "cairn")

def sign(method, path, headers):
    t = datetime.datetime.utcnow()
    amz, day = t.strftime("%Y%m%dT%H%M%SZ"), t.strftime("%Y%m%d")
    h = dict(headers, host=EP.netloc, **{"x-amz-date": amz, "x-amz-content-sha256": hashlib.sha256(b"").hexdigest()})
    names = sorted(k.lower() for k in h)
    canon = "\n".join([method, path, "", "".join(f"{k}:{h[k] if k in h else h[k.title()]}\n" for k in names),
                       ";".join(names), h["x-amz-content-sha256"]])
    scope = f"{day}/{REGION}/s3/aws4_request"
    sts = "\n".join(["AWS4-HMAC-SHA256", amz, scope, hashlib.sha256(canon.encode()).hexdigest()])
    k = ("AWS4" + SK).encode()
    for part in (day, REGION, "s3", "aws4_request"):
        k = hmac.new(k, part.encode(), hashlib.sha256).digest()
    sig = hmac.new(k, sts.encode(), hashlib.sha256).hexdigest()
    h["Authorization"] = f"AWS4-HMAC-SHA256 Credential={AK}/{scope}, SignedHeaders={';'.join(names)}, Signature={sig}"
    return h

def seqget(local, dset, key):
    with h5py.File(local, "r") as f:
        d = f[dset]
        spans = [(c.byte_offset, c.size) for c in (d.id.get_chunk_info(i) for i in range(d.id.get_num_chunks()))]
    conn = http.client.HTTPConnection(EP.hostname, EP.port)
    path = f"/{BUCKET}/{key}"
    t0, n = time.perf_counter(), 0
    for off, size in spans:
        conn.request("GET", path, headers=sign("GET", path, {"range": f"bytes={off}-{off + size - 1}"}))
        r = conn.getresponse()
        body = r.read()
        assert r.status == 206, (r.status, body[:200])
        n += len(body)
    print(f"{time.perf_counter() - t0:.3f} {n}")

def ros3(key, dset):
    url = f"{EP.scheme}://{EP.netloc}/{BUCKET}/{key}"
    t0 = time.perf_counter()
    with h5py.File(url, "r", driver="ros3", aws_region=REGION.encode(), secret_id=AK.encode(), secret_key=SK.encode()) as f:
        a = f[dset][...]
    print(f"{time.perf_counter() - t0:.3f} {a.nbytes}")

if __name__ == "__main__":
    {"seqget": lambda: seqget(*sys.argv[2:5]), "ros3": lambda: ros3(*sys.argv[2:4])}[sys.argv[1]]()
