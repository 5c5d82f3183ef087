/*
** 2026-12-02
**
** core/h5/w_commit.c - the HDF5 writer's transactions: the crash-safe commit (core/h5/WRITER.md):
** every changed header goes to space the committed state does not use, then sync, then one
** 48-byte superblock write at offset 0 switches root and end of file, then sync; create, open
** (superblock, free-space reclaim), close and discard; and cairn_h5w_verify.
*/
#include "h5/h5w.h"

#include <stdlib.h> /* qsort */

/* ---------------------------------------------------------------- commit */
static int commitObj(cairn_h5w *w, H5wObj *o) {
  if (o->bSubDirty) {
    for (int i = 0; i < o->nLink; i++) {
      H5wObj *c = o->aLink[i].pObj;
      if (c && (c->bDirty || c->bSubDirty)) {
        uint64_t old = c->addr;
        CAIRN_TRY(commitObj(w, c));
        if (c->addr != old) o->bDirty = 1, cairnH5wDenseMoved(o, i);
      }
    }
    o->bSubDirty = 0;
  }
  if (o->pDset) CAIRN_TRY(cairnH5wDsetFlush(w, o));
  if (!o->bDirty) return CAIRN_OK;
  if (o->bGroup) CAIRN_TRY(cairnH5wDenseCommit(w, o));
  uint8_t *p = NULL;
  size_t n = 0;
  CAIRN_TRY(cairnH5wOhEncode(o, &p, &n));
  uint64_t addr;
  int rc = cairnH5wAlloc(w, n, &addr);
  if (!rc) rc = cairnH5wWrite(w, p, n, addr);
  cairnFree(p);
  if (rc) return cairnH5wFail(w, rc);
  cairnH5wFree(w, o->addr, o->nDisk, 1);
  for (int k = 0; k < o->nExtra; k++) cairnH5wFree(w, o->aExtra[2 * k], o->aExtra[2 * k + 1], 1);
  o->nExtra = 0;
  o->addr = addr;
  o->nDisk = n;
  o->bDirty = 0;
  return CAIRN_OK;
}

static void sbEncode(cairn_h5w *w, uint8_t *p, uint64_t eof, uint64_t root, uint64_t ext) {
  memcpy(p, H5_SIGNATURE, H5_SIGNATURE_LEN);
  p[8] = (uint8_t)w->sbVersion;
  p[9] = 8;
  p[10] = 8;
  p[11] = 0; /* consistency flags: nobody has it open for writing (v3 locking) */
  cairnPutLE64(p + 12, 0);
  cairnPutLE64(p + 20, ext);
  cairnPutLE64(p + 28, eof);
  cairnPutLE64(p + 36, root);
  cairnH5ChecksumPut(p, 44);
}

static int doSync(cairn_h5w *w) {
  CAIRN_TRY(cairnH5wFlush(w));
  if (w->bNoSync) return CAIRN_OK;
  int rc = cairn_file_sync(w->f);
  return rc ? cairnH5wFail(w, rc) : CAIRN_OK;
}

static uint64_t gSbExt(cairn_h5w *w);

/* Make everything written so far durable (flush + sync) and, with bExtend, switch to a
** superblock that changes nothing but the end of file: the committed state stays the same tree
** and only grows to cover what this transaction allocated so far. Used before a dense group's
** heap header is rewritten in place to name new heap blocks (w_dense.c): those blocks must be
** durable, and inside the committed file, before the header can point at them. */
int cairnH5wSbExtend(cairn_h5w *w, int bExtend) {
  if (bExtend && w->pRoot->addr == H5_UNDEF) return cairnErr(CAIRN_MISUSE, "end-of-file switch before the first commit");
  CAIRN_TRY(cairnH5wFlush(w));
  if (bExtend && w->nFileSize < w->eoa) {
    int rc = cairn_file_truncate(w->f, w->eoa);
    if (rc) return cairnH5wFail(w, rc);
    w->nFileSize = w->eoa;
  }
  CAIRN_TRY(doSync(w));
  if (!bExtend) return CAIRN_OK;
  uint8_t sb[H5W_SB_SIZE];
  sbEncode(w, sb, w->eoa, w->pRoot->addr, gSbExt(w));
  w->st.nWrite++;
  int rc = cairn_file_write(w->f, sb, sizeof sb, 0);
  if (rc) return cairnH5wFail(w, rc);
  CAIRN_TRY(doSync(w));
  w->eofCommitted = w->eoa;
  return CAIRN_OK;
}

