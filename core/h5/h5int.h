/*
** 2026-11-29
**
** core/h5/h5int.h - the internal model of an HDF5 file shared by the reader (r_*.c) and, for
** in-place edits, the writer (w_*.c): decoded datatypes, dataspaces, layouts, filter
** pipelines and fill values, plus the reader's file state (superblock fields, metadata cache)
** and the object-header and heap helpers every structure parser uses.
**
** The normative reference is the HDF5 File Format Specification 3.0. Every field read from a
** file is bounds-checked against the buffer it came from; every size used to allocate is
** capped first (H5_MAX_* below). Structures that carry a lookup3 checksum are verified.
**
** Maintenance reminder: H5Type/H5Space/H5Layout/H5Pipeline are decoded forms of on-disk
** messages; if a field is added here, the decoder in r_msg.c and any encoder in w_*.c must
** change together.
*/
#ifndef CAIRN_H5INT_H
#define CAIRN_H5INT_H

#include "cairn/h5.h"
#include "h5/format.h"

/* Limits: anything beyond these in a file is reported as CAIRN_LIMIT / CAIRN_CORRUPT. */
#define H5_MAX_RANK 32
#define H5_MAX_TYPE_DEPTH 16          /* nesting of compound/array/vlen */
#define H5_MAX_MEMBERS 65535
#define H5_MAX_META (64u << 20)       /* one metadata structure (object header chunk, heap) */
/* one decoded chunk: 4 GiB, or half the address space on 32-bit targets (wasm32) */
#define H5_MAX_CHUNK ((uint64_t)(SIZE_MAX / 2 < 0xFFFFFFFFu ? SIZE_MAX / 2 : 0xFFFFFFFFu))
#define H5_MAX_FILTERS 32
#define H5_TYPE_MEMO_KEY 44          /* datatype messages up to this size are memoised */
#define H5_OHDR_LENT 2048            /* H5File.aOhdrLent: most headers' first block fits */

typedef struct H5Type H5Type;
typedef struct H5Member {
  char *zName;
  uint32_t offset; /* byte offset inside the compound element */
  H5Type *pType;
} H5Member;

struct H5Type {
  uint32_t nRef;   /* extra references (cairnH5TypeRef); cairnH5TypeFree drops one */
  uint8_t cls;     /* H5T_* */
  uint8_t version; /* datatype message version (1..4) */
  uint32_t size;   /* bytes per element */
  uint32_t bits;   /* the 24-bit class bit field */
  /* fixed/float/bitfield */
  uint8_t bigEndian, isSigned;
  uint16_t bitOffset, precision;
  uint8_t expLoc, expSize, manLoc, manSize, signLoc;
  uint32_t expBias;
  /* string (and vlen string): 0 null-terminated, 1 null-padded, 2 space-padded; cset 0 ascii 1 utf8 */
  uint8_t strPad, cset;
  /* vlen: 0 sequence, 1 string; reference: 0 object, 1 region */
  uint8_t vlenKind, refKind;
  /* compound and enum members (enum: pType unused, values in aEnumVal, nMember of them) */
  uint32_t nMember;
  H5Member *aMember;
  uint8_t *aEnumVal; /* nMember * pBase->size bytes */
  /* array: rank, and (last, so the decoder need not zero them) its first rank dimensions */
  uint32_t rank;
  /* base type of enum, array and vlen */
  H5Type *pBase;
  char *zTag; /* opaque tag */
  /* the struct lives in its owner's memory (cairnH5TypeDecodeIn): cairnH5TypeFree frees its parts only */
  uint8_t inPlace;
  uint32_t aDim[H5_MAX_RANK]; /* defined up to rank only */
};

/* aDim and aMax are defined up to rank only (cairnH5SpaceDecode writes no more: 512 bytes) */
typedef struct H5Space {
  uint8_t kind; /* CAIRN_H5_SCALAR / SIMPLE / NULL */
  uint32_t rank;
  uint64_t aDim[H5_MAX_RANK];
  uint64_t aMax[H5_MAX_RANK]; /* H5_UNDEF = unlimited */
  uint64_t nElem;             /* product of dims (1 for scalar, 0 for null) */
} H5Space;

typedef struct H5Filter {
  uint16_t id;
  uint16_t flags; /* bit 0: optional */
  char zName[64];
  uint32_t nParam;
  uint32_t aParam[16]; /* the first 16 client values (more are ignored but counted) */
} H5Filter;

