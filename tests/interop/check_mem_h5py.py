# tests/interop/check_mem_h5py.py - generate memories (gen DIR) and check a store file written by
# `cairn mem add` against them with h5py alone (check DIR KIND a|ab). Layout: core/mem/FORMAT.md.
import json, random, sys
import numpy as np
import h5py

DIM = 24
KINDS = ["f32", "f16", "int8", "text"]
WORDS = "heron lake dawn Lisbon Porto café naïve Ελλάδα москва 東京 ramen bicycle sister moved".split()


def rows(kind, batch):
    rnd = random.Random(f"{kind}-{batch}")
    out = []
    n = 37 if batch == "a" else 11  # not a multiple of any chunk size
    for i in range(n):
        r = {"text": f"{batch}{i}: " + " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(1, 9)))}
        if rnd.random() < 0.8:
            r["session"] = f"s{rnd.randint(0, 4)}"
        if rnd.random() < 0.7:
            r["role"] = rnd.choice(["user", "assistant", "Caroline"])
        r["createdMs"] = 1700000000000 + rnd.randint(0, 10**9)
        r["eventMs"] = 1600000000000 + rnd.randint(0, 10**9)
        r["tier"] = rnd.randint(0, 3)
        r["importance"] = round(rnd.uniform(-1, 1), 3)
        if rnd.random() < 0.5:
            r["meta"] = {"k": rnd.randint(0, 9), "tag": rnd.choice(WORDS)}
        if kind != "text":
            r["embedding"] = [round(rnd.uniform(-2, 2), 4) for _ in range(DIM)]
        out.append(r)
    return out


def gen(d):
    for k in KINDS:
        for b in "ab":
            with open(f"{d}/{k}.{b}.jsonl", "w") as f:
                for r in rows(k, b):
                    f.write(json.dumps(r, ensure_ascii=False) + "\n")


def csr(g, name, n):
    off, b = g[name + "_offsets"][:], g[name + "_bytes"][:]
    assert off.shape == (n + 1,) and off[0] == 0, (name, off.shape)
    return [bytes(b[off[i]:off[i + 1]]).decode() for i in range(n)]


def check(d, kind, batches):
    want = []
    for b in batches:
        want += [json.loads(l) for l in open(f"{d}/{kind}.{b}.jsonl", encoding="utf-8")]
    n = len(want)
    g = h5py.File(f"{d}/{kind}.mem", "r")["memory"]
    a = g.attrs
    # version 2 (2026-12-02, issue 17): scopes, versions and tombstones in their own datasets
    assert a["format"] == b"cairn-memory" and a["version"] == 2, dict(a)
    assert a["forgotten"] == 0 and g["head"][:].tolist() == list(range(1, n + 1)), dict(a)
    assert g["valid_to_ms"][:].tolist() == [0] * n and g["flags"][:].tolist() == [0] * n
    assert g["valid_from_ms"][:].tolist() == g["created_ms"][:].tolist()
    assert g["user"].shape == (n,) and g["agent"].shape == (n,)
    assert a["count"] == n, (a["count"], n)
    assert a["encoding"] == (b"none" if kind == "text" else kind.encode()), a["encoding"]
    assert g["id"][:].tolist() == list(range(1, n + 1))
    texts, metas, names = csr(g, "text", n), csr(g, "meta", n), None
    nn = g["names_offsets"].shape[0] - 1
    names = csr(g, "names", nn)
    ses, role = g["session"][:], g["role"][:]
    NONE = 0xFFFFFFFF
    for i, r in enumerate(want):
        assert texts[i] == r["text"], (i, texts[i], r["text"])
        assert (names[ses[i]] if ses[i] != NONE else None) == r.get("session"), (i, ses[i])
        assert (names[role[i]] if role[i] != NONE else None) == r.get("role"), (i, role[i])
        assert (json.loads(metas[i]) if metas[i] else None) == r.get("meta"), (i, metas[i])
    assert g["created_ms"][:].tolist() == [r["createdMs"] for r in want]
    assert g["event_ms"][:].tolist() == [r["eventMs"] for r in want]
    assert g["tier"][:].tolist() == [r["tier"] for r in want]
    assert np.array_equal(g["importance"][:], np.array([r["importance"] for r in want], dtype=np.float32))
    assert g["access_count"][:].tolist() == [0] * n
    if kind == "text":
        assert "embedding" not in g
    else:
        x = np.array([r["embedding"] for r in want], dtype=np.float32)  # metric ip: stored as given
        e = g["embedding"]
        assert e.shape == (n, DIM), e.shape
        if kind == "f32":
            assert e.dtype == np.float32 and np.array_equal(e[:], x)
        elif kind == "f16":
            assert e.dtype == np.float16 and np.array_equal(e[:], x.astype(np.float16))
        else:
            assert e.dtype == np.int8
            s = g["embedding_scale"][:]
            y = e[:].astype(np.float32) * s[:, None]
            assert np.all(np.abs(y - x) <= s[:, None] * 0.5 + 1e-6), np.max(np.abs(y - x))
            assert np.allclose(s, np.abs(x).max(axis=1) / 127, rtol=1e-6)
    bm25(g, want)
    print(f"ok   h5py: {kind} store, {n} memories ({'+'.join(batches)}) as added")


def bm25(g, want):
    """/memory/bm25 (core/mem/bm25_store.c): the BM25 index of the checkpointed rows, read here
    without cairn: its counts add up, and every term it posts for a row is in that row's text or
    role (lowercased), every row's length is at least its distinct terms."""
    n = len(want)
    nb = int(g.attrs["bm25_bytes"])
    d = g["bm25"]
    assert d.fletcher32 and d.dtype == np.uint8 and nb > 64 and d.shape[0] >= nb, (d.shape, nb)
    z = bytes(d[:nb])
    le = lambda o, k: int.from_bytes(z[o:o + k], "little")
    assert z[:8] == b"CAIRNBM1" and le(8, 4) == 1, z[:12]
    nterm, ndoc, ntot, npost, ntb = le(12, 4), le(16, 8), le(24, 8), le(32, 8), le(40, 8)
    assert ndoc == n, (ndoc, n)
    i_info = 64 + (ntb + 7) // 8 * 8
    i_len = i_info + nterm * 16
    i_doc = i_len + ndoc * 4
    i_tf = i_doc + npost * 4
    assert i_tf + (npost * 2 + 3) // 4 * 4 + 4 == nb, nb
    lens = [le(i_len + 4 * r, 4) for r in range(ndoc)]
    assert sum(lens) == ntot
    low = [(r["text"] + " " + (r.get("role") or "")).lower() for r in want]
    off, k, distinct = 64, 0, [0] * ndoc
    for t in range(nterm):
        tl, tn = le(i_info + 16 * t, 4), le(i_info + 16 * t + 4, 4)
        term = z[off:off + tl].decode("utf-8")
        off += tl
        for j in range(tn):
            r = le(i_doc + 4 * (k + j), 4)
            assert term in low[r], (term, r, low[r])
            distinct[r] += 1
        k += tn
    assert k == npost and off == 64 + ntb
    assert all(distinct[r] <= lens[r] for r in range(ndoc))


def checksums(path):
    """Every dataset of the store carries Fletcher-32 (libhdf5 verifies it on each read), the
    rows have their row checksums, and one flipped bit in a text chunk makes h5py's read fail."""
    import shutil
    f = h5py.File(path, "r")
    seen = []

    def visit(name, o):
        if isinstance(o, h5py.Dataset):
            assert o.fletcher32, f"{name} has no Fletcher-32"
            o[...]  # reads (and checks) every chunk
            seen.append(name)

    f.visititems(visit)
    g = f["memory"]
    assert "row_crc" in g and g["row_crc"].shape == (g.attrs["count"],), "no row checksums"
    info = g["text_bytes"].id.get_chunk_info(0)
    f.close()
    bad = path + ".flipped"
    shutil.copy(path, bad)
    with open(bad, "r+b") as h:
        h.seek(info.byte_offset + 3)
        c = h.read(1)
        h.seek(info.byte_offset + 3)
        h.write(bytes([c[0] ^ 0x10]))
    try:
        h5py.File(bad, "r")["memory/text_bytes"][...]
    except OSError:
        print(f"ok   h5py: {len(seen)} datasets with Fletcher-32, a flipped text chunk fails to read")
        return
    raise AssertionError("h5py read a flipped chunk without an error")


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    elif sys.argv[1] == "checksums":
        try:
            checksums(sys.argv[2])
        except AssertionError as e:
            print(f"FAIL h5py checksums: {e!r}")
            sys.exit(1)
    else:
        try:
            check(sys.argv[2], sys.argv[3], list(sys.argv[4]))
        except AssertionError as e:
            print(f"FAIL h5py {sys.argv[3]}: {e!r}")
            sys.exit(1)
