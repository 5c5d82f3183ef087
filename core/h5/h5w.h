/*
** 2026-11-29
**
** core/h5/h5w.h - internals of the HDF5 writer (core/h5/w_*.c). The file format is the HDF5
** File Format Specification 3.0; the commit protocol is described in core/h5/WRITER.md.
**
** In memory the writer keeps a tree of the object headers it has touched (H5wObj), each as a
** list of raw messages. Nothing committed is ever overwritten in place except the superblock:
** a changed header is written to new space at commit, which changes its address, so its parent
** is rewritten too, up to the root, whose address goes into the superblock.
*/
#ifndef CAIRN_H5W_INT_H
#define CAIRN_H5W_INT_H

#include "cairn/h5.h"
#include "cairn/h5w.h"
#include "h5/format.h"

#define H5W_SB_SIZE 48u

struct cairn_h5w_type {
  int cls;        /* H5T_* (format.h): the classes the writer makes */
  size_t size;    /* bytes per element in the file (16 for vlen) */
  size_t memSize; /* bytes per element in memory (sizeof(char*) for vlen strings) */
  uint8_t *aEnc;  /* the datatype message body */
  size_t nEnc;
  int nMember;    /* compound/enum members so far */
  size_t nBaseSize; /* enum: base size */
  uint8_t *aNames; size_t nNames;   /* enum: names (NUL-terminated), values after */
  uint8_t *aValues; size_t nValues;
  int bHasVlen;
  int vlenKind;   /* 1 string, 0 sequence */
  size_t vlenUnit; /* bytes per counted unit: 1 for strings, the base size for sequences */
};

typedef struct H5wMsg {
  uint8_t type, flags;
  uint16_t crt; /* creation order (kept when the header tracks it) */
  uint32_t n;
  uint8_t *p;
} H5wMsg;

typedef struct H5wObj H5wObj;
typedef struct H5wDset H5wDset;

typedef struct H5wLink {
  char *zName;
  uint64_t addr;  /* hard link target as committed (H5_UNDEF for other link types) */
  H5wObj *pObj;   /* loaded target, or NULL */
  H5wMsg raw;     /* soft/external links: the original message, kept as is */
  /* dense storage (w_dense.c): where its link message sits in the group's fractal heap */
  uint32_t hash;     /* lookup3 of the name (the name index key) */
  uint32_t hidLen;   /* length of the stored message (0 = not stored yet) */
  uint64_t hidOff;   /* its heap offset */
  uint64_t hidTarget; /* the address that stored message holds (hard links) */
} H5wLink;

typedef struct H5wDense H5wDense;

struct H5wObj {
  H5wObj *pParent;
  uint64_t addr;     /* where the committed header lives (H5_UNDEF if never committed) */
  uint64_t nDisk;    /* its size there */
  uint64_t aExtra[2 * 16]; int nExtra; /* continuation chunks of a loaded header (addr, size) */
  int bDirty;        /* header must be rewritten */
  int bSubDirty;     /* something below must be rewritten */
  int bGroup;
  uint8_t ohFlags;   /* header flags kept from a loaded header (bit 2: creation order) */
  int bDenseLinks, bDenseAttrs; /* links/attributes not in the header (symbol table or fractal heap) */
  int bConverted;    /* links read from such storage into aLink (the file still uses it until rewritten) */
  char *zPath;       /* path in the committed file (loaded objects), for the reader */
  H5wMsg *aMsg; int nMsg, nMsgAlloc;
  /* group: links (hard links also serialized from here) */
  H5wLink *aLink; int nLink, nLinkAlloc;
  int *aHash; int nHash; /* open addressing over aLink indices (+1), nHash a power of two */
  int nBigLink;      /* links whose message is too large for dense storage (the group stays compact) */
  H5wDense *pDense;  /* links written in dense storage (fractal heap + v2 B-tree), see w_dense.c */
  H5wDset *pDset;
};

/* A chunk of a chunked dataset (v1 B-tree record). */
typedef struct H5wChunk {
  uint64_t addr;
  uint32_t nByte, mask;
  uint32_t gen;      /* transaction that wrote it (free at once if replaced in the same one) */
  uint64_t aOff[CAIRN_H5W_MAXRANK]; /* element offsets */
} H5wChunk;

typedef struct H5wNode { uint64_t addr; uint32_t gen; } H5wNode;

typedef struct H5wFilter { uint16_t id, flags; int nCd; uint32_t aCd[8]; } H5wFilter;

