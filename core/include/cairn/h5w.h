/*
** 2026-11-29
**
** cairn/h5w.h - the HDF5 writer: standard HDF5 files that libhdf5 1.8+, h5py, h5wasm and jsfive
** open, edited in place, with crash-safe commits.
**
** A writer works on a cairn_file it does not own (the caller closes it after cairn_h5w_close).
** Every change (groups, datasets, attributes, appended rows) goes to space the last committed
** state does not use; cairn_h5w_commit() makes them durable and visible in one superblock write
** (design: core/h5/WRITER.md). After a crash at any point the file opens in any HDF5 reader and
** holds exactly the last committed state. cairn_h5w_close() commits.
**
** Paths are absolute or relative to the root ("/a/b" == "a/b"); intermediate groups must exist.
** Errors: CAIRN_MISUSE (bad argument), CAIRN_EXISTS (name clash), CAIRN_NOTFOUND (no such
** object), CAIRN_TYPE (wrong kind of object or type), CAIRN_RANGE (shape mismatch, size
** limits), CAIRN_READONLY, CAIRN_UNSUPPORTED (a file structure the writer cannot edit),
** CAIRN_IOERR. A rejected request leaves the file and the writer as they were. An I/O error
** while writing poisons the writer: every later call fails until cairn_h5w_close(), which then
** does not commit (the file still holds the last commit).
*/
#ifndef CAIRN_H5W_H
#define CAIRN_H5W_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>
#include "host.h"
#include "zcodec.h" /* cairn_progress_fn */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cairn_h5w cairn_h5w;
typedef struct cairn_h5w_type cairn_h5w_type;

#define CAIRN_H5W_UNLIMITED UINT64_MAX /* a maxdims entry: the dimension can grow */
#define CAIRN_H5W_MAXRANK 8

/* ---- datatypes: built, used (the writer copies them), then freed by the caller ---- */
/* Little-endian integer of 1, 2, 4 or 8 bytes. */
CAIRN_API cairn_h5w_type *cairn_h5w_type_int(unsigned nByte, int bSigned);
/* IEEE float of 2, 4 or 8 bytes (encoded exactly as libhdf5/h5py write them). */
CAIRN_API cairn_h5w_type *cairn_h5w_type_float(unsigned nByte);
/* Bitfield of 1, 2, 4 or 8 bytes; opaque bytes with an optional ASCII tag. */
CAIRN_API cairn_h5w_type *cairn_h5w_type_bitfield(unsigned nByte);
CAIRN_API cairn_h5w_type *cairn_h5w_type_opaque(size_t nSize, const char *zTag);
/* Integers and bitfields that use only nPrecision bits starting at bit nOffset. */
CAIRN_API int cairn_h5w_type_set_bits(cairn_h5w_type *t, unsigned nPrecision, unsigned nOffset);
/* Fixed-length string of n bytes; pad: 0 nul-terminated, 1 nul-padded, 2 space-padded. */
CAIRN_API cairn_h5w_type *cairn_h5w_type_string(size_t n, int pad, int bUtf8);
/* Variable-length string (what h5py writes for str). In memory each element is a
** `const char *` (NUL-terminated); in the file it lives in a global heap. */
CAIRN_API cairn_h5w_type *cairn_h5w_type_vstring(int bUtf8);
/* Variable-length sequence of a fixed-size base type. In memory each element is a
** cairn_h5w_vl (n base elements at p); in the file the elements live in a global heap. */
typedef struct cairn_h5w_vl { size_t n; const void *p; } cairn_h5w_vl;
CAIRN_API cairn_h5w_type *cairn_h5w_type_vlen(const cairn_h5w_type *base);
/* Compound of nSize bytes; add members with cairn_h5w_type_insert (memory layout = file
** layout: each member at its byte offset). Variable-length members are not supported. */
CAIRN_API cairn_h5w_type *cairn_h5w_type_compound(size_t nSize);
CAIRN_API int cairn_h5w_type_insert(cairn_h5w_type *t, const char *zName, size_t iOff, const cairn_h5w_type *m);
/* Enum over an integer base type; values are given in the base type's memory form. */
CAIRN_API cairn_h5w_type *cairn_h5w_type_enum(const cairn_h5w_type *base);
CAIRN_API int cairn_h5w_type_enum_insert(cairn_h5w_type *t, const char *zName, const void *pValue);
/* Fixed-size array of a base type. */
CAIRN_API cairn_h5w_type *cairn_h5w_type_array(const cairn_h5w_type *base, int rank, const uint64_t *dims);
CAIRN_API size_t cairn_h5w_type_size(const cairn_h5w_type *t); /* bytes per element in memory */
CAIRN_API void cairn_h5w_type_free(cairn_h5w_type *t);         /* NULL is a no-op */

