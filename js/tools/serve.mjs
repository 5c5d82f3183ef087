// 2026-11-29 - a small static file server for the browser tests and the web demo: correct MIME
// types for .mjs/.wasm, HTTP Range support (206) for HttpFile, no compression, counts bytes served.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const MIME = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json', '.css': 'text/css', '.h5': 'application/octet-stream' };

export function serve(root, port = 0) {
  const stats = { bytes: new Map() };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    let file = path.join(root, decodeURIComponent(url.pathname));
    if (file.startsWith(root) && fs.existsSync(file) && fs.statSync(file).isDirectory()) {
      if (!url.pathname.endsWith('/')) { res.writeHead(301, { Location: url.pathname + '/' }).end(); return; } // relative URLs need the slash
      file = path.join(file, 'index.html'); // e.g. /web-demo/
    }
    if (!file.startsWith(root) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404).end('not found');
      return;
    }
    const size = fs.statSync(file).size;
    const headers = { 'Content-Type': MIME[path.extname(file)] || 'application/octet-stream', 'Accept-Ranges': 'bytes', 'Cache-Control': 'no-store' };
    let start = 0, end = size - 1, status = 200;
    // ?norange: answer as a server without range support would (200, the whole file), for tests
    const m = url.searchParams.has('norange') ? null : /^bytes=(\d+)-(\d*)$/.exec(req.headers.range || '');
    if (m) {
      start = Number(m[1]);
      end = m[2] ? Math.min(Number(m[2]), size - 1) : size - 1;
      if (start > end) { res.writeHead(416, { 'Content-Range': `bytes */${size}` }).end(); return; }
      status = 206;
      headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
    }
    headers['Content-Length'] = String(end - start + 1);
    res.writeHead(status, headers);
    if (req.method === 'HEAD') { res.end(); return; }
    stats.bytes.set(url.pathname, (stats.bytes.get(url.pathname) || 0) + (end - start + 1));
    fs.createReadStream(file, { start, end }).pipe(res);
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve({ server, port: server.address().port, stats })));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = path.resolve(process.argv[2] || '.');
  const { port } = await serve(root, Number(process.argv[3] || 8080));
  console.log(`serving ${root} on http://127.0.0.1:${port}/`);
}
