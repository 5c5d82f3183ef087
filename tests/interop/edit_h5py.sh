#!/usr/bin/env bash
# tests/interop/edit_h5py.sh CAIRN TMPDIR - cairn edits files that h5py (libhdf5) wrote with
# libver "latest" (superblock v3, object headers v2, layout v4 chunk indexes): adds groups,
# datasets and attributes, overwrites attributes; h5py then reads every old and new value.
# Files with libver "earliest" (v0 superblock, v1 headers) are refused with a clear error and
# left byte for byte as they were (editing them needs the reader, branch h5).
set -u
CAIRN=${1:?cairn}; t=${2:?tmp}/h5w-edit; PY=${PYTHON:-/usr/bin/python3}
rm -rf "$t" && mkdir -p "$t"
"$PY" - "$t" <<'PYEOF' || exit 1
import sys, h5py, numpy as np
for lv in ("latest", "earliest"):
    with h5py.File(f"{sys.argv[1]}/{lv}.h5", "w", libver=lv) as f:
        f.create_dataset("a", data=np.arange(10.0))
        f.create_dataset("ch", data=np.arange(100).reshape(10, 10), chunks=(5, 5), compression="gzip")
        f.create_dataset("ext", data=np.arange(12.0).reshape(4, 3), maxshape=(None, 3), chunks=(2, 3))
        g = f.create_group("g"); g.attrs["x"] = 5; f.attrs["s"] = "hello"
PYEOF
f="$t/latest.h5"
fail=0
"$CAIRN" h5w group "$f" /g/new && "$CAIRN" h5w attr "$f" / added i32 7 && "$CAIRN" h5w attr "$f" /a units str m &&
  "$CAIRN" h5w attr "$f" /g x i32 9 && "$CAIRN" h5w dataset "$f" /g/new/d f64 3 1.5 2.5 3.5 &&
  "$CAIRN" h5w dataset "$f" /g/new/e i16 2x2 --chunk 1x2 --filter shuffle,deflate:4 1 2 3 4 && "$CAIRN" h5w verify "$f" >/dev/null || fail=1
"$PY" - "$f" <<'PYEOF' || fail=1
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    ok = (sorted(f) == ["a", "ch", "ext", "g"] and list(f["g"]) == ["new"] and f.attrs["added"] == 7 and f.attrs["s"] == "hello"
          and f["a"].attrs["units"] == "m" and f["g"].attrs["x"] == 9 and np.array_equal(f["g/new/d"][:], [1.5, 2.5, 3.5])
          and np.array_equal(f["g/new/e"][:], [[1, 2], [3, 4]]) and np.array_equal(f["ch"][:], np.arange(100).reshape(10, 10))
          and np.array_equal(f["ext"][:], np.arange(12.0).reshape(4, 3)) and np.array_equal(f["a"][:], np.arange(10.0)))
print("ok   cairn edits an h5py libver=latest file; h5py reads old and new values" if ok else "FAIL edit of an h5py latest file")
sys.exit(0 if ok else 1)
PYEOF
h5dump "$f" >/dev/null 2>&1 || { echo "FAIL h5dump of the edited file"; fail=1; }
# A layout-v4 dataset cannot be appended to yet: clear error, file unchanged.
cp "$f" "$t/before.h5"
if "$CAIRN" h5w append "$f" /ext 1 2 3 2>"$t/err"; then echo "FAIL append to a v4 layout succeeded?"; fail=1; fi
grep -q "version 4" "$t/err" && cmp -s "$f" "$t/before.h5" || { echo "FAIL v4 append error/unchanged"; cat "$t/err"; fail=1; }
e="$t/earliest.h5"; cp "$e" "$t/e0.h5"
if "$CAIRN" h5w group "$e" /x 2>"$t/err"; then echo "FAIL edit of a libver=earliest file claimed success"; fail=1; fi
grep -q "earliest" "$t/err" && cmp -s "$e" "$t/e0.h5" || { echo "FAIL earliest: unclear error or file changed"; cat "$t/err"; fail=1; }
[ "$fail" = 0 ] && echo "ok   clear refusals for v4-layout appends and libver=earliest files, files unchanged"
exit $fail