/* ---- files ---- */
/* Flags for create/open. NOSYNC skips the host syncs of a commit: the file is then always
** consistent after a clean exit but a power loss may lose commits (same as libhdf5's default). */
#define CAIRN_H5W_READONLY 0x1
#define CAIRN_H5W_NOSYNC 0x2
/* open: walk the whole file once to find space no longer used (old versions of headers from
** earlier sessions) and reuse it; files with structures the walk cannot account for simply
** grow. Costs a read of all metadata (and of vlen string data). */
#define CAIRN_H5W_RECLAIM 0x4
/* The caller keeps its own bytes after the committed end of file (e.g. a log, as the memory
** store does: core/mem/FORMAT.md) and appends to them between commits; every HDF5 reader ignores
** them. With this flag the writer never writes over them before they are covered by a commit:
** the first allocation of each transaction (and every commit) starts at the file's current size,
** and the bytes in [committed end, that size) become part of the new committed file, free space
** for the writer, once the superblock switch is durable. Without the flag such bytes are taken
** as left over by a crash and reused. */
#define CAIRN_H5W_TAIL 0x8
/* Locks (create and open): the writer takes CAIRN_LOCK_WRITE on f (cairn_file_lock, waiting up to
** cairn_set_busy_timeout's time, then CAIRN_BUSY naming the file) before it reads or writes,
** and keeps it until the caller closes f; READONLY opens take CAIRN_LOCK_READ. Space freed while
** readers have the file open is not reused until a commit finds none (core/h5/WRITER.md, "One
** writer, many readers"); create over a non-empty file readers hold is CAIRN_BUSY. */
/* Start a new file in f (its previous content is discarded: invalid from here on, overwritten,
** and cut off at the first commit, so a file being replaced needs no CAIRN_OPEN_TRUNCATE, which
** is slower). f holds an HDF5 file from the first commit on (cairn_h5w_close commits): commit
** at once for an empty file that survives. */
CAIRN_API int cairn_h5w_create(cairn_file *f, unsigned flags, cairn_h5w **ppW);
/* Open an existing HDF5 file for editing: cairn's, and libhdf5/h5py files of any libver
** (superblock v0-v3, object headers v1/v2, symbol-table, compact and dense groups, dense
** attributes, SOHM tables; what it converts on the way is in core/h5/WRITER.md). Files whose
** B-tree K values differ from the defaults, with a user block or a driver information block are
** refused (CAIRN_UNSUPPORTED). With CAIRN_H5W_READONLY every change fails with CAIRN_READONLY.
** Bytes past the committed end of file (left by a crash) are reused. */
CAIRN_API int cairn_h5w_open(cairn_file *f, unsigned flags, cairn_h5w **ppW);
/* Make every change so far durable (write, sync, flip the superblock, sync). */
CAIRN_API int cairn_h5w_commit(cairn_h5w *w);
/* Commit (unless the writer failed) and free the writer. The file stays open. */
CAIRN_API int cairn_h5w_close(cairn_h5w *w);
/* Free the writer WITHOUT committing: the file keeps its last committed state. */
CAIRN_API void cairn_h5w_discard(cairn_h5w *w);

/* ---- objects ---- */
CAIRN_API int cairn_h5w_group(cairn_h5w *w, const char *zPath);

#define CAIRN_H5W_AUTO 0
#define CAIRN_H5W_COMPACT 1
#define CAIRN_H5W_CONTIGUOUS 2
#define CAIRN_H5W_CHUNKED 3
typedef struct cairn_h5w_dset_opts {
  int layout;            /* CAIRN_H5W_AUTO: chunked if resizable or filtered, else contiguous */
  const uint64_t *chunk; /* chunk dims (rank entries) or NULL for a default */
  const char *zFilters;  /* "shuffle,deflate:6", "zstd:3", "lz4", "fletcher32", ... or NULL */
  const void *pFill;     /* fill value (one element) or NULL for zeros */
} cairn_h5w_dset_opts;
/*
** Create dataset zPath with rank dims (rank 0 = scalar). maxdims NULL = fixed size; an entry of
** CAIRN_H5W_UNLIMITED makes it resizable (chunked). pData (row-major, prod(dims) elements) may be
** NULL: the dataset then reads as its fill value.
*/
CAIRN_API int cairn_h5w_dataset(cairn_h5w *w, const char *zPath, const cairn_h5w_type *t, int rank,
                      const uint64_t *dims, const uint64_t *maxdims, const cairn_h5w_dset_opts *pOpt,
                      const void *pData);
