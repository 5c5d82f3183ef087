#!/usr/bin/env python3
# tests/interop/check_h5py.py DIR - h5py (libhdf5) reads every file tests/core/test_h5w.c wrote
# and compares every value with the formulas below (keep them in sync with test_h5w.c).
# zstd datasets are skipped when no zstd plugin is installed (Debian ships none; h5wasm checks them).
import sys, os
import numpy as np
import h5py

d = sys.argv[1]
bad = []
def check(name, cond):
    if not cond:
        bad.append(name)

i = np.arange(1000)
with h5py.File(os.path.join(d, "h5w_types.h5"), "r") as f:
    check("i8", np.array_equal(f["i8"][:], (i % 200 - 100).astype(np.int8)) and f["i8"].dtype == np.int8)
    check("u16", np.array_equal(f["u16"][:], (i * 61).astype(np.uint16)) and f["u16"].dtype == np.uint16)
    check("i32", np.array_equal(f["i32"][:], (i * 1000 - 500000).astype(np.int32)))
    check("u64", np.array_equal(f["u64"][:], i.astype(np.uint64) * np.uint64(0x100000001)) and f["u64"].dtype == np.uint64)
    check("i64", np.array_equal(f["i64"][:], -i.astype(np.int64) * 123456789))
    check("f32", np.array_equal(f["f32"][:], i.astype(np.float32) * np.float32(0.25) - np.float32(3)) and f["f32"].dtype == np.float32)
    check("f64", np.array_equal(f["f64"][:], i * 1e-3 + 1e10) and f["f64"].dtype == np.float64)
    check("fstr", [x.decode() for x in f["fstr"][:]] == ["s%d" % k for k in range(20)])
    vs = [x.decode() if isinstance(x, bytes) else x for x in f["vstr"][:]]
    check("vstr", vs == ["alpha", "", "\u03b2-unicode", "x" * 6000, "omega"])
    c = f["cmpd"][:]
    check("cmpd", list(c.dtype.names) == ["a", "b", "c"] and np.array_equal(c["a"], np.arange(10) * 7)
          and np.array_equal(c["b"], np.arange(10) / 4.0) and [x.decode() for x in c["c"]] == ["abc%d" % k for k in range(10)])
    e = f["enum"]
    check("enum", h5py.check_enum_dtype(e.dtype) == {"RED": 0, "GREEN": 1, "BLUE": 2} and np.array_equal(e[:], np.arange(30) % 3))
    check("arr", f["arr"].dtype.subdtype is not None and np.array_equal(f["arr"][:], np.arange(30, dtype=np.float32).reshape(10, 3) + np.float32(0.5)))
    check("scalar", f["scalar"].shape == () and f["scalar"][()] == 3.5)
    check("f16", f["f16"].dtype == np.float16 and np.array_equal(f["f16"][:], np.arange(100) * 0.5))
    vq = f["vseq"][:]
    check("vseq", len(vq) == 6 and all(list(vq[k]) == list(range(k)) for k in range(6)) and list(f["vseq"].attrs["one"]) == [0, 1, 2])
    check("compact", np.array_equal(f["compact"][:], (np.arange(20) * 11 - 100).astype(np.int16).reshape(4, 5)))
    check("filled", np.array_equal(f["filled"][:], np.full(20, -1.5, np.float32)))
    check("leaf", np.array_equal(f["g1/g2/leaf"][:], (np.arange(10) * 1000 - 500000).astype(np.int32)))
    check("attr title", f.attrs["title"] == "cairn writer test")
    check("attr version", f.attrs["version"] == 42 and f.attrs["version"].dtype == np.int32)
    check("attr vec", np.array_equal(f["g1"].attrs["vec"], [1.0, -2.0, 3.25]))
    check("attr units", f["f32"].attrs["units"] == b"m/s")
    check("attr scale", f["f32"].attrs["scale"] == np.float32(0.125))
    r = f["g1/g2"].attrs["rec"]
    check("attr rec", r["a"] == 21 and r["b"] == 0.75 and r["c"] == b"abc3")
    check("attr color", f["g1/g2"].attrs["color"] == 2)
    check("attr names", list(f["g1/g2"].attrs["names"]) == ["alpha", "", "\u03b2-unicode"])
    check("attr count", len(f["f32"].attrs) == 2 and len(f.attrs) == 2)