struct H5wDset {
  int rank;
  uint64_t aDim[CAIRN_H5W_MAXRANK], aMax[CAIRN_H5W_MAXRANK], aChunk[CAIRN_H5W_MAXRANK];
  size_t elSize;     /* file element size */
  int layout;        /* CAIRN_H5W_COMPACT/CONTIGUOUS/CHUNKED */
  int bVlen;         /* variable-length elements (16 bytes in the file) */
  int bShared;       /* shared dataspace/datatype/... messages: attributes editable, data not */
  int vlenKind; size_t vlenUnit; /* as in cairn_h5w_type */
  int iSpaceMsg, iLayoutMsg; /* indices in the object's aMsg */
  uint64_t contigAddr, contigSize; uint32_t contigGen; /* contiguous storage, transaction that wrote it */
  uint8_t *pFill;    /* one element (file form) */
  H5wFilter aFilter[8]; int nFilter;
  /* chunked: records sorted by offset, B-tree nodes level by level */
  H5wChunk *aRec; uint64_t nRec, nRecAlloc;
  int bIndexLoaded;  /* aRec/aLevel reflect the file */
  H5wNode *aLevel[8]; uint64_t nLevel[8], nLevelAlloc[8]; int nLevels;
  uint64_t btreeAddr; uint64_t btreeSize; /* root (as in the layout message) */
  int bIndexDirty, bIndexWritten, bShapeDirty;
  uint64_t *aOldNode; uint64_t nOldNode; /* nodes of a loaded tree not packed our way: freed when it is rewritten */
  uint64_t iDirtyFrom; /* first record index changed since the last commit */
  /* the tail: rows [tailRow0, aDim[0]) not yet written as complete chunks */
  uint8_t *pTail; uint64_t tailRow0; size_t nTailAlloc; int bTailDirty;
};

typedef struct H5wExt { uint64_t addr, n; } H5wExt;

struct cairn_h5w {
  cairn_file *f;
  int bReadOnly, bNoSync;
  int bTail;          /* CAIRN_H5W_TAIL: the caller appends its own bytes past the committed end */
  uint32_t tailTxn;   /* transaction whose start took the caller's tail (0 = none yet) */
  H5wExt *aTailPend; int nTailPend, nTailPendAlloc; /* the caller's tail: free once the commit is durable */
  int rcFatal;        /* sticky error after a failed write */
  uint64_t eoa;       /* allocation high-water mark */
  uint64_t eofCommitted;
  uint64_t nFileSize; /* current size of the host file as far as we know */
  H5wExt *aFree; int nFree, nFreeAlloc;       /* free in the committed state: reusable now */
  H5wExt *aPend; int nPend, nPendAlloc;       /* freed in this transaction: reusable after commit */
  /* freed by a commit while readers had the file open (they may read an older state): kept,
  ** neither reused nor cut off, until a commit finds no reader (WRITER.md, "Readers beside the
  ** writer"); heldEnd is the end of the last one, below which nothing is allocated at the tail */
  H5wExt *aHeld; int nHeld, nHeldAlloc;
  uint64_t heldEnd;
  H5wObj *pRoot;
  int sbVersion;
  uint64_t sbExt;     /* superblock extension address (kept from a loaded file) */
  int bBadK;          /* the extension sets a chunk B-tree K other than 32: no chunked writes */
  int bRefScanned, bHasRefs, bSharedSeen; /* object references found (1) in a scan of the file (see cairnH5wCheckRefs) */
  int bChanged;       /* anything to commit */
  int bSkipFill;      /* repack: a new contiguous dataset is written in full right after */
  int bChunkWise;     /* repack: a new chunked dataset is written chunk by chunk (cairnH5wChunkPut), so its
                      ** row block of chunks (what appends keep in memory) may exceed 1 GiB */
  uint32_t txn;       /* current transaction number (starts at 1; 0 = found in the file) */
  /* global heap collection being filled in this transaction */
  uint8_t *pGc; uint64_t gcAddr; size_t nGc; /* one global heap collection read back (verify) */
  /* heap collections this session made: live references, so a collection nothing uses any
  ** more (attributes overwritten or deleted) is freed like any other old version */
  struct H5wColl { uint64_t addr, size; uint32_t nLive, gen; int bOpen; } *aColl; int nColl, nCollAlloc;
  uint8_t *pHeap; uint64_t heapAddr; size_t nHeap, nHeapUsed; uint32_t heapNext;
  uint8_t *pWbuf; uint64_t wbufAddr; size_t nWbuf, wbufCap; /* write gathering (w_file.c) */
  /* space accounting of cairn_h5w_verify, used to find free space on open (CAIRN_H5W_RECLAIM) */
  H5wExt *aUsed; int nUsed, nUsedAlloc; int bCollect, bUnsafe;
  cairn_h5w_stats st;
};

