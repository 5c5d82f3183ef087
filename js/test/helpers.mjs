// 2026-11-29 - shared by the Node tests: the repo root, the native CLI (an independent
// implementation path: same C core, native kernels, POSIX files), scratch files, seeded data.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const data = path.resolve(root, '../shared/data');

/** The native CLI (CAIRN_CLI overrides build/native/cairn), or null when it is not built. */
export const cli = (() => {
  const p = process.env.CAIRN_CLI || path.join(root, 'build/native/cairn');
  return fs.existsSync(p) ? p : null;
})();

/** Run the CLI; returns stdout as a string (throws with stderr on a non-zero exit). */
export function run(...args) {
  return execFileSync(cli, args, { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The WASI CLI (build/wasi/cairn.wasm: the same C and the same vendored zstd as the npm
** package's wasm), run under Node's WASI with the shared data and the scratch dir preopened. */
export const wasiCli = (() => {
  const p = path.join(root, 'build/wasi/cairn.wasm');
  return fs.existsSync(p) ? p : null;
})();
export function runWasi(...args) {
  return execFileSync(process.execPath, [path.join(root, 'scripts/wasi-run.mjs'), '--dir', data, '--dir', tmpdir, wasiCli, ...args],
    { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_NO_WARNINGS: '1' } });
}

/** Does the CLI have this command? (`cairn put` arrives with the chunk store's CLI.) */
export function cliHas(cmd) {
  if (!cli) return false;
  try {
    return execFileSync(cli, ['help'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).split('\n').some((l) => l.trim().startsWith(cmd + ' '));
  } catch (e) {
    return String(e.stdout || '').split('\n').some((l) => l.trim().startsWith(cmd + ' '));
  }
}

export const tmpdir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-js-'));
process.on('exit', () => fs.rmSync(tmpdir, { recursive: true, force: true }));
export const tmp = (name) => path.join(tmpdir, name);

/** Deterministic bytes (xorshift32). */
export function pseudoRandom(n, seed = 1) {
  const b = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    b[i] = x & 0xff;
  }
  return b;
}
