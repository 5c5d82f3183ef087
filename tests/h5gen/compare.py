#!/usr/bin/python3
# 2026-11-29 - tests/h5gen/compare.py CAIRN DIR: runs `cairn h5 dumpall` on every file of the
# corpus gen.py wrote and compares each dataset and attribute value with what h5py/libhdf5
# read (DIR/expected.jsonl). Floats compare to the precision of their type; errors must name
# the expected cause. Exits 1 on any mismatch.
import json, math, os, subprocess, sys
from collections import defaultdict

cairn, d = sys.argv[1], os.path.abspath(sys.argv[2])
if '/' in cairn:
    cairn = os.path.abspath(cairn)
expected = [json.loads(l) for l in open(f'{d}/expected.jsonl')]
files = sorted({e['file'] for e in expected})
ours = {}
for name in files:
    # in DIR, where external raw data files are found (as libhdf5 found them, from its working directory)
    r = subprocess.run([cairn, 'h5', 'dumpall', f'{d}/{name}'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=d)
    nerr = 0
    for line in r.stdout.decode('utf-8', 'surrogateescape').splitlines():
        try:
            o = json.loads(line)
        except Exception as ex:
            print(f'FAIL {name}: bad JSON line ({ex}): {line[:200]}')
            continue
        nerr += 'error' in o
        ours[(name, o['path'], o.get('attr'))] = o
    # dumpall exits 1 exactly when some object could not be read (its line carries "error")
    if r.returncode != (1 if nerr else 0):
        print(f'FAIL {name}: cairn exited {r.returncode} with {nerr} failed objects: {r.stderr.decode()[:300]}')


import numpy as np
FT = {2: np.float16, 4: np.float32, 8: np.float64}


def close(a, b, path, fsize=8):
    if isinstance(b, float) and isinstance(a, (int, float)) and not isinstance(a, bool):
        if a == b:
            return True
        # cairn prints just enough digits to round-trip its type: round both to it
        # doubles must match exactly (cairn prints the shortest round-trip form); narrower
        # floats are printed to round-trip at their own precision
        return fsize < 8 and FT[fsize](a) == FT[fsize](b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y, path, fsize) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k], path, 8) for k in a)
    return a == b


npass = nfail = nskip = 0
for e in expected:
    key = (e['file'], e['path'], e['attr'])
    what = f"{e['file']}:{e['path']}" + (f"@{e['attr']}" if e['attr'] else '')
    if 'skip' in e:
        print(f"skip {what}: h5py: {e['skip'][:100]}")
        nskip += 1
        continue
    o = ours.get(key)
    if o is None:
        print(f'FAIL {what}: not listed by cairn')
        nfail += 1
        continue
    if 'expect_error' in e:
        if 'error' in o and e['expect_error'] in o['error'] and e['path'] in o['error']:
            npass += 1
        else:
            print(f"FAIL {what}: expected an error with '{e['expect_error']}' naming the path, got {str(o)[:200]}")
            nfail += 1
        continue
    if 'error' in o:
        print(f"FAIL {what}: cairn error: {o['error']}")
        nfail += 1
        continue
    t = o.get('type') or {}
    fsize = t.get('size', 8) if t.get('class') == 'float' else 8
    if close(o.get('data'), e['data'], what, fsize):
        npass += 1
    else:
        print(f"FAIL {what}: values differ\n  cairn: {json.dumps(o.get('data'))[:300]}\n  h5py:  {json.dumps(e['data'])[:300]}")
        nfail += 1
print(f'{npass} values equal, {nfail} failed, {nskip} skipped (h5py could not read) in {len(files)} files')
sys.exit(1 if nfail or npass == 0 else 0)
