/*
** 2026-12-02
**
** core/mem/bm25_store.c - the BM25 index persisted in the store's HDF5 file, so that an open
** reads it instead of tokenizing every text again (FORMAT.md "The BM25 index").
**
** At every checkpoint the whole index of the checkpointed rows is written as one byte blob into
** the resizable dataset /memory/bm25 (Fletcher-32 chunks, like every dataset of the store), its
** length in /memory@bm25_bytes (the dataset is zero-padded to whole chunks). The blob:
**   header (64 bytes): "CAIRNBM1", u32 MEM_BM25_FMT, u32 terms, u64 documents (rows), u64 total
**     document length, u64 postings, u64 term bytes, 16 bytes zero
**   term bytes (padded to 8)
**   per term: u32 length, u32 postings, u32 largest tf, u32 shortest document
**   per row: u32 document length
**   postings: u32 row per posting (term by term, increasing rows), then u16 tf per posting
**     (padded to 4)
**   u32 CRC-32C of everything before it
** The blob is generic over what the index holds: it stores terms and postings, not how they were
** made. Maintenance reminder: when what cairnMemApplyAdd gives cairnBm25Add changes (another
** field indexed, another tokenizer), bump MEM_BM25_FMT: older blobs are then rebuilt, never used.
**
** On open the blob is read and checked (CRC, every length against the blob's size, every row
** number, postings increasing) before the rows are loaded; the rows it covers then skip the
** tokenizer (cairnMemApplyAdd adds only rows >= bm25.nDoc). Anything wrong with it - missing (a
** store of before this change), damaged, of another format, of another row count - and the index
** is built from the texts as before: a damaged blob costs time, never a wrong answer. Rows of the
** log after the checkpoint are indexed as they are replayed.
*/
#include "mem_int.h"
#include "cairn/h5.h"
#include "cairn/h5w.h"

#define BM25_MAGIC "CAIRNBM1"
#define BM25_HDR 64
#define BM25_CHUNK 65536 /* bytes per chunk of /memory/bm25 */

static size_t pad(size_t n, size_t a) { return (n + a - 1) / a * a; }

/* Bytes of the blob for these counts; 0 when they overflow. */
static uint64_t blobSize(uint64_t nTerm, uint64_t nDoc, uint64_t nPost, uint64_t nTermBytes) {
  if (nTerm > UINT32_MAX || nDoc > UINT32_MAX || nPost > ((uint64_t)1 << 40) || nTermBytes > ((uint64_t)1 << 40)) return 0;
  return BM25_HDR + pad((size_t)nTermBytes, 8) + nTerm * 16 + nDoc * 4 + nPost * 4 + pad((size_t)(nPost * 2), 4) + 4;
}