have_zstd = h5py.h5z.filter_avail(32015)
have_lz4 = h5py.h5z.filter_avail(32004)
filters = ["", "shuffle,deflate:6", "zstd:3", "lz4", "fletcher32", "shuffle,zstd:1,fletcher32", "deflate:1,fletcher32", "shuffle,lz4"]
exp = (np.arange(7000, dtype=np.float32) * np.float32(0.5)).reshape(100, 70)
with h5py.File(os.path.join(d, "h5w_chunked.h5"), "r") as f:
    for k, spec in enumerate(filters):
        ds = f["c%d" % k]
        check("c%d chunks" % k, ds.chunks == (16, 32))
        check("c%d fletcher" % k, ds.fletcher32 == ("fletcher32" in spec))
        check("c%d shuffle" % k, ds.shuffle == ("shuffle" in spec))
        if ("zstd" in spec and not have_zstd) or ("lz4" in spec and not have_lz4):
            continue
        check("c%d values" % k, np.array_equal(ds[:], exp))
        check("c%d corner" % k, ds[99, 69] == exp[99, 69] and np.array_equal(ds[40:50, 30:40], exp[40:50, 30:40]))
    check("c1 compression", f["c1"].compression == "gzip" and f["c1"].compression_opts == 6)
    ext = f["ext"]
    check("ext", ext.maxshape == (None, 3) and np.array_equal(ext[:], np.arange(300, dtype=np.int32).reshape(100, 3)))
    check("fillonly", np.array_equal(f["fillonly"][:], np.full((10, 10), -7, np.int32)))
    if have_zstd:
        check("partial", np.array_equal(f["partial"][:], np.arange(35) * 1.5))
    check("partial shape", f["partial"].shape == (35,) and f["partial"].maxshape == (None,))
    check("long", np.array_equal(f["long"][:], np.arange(300, dtype=np.int32) * 3 + 1))

with h5py.File(os.path.join(d, "h5w_wide.h5"), "r") as f:
    m = f["many"]
    check("many count", len(m) == 2000 and "g0" in m and "g1999" in m and "sub" in m["g1999"])
    a = f["attrs"].attrs
    want = {"a%d" % k: (-k if k % 2 == 0 else k * k - 7) for k in range(127)}
    check("attrs", len(a) == 127 and all(a[k] == v for k, v in want.items()))
    check("data", np.array_equal(f["many/g7/data"][:], [1, 2, 3, 4]) and f["many/g7/data"].attrs["counter"] == 49)

# dense link storage (tests/core/h5w_dense.c): 10,000 + 100 links added one per commit
with h5py.File(os.path.join(d, "h5w_dense_10k.h5"), "r") as f:
    g = f["big"]
    want = {"g%05d" % k for k in range(10000)} | {"h%05d" % k for k in range(100)} | {"data", "alias"}
    names = list(g.keys())
    check("dense names", len(names) == len(want) and set(names) == want)
    followed = sum(1 for k in names if isinstance(g[k], (h5py.Group, h5py.Dataset)))
    check("dense follow", followed == len(want))
    n = int(g["data"].attrs["rows"])
    check("dense data", n == 300 and np.array_equal(g["data"][:], np.arange(n)))
    check("dense alias", g.get("alias", getlink=True).path == "/big/g00042" and g["alias"].name == "/big/alias")
with h5py.File(os.path.join(d, "h5w_dense_sessions.h5"), "r") as f:
    check("dense sessions", set(f.keys()) == {"s%d" % k for k in range(8)} | {"t%d" % k for k in range(4)} | {"long"}
          and f["s3"].attrs["session"] == 11 and len(f.get("long", getlink=True).path) == 4999)

if bad:
    print("FAIL h5py:", ", ".join(bad))
    sys.exit(1)
print("ok   h5py (libhdf5 %s): every value of the writer corpus%s" % (h5py.version.hdf5_version, "" if have_zstd else " (zstd datasets left to h5wasm: no zstd plugin here)"))
