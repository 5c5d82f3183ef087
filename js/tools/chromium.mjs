// 2026-11-29 - js/tools/chromium.mjs: headless Debian Chromium through playwright-core, with the
// flags this machine needs (root: no sandbox; closed network: no background connections).
// Every browser test launches through here. CHROMIUM overrides the executable.
import { chromium } from 'playwright-core';

export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