/* Append nRows along the first dimension of a resizable chunked dataset. */
CAIRN_API int cairn_h5w_append(cairn_h5w *w, const char *zPath, uint64_t nRows, const void *pData);
/* Grow the first dimension of a resizable chunked dataset to nRows rows; the new rows read as
** the fill value (they are written as such: cost proportional to the growth). Shrinking fails
** with CAIRN_UNSUPPORTED (the file is unchanged), as does a variable-length dataset. */
CAIRN_API int cairn_h5w_resize(cairn_h5w *w, const char *zPath, uint64_t nRows);
/*
** Overwrite rows [row0, row0 + nRows) along the first dimension of any dataset (a scalar has one
** row). Committed bytes are never overwritten: chunks are rewritten copy-on-write (partial ones
** read, merged, rewritten at commit), contiguous storage of an earlier commit is first copied to
** new space (once per transaction: cost proportional to that dataset), compact data lives in
** the header. CAIRN_RANGE if the rows are outside the dataset.
*/
CAIRN_API int cairn_h5w_write(cairn_h5w *w, const char *zPath, uint64_t row0, uint64_t nRows, const void *pData);
/* Shape of a dataset: *pRank and dims[0..rank) (dims may be NULL). */
CAIRN_API int cairn_h5w_shape(cairn_h5w *w, const char *zPath, int *pRank, uint64_t *dims);
/* Element type of a dataset: *pClass is the HDF5 class (0 integer, 1 float, 3 string, 6
** compound, 8 enum, 9 variable-length, 10 array), *pSize the bytes per element in the file,
** *pSigned for integers. */
CAIRN_API int cairn_h5w_dtype(cairn_h5w *w, const char *zPath, int *pClass, size_t *pSize, int *pSigned);
/*
** Create or overwrite attribute zName on object zObj (rank 0 = scalar). The encoded attribute
** must stay under 64 KiB (inline attributes, which every reader handles).
*/
CAIRN_API int cairn_h5w_attr(cairn_h5w *w, const char *zObj, const char *zName, const cairn_h5w_type *t, int rank,
                   const uint64_t *dims, const void *pData);
/* Soft link zPath -> zTarget (a path, which need not exist); external link zPath -> zTarget
** inside the file zFile. */
CAIRN_API int cairn_h5w_softlink(cairn_h5w *w, const char *zPath, const char *zTarget);
CAIRN_API int cairn_h5w_extlink(cairn_h5w *w, const char *zPath, const char *zFile, const char *zTarget);
/* A committed (named) datatype object at zPath. */
CAIRN_API int cairn_h5w_named_type(cairn_h5w *w, const char *zPath, const cairn_h5w_type *t);
/* Remove attribute zName of zObj (CAIRN_NOTFOUND if absent). */
CAIRN_API int cairn_h5w_attr_delete(cairn_h5w *w, const char *zObj, const char *zName);

/*
** Check every structure reachable from the root (checksums, B-trees, every chunk decoded through
** its filters, every string) and return a SHA-256 digest of the logical content: names,
** types, shapes, attribute values and data, not where they sit in the file. Call it on a
** freshly opened writer (uncommitted changes are not seen).
*/
CAIRN_API int cairn_h5w_verify(cairn_h5w *w, uint8_t aDigest[32]);

/*
** Copy every group, dataset and attribute of the HDF5 file `in` (anything cairn's reader opens:
** libhdf5 files of any libver, h5py, cairn) into a new file written to `out` (flags as for
** cairn_h5w_create). zFilter (NULL = keep each dataset's filters) such as "zstd:3" or
** "shuffle,deflate:6" is applied to every non-compact dataset with data (contiguous ones become
** chunked). Memory stays bounded by a row block of chunks. Soft/external links, committed
** datatypes and null dataspaces are not copied; types the writer cannot write (references,
** opaque...) fail with CAIRN_UNSUPPORTED naming the object.
*/
CAIRN_API int cairn_h5w_repack(cairn_file *in, cairn_file *out, const char *zFilter, unsigned flags);
/* repack flag: leave out the datasets, attributes and types the writer cannot write instead of
** failing; on success cairn_errmsg() then says how many and why the first one was left out. */
#define CAIRN_H5W_REPACK_SKIP 0x100
/* cairn_h5w_repack with progress: xProgress(pArg, nDone, nTotal) (may be NULL) is called once with
** nDone 0 before anything is copied, then as data is copied, and last with nDone == nTotal on
** success. nTotal is the data bytes (elements times type size) of every dataset to copy, from a
** walk of the tree before the copy; nDone never decreases and never passes nTotal. */
CAIRN_API int cairn_h5w_repack_progress(cairn_file *in, cairn_file *out, const char *zFilter, unsigned flags,
                                        cairn_progress_fn xProgress, void *pArg);

/* Statistics for tests and tools. */
typedef struct cairn_h5w_stats {
  uint64_t nEof;       /* committed end-of-file address */
  uint64_t nFree;      /* bytes known free inside [0, nEof) */
  uint64_t nCommit;    /* commits that wrote a superblock */
  uint64_t nWrite;     /* host writes issued */
} cairn_h5w_stats;
CAIRN_API int cairn_h5w_stats_get(cairn_h5w *w, cairn_h5w_stats *p);

#ifdef __cplusplus
}
#endif
#endif /* CAIRN_H5W_H */
