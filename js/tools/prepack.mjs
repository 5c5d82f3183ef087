// 2026-12-02
// js/tools/prepack.mjs - run by `npm pack` / `npm publish` (the "prepack" script): copies the
// repository's README.md and LICENSE into the package folder so the tarball carries them (the
// copies are ignored by git), and refuses to pack without the built wasm (scripts/build.sh em).
import fs from 'node:fs';

const pkg = new URL('../', import.meta.url);
for (const f of ['dist/cairn-core.mjs', 'dist/cairn-core.wasm'])
  if (!fs.existsSync(new URL(f, pkg))) {
    console.error(`prepack: js/${f} is missing: run scripts/build.sh em first`);
    process.exit(1);
  }
for (const f of ['README.md', 'LICENSE']) fs.copyFileSync(new URL(`../${f}`, pkg), new URL(f, pkg));
