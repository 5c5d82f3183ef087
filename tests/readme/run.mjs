#!/usr/bin/env node
// 2026-12-02
// tests/readme/run.mjs - every JavaScript and shell block of README.md and docs/*.md runs as
// written (scripts/test.sh step "readme"; needs scripts/build.sh native em):
//   ```js        Node: a file of a fresh ESM project that installed the packed tarball (npm pack);
//   ```js whose first line is `// commonjs`: a .cjs file of that project (CommonJS);
//   ```js whose first line is `// browser`: a module script in headless Chromium, on a page whose
//                import map points 'cairn-store' at the installed package (no bundler);
//   ```sh        bash -euo pipefail in one scratch folder per document (its blocks run in order,
//                so a later block sees what an earlier one wrote), with build/native on PATH and
//                `npm install cairn-store` installing the packed tarball (the name is not published yet).
// A ```text block right after a js/sh block is that block's expected output (stdout; in the
// browser, console.log lines), compared exactly. `<!-- readme-test: skip REASON -->` on the line
// before a fence skips that block; skips are printed with their reason. Also checked: the chart
// (scripts/chart.py --check), the API reference (scripts/api-doc.mjs --check), and that every
// command `cairn help` lists appears in README.md. Exit 1 on any failure.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { packInto, freshProject } = await import('file://' + path.join(here, 'js/tools/pack.mjs'));
const { launchChromium } = await import('file://' + path.join(here, 'js/tools/chromium.mjs'));
const { serve } = await import('file://' + path.join(here, 'js/tools/serve.mjs'));
const cairnBin = path.join(here, 'build/native');
const t0 = Date.now();
let nFail = 0, nRun = 0;
const fail = (where, msg) => { nFail++; console.log(`FAIL ${where}\n${String(msg).replace(/^/gm, '     | ')}`); };

/** The fenced blocks of a markdown file: { lang, first, code, expect, skip, line }. */
function blocks(file) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const m = lines[i].match(/^```(\w*)\s*$/);
    if (!m) continue;
    const start = i;
    let j = i + 1;
    while (j < lines.length && !/^```\s*$/.test(lines[j])) j++;
    const code = lines.slice(i + 1, j).join('\n');
    const skip = (lines[start - 1] ?? '').match(/<!-- readme-test: skip (.*?) -->/)?.[1] ?? null;
    const b = { lang: m[1], code, line: start + 1, skip };
    if (b.lang === 'text' && out.length && out.at(-1).end === start - 1) out.at(-1).expect = code;
    else out.push(b);
    b.end = j;
    i = j;
  }
  return out.filter((b) => ['js', 'javascript', 'sh', 'bash', 'shell'].includes(b.lang));
}