typedef struct H5Pipeline {
  uint32_t n;
  H5Filter a[H5_MAX_FILTERS];
} H5Pipeline;

typedef struct H5Layout {
  uint8_t version;
  uint8_t cls; /* CAIRN_H5_COMPACT / CONTIGUOUS / CHUNKED / VIRTUAL */
  uint64_t addr; /* contiguous data, chunk index root, or the single chunk */
  uint64_t size; /* contiguous: bytes allocated; compact: bytes */
  const uint8_t *pCompact; /* compact data inside the owning object header's buffer */
  /* chunked */
  uint32_t rank;                 /* dataset rank (chunk dims without the element-size dim) */
  uint32_t elemSize;             /* element size stored in the layout */
  uint8_t flags;                 /* v4 flags */
  uint8_t idx;                   /* H5IDX_* */
  uint64_t singleSize;           /* single chunk, filtered */
  uint32_t singleMask;
  uint8_t faPageBits;            /* fixed array */
  uint8_t eaMaxBits, eaIdxElem, eaMinPtr, eaMinElem, eaPageBits; /* extensible array */
  uint32_t bt2NodeSize;
  uint8_t bt2Split, bt2Merge;
  /* last, so the decoder need not zero it: defined up to rank only (chunked layouts) */
  uint64_t aChunk[H5_MAX_RANK];
} H5Layout;

typedef struct H5Fill {
  int defined;    /* a value is stored */
  uint32_t size;
  const uint8_t *p; /* inside the owning object header's buffer */
  uint8_t allocTime, writeTime;
} H5Fill;

/* ---------------------------------------------------------------- file and cache */
typedef struct H5Page H5Page;
typedef struct H5File {
  cairn_file *pFile;
  uint64_t fileSize;
  uint64_t base;      /* base address: all addresses are relative to it */
  uint8_t sbVersion;
  uint8_t so, sl;     /* size of offsets, size of lengths */
  uint16_t groupLeafK, groupInternalK, chunkK;
  uint64_t eofAddr;
  uint64_t rootAddr;  /* root group object header */
  uint64_t rootBtree, rootHeap; /* v0/v1 root symbol table entry cache (H5_UNDEF if none) */
  uint64_t extAddr;   /* superblock extension */
  /* SOHM: the indexes are in aSohm[0..nSohm), below */
  uint32_t nSohm;
  /* page cache for metadata */
  uint32_t pageBits;
  uint64_t cacheBudget, cacheBytes;
  uint32_t nSlot;     /* hash slots (power of two) */
  H5Page **aSlot;
  H5Page *pLruHead, *pLruTail;
  uint64_t nRead, nReadBytes; /* statistics: host reads issued and bytes asked for */
  /* the last global heap collection read (vlen data hits the same one again and again) */
  uint64_t gcolAddr;
  uint8_t *pGcol;
  size_t nGcol;
  uint32_t nGcolObj;
  uint64_t *aGcolObj; /* per object index: offset << 32 | ... see r_heap.c */
  /* fractal heap direct blocks whose checksum was verified: aVerified[0..min(iVerified, 64)) */
  uint32_t iVerified;
  /* address -> path map for object references (built on demand) */
  struct H5AddrPath *aAddrPath;
  size_t nAddrPath;
  /* reader speed: fileSize is exact once sizeKnown, a lower bound before (see cairnH5Reach) */
  uint8_t sizeKnown;
  uint8_t noExternal; /* CAIRN_H5_NO_EXTERNAL: raw data in external files is refused */
  uint64_t readBudget; /* cairn_h5_set_read_budget (0: CAIRN_H5_READ_BUDGET_DEFAULT): cairnH5Budget */
  uint32_t nPage; /* pages in the metadata cache */
  /* allocated with the handle (cairn_h5_open): the memory of the first read's run
  ** (H5_FIRST_RUN bytes at pFirstRun) and the first hash slots (aSlot0, below), so an open of a
  ** small file costs one allocation, not three */
  void *pFirstRun;
  /* the bytes that first read brought into the handle's memory (file offsets 0..nFirstData):
  ** they stay there, evicted from the cache or not, so metadata in them is used in place */
  const uint8_t *pFirstData;
  size_t nFirstData;
  /* The first read's two pages join the page cache only when a read misses them
  ** (cairnH5CacheFirst): a small file read wholly in place never needs them there. */
  uint8_t firstPending;
  uint32_t iTypeMemo; /* the next aTypeMemo slot to reuse (below) */
  /* memory for the cache's first runs after the first read (allocated on the first miss,
  ** H5_ARENA bytes, freed at close; runs in it are not freed one by one): a lookup in a large
  ** group makes five or so, and large blocks cost the allocator more than the rest of a run */
  uint8_t *pArena;
  size_t iArena;
  /* The reader's lock, taken at the first host call after the open's (cairnH5LockLater): 1 while
  ** it is still to take; then the superblock is read again and must be the one at the open
  ** (sbAt, nSb bytes in aSb): the snapshot guarantee of core/h5/WRITER.md, "Readers beside the
  ** writer". */
  int lockLater;
  uint32_t nSb;
  uint64_t sbAt;
  /* Arrays from here on are not zeroed at open (cairn_h5_open zeroes the fields above them):
  ** each is read only up to a count or after a check of its own. */
  uint64_t aVerified[64];
  uint8_t aSb[128]; /* nSb bytes: the superblock as the open read it */
  struct { uint16_t typeFlags; uint64_t heapAddr, indexAddr; uint8_t indexType; } aSohm[8];
  /* decoded datatypes by their message bytes (cairnH5TypeDecode): an object's 128 attributes of one
  ** type decode it once; entries hold a reference, dropped at close. A slot is in use when its
  ** t is set (cairn_h5_open clears the four t). */
  struct { uint32_t n; uint8_t key[H5_TYPE_MEMO_KEY]; H5Type *t; } aTypeMemo[4];
  /* the hash slots while there are at most 64 (the table starts with H5_SLOTS0 of them: only
  ** those are zeroed at open; cacheGrow goes on in here up to 64 before it allocates) */
  H5Page *aSlot0[64];
  /* memory lent to cairnH5OhdrLoadIn for a header read and dropped (a group on a path) or moved
  ** into an object's block next: free again once that header is freed or moved */
  uint64_t aOhdrLent[H5_OHDR_LENT / 8];
} H5File;
#define H5_ARENA (64u << 10)
#define H5_SLOTS0 16u
#define H5_FIRST_RUN (8192u + 256u) /* two 4 KiB pages and their run header */
#define H5_FIRST_BYTES ((size_t)8192) /* the first read: two pages (pageBits is 12 at open) */
/* The first read (cairn_h5_open): where its bytes go, and taking the nr that came back. */
uint8_t *cairnH5FirstData(H5File *f);
void cairnH5FirstDone(H5File *f, size_t nr);

