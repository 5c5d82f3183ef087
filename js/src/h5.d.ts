// 2026-11-29
// js/src/h5.d.ts - types of the HDF5 API (js/src/h5.js), h5wasm-like. The package's types
// (index.d.ts) hook them in with:
//   import type { H5 } from './h5.js';
//   export type * from './h5.js';
//   export declare const h5: H5;          // and `h5: H5` on the default export's type

/**
 * A file object cairn reads and writes through (MemoryFile, NodeFile, BlobFile, OpfsFile,
 * HttpFile, or your own): synchronous methods, called by the core while it works.
 */
export interface H5FileObject {
  name?: string;
  read(offset: number, length: number): Uint8Array;
  /** Optional: read into u8 (shorter only at the end of the file), returning the bytes read; used instead of read() when present (no intermediate buffer). */
  readInto?(offset: number, u8: Uint8Array): number;
  size(): number;
  write?(offset: number, bytes: Uint8Array): void;
  truncate?(size: number): void;
  sync?(): void;
  close?(): void;
}

/** 'r' read-only; 'a' / 'r+' edit (an empty file is created); 'w' create (discarding); 'x' create if empty. */
export type H5Mode = 'r' | 'a' | 'r+' | 'w' | 'x';

export type TypedArray =
  | Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array | Uint32Array
  | BigInt64Array | BigUint64Array | Float32Array | Float64Array;

/** Values as read: flat typed arrays, string[], objects for compounds; single values for scalars. */
export type OutputData = TypedArray | string | number | bigint | boolean | null | Uint8Array | Reference | OutputData[] | { [member: string]: OutputData };
export type JSONCompatibleOutputData = string | number | boolean | null | JSONCompatibleOutputData[] | { [member: string]: JSONCompatibleOutputData };

/** One [start, end, step] per dimension; missing or null bounds mean all; negative count from the end. */
export type Slice = [] | [number | null] | [number | null, number | null] | [number | null, number | null, number | null];

export interface CompoundMember extends Metadata {
  name: string;
  offset: number;
}
export interface CompoundTypeMetadata {
  members: CompoundMember[];
  nmembers: number;
}
export interface EnumTypeMetadata {
  members: { [name: string]: number };
  nmembers: number;
  type: number;
}

/** h5wasm-compatible metadata. Sizes and offsets are those of the file's datatype. */
export interface Metadata {
  /** HDF5 class: 0 integer, 1 float, 3 string, 4 bitfield, 5 opaque, 6 compound, 7 reference, 8 enum, 9 vlen, 10 array */
  type: number;
  size: number;
  signed: boolean;
  littleEndian: boolean;
  vlen: boolean;
  cset?: number;
  strpad?: number;
  compound_type?: CompoundTypeMetadata;
  enum_type?: EnumTypeMetadata;
  array_type?: Metadata & { shape: number[]; total_size: number };
  vlen_type?: Metadata;
  ref_type?: 'object' | 'region';
  shape?: number[] | null;
  /** null entries are unlimited dimensions */
  maxshape?: (number | null)[] | null;
  chunks?: number[] | null;
  total_size?: number;
  /** cairn: the dataset's storage layout */
  layout?: 'compact' | 'contiguous' | 'chunked' | 'virtual';
}

export interface Filter {
  id: number;
  name: string;
  cd_values: number[];
}

/** h5wasm dtype: `<f`, `<d`, `>i`, `<Q`, `<e`, `S10`, `S` (variable-length), or a descriptor. */
export type Dtype = string | { compound_type: CompoundTypeMetadata } | { array_type: Metadata } | { vlen_type: Metadata };

/**
 * dtype for writing: h5wasm (`<f`, `<d`, `<i`, `<Q`...) or numpy (`<f4`, `<i8`, `u1`...)
 * strings, `S10` (fixed), `S`/`U` (variable-length UTF-8), `bool`, a compound as
 * `[[name, dtype], [name, dtype, shape], ...]`, or another dataset's `dtype`/`metadata` (to
 * copy it; metadata keeps enums). Numbers are stored little-endian ('>' gives the same values).
 */
