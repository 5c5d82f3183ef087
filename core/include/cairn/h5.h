/*
** 2026-11-29
**
** cairn/h5.h - reading HDF5 files (superblock v0-v3, every group, attribute, datatype,
** layout and chunk index libhdf5 1.8-1.14 writes) lazily from any cairn_file: only the
** metadata on the path to what is asked for and the chunks a selection touches are read.
**
** The API is handle-based and flat so that bindings (JS, Python) can wrap it one to one,
** the way h5wasm exposes File/Group/Dataset:
**
**   cairn_h5 *h;  cairn_h5_obj *d;  cairn_h5_info info;
**   cairn_h5_open(file, 0, &h);
**   cairn_h5_get(h, "/group/data", &d);
**   cairn_h5_info_get(d, &info);                        // shape, type, layout, chunks, filters
**   cairn_h5_read(d, NULL, CAIRN_H5_F64, buf, nBuf);    // whole dataset, converted to double
**   cairn_h5_obj_close(d);  cairn_h5_close(h);
**
** Attributes are objects too (cairn_h5_attr), so info and read work the same on them.
** Strings, compounds, enums, vlen data and references are available as JSON text
** (cairn_h5_read_json); numeric data converts to any of the cairn_h5_mtype types.
**
** Lifetimes: strings returned through cairn_h5_info/cairn_h5_link_get stay valid until the
** object they came from is closed. Objects must not be used after cairn_h5_close() of their
** file (closing them then is still safe). One cairn_h5 and its objects must not be used from
** two threads at once (the reader itself decodes chunks in parallel through the host).
**
** Filters: deflate (1), shuffle (2), fletcher32 (3, verified), n-bit (5, atomic types),
** scale-offset (6, integers and D-scaled floats), LZ4 (32004), bitshuffle (32008, plain/LZ4/
** zstd) and zstd (32015). Others (szip, blosc, ...) fail with CAIRN_UNSUPPORTED naming the
** filter id and the dataset path. Not read: virtual datasets and raw data kept in external
** files (both CAIRN_UNSUPPORTED); external links are listed, never followed.
**
** Errors: CAIRN_NOTFOUND (no such path/attribute), CAIRN_CORRUPT (malformed bytes; the
** message names the file offset), CAIRN_CHECKSUM (a lookup3 or fletcher32 mismatch),
** CAIRN_UNSUPPORTED (a valid feature not implemented, e.g. "unsupported filter 4 (szip) in
** /path"), CAIRN_TYPE (conversion impossible), CAIRN_RANGE (selection out of bounds or
** buffer too small), CAIRN_LIMIT (a size beyond the reader's caps or the read budget:
** cairn_h5_set_read_budget), CAIRN_NOMEM, and the
** host's CAIRN_IOERR codes. A failure leaves the handles usable.
*/
#ifndef CAIRN_H5_H
#define CAIRN_H5_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>
#include "host.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cairn_h5 cairn_h5;
typedef struct cairn_h5_obj cairn_h5_obj;

#define CAIRN_H5_MAX_RANK 32

/* Object kinds. */
#define CAIRN_H5_GROUP 1
#define CAIRN_H5_DATASET 2
#define CAIRN_H5_DATATYPE 3 /* committed datatype */
#define CAIRN_H5_ATTRIBUTE 4

/* Dataspace kinds. */
#define CAIRN_H5_SCALAR 0
#define CAIRN_H5_SIMPLE 1
#define CAIRN_H5_NULL 2

/* Datatype classes (the HDF5 class numbers). */
#define CAIRN_H5_T_INTEGER 0
#define CAIRN_H5_T_FLOAT 1
#define CAIRN_H5_T_TIME 2
#define CAIRN_H5_T_STRING 3
#define CAIRN_H5_T_BITFIELD 4
#define CAIRN_H5_T_OPAQUE 5
#define CAIRN_H5_T_COMPOUND 6
#define CAIRN_H5_T_REFERENCE 7
#define CAIRN_H5_T_ENUM 8
#define CAIRN_H5_T_VLEN 9
#define CAIRN_H5_T_ARRAY 10

/* Layouts. */
#define CAIRN_H5_COMPACT 0
#define CAIRN_H5_CONTIGUOUS 1
#define CAIRN_H5_CHUNKED 2
#define CAIRN_H5_VIRTUAL 3

