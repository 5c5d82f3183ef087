// 2026-11-29
// js/src/index.d.ts - TypeScript types for the whole package (browser entry index.js and Node
// entry node.js; NodeFile exists in Node only). Checked by `npm run typecheck` (test/types-check.ts).

/** Status codes of the core (cairn.h). */
export type CairnCodeName =
  | 'OK' | 'ERROR' | 'NOMEM' | 'IOERR' | 'CORRUPT' | 'NOTFOUND' | 'EXISTS' | 'MISUSE'
  | 'UNSUPPORTED' | 'RANGE' | 'READONLY' | 'CHECKSUM' | 'TYPE' | 'LIMIT' | 'BUSY' | 'UNKNOWN';

/** Every failure of the package: `code` is the core's status number, `codeName` its name. */
export class CairnError extends Error {
  constructor(code: number, message: string);
  readonly name: 'CairnError';
  readonly code: number;
  readonly codeName: CairnCodeName;
}

// ------------------------------------------------------------------ files
/**
 * A file object the core reads and writes synchronously. Read-only files omit write/truncate.
 * Files you pass to the package stay yours to close.
 */
export interface CairnFile {
  /** Bytes [offset, offset+length); shorter only at the end of the file. */
  read(offset: number, length: number): Uint8Array;
  /** Optional: read into u8 (shorter only at the end of the file), returning the bytes read; used instead of read() when present. */
  readInto?(offset: number, u8: Uint8Array): number;
  write?(offset: number, bytes: Uint8Array): void;
  size(): number;
  truncate?(n: number): void;
  sync?(): void;
  close?(): void;
  /** Optional locks (1 read, 2 write), called by the core; throw a CairnError BUSY (code 14) when
   * another handle holds the file. Without them the file is unlocked. */
  lock?(eLock: 1 | 2): void;
  unlock?(eLock: 0 | 1): void;
  /** Used in error messages. */
  name?: string;
}

/** A growable in-memory file. */
export class MemoryFile implements CairnFile {
  constructor(bytes?: ArrayBuffer | ArrayBufferView | null, name?: string);
  name: string;
  length: number;
  read(offset: number, length: number): Uint8Array;
  write(offset: number, bytes: Uint8Array): void;
  size(): number;
  truncate(n: number): void;
  sync(): void;
  close(): void;
  /** A copy of the current bytes. */
  bytes(): Uint8Array;
  /** The bytes as a Blob, e.g. for a download link. */
  toBlob(type?: string): Blob;
}

/** A read-only Blob or File (worker only: needs FileReaderSync). */
export class BlobFile implements CairnFile {
  constructor(blob: Blob, name?: string);
  name: string;
  read(offset: number, length: number): Uint8Array;
  size(): number;
  close(): void;
}

/** The part of FileSystemSyncAccessHandle (lib "WebWorker") that OpfsFile uses. */
export interface SyncAccessHandleLike {
  read(buffer: Uint8Array, options: { at: number }): number;
  write(buffer: Uint8Array, options: { at: number }): number;
  getSize(): number;
  truncate(n: number): void;
  flush(): void;
  close(): void;
}

/** An OPFS sync access handle (dedicated worker only): read-write and durable. */
export class OpfsFile implements CairnFile {
  constructor(handle: SyncAccessHandleLike, name?: string);
  name: string;
  read(offset: number, length: number): Uint8Array;
  write(offset: number, bytes: Uint8Array): void;
  size(): number;
  truncate(n: number): void;
  sync(): void;
  close(): void;
  /** Open (creating unless create is false) a file in the origin-private file system. */
  static open(path: string, options?: { create?: boolean }): Promise<OpfsFile>;
}

/** A read-only file over HTTP range requests (worker only: synchronous XHR), cached in blocks. */
export class HttpFile implements CairnFile {
  constructor(url: string, options?: { blockSize?: number; maxCachedBlocks?: number });
  readonly url: string;
  name: string;
  bytesFetched: number;
  requests: number;
  read(offset: number, length: number): Uint8Array;
  /** Read into u8 (one copy of the response); returns the bytes read (fewer only at the end). */
  readInto(offset: number, u8: Uint8Array): number;
  size(): number;
  close(): void;
}

