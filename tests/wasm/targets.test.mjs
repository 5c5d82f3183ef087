// 2026-11-29 - the same core test program on the two wasm targets, and the WASI CLI against the
// native CLI and coreutils. Run with `node --test tests/wasm/` after scripts/build.sh.
//   - build/wasi/cairn_tests.wasm under node:wasi, build/em/cairn_tests.cjs under Node: all pass
//   - cairn.wasm imports nothing but wasi_snapshot_preview1 (so wasmtime runs it unchanged)
//   - `cairn hash` prints the same line natively, under WASI and as sha256sum does
//   - a zstd file written by the WASI CLI decodes with the zstd CLI
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
const data = path.resolve(root, '../shared/data');
const wasiRun = path.join(root, 'scripts/wasi-run.mjs');
const env = { ...process.env, NODE_NO_WARNINGS: '1' };
const tmp = fs.mkdtempSync(path.join(root, 'build', 'wasm-test-'));

function summary(out) {
  const m = /^(\d+) passed, (\d+) failed$/m.exec(out);
  return m ? { passed: Number(m[1]), failed: Number(m[2]) } : null;
}

test('core tests pass under WASI (node:wasi)', { timeout: 600000 }, () => {
  const r = spawnSync('node', [wasiRun, '--dir', data, '--dir', tmp, path.join(root, 'build/wasi/cairn_tests.wasm'), '--data', data, '--tmp', tmp], { env, encoding: 'utf8', maxBuffer: 1 << 26 });
  const s = summary(r.stdout);
  assert.ok(s, r.stdout + r.stderr);
  assert.equal(s.failed, 0, r.stdout.split('\n').filter((l) => !l.startsWith('ok')).join('\n'));
  assert.ok(s.passed > 10);
  assert.equal(r.status, 0);
});

test('core tests pass under Emscripten (Node)', { timeout: 600000 }, () => {
  const r = spawnSync('node', [path.join(root, 'build/em/cairn_tests.cjs'), '--data', data, '--tmp', tmp], { env, encoding: 'utf8', maxBuffer: 1 << 26 });
  const s = summary(r.stdout);
  assert.ok(s, r.stdout + r.stderr);
  assert.equal(s.failed, 0, r.stdout.split('\n').filter((l) => !l.startsWith('ok')).join('\n'));
  assert.ok(s.passed > 10);
  assert.equal(r.status, 0);
});

test('cairn.wasm is a standard WASI preview1 command', async () => {
  const mod = await WebAssembly.compile(fs.readFileSync(path.join(root, 'build/wasi/cairn.wasm')));
  const modules = new Set(WebAssembly.Module.imports(mod).map((i) => i.module));
  assert.deepEqual([...modules], ['wasi_snapshot_preview1']);
  assert.ok(WebAssembly.Module.exports(mod).some((e) => e.name === '_start'));
});

test('cairn hash: native, WASI and sha256sum print the same line', () => {
  const files = ['empty', 'small.txt', 'big.bin'].map((n) => path.join(tmp, n));
  fs.writeFileSync(files[0], '');
  fs.writeFileSync(files[1], 'the same bytes give the same hash\n');
  fs.writeFileSync(files[2], crypto.randomBytes(5 << 20));
  const native = execFileSync(path.join(root, 'build/native/cairn'), ['hash', ...files], { encoding: 'utf8' });
  const wasi = execFileSync('node', [wasiRun, '--dir', tmp, path.join(root, 'build/wasi/cairn.wasm'), 'hash', ...files], { env, encoding: 'utf8' });
  const coreutils = execFileSync('sha256sum', files, { encoding: 'utf8' });
  assert.equal(native, coreutils);
  assert.equal(wasi, coreutils);
});

