// 2026-12-02
// js/tools/pack.mjs - the package as a user gets it, for js/test/package.test.mjs and
// tests/readme/run.mjs: `npm pack` of js/ into a folder, and a fresh project with that tarball
// installed (ESM, or CommonJS as `npm init -y` makes it). Needs the built wasm (scripts/build.sh em).
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** `npm pack` into dir; returns { tarball, files }. */
export function packInto(dir) {
  const out = run('npm', ['pack', '--json', '--pack-destination', dir], pkgDir);
  const [info] = JSON.parse(out.slice(out.indexOf('[')));
  return { tarball: path.join(dir, info.filename), files: info.files.map((f) => f.path) };
}

/** A fresh project in dir (ESM: "type": "module"; CommonJS: what `npm init -y` writes) with the tarball installed. */
export function freshProject(dir, tarball, { esm }) {
  fs.mkdirSync(dir, { recursive: true });
  run('npm', ['init', '-y'], dir);
  if (esm) {
    const p = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    p.type = 'module';
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(p, null, 2));
  }
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball], dir);
  return dir;
}
