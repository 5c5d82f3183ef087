// 2026-11-29 (split into js/src/h5/ 2026-12-02)
// js/src/h5.js - HDF5 files from JavaScript, shaped like h5wasm (File / Group / Dataset /
// Attribute, `keys()`, `get()`, `attrs`, `value`, `slice()`, `create_dataset()`...) so that its
// users can switch in minutes, over cairn's C reader (cairn/h5.h) and writer (cairn/h5w.h).
//
// Differences from h5wasm worth knowing:
//  - Files are JS file objects (MemoryFile, NodeFile, BlobFile, OpfsFile, HttpFile; in Node
//    also a path), read lazily: only the metadata on the way and the chunks a read touches.
//  - `await h5.File.open(file, mode)` (or `await h5.ready` then `new h5.File(file, mode)`).
//  - Compound values are objects ({x: 1, y: 2}), not arrays; 64-bit integers inside them are
//    bigints (as h5wasm), enums read as their integer values.
//  - Writing: create_group, create_dataset (chunks, maxshape, compression gzip/zstd/lz4,
//    shuffle, fletcher32), create_attribute, delete_attribute, links, `Dataset.append(rows)`,
//    write_slice and resize (the C writer grows the first dimension only). Changes are made
//    durable by flush() (= commit()) and close(). Reading from a file open for writing first
//    commits what was written, so reads always see every change.
//  - Editing an existing file ('a', 'r+') needs a superblock v2/v3 file: files cairn wrote or
//    that libhdf5/h5py wrote with libver='latest' (a limit of the C writer).
//
// Every wasm allocation is freed in a `finally` (see arena in h5/common.js); errors are
// CairnError (code, codeName, message naming the object), TypeError or RangeError, never strings.

// The parts, one job each, under js/src/h5/: common.js (codes, paths, the wasm allocation scope),
// attrtable.js (attribute blocks), types.js (reading types and values, Reference), dtype.js
// (writing: dtypes, encoders, writer types), state.js (FileState: handles, caches, read),
// objects.js (HasAttrs, Attribute, Datatype, links), group.js, dataset.js, file.js.
import { Reference } from './h5/types.js';
import { defineFileState } from './h5/state.js';
import { defineObjects } from './h5/objects.js';
import { defineGroup } from './h5/group.js';
import { defineDataset } from './h5/dataset.js';
import { defineFile } from './h5/file.js';

export { Reference };

/**
 * The h5 namespace over an API made by makeApi (api.js). `options.openPath(path, mode)` turns a
 * string path into a file object (the Node entry passes one that makes NodeFiles).
 */
export function makeH5(api, options = {}) {
  // c: what the classes share; each define* adds its classes, and classes defined later (Group
  // for HasAttrs.root, Dataset for Group.get) are looked up in c when used
  const c = { I: api._internal, init: api.init, options };
  c.FileState = defineFileState(c.I);
  Object.assign(c, defineObjects(c));
  c.Group = defineGroup(c);
  c.Dataset = defineDataset(c);
  c.File = defineFile(c);
  const { File, Group, Dataset, Attribute, Datatype, BrokenSoftLink, ExternalLink, init } = c;
  const h5 = {
    File, Group, Dataset, Attribute, Datatype, BrokenSoftLink, ExternalLink, Reference,
    ACCESS_MODES: { r: 'r', a: 'a', 'r+': 'r+', w: 'w', x: 'x' },
    /** Resolves when the WebAssembly module is loaded. */
    get ready() { return init().then(() => undefined); },
  };
  return h5;
}