/* Read and check the superblock (and its extension) of f, whose first read is done (r_file.c). */
int cairnH5OpenSuperblock(H5File *f);
/* The deferred reader lock (see lockLater above): CAIRN_BUSY if a commit came since the open. */
int cairnH5LockNow(H5File *f);

/* Read n bytes at relative address a (checked against the end of the file), through the
** metadata cache. */
int cairnH5ReadMeta(H5File *f, uint64_t a, void *p, size_t n);
/* Where [a, a+n) (relative) lies in the metadata cache if it is within one cached page, else
** NULL (then use cairnH5ReadMeta). The pointer is valid until the next call that may read into the
** cache or evict from it (cairnH5ReadMeta, cairnH5LoadMeta, cairnH5Reach, cairnH5Prefetch, cache budget). */
const uint8_t *cairnH5MetaPtr(H5File *f, uint64_t a, size_t n);
/* The bytes [a, a+n) (relative): in place in the cache when in one cached page (valid as
** cairnH5MetaPtr's), else read into pBuf (n bytes). *pRc gets the error of that read (then NULL). */
static inline const uint8_t *cairnH5MetaView(H5File *f, uint64_t a, size_t n, uint8_t *pBuf, int *pRc) {
  const uint8_t *q = cairnH5MetaPtr(f, a, n);
  *pRc = CAIRN_OK;
  if (q) return q;
  return (*pRc = cairnH5ReadMeta(f, a, pBuf, n)) ? NULL : pBuf;
}
/* [a, a+n) (relative) in place when it lies in the open's first read (f->pFirstData): valid
** until the handle closes, whatever is read or evicted meanwhile; else NULL. */
static inline const uint8_t *cairnH5MetaStable(const H5File *f, uint64_t a, size_t n) {
  uint64_t abs = a + f->base;
  return abs >= a && abs < f->nFirstData && n <= f->nFirstData - abs ? f->pFirstData + abs : NULL;
}
/* Read n bytes at a relative address, bypassing the cache (raw data). */
int cairnH5ReadRaw(H5File *f, uint64_t a, void *p, size_t n);
/* cairnH5ReadRaw for a large read (n >= H5_PAR_READ_MIN) made by the caller's thread, not from a
** task: split over the host's workers. */
#define H5_PAR_READ_MIN ((size_t)2 << 20)
int cairnH5ReadRawPar(H5File *f, uint64_t a, void *p, size_t n);
/* A whole read by the caller's thread: split when large, else cairnH5ReadRaw, called directly (inline,
** so a small read keeps its one call). */
static inline int cairnH5ReadRawWhole(H5File *f, uint64_t a, void *p, size_t n) {
  return n >= H5_PAR_READ_MIN ? cairnH5ReadRawPar(f, a, p, n) : cairnH5ReadRaw(f, a, p, n);
}
/* Allocate and read a metadata block; *pp must be freed with cairnFree. */
int cairnH5LoadMeta(H5File *f, uint64_t a, size_t n, uint8_t **pp);
void cairnH5CacheFree(H5File *f); /* also drops the datatype memo */
void cairnH5CacheTrim(H5File *f); /* evict down to the budget */
/* Put the first read's pages into the page cache if they are not yet there (see H5File's
** firstPending). Metadata paths only: never while raw reads run on several threads. */
void cairnH5CacheFirst(H5File *f);
/* Make sure [abs, abs+n) lies within f->fileSize, or that f->fileSize is exact (abs is
** absolute: base included). Call before checking a range against f->fileSize. Metadata only:
** a small range past what is known is read into the cache (a short read tells the size) before
** the host is asked for the size, so it must not run beside other reads. */
int cairnH5Reach(H5File *f, uint64_t abs, uint64_t n);

