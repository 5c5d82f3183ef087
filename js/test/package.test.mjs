// 2026-12-02 - the package as a user gets it: `npm pack` (README.md and LICENSE in the tarball),
// installed from the tarball into a fresh ESM project and a fresh CommonJS project (`npm init -y`),
// run there, and type-checked there with `tsc --strict` against each entry's types: the Node entry
// (src/index.d.ts, NodeFile included) and the browser entry (src/web.d.ts: no NodeFile value).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { packInto, freshProject } from '../tools/pack.mjs';

const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
const tsc = path.join(pkgDir, 'node_modules/typescript/bin/tsc');
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

function typecheck(dir, files, options) {
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, skipLibCheck: false, types: [], target: 'ES2022', ...options }, files }));
  try {
    run(process.execPath, [tsc, '-p', 'tsconfig.json'], dir);
    return '';
  } catch (e) {
    return String(e.stdout) + String(e.stderr);
  }
}

const node = `const f = new NodeFile(process.argv[2] ?? 'x.bin', 'w+'); f.write(0, new TextEncoder().encode('abc')); f.close();`;

test('npm pack: the tarball holds README.md, LICENSE, the entries, their types and the wasm, nothing of the tests', { timeout: 120000 }, (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-pack-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const { files } = packInto(tmp);
  for (const f of ['README.md', 'LICENSE', 'package.json', 'src/index.js', 'src/node.js', 'src/index.d.ts', 'src/web.d.ts', 'src/h5.d.ts', 'dist/cairn-core.mjs', 'dist/cairn-core.wasm'])
    assert.ok(files.includes(f), `${f} is in the tarball`);
  assert.ok(!files.some((f) => f.startsWith('test/') || f.startsWith('node_modules/')), files.join(' '));
  assert.match(fs.readFileSync(path.join(pkgDir, 'LICENSE'), 'utf8'), /^MIT License/);
  assert.equal(pkg.license, 'MIT');
});

test('web.d.ts declares as values exactly what the browser entry exports', () => {
  const web = fs.readFileSync(path.join(pkgDir, 'src/index.js'), 'utf8');
  const names = new Set([...web.matchAll(/export (?:const )?\{([^}]*)\}/g)].flatMap((m) => m[1].split(',').map((s) => s.trim()).filter(Boolean)));
  const dts = fs.readFileSync(path.join(pkgDir, 'src/web.d.ts'), 'utf8');
  const m = dts.match(/export \{([^}]*)\} from '\.\/index\.js';/);
  const declared = new Set(m[1].split(',').map((s) => s.trim()).filter(Boolean));
  assert.deepEqual([...declared].sort(), [...names].sort());
  assert.match(dts, /export \{ default \} from '\.\/index\.js';/);
});

test('installs from the tarball in a fresh ESM project and a fresh CommonJS project; runs; tsc --strict passes per entry', { timeout: 240000 }, (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-install-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const { tarball } = packInto(tmp);
  const name = pkg.name;

  // ESM: a static import and top-level await.
  const esm = freshProject(path.join(tmp, 'esm'), tarball, { esm: true });
  fs.writeFileSync(path.join(esm, 'app.js'), `import cairn, { sha256, NodeFile, h5 } from '${name}';\n${node}\nconsole.log(await sha256('abc'), typeof h5.File, typeof cairn.zstd.compress, await cairn.sha256File(new NodeFile('x.bin')));\n`);
  const o1 = run(process.execPath, ['app.js'], esm).trim().split(' ');
  assert.equal(o1[0], 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.deepEqual(o1.slice(1), ['function', 'function', o1[0]]);

  // CommonJS (npm init -y): top-level await is a SyntaxError there, so the documented form is await import().
  const cjs = freshProject(path.join(tmp, 'cjs'), tarball, { esm: false });
  assert.equal(JSON.parse(fs.readFileSync(path.join(cjs, 'package.json'), 'utf8')).type ?? 'commonjs', 'commonjs');
  fs.writeFileSync(path.join(cjs, 'app.js'), `(async () => {\n  const { sha256, NodeFile, sha256File } = await import('${name}');\n  ${node}\n  console.log(await sha256('abc'), await sha256File(new NodeFile('x.bin')));\n})();\n`);
  const o2 = run(process.execPath, ['app.js'], cjs).trim().split(' ');
  assert.deepEqual(o2, [o1[0], o1[0]]);
  // Node >= 20.19 also loads the ES module through require() (no top-level await in the package).
  const [maj, min] = process.versions.node.split('.').map(Number);
  if (maj > 20 || min >= 19) assert.equal(run(process.execPath, ['-e', `console.log(typeof require('${name}').sha256)`], cjs).trim(), 'function');

  // Types, Node entry (module nodenext picks the "node" condition): NodeFile, h5 narrowing, File<MemoryFile>.
  fs.writeFileSync(path.join(esm, 'node.ts'), `import { sha256, NodeFile, MemoryFile, h5, CairnError, type MemoryHit } from '${name}';
export async function main(): Promise<string> {
  const f = await h5.File.create(new MemoryFile());
  f.create_dataset({ name: 'x', data: new Float32Array(4) });
  const d = f.get('x');
  if (d instanceof h5.Dataset) console.log(d.shape, d.dtype);
  f.close();
  const blob: Blob = f.file.toBlob();
  const hits: MemoryHit[] = [];
  const e: CairnError | null = null;
  console.log(blob.size, hits.length, e, new NodeFile('a', 'r').name);
  return sha256('abc');
}
`);
  assert.equal(typecheck(esm, ['node.ts'], { module: 'nodenext', moduleResolution: 'nodenext', lib: ['ES2022', 'DOM'] }), '');
  // CommonJS types: await import() from a .cts file.
  fs.writeFileSync(path.join(cjs, 'app.cts'), `export async function main(): Promise<string> {\n  const { sha256, NodeFile } = await import('${name}');\n  console.log(new NodeFile('a', 'r').size());\n  return sha256('abc');\n}\n`);
  assert.equal(typecheck(cjs, ['app.cts'], { module: 'nodenext', moduleResolution: 'nodenext', lib: ['ES2022', 'DOM'] }), '');

  // Types, browser entry (a bundler's resolution: no "node" condition): every browser file class, no NodeFile value.
  fs.writeFileSync(path.join(esm, 'web.ts'), `import cairn, { sha256, MemoryFile, HttpFile, BlobFile, OpfsFile, h5, type CairnFile } from '${name}';
export async function main(): Promise<void> {
  const files: CairnFile[] = [new MemoryFile(), new HttpFile('/a.h5'), new BlobFile(new Blob([])), await OpfsFile.open('x')];
  const f = await h5.File.open(new HttpFile('/a.h5'));
  const g = f.get('/');
  if (g instanceof h5.Group) console.log(g.keys());
  console.log(files.length, await sha256('abc'), cairn.zstd, f.file.bytesFetched);
}
`);
  assert.equal(typecheck(esm, ['web.ts'], { module: 'esnext', moduleResolution: 'bundler', lib: ['ES2022', 'DOM', 'DOM.Iterable', 'DOM.AsyncIterable'] }), '');
  fs.writeFileSync(path.join(esm, 'web-bad.ts'), `import { NodeFile } from '${name}';\nexport const f = new NodeFile('x');\n`);
  assert.match(typecheck(esm, ['web-bad.ts'], { module: 'esnext', moduleResolution: 'bundler', lib: ['ES2022', 'DOM'] }), /NodeFile.*cannot be used as a value/);
});