/** S3 settings; unset fields come from AWS_* environment variables (Node). */
export interface S3Options {
  endpoint?: string;
  region?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  addressing?: 'path' | 'virtual';
  retries?: number;
  blockSize?: number;
  maxCachedBlocks?: number;
}

/**
 * A read-only S3 object (s3://bucket/key), SigV4-signed fetch from a helper thread while the
 * caller waits (Node, or a browser worker). Cached in blocks like HttpFile.
 */
export class S3File extends HttpFile {
  static open(url: string, options?: S3Options): Promise<S3File>;
  readonly bucket: string;
  readonly key: string;
}

/**
 * A file through Node's synchronous fs calls (Node entry only). Opened writable it takes the
 * writer lock (unless lock is false): a second writable NodeFile on the same file, in this
 * process or another (or a native cairn writer), makes the constructor throw CairnError BUSY.
 * close() releases it.
 */
export class NodeFile implements CairnFile {
  /** mode: 'r' read-only, 'r+' read-write existing, 'w+' create/truncate, 'wx+' create new,
   * 'c+' read-write, created if missing, never truncated */
  constructor(path: string, mode?: 'r' | 'r+' | 'w+' | 'wx+' | 'c+', options?: { lock?: boolean });
  name: string;
  readonly writable: boolean;
  /** 0 none, 1 read, 2 write */
  readonly lockLevel: number;
  lock(eLock: 1 | 2): void;
  unlock(eLock: 0 | 1): void;
  read(offset: number, length: number): Uint8Array;
  readInto(offset: number, u8: Uint8Array): number;
  write(offset: number, bytes: Uint8Array): void;
  size(): number;
  truncate(n: number): void;
  sync(): void;
  close(): void;
}

// ------------------------------------------------------------------ init, hashes, codecs
export interface InitOptions {
  /** The .wasm bytes (skips fetching it). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Where to find cairn-core.wasm (Emscripten's locateFile). */
  locateFile?: (path: string, prefix: string) => string;
  [option: string]: unknown;
}
/** Load the WebAssembly core once; every other call does it on first use. */
export function init(options?: InitOptions): Promise<unknown>;

export type BytesLike = string | ArrayBuffer | ArrayBufferView;

export function sha256(data: BytesLike, options?: { encoding?: 'hex' }): Promise<string>;
export function sha256(data: BytesLike, options: { encoding: 'bytes' }): Promise<Uint8Array>;
/** SHA-256 of a file object, streamed through the core. */
export function sha256File(file: CairnFile): Promise<string>;

export interface StreamCodec {
  compress(data: BytesLike, options?: { level?: number }): Promise<Uint8Array>;
  /** maxSize caps the output (default: the frame's declared size, or grow up to 2 GiB). */
  decompress(data: BytesLike, options?: { maxSize?: number }): Promise<Uint8Array>;
  /** Stream between two file objects in bounded memory. */
  compressFile(input: CairnFile, output: CairnFile, options?: { level?: number }): Promise<{ bytesIn: number; bytesOut: number }>;
  decompressFile(input: CairnFile, output: CairnFile): Promise<{ bytesIn: number; bytesOut: number }>;
}
export const zstd: StreamCodec;
export const deflate: StreamCodec;
export const gzip: StreamCodec;

export function version(): Promise<{ cairn: string; zstd: string; zlib: string; sha256Kernel: string }>;