export type WriteDtype = string | Array<[string, WriteDtype] | [string, WriteDtype, number | number[]]> | Dtype | Metadata;

/** Data to write; values read from another file (OutputData) can be written back as they are. */
export type InputData =
  | OutputData
  | TypedArray | number | bigint | boolean | string
  | Array<number | bigint | boolean | string | InputData | { [member: string]: unknown }>
  | { [member: string]: unknown };

export interface CreateDatasetOptions {
  name: string;
  /** null/undefined with shape + dtype: the dataset reads as its fill value */
  data?: InputData | null;
  shape?: number[] | null;
  dtype?: WriteDtype | null;
  /** null = unlimited (the first dimension can grow with Dataset.append) */
  maxshape?: (number | null)[] | null;
  chunks?: number[] | null;
  /** 'gzip' | 'zstd' | 'lz4' | a gzip level 0-9 | a filter id with compression_opts */
  compression?: 'gzip' | 'deflate' | 'zstd' | 'lz4' | number | null;
  compression_opts?: number | number[];
  shuffle?: boolean;
  fletcher32?: boolean;
  fillvalue?: number | bigint | string | boolean | null;
  /** cairn's filter spec, e.g. 'shuffle,zstd:3' (overrides compression/shuffle/fletcher32) */
  filters?: string;
  layout?: 'compact' | 'contiguous' | 'chunked';
}

export type Entity = Group | Dataset | Datatype | BrokenSoftLink | ExternalLink;

declare abstract class HasAttrs {
  /** Absolute path of the object. */
  readonly path: string;
  /** Attributes by name, each read when accessed. */
  get attrs(): Record<string, Attribute>;
  get root(): Group;
  get parent(): Group;
  /** The object a Reference (or its path) points to, like h5wasm's dereference. */
  dereference(ref: Reference | string): Entity | null;
  /** The attribute's value, or null if there is none by that name. */
  get_attribute(name: string, json_compatible?: false): OutputData | null;
  get_attribute(name: string, json_compatible: true): JSONCompatibleOutputData | null;
  /** Create or overwrite an attribute (dtype guessed like h5wasm when omitted). */
  create_attribute(name: string, data: InputData, shape?: number[] | null, dtype?: WriteDtype | null): void;
  /** Remove an attribute; returns 0. */
  delete_attribute(name: string): number;
}

export declare class Attribute {
  readonly path: string;
  readonly name: string;
  get metadata(): Metadata;
  get dtype(): Dtype;
  /** numpy typestr (cairn): `<f4`, `>i8`, `|S10`, `|O`... */
  get np_dtype(): string;
  get shape(): number[] | null;
  get value(): OutputData;
  get json_value(): JSONCompatibleOutputData;
  to_array(): JSONCompatibleOutputData;
}

export declare class Group extends HasAttrs {
  readonly type: 'Group' | 'File';
  keys(): string[];
  values(): Generator<Entity | null, void, unknown>;
  items(): Generator<[string, Entity | null], void, unknown>;
  /** Every path below this group, relative to it. */
  /** Every path below (relative), depth first; a group reached again by a hard link (a cycle) is listed, not entered again. */
  paths(): string[];
  get(path: string | Reference): Entity | null;
  /** Create a group (and missing parents). */
  create_group(name: string): Group;
  create_dataset(options: CreateDatasetOptions): Dataset;
  /** Soft link name -> target (a path that need not exist). */
  create_soft_link(target: string, name: string): void;
  /** External link name -> object target in the file file_name. */
  create_external_link(file_name: string, target: string, name: string): void;
}

