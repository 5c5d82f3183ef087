#!/usr/bin/env node
// scripts/wasi-run.mjs [--dir DIR]... MODULE.wasm [ARGS...]
// Runs a WASI preview1 command under Node's node:wasi, like `wasmtime run --dir DIR`: each DIR is
// preopened at its own absolute path, and the current directory at "." (so relative paths work).
// Exits with the module's exit code.
import { readFileSync, openSync, fstatSync } from 'node:fs';
import { resolve } from 'node:path';
import { WASI } from 'node:wasi';
import process from 'node:process';

const argv = process.argv.slice(2);
const preopens = { '.': process.cwd() };
preopens[process.cwd()] = process.cwd();
while (argv[0] === '--dir') {
  const d = resolve(argv[1]);
  preopens[d] = d;
  argv.splice(0, 2);
}
const mod = argv.shift();
if (!mod) {
  console.error('usage: wasi-run.mjs [--dir DIR]... MODULE.wasm [ARGS...]');
  process.exit(2);
}
// node:wasi writes fd 1/2 with writeSync; when they are pipes, Node has made them non-blocking,
// so a full pipe fails the write (EAGAIN) and output is lost. A fresh open of /dev/stdout gives a
// blocking description of the same pipe (Linux), so the guest's writes wait instead.
function blocking(fd, dev) {
  try {
    return fstatSync(fd).isFIFO() ? openSync(dev, 'w') : fd;
  } catch {
    return fd;
  }
}
const wasi = new WASI({
  version: 'preview1', args: [mod, ...argv], env: {}, preopens, returnOnExit: true,
  stdout: blocking(1, '/dev/stdout'), stderr: blocking(2, '/dev/stderr'),
});
const module = await WebAssembly.compile(readFileSync(mod));
const instance = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: wasi.wasiImport });
const code = wasi.start(instance);
process.exitCode = code;