// ------------------------------------------------------------------ OpenZL-format codec
export type ZlProfile = 'serial' | 'u8' | 'le-u16' | 'le-u32' | 'le-u64' | 'le-i64' | 'csv';
export interface ZlCompressOptions {
  /** Inferred from the array type when omitted (Uint16Array 'le-u16', Uint32Array/Int32Array 'le-u32', ...);
   * 'records:4,2,8' for fixed-width records. */
  profile?: ZlProfile | `records:${string}`;
  /** Fixed-width records: the byte width of each field (one column per field), where the codec has them. */
  fields?: number[];
  /** Level of the zstd stages, 1..22 (default 19, as the CLI). */
  level?: number;
  /** One named graph for the whole input instead of the profile's selection (see zl.GRAPHS). */
  graph?: 'auto' | 'store' | 'zstd' | 'lz4' | 'huffman' | 'entropy' | 'flatpack' | 'bitpack';
}
/** One output of a multi-output (or string-output) frame. */
export interface ZlOutput {
  type: 'serial' | 'struct' | 'numeric' | 'string';
  width: number;
  count: number;
  data: Uint8Array;
  /** String outputs: each string's length. */
  lengths?: Uint32Array;
}
/** Compress a typed array (or bytes / a string) into one OpenZL frame (format 26). */
export function compress(data: BytesLike, options?: ZlCompressOptions): Promise<Uint8Array>;
/** Decode one OpenZL frame; frames declaring more than maxSize (default 1 GiB) are refused. */
export function decompress(frame: ArrayBuffer | ArrayBufferView, options?: { maxSize?: number }): Promise<Uint8Array>;
export const zl: {
  compress: typeof compress;
  decompress: typeof decompress;
  /** Stream a file into a frame in bounded memory (profile defaults to 'serial'). */
  compressFile(input: CairnFile, output: CairnFile, options?: ZlCompressOptions): Promise<{ bytesIn: number; bytesOut: number }>;
  decompressFile(input: CairnFile, output: CairnFile): Promise<{ bytesIn: number; bytesOut: number }>;
  /** The profile compress() infers for this input. */
  inferProfile(data: BytesLike): ZlProfile;
  readonly PROFILES: readonly ZlProfile[];
  readonly GRAPHS: readonly string[];
  /** A frame's outputs, chunks, decoder graph and streams (parsed JSON; {text: true}: the text form). */
  info(frame: ArrayBuffer | ArrayBufferView, options?: { text?: boolean }): Promise<any>;
  /** Decode a frame of several typed outputs, or of a string output. */
  decompressMulti(frame: ArrayBuffer | ArrayBufferView): Promise<ZlOutput[]>;
};

// ------------------------------------------------------------------ agent memory
/** 'auto' (the default): hybrid with a query embedding (yours or your `embed`'s), else BM25 (docs/memory.md). */
export type MemoryMode = 'auto' | 'hybrid' | 'vector' | 'bm25';
export type Metric = 'cosine' | 'ip' | 'l2';
export type VectorIndex = 'auto' | 'flat' | 'f16' | 'int8' | 'ivf' | 'ivfpq';
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface MemoryOpenOptions {
  /** Embedding dimension, fixed per store (default 256, the built-in embedder's). */
  dim?: number;
  metric?: Metric;
  readOnly?: boolean;
  /** Skip fsync on commit (bulk loads, tests): not crash-safe. */
  noSync?: boolean;
  /** No vectors at all: BM25 only. */
  textOnly?: boolean;
  /** How the file keeps vectors, fixed at creation (f16/int8 where the core supports them). */
  disk?: 'f32' | 'f16' | 'int8';
  /** ms to wait while another writer (this process or another) holds the store; default 0: CairnError BUSY at once. */
  busyTimeout?: number;
  /** The caller's embedding model: add/addMany/put/update/search then return promises and embed texts with it. */
  embed?: (texts: string[]) => Promise<ArrayLike<number>[]> | ArrayLike<number>[];
  /** The model's name: recorded in the store with its dimension; another model's name is refused (CairnError MISUSE). */
  model?: string;
  /** Texts per embed() call in addMany (default 64). */
  batchSize?: number;
}

