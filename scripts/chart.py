#!/usr/bin/env python3
# 2026-12-02
# scripts/chart.py [RESULTS.md] [OUT.svg] - the README's chart: the headline ratios of the summary
# table at the top of bench/RESULTS.md (between <!-- summary:begin and <!-- summary:end -->) as
# horizontal bars on a log scale, one per headline goal (HEADLINE), each labelled with its peer;
# writes docs/bench-ratios.svg (plain SVG, no dependencies, the same bytes for the same table).
# `scripts/chart.py --check` fails if the committed SVG is not what the table gives (CI: readme).
import html, math, os, re, sys

here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
args = [a for a in sys.argv[1:] if a != '--check']
src = args[0] if args else os.path.join(here, 'bench/RESULTS.md')
out = args[1] if len(args) > 1 else os.path.join(here, 'docs/bench-ratios.svg')

# (start of the goal cell, label, which ratio of the cell: 0 = the first)
HEADLINE = [  # (start of the goal cell, bar label, peer label, which ratio of the ratio cell: 0 = the first)
    ('h5 read, wasm: open + read 1K f32', 'HDF5 small read, wasm', 'h5wasm', 0),
    ('h5 read, wasm: 128 attributes', 'HDF5 128 attributes, wasm', 'h5wasm', 0),
    ('h5 read: open + read 1K f32', 'HDF5 small read, native', 'libhdf5', 0),
    ('h5 write, wasm:', 'HDF5 write 1M f32, wasm', 'h5wasm', 1),
    ('h5 write: 128 attributes', 'HDF5 write 64 groups, native', 'libhdf5', 1),
    ('mem BM25 (WASI), LoCoMo: median query', 'BM25 query, wasm', 'minisearch', 0),
    ('mem retrieval quality', 'LoCoMo recall@5', 'minisearch', 0),
    ('mem vectors in wasm: int8', 'vector top-10 of 100K, wasm', 'usearch exact', 1),
    ('chunk store: durable put', 'durable put of 256 MiB', 'restic', 0),
    ('zl ratio: numeric inputs', 'compression ratio, numeric', 'OpenZL', 0),
    ('zl compress, level 3, numeric', 'compress speed, u16 sensor', 'zstd -3', 3),
]


def rows(text):
    a = text.index('<!-- summary:begin')
    b = text.index('<!-- summary:end')
    for line in text[a:b].splitlines():
        if line.startswith('| ') and not line.startswith('| goal ') and not line.startswith('|---'):
            cells = [c.strip() for c in line.strip().strip('|').split('|')]
            yield cells


def bars(text):
    table = list(rows(text))
    found = []
    for prefix, label, peer, k in HEADLINE:
        row = next((r for r in table if r[0].startswith(prefix)), None)
        if not row:
            sys.exit(f'chart.py: no summary row starting with {prefix!r} in {src}')
        ratios = re.findall(r'([0-9]+(?:\.[0-9]+)?)x', row[3])
        if len(ratios) <= k:
            sys.exit(f'chart.py: the row {prefix!r} has no ratio number {k + 1} in {row[3]!r}')
        found.append((label, float(ratios[k]), peer, row[6].split()[0]))
    return found


def svg(found):
    W, left, right, top, bh, gap = 760, 250, 150, 46, 22, 8
    H = top + len(found) * (bh + gap) + 50
    vmax = max(v for _, v, _, _ in found)
    lmax = math.log10(max(vmax * 1.2, 10))
    x = lambda v: left + (W - left - right) * (math.log10(max(v, 1.0)) / lmax)
    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="system-ui,sans-serif" font-size="13">',
         f'<rect width="{W}" height="{H}" fill="#fff"/>',
         '<text x="12" y="22" font-size="15" font-weight="600">cairn against a peer, same machine and run (ratio, log scale; &gt; 1: cairn better)</text>']
    for t in (1, 2, 5, 10, 20, 50, 100):
        if math.log10(t) <= lmax:
            o.append(f'<line x1="{x(t):.1f}" y1="{top - 8}" x2="{x(t):.1f}" y2="{H - 40}" stroke="#ddd"/>')
            o.append(f'<text x="{x(t):.1f}" y="{H - 26}" text-anchor="middle" fill="#666">{t}x</text>')
    for i, (label, v, peer, date) in enumerate(found):
        y = top + i * (bh + gap)
        o.append(f'<text x="{left - 8}" y="{y + 15}" text-anchor="end">{html.escape(label)}</text>')
        o.append(f'<rect x="{left}" y="{y}" width="{max(x(v) - left, 2):.1f}" height="{bh}" fill="#2f6fb3"/>')
        o.append(f'<text x="{x(v) + 6:.1f}" y="{y + 15}"><tspan font-weight="600">{v:g}x</tspan> <tspan fill="#555">vs {html.escape(peer)}</tspan></text>')
    o.append(f'<text x="12" y="{H - 6}" fill="#666" font-size="11">from the summary table of bench/RESULTS.md (scripts/chart.py); dates and machines there</text>')
    o.append('</svg>')
    return '\n'.join(o) + '\n'


text = open(src, encoding='utf-8').read()
image = svg(bars(text))
if '--check' in sys.argv:
    have = open(out, encoding='utf-8').read() if os.path.exists(out) else ''
    if have != image:
        sys.exit(f'chart.py: {out} is not what {src} gives: run scripts/chart.py')
    print(f'ok   {os.path.relpath(out, here)} matches the summary table')
else:
    os.makedirs(os.path.dirname(out), exist_ok=True)
    open(out, 'w', encoding='utf-8').write(image)
    print(f'wrote {out}')
