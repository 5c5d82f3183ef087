// 2026-11-29
// js/src/nodefile.js - a cairn file object over Node's synchronous fs calls, and its writer lock.
//
// Locks (the JS half of "Locking" in core/include/cairn/host.h): a NodeFile opened writable takes
// the writer lock at once (unless { lock: false }), released by close():
//   - one writable handle per file per process: a registry keyed by the resolved path (realpath)
//     makes a second one fail with CairnError BUSY (code 14), as a second native handle does;
//   - across processes a lock file "<real path>.cairn-lock" holding "cairn-lock pid=N host=H",
//     created with 'wx' (O_CREAT|O_EXCL). Native writers (hosts/posix.c) create and honour the
//     same file, so Node and native writers exclude each other in both directions. One whose
//     holder is gone (same host, process.kill(pid, 0) says ESRCH; or unreadable and older than
//     10 s) is stale and broken; one from another host is held until removed by hand. A
//     directory where it cannot be created (read-only) skips it. Lock files still held when the
//     process exits are removed by an 'exit' handler; a killed process leaves a stale one.
// Maintenance: a change to the lock file's name, content or staleness rule is made in
// hosts/posix.c (lockFileTake) too.
// Readers: Node has no OFD or flock locks, so a NodeFile that takes the reader lock (the core asks
// for it on its first read) announces itself with a marker file in "<real path>.cairn-readers/"
// holding "cairn-reader pid=N host=H" (one per file per process, counted over its handles, removed
// by the last close or the 'exit' handler; a killed process leaves one that its writer finds dead
// and removes). Native writers (hosts/posix.c, readerMarkersBusy) then keep the space such a
// reader may still read, as they do for native readers' OFD locks. A Node writer asked whether
// readers are gone (lock level 4, cairn/host.h CAIRN_LOCK_EXCLUSIVE) answers BUSY: native
// readers' locks are invisible to Node, so it never reuses space a reader might read (the file
// grows by what each commit frees).
// What holds: Node has no flock, so a Node writer does not keep libhdf5/h5py out (nor does h5py
// keep it out).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CairnError } from './api.js';

const BUSY = 14, READONLY = 10;
const LOCK_READ = 1, LOCK_WRITE = 2, LOCK_EXCLUSIVE = 4;
const GARBLED_STALE_MS = 10000;
const writers = new Map(); // real path -> the NodeFile holding its writer lock in this process
let exitHook = false;

function lockError(code, message) {
  const e = new CairnError(code, message);
  e.cairnCode = code; // for bindings/em/em_host.js, when the core takes the lock
  return e;
}

// 1 alive (or cannot tell), 0 gone, -1 unparseable
function holderAlive(text) {
  const m = /^cairn-lock pid=(\d+) host=(\S+)/.exec(text);
  if (!m || Number(m[1]) <= 0) return -1;
  if (m[2] !== os.hostname()) return 1;
  try {
    process.kill(Number(m[1]), 0);
    return 1;
  } catch (e) {
    return e.code === 'ESRCH' ? 0 : 1;
  }
}

let lockSeq = 0;
// Create the lock file beside `real`, breaking a stale one; returns its path (null: skipped).
function takeLockFile(real, name) {
  const lockPath = real + '.cairn-lock';
  const mine = `cairn-lock pid=${process.pid} host=${os.hostname()}\n`;
  for (let iTry = 0; ; iTry++) {
    try {
      // Whole or not at all (as hosts/posix.c): the content goes into a temporary file that
      // link() names the lock file, failing with EEXIST if one exists; a process killed midway
      // leaves no empty lock file behind.
      const tmp = `${lockPath}.tmp.${process.pid}.${++lockSeq}`;
      fs.writeFileSync(tmp, mine, { mode: 0o644 });
      try {
        fs.linkSync(tmp, lockPath);
      } finally {
        fs.rmSync(tmp, { force: true });
      }
      return lockPath;
    } catch (e) {
      if (e.code === 'EACCES' || e.code === 'EROFS' || e.code === 'EPERM') return null;
      if (e.code !== 'EEXIST') throw e;
    }
    let held, ageMs;
    try {
      held = fs.readFileSync(lockPath, 'latin1');
      ageMs = Date.now() - fs.statSync(lockPath).mtimeMs;
    } catch {
      if (iTry < 3) continue; // removed meanwhile
      throw lockError(BUSY, `${name} is locked (lock file ${lockPath} keeps changing)`);
    }
    let alive = holderAlive(held);
    if (alive === -1 && ageMs < GARBLED_STALE_MS) alive = 1; // its creator is writing it
    if (alive === 1 || iTry >= 3) throw lockError(BUSY, `${name} is open for writing by another process (${lockPath}: "${held.split('\n')[0]}")`);
    // Stale: rename it away, then check that what moved is the stale one (two breakers that both
    // saw it stale cannot both delete a fresh lock; one that moved a fresh one puts it back).
    const moved = `${lockPath}.stale.${process.pid}`;
    try {
      fs.renameSync(lockPath, moved);
    } catch {
      continue;
    }
    try {
      if (fs.readFileSync(moved, 'latin1') !== held) fs.linkSync(moved, lockPath);
    } catch {}
    try {
      fs.unlinkSync(moved);
    } catch {}
  }
}