export interface MemoryInput {
  text: string;
  /** The store's dimension; without it the built-in embedder is used (word overlap, not meaning). */
  embedding?: Float32Array | number[];
  session?: string;
  role?: string;
  /** When the remembered thing happened (default: created). */
  time?: Date | number;
  /** When it was recorded (default: now). */
  created?: Date | number;
  /** 0..31, e.g. 0 working, 1 episodic, 2 semantic. */
  tier?: number;
  importance?: number;
  metadata?: { [key: string]: Json };
  /** Scopes (mem0's user_id, agent_id, run_id); run is the session. */
  user?: string;
  agent?: string;
  run?: string;
}

export interface MemoryRecord {
  id: number;
  /** The id of this version (== id until the memory is updated). */
  version?: number;
  user?: string | null;
  agent?: string | null;
  /** When this version was written, and when a later one superseded it (null: current). */
  validFrom?: number;
  validTo?: number | null;
  text: string;
  session: string | null;
  role: string | null;
  /** Event time, ms since 1970. */
  time: number;
  /** Creation time, ms since 1970. */
  created: number;
  tier: number;
  importance: number;
  accessCount: number;
  metadata: { [key: string]: Json } | null;
}

export interface MemoryHit extends MemoryRecord {
  /** The ranking score of the chosen mode (higher is better). */
  score: number;
  vectorScore: number | null;
  bm25Score: number | null;
}

/** Applied inside the search. */
export interface MemoryFilter {
  session?: string;
  role?: string;
  tier?: number | number[];
  /** Event time >= after. */
  after?: Date | number;
  /** Event time < before. */
  before?: Date | number;
  /** One top-level metadata key and the JSON value it must equal (or { path: value | { op: value } }). */
  meta?: { [key: string]: Json };
  user?: MemoryCondition;
  agent?: MemoryCondition;
  run?: MemoryCondition;
  and?: MemoryFilter[];
  or?: MemoryFilter[];
  not?: MemoryFilter;
  /** "meta.a.b", importance, eventMs, createdMs, id...: a value (equality) or operators. */
  [field: string]: MemoryCondition | MemoryFilter[] | MemoryFilter | { [key: string]: Json } | Date | undefined;
}
/** A value (equality) or operators, all of which must hold. */
export type MemoryCondition = Json | { eq?: Json; ne?: Json; in?: Json[]; nin?: Json[]; gt?: number | string; gte?: number | string;
  lt?: number | string; lte?: number | string; exists?: boolean; contains?: Json };
export interface MemoryPutResult {
  id: number;
  version: number;
  status: 'added' | 'exact' | 'near_kept' | 'near_skipped' | 'superseded';
  duplicateOf?: number;
  similarity?: number;
}
export interface MemoryListOptions {
  filter?: MemoryFilter | string;
  user?: string;
  agent?: string;
  run?: string;
  order?: 'id' | 'eventMs' | 'createdMs' | 'importance' | 'accessCount';
  desc?: boolean;
  offset?: number;
  limit?: number;
  /** Every version of the memories selected. */
  history?: boolean;
  asOf?: Date | number;
  embeddings?: boolean;
}

export interface MemorySearchOptions {
  /** Hits wanted (1..10000, default 10). */
  k?: number;
  mode?: MemoryMode;
  filter?: MemoryFilter | string;
  /** Query vector (else the query text through the built-in embedder). */
  embedding?: Float32Array | number[];
  fusion?: 'rrf' | 'weighted';
  /** Reciprocal rank fusion constant (default 60). */
  rrfK?: number;
  /** Weighted fusion (default 0.5 / 0.5). */
  weights?: { vector?: number; bm25?: number };
  /** Adds weight * 2^(-age / halfLife). */
  recency?: { weight?: number; halfLifeHours?: number; now?: Date | number };
  index?: VectorIndex;
  nprobe?: number;
  rerank?: number;
  bm25?: { k1?: number; b?: number };
  /** Count an access for every hit returned. */
  touch?: boolean;
  /** The store as it was at that time (superseded versions; forgotten memories never). */
  asOf?: Date | number;
  user?: string;
  agent?: string;
  run?: string;
}

