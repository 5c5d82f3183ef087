// 2026-11-29
// js/src/nodefile.js - a cairn file object over Node's synchronous fs calls.
import fs from 'node:fs';

export class NodeFile {
  /**
   * @param {string} path
   * @param {'r'|'r+'|'w+'|'wx+'|'c+'} mode  'r' read-only, 'r+' read-write existing, 'w+' create/truncate,
   *   'c+' read-write, created if missing, never truncated (h5 mode 'w': the writer discards the
   *   old content itself, which is cheaper than O_TRUNC on ext4)
   */
  constructor(path, mode = 'r') {
    this.fd = fs.openSync(path, mode === 'c+' ? fs.constants.O_RDWR | fs.constants.O_CREAT : mode);
    this.name = path;
    this.writable = mode !== 'r';
    if (!this.writable) {
      this.write = undefined;
      this.truncate = undefined;
    }
  }
  read(offset, length) {
    const b = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const n = fs.readSync(this.fd, b, got, length - got, offset + got);
      if (n === 0) break;
      got += n;
    }
    return new Uint8Array(b.buffer, b.byteOffset, got);
  }
  /** Read into a Uint8Array (a view of wasm memory or a result array); returns the bytes read. */
  readInto(offset, u8) {
    if (this.read !== NodeFile.prototype.read) { // a subclass that overrides read() sees every read
      const b = this.read(offset, u8.length), k = Math.min(b.length, u8.length);
      u8.set(k === b.length ? b : b.subarray(0, k));
      return k;
    }
    let got = 0;
    while (got < u8.length) {
      const n = fs.readSync(this.fd, u8, got, u8.length - got, offset + got);
      if (n === 0) break;
      got += n;
    }
    return got;
  }
  write(offset, bytes) {
    let done = 0;
    while (done < bytes.length) done += fs.writeSync(this.fd, bytes, done, bytes.length - done, offset + done);
  }
  size() { return fs.fstatSync(this.fd).size; }
  truncate(n) { fs.ftruncateSync(this.fd, n); }
  sync() { fs.fdatasyncSync(this.fd); }
  close() {
    if (this.fd !== -1) fs.closeSync(this.fd);
    this.fd = -1;
  }
}