test('WASI zstd output decodes with the zstd CLI; WASI errors are one line, non-zero', () => {
  const src = path.join(tmp, 'text.txt');
  fs.writeFileSync(src, Array.from({ length: 50000 }, (_, i) => `line ${i}\n`).join(''));
  execFileSync('node', [wasiRun, '--dir', tmp, path.join(root, 'build/wasi/cairn.wasm'), 'zstd', src, '-o', `${src}.zst`], { env });
  assert.deepEqual(execFileSync('zstd', ['-q', '-d', '-c', `${src}.zst`]), fs.readFileSync(src));
  const r = spawnSync('node', [wasiRun, '--dir', tmp, path.join(root, 'build/wasi/cairn.wasm'), 'hash', path.join(tmp, 'missing')], { env, encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.equal(r.stderr.trim().split('\n').length, 1);
  assert.match(r.stderr, /missing/);
});

test('WASI CLI output through a shell pipe is complete (megabytes, faster than the reader)', () => {
  // A shell pipe is a FIFO that Node makes non-blocking; node:wasi's writeSync then fails with
  // EAGAIN when it is full and the output was cut at 64 KiB (scripts/wasi-run.mjs reopens it).
  const f = path.join(tmp, 'fill.h5');
  const cairn = path.join(root, 'build/native/cairn');
  execFileSync(cairn, ['h5w', 'new', f]);
  execFileSync(cairn, ['h5w', 'dataset', f, '/x', 'f64', '200000', '--fill', '1.5']);
  const native = execFileSync(cairn, ['h5', 'dump', f, '/x'], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.ok(native.length > 500000);
  const cmd = `node ${wasiRun} --dir ${tmp} ${path.join(root, 'build/wasi/cairn.wasm')} h5 dump ${f} /x | cat`;
  const wasi = execFileSync('bash', ['-o', 'pipefail', '-c', cmd], { env, encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(wasi.length, native.length);
  assert.equal(wasi, native);
});

// Reading a pipe into memory grows the module's memory many times; Node 20's V8 crashed
// (SIGSEGV) doing that before the CLI started with 256 MiB (CMakeLists.txt). The native CLI
// decodes what the WASI CLI wrote from its stdin.
test('WASI compress - reads a pipe to its end and exits cleanly', { timeout: 120000 }, () => {
  const src = path.join(tmp, 'seq.txt');
  fs.writeFileSync(src, Array.from({ length: 300000 }, (_, i) => `${i + 1}\n`).join(''));
  const out = path.join(tmp, 'seq.zl');
  const cmd = `cat '${src}' | node '${wasiRun}' --dir '${tmp}' '${path.join(root, 'build/wasi/cairn.wasm')}' compress - -o '${out}'`;
  const r = spawnSync('bash', ['-o', 'pipefail', '-c', cmd], { env, encoding: 'utf8' });
  assert.equal(r.status, 0, `exit ${r.status} signal ${r.signal}: ${r.stderr}`);
  const back = execFileSync(path.join(root, 'build/native/cairn'), ['decompress', out, '-o', '-'], { maxBuffer: 1 << 26 });
  assert.deepEqual(back, fs.readFileSync(src));
});

// tests/cli/mem_edit.sh (issue 17's memory commands, their --json output, the raw file grepped,
// h5py reading the store) with the WASI CLI as $CAIRN: a wrapper runs cairn.wasm under
// scripts/wasi-run.mjs with the test's directory preopened. The script's own checks decide.
test('tests/cli/mem_edit.sh passes with cairn.wasm (WASI)', { timeout: 300000 }, () => {
  const dir = fs.mkdtempSync(path.join(tmp, 'mem-edit-'));
  const wrapper = path.join(dir, 'cairn-wasi');
  fs.writeFileSync(wrapper, `#!/bin/sh\nexec node '${wasiRun}' --dir '${dir}' '${path.join(root, 'build/wasi/cairn.wasm')}' "$@"\n`, { mode: 0o755 });
  const r = spawnSync('bash', [path.join(root, 'tests/cli/mem_edit.sh'), dir], { env: { ...env, CAIRN: wrapper }, encoding: 'utf8', maxBuffer: 1 << 24 });
  const lines = r.stdout.split('\n').filter((l) => l.trim());
  assert.ok(lines.filter((l) => l.startsWith('ok')).length > 20, r.stdout + r.stderr);
  assert.deepEqual(lines.filter((l) => !l.startsWith('ok')), [], r.stderr);
  assert.equal(r.status, 0, r.stdout + r.stderr);
});
