#!/usr/bin/env python3
# 2026-12-02
# bench/s3/peers.py - the peers of bench/s3/run.sh for HDF5 reads from S3 (RGW):
#   seqget LOCAL.h5 DSET KEY   one range GET per chunk of DSET, one after the other, on one kept-alive
#                              connection (the baseline "sequential GETs of its chunks"), signed with
#                              SigV4 here (stdlib hmac/hashlib); chunk addresses from h5py on LOCAL
#   ros3 KEY DSET              libhdf5's read-only S3 driver (Debian's build has it) through h5py
#   pargets LOCAL.h5 DSET KEY P [MAXB]  the chunks of DSET in P threads (one connection each), adjacent
#                              chunks coalesced into GETs of at most MAXB bytes (default: one per chunk):
#                              what RGW gives a reader that parallelises and coalesces perfectly
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

def spansOf(local, dset):
    with h5py.File(local, "r") as f:
        d = f[dset]
        return sorted((c.byte_offset, c.size) for c in (d.id.get_chunk_info(i) for i in range(d.id.get_num_chunks())))

def pargets(local, dset, key, p, maxb=0):
    import threading
    p, maxb = int(p), int(maxb)
    gets = []
    for off, size in spansOf(local, dset):
        if gets and maxb and gets[-1][0] + gets[-1][1] == off and gets[-1][1] + size <= maxb:
            gets[-1] = (gets[-1][0], gets[-1][1] + size)
        else:
            gets.append((off, size))
    path, lock, total, nxt = f"/{BUCKET}/{key}", threading.Lock(), [0], [0]
    def work():
        conn = http.client.HTTPConnection(EP.hostname, EP.port)
        while True:
            with lock:
                if nxt[0] >= len(gets): return
                off, size = gets[nxt[0]]; nxt[0] += 1
            conn.request("GET", path, headers=sign("GET", path, {"range": f"bytes={off}-{off + size - 1}"}))
            r = conn.getresponse()
            body = r.read()
            assert r.status == 206 and len(body) == size, (r.status, body[:200])
            with lock: total[0] += len(body)
    ts = [threading.Thread(target=work) for _ in range(min(p, len(gets)))]
    t0 = time.perf_counter()
    for t in ts: t.start()
    for t in ts: t.join()
    print(f"{time.perf_counter() - t0:.3f} {total[0]} {len(gets)}")

def ros3(key, dset):
    url = f"{EP.scheme}://{EP.netloc}/{BUCKET}/{key}"
    t0 = time.perf_counter()
    with h5py.File(url, "r", driver="ros3", aws_region=REGION.encode(), secret_id=AK.encode(), secret_key=SK.encode()) as f:
        a = f[dset][...]
    print(f"{time.perf_counter() - t0:.3f} {a.nbytes}")

if __name__ == "__main__":
    {"seqget": lambda: seqget(*sys.argv[2:5]), "ros3": lambda: ros3(*sys.argv[2:4]),
     "pargets": lambda: pargets(*sys.argv[2:7])}[sys.argv[1]]()