/* w_file.c, w_path.c, w_commit.c and w_dset.c (the files are named in core/h5/WRITER.md) */
int cairnH5wAlloc(cairn_h5w *w, uint64_t n, uint64_t *pAddr);
void cairnH5wFree(cairn_h5w *w, uint64_t addr, uint64_t n, int bCommitted);
/* Space an older committed state may still be read from: held while readers are there. */
void cairnH5wHold(cairn_h5w *w, uint64_t addr, uint64_t n);
/* Are there readers beside this writer now? 0: none (held space becomes free), 1: some. */
int cairnH5wReaders(cairn_h5w *w);
int cairnH5wWrite(cairn_h5w *w, const void *p, size_t n, uint64_t addr);
int cairnH5wRead(cairn_h5w *w, void *p, size_t n, uint64_t addr);
int cairnH5wReadRows(cairn_h5_obj *d, unsigned rank, const uint64_t *dims, uint64_t r0, uint64_t nr, void *p, size_t nb);
int cairnH5wFlush(cairn_h5w *w);
void cairnH5wUsed(cairn_h5w *w, uint64_t addr, uint64_t n);
int cairnH5wTypeMayHideVlen(const uint8_t *p, size_t n);
int cairnH5wFail(cairn_h5w *w, int rc);
int cairnH5wObjAddMsg(H5wObj *o, uint8_t type, uint8_t flags, const uint8_t *p, size_t n);
int cairnH5wObjSetMsg(H5wObj *o, int i, const uint8_t *p, size_t n);
void cairnH5wObjDirty(H5wObj *o);
int cairnH5wLookup(cairn_h5w *w, const char *zPath, H5wObj **ppObj);
int cairnH5wCreateChild(cairn_h5w *w, const char *zPath, H5wObj **ppParent, const char **pzLeaf);
int cairnH5wLinkAdd(H5wObj *g, const char *zName, H5wObj *child);
int cairnH5wEnsureAinfo(H5wObj *o);
int cairnH5wCheckChain(H5wObj *o, const char *zPath);
int cairnH5wCheckRefs(cairn_h5w *w, const char *zPath);
int cairnH5wLinkObj(cairn_h5w *w, H5wObj *g, int iLink, H5wObj **pp);
int cairnH5wAttrDigest(cairn_h5w *w, const H5wMsg *m, cairn_sha256_ctx *h);
int cairnH5wDsetDigest(cairn_h5w *w, H5wObj *o, cairn_sha256_ctx *h);
void cairnH5wHeapCacheClear(cairn_h5w *w);
void cairnH5wAttrDropRefs(cairn_h5w *w, const H5wMsg *m);
int cairnH5wMaterializeAttrs(cairn_h5w *w, H5wObj *o); /* w_repack.c */
/* w_file.c, used by w_path.c and w_commit.c */
void cairnH5wFreeInsert(cairn_h5w *w, uint64_t addr, uint64_t n); /* free in the committed state */
int cairnH5wTailTake(cairn_h5w *w); /* CAIRN_H5W_TAIL: the caller's bytes past the end become used */
H5wObj *cairnH5wObjNew(H5wObj *pParent);
void cairnH5wObjFree(H5wObj *o);
void cairnH5wObjDelMsg(H5wObj *o, int i);
int cairnH5wLinkFind(H5wObj *g, const char *z, size_t n); /* index in g->aLink, -1 if none */
int cairnH5wLinkPush(H5wObj *g, const char *z, size_t n, uint64_t addr, H5wObj *pObj, const H5wMsg *pRaw);
int cairnH5wOhEncode(H5wObj *o, uint8_t **pp, size_t *pn); /* version 2, one chunk, new buffer */
int cairnH5wOhLoad(cairn_h5w *w, uint64_t addr, H5wObj *pParent, H5wObj **ppObj); /* version 1 or 2 */
/* w_path.c, used by w_commit.c */
int cairnH5wMaterializeLinks(cairn_h5w *w, H5wObj *g); /* links in other storage into aLink */
typedef struct H5wSeen { uint64_t *a; size_t n, cap; } H5wSeen; /* addresses visited by a walk */
int cairnH5wSeenAdd(H5wSeen *s, uint64_t addr); /* 1 if new, 0 if seen, -1 out of memory */
int cairnH5wTypeMayHoldRef(const uint8_t *p, size_t n); /* a datatype message that may hold references */
int cairnH5wGroupInitMsgs(H5wObj *g); /* a new group's Link Info and Group Info messages */
/* w_commit.c, used by w_file.c */
void cairnH5wReclaimFree(cairn_h5w *w); /* CAIRN_H5W_RECLAIM: gaps of the committed state become free */