// real path -> { n: reader handles in this process, marker: its marker file (null: none made) }
const readers = new Map();
let readerSeq = 0;
function readerMarkerTake(real) {
  const r = readers.get(real);
  if (r) {
    r.n++;
    return;
  }
  const dir = real + '.cairn-readers';
  const marker = path.join(dir, `${process.pid}.${++readerSeq}`);
  const content = `cairn-reader pid=${process.pid} host=${os.hostname()}\n`;
  let made = null;
  for (let iTry = 0; iTry < 4 && !made; iTry++) {
    try {
      fs.mkdirSync(dir, { recursive: true });
      // whole or not at all: a writer skips names starting with '.'
      const tmp = path.join(dir, `.tmp.${process.pid}.${readerSeq}`);
      fs.writeFileSync(tmp, content);
      fs.renameSync(tmp, marker);
      made = marker;
    } catch (e) {
      if (e.code === 'EACCES' || e.code === 'EROFS' || e.code === 'EPERM') break; // a read-only place: no marker
      if (e.code !== 'ENOENT') throw e; // ENOENT: another process removed the empty directory meanwhile
    }
  }
  readers.set(real, { n: 1, marker: made });
  hookExit();
}
function readerMarkerDrop(real) {
  const r = readers.get(real);
  if (!r || --r.n > 0) return;
  readers.delete(real);
  removeMarker(r.marker);
}
function removeMarker(marker) {
  if (!marker) return;
  try {
    fs.unlinkSync(marker);
  } catch {}
  try {
    fs.rmdirSync(path.dirname(marker)); // fails while other readers are there: fine
  } catch {}
}

function dropLockFiles() {
  for (const f of writers.values()) {
    if (f.lockPath) {
      try {
        fs.unlinkSync(f.lockPath);
      } catch {}
    }
  }
  for (const r of readers.values()) removeMarker(r.marker);
  readers.clear();
}
function hookExit() {
  if (!exitHook) {
    exitHook = true;
    process.on('exit', dropLockFiles);
  }
}

export class NodeFile {
  /**
   * @param {string} filePath
   * @param {'r'|'r+'|'w+'|'wx+'|'c+'} mode  'r' read-only, 'r+' read-write existing, 'w+' create/truncate,
   *   'c+' read-write, created if missing, never truncated (h5 mode 'w': the writer discards the
   *   old content itself, which is cheaper than O_TRUNC on ext4)
   * @param {{lock?: boolean}} options  lock (default true): a writable file takes the writer lock
   *   (CairnError BUSY when another handle or process has it open for writing); a reader announces
   *   itself to writers in other processes when the core takes its reader lock. lock: false does
   *   neither (nothing protects the handle from another writer then).
   */
  constructor(filePath, mode = 'r', { lock = true } = {}) {
    const { O_RDWR, O_CREAT } = fs.constants;
    // 'w+' truncates only once the lock is held: the bytes may be another writer's
    this.fd = fs.openSync(filePath, mode === 'c+' || mode === 'w+' ? O_RDWR | O_CREAT : mode);
    this.name = filePath;
    this.useLocks = lock;
    this.readerReal = null;
    this.writable = mode !== 'r';
    this.lockLevel = 0;
    this.lockPath = null;
    this.realPath = null;
    if (!this.writable) {
      this.write = undefined;
      this.truncate = undefined;
    }
    try {
      if (this.writable && lock) this.lock(LOCK_WRITE);
      if (mode === 'w+') fs.ftruncateSync(this.fd, 0);
    } catch (e) {
      this.close();
      throw e;
    }
  }
  /** Raise this handle's lock to eLock (1 read: the reader marker; 2 write; 4: are other readers
   * gone? always BUSY from Node). Throws CairnError BUSY. */
  lock(eLock) {
    if (eLock === LOCK_EXCLUSIVE) {
      if (this.lockLevel < LOCK_WRITE) throw lockError(READONLY, `${this.name}: no writer lock`);
      throw lockError(BUSY, `${this.name}: readers cannot be ruled out from Node (native readers' locks are invisible to it)`);
    }
    if (eLock <= this.lockLevel) return;
    if (eLock === LOCK_READ) {
      if (this.useLocks && !this.readerReal) {
        this.readerReal = fs.realpathSync(this.name);
        readerMarkerTake(this.readerReal);
      }
      this.lockLevel = eLock;
      return;
    }
    if (eLock >= LOCK_WRITE) {
      if (!this.writable) throw lockError(READONLY, `${this.name} is open read-only: no writer lock`);
      const real = fs.realpathSync(this.name);
      const other = writers.get(real);
      if (other && other !== this) throw lockError(BUSY, `${this.name} is locked: another handle in this process has it open for writing`);
      this.lockPath = takeLockFile(real, this.name);
      this.realPath = real;
      writers.set(real, this);
      hookExit();
      if (this.readerReal) { // READ -> WRITE: the writer lock covers it
        readerMarkerDrop(this.readerReal);
        this.readerReal = null;
      }
    }
    this.lockLevel = eLock;
  }
  /** Lower this handle's lock to eLock (0 none, 1 read). */
  unlock(eLock) {
    if (eLock >= this.lockLevel) return;
    if (this.lockLevel >= LOCK_WRITE) {
      if (writers.get(this.realPath) === this) writers.delete(this.realPath);
      if (this.lockPath) {
        try {
          fs.unlinkSync(this.lockPath);
        } catch {}
      }
      this.lockPath = null;
    }
    if (eLock === 0 && this.readerReal) {
      readerMarkerDrop(this.readerReal);
      this.readerReal = null;
    } else if (eLock === LOCK_READ && !this.readerReal && this.useLocks) { // WRITE -> READ: a reader now
      this.readerReal = fs.realpathSync(this.name);
      readerMarkerTake(this.readerReal);
    }
    this.lockLevel = eLock;
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
    this.unlock(0);
    if (this.fd !== -1) fs.closeSync(this.fd);
    this.fd = -1;
  }
}