/* Read the pages of [a, a+n) (relative; n up to 8 pages) into the metadata cache in one host
** read, without the neighbouring pages cairnH5ReadMeta adds: for a structure of known size whose
** neighbours are not wanted. Errors are left to the read that follows. */
void cairnH5Prefetch(H5File *f, uint64_t a, uint64_t n);

/* An address and a length field of the file's widths (the cursor is format.h's). */
static inline uint64_t cairnH5Addr(H5File *f, H5Cur *c) { return cairnH5CurAddr(c, f->so); }
static inline uint64_t cairnH5Len(H5File *f, H5Cur *c) { return cairnH5U(c, f->sl); }

/* ---------------------------------------------------------------- object headers */
typedef struct H5Msg {
  uint16_t type;
  uint8_t flags;
  uint32_t size;
  const uint8_t *p;
  uint64_t addr; /* file address of the message data */
} H5Msg;

typedef struct H5Ohdr {
  uint64_t addr;
  uint8_t version;
  uint8_t hdrFlags; /* v2: bit 2 = messages carry a creation order */
  uint32_t nMsg;
  H5Msg *aMsg;
  uint8_t **aBuf; /* the chunks read (owned) */
  uint32_t nBuf;
  uint16_t maxCompactAttr, minDenseAttr;
  /* the first chunk's block also holds the first H5_OHDR_INLINE_MSGS messages and
  ** H5_OHDR_INLINE_BUFS chunk pointers (one allocation for most headers): capacities, and
  ** whether aMsg/aBuf still point into it */
  uint32_t capMsg, capBuf;
  uint8_t msgInline, bufInline;
  /* the first chunk's block: its bytes (nFirstData of them are the chunk and padding; 0 when
  ** the chunk is used in place in the open's first read, cairnH5MetaStable: then messages point into
  ** the handle's memory), and whether its memory is the caller's (cairnH5OhdrLoadIn, cairnH5OhdrMove:
  ** not freed here) */
  uint32_t nFirst, nFirstData;
  uint8_t firstLent;
  uint32_t typeMask; /* bit t: a message of type t (< 32) is in aMsg */
} H5Ohdr;
#define H5_OHDR_INLINE_MSGS 16
#define H5_OHDR_INLINE_BUFS 4

