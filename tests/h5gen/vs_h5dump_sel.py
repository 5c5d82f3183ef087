# 2026-12-02 - tests/h5gen/vs_h5dump_sel.py CAIRN DIR: `cairn dump` selections against h5dump's
# subsetting and numpy slicing. For integer and float datasets of the corpus (rank 1-3), random
# hyperslabs given in h5dump's forms (-s/-S/-c/-k, --sel 'START;STRIDE;COUNT;BLOCK' and
# PATH[START;STRIDE;COUNT;BLOCK]) print what `h5dump -d PATH -s .. -S .. -c .. -k ..` prints, and
# numpy-like selections ('0:2,1:5', '3', ':4') equal h5py's a[...]. Malformed or out-of-range
# selections exit 2 with one line on stderr naming the problem, then the usage line. Exit 1 on any difference.
import json, os, re, subprocess, sys

import h5py
import numpy as np

cairn, d = sys.argv[1], os.path.abspath(sys.argv[2])
if '/' in cairn:
    cairn = os.path.abspath(cairn)
os.chdir(d)
rng = np.random.default_rng(20)


def h5dump_values(fn, path, s, S, c, k):
    """The numbers of h5dump's DATA block for a subset (no indices, one line)."""
    j = lambda a: ','.join(map(str, a))
    out = subprocess.run(['h5dump', '-y', '-w', '0', '-m', '%.17g', '-d', path, '-s', j(s), '-S', j(S), '-c', j(c), '-k', j(k), fn],
                         stdout=subprocess.PIPE, check=True, text=True).stdout
    i = out.index('DATA {') + 6
    return [float(x) for x in re.split(r'[\s,]+', out[i:out.index('}', i)]) if x]


def cairn_json(args):
    r = subprocess.run([cairn, 'dump', '--json', *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert r.returncode == 0, (args, r.stderr)
    return np.array(json.loads(r.stdout)['data'], dtype=float).ravel().tolist()


n = 0
for fn in ('layouts_latest.h5', 'layouts_earliest.h5', 'types_latest.h5', 'netcdf4.h5'):
    with h5py.File(fn, 'r') as f:
        cands = []
        f.visititems(lambda name, o: cands.append('/' + name) if isinstance(o, h5py.Dataset) and o.shape and 1 <= len(o.shape) <= 3
                     and o.dtype.kind in 'iuf' and h5py.check_enum_dtype(o.dtype) is None and 0 < o.size <= 200000 and all(x > 0 for x in o.shape) else None)
        for p in cands[:6]:
            try:
                a = f[p][()]
            except OSError:
                continue  # a filter h5py has no plugin for
            if subprocess.run(['h5dump', '-H', '-d', p, fn], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
                continue
            for t in range(3):
                s, S, c, k = [], [], [], []
                for dim in a.shape:
                    blk = int(rng.integers(1, 3)) if dim > 2 else 1
                    std = blk + int(rng.integers(0, 3))
                    st = int(rng.integers(0, max(1, dim - blk + 1)))
                    cnt = int(rng.integers(1, max(1, (dim - st - blk) // std + 1) + 1))
                    s.append(st), S.append(std), c.append(cnt), k.append(blk)
                want = h5dump_values(fn, p, s, S, c, k)
                j = lambda v: ','.join(map(str, v))
                forms = [['-s', j(s), '-S', j(S), '-c', j(c), '-k', j(k), fn, p],
                         ['--start=' + j(s), '--stride', j(S), '--count', j(c), '--block', j(k), fn, p],
                         ['--sel', f'{j(s)};{j(S)};{j(c)};{j(k)}', fn, p],
                         [fn, f'{p}[{j(s)};{j(S)};{j(c)};{j(k)}]'],
                         ['--sel', ','.join(f'{a}:{b}:{x}:{y}' for a, b, x, y in zip(s, S, c, k)), fn, p]]
                for args in forms:
                    got = cairn_json(args)
                    assert np.allclose(got, want, equal_nan=True), (fn, p, args, got[:8], want[:8])
                    n += 1
                # numpy-like: A:B (either end may be empty or past the end) and single indices
                items, idx = [], []
                for dim in a.shape:
                    kind = int(rng.integers(0, 3))
                    if kind == 0:
                        i = int(rng.integers(0, dim)); items.append(str(i)); idx.append(slice(i, i + 1))
                    else:
                        lo = int(rng.integers(0, dim)); hi = int(rng.integers(lo + 1, dim + 3))
                        items.append(f'{lo}:{hi}' if kind == 1 else f':{hi}'); idx.append(slice(lo if kind == 1 else 0, hi))
                got = cairn_json(['--sel', ','.join(items), fn, p])
                want = a[tuple(idx)].astype(float).ravel().tolist()
                assert np.allclose(got, want, equal_nan=True), (fn, p, items, got[:8], want[:8])
                n += 1
# refusals: exit 2, one line, the reason named
bad = {'0:2,0:5': 'dimensions', '0:2,0:5,1,1': 'more items', 'a,0,0': 'numbers', '-1,0,0': 'negative', '5:2,0,0': 'selects nothing',
       '0::2,0,0': 'needs every number', '0:1:99,0,0': 'past dimension', '1,1,1;;2,1;': 'numbers, the dataset has 3',
       '0,0,0;1,1,1;1,1,1;1,1,1;1': 'at most 4', '0:1:2:3,0,0': 'larger than stride', '9,0,0': 'outside dimension'}
for sel, why in bad.items():
    r = subprocess.run([cairn, 'dump', '--sel', sel, 'layouts_latest.h5', '/cube'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = r.stderr.splitlines()
    assert r.returncode == 2 and r.stdout == '' and len(lines) == 2 and why in lines[0] and lines[1].startswith('usage: cairn h5 dump '), (sel, r.returncode, r.stderr)
    n += 1
r = subprocess.run([cairn, 'dump', '-s', '1', 'layouts_latest.h5', '/cube'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
assert r.returncode == 2 and 'gives 1 numbers' in r.stderr, r.stderr
print(f'ok   {n} selections: h5dump subsets (4 forms), numpy-like slices, refusals')
