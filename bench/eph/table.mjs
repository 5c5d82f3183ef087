// 2026-12-02 - bench/eph/table.mjs CAIRN.json REDIS.json [WASI.json] - the table of bench/eph/run.sh:
// each row's cairn figure, the seed's (ClawhDF5 on an i7-12650H, from issue 18), cairn's speedup
// over it (goal 5x), Redis one round trip per command and pipelined, and Redis / cairn.
import fs from 'node:fs';

const [c, r, w] = process.argv.slice(2).map((f) => JSON.parse(fs.readFileSync(f, 'utf8')));
// [label, cairn key, unit, seed figure (same unit), Redis key (one round trip), Redis pipelined key]
const rows = [
  ['SET', 'set_ns', 'ns', 356, 'set_ns', 'set_ns_pipe'],
  ['GET', 'get_ns', 'ns', 179, 'get_ns', 'get_ns_pipe'],
  ['GET miss', 'miss_ns', 'ns', 62, 'miss_ns', 'miss_ns_pipe'],
  ['DELETE', 'delete_ns', 'ns', 124, 'delete_ns', 'delete_ns_pipe'],
  [`SET with a ${c.dim}-d embedding`, 'set_emb_ns', 'ns', 268, 'set_emb_ns', 'set_emb_ns_pipe'],
  ['SET, cold (fresh memory)', 'cold_set_ns', 'ns', null, null, null],
  [`SET + ${c.dim}-d, cold`, 'cold_set_emb_ns', 'ns', null, null, null],
  [`search top-10 of ${c.n} x ${c.dim}`, 'search_ms', 'ms', 2.9, null, 'search_ms_pipe'],
  ['gate, trivial ("ok")', 'gate_trivial_ns', 'ns', 61, null, null],
  ['gate, non-trivial (80 B)', 'gate_pass_ns', 'ns', 705, null, null],
  ['observe every-exchange, decide', 'observe_every_ns', 'ns', 923, null, null],
  ['observe on-shift, decide', 'observe_shift_ns', 'ns', 941, null, null],
  ['observe every-exchange + 2 adds', 'observe_every_save_ns', 'ns', null, null, null],
  ['observe on-shift + adds', 'observe_shift_save_ns', 'ns', null, null, null],
  ['score 100 memories', 'score_100_us', 'us', 25, null, null],
  ['score 1K memories', 'score_1k_us', 'us', null, null, null],
  ['keep the best tenth of 1K', 'select_1k_us', 'us', null, null, null],
  ['score 10K memories', 'score_10k_us', 'us', null, null, null],
  ['keep the best tenth of 10K', 'select_10k_us', 'us', null, null, null],
];
const f = (v, unit) => (v === null || v === undefined ? '-' : unit === 'ms' ? `${v.toFixed(3)} ms` : unit === 'us' ? `${v.toFixed(2)} us` : `${v.toFixed(1)} ns`);
const x = (a, b) => (a && b ? `${(a / b).toFixed(1)}x` : '-');
const pad = (s, n) => String(s).padEnd(n);
const head = ['', 'cairn', 'seed', 'seed/cairn', 'Redis', 'Redis/cairn', 'Redis pipe', 'pipe/cairn'];
if (w) head.push('WASI', 'WASI/native');
console.log(head.map((h, i) => pad(h, i ? 12 : 34)).join(''));
for (const [label, ck, unit, seed, rk, rpk] of rows) {
  const cv = c[ck], rv = rk ? r[rk] : null, rpv = rpk ? r[rpk] : null;
  const cells = [label, f(cv, unit), seed === null ? '-' : f(seed, unit), x(seed, cv), f(rv, unit), x(rv, cv), f(rpv, unit), x(rpv, cv)];
  if (w) cells.push(f(w[ck], unit), x(w[ck], cv));
  console.log(cells.map((s, i) => pad(s, i ? 12 : 34)).join(''));
}
console.log(`(cairn: best of ${c.rounds} warm rounds, n ${c.n}; Redis: best of ${r.rounds}, loopback, pipelined in batches of ${r.pipe};`);
console.log(' Redis 7.0 has no vector search without RediSearch: its search row fetches every embedding pipelined and scans them in the client;');
console.log(' the seed\'s consolidation of 1K (164 us) / 10K (17.3 ms) also moves records: the keep rows are only its decision;');
console.log(' the seed\'s observe figures are SaveEveryExchange / SaveOnSemanticShift, whose store work is not known: compare with the decide rows)');