int cairn_h5w_commit(cairn_h5w *w) {
  if (!w) return cairnErr(CAIRN_MISUSE, "cairn_h5w_commit: NULL writer");
  if (w->rcFatal) return cairnErr(w->rcFatal, "cairn_h5w_commit: the writer failed earlier; the file holds the last commit");
  if (w->bReadOnly || !w->bChanged) return CAIRN_OK;
  /* 1. everything new goes to space the committed state does not use */
  CAIRN_TRY(cairnH5wTailTake(w)); /* CAIRN_H5W_TAIL: the new end of file covers the caller's tail */
  CAIRN_TRY(commitObj(w, w->pRoot));
  CAIRN_TRY(cairnH5wHeapFlush(w));
  /* 2. the new end of file: drop free space at the tail (old versions freed by this commit
  ** count as free for the NEW state) */
  uint64_t eoa = w->eoa;
  for (;;) {
    int moved = 0;
    if (w->nFree && w->aFree[w->nFree - 1].addr + w->aFree[w->nFree - 1].n == eoa) {
      eoa = w->aFree[w->nFree - 1].addr;
      moved = 1;
    }
    for (int i = 0; i < w->nPend; i++)
      if (w->aPend[i].n && w->aPend[i].addr + w->aPend[i].n == eoa) eoa = w->aPend[i].addr, moved = 1;
    if (!moved) break;
  }
  if (w->nFileSize < eoa) {
    CAIRN_TRY(cairnH5wFlush(w));
    int rc = cairn_file_truncate(w->f, eoa);
    if (rc) return cairnH5wFail(w, rc);
    w->nFileSize = eoa;
  }
  if (!w->bNoSync) CAIRN_TRY(doSync(w)); /* flush + sync: everything new is durable */
  /* 3. the switch: one 48-byte write inside the first sector */
  uint8_t sb[H5W_SB_SIZE];
  sbEncode(w, sb, eoa, w->pRoot->addr, gSbExt(w));
  w->st.nWrite++;
  int rcSb;
  if (w->bNoSync && w->nWbuf && w->wbufAddr == H5W_SB_SIZE) {
    /* nothing orders these writes without syncs anyway: one call for the superblock and the
    ** new structures right after it (a fresh file's first commit) */
    memcpy(w->pWbuf - H5W_SB_SIZE, sb, H5W_SB_SIZE);
    size_t n = w->nWbuf + H5W_SB_SIZE;
    w->nWbuf = 0;
    rcSb = cairn_file_write(w->f, w->pWbuf - H5W_SB_SIZE, n, 0);
  } else {
    CAIRN_TRY(cairnH5wFlush(w));
    rcSb = cairn_file_write(w->f, sb, sizeof sb, 0);
  }
  if (rcSb) return cairnH5wFail(w, rcSb);
  CAIRN_TRY(doSync(w));
  /* 4. committed: old versions are free now, unless readers may still read them (an older
  ** state: held until a commit finds no reader); give back the tail */
  const int bReaders = cairnH5wReaders(w);
  void (*put)(cairn_h5w *, uint64_t, uint64_t) = bReaders ? cairnH5wHold : cairnH5wFreeInsert;
  for (int i = 0; i < w->nPend; i++) put(w, w->aPend[i].addr, w->aPend[i].n);
  w->nPend = 0;
  for (int i = 0; i < w->nTailPend; i++) put(w, w->aTailPend[i].addr, w->aTailPend[i].n);
  w->nTailPend = 0;
  while (w->nFree && w->aFree[w->nFree - 1].addr + w->aFree[w->nFree - 1].n >= eoa) {
    H5wExt *e = &w->aFree[w->nFree - 1];
    if (e->addr >= eoa) w->nFree--;
    else {
      e->n = eoa - e->addr;
      break;
    }
  }
  w->eoa = eoa > w->heldEnd ? eoa : w->heldEnd;
  w->eofCommitted = eoa;
  if (!bReaders && w->nFileSize > eoa) {
    /* Shrinking after the switch is safe: nothing committed lives there. A failure only
    ** leaves a longer file, which every reader accepts. */
    if (cairn_file_truncate(w->f, eoa) == CAIRN_OK) w->nFileSize = eoa;
  }
  w->bChanged = 0;
  w->txn++;
  w->st.nCommit++;
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- create/open/close */
static uint64_t gSbExt(cairn_h5w *w) { return w->sbExt; }

static void writerFree(cairn_h5w *w) {
  if (!w) return;
  cairnH5wObjFree(w->pRoot);
  cairnFree(w->aFree);
  cairnFree(w->aUsed);
  cairnFree(w->aColl);
  cairnFree(w->aPend);
  cairnFree(w->aHeld);
  cairnFree(w->aTailPend);
  cairnFree(w->pHeap);
  if (w->pWbuf) cairnFree(w->pWbuf - H5W_SB_SIZE);
  cairnH5wHeapCacheClear(w);
  cairnFree(w);
}

int cairn_h5w_create(cairn_file *f, unsigned flags, cairn_h5w **ppW) {
  if (!f || !ppW) return cairnErr(CAIRN_MISUSE, "cairn_h5w_create: NULL argument");
  *ppW = NULL;
  if (flags & CAIRN_H5W_READONLY) return cairnErr(CAIRN_MISUSE, "cairn_h5w_create: read-only create");
  /* the writer's lock before anything is read or overwritten (cairn/host.h "Locking") */
  CAIRN_TRY(cairn_file_lock(f, CAIRN_LOCK_WRITE, CAIRN_LOCK_DEFAULT_TIMEOUT));
  cairn_h5w *w = cairnMallocZero(sizeof *w);
  if (!w) return cairnErr(CAIRN_NOMEM, "cairn_h5w_create: out of memory");
  w->f = f;
  w->bNoSync = (flags & CAIRN_H5W_NOSYNC) != 0;
  w->sbVersion = 2;
  w->sbExt = H5_UNDEF;
  w->eoa = H5W_SB_SIZE;
  w->txn = 1;
  w->bRefScanned = 1; /* a new file holds no references (the writer writes none) */
  w->gcAddr = H5_UNDEF;
  uint64_t size = 0;
  int rc = cairn_file_size(f, &size);
  /* The old content is not truncated away here but overwritten, and whatever lies past the
  ** new end of file is cut off by the first commit: overwriting cached pages in place is
  ** several times cheaper than freeing them and allocating new ones (4 MiB on ext4: 0.17 ms
  ** against 0.65 ms cut to 1 byte, 2.3 ms truncated to 0, which also starts a writeback on
  ** close: auto_da_alloc). Until that commit the file must not open as its old self, so every
  ** place a reader looks for the superblock signature (0, 512, 1024, 2048, ...) is zeroed now. */
  /* replacing a file readers have open would change what they read under them */
  if (!rc && size && cairn_file_no_readers(f) != CAIRN_OK)
    rc = cairnErr(CAIRN_BUSY, "cairn_h5w_create: %s: readers have the file open; it is not replaced under them", cairn_errmsg());
  if (!rc && size) {
    static const uint8_t kZero[2048 + 8];
    rc = cairn_file_write(f, kZero, size < sizeof kZero ? (size_t)size : sizeof kZero, 0);
    for (uint64_t at = 4096; !rc && at < size; at *= 2) rc = cairn_file_write(f, kZero, size - at < 8 ? (size_t)(size - at) : 8, at);
    w->nFileSize = size;
  }
  if (!rc && !(w->pRoot = cairnH5wObjNew(NULL))) rc = cairnErr(CAIRN_NOMEM, "cairn_h5w_create: out of memory");
  if (!rc) rc = cairnH5wGroupInitMsgs(w->pRoot);
  if (!rc) {
    cairnH5wObjDirty(w->pRoot);
    w->bChanged = 1;
  }
  if (rc) {
    writerFree(w);
    return rc;
  }
  *ppW = w;
  return CAIRN_OK;
}

/* Walk everything the committed state references (the verify walk) and make every gap in
** [48, eof) free. Any structure the walk cannot account for (dense storage, v4 layouts, shared
** messages, a superblock extension...) and any error leave the free list empty: the writer
** then only appends, which is always safe. */
static int cmpExt(const void *a, const void *b) {
  const H5wExt *x = a, *y = b;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}
void cairnH5wReclaimFree(cairn_h5w *w) {
  uint8_t d[32];
  w->bCollect = 1;
  w->bUnsafe = w->sbExt != H5_UNDEF;
  w->bHasRefs = 0;
  int rc = cairn_h5w_verify(w, d);
  w->bCollect = 0;
  if (rc == CAIRN_OK && !w->bSharedSeen) w->bRefScanned = 1; /* the walk saw every type */
  if (rc == CAIRN_OK && !w->bUnsafe) {
    qsort(w->aUsed, (size_t)w->nUsed, sizeof(H5wExt), cmpExt);
    uint64_t end = H5W_SB_SIZE;
    for (int i = 0; i < w->nUsed; i++) {
      const H5wExt *e = &w->aUsed[i];
      if (e->addr < H5W_SB_SIZE || e->addr + e->n > w->eofCommitted) {
        w->nFree = 0; /* something points outside the file: trust nothing */
        break;
      }
      if (e->addr > end) cairnH5wFreeInsert(w, end, e->addr - end);
      if (e->addr + e->n > end) end = e->addr + e->n;
    }
    if (end < w->eofCommitted) cairnH5wFreeInsert(w, end, w->eofCommitted - end);
  }
  cairn_clearerr();
  cairnFree(w->aUsed);
  w->aUsed = NULL;
  w->nUsed = w->nUsedAlloc = 0;
}

/* A read-only host file takes a reader's lock (its first write then fails, as it always did). */
static int writerLock(cairn_file *f, unsigned flags) {
  int rc = CAIRN_READONLY;
  if (!(flags & CAIRN_H5W_READONLY)) rc = cairn_file_lock(f, CAIRN_LOCK_WRITE, CAIRN_LOCK_DEFAULT_TIMEOUT);
  if (rc != CAIRN_READONLY) return rc;
  cairn_clearerr();
  return cairn_file_lock(f, CAIRN_LOCK_READ, CAIRN_LOCK_DEFAULT_TIMEOUT);
}

int cairn_h5w_open(cairn_file *f, unsigned flags, cairn_h5w **ppW) {
  if (!f || !ppW) return cairnErr(CAIRN_MISUSE, "cairn_h5w_open: NULL argument");
  *ppW = NULL;
  uint8_t sb[H5W_SB_SIZE];
  uint64_t size;
  /* The lock first, then the committed state as it is now: a writer that waited for another
  ** reads that one's commits (cairn/host.h "Locking"). READONLY reads: a reader's lock. */
  CAIRN_TRY(writerLock(f, flags));
  CAIRN_TRY(cairn_file_size(f, &size));
  if (size < H5W_SB_SIZE) return cairnErr(CAIRN_CORRUPT, "not an HDF5 file: %llu bytes", (unsigned long long)size);
  CAIRN_TRY(cairn_file_read_exact(f, sb, sizeof sb, 0));
  if (memcmp(sb, H5_SIGNATURE, H5_SIGNATURE_LEN) != 0) return cairnErr(CAIRN_CORRUPT, "no HDF5 signature at offset 0 (user blocks are not supported)");
  if (sb[8] > 3) return cairnErr(CAIRN_UNSUPPORTED, "superblock version %d", sb[8]);
  uint64_t eof, root, ext = H5_UNDEF;
  if (sb[8] < 2) {
    /* versions 0/1 (libver earliest): the first commit replaces them by version 2, which can
    ** only say the default B-tree K values, so files with others are refused */
    uint8_t v[100];
    CAIRN_TRY(cairn_file_read_exact(f, v, sb[8] ? 100 : 96, 0));
    if (v[13] != 8 || v[14] != 8) return cairnErr(CAIRN_UNSUPPORTED, "offsets of %d bytes, lengths of %d", v[13], v[14]);
    unsigned leafK = cairnGetLE16(v + 16), nodeK = cairnGetLE16(v + 18), istoreK = sb[8] ? cairnGetLE16(v + 24) : 32;
    size_t o = sb[8] ? 28 : 24;
    if (leafK != 4 || nodeK != 16 || istoreK != 32)
      return cairnErr(CAIRN_UNSUPPORTED, "B-tree K values %u/%u/%u (only the defaults 4/16/32 can be kept)", leafK, nodeK, istoreK);
    if (cairnGetLE64(v + o) != 0) return cairnErr(CAIRN_UNSUPPORTED, "base address %llu", (unsigned long long)cairnGetLE64(v + o));
    if (cairnGetLE64(v + o + 24) != H5_UNDEF) return cairnErr(CAIRN_UNSUPPORTED, "a driver information block (multi/family files)");
    eof = cairnGetLE64(v + o + 16);
    root = cairnGetLE64(v + o + 40);
  } else {
    if (sb[9] != 8 || sb[10] != 8) return cairnErr(CAIRN_UNSUPPORTED, "offsets of %d bytes, lengths of %d", sb[9], sb[10]);
    if (!cairnH5ChecksumOk(sb, 44)) return cairnErr(CAIRN_CHECKSUM, "superblock checksum mismatch");
    if (cairnGetLE64(sb + 12) != 0) return cairnErr(CAIRN_UNSUPPORTED, "base address %llu", (unsigned long long)cairnGetLE64(sb + 12));
    eof = cairnGetLE64(sb + 28);
    root = cairnGetLE64(sb + 36);
    ext = cairnGetLE64(sb + 20);
  }
  if (eof > size) return cairnErr(CAIRN_CORRUPT, "file truncated: end of file %llu, size %llu", (unsigned long long)eof, (unsigned long long)size);
  if (root >= eof) return cairnErr(CAIRN_CORRUPT, "root group address %llu past end of file %llu", (unsigned long long)root, (unsigned long long)eof);
  cairn_h5w *w = cairnMallocZero(sizeof *w);
  if (!w) return cairnErr(CAIRN_NOMEM, "cairn_h5w_open: out of memory");
  w->f = f;
  w->bReadOnly = (flags & CAIRN_H5W_READONLY) != 0;
  w->bNoSync = (flags & CAIRN_H5W_NOSYNC) != 0;
  w->bTail = (flags & CAIRN_H5W_TAIL) != 0;
  w->sbVersion = sb[8] < 2 ? 2 : sb[8];
  w->sbExt = ext;
  w->eoa = w->eofCommitted = eof;
  w->gcAddr = H5_UNDEF;
  w->txn = 1;
  w->nFileSize = size;
  int rc = CAIRN_OK;
  if (ext != H5_UNDEF) {
    /* The superblock extension may hold non-default B-tree K values (message 0x13): chunk
    ** B-tree nodes written with K = 32 would then be misread, so chunked writes are refused. */
    H5wObj *x = NULL;
    rc = cairnH5wOhLoad(w, ext, NULL, &x);
    for (int i = 0; !rc && i < x->nMsg; i++)
      if (x->aMsg[i].type == H5_MSG_BTREEK && x->aMsg[i].n >= 3 && cairnGetLE16(x->aMsg[i].p + 1) != 32) w->bBadK = 1;
    cairnH5wObjFree(x);
    if (rc) rc = cairnErr(CAIRN_UNSUPPORTED, "superblock extension at %llu: %s", (unsigned long long)ext, cairn_errmsg());
  }
  if (!rc) rc = cairnH5wOhLoad(w, root, NULL, &w->pRoot);
  if (!rc && !(w->pRoot->zPath = cairnMalloc(2))) rc = cairnErr(CAIRN_NOMEM, "out of memory");
  if (!rc) memcpy(w->pRoot->zPath, "/", 2);
  if (!rc && !w->pRoot->bGroup) rc = cairnErr(CAIRN_CORRUPT, "the root object at %llu is not a group", (unsigned long long)root);
  if (!rc && (flags & CAIRN_H5W_RECLAIM) && !w->bReadOnly) cairnH5wReclaimFree(w);
  if (!rc && !w->bReadOnly && cairnH5wReaders(w)) {
    /* Readers are there: what the walk found free and the bytes past the committed end (a
    ** crash's, or held by the last session for its readers) may be what they read: held. */
    for (int i = 0; i < w->nFree; i++) cairnH5wHold(w, w->aFree[i].addr, w->aFree[i].n);
    w->nFree = 0;
    if (!w->bTail && size > eof) {
      cairnH5wHold(w, eof, size - eof);
      w->eoa = size;
    }
  }
  if (rc) {
    writerFree(w);
    return rc;
  }
  *ppW = w;
  return CAIRN_OK;
}

int cairn_h5w_close(cairn_h5w *w) {
  if (!w) return CAIRN_OK;
  int rc = w->rcFatal ? cairnErr(w->rcFatal, "cairn_h5w_close: not committed: the writer failed earlier") : cairn_h5w_commit(w);
  writerFree(w);
  return rc;
}

void cairn_h5w_discard(cairn_h5w *w) { writerFree(w); }

int cairn_h5w_stats_get(cairn_h5w *w, cairn_h5w_stats *p) {
  if (!w || !p) return cairnErr(CAIRN_MISUSE, "cairn_h5w_stats_get: NULL argument");
  *p = w->st;
  p->nEof = w->eofCommitted;
  p->nFree = 0;
  for (int i = 0; i < w->nFree; i++) p->nFree += w->aFree[i].n;
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- verify */
/* Digest of the logical content (names, messages without file addresses, decoded data and
** strings), checking every checksum and decoding every chunk on the way. Two files that hold
** the same objects have the same digest wherever their structures sit. */
static void hashU64(cairn_sha256_ctx *h, uint64_t v) {
  uint8_t b[8];
  cairnPutLE64(b, v);
  cairn_sha256_update(h, b, 8);
}

static int verifyObj(cairn_h5w *w, H5wObj *o, cairn_sha256_ctx *h, int depth, H5wSeen *seen) {
  if (depth > 100) return cairnErr(CAIRN_CORRUPT, "groups nested deeper than 100 (a cycle?)");
  cairnH5wUsed(w, o->addr, o->nDisk);
  for (int k = 0; k < o->nExtra; k++) cairnH5wUsed(w, o->aExtra[2 * k], o->aExtra[2 * k + 1]);
  if (o->bGroup) CAIRN_TRY(cairnH5wMaterializeLinks(w, o)); /* dense storage of ours: its extents are recorded */
  if (o->bDenseLinks || o->bDenseAttrs || o->bConverted) w->bUnsafe = 1;
  for (int i = 0; i < o->nMsg; i++) {
    const H5wMsg *m = &o->aMsg[i];
    /* shared messages, external data files, and layouts other than v3 point at space the
    ** walk does not account for */
    if ((m->flags & H5_MSGF_SHARED) || m->type == H5_MSG_EFL || m->type == H5_MSG_SHMESG) w->bUnsafe = 1;
    if ((m->flags & H5_MSGF_SHARED) && (m->type == H5_MSG_DATATYPE || m->type == H5_MSG_ATTR)) w->bSharedSeen = 1;
    if (m->type == H5_MSG_LAYOUT && (m->n < 1 || m->p[0] != 3)) w->bUnsafe = 1;
    if ((m->type == H5_MSG_DATATYPE) && cairnH5wTypeMayHideVlen(m->p, m->n)) w->bUnsafe = 1;
    if (m->type == H5_MSG_DATATYPE && cairnH5wTypeMayHoldRef(m->p, m->n)) w->bHasRefs |= 1;
    if (m->type == H5_MSG_ATTR && m->n >= 8 && m->p[0] >= 1 && m->p[0] <= 3) {
      size_t nName = cairnGetLE16(m->p + 2), nType = cairnGetLE16(m->p + 4);
      size_t off = (m->p[0] == 3 ? 9 : 8) + (m->p[0] == 1 ? (nName + 7) & ~(size_t)7 : nName);
      if (off + nType <= m->n && cairnH5wTypeMayHoldRef(m->p + off, nType)) w->bHasRefs |= 1;
    }
  }
  for (int i = 0; i < o->nMsg; i++) {
    const H5wMsg *m = &o->aMsg[i];
    uint8_t t[2] = {m->type, m->flags};
    cairn_sha256_update(h, t, 2);
    if (m->type == H5_MSG_LAYOUT && o->pDset && o->pDset->layout <= 0) {
      cairn_sha256_update(h, m->p, m->n);
    } else if (m->type == H5_MSG_LAYOUT) {
      if (m->n >= 2 && m->p[0] == 3 && m->p[1] == 1 && m->n >= 18) hashU64(h, cairnGetLE64(m->p + 10));
      else if (m->n >= 11 && m->p[0] == 3 && m->p[1] == 2) cairn_sha256_update(h, m->p + 11, m->n - 11);
      else cairn_sha256_update(h, m->p, m->n);
    } else if (m->type == H5_MSG_ATTR) {
      CAIRN_TRY(cairnH5wAttrDigest(w, m, h));
    } else if (m->type == H5_MSG_LINKINFO) {
      cairn_sha256_update(h, m->p, m->n < 2 ? m->n : 2); /* not the heap and B-tree addresses */
    } else cairn_sha256_update(h, m->p, m->n);
  }
  if (o->pDset) CAIRN_TRY(cairnH5wDsetDigest(w, o, h));
  for (int i = 0; i < o->nLink; i++) {
    H5wLink *l = &o->aLink[i];
    cairn_sha256_update(h, l->zName, strlen(l->zName) + 1);
    if (l->addr == H5_UNDEF && !l->pObj) {
      cairn_sha256_update(h, l->raw.p, l->raw.n);
      continue;
    }
    int isNew = cairnH5wSeenAdd(seen, l->pObj ? l->pObj->addr : l->addr);
    if (isNew < 0) return cairnErr(CAIRN_NOMEM, "verify: out of memory");
    if (!isNew) continue; /* already walked through another link */
    H5wObj *c;
    CAIRN_TRY(cairnH5wLinkObj(w, o, i, &c));
    CAIRN_TRY(verifyObj(w, c, h, depth + 1, seen));
  }
  return CAIRN_OK;
}

int cairn_h5w_verify(cairn_h5w *w, uint8_t aDigest[32]) {
  if (!w || !aDigest) return cairnErr(CAIRN_MISUSE, "cairn_h5w_verify: NULL argument");
  cairn_sha256_ctx h;
  cairn_sha256_init(&h);
  H5wSeen seen = {NULL, 0, 0};
  int rc = cairnH5wSeenAdd(&seen, w->pRoot->addr) < 0 ? cairnErr(CAIRN_NOMEM, "verify: out of memory") : verifyObj(w, w->pRoot, &h, 0, &seen);
  cairnFree(seen.a);
  cairnH5wHeapCacheClear(w);
  cairn_sha256_final(&h, aDigest);
  return rc;
}
