#!/usr/bin/python3
# 2026-11-29 - bench/h5/mkdata.py DIR: the benchmark's files, written by h5py/libhdf5.
import sys, os
import numpy as np
import h5py

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
rng = np.random.default_rng(1)
with h5py.File(f'{d}/small.h5', 'w') as f:
    f['x'] = rng.standard_normal(1024).astype('<f4')
with h5py.File(f'{d}/mid.h5', 'w') as f:
    f['x'] = rng.standard_normal(1 << 20).astype('<f4')  # 4 MiB contiguous (the wasm row)
with h5py.File(f'{d}/large.h5', 'w') as f:
    f['x'] = rng.standard_normal(1 << 24).astype('<f4')  # 64 MiB contiguous
i, j = np.meshgrid(np.arange(2048), np.arange(2048), indexing='ij')
smooth = (np.sin(i / 37.0) * np.cos(j / 23.0) * 1000 + rng.standard_normal((2048, 2048)) * 3).astype('<f4')
with h5py.File(f'{d}/chunked.h5', 'w') as f:
    f.create_dataset('x', data=smooth, chunks=(128, 128), shuffle=True, compression='gzip', compression_opts=6)
with h5py.File(f'{d}/chunked_latest.h5', 'w', libver='latest') as f:
    f.create_dataset('x', data=smooth, chunks=(128, 128), shuffle=True, compression='gzip', compression_opts=6)
with h5py.File(f'{d}/attrs.h5', 'w') as f:
    g = f.create_group('g')
    for k in range(128):
        g.attrs[f'attr{k:03d}'] = float(k) * 1.5
with h5py.File(f'{d}/many.h5', 'w') as f:
    for k in range(10000):
        f[f'd{k:05d}'] = np.arange(4, dtype='<i4') + k