/* w_dense.c */
#define H5W_DENSE_MAXMAN 4096u /* largest link message a dense heap takes */
#define H5W_DENSE_OVER 8 /* groups with more links are written dense (libhdf5's max_compact; 0 = never) */
int cairnH5wDenseCommit(cairn_h5w *w, H5wObj *g); /* before the group's header is encoded */
void cairnH5wDenseFree(cairn_h5w *w, H5wObj *g, int bRelease);
void cairnH5wDenseMoved(H5wObj *g, int iLink); /* commitObj: link iLink's target header moved */
size_t cairnH5wLinkMsgSize(const H5wLink *l);
void cairnH5wLinkMsgEncode(const H5wLink *l, uint64_t addr, uint8_t *p);
int cairnH5wSbExtend(cairn_h5w *w, int bExtend); /* w_file.c: sync, and with bExtend a superblock write that only moves the end of file */
int cairnH5wDenseLoad(cairn_h5w *w, H5wObj *g, uint64_t heapAddr, uint64_t btAddr);
int cairnH5wParseLink(H5wObj *g, const uint8_t *p, size_t n, uint64_t at); /* w_file.c */ /* w_file.c: a superblock write that only moves the end of file */

/* w_type.c */
int cairnH5wTypeEncode(const cairn_h5w_type *t, uint8_t **pp, size_t *pn);
int cairnH5wTypeInfo(const uint8_t *p, size_t n, int *pCls, size_t *pSize, int *pbVlen);
int cairnH5wEncodeSpace(uint8_t *p, int rank, const uint64_t *dims, const uint64_t *maxdims);
size_t cairnH5wSpaceSize(int rank, int bMax);

/* w_data.c */
static inline void cairnH5wHashU64(cairn_sha256_ctx *h, uint64_t v) {
  uint8_t b[8];
  cairnPutLE64(b, v);
  cairn_sha256_update(h, b, 8);
}
static inline uint64_t cairnH5wChunkElems(const H5wDset *d) { /* elements per chunk */
  uint64_t n = 1;
  for (int i = 0; i < d->rank; i++) n *= d->aChunk[i];
  return n;
}
static inline uint64_t cairnH5wRowElems(const H5wDset *d) { /* elements per row (dims 1..) */
  uint64_t n = 1;
  for (int i = 1; i < d->rank; i++) n *= d->aDim[i];
  return n;
}
#define H5W_NO_BLOCK UINT64_MAX /* no row block is the tail */
void cairnH5wFillPattern(const H5wDset *d, uint8_t *p, uint64_t nEl); /* nEl elements of the fill value */
int cairnH5wIndexLoad(cairn_h5w *w, H5wDset *d); /* the chunk B-tree into aRec/aLevel */
size_t cairnH5wLayoutSize(const H5wDset *d, size_t nCompact); /* bytes of the layout message */
int cairnH5wUpdateChunkedMsgs(H5wObj *o); /* dataspace and layout messages after a shape change */
/* Rows [row0, row0 + n) of p into the dataset (row blocks, chunks, contiguous or compact) */
int cairnH5wWriteRows(cairn_h5w *w, H5wDset *d, uint64_t row0, uint64_t n, const uint8_t *p);
/* repack: one whole chunk (file form, chunk-shaped; the parts past the dataset's edge already
** the fill value) at element offsets off[0..rank), filtered, written and indexed. Chunks never
** put stay unallocated (they read as the fill value). */
int cairnH5wChunkPut(cairn_h5w *w, H5wDset *d, const uint64_t *off, const uint8_t *p);
int cairnH5wDsetFlush(cairn_h5w *w, H5wObj *o); /* before the header is written at commit */
void cairnH5wDsetFree(H5wDset *d);
int cairnH5wHeapFlush(cairn_h5w *w);
int cairnH5wVlenToFile(cairn_h5w *w, int kind, size_t unit, const void *pMem, uint64_t n, uint8_t *pOut);
/* w_dset.c */
int cairnH5wDsetLoad(cairn_h5w *w, H5wObj *o);
/* w_type.c */
void cairnH5wVlenInfo(const uint8_t *p, size_t n, int *pKind, size_t *pUnit);

/* w_filter.c */
int cairnH5wFilterParse(const char *zSpec, size_t elSize, H5wFilter *a, int *pn, const char **pzErr);
int cairnH5wFilterApply(const H5wFilter *a, int n, const uint8_t *p, size_t nIn, uint8_t **ppOut, size_t *pnOut);
int cairnH5wFilterUndo(const H5wFilter *a, int n, uint32_t mask, const uint8_t *p, size_t nIn, uint8_t *pOut, size_t nOut);

#endif
