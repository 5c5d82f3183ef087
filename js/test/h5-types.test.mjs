// 2026-11-29 - the TypeScript declarations compile (tsc --strict --noEmit over a usage sample)
// when TypeScript is installed in js/node_modules; skipped otherwise (it is not a dependency).
import { test } from 'node:test';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
let tsc = null;
try {
  tsc = require.resolve('typescript/bin/tsc');
} catch {
  /* not installed */
}

test('h5.d.ts: a usage sample type-checks with tsc --strict', { skip: tsc ? false : 'typescript is not installed' }, () => {
  const sample = fileURLToPath(new URL('./types/h5-usage.ts', import.meta.url));
  execFileSync(process.execPath, [tsc, '--noEmit', '--strict', '--isolatedModules', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--lib', 'es2022,dom', sample], { stdio: 'pipe' });
});
