#!/usr/bin/env python3
# 2026-12-02
# tests/s3/proxy503.py - a loopback HTTP proxy for the S3 fault tests: forwards every request to
# the S3 endpoint unchanged (the Host header too, so SigV4 signatures stay valid) and answers
# every Nth request with 503 SlowDown itself (a "503 storm"). Usage: proxy503.py PORT UPSTREAM_PORT N
# Counts are printed to stderr at exit (SIGTERM).
import http.client, signal, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, upstream, every = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
lock = threading.Lock()
count = {"n": 0, "503": 0}

class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def handle_any(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else None
        with lock:
            count["n"] += 1
            storm = count["n"] % every == 0
            if storm: count["503"] += 1
        if storm:
            msg = b'<?xml version="1.0"?><Error><Code>SlowDown</Code><Message>injected by proxy503</Message></Error>'
            self.send_response(503)
            self.send_header("Content-Length", str(len(msg)))
            self.end_headers()
            if self.command != "HEAD": self.wfile.write(msg)
            return
        c = http.client.HTTPConnection("127.0.0.1", upstream, timeout=60)
        hdr = {k: v for k, v in self.headers.items() if k.lower() not in ("connection", "transfer-encoding")}
        c.request(self.command, self.path, body=body, headers=hdr)
        r = c.getresponse()
        data = r.read()
        self.send_response(r.status)
        for k, v in r.getheaders():
            if k.lower() in ("connection", "transfer-encoding", "content-length"): continue
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data) if self.command != "HEAD" else r.getheader("Content-Length") or 0))
        self.end_headers()
        if self.command != "HEAD": self.wfile.write(data)
        c.close()
    do_GET = do_PUT = do_HEAD = do_DELETE = do_POST = handle_any

def bye(*a):
    sys.stderr.write("proxy503: %d requests, %d answered 503\n" % (count["n"], count["503"]))
    sys.exit(0)
signal.signal(signal.SIGTERM, bye)
srv = ThreadingHTTPServer(("127.0.0.1", port), H)
srv.daemon_threads = True
srv.serve_forever()