int cairnH5OhdrLoad(H5File *f, uint64_t addr, H5Ohdr *o);
/* The same, with the first chunk's block in pLent[0..nLent) (8-aligned) when it fits (o->nFirst
** bytes), else allocated: a header read and dropped at once (a group on a path) or moved next
** (cairnH5OhdrMove) costs no allocation. pLent must outlive o. */
int cairnH5OhdrLoadIn(H5File *f, uint64_t addr, H5Ohdr *o, uint8_t *pLent, size_t nLent);
/* Move the first chunk's block to pDst (o->nFirst bytes, 8-aligned, owned by the caller and
** outliving o), fixing the pointers into it; frees the old block if it was allocated. */
void cairnH5OhdrMove(H5Ohdr *o, uint8_t *pDst);
void cairnH5OhdrFree(H5Ohdr *o);
/* The i-th message of a type (NULL if absent): a type below 32 that typeMask does not have is
** answered here, the rest by cairnH5OhdrScan. */
const H5Msg *cairnH5OhdrScan(const H5Ohdr *o, uint16_t type, uint32_t i);
static inline const H5Msg *cairnH5OhdrFind(const H5Ohdr *o, uint16_t type, uint32_t i) {
  if (type < 32 && !(o->typeMask & (1u << type))) return NULL;
  return cairnH5OhdrScan(o, type, i);
}

/* ---------------------------------------------------------------- messages */
/* Drop a reference to t (cairnH5TypeRef), freeing it with the last; NULL is nothing to do. */
void cairnH5TypeRelease(H5Type *t);
static inline void cairnH5TypeFree(H5Type *t) {
  if (t) cairnH5TypeRelease(t);
}
/* Deep copy (NULL on out of memory). */
H5Type *cairnH5TypeDup(const H5Type *t);
/* Another reference to the same (immutable) type; release it with cairnH5TypeFree. */
static inline H5Type *cairnH5TypeRef(H5Type *t) {
  t->nRef++;
  return t;
}
/* Decode a datatype message; *pn receives the bytes consumed. A top-level (depth 0) message of
** at most H5_TYPE_MEMO_KEY bytes decoded before in this file gives another reference to the
** same immutable type. */
int cairnH5TypeDecode(H5File *f, const uint8_t *p, size_t n, uint64_t addr, int depth, H5Type **pp, size_t *pn);
/* A top-level datatype message decoded into the caller's *pInto (no allocation for the struct;
** *pp = pInto, or a reference to the memo's equal type if there is one). The caller must be its
** only holder: no cairnH5TypeRef of it, and it is not put in the memo (whose references outlive any
** object). Released with cairnH5TypeFree (its parts; the struct stays the caller's). */
int cairnH5TypeDecodeIn(H5File *f, const uint8_t *p, size_t n, uint64_t addr, H5Type *pInto, H5Type **pp);
int cairnH5SpaceDecode(const uint8_t *p, size_t n, uint64_t addr, H5File *f, H5Space *s);
int cairnH5LayoutDecode(H5File *f, const uint8_t *p, size_t n, uint64_t addr, const H5Space *s, H5Layout *l);
int cairnH5PipelineDecode(const uint8_t *p, size_t n, uint64_t addr, H5Pipeline *pl);
int cairnH5FillDecode(uint16_t type, const uint8_t *p, size_t n, uint64_t addr, H5Fill *fv);
/* Resolve a message that may be shared (flag bit 1): returns a pointer and size of the actual
** message bytes, loading them into *ppOwn (freed by the caller) when they live elsewhere. */
int cairnH5MsgResolve(H5File *f, const H5Msg *m, const uint8_t **pp, size_t *pn, uint64_t *pAddr, uint8_t **ppOwn);

/* ---------------------------------------------------------------- heaps and B-trees */
int cairnH5GlobalHeapGet(H5File *f, uint64_t coll, uint32_t idx, uint8_t **pp, size_t *pn);
/* A copy (*pz, cairnFree) of the NUL-terminated string at offset off of the local heap at addr. */
int cairnH5LocalHeapStr(H5File *f, uint64_t addr, uint64_t off, char **pz);

typedef struct H5FHeap {
  uint64_t addr;
  uint16_t idLen, filterLen;
  uint8_t flags;
  uint32_t maxManaged;
  uint64_t hugeBtree;
  uint16_t width;
  uint64_t startBlock, maxDirect;
  uint16_t maxHeapBits, startRows, curRows;
  uint64_t root;
  uint32_t offBytes, lenBytes;
  uint32_t maxDirectRows;
  H5Pipeline filters;
} H5FHeap;
int cairnH5FHeapOpen(H5File *f, uint64_t addr, H5FHeap *h);
/* Fetch a heap object by ID into a new buffer. */
int cairnH5FHeapGet(H5File *f, H5FHeap *h, const uint8_t *id, uint8_t **pp, size_t *pn);

