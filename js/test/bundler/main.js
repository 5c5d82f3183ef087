// Imported by package name, resolved through package.json "exports" exactly as an app would.
import { sha256, zstd } from 'cairn';

const text = new TextEncoder().encode('bundled cairn '.repeat(1000));
const out = { sha: await sha256(text) };
out.roundTrip = (await zstd.decompress(await zstd.compress(text))).length === text.length;
window.results = out;
document.getElementById('out').textContent = JSON.stringify(out);
