// 2026-12-02
// js/src/ephemeral.d.ts - types of the ephemeral tier, the decision gate and the observer
// (js/src/ephemeral.js). The package's types (index.d.ts) re-export them.

/** What promote() and observe() need of a Memory: its add(). */
export interface MemoryLike {
  add(record: { text: string; [field: string]: unknown }): number;
}

export interface EphemeralOpenOptions {
  /** Entries kept at most (1..2^26); a set of a new key beyond it evicts the least recently used. */
  capacity: number;
  /** Embedding dimension; 0 (default): entries carry no embeddings. */
  dim?: number;
  metric?: 'cosine' | 'ip' | 'l2';
  /** TTL of a set that gives none; 0 (default): never expire. */
  defaultTtlMs?: number;
}

export interface EphemeralSetOptions {
  /** ms until the entry expires; 0: the tier's default; Infinity: never; negative: refused. */
  ttlMs?: number;
  embedding?: Float32Array | number[];
}

export interface EphemeralEntry {
  value: string;
  embedding: Float32Array | null;
  /** ms left; null: never expires. */
  ttlLeftMs: number | null;
}

export interface EphemeralHit {
  key: string;
  value: string;
  /** Higher is better: cosine, inner product, or -(squared distance) for l2. */
  score: number;
}

export interface EphemeralStats {
  count: number;
  capacity: number;
  dim: number;
  embedded: number;
  bytes: number;
  sets: number;
  hits: number;
  misses: number;
  deletes: number;
  evicted: number;
  expired: number;
}

export type EphemeralKey = string | ArrayBuffer | ArrayBufferView;

/** An in-process key-value tier with TTLs, an LRU capacity and optional embedding search. */
export class Ephemeral {
  private constructor();
  static open(options: EphemeralOpenOptions): Promise<Ephemeral>;
  /** open() once the package is initialised (after any awaited open or init()); throws before. */
  static openSync(options: EphemeralOpenOptions): Ephemeral;
  set(key: EphemeralKey, value: string | ArrayBuffer | ArrayBufferView, options?: EphemeralSetOptions): this;
  /** The value as a string, or null (absent, expired or evicted). */
  get(key: EphemeralKey): string | null;
  getBytes(key: EphemeralKey): Uint8Array | null;
  entry(key: EphemeralKey): EphemeralEntry | null;
  has(key: EphemeralKey): boolean;
  delete(key: EphemeralKey): boolean;
  expire(key: EphemeralKey, ttlMs: number): boolean;
  purge(): number;
  clear(): void;
  search(query: Float32Array | number[], options?: { k?: number }): EphemeralHit[];
  /** mem.add({ ...record, text: value, embedding }); returns the memory's id. */
  promote(key: EphemeralKey, mem: MemoryLike, record?: Record<string, unknown>, options?: { remove?: boolean }): number;
  stats(): EphemeralStats;
  readonly size: number;
  close(): void;
}

export type GateReason = 'pass' | 'empty' | 'too long' | 'trivial' | 'short' | 'low content';

export interface GateOptions {
  minBytes?: number;
  minContentWords?: number;
  /** Negative: the ratio rule is off. */
  minContentRatio?: number;
  trivialMaxWords?: number;
  maxBytes?: number;
  scanBytes?: number;
  /** Every non-empty text passes (the strategies still apply). */
  noGate?: boolean;
}

export interface GateResult {
  save: boolean;
  reason: GateReason;
  bytes: number;
  words: number;
  content: number;
  acks: number;
  ratio: number;
}

/** Would `text` be worth saving? gate.sync: the same once the package is initialised. */
export declare const gate: {
  (text: string, options?: GateOptions): Promise<GateResult>;
  sync(text: string, options?: GateOptions): GateResult;
};

export interface ObserverOptions extends GateOptions {
  strategy?: 'every' | 'shift' | 'importance';
  /** Cosine distance from the recent window's centroid (default 0.5). */
  shiftThreshold?: number;
  /** Exchanges in the window (default 8, at most 1024). */
  window?: number;
  importanceThreshold?: number;
  /** Embedding dimension of the shift strategy (default 256, the built-in embedder's). */
  dim?: number;
}

export interface Exchange {
  user?: string | null;
  assistant?: string | null;
  userEmbedding?: Float32Array | number[];
  assistantEmbedding?: Float32Array | number[];
  /** Omitted: estimated from the gate's counts. */
  importance?: number;
  session?: string;
  userRole?: string;
  assistantRole?: string;
  time?: Date | number;
}

export interface ObserveResult {
  save: boolean;
  why: 'every' | 'shift' | 'no shift' | 'important' | 'unimportant' | 'gated';
  shift: number | null;
  importance: number;
  user: GateResult;
  assistant: GateResult;
  /** Ids of the memories added (null: not saved, or no Memory given). */
  saved: { user: number | null; assistant: number | null };
}

/** Applies a save strategy and the gate to each exchange of a conversation. */
export class Observer {
  private constructor();
  static open(options?: ObserverOptions): Promise<Observer>;
  static openSync(options?: ObserverOptions): Observer;
  observe(exchange: Exchange, mem?: MemoryLike): ObserveResult;
  close(): void;
}
