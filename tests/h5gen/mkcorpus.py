#!/usr/bin/python3
# 2026-11-29 - tests/h5gen/mkcorpus.py: writes the seed corpus of the fuzz target
# tests/fuzz/fuzz_h5_read.c (tests/fuzz/corpus/h5_read/): tiny h5py files, a few KB each,
# that between them reach every structure the reader parses.
import os
import numpy as np
import h5py
from h5py import h5p, h5d, h5s, h5t

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fuzz', 'corpus', 'h5_read')
os.makedirs(out, exist_ok=True)


def f(name, lv):
    return h5py.File(os.path.join(out, name), 'w', libver=lv)


for lv in ('earliest', 'latest'):
    with f(f'groups_{lv}.h5', lv) as h:
        for i in range(10):
            h.create_group(f'g{i}')
        h['g0/s'] = h5py.SoftLink('/g1')
        h['g0/e'] = h5py.ExternalLink('x.h5', '/y')
        for i in range(10):
            h['g1'].attrs[f'a{i}'] = i
    with f(f'types_{lv}.h5', lv) as h:
        comp = np.dtype([('a', '<i2'), ('b', '>f4', (2,)), ('c', 'S3')])
        h['c'] = np.zeros(2, dtype=comp)
        h.create_dataset('e', data=np.array([0, 1], dtype='u1'), dtype=h5py.enum_dtype({'A': 0, 'B': 1}, basetype='u1'))
        h['s'] = np.array(['x', 'yy'], dtype=h5py.string_dtype())
        v = h.create_dataset('v', (2,), dtype=h5py.vlen_dtype('<i2'))
        v[0] = [1, 2]
        r = h.create_dataset('r', (1,), dtype=h5py.ref_dtype)
        r[0] = h['c'].ref
        h['h'] = np.arange(3, dtype='<f2')
        h.attrs['t'] = 'text'
    with f(f'chunks_{lv}.h5', lv) as h:
        h.create_dataset('gz', data=np.arange(60, dtype='<i4').reshape(6, 10), chunks=(4, 4), compression='gzip', shuffle=True, fletcher32=True)
        h.create_dataset('ea', data=np.arange(30, dtype='<i2'), chunks=(4,), maxshape=(None,))
        h.create_dataset('bt', data=np.arange(12, dtype='<i2').reshape(3, 4), chunks=(2, 2), maxshape=(None, None))
        d = h.create_dataset('fill', shape=(8,), chunks=(2,), dtype='<i2', fillvalue=3)
        d[1] = 1
        dcpl = h5p.create(h5p.DATASET_CREATE)
        dcpl.set_layout(h5d.COMPACT)
        h5d.create(h.id, b'compact', h5t.STD_I16LE, h5s.create_simple((4,)), dcpl=dcpl).write(h5s.ALL, h5s.ALL, np.arange(4, dtype='<i2'))
for n in sorted(os.listdir(out)):
    print(n, os.path.getsize(os.path.join(out, n)))
