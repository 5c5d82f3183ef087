// 2026-11-29 - the TypeScript declarations (src/index.d.ts): they name exactly what the entries
// export at runtime, and a usage file type-checks with tsc (when typescript is installed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const dts = fs.readFileSync(new URL('../src/index.d.ts', import.meta.url), 'utf8');
const declared = new Set([...dts.matchAll(/^export (?:declare )?(?:class|function|const) (\w+)/gm)].map((m) => m[1]));
declared.add('default');

test('index.d.ts declares every runtime export of the Node and browser entries, and nothing else', async () => {
  const node = await import('../src/node.js');
  assert.deepEqual([...declared].sort(), Object.keys(node).sort());
  // The browser entry cannot be imported in Node (it fetches the .wasm); read its export list.
  const web = fs.readFileSync(new URL('../src/index.js', import.meta.url), 'utf8');
  const webNames = [...web.matchAll(/export (?:const )?\{([^}]*)\}/g)].flatMap((m) => m[1].split(',').map((s) => s.trim()).filter(Boolean));
  for (const n of webNames) assert.ok(declared.has(n), n);
  assert.deepEqual(Object.keys(node).filter((n) => n !== 'default' && !webNames.includes(n)), ['NodeFile']);
  for (const name of Object.keys(node.default)) if (name !== '_internal') assert.match(dts, new RegExp(`^  ${name}: `, 'm'), `default.${name}`);
});

const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
test('a usage file type-checks against the declarations (tsc --noEmit)', { skip: !fs.existsSync(tsc) && 'typescript not installed (npm ci)' }, () => {
  execFileSync(process.execPath, [tsc, '-p', fileURLToPath(new URL('./types/tsconfig.json', import.meta.url))], { encoding: 'utf8', stdio: 'pipe' });
});