int cairnMemBm25Save(cairn_mem *m, cairn_h5w *w, int bFresh) {
  const MemBm25 *b = &m->bm25;
  int64_t nBytes = 0;
  uint8_t *z = NULL;
  int rc = CAIRN_OK;
  /* the index must cover exactly the checkpointed rows; else none is written (open rebuilds) */
  if (b->nDoc == m->n && m->nCommitted == m->n) {
    /* terms left with no posting (their rows forgotten) are not written: a forgotten text's
    ** words must not stay in the file (the forget test greps its bytes) */
    uint32_t nLive = 0;
    uint64_t nLiveBytes = 0;
    for (uint32_t t = 0; t < b->nTerm; t++)
      if (b->aPost[t].n) nLive++, nLiveBytes += b->aTermOff[t + 1] - b->aTermOff[t];
    uint64_t n = blobSize(nLive, b->nDoc, b->nPosting, nLiveBytes);
    if (n == 0 || (uint64_t)(size_t)(n + BM25_CHUNK) != n + BM25_CHUNK)
      return cairnErr(CAIRN_RANGE, "checkpoint: BM25 index of %llu postings", (unsigned long long)b->nPosting);
    /* zeros after the blob up to a whole chunk (see below) */
    z = cairnMallocZero((size_t)pad((size_t)n, BM25_CHUNK));
    if (!z) return cairnErr(CAIRN_NOMEM, "checkpoint: BM25 index of %llu bytes", (unsigned long long)n);
    memcpy(z, BM25_MAGIC, 8);
    cairnPutLE32(z + 8, MEM_BM25_FMT);
    cairnPutLE32(z + 12, nLive);
    cairnPutLE64(z + 16, b->nDoc);
    cairnPutLE64(z + 24, b->nTotLen);
    cairnPutLE64(z + 32, b->nPosting);
    cairnPutLE64(z + 40, nLiveBytes);
    size_t i = BM25_HDR;
    for (uint32_t t = 0; t < b->nTerm; t++)
      if (b->aPost[t].n) memcpy(z + i, b->zTerm + b->aTermOff[t], (size_t)(b->aTermOff[t + 1] - b->aTermOff[t])), i += (size_t)(b->aTermOff[t + 1] - b->aTermOff[t]);
    i = BM25_HDR + pad((size_t)nLiveBytes, 8);
    for (uint32_t t = 0; t < b->nTerm; t++) {
      const MemPost *p = &b->aPost[t];
      if (!p->n) continue;
      cairnPutLE32(z + i, (uint32_t)(b->aTermOff[t + 1] - b->aTermOff[t]));
      cairnPutLE32(z + i + 4, p->n);
      cairnPutLE32(z + i + 8, p->maxTf);
      cairnPutLE32(z + i + 12, p->minLen);
      i += 16;
    }
    for (size_t d = 0; d < b->nDoc; d++, i += 4) cairnPutLE32(z + i, b->aDocLen[d]);
    size_t iTf = i + (size_t)b->nPosting * 4;
    for (uint32_t t = 0; t < b->nTerm; t++) {
      const MemPost *p = &b->aPost[t];
      for (uint32_t j = 0; j < p->n; j++, i += 4, iTf += 2) cairnPutLE32(z + i, p->aDoc[j]), cairnPutLE16(z + iTf, p->aTf[j]);
    }
    i = (size_t)n - 4;
    cairnPutLE32(z + i, cairnCrc32c(0, z, i));
    nBytes = (int64_t)n;
  }
  /* The dataset is only ever written in whole chunks (its extent a multiple of the chunk): the
  ** writer then never reads an old chunk back to merge into it, so a damaged chunk of the last
  ** index cannot fail the checkpoint that replaces it. A chunk size unknown (the open could not
  ** read the dataset's header) is taken as BM25_CHUNK, a multiple of every size used here. */
  uint64_t c = m->bm25Chunk ? m->bm25Chunk : BM25_CHUNK;
  if (bFresh) {
    /* chunks sized for the blob of now (a rewrite sizes them again): a small store's file
    ** stays small, a large one's has few chunks; powers of two, 8 up to BM25_CHUNK */
    c = 4096;
    while (c < BM25_CHUNK && c * 8 < (uint64_t)nBytes) c *= 2;
    if (cairnMemSmallChunks) c = 8;
    uint64_t dims[1] = {0}, maxd[1] = {CAIRN_H5W_UNLIMITED}, chunk[1] = {c};
    cairn_h5w_dset_opts o;
    memset(&o, 0, sizeof o);
    o.layout = CAIRN_H5W_CHUNKED;
    o.chunk = chunk;
    o.zFilters = "fletcher32";
    cairn_h5w_type *t = cairn_h5w_type_int(1, 0);
    rc = t ? cairn_h5w_dataset(w, "/memory/bm25", t, 1, dims, maxd, &o, NULL) : cairnErr(CAIRN_NOMEM, "checkpoint: BM25 type");
    cairn_h5w_type_free(t);
  }
  uint64_t have = 0;
  int rank = 0;
  if (!rc) rc = cairn_h5w_shape(w, "/memory/bm25", &rank, &have);
  if (!rc && nBytes) {
    /* the blob only grows between rewrites (a forget rewrites the file); a shorter one is
    ** written over the start and its length is the attribute's */
    uint64_t nPad = pad((size_t)nBytes, (size_t)c), k = CAIRN_MIN(have, nPad);
    if (k) rc = cairn_h5w_write(w, "/memory/bm25", 0, k, z);
    if (!rc && nPad > k) rc = cairn_h5w_append(w, "/memory/bm25", nPad - k, z + k);
  }
  cairnFree(z);
  if (!rc) {
    cairn_h5w_type *t = cairn_h5w_type_int(8, 1);
    rc = t ? cairn_h5w_attr(w, "/memory", "bm25_bytes", t, 0, NULL, &nBytes) : cairnErr(CAIRN_NOMEM, "checkpoint: BM25 attribute");
    cairn_h5w_type_free(t);
  }
  if (!rc) m->bm25Ck = 1, m->bm25Chunk = (uint32_t)c;
  return rc;
}