/* Link types. */
#define CAIRN_H5_LINK_HARD 0
#define CAIRN_H5_LINK_SOFT 1
#define CAIRN_H5_LINK_EXTERNAL 64

/* Memory types for cairn_h5_read. NATIVE keeps the file's element layout and size but in the
** machine's (little-endian) byte order; the others convert numeric data (integer, float,
** enum, bitfield) with C conversion semantics (float -> int truncates; out of range wraps). */
typedef enum cairn_h5_mtype {
  CAIRN_H5_NATIVE = 0,
  CAIRN_H5_I8, CAIRN_H5_U8, CAIRN_H5_I16, CAIRN_H5_U16, CAIRN_H5_I32, CAIRN_H5_U32,
  CAIRN_H5_I64, CAIRN_H5_U64, CAIRN_H5_F32, CAIRN_H5_F64
} cairn_h5_mtype;
/* Bytes per element of a memory type (0 for NATIVE). */
CAIRN_API size_t cairn_h5_mtype_size(cairn_h5_mtype m);

typedef struct cairn_h5_filter {
  unsigned id;      /* 1 deflate, 2 shuffle, 3 fletcher32, 32015 zstd, 32004 lz4, 32008 bitshuffle... */
  unsigned flags;   /* bit 0: optional */
  const char *zName;
  unsigned nParam;
  const unsigned *aParam;
} cairn_h5_filter;

typedef struct cairn_h5_info {
  int kind;            /* CAIRN_H5_GROUP/DATASET/DATATYPE/ATTRIBUTE */
  uint64_t addr;       /* object header address (0 for attributes) */
  /* datasets and attributes */
  int space;           /* CAIRN_H5_SCALAR/SIMPLE/NULL */
  unsigned rank;
  uint64_t dims[CAIRN_H5_MAX_RANK];
  uint64_t maxdims[CAIRN_H5_MAX_RANK]; /* UINT64_MAX = unlimited */
  uint64_t nElem;
  /* datasets, attributes, committed datatypes */
  int typeClass;       /* CAIRN_H5_T_* */
  size_t typeSize;
  int typeSigned;      /* integers */
  int typeBigEndian;   /* atomic types */
  int typeVlenString;  /* vlen string (class VLEN) */
  /* datasets */
  int layout;          /* CAIRN_H5_COMPACT/CONTIGUOUS/CHUNKED/VIRTUAL */
  uint64_t chunk[CAIRN_H5_MAX_RANK]; /* chunk shape (rank entries) when chunked */
  int chunkIndex;      /* 0 v1 B-tree, 1 single, 2 implicit, 3 fixed array, 4 ext. array, 5 v2 B-tree */
  unsigned nFilter;
  const cairn_h5_filter *aFilter;
  /* every object kind but attributes */
  size_t nAttr;
  /* groups */
  size_t nLink;
} cairn_h5_info;

typedef struct cairn_h5_link {
  const char *zName;
  int type;            /* CAIRN_H5_LINK_* */
  uint64_t addr;       /* hard links: object header address */
  const char *zTarget; /* soft: the path; external: the path inside zFile */
  const char *zFile;   /* external: the file (never opened by cairn) */
} cairn_h5_link;

/* A hyperslab: for each dimension, start + i*stride + j for i < count, j < block.
** stride 0 means 1, block 0 means 1. rank must equal the object's rank. */
typedef struct cairn_h5_sel {
  unsigned rank;
  uint64_t start[CAIRN_H5_MAX_RANK];
  uint64_t stride[CAIRN_H5_MAX_RANK];
  uint64_t count[CAIRN_H5_MAX_RANK];
  uint64_t block[CAIRN_H5_MAX_RANK];
} cairn_h5_sel;