export interface MemoryStats {
  memories: number;
  uncommitted: number;
  dim: number;
  metric: Metric;
  sessions: number;
  roles: number;
  terms: number;
  postings: number;
  textBytes: number;
  fileBytes: number;
  index: VectorIndex | null;
  indexLists: number;
  indexPqM: number;
  /** How long the last open took (log replay + index rebuild). */
  openMs: number;
  kernel: string;
  /** As created; null where the core does not report it. */
  textOnly: boolean | null;
  disk: 'f32' | 'f16' | 'int8' | null;
}

/** An agent memory store (text + embedding + who/when), vector, BM25 and hybrid search. */
export class Memory {
  private constructor();
  /** Open or create a store in a file object (or, in Node, a path), or in memory when no file is given. */
  static open(file?: CairnFile | string | null, options?: MemoryOpenOptions): Promise<Memory>;
  static open(options: MemoryOpenOptions): Promise<Memory>;
  /** The built-in embedder (word and character n-gram hashing): word overlap, not meaning. */
  static embed(text: string, options?: { dim?: number }): Promise<Float32Array>;
  /** The tokens BM25 indexes for a text. */
  static tokenize(text: string): Promise<string[]>;
  /** The built-in synthetic multi-session conversation and questions about it. */
  static demoData(): Promise<{
    turns: { session: string; speaker: string; text: string; time: number }[];
    questions: { question: string; turn: number }[];
  }>;
  /** Add a memory; returns its id. Searchable at once, durable after commit(). */
  add(record: MemoryInput | string): number;
  /** Add many memories; returns their ids. All or nothing: if one fails, none is added and the error is thrown. */
  addMany(records: Iterable<MemoryInput | string>): number[];
  commit(): void;
  /** Commit, then move the log into the file's HDF5 datasets (/memory), which h5py/h5dump/h5wasm read. */
  checkpoint(): void;
  search(query: string | Float32Array | number[] | { text?: string; embedding?: Float32Array | number[] }, options?: MemorySearchOptions): MemoryHit[];
  /** A memory by id, or null. */
  get(id: number): MemoryRecord | null;
  /** The stored embedding (unit length in cosine stores), or null. */
  embedding(id: number): Float32Array | null;
  touch(id: number): void;
  /** The built-in embedder at this store's dimension. */
  embed(text: string): Float32Array;
  buildIndex(options?: { kind?: 'ivf' | 'ivfpq'; nlist?: number; m?: number; iterations?: number; sample?: number; seed?: number }): void;
  stats(): MemoryStats;
  /** Close; pending adds are committed unless commit is false. The file stays yours. */
  close(options?: { commit?: boolean }): void;
  /** Add with dedup (exact: the existing id comes back; near: nearThreshold + nearPolicy). */
  put(record: MemoryInput | string, options?: { dedup?: boolean; nearThreshold?: number; nearPolicy?: 'keep' | 'skip' | 'supersede' }): MemoryPutResult;
  /** A new version with the fields changed; returns its version id. */
  update(id: number, fields: Partial<MemoryInput>): number;
  history(id: number): MemoryRecord[];
  /** Forget a memory and its history (gone from the file's bytes at the next checkpoint). */
  delete(id: number): void;
  deleteWhere(filter?: MemoryFilter, options?: { user?: string; agent?: string; run?: string }): number;
  list(options?: MemoryListOptions): MemoryRecord[];
  /** JSONL, one line per version. */
  export(options?: MemoryListOptions): string;
  import(jsonl: string): number;
  compact(): void;
  getVersion(version: number): MemoryRecord | null;
  /** The store's knowledge graph, kept in the store's own file (/graph), one per store, closed with it; delete(id) drops the facts only that memory supported. */
  graph(): Graph;
  /** mem.graph().entities() */
  entities(): GraphEntity[];
  /** mem.graph().facts() */
  facts(options?: { asOf?: GraphAsOf }): GraphFact[];
  /** mem.graph().neighbors() */
  neighbors(name: string, options?: { depth?: number; asOf?: GraphAsOf }): GraphNeighborhood;
  /** mem.graph().addFacts(): all or none; durable at commit() (then a checkpoint). */
  addFacts(facts: GraphFactInput[]): number;
  // ---- issue 18 (js/src/consolidate.js): tiers, consolidation, the tick, explain, gate, observer, ephemeral tier
  /** One consolidation cycle: evict the weakest working memories beyond capacity, merge what recurs. */
  consolidate(options?: import('./consolidate.js').ConsolidateRunOptions): Promise<import('./consolidate.js').ConsolidateReport>;
  /** The session tick: the maintenance that is due and fits the budget. */
  tick(options?: import('./consolidate.js').TickOptions): import('./consolidate.js').TickReport;
  /** Why a memory is in its tier: the score's parts, its rank or merge, its tier history. */
  explain(id: number, options?: import('./consolidate.js').ConsolidateOptions): import('./consolidate.js').Explanation;
  /** The decision gate and the save strategy on one exchange, saving into this store. */
  observe(exchange: import('./ephemeral.js').Exchange, options?: import('./ephemeral.js').ObserverOptions): import('./ephemeral.js').ObserveResult;
  /** This store's ephemeral tier (capacity 10000, the store's dimension), closed with the store. */
  readonly ephemeral: import('./ephemeral.js').Ephemeral;
  /** The decision gate: would `text` be worth saving? */
  static gate(text: string, options?: import('./ephemeral.js').GateOptions): Promise<import('./ephemeral.js').GateResult>;
}

