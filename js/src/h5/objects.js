// 2026-12-02
// js/src/h5/objects.js - the base of every object of an HDF5 file (HasAttrs: attributes, parent,
// root, dereference), the Attribute class, committed Datatypes and the two kinds of link cairn
// does not follow (BrokenSoftLink, ExternalLink). Group (group.js) and Dataset (dataset.js)
// extend HasAttrs; classes defined later are reached through c (see makeH5 in js/src/h5.js).
import { CairnError } from '../api.js';
import { dirname, prod, arena } from './common.js';
import { NOVAL } from './attrtable.js';
import { refPath, typeMetadata, typeDtype, typeNumpy, toJsonValue, nest } from './types.js';
import { prepare, buildType, putData } from './dtype.js';

/** HasAttrs, Attribute, Datatype, BrokenSoftLink and ExternalLink over the context c of makeH5. */
export function defineObjects(c) {
  const { I } = c;

  /** Base of every object in a file: attributes, parent, root. */
  class HasAttrs {
    constructor(state, path) {
      Object.defineProperty(this, '_s', { value: state }); // hidden: keeps console.log readable
      /** Absolute path of the object. */
      this.path = path;
    }
    /** Attributes by name, like h5wasm: described at once (one call into the core for all), values read when accessed. */
    get attrs() {
      const out = {}, s = this._s, path = this.path, tab = s.attrsAll(path), names = tab.names;
      for (let i = 0; i < names.length; i++) {
        const name = names[i];
        // one that did not describe (or a name plain assignment would misread) stays a getter,
        // so its error comes when it is used
        if (name !== '__proto__' && tab.ok(i)) out[name] = new Attribute(s, path, name, null, tab, i);
        else Object.defineProperty(out, name, { get: () => new Attribute(s, path, name), enumerable: true, configurable: true });
      }
      return out;
    }
    /** The value of attribute `name` (json_compatible: plain JSON values). */
    get_attribute(name, json_compatible = false) {
      let a;
      try {
        a = new Attribute(this._s, this.path, name);
      } catch (e) {
        if (e instanceof CairnError && e.codeName === 'NOTFOUND') return null;
        throw e;
      }
      return json_compatible ? a.json_value : a.value;
    }
    /** Create or overwrite an attribute: data, optional shape and dtype (guessed like h5wasm). */
    create_attribute(name, data, shape = null, dtype = null) {
      const s = this._s, w = s.writer(), M = s.M, a = arena(M);
      const { t, flat, shape: sh } = prepare(data, shape, dtype);
      let ty = 0;
      try {
        ty = buildType(I, M, t, a);
        I.check(M._cairn_em_h5w_attr(w, a.str(this.path), a.str(name), ty, sh.length, a.f64(sh), putData(M, t, flat, a)), `attribute ${this.path}@${name}`);
        s.dirty = true;
      } finally {
        if (ty) M._cairn_h5w_type_free(ty);
        a.free();
      }
    }
    /** Remove an attribute (CairnError NOTFOUND if absent). Returns 0 like h5wasm. */
    delete_attribute(name) {
      const s = this._s, w = s.writer(), a = arena(s.M);
      try {
        I.check(s.M._cairn_h5w_attr_delete(w, a.str(this.path), a.str(name)), `delete attribute ${this.path}@${name}`);
        s.dirty = true;
        return 0;
      } finally {
        a.free();
      }
    }
    /** The object an object reference (a Reference, or its path) points to, like h5wasm's. */
    dereference(ref) {
      return this.root.get(refPath(ref));
    }
    /** The root group. */
    get root() { return new c.Group(this._s, '/'); }
    /** The parent group. */
    get parent() { return new c.Group(this._s, dirname(this.path)); }
  }

  /** An attribute of a group, dataset or committed datatype. */
  class Attribute {
    #s;
    #d;
    #t; // AttrTable and index when listed by attrs (description and value made on first use)
    #i;
    constructor(state, path, name, d = null, tab = null, i = -1) {
      this.#s = state; // private fields: hidden from console.log, and cheaper than defineProperty
      this.#t = tab;
      this.#i = i;
      this.#d = d || (tab ? null : state.describe(path, name));
      /** Path of the object the attribute is on. */
      this.path = path;
      this.name = name;
    }
    get _s() { return this.#s; }
    get _d() { return this.#d || (this.#d = this.#t.desc(this.#i)); }
    /** h5wasm-style metadata: {type, size, signed, littleEndian, vlen, shape, total_size, ...}. */
    get metadata() { return { ...typeMetadata(this._d.type), shape: this.shape, maxshape: this.shape, chunks: null, total_size: prod(this.shape || [0]) }; }
    get dtype() { return typeDtype(this._d.type); }
    /** numpy typestr of the element type (cairn extension): `<f4`, `|S10`, `|O`... */
    get np_dtype() { return typeNumpy(this._d.type); }
    /** Shape ([] for a scalar, null for an empty (NULL) dataspace). */
    get shape() { return this._d.space === 2 ? null : this._d.shape; }
    /** The value: a typed array, string[], objects for compounds; a single value for scalars. */
    get value() {
      const t = this.#t;
      this.#s.reader(); // commits pending edits first (which marks the table stale)
      if (t && !t.stale) {
        const v = t.value(this.#i);
        if (v !== NOVAL) return v;
      }
      return this._s.read(this.path, this.name, null);
    }
    get json_value() { return toJsonValue(this.value, this._d.type); }
    /** Nested arrays following the shape. */
    to_array() {
      const v = this.json_value;
      return Array.isArray(v) ? nest(v, this.shape) : v;
    }
  }

  /** A committed (named) datatype. */
  class Datatype extends HasAttrs {
    constructor(state, path) {
      super(state, path);
      this.type = 'Datatype';
    }
    get metadata() { return typeMetadata(this._s.describe(this.path).type); }
    get dtype() { return typeDtype(this._s.describe(this.path).type); }
  }

  /** A soft link whose target does not exist. */
  class BrokenSoftLink {
    constructor(target) { this.target = target; this.type = 'BrokenSoftLink'; }
  }
  /** A link to an object in another file (not followed). */
  class ExternalLink {
    constructor(filename, obj_path) { this.filename = filename; this.obj_path = obj_path; this.type = 'ExternalLink'; }
  }

  return { HasAttrs, Attribute, Datatype, BrokenSoftLink, ExternalLink };
}