/* Open an HDF5 file on f (f stays owned by the caller unless CAIRN_H5_OWN_FILE: then
** cairn_h5_close closes it, also when the open fails).
** Raw data in external files (a dataset whose bytes live in other files, named in the file) is
** read, like libhdf5 reads it: each file is opened read-only through the host's xOpen by the
** name the file holds (a relative name resolved by the host: POSIX, from the working directory).
** A server reading untrusted files that must not open other files by name passes
** CAIRN_H5_NO_EXTERNAL: such datasets then fail with CAIRN_UNSUPPORTED. */
#define CAIRN_H5_OWN_FILE 0x1
#define CAIRN_H5_NO_EXTERNAL 0x2
CAIRN_API int cairn_h5_open(cairn_file *f, unsigned flags, cairn_h5 **pp);
/* Open by name through the host. */
CAIRN_API int cairn_h5_open_path(const char *zPath, cairn_h5 **pp);
CAIRN_API int cairn_h5_close(cairn_h5 *h); /* NULL is a no-op */
/* Metadata cache budget in bytes (default 8 MiB). Evicts at once if lowered. */
CAIRN_API int cairn_h5_cache_budget(cairn_h5 *h, uint64_t nBytes);
/* The memory one read may use, in bytes: a read (cairn_h5_read, cairn_h5_read_json) whose
** selection, in the memory type asked for (JSON: its raw values plus at least two bytes of text
** per value), or whose chunks decoded one at a time, need more fails with CAIRN_LIMIT naming the
** object, the bytes it would need and the budget, before anything is allocated: a hostile or
** simply huge dataset (a never-written 8 TB dataset is a file of a few KB) cannot make the reader
** allocate gigabytes. Smaller selections of the same dataset still read (never-written chunks
** as the fill value). 0 restores the default; UINT64_MAX lifts the limit. */
#if defined(__wasm__) || UINTPTR_MAX <= 0xFFFFFFFFu
#define CAIRN_H5_READ_BUDGET_DEFAULT ((uint64_t)256 << 20) /* wasm32 and other 32-bit targets */
#else
#define CAIRN_H5_READ_BUDGET_DEFAULT ((uint64_t)1 << 30)
#endif
CAIRN_API int cairn_h5_set_read_budget(cairn_h5 *h, uint64_t nBytes);
/* The budget in force (the default unless set). */
CAIRN_API uint64_t cairn_h5_read_budget(cairn_h5 *h);
/* Host reads issued and bytes read so far (metadata and raw data). */
CAIRN_API void cairn_h5_stats(cairn_h5 *h, uint64_t *pnRead, uint64_t *pnBytes);
/* Superblock version (0..3). */
CAIRN_API int cairn_h5_superblock_version(cairn_h5 *h);

/* Open an object by absolute path ("/" is the root group). Soft links are followed;
** external links fail with CAIRN_UNSUPPORTED naming the target. */
CAIRN_API int cairn_h5_get(cairn_h5 *h, const char *zPath, cairn_h5_obj **pp);
/* Open an attribute of an object by name. */
CAIRN_API int cairn_h5_attr(cairn_h5_obj *o, const char *zName, cairn_h5_obj **pp);
/* The i-th attribute (name order). */
CAIRN_API int cairn_h5_attr_at(cairn_h5_obj *o, size_t i, cairn_h5_obj **pp);
CAIRN_API int cairn_h5_obj_close(cairn_h5_obj *o); /* NULL is a no-op */
/* The object's path (attributes: "path@name"). */
CAIRN_API const char *cairn_h5_obj_path(cairn_h5_obj *o);

CAIRN_API int cairn_h5_info_get(cairn_h5_obj *o, cairn_h5_info *pInfo);
/* Attribute names, i < info.nAttr, in name order. */
CAIRN_API int cairn_h5_attr_name(cairn_h5_obj *o, size_t i, const char **pz);
/* Links of a group, i < info.nLink, in name order. */
CAIRN_API int cairn_h5_link_get(cairn_h5_obj *g, size_t i, cairn_h5_link *pOut);