export declare class Dataset extends HasAttrs {
  readonly type: 'Dataset';
  get metadata(): Metadata;
  get dtype(): Dtype;
  /** numpy typestr (cairn): `<f4`, `>i8`, `|S10`, `|O`... */
  get np_dtype(): string;
  get shape(): number[] | null;
  get filters(): Filter[];
  /** Flat row-major values (int64 -> BigInt64Array, strings -> string[], compounds -> objects). */
  get value(): OutputData;
  get json_value(): JSONCompatibleOutputData;
  to_array(): JSONCompatibleOutputData;
  slice(ranges: Slice[]): OutputData;
  /**
   * Read an integer or float dataset (or a hyperslab of it) into `out`, a typed array of the
   * class `value` returns and exactly the selection's length; returns `out` (cairn). Reusing one
   * array across reads takes no fresh memory (docs/js-memory.md).
   */
  read_into<T extends TypedArray>(out: T, ranges?: Slice[]): T;
  /** Drop cached metadata so the next read sees what another writer committed to the file. */
  refresh(): void;
  /** Append whole rows along the first dimension of a resizable dataset (cairn). */
  append(rows: InputData): void;
  /** Overwrite the selected hyperslab ([start, end, step] per dimension) with exactly its elements. */
  write_slice(ranges: Slice[], data: InputData): void;
  /** Grow the first dimension (up to maxshape); new rows read as the fill value. Shrinking throws. */
  resize(shape: number[]): void;
}

export declare class Datatype extends HasAttrs {
  readonly type: 'Datatype';
  get metadata(): Metadata;
  get dtype(): Dtype;
}

/** An object reference read from a file (h5wasm's class); `String(ref)` and JSON give its path. */
export declare class Reference {
  constructor(path: string);
  /** Absolute path of the referenced object. */
  readonly path: string;
  toString(): string;
  toJSON(): string;
}

export declare class BrokenSoftLink {
  readonly type: 'BrokenSoftLink';
  target: string;
}
export declare class ExternalLink {
  readonly type: 'ExternalLink';
  filename: string;
  obj_path: string;
}

export interface FileOptions {
  /** false: commits skip the host syncs (consistent after a clean exit, not after power loss) */
  durable?: boolean;
  /**
   * The bytes one read may use (default 256 MiB, the core's budget in wasm; Infinity: no limit).
   * A larger read (`ds.value` of a huge dataset) throws CairnError LIMIT naming the dataset, the
   * bytes it would need and the budget, before allocating; a slice within it still reads.
   */
  maxMemory?: number;
}

/** F: the file object it reads and writes (`file` keeps its type: a MemoryFile's toBlob() stays callable). */
export declare class File<F extends H5FileObject = H5FileObject> extends Group {
  /** Needs the module loaded (`await h5.ready`); `File.open` does that for you. A path works in Node. */
  constructor(file: F | string, mode?: H5Mode, options?: FileOptions);
  static open<F extends H5FileObject>(file: F, mode?: H5Mode, options?: FileOptions): Promise<File<F>>;
  static open(file: string, mode?: H5Mode, options?: FileOptions): Promise<File>;
  static create<F extends H5FileObject>(file: F, options?: FileOptions): Promise<File<F>>;
  static create(file: string, options?: FileOptions): Promise<File>;
  readonly filename: string;
  readonly mode: H5Mode;
  readonly file: F;
  /** Commit every change (reads commit pending changes first, too). */
  flush(): void;
  commit(): void;
  /** Commit and release; returns 0. Your file object stays open (unless opened by path). */
  close(): number;
  /** Host reads and bytes read by the reader since it was (re)opened (cairn). */
  stats(): { reads: number; bytes: number };
}

export interface H5 {
  File: typeof File;
  Group: typeof Group;
  Dataset: typeof Dataset;
  Attribute: typeof Attribute;
  Datatype: typeof Datatype;
  BrokenSoftLink: typeof BrokenSoftLink;
  ExternalLink: typeof ExternalLink;
  Reference: typeof Reference;
  ACCESS_MODES: { r: 'r'; a: 'a'; 'r+': 'r+'; w: 'w'; x: 'x' };
  /** Resolves when the WebAssembly module is loaded. */
  readonly ready: Promise<void>;
}

/** What js/src/h5.js exports: the factory api.js calls (the package exports its result as `h5`). */
export declare function makeH5(api: unknown, options?: { openPath?: (path: string, mode: H5Mode) => H5FileObject }): H5;