/* Check and decode a blob of n bytes into an empty b (nDoc rows expected). */
static int blobDecode(MemBm25 *b, const uint8_t *z, size_t n, uint64_t nDoc) {
  if (n < BM25_HDR + 4 || memcmp(z, BM25_MAGIC, 8)) return cairnErr(CAIRN_CORRUPT, "/memory/bm25: no BM25 index header");
  if (cairnCrc32c(0, z, n - 4) != cairnGetLE32(z + n - 4)) return cairnErr(CAIRN_CORRUPT, "/memory/bm25 fails its checksum (CRC-32C at offset %zu of the blob)", n - 4);
  if (cairnGetLE32(z + 8) != MEM_BM25_FMT) return cairnErr(CAIRN_UNSUPPORTED, "/memory/bm25: index format %u (this build writes %u)", cairnGetLE32(z + 8), MEM_BM25_FMT);
  uint32_t nTerm = cairnGetLE32(z + 12);
  uint64_t nD = cairnGetLE64(z + 16), nTot = cairnGetLE64(z + 24), nPost = cairnGetLE64(z + 32), nTb = cairnGetLE64(z + 40);
  if (nD != nDoc) return cairnErr(CAIRN_CORRUPT, "/memory/bm25 indexes %llu rows, the checkpoint has %llu", (unsigned long long)nD, (unsigned long long)nDoc);
  if (blobSize(nTerm, nD, nPost, nTb) != n) return cairnErr(CAIRN_CORRUPT, "/memory/bm25: %zu bytes do not match its counts", n);
  size_t iTerm = BM25_HDR, iInfo = iTerm + pad((size_t)nTb, 8), iLen = iInfo + (size_t)nTerm * 16, iDoc = iLen + (size_t)nD * 4,
         iTf = iDoc + (size_t)nPost * 4;
  b->nTermCap = nTerm + 1;
  b->aPost = cairnMallocZero((size_t)b->nTermCap * sizeof(MemPost));
  b->aTermOff = cairnMallocArray((size_t)nTerm + 2, 8);
  b->aTermHash = cairnMallocArray(b->nTermCap, 8);
  b->zTerm = cairnMalloc(CAIRN_MAX((size_t)nTb, (size_t)1));
  b->aDocLen = cairnMallocArray(CAIRN_MAX((size_t)nD, (size_t)1), 4);
  if (!b->aPost || !b->aTermOff || !b->aTermHash || !b->zTerm || !b->aDocLen) return cairnErr(CAIRN_NOMEM, "mem_open: BM25 index of %u terms", nTerm);
  b->nTermAlloc = CAIRN_MAX(nTb, 1);
  b->nDocAlloc = CAIRN_MAX((size_t)nD, 1);
  memcpy(b->zTerm, z + iTerm, (size_t)nTb);
  b->nTermBytes = nTb;
  uint64_t off = 0, sumTot = 0, sumPost = 0;
  b->aTermOff[0] = 0;
  for (size_t d = 0; d < nD; d++) b->aDocLen[d] = cairnGetLE32(z + iLen + 4 * d), sumTot += b->aDocLen[d];
  b->nDoc = (size_t)nD;
  for (uint32_t t = 0; t < nTerm; t++) {
    const uint8_t *q = z + iInfo + (size_t)t * 16;
    uint32_t len = cairnGetLE32(q), np = cairnGetLE32(q + 4);
    if (len == 0 || len > nTb - off || np > nPost - sumPost) return cairnErr(CAIRN_CORRUPT, "/memory/bm25: term %u out of range", t);
    MemPost *p = &b->aPost[t];
    p->maxTf = cairnGetLE32(q + 8), p->minLen = cairnGetLE32(q + 12);
    p->aDoc = cairnMallocArray(CAIRN_MAX(np, 1u), 4);
    p->aTf = cairnMallocArray(CAIRN_MAX(np, 1u), 2);
    b->nTerm = t + 1; /* owns p's arrays from here (cairnBm25Free) */
    if (!p->aDoc || !p->aTf) return cairnErr(CAIRN_NOMEM, "mem_open: BM25 postings of %u rows", np);
    p->nAlloc = CAIRN_MAX(np, 1u), p->n = np;
    uint32_t maxTf = 0, minLen = UINT32_MAX;
    for (uint32_t j = 0; j < np; j++) {
      uint32_t d = cairnGetLE32(z + iDoc + 4 * (size_t)(sumPost + j));
      uint16_t tf = cairnGetLE16(z + iTf + 2 * (size_t)(sumPost + j));
      if (d >= nD || (j && d <= p->aDoc[j - 1]) || tf == 0) return cairnErr(CAIRN_CORRUPT, "/memory/bm25: posting %u of term %u out of order", j, t);
      p->aDoc[j] = d, p->aTf[j] = tf;
      if (tf > maxTf) maxTf = tf;
      if (b->aDocLen[d] < minLen) minLen = b->aDocLen[d];
    }
    /* the bounds MaxScore prunes with must hold for what is read: a wrong bound would drop hits */
    if (np && (p->maxTf < maxTf || p->minLen > minLen)) return cairnErr(CAIRN_CORRUPT, "/memory/bm25: bounds of term %u", t);
    sumPost += np;
    off += len;
    b->aTermOff[t + 1] = off;
  }
  if (off != nTb || sumPost != nPost || sumTot != nTot) return cairnErr(CAIRN_CORRUPT, "/memory/bm25: totals do not add up");
  b->nPosting = nPost, b->nTotLen = nTot;
  return cairnBm25Vocab(b);
}

