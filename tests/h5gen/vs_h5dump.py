# 2026-11-30 - tests/h5gen/vs_h5dump.py CAIRN DIR: `cairn dump` against libhdf5's own h5dump.
#
# For every .h5 file of the corpus, h5dump prints the whole file (no indices, no line wrapping,
# floats with 17 significant digits); this script parses that output into its datasets and
# attributes and, for each one, runs `cairn dump --json FILE PATH` (PATH@NAME for an attribute)
# and checks that both print the same values, element by element, in the same order:
#   integers exactly; floats as the same number of their own width (f16/f32/f64), inf and nan
#   included; enums by member name; fixed strings with their padding removed as the type says
#   (h5dump prints the padding); variable-length strings and sequences; compounds member by member;
#   arrays; opaque bytes; bitfields; object references by the path h5dump names.
# Both run in DIR, where libhdf5 and cairn find external raw data files. Datasets h5dump itself
# cannot read (filters Debian's libhdf5 has no plugin for) are listed, never silently dropped;
# every other object must match. Exit 1 on any difference.
import json, math, os, re, subprocess, sys

import numpy as np

cairn, d = sys.argv[1], os.path.abspath(sys.argv[2])
if '/' in cairn:
    cairn = os.path.abspath(cairn)
PUNCT = set('{}()[],')


def tokens(text):
    """h5dump's output as tokens: ('s', bytes) for a quoted string, ('p', c) for punctuation,
    ('w', word) for anything else (keywords, numbers, enum names, opaque bytes)."""
    i, n, out = 0, len(text), []
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c == '"':
            i += 1
            b = bytearray()
            while i < n and text[i] != '"':
                if text[i] == '\\' and i + 1 < n:
                    i += 1
                    m = re.match(r'[0-7]+', text[i:])
                    if m:  # octal; h5dump sign-extends bytes >= 0x80 (\37777777703 is 0xc3)
                        b.append(int(m.group(0), 8) & 0xff)
                        i += len(m.group(0))
                        continue
                    b += {'n': b'\n', 't': b'\t', 'r': b'\r', 'b': b'\b', 'f': b'\f', 'a': b'\a', 'v': b'\v'}.get(text[i], text[i].encode())
                    i += 1
                else:
                    b += text[i].encode()
                    i += 1
            i += 1
            out.append(('s', bytes(b)))
        elif c in PUNCT:
            out.append(('p', c))
            i += 1
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in PUNCT and text[j] != '"':
                j += 1
            out.append(('w', text[i:j]))
            i = j
    return out


def tree(toks):
    """Nest the tokens at braces: a list of tokens and sub-lists."""
    stack = [[]]
    for t in toks:
        if t == ('p', '{'):
            stack.append([])
        elif t == ('p', '}'):
            sub = stack.pop()
            stack[-1].append(sub)
        else:
            stack[-1].append(t)
    assert len(stack) == 1, 'unbalanced braces in h5dump output'
    return stack[0]


def join(path, name):
    return '/' + name.lstrip('/') if path in ('', '/') else path + '/' + name


def values(block):
    """The scalars of a DATA block, in order: strings (bytes) and words. An object reference
    (DATASET 1234 "/path" DATA {...}) is its path; the referenced object's data is skipped."""
    out, i = [], 0
    while i < len(block):
        t = block[i]
        if isinstance(t, list):
            out += values(t)
        elif t[0] == 'w' and t[1] in ('DATASET', 'GROUP', 'DATATYPE') and i + 2 < len(block) and block[i + 2][0] == 's':
            out.append(('ref', block[i + 2][1].decode()))
            i += 3
            if i + 1 < len(block) and block[i] == ('w', 'DATA') and isinstance(block[i + 1], list):
                i += 2
            continue
        elif t[0] in ('s', 'w'):
            out.append(t)
        i += 1
    return out


def objects(items, path, found, group=True):
    """Walk h5dump's tree: found gets (path, attribute name or None, DATA block or None). In a
    group, h5dump prints a committed datatype as DATATYPE "name" TYPE, its attributes after it
    at the group's own level (not inside braces): they belong to the type until the next object."""
    i, owner = 0, path
    while i < len(items):
        t = items[i]
        named = not isinstance(t, list) and t[0] == 'w' and i + 1 < len(items) and not isinstance(items[i + 1], list) and items[i + 1][0] == 's'
        if named and group and t[1] == 'DATATYPE':
            owner = join(path, items[i + 1][1].decode())
            i += 2
            continue
        if named and t[1] in ('GROUP', 'DATASET', 'ATTRIBUTE', 'HDF5') and i + 2 < len(items) and isinstance(items[i + 2], list):
            kind, name, body = t[1], items[i + 1][1].decode(), items[i + 2]
            if kind == 'HDF5':
                objects(body, '', found)
            elif kind == 'ATTRIBUTE':
                found.append((owner or '/', name, data_of(body)))
            else:
                owner = path
                p = '/' if name == '/' else join(path, name)
                if kind == 'DATASET' and ('w', 'HARDLINK') not in body:
                    found.append((p, None, data_of(body)))
                objects(body, p, found, kind == 'GROUP')
            i += 3
            continue
        i += 1