/* v2 B-tree: visit every record in order; the callback returns nonzero to stop (that value is
** returned). */
typedef int (*H5Bt2Visit)(void *pArg, const uint8_t *rec, uint32_t n);
int cairnH5Bt2Iterate(H5File *f, uint64_t addr, H5Bt2Visit x, void *pArg);
/* Search: xCmp(pArg, rec) returns <0 if the key sorts before rec, 0 if found, >0 after.
** On a hit xFound is called with the record; returns CAIRN_NOTFOUND otherwise. */
typedef int (*H5Bt2Cmp)(void *pArg, const uint8_t *rec);
int cairnH5Bt2Find(H5File *f, uint64_t addr, H5Bt2Cmp xCmp, H5Bt2Visit xFound, void *pArg);

/* ---------------------------------------------------------------- links */
typedef struct H5Link {
  char *zName;
  uint8_t type; /* CAIRN_H5_LINK_HARD/SOFT/EXTERNAL */
  uint64_t addr;
  char *zTarget; /* soft: path; external: "file\0path" joined as "file:path" */
  char *zFile;   /* external: the file name */
  int64_t corder;
} H5Link;
void cairnH5LinksFree(H5Link *a, size_t n);
/* All links of the group whose header is o, sorted by name. */
int cairnH5GroupLinks(H5File *f, const H5Ohdr *o, H5Link **pa, size_t *pn);
/* One link by name (faster than listing for dense and symbol-table groups). pOut->zName may
** be NULL (the caller has the name). */
int cairnH5GroupLookup(H5File *f, const H5Ohdr *o, const char *zName, size_t nName, H5Link *pOut);
/* The same in the group whose header is at addr: read in place when it can be (a header in the
** open's first read, not continued), else loaded into f->aOhdrLent (free during the call) and
** dropped. */
int cairnH5GroupLookupAt(H5File *f, uint64_t addr, const char *zName, size_t nName, H5Link *pOut);

/* ---------------------------------------------------------------- attributes */
typedef struct H5Attr {
  char *zName;    /* inside the pData allocation, after the values */
  H5Type *pType;
  H5Space space;
  uint8_t *pData; /* owned: the raw values, then the NUL-terminated name */
  size_t nData;
  /* Not decoded yet (pType NULL): the attribute message inside its object header's buffer,
  ** zName pointing at the name in it. cairnH5AttrDecode(pMsg, nMsg, msgAddr) completes it. */
  const uint8_t *pMsg;
  size_t nMsg;
  uint64_t msgAddr;
} H5Attr;
void cairnH5AttrFree(H5Attr *a);
int cairnH5AttrDecode(H5File *f, const uint8_t *p, size_t n, uint64_t addr, H5Attr *a);
/* The same, with the values and name put in pBuf[0..nBuf) when they fit (*pInBuf = 1; then
** pData is the caller's: set it NULL before cairnH5AttrFree), else allocated (*pInBuf = 0). */
int cairnH5AttrDecodeIn(H5File *f, const uint8_t *p, size_t n, uint64_t addr, H5Attr *a, uint8_t *pBuf, size_t nBuf, int *pInBuf);
/* Decode an attribute message without copying: its type (a reference: cairnH5TypeFree it), its
** dataspace (as cairnH5SpaceDecode: up to its rank; the rest of *pS is left as it was),
** and where its raw values sit in p (checked to fit). For walks over many attributes. */
int cairnH5AttrPeek(H5File *f, const uint8_t *p, size_t n, uint64_t addr, H5Type **ppT, H5Space *pS, const uint8_t **ppData, size_t *pnData);
/* All attributes of an object (compact and dense), in name order. */
int cairnH5Attrs(H5File *f, const H5Ohdr *o, H5Attr **pa, size_t *pn);

/* ---------------------------------------------------------------- data */
typedef struct H5Dset {
  H5File *f;
  const char *zPath;
  H5Type *pType;
  H5Space space;
  H5Layout layout;
  /* pType's memory unless the memo had it (cairnH5TypeDecodeIn): a dataset's type is referenced by
  ** nothing else, so it lives and dies with the dataset without an allocation of its own */
  H5Type typeOwn;
  H5Pipeline pipeline;
  H5Fill fill;
  uint8_t *pFillOwn; /* fill value bytes owned (from a shared message) */
  const H5Msg *pEfl; /* External Data Files message (raw data in other files), or NULL */
  /* verified fixed/extensible array blocks, so chunk after chunk does not reload them: a ring
  ** whose first iIdx entries (all 8 once iIdx reaches 8; it then cycles through 8..15) are set */
  struct { uint64_t addr; size_t n; uint8_t *p; } aIdx[8];
  unsigned iIdx;
} H5Dset;
void cairnH5DsetFreeCache(H5Dset *d);

