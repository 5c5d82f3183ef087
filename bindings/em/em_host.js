// 2026-11-29
// bindings/em/em_host.js - the JavaScript half of the Emscripten host (--js-library). The C side
// (bindings/em/em_binding.c) calls these synchronously with a file id; `Module.cairnFiles` maps ids to
// JS file objects from js/src/hosts.js, which have synchronous methods:
//   read(offset, length) -> Uint8Array (shorter only at end of file); optionally
//   readInto(offset, Uint8Array) -> bytes read (shorter only at end of file), used when present
//   write(offset, Uint8Array) (the array is a view into the wasm heap, valid only during the
//   call: copy what you keep), size() -> number, truncate(n), sync(), close(); optionally
//   lock(eLock) / unlock(eLock) (1 READ, 2 WRITE; throw an error with cairnCode 14 for BUSY)
// Exceptions never cross into C: each is turned into a status code plus a message.
mergeInto(LibraryManager.library, {
  // Record a status and its message as the core's last error; returns the status.
  $cairnJsError__deps: ['cairn_em_set_error'],
  $cairnJsError: function (code, msg) {
    var n = lengthBytesUTF8(msg) + 1;
    var p = _malloc(n);
    if (p) {
      stringToUTF8(msg, p, n);
      _cairn_em_set_error(code, p);
      _free(p);
    }
    return code;
  },
  $cairnJsCall__deps: ['$cairnJsError'],
  $cairnJsCall: function (id, what, fn) {
    var f = Module['cairnFiles'] && Module['cairnFiles'].get(id);
    if (!f) {
      return 7; // CAIRN_MISUSE
    }
    try {
      var r = fn(f);
      return r === undefined ? 0 : r;
    } catch (e) {
      var code = (e && typeof e.cairnCode === 'number') ? e.cairnCode : 3; // CAIRN_IOERR
      return cairnJsError(code, (f.name ? f.name + ': ' : '') + what + ': ' + (e && e.message ? e.message : String(e)));
    }
  },
  cairn_js_read__deps: ['$cairnJsCall'],
  cairn_js_read: function (id, p, n, off, pnRead) {
    return cairnJsCall(id, 'read', function (f) {
      if (typeof f.readInto === 'function') { // straight into wasm memory: no buffer, no copy
        HEAPU32[pnRead >> 2] = f.readInto(off, HEAPU8.subarray(p, p + n));
        return;
      }
      var got = f.read(off, n);
      var k = Math.min(got.length, n);
      HEAPU8.set(k === got.length ? got : got.subarray(0, k), p);
      HEAPU32[pnRead >> 2] = k;
    });
  },
  cairn_js_write__deps: ['$cairnJsCall'],
  cairn_js_write: function (id, p, n, off) {
    return cairnJsCall(id, 'write', function (f) {
      if (!f.write) { var e = new Error('read-only file'); e.cairnCode = 10; throw e; }
      // A view into the heap, valid only during this call: write() must copy what it keeps
      // (every file object in js/src does: TypedArray.set, writeSync, a sync access handle).
      f.write(off, HEAPU8.subarray(p, p + n));
    });
  },
  cairn_js_size__deps: ['$cairnJsCall'],
  cairn_js_size: function (id, pSize) {
    return cairnJsCall(id, 'size', function (f) { HEAPF64[pSize >> 3] = f.size(); });
  },
  cairn_js_truncate__deps: ['$cairnJsCall'],
  cairn_js_truncate: function (id, n) {
    return cairnJsCall(id, 'truncate', function (f) {
      if (!f.truncate) { var e = new Error('read-only file'); e.cairnCode = 10; throw e; }
      f.truncate(n);
    });
  },
  cairn_js_sync__deps: ['$cairnJsCall'],
  cairn_js_sync: function (id) {
    return cairnJsCall(id, 'sync', function (f) { if (f.sync) f.sync(); });
  },
  // The core opens a file by name (cairn_host.xOpen; today only for HDF5 raw data kept in
  // external files): Module.cairnOpenPath(path, flags) opens it (Node: a NodeFile; unset in
  // browsers, which have no file system), registers it as one the package owns, and returns
  // its id.
  cairn_js_open__deps: ['$cairnJsError'],
  cairn_js_open: function (zPath, flags, pId) {
    var path = UTF8ToString(zPath);
    var open = Module['cairnOpenPath'];
    if (!open) return cairnJsError(8, "cannot open '" + path + "': this host has no file system"); // UNSUPPORTED
    try {
      HEAP32[pId >> 2] = open(path, flags);
      return 0;
    } catch (e) {
      var code = (e && typeof e.cairnCode === 'number') ? e.cairnCode : (e && e.code === 'ENOENT') ? 5 : 3; // NOTFOUND, IOERR
      return cairnJsError(code, 'cannot open ' + path + ': ' + (e && e.message ? e.message : String(e)));
    }
  },
  cairn_js_lock__deps: ['$cairnJsCall'],
  cairn_js_lock: function (id, eLock) {
    return cairnJsCall(id, 'lock', function (f) { if (typeof f.lock === 'function') f.lock(eLock); });
  },
  cairn_js_unlock__deps: ['$cairnJsCall'],
  cairn_js_unlock: function (id, eLock) {
    return cairnJsCall(id, 'unlock', function (f) { if (typeof f.unlock === 'function') f.unlock(eLock); });
  },
  cairn_js_close__deps: ['$cairnJsCall'],
  // Files that JS code handed in stay open: their owner closes them. Only files the package
  // opened itself (listed in Module.cairnOwned) are closed here.
  cairn_js_close: function (id) {
    var owned = Module['cairnOwned'] && Module['cairnOwned'].has(id);
    var r = owned ? cairnJsCall(id, 'close', function (f) { if (f.close) f.close(); }) : 0;
    if (Module['cairnFiles']) Module['cairnFiles'].delete(id);
    if (owned) Module['cairnOwned'].delete(id);
    return r;
  },
});