def data_of(body):
    for k in range(len(body) - 1):
        if body[k] == ('w', 'DATA') and isinstance(body[k + 1], list):
            return body[k + 1]
    return None


def leaves(data, typ, rank):
    """cairn's JSON value as (scalar, leaf type) pairs, in h5dump's order."""
    if rank > 0:
        for x in data:
            yield from leaves(x, typ, rank - 1)
        return
    c = typ['class']
    if c == 'compound':
        for m in typ['members']:
            yield from leaves(data[m['name']], m['type'], 0)
    elif c == 'array':
        yield from leaves(data, typ['base'], len(typ['dims']))
    elif c == 'vlen' and not typ.get('string'):
        for x in data:
            yield from leaves(x, typ['base'], 0)
    else:
        yield data, typ


def same(tok, val, typ):
    c = typ['class']
    kind, t = tok
    if c == 'integer':
        return kind == 'w' and int(t) == val
    if c == 'float':
        if kind != 'w':
            return False
        if t in ('inf', '-inf', 'nan'):
            return val == t
        if isinstance(val, str):
            return False
        width = {2: np.float16, 4: np.float32, 8: np.float64}[typ['size']]
        a, b = width(float(t)), width(val)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if c == 'enum':
        return kind == 'w' and t == val
    if c == 'string' or (c == 'vlen' and typ.get('string')):
        if kind != 's':
            return False
        s = t
        pad = typ.get('pad')
        if pad == 'nullpad':
            s = s.rstrip(b'\0')
        elif pad == 'spacepad':
            s = s.rstrip(b' ')
        elif pad == 'nullterm':
            s = s.split(b'\0')[0]
        return s.decode('utf-8', 'surrogateescape') == val
    if c == 'opaque':
        return kind == 'w' and t.replace(':', '').lower() == val.lower()
    if c == 'bitfield':
        if kind != 'w':  # one byte as 0x4d; wider ones as their bytes in memory (here: little-endian) order
            return False
        return (int(t, 16) if ':' not in t else int.from_bytes(bytes.fromhex(t.replace(':', '')), 'little')) == val
    if c == 'reference':
        return kind == 'ref' and t == val
    raise ValueError(f'type class {c} not compared')


env = dict(os.environ)
nobj = nval = 0
skipped, bad = [], []
for fn in sorted(f for f in os.listdir(d) if f.endswith('.h5')):
    path = os.path.join(d, fn)
    r = subprocess.run(['h5dump', '-y', '-w', '0', '-m', '%.17g', fn], cwd=d, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    found = []
    objects(tree(tokens(r.stdout.decode('latin-1'))), '', found)
    assert found, f'{fn}: nothing parsed from h5dump'
    for p, attr, block in found:
        what = f'{fn}:{p}' + (f'@{attr}' if attr else '')
        q = subprocess.run([cairn, 'dump', '--json', path, f'{p}@{attr}' if attr else p], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=d)
        want = values(block or [])
        o = json.loads(q.stdout) if q.returncode == 0 else None
        got = [] if o is None or o['data'] is None else list(leaves(o['data'], o['type'], len(o['shape']) if isinstance(o['shape'], list) else 0))
        if not attr and (q.returncode or (got and not want)):
            # h5dump prints "unable to print data" on stderr and an empty block when it cannot
            # read a dataset: ask it about this one alone
            e = subprocess.run(['h5dump', '-d', p, fn], cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
            if e.returncode and b'unable to print data' in e.stderr:
                skipped.append(what)
                continue
        if q.returncode:
            bad.append(f'{what}: cairn dump failed: {q.stderr.decode().strip()}')
            continue
        if len(got) != len(want):
            bad.append(f'{what}: h5dump prints {len(want)} values, cairn dump {len(got)}')
            continue
        for k, ((v, t), tok) in enumerate(zip(got, want)):
            if not same(tok, v, t):
                bad.append(f'{what}: value {k}: h5dump {tok[1]!r}, cairn {v!r} ({t["class"]})')
                break
        nobj += 1
        nval += len(got)
for b in bad[:20]:
    print('FAIL', b)
print(f'     h5dump could not read {len(skipped)} datasets (filters without a plugin in Debian): {", ".join(skipped)}')
if bad:
    print(f'FAIL cairn dump differs from h5dump for {len(bad)} objects')
    sys.exit(1)
if nobj < 100:
    print(f'FAIL only {nobj} objects compared')
    sys.exit(1)
print(f'ok   cairn dump prints what h5dump prints: {nobj} datasets and attributes, {nval} values')