/* A selection: per dimension start/stride/count/block (all elements when NULL). */
typedef struct H5Sel {
  uint64_t start[H5_MAX_RANK], stride[H5_MAX_RANK], count[H5_MAX_RANK], block[H5_MAX_RANK];
} H5Sel;
/* Read the selected elements of d in the file's datatype layout, byte order untouched,
** into out (nOut bytes = selected elements * type size). */
int cairnH5DsetReadRaw(H5Dset *d, const H5Sel *sel, uint8_t *out, size_t nOut);
/* CAIRN_LIMIT naming zPath, the bytes and the budget when a read of zPath would need more than
** f's read budget (cairn_h5_set_read_budget), else CAIRN_OK. */
int cairnH5Budget(const H5File *f, const char *zPath, uint64_t nNeed);
/* Call x(pArg, scaled chunk coordinates, address) for every allocated chunk of chunked dataset
** d, in row-major chunk order (none when its index was never written); CAIRN_LIMIT past
** maxCells chunk positions. A non-zero return of x stops the walk and is returned. */
int cairnH5DsetChunkEach(H5Dset *d, uint64_t maxCells, int (*x)(void *, const uint64_t *, uint64_t), void *pArg);
/* Append ,"external":[{"name","offset","size" (null: unlimited)}...] for d's external raw data
** files (d->pEfl set): info JSON, like h5py's Dataset.external. */
int cairnH5DsetExternalJson(H5Dset *d, CairnSb *s);
/* Scratch of one thread of a chunked read (issue 23): the buffers a chunk's decode goes
** through and the decoder state, kept from chunk to chunk instead of allocated per chunk and
** filter. A block from cairnH5ScrAlloc(S, ..) goes back with cairnH5ScrFree(S, ..) (same S; NULL
** S: plain cairnMalloc / cairnFree). New blocks are at least nHint bytes (the decoded chunk
** size and a little), so any block fits any later buffer of the read. cairnH5ScrClear frees all. */
#define H5_SCR_KEEP 4
typedef struct H5Scratch {
  uint8_t *ap[H5_SCR_KEEP]; /* free blocks (their capacity before them), NULL: empty */
  size_t nHint;
  struct CairnZDec *pDec;   /* core/codec/zdec.h */
} H5Scratch;
uint8_t *cairnH5ScrAlloc(H5Scratch *S, size_t n);
void cairnH5ScrFree(H5Scratch *S, uint8_t *p);
void cairnH5ScrClear(H5Scratch *S);
/* Decode one chunk through the filter pipeline (in place when possible). pIn (nIn bytes) comes
** from cairnH5ScrAlloc(S, ..) and is taken; *ppOut goes back with cairnH5ScrFree(S, ..). */
int cairnH5Unfilter(const H5Pipeline *pl, uint32_t mask, uint8_t *pIn, size_t nIn, size_t nOut, uint8_t **ppOut,
               size_t *pnOut, const char *zPath, uint64_t addr, H5Scratch *S);

/* Conversion of raw elements of type t (file layout) to a memory type. */
int cairnH5Convert(const H5Type *t, const uint8_t *in, uint64_t n, cairn_h5_mtype m, void *out);
/* Whether cairnH5Convert(t, .., m) is a plain copy (same representation): callers converting many
** small values of one type ask once. */
int cairnH5ConvertIsCopy(const H5Type *t, cairn_h5_mtype m);
/* Byte-swap big-endian atomic parts in place so the buffer has the native (little-endian) order. */
void cairnH5ToNative(const H5Type *t, uint8_t *p, uint64_t n);

/* ---------------------------------------------------------------- the API's handles
** (r_api.c: files and objects; r_read.c: reads and JSON; r_bulk.c: bindings' bulk calls) */
struct cairn_h5 {
  H5File f;
  int own;
  /* memory for one object in the handle's own allocation (H5_OBJ_SLOT bytes at pSlot): the
  ** usual open, get one dataset, read, close costs no allocation for the object. A handle
  ** closed while that object is open is freed when the object closes. */
  void *pSlot;
  uint8_t slotUsed, closed;
};
#define H5_OBJ_SLOT 8192u