int cairnMemBm25Load(cairn_mem *m, cairn_h5 *h, uint64_t nDoc) {
  cairn_h5_obj *o = NULL;
  int64_t nBytes = -1;
  int rc = cairn_h5_get(h, "/memory", &o);
  cairn_h5_obj *a = NULL;
  if (!rc) rc = cairn_h5_attr(o, "bm25_bytes", &a);
  if (!rc) rc = cairn_h5_read(a, NULL, CAIRN_H5_I64, &nBytes, 8);
  cairn_h5_obj_close(a);
  cairn_h5_obj_close(o);
  if (rc == CAIRN_NOTFOUND) return rc; /* a store of before 2026-12-02 (or one whose index was never written) */
  m->bm25Ck = !rc;
  if (!rc && nBytes == 0) return cairnErr(CAIRN_NOTFOUND, "/memory/bm25: not written at the last checkpoint");
  cairn_h5_info in;
  o = NULL;
  if (!rc && (nBytes < BM25_HDR + 4 || (uint64_t)nBytes > ((uint64_t)1 << 42) || (uint64_t)(size_t)nBytes != (uint64_t)nBytes))
    rc = cairnErr(CAIRN_CORRUPT, "/memory@bm25_bytes is %lld", (long long)nBytes);
  if (!rc) rc = cairn_h5_get(h, "/memory/bm25", &o);
  if (!rc) rc = cairn_h5_info_get(o, &in);
  if (!rc && in.layout == CAIRN_H5_CHUNKED && in.rank == 1 && in.chunk[0] && in.chunk[0] <= BM25_CHUNK &&
      BM25_CHUNK % in.chunk[0] == 0)
    m->bm25Chunk = (uint32_t)in.chunk[0]; /* Save writes whole chunks of it */
  if (!rc && (in.kind != CAIRN_H5_DATASET || in.rank != 1 || in.typeSize != 1 || in.dims[0] < (uint64_t)nBytes))
    rc = cairnErr(CAIRN_CORRUPT, "/memory/bm25 has the wrong shape for %lld bytes", (long long)nBytes);
  uint8_t *z = rc ? NULL : cairnMalloc((size_t)nBytes);
  if (!rc && !z) rc = cairnErr(CAIRN_NOMEM, "mem_open: BM25 index of %lld bytes", (long long)nBytes);
  if (!rc) {
    cairn_h5_sel sel;
    memset(&sel, 0, sizeof sel);
    sel.rank = 1, sel.count[0] = (uint64_t)nBytes;
    rc = cairn_h5_read(o, &sel, CAIRN_H5_U8, z, (size_t)nBytes);
  }
  cairn_h5_obj_close(o);
  MemBm25 b;
  memset(&b, 0, sizeof b);
  if (!rc) rc = blobDecode(&b, z, (size_t)nBytes, nDoc);
  cairnFree(z);
  if (rc) {
    cairnBm25Free(&b);
    return rc;
  }
  cairnBm25Free(&m->bm25);
  m->bm25 = b;
  return CAIRN_OK;
}