/** A time to query at: a Date, ms since 1970, 'now' (not invalidated) or 'all'. */
export type GraphAsOf = Date | number | 'now' | 'all';
export interface GraphEntity { id: number; name: string; type: string; aliases: string[]; mentions: number; }
export interface GraphFactInput {
  subject: string; predicate: string; object?: string; literal?: string;
  validAt?: Date | number; invalidAt?: Date | number; createdAt?: Date | number; expiredAt?: Date | number;
  sources?: number[];
}
export interface GraphFact {
  id: number; subject: string; predicate: string; object?: string; literal?: string;
  validAt: number | null; invalidAt: number | null; createdAt: number | null; expiredAt: number | null; sources: number[];
}
export interface GraphNeighborhood { entity: string; nodes: { id: number; name: string; depth: number }[]; edges: GraphFact[]; }
/** A knowledge graph with time (entities, facts with validity; core/kg). */
export class Graph {
  private constructor();
  /** Open or create a graph in a file object (or, in Node, a path), or in memory when no file is given. */
  static open(file?: CairnFile | string | null, options?: { readOnly?: boolean }): Promise<Graph>;
  static open(options: { readOnly?: boolean }): Promise<Graph>;
  entities(): GraphEntity[];
  facts(options?: { asOf?: GraphAsOf }): GraphFact[];
  neighbors(name: string, options?: { depth?: number; asOf?: GraphAsOf }): GraphNeighborhood;
  /** Add facts, all or none; returns how many. */
  addFacts(facts: GraphFactInput[]): number;
  functional(predicate: string, options?: { resolve?: boolean }): void;
  extract(memoryId: number, text: string, options?: { speaker?: string; time?: Date | number }): void;
  commit(): void;
  close(): void;
}

// ------------------------------------------------------------------ chunk store
export interface StoreOpenOptions {
  /** How new chunks are stored (a chunk that does not shrink is stored raw). */
  compression?: 'none' | 'zstd' | 'deflate';
  level?: number;
  readOnly?: boolean;
  noSync?: boolean;
  /** FastCDC 2020 parameters, fixed when the store is created (default 256 KiB / 1 MiB / 4 MiB, level 2). */
  chunking?: { min?: number; avg?: number; max?: number; level?: number; seed?: number };
}

export type PutSource =
  | BytesLike
  | Blob
  | ReadableStream<ArrayBufferView | ArrayBuffer>
  | AsyncIterable<ArrayBufferView | ArrayBuffer | string>
  | Iterable<ArrayBufferView | ArrayBuffer | string>
  | CairnFile;