struct cairn_h5_obj {
  cairn_h5 *h;
  int kind;
  char *zPath;
  H5Ohdr o;
  H5Dset *pD;        /* datasets (allocated only for them: the pipeline is large) */
  H5Type *pType;     /* committed datatypes (datasets use d.pType) */
  H5Attr attr;       /* attributes (own copy) */
  H5Link *aLink;
  size_t nLink;
  int linksLoaded;
  H5Attr *aAttr;
  size_t nAttr;
  int attrsLoaded;
  cairn_h5_filter *aFilt;
  uint8_t attrOwn;    /* attributes: attr.pType owned; 1: attr.pData too, 2: it is in this block */
  uint8_t pathInline; /* zPath lives in this object's allocation */
  uint8_t dsetInline; /* so does pD */
  uint8_t inSlot;     /* the allocation is the handle's object slot */
};

struct H5AddrPath {
  uint64_t addr;
  char *zPath;
};

static inline char *cairnH5DupStr(const char *z) {
  size_t n = strlen(z);
  char *r = cairnMalloc(n + 1);
  if (r) memcpy(r, z, n + 1);
  return r;
}
/* From the message types present (o->typeMask): a layout makes a dataset; a symbol table, link
** info, link or group info message a group; a datatype without a dataspace a committed type. */
static inline int cairnH5ObjKind(const H5Ohdr *o) {
  uint32_t m = o->typeMask;
  if (m & (1u << H5_MSG_LAYOUT)) return CAIRN_H5_DATASET;
  if (m & ((1u << H5_MSG_SYMTAB) | (1u << H5_MSG_LINKINFO) | (1u << H5_MSG_LINK) | (1u << H5_MSG_GROUPINFO))) return CAIRN_H5_GROUP;
  if ((m & (1u << H5_MSG_DATATYPE)) && !(m & (1u << H5_MSG_DATASPACE))) return CAIRN_H5_DATATYPE;
  return CAIRN_H5_GROUP;
}
/* The datatype of a dataset, attribute or committed datatype (NULL for groups), and the
** dataspace of a dataset or attribute (NULL otherwise). */
static inline const H5Type *cairnH5ObjTypeOf(cairn_h5_obj *o) {
  return o->kind == CAIRN_H5_DATASET ? o->pD->pType : o->kind == CAIRN_H5_ATTRIBUTE ? o->attr.pType : o->pType;
}
static inline const H5Space *cairnH5ObjSpace(cairn_h5_obj *o) {
  return o->kind == CAIRN_H5_DATASET ? &o->pD->space : o->kind == CAIRN_H5_ATTRIBUTE ? &o->attr.space : NULL;
}

/* One attribute as cairnH5ObjAttrEach shows it: pointers into the object (valid during the call). */
typedef struct H5AttrView {
  const char *zName;    /* NUL-terminated */
  const H5Type *pType;  /* NULL: did not decode (only the name is set) */
  const H5Space *pSpace; /* kind, rank, aDim[0..rank), nElem (not aMax, nor past the rank) */
  const uint8_t *pData; /* raw values in the file's layout, nData bytes */
  size_t nData;
} H5AttrView;
/* Visit every attribute of o (none for an attribute) in name order, decoded without copying
** (cairnH5AttrPeek): x gets its index and the view. A nonzero return of x stops the walk and is
** returned; so is running out of memory. For the bulk attribute block (r_bulk.c). */
int cairnH5ObjAttrEach(cairn_h5_obj *o, int (*x)(void *, size_t, const H5AttrView *), void *pArg);

/* The JSON description of t appended to s, or as a new text (*pz, cairnFree) (r_conv.c). */
void cairnH5TypeJsonSb(CairnSb *s, const H5Type *t);
int cairnH5TypeJson(const H5Type *t, char **pz, size_t *pn);
/* n elements (raw file layout, type t) shaped by aShape[0..rank) as nested JSON arrays (*pz,
** cairnFree); object references become paths through xRefPath (r_conv.c). */
int cairnH5Json(H5File *f, const H5Type *t, const uint8_t *p, uint32_t rank, const uint64_t *aShape,
                const char *(*xRefPath)(H5File *, uint64_t), char **pz, size_t *pn);
/* The name of a pipeline filter, as the info structure shows it (r_filter.c). */
const char *cairnH5FilterName(const H5Filter *fl);

#endif
