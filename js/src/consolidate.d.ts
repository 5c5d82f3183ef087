// 2026-12-02
// js/src/consolidate.d.ts - types of consolidation, the session tick and explain (js/src/consolidate.js).
// The package's types (index.d.ts) re-export them; the methods are on Memory.

/** Settings of a consolidation cycle (core/include/cairn/consolidate.h). */
export interface ConsolidateOptions {
  /** Working memories kept hot (default 1000; 0 is refused). */
  capacity?: number;
  /** Recency half-life in hours (default 168). */
  halfLifeHours?: number;
  /** Accesses at which the access part is 0.5 (default 4). */
  accessHalf?: number;
  /** Links at which the links part is 0.5 (default 2). */
  linkHalf?: number;
  /** Weights of the score's parts (defaults 0.4, 0.3, 0.2, 0.1; 0 turns a part off). */
  weights?: { value?: number; access?: number; recency?: number; links?: number };
  /** Cosine at which episodic memories are near duplicates (default 0.9; negative: no promotion). */
  mergeThreshold?: number;
  /** Members of a new semantic memory (default 2). */
  minGroup?: number;
  /** Memories that name each other in metadata.links are merged (default true). */
  linkMerge?: boolean;
  /** "Now" for recency and the versions written (default the clock). */
  now?: Date | number;
  /** Plan and report only. */
  dryRun?: boolean;
}
export interface ConsolidateRunOptions extends ConsolidateOptions {
  /** Writes a group's text (an LLM call, say); without it the most central member's text is used. */
  summarise?: (texts: string[], ids: number[]) => string | Promise<string>;
}
export interface ConsolidateGroup {
  sources: number[];
  central: number;
  /** The semantic memory extended (0: a new one). */
  semantic: number;
  rule: 'extractive' | 'summariser';
  /** Dry runs: the members' texts. */
  texts?: string[];
}
export interface ConsolidateReport {
  scored: number;
  working: number;
  evicted: number;
  /** Working + semantic memories after the cycle (the hot index: filter { tier: [0, 2] }). */
  hot: number;
  episodic: number;
  /** Episodic memories compared for promotion (what changed since the last cycle). */
  compared: number;
  promoted: number;
  merged: number;
  dissolved: number;
  summarised: number;
  ms: number;
  evict: number[];
  groups: ConsolidateGroup[];
}
export type TickTask = 'commit' | 'consolidate' | 'index' | 'checkpoint';
export interface TickOptions {
  /** Time the tick may take (default 50; 0 runs nothing and reports what is due). */
  budgetMs?: number;
  /** The consolidation's settings, or false for none (default: capacity 1000). */
  consolidate?: ConsolidateOptions | false;
  /** Checkpoint once the log holds this many memories (default 1024). */
  checkpointAt?: number;
}
export interface TickReport {
  due: TickTask[];
  done: TickTask[];
  /** Due, but its estimated cost did not fit the budget. */
  skipped: TickTask[];
  budgetMs: number;
  ms: number;
  taskMs: { [task in TickTask]: number };
  consolidate?: Omit<ConsolidateReport, 'evict' | 'groups'>;
}
export interface ScoreParts {
  score: number;
  value: number;
  access: number;
  recency: number;
  links: number;
}
export interface Explanation {
  id: number;
  tier: number;
  tierName: 'working' | 'episodic' | 'semantic' | 'other';
  decision: 'kept' | 'would_evict' | 'evicted' | 'merged' | 'semantic' | 'episodic' | 'other';
  why: string;
  score: ScoreParts;
  inputs: { importance: number; accessCount: number; lastMs: number; links: number };
  nowMs: number;
  capacity: number;
  rank?: number;
  working?: number;
  evictedMs?: number;
  scoreAtEviction?: ScoreParts;
  mergedInto?: number;
  sources?: number[];
  central?: number;
  rule?: 'extractive' | 'summariser';
  history: { version: number; tier: number; tierName: string; validFromMs: number; validToMs: number }[];
}