export interface StoreEntry {
  id: string;
  size: number;
  chunks: number;
  /** Publication time, ms since 1970. */
  time: number;
  name: string | null;
}

export interface StoreStats {
  payloads: number;
  chunks: number;
  names: number;
  rawBytes: number;
  storedBytes: number;
  fileBytes: number;
  chunking: { min: number; avg: number; max: number; level: number };
}

/** A content-addressed chunk store: dedup across payloads, every read verified. */
export class Store {
  private constructor();
  /** Open or create a store in a file object (or, in Node, a path), or in memory when no file is given. */
  static open(file?: CairnFile | string | null, options?: StoreOpenOptions): Promise<Store>;
  static open(options: StoreOpenOptions): Promise<Store>;
  /** Publish a payload; resolves to its id (64 hex digits). Puts on one store are queued. */
  put(data: PutSource, options?: { name?: string }): Promise<string>;
  /** Bytes [start, end) of a payload (by id or name), verified. */
  get(idOrName: string, range?: { start?: number; end?: number }): Uint8Array;
  /** Bytes [start, start + out.byteLength) of a payload (clipped to its end) into the caller's array, verified; the count written. No new array (docs/js-memory.md). */
  getInto(idOrName: string, out: ArrayBufferView, options?: { start?: number }): number;
  /** A stream of [start, end) of a payload, read and verified pieceSize bytes at a time (default 4 MiB). */
  stream(idOrName: string, options?: { start?: number; end?: number; pieceSize?: number }): ReadableStream<Uint8Array>;
  /** Write [start, end) of a payload to a file object in bounded memory. */
  getFile(idOrName: string, file: CairnFile, range?: { start?: number; end?: number }): void;
  stat(idOrName: string): { id: string; size: number } | null;
  list(): StoreEntry[];
  setName(name: string, id: string): void;
  getName(name: string): string | null;
  deleteName(name: string): void;
  /** Check every chunk and manifest; damage is reported, not thrown. */
  verify(): { ok: boolean; bad: number; problems: string[] };
  /** Pick up what other handles committed since the open or the last refresh (read-only stores; a writer: no-op). */
  refresh(): void;
  stats(): StoreStats;
  begin(): void;
  commit(): void;
  rollback(): void;
  close(): void;
}

// ------------------------------------------------------------------ HDF5 (js/src/h5.d.ts)
import type { H5 } from './h5.js';
export type * from './h5.js';
/** HDF5 files, h5wasm-like: h5.File.open(fileObject | path, mode). */
export declare const h5: H5;

// ------------------------------------------------------------------ ephemeral tier, decision gate (js/src/ephemeral.d.ts)
import type { Ephemeral as EphemeralClass, Observer as ObserverClass, gate as gateFn } from './ephemeral.js';
export type * from './ephemeral.js';
export type * from './consolidate.js';
/** An in-process key-value tier with TTLs, an LRU capacity and optional embedding search. */
export declare const Ephemeral: typeof EphemeralClass;
export type Ephemeral = EphemeralClass;
/** Applies a save strategy and the decision gate to each exchange of a conversation. */
export declare const Observer: typeof ObserverClass;
export type Observer = ObserverClass;
/** The decision gate: would `text` be worth saving? */
export declare const gate: typeof gateFn;

// ------------------------------------------------------------------ default export
declare const cairn: {
  init: typeof init;
  sha256: typeof sha256;
  sha256File: typeof sha256File;
  zstd: StreamCodec;
  deflate: StreamCodec;
  gzip: StreamCodec;
  version: typeof version;
  Memory: typeof Memory;
  Graph: typeof Graph;
  Store: typeof Store;
  zl: typeof zl;
  compress: typeof compress;
  decompress: typeof decompress;
  h5: H5;
  Ephemeral: typeof Ephemeral;
  Observer: typeof Observer;
  gate: typeof gate;
  MemoryFile: typeof MemoryFile;
  CairnError: typeof CairnError;
};
export default cairn;