/* Read a dataset or attribute (sel NULL = everything) into buf as memory type m. nBuf must be
** at least selected elements * element size (NATIVE: the file type's size). NATIVE copies
** elements as stored, byte-swapped to little-endian (compound members and array elements
** included); variable-length elements stay as file heap IDs: use cairn_h5_read_json for them.
** Chunks are decoded in parallel through the host's xParallelFor. */
CAIRN_API int cairn_h5_read(cairn_h5_obj *o, const cairn_h5_sel *sel, cairn_h5_mtype m, void *buf, size_t nBuf);
/* Where a whole read of dataset o as memory type m (not NATIVE) sits verbatim in the file: when
** o's storage is contiguous and allocated and its bytes already are the values in type m
** (little-endian, same size, full precision), *pOff receives the absolute file offset and *pn
** the byte count (checked against the file's size) and CAIRN_OK is returned; otherwise
** CAIRN_NOTFOUND, and cairn_h5_read is the way. Lets a binding read a large contiguous
** dataset from its file straight into its own buffer, with no copy through the library. */
CAIRN_API int cairn_h5_raw_extent(cairn_h5_obj *o, cairn_h5_mtype m, uint64_t *pOff, uint64_t *pn);
/* Values as JSON text: nested arrays following the selection's shape (a scalar is a bare
** value); strings as JSON strings, compounds as objects, enums as their names, vlen as
** arrays, object references as the referenced path, opaque as hex strings, NaN/inf as
** "nan"/"inf"/"-inf" strings. *pz is allocated with cairn_malloc; free with cairn_free. */
CAIRN_API int cairn_h5_read_json(cairn_h5_obj *o, const cairn_h5_sel *sel, char **pz, size_t *pn);
/* Everything cairn_h5_info_get reports, as one JSON object (for bindings that would rather
** not mirror the struct): {"kind":"dataset","path":"/d","addr":800,"shape":[3,4],
** "maxshape":[null,4],"type":{...},"layout":"chunked","chunks":[1,4],"chunkIndex":"earray",
** "filters":[{"id":1,"name":"deflate","params":[4]}],"attrs":["units"]}; groups add
** "links":[{"name":"x","type":"hard"|"soft"|"external","target":...,"file":...}], datasets
** with raw data in external files "external":[{"name":"a.raw","offset":0,"size":40}] (size null:
** unlimited). Unlimited max dimensions are null. *pz is allocated with cairn_malloc; free with
** cairn_free. */
CAIRN_API int cairn_h5_info_json(cairn_h5_obj *o, char **pz, size_t *pn);
/*
** A compact description for bindings (the npm package's): numeric kinds, layouts and chunk
** index types (the cairn_h5_* enum values), one JSON text:
**   {"kind":2,"addr":N,"space":1,"shape":[..],"maxshape":[..,null=unlimited],"type":{..},
**    "layout":2,"chunks":[..]|null,"chunkIndex":N,"filters":[{"id","name","flags","cd_values"}],
**    "attrs":["name",..],"links":[{"name","type","target","file"}]}
** "space", "shape" and "maxshape" for datasets and attributes; "type" for all but groups
** (cairn_h5_type_json's text); "layout".."filters" for datasets. "attrs" only with
** CAIRN_H5_DESCRIBE_ATTRS (listing them parses every attribute message), "links" only for
** groups and with CAIRN_H5_DESCRIBE_LINKS (a group with many links costs nothing until its
** names are asked for). *pz is allocated with cairn_malloc; free with cairn_free.
*/
#define CAIRN_H5_DESCRIBE_LINKS 1u
#define CAIRN_H5_DESCRIBE_ATTRS 2u
CAIRN_API int cairn_h5_describe_json(cairn_h5_obj *o, unsigned flags, char **pz, size_t *pn);
/*
** Every attribute of o in one call (a binding's bulk read: 128 attributes cost one call instead
** of a description and a read each): names, shapes, types and, for numbers, the values, as one
** binary block, little-endian, *pn bytes at *pp (allocated with cairn_malloc; free with
** cairn_free):
**   header  u32 nAttr, nType, offNames, offTypes, offRecs, offData, total, 0
**   names   each UTF-8, NUL-terminated, in name order
**   types   nType times: u32 length, the type's JSON (as cairn_h5_type_json); shared by equal types
**   recs    per attribute, 8-aligned: u32 type index, u8 space (0 scalar 1 simple 2 null),
**           u8 rank, u8 memory type (cairn_h5_mtype; 255: values not here, read them one by
**           one), u8 0, u32 data offset (from offData), u32 data bytes, then rank f64 dims
**   data    the values as that memory type (integers of their width and sign, floats as
**           f32 up to 4 bytes, else f64), 8-aligned
** Values of non-numeric types, over 64 KiB, or past 64 MiB in all are left out; an attribute
** that does not decode has type index 0xffffffff (read it alone: that reports why). An
** attribute object has none.
*/
CAIRN_API int cairn_h5_attrs_block(cairn_h5_obj *o, void **pp, size_t *pn);
/* The datatype as JSON: {"class":"integer","size":4,"signed":true,"order":"le"},
** {"class":"compound","size":16,"members":[{"name":"a","offset":0,"type":{...}}]}, ... */
CAIRN_API int cairn_h5_type_json(cairn_h5_obj *o, char **pz, size_t *pn);

#ifdef __cplusplus
}
#endif
#endif
