// 2026-11-29
// js/src/hosts.js - JavaScript file objects that back a cairn_file (see bindings/em/em_host.js).
// Every method is SYNCHRONOUS, because the C core calls them in the middle of its work:
//   read(offset, length) -> Uint8Array   (shorter only at end of file)
//   write(offset, bytes)  size() -> number  truncate(n)  sync()  close()
// write() receives a view into the WebAssembly heap that is only valid during the call: an
// object that keeps the bytes must copy them (all the objects below do).
// Read-only objects omit write/truncate. `name` is used in error messages.

/** A growable in-memory file (an ArrayBuffer you can download as a Blob). */
export class MemoryFile {
  constructor(bytes, name = 'memory') {
    const src = bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : new Uint8Array(0);
    this.buf = new Uint8Array(Math.max(4096, src.length));
    this.buf.set(src);
    this.length = src.length;
    this.name = name;
  }
  read(offset, length) {
    const start = Math.min(offset, this.length);
    return this.buf.subarray(start, Math.min(this.length, offset + length));
  }
  reserve(n) {
    if (n <= this.buf.length) return;
    let cap = this.buf.length;
    while (cap < n) cap *= 2;
    const b = new Uint8Array(cap);
    b.set(this.buf.subarray(0, this.length));
    this.buf = b;
  }
  write(offset, bytes) {
    const end = offset + bytes.length;
    this.reserve(end);
    this.buf.set(bytes, offset);
    if (end > this.length) this.length = end;
  }
  size() { return this.length; }
  truncate(n) {
    this.reserve(n);
    if (n > this.length) this.buf.fill(0, this.length, n);
    this.length = n;
  }
  sync() {}
  close() {}
  /** A copy of the current bytes. */
  bytes() { return this.buf.slice(0, this.length); }
  /** The bytes as a Blob, e.g. for a download link. */
  toBlob(type = 'application/octet-stream') { return new Blob([this.bytes()], { type }); }
}

/** A read-only browser Blob or File. Synchronous reads need FileReaderSync: use it in a worker. */
export class BlobFile {
  constructor(blob, name = blob.name || 'blob') {
    if (typeof FileReaderSync === 'undefined') {
      throw new Error('BlobFile needs FileReaderSync (a Web Worker); on the main thread read the Blob into a MemoryFile: new MemoryFile(await blob.arrayBuffer())');
    }
    this.blob = blob;
    this.reader = new FileReaderSync();
    this.name = name;
  }
  read(offset, length) {
    const end = Math.min(this.blob.size, offset + length);
    if (offset >= end) return new Uint8Array(0);
    return new Uint8Array(this.reader.readAsArrayBuffer(this.blob.slice(offset, end)));
  }
  size() { return this.blob.size; }
  close() {}
}

/** An OPFS FileSystemSyncAccessHandle (dedicated worker only), read-write and durable. */
export class OpfsFile {
  constructor(handle, name = 'opfs') {
    this.h = handle;
    this.name = name;
  }
  read(offset, length) {
    const b = new Uint8Array(length);
    const n = this.h.read(b, { at: offset });
    return n === length ? b : b.subarray(0, n);
  }
  write(offset, bytes) {
    const n = this.h.write(bytes, { at: offset });
    if (n !== bytes.length) throw new Error(`short write (${n} of ${bytes.length} bytes at ${offset})`);
  }
  size() { return this.h.getSize(); }
  truncate(n) { this.h.truncate(n); }
  sync() { this.h.flush(); }
  close() { this.h.close(); }
  /** Open (creating if asked) a file in the origin-private file system. Worker only. */
  static async open(path, { create = true } = {}) {
    let dir = await navigator.storage.getDirectory();
    const parts = path.split('/').filter(Boolean);
    for (const p of parts.slice(0, -1)) dir = await dir.getDirectoryHandle(p, { create });
    const fh = await dir.getFileHandle(parts[parts.length - 1], { create });
    return new OpfsFile(await fh.createSyncAccessHandle(), path);
  }
}

/**
 * A read-only file over HTTP range requests (synchronous XHR, so: a worker). Blocks are cached
 * (64 KiB, read-ahead doubling up to 1 MiB on sequential access). The server must answer ranges
 * with 206 and must not compress.
 */
export class HttpFile {
  constructor(url, { blockSize = 65536, maxCachedBlocks = 256 } = {}) {
    if (typeof XMLHttpRequest === 'undefined') throw new Error('HttpFile needs XMLHttpRequest (a browser worker); in Node use NodeFile');
    this.url = url;
    this.name = url;
    this.blockSize = blockSize;
    this.cache = new Map();
    this.maxCached = maxCachedBlocks;
    this.bytesFetched = 0;
    this.requests = 0;
    const xhr = new XMLHttpRequest();
    xhr.open('HEAD', url, false);
    xhr.send(null);
    if (xhr.status !== 200) throw new Error(`HEAD ${url}: HTTP ${xhr.status}`);
    const len = xhr.getResponseHeader('Content-Length');
    if (len === null) throw new Error(`HEAD ${url}: no Content-Length`);
    if ((xhr.getResponseHeader('Content-Encoding') || 'identity') !== 'identity') throw new Error(`${url} is served compressed; range reads need identity encoding`);
    this.length = Number(len);
  }
  fetchRange(start, end) {
    const xhr = new XMLHttpRequest();
    xhr.open('GET', this.url, false);
    xhr.setRequestHeader('Range', `bytes=${start}-${end - 1}`);
    xhr.responseType = 'arraybuffer';
    xhr.send(null);
    if (xhr.status !== 206) throw new Error(`GET ${this.url} bytes ${start}-${end - 1}: HTTP ${xhr.status} (the server must support range requests)`);
    this.requests++;
    this.bytesFetched += xhr.response.byteLength;
    // A short body inside the file is an error: the bytes it lacks must not pass for the file's end.
    if (xhr.response.byteLength !== end - start) throw new Error(`GET ${this.url} bytes ${start}-${end - 1}: got ${xhr.response.byteLength} bytes`);
    return new Uint8Array(xhr.response);
  }
  block(i) {
    let b = this.cache.get(i);
    if (b) {
      this.cache.delete(i);
      this.cache.set(i, b); // LRU order
      return b;
    }
    const start = i * this.blockSize;
    b = this.fetchRange(start, Math.min(this.length, start + this.blockSize));
    this.cache.set(i, b);
    if (this.cache.size > this.maxCached) this.cache.delete(this.cache.keys().next().value);
    return b;
  }
  // Large reads go straight to the network in one request; small ones through the block cache.
  // readInto (which the wasm host uses) copies the response once, into the caller's array;
  // read returns a large response itself.
  readInto(offset, u8) {
    const end = Math.min(this.length, offset + u8.length);
    if (offset >= end) return 0;
    if (end - offset > 4 * this.blockSize) {
      u8.set(this.fetchRange(offset, end));
      return end - offset;
    }
    for (let pos = offset; pos < end;) {
      const i = Math.floor(pos / this.blockSize);
      const b = this.block(i);
      const from = pos - i * this.blockSize;
      const k = Math.min(b.length - from, end - pos);
      u8.set(b.subarray(from, from + k), pos - offset);
      pos += k;
    }
    return end - offset;
  }
  read(offset, length) {
    const end = Math.min(this.length, offset + length);
    if (offset >= end) return new Uint8Array(0);
    if (end - offset > 4 * this.blockSize) return this.fetchRange(offset, end);
    const out = new Uint8Array(end - offset);
    this.readInto(offset, out);
    return out;
  }
  size() { return this.length; }
  close() { this.cache.clear(); }
}