const docs = ['README.md', ...fs.readdirSync(path.join(here, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-readme-'));
const { tarball } = packInto(tmp);
const project = freshProject(path.join(tmp, 'app'), tarball, { esm: true });

// the npm the shell blocks see: `npm install cairn-store` installs the tarball, the rest is npm
const shim = path.join(tmp, 'bin');
fs.mkdirSync(shim);
fs.writeFileSync(path.join(shim, 'npm'), `#!/bin/sh\nif [ "$1" = install ] || [ "$1" = i ]; then\n  for a in "$@"; do [ "$a" = cairn-store ] && exec ${process.execPath} ${execFileSync('which', ['npm'], { encoding: 'utf8' }).trim()} install --no-audit --no-fund --prefer-offline --loglevel=error ${tarball}; done\nfi\nexec ${execFileSync('which', ['npm'], { encoding: 'utf8' }).trim()} "$@"\n`, { mode: 0o755 });
const env = { ...process.env, PATH: `${shim}:${cairnBin}:${process.env.PATH}`, NODE_NO_WARNINGS: '1' };

const browserBlocks = [];
for (const doc of docs) {
  const scratch = fs.mkdtempSync(path.join(tmp, path.basename(doc, '.md') + '-'));
  fs.writeFileSync(path.join(scratch, 'package.json'), '{"type":"module","private":true}');
  fs.symlinkSync(path.join(project, 'node_modules'), path.join(scratch, 'node_modules'));
  for (const [k, b] of blocks(path.join(here, doc)).entries()) {
    const where = `${doc}:${b.line} (${b.lang})`;
    if (b.skip) {
      console.log(`skip ${where}: ${b.skip}`);
      continue;
    }
    if ((b.lang === 'js' || b.lang === 'javascript') && /^\/\/ browser\b/.test(b.code)) {
      browserBlocks.push({ ...b, where });
      continue;
    }
    nRun++;
    let r;
    if (b.lang === 'js' || b.lang === 'javascript') {
      const f = path.join(scratch, `block${k}.${/^\/\/ commonjs\b/.test(b.code) ? 'cjs' : 'mjs'}`);
      fs.writeFileSync(f, b.code + '\n');
      r = spawnSync(process.execPath, [f], { cwd: scratch, env, encoding: 'utf8', timeout: 120000 });
    } else r = spawnSync('bash', ['-euo', 'pipefail', '-c', b.code], { cwd: scratch, env, encoding: 'utf8', timeout: 300000 });
    if (r.status !== 0) fail(where, `exit ${r.status}${r.signal ? ' ' + r.signal : ''}\n${r.stderr}${r.stdout}`);
    else if (b.expect !== undefined && r.stdout.trimEnd() !== b.expect.trimEnd()) fail(where, `output differs; got:\n${r.stdout}\nwant:\n${b.expect}`);
    else console.log(`ok   ${where}${b.expect !== undefined ? ', output as shown' : ''}`);
  }
}

if (browserBlocks.length) {
  const { server, port } = await serve(project);
  const browser = await launchChromium();
  try {
    for (const [k, b] of browserBlocks.entries()) {
      nRun++;
      fs.writeFileSync(path.join(project, `block${k}.mjs`), b.code + '\nwindow.__done = true;\n');
      fs.writeFileSync(path.join(project, `block${k}.html`), `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="importmap">{"imports":{"cairn-store":"/node_modules/cairn-store/src/index.js"}}</script><script type="module" src="block${k}.mjs"></script>`);
      const page = await browser.newPage();
      const logs = [], errors = [];
      page.on('console', (m) => (m.type() === 'error' ? errors : logs).push(m.text()));
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`http://127.0.0.1:${port}/block${k}.html`);
      try {
        await page.waitForFunction(() => window.__done === true, null, { timeout: 60000 });
      } catch (e) {
        errors.push('the block did not finish: ' + e.message.split('\n')[0]);
      }
      await page.close();
      const got = logs.join('\n');
      if (errors.length) fail(b.where + ' in Chromium', errors.join('\n'));
      else if (b.expect !== undefined && got.trimEnd() !== b.expect.trimEnd()) fail(b.where + ' in Chromium', `output differs; got:\n${got}\nwant:\n${b.expect}`);
      else console.log(`ok   ${b.where} in Chromium${b.expect !== undefined ? ', output as shown' : ''}`);
    }
  } finally {
    await browser.close();
    server.close();
  }
}

// the generated parts are current, and the README names every command
for (const [cmd, args] of [['python3', ['scripts/chart.py', '--check']], [process.execPath, ['scripts/api-doc.mjs', '--check']]]) {
  const r = spawnSync(cmd, args, { cwd: here, encoding: 'utf8' });
  if (r.status !== 0) fail(args[0], r.stderr + r.stdout);
  else process.stdout.write(r.stdout);
}
const readme = fs.readFileSync(path.join(here, 'README.md'), 'utf8');
const help = execFileSync(path.join(cairnBin, 'cairn'), ['help'], { encoding: 'utf8' });
const missing = [];
for (const m of help.matchAll(/^  ([a-z0-9]+) /gm)) {
  const fam = m[1];
  if (fam === 'aliases') continue;
  const sub = execFileSync(path.join(cairnBin, 'cairn'), ['help', fam], { encoding: 'utf8' });
  const names = /^subcommands/m.test(sub) ? [...sub.slice(sub.search(/^subcommands/m)).matchAll(new RegExp(`^  ${fam} ([a-z0-9]+)`, 'gm'))].map((x) => `${fam} ${x[1]}`) : [fam];
  for (const n of names) if (!readme.includes(`cairn ${n}`)) missing.push(n);
}
if (missing.length) fail('README.md commands', `not in README.md: ${missing.map((n) => `cairn ${n}`).join(', ')}`);
else console.log('ok   README.md names every command of `cairn help`');

fs.rmSync(tmp, { recursive: true, force: true });
console.log(`${nRun} blocks run, ${nFail} failures, ${((Date.now() - t0) / 1000).toFixed(0)} s`);
process.exit(nFail ? 1 : 0);
