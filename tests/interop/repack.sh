#!/usr/bin/env bash
# tests/interop/repack.sh CAIRN CORPUS_DIR TMPDIR - `cairn repack [--filter SPEC] IN OUT` on the
# writer corpus and on files h5py writes with libver earliest and latest (symbol-table and
# compact groups, dense attributes, compound/enum/vlen strings, every chunk index, filters);
# h5diff (libhdf5) must report no difference between IN and OUT.
set -u
CAIRN=${1:?cairn}; C=${2:?corpus dir}; t=${3:?tmp}/h5w-repack; PY=${PYTHON:-/usr/bin/python3}
rm -rf "$t" && mkdir -p "$t"
t=$(realpath "$t"); [[ "$CAIRN" == */* ]] && CAIRN=$(realpath "$CAIRN") # some steps run elsewhere
fail=0
"$PY" - "$t" <<'PYEOF' || exit 1
import sys, h5py, numpy as np
d = sys.argv[1]
for lv in ("earliest", "latest"):
    with h5py.File(f"{d}/py_{lv}.h5", "w", libver=lv) as f:
        f.attrs["title"] = "repack me"; f.attrs["vec"] = np.arange(5, dtype=np.int16)
        for k in range(30): f.attrs[f"a{k}"] = k * 1.5          # dense attributes when latest
        g = f.create_group("grp/sub")
        for k in range(40): g.create_group(f"g{k}")              # dense links when latest
        f.create_dataset("contig", data=np.arange(1000, dtype=np.float64).reshape(40, 25))
        f.create_dataset("be", data=np.arange(50, dtype=">i4"))
        f.create_dataset("gz", data=np.sin(np.arange(20000, dtype=np.float32)).reshape(200, 100), chunks=(32, 50), compression="gzip", shuffle=True, fletcher32=True)
        f.create_dataset("ext", data=np.arange(300, dtype=np.int64).reshape(100, 3), maxshape=(None, 3), chunks=(16, 3))
        f.create_dataset("ext2", data=np.arange(64, dtype=np.uint8).reshape(8, 8), maxshape=(None, None), chunks=(4, 4))
        f.create_dataset("single", data=np.arange(12.0).reshape(3, 4), chunks=(3, 4))
        f.create_dataset("strs", data=["alpha", "beta", "\u03b3amma"], dtype=h5py.string_dtype())
        f.create_dataset("fixed", data=np.array([b"ab", b"cde"], dtype="S4"))
        ct = np.dtype([("x", "<i4"), ("y", "<f8"), ("z", "S3")])
        f.create_dataset("cmpd", data=np.array([(1, 2.5, b"abc"), (3, 4.5, b"de")], dtype=ct))
        et = h5py.enum_dtype({"A": 0, "B": 5}, basetype="i1")
        f.create_dataset("enum", data=np.array([0, 5, 5], dtype="i1"), dtype=et)
        f.create_dataset("scalar", data=7.25)
        f.create_dataset("empty", shape=(0, 4), maxshape=(None, 4), dtype="f4", chunks=(8, 4))
        f["grp"].attrs["s"] = ["x", "yy"]
        vl = f.create_dataset("vl", (4,), dtype=h5py.vlen_dtype("i4"))
        for k in range(4): vl[k] = np.arange(k, dtype="i4") * 7 - 3
        f["half"] = np.arange(10, dtype=np.float16) / 4
PYEOF
plug=$(dpkg -L hdf5-filter-plugin 2>/dev/null | grep '/plugins$' | head -1)
export HDF5_PLUGIN_PATH=${plug:-/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins}
check() { # IN OUT [objects...]
  local in=$1 out=$2; shift 2
  if h5diff "$in" "$out" "$@" >"$t/diff.txt" 2>&1; then echo "ok   repack $(basename "$in") -> $(basename "$out") ${*:-}: h5diff no difference"
  else echo "FAIL h5diff $(basename "$in") $(basename "$out") $*"; head -20 "$t/diff.txt"; fail=1; fi
}
for f in "$C/h5w_types.h5" "$C/h5w_wide.h5" "$t/py_earliest.h5" "$t/py_latest.h5"; do
  b=$(basename "$f" .h5)
  "$CAIRN" repack "$f" "$t/$b.rp.h5" || { echo "FAIL repack $f"; fail=1; continue; }
  check "$f" "$t/$b.rp.h5"
  "$CAIRN" repack --filter shuffle,deflate:6 "$f" "$t/$b.gz.h5" || { echo "FAIL repack --filter $f"; fail=1; continue; }
  check "$f" "$t/$b.gz.h5"
done
"$CAIRN" repack --filter lz4 "$t/py_latest.h5" "$t/py_latest.lz4.h5" && check "$t/py_latest.h5" "$t/py_latest.lz4.h5" || fail=1
# the writer's own chunked file: every dataset libhdf5 can decode here (no zstd plugin in Debian)
"$CAIRN" repack "$C/h5w_chunked.h5" "$t/chunked.rp.h5" || fail=1
for d in /c0 /c1 /c3 /c4 /c6 /c7 /ext /fillonly /long; do check "$C/h5w_chunked.h5" "$t/chunked.rp.h5" $d $d; done
"$CAIRN" repack --filter zstd:5 "$C/h5w_chunked.h5" "$t/chunked.zstd.h5" || fail=1
"$CAIRN" repack --filter shuffle,deflate:1 "$t/chunked.zstd.h5" "$t/chunked.back.h5" || fail=1
for d in /c0 /c1 /c4 /ext /long; do check "$C/h5w_chunked.h5" "$t/chunked.back.h5" $d $d; done
# the reader's libhdf5/h5py corpus (tests/h5gen: SOHM, committed types, superblock v1/v2, every
# layout and chunk index, every datatype): every file repacks with no h5diff difference, except
# the known limits, which must fail with a clear message: object references (the writer moves
# objects on every commit, so it writes no references), the n-bit filter (the reader has none),
# and the corpus's deliberately unknown filter 31999. Raw data in external files is read and
# written into the new file; like libhdf5, cairn finds those files from the working directory.
g="$t/h5gen"; mkdir -p "$g"
here=$(cd "$(dirname "$0")/.." && pwd)
if cc -O1 -o "$g/gen_c" "$here/h5gen/gen_c.c" $(pkg-config --cflags --libs hdf5) 2>/dev/null && (cd "$g" && ./gen_c "$g") >/dev/null &&
   "$PY" "$here/h5gen/gen.py" "$g" >/dev/null 2>&1; then
  nOk=0 nLimit=0
  for f in "$g"/*.h5; do
    b=$(basename "$f" .h5)
    if (cd "$g" && "$CAIRN" repack "$f" "$t/g_$b.h5") 2>"$t/err"; then
      if (cd "$g" && h5diff "$f" "$t/g_$b.h5") >"$t/diff.txt" 2>&1; then nOk=$((nOk+1)); else echo "FAIL h5diff h5gen/$b"; head -5 "$t/diff.txt"; fail=1; fi
    elif grep -qE '"class":"reference"|unsupported filter 5 \(nbit\)|unsupported filter 31999 \(unknown\)' "$t/err"; then
      nLimit=$((nLimit+1))
      # --skip leaves those out and copies the rest: every dataset both files have is equal
      if "$CAIRN" repack --skip "$f" "$t/s_$b.h5" 2>"$t/err2" && grep -q "left out" "$t/err2"; then
        "$PY" - "$f" "$t/s_$b.h5" <<'PYEOF' || { echo "FAIL repack --skip h5gen/$b"; fail=1; }
import sys, h5py, numpy as np
src, dst = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
names = []
dst.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
bad = 0
for n in names:
    try:
        a = src[n][()]
    except Exception:
        continue  # a filter libhdf5 lacks here (zstd): nothing to compare with
    b = dst[n][()]
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "O" or b.dtype.kind == "O":  # vlen data: compare element by element
        same = a.shape == b.shape and all(np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(a.ravel(), b.ravel()))
    else:
        same = a.shape == b.shape and (np.array_equal(a, b, equal_nan=True) if a.dtype.kind in "fc" else np.array_equal(a, b))
    if not same:
        print("differs:", n); bad += 1
sys.exit(1 if bad or not names else 0)
PYEOF
      else echo "FAIL repack --skip h5gen/$b: $(cat "$t/err2")"; fail=1; fi
    else echo "FAIL repack h5gen/$b: $(cat "$t/err")"; fail=1; fi
  done
  echo "ok   repack of the reader's corpus: $nOk files without h5diff difference, $nLimit refused clearly (object references incl. dimension scales, n-bit, unknown filter) and copied without those parts with --skip"
  # editing libhdf5 files with shared object header messages (SOHM tables in a superblock
  # extension) and superblock v1/v2: every original object dumps the same, the new ones read back
  for b in c_sohm_list c_sohm_btree c_sb2 c_committed; do
    e="$g/edit_$b.h5"; cp "$g/$b.h5" "$e" # next to the external raw file c_sb2 uses
    if ! { "$CAIRN" h5w group "$e" /cairn_g && "$CAIRN" h5w dataset "$e" /cairn_d i32 0 --max u --chunk 4 &&
           "$CAIRN" h5w append "$e" /cairn_d 1 2 3 && "$CAIRN" h5w attr "$e" / cairn_a i32 5 &&
           h5dump -d /cairn_d "$e" | grep -q '(0): 1, 2, 3'; }; then echo "FAIL edit of h5gen/$b"; fail=1; fi
    # (libhdf5 finds external raw files relative to the working directory)
    (cd "$g" && h5dump "$e") >/dev/null 2>&1 || { echo "FAIL h5dump after editing h5gen/$b"; fail=1; }
    for o in $(h5ls -r "$g/$b.h5" | awk '$2 == "Dataset" {print $1}'); do
      (cd "$g" && h5diff "$g/$b.h5" "$e" "$o" "$o") >/dev/null 2>&1 || { echo "FAIL $o differs after editing h5gen/$b"; fail=1; }
    done
  done
  # superblock v1 with a chunk B-tree K of 64: superblock v2 cannot say it, so a clear refusal
  cp "$g/c_sb1.h5" "$t/edit_sb1.h5"
  if "$CAIRN" h5w group "$t/edit_sb1.h5" /x 2>"$t/err"; then echo "FAIL edit of a K=64 file accepted"; fail=1; fi
  grep -q "B-tree K values" "$t/err" && cmp -s "$g/c_sb1.h5" "$t/edit_sb1.h5" || { echo "FAIL K=64 refusal"; fail=1; }
  echo "ok   edits of libhdf5 files with SOHM tables, superblock v1/v2 and committed types keep every dataset"
else
  echo "FAIL cannot generate the h5gen corpus"; fail=1
fi
# bad filter spec: clear error, output untouched
echo keep > "$t/untouched"
if "$CAIRN" repack -f --filter snappy "$C/h5w_types.h5" "$t/untouched" 2>"$t/err"; then fail=1; echo "FAIL bad spec accepted"; fi
grep -q "unknown filter" "$t/err" || { echo "FAIL bad spec message"; cat "$t/err"; fail=1; }
[ "$(cat "$t/untouched")" = keep ] || { echo "FAIL a failed repack -f changed its existing output"; fail=1; }
exit $fail
