/*
** 2026-12-02
**
** core/zl/zl_enc_frame.c - the encoder's writer and entry points: a graph written as a
** format-26 chunk (post-order decoding map, then the stored streams), segments compressed in
** parallel, the frame header, and cairn_zl_compress* (buffers and files).
*/
#define ZSTD_STATIC_LINKING_ONLY
#include <stdlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "zl/zl_int.h"

/* Growable output. */
typedef struct {
  uint8_t *p;
  size_t n, cap;
  int rc;
} Out;
static void outPut(Out *o, const void *p, size_t n) {
  if (o->rc) return;
  if (o->n + n > o->cap) {
    int rc = cairnArrayReserve(&o->p, &o->cap, o->n + n + 256, 1, 256, "zl: output");
    if (rc) {
      o->rc = rc;
      return;
    }
  }
  memcpy(o->p + o->n, p, n);
  o->n += n;
}
static void outVar(Out *o, uint64_t v) {
  uint8_t b[10];
  outPut(o, b, zlVarPut(b, v));
}
static void outBits(Out *o, const uint32_t *a, size_t n, int nb) {
  uint64_t acc = 0;
  int have = 0;
  for (size_t i = 0; i < n; i++) {
    acc |= (uint64_t)a[i] << have, have += nb;
    while (have >= 8) {
      uint8_t b = (uint8_t)acc;
      outPut(o, &b, 1);
      acc >>= 8, have -= 8;
    }
  }
  if (have > 0) {
    uint8_t b = (uint8_t)acc;
    outPut(o, &b, 1);
  }
}

/* Post-order layout: assigns each node its input base; returns the slot count. */
typedef struct {
  int *aOrder, nOrder;
  int *aBase, *aEnd;   /* per node: first input slot, end of inputs */
  int *aSlotRef;       /* per slot: ref that fills it */
  int nSlot;
} Layout;
static void layVisit(Enc *e, Layout *L, int node) {
  ENode *pN = &e->aNode[node];
  for (int i = 0; i < pN->nIn; i++)
    if (pN->aIn[i] >= 0) layVisit(e, L, pN->aIn[i]);
  L->aBase[node] = L->nSlot;
  for (int i = 0; i < pN->nIn; i++) L->aSlotRef[L->nSlot + pN->nIn - 1 - i] = pN->aIn[i];
  L->nSlot += pN->nIn;
  L->aEnd[node] = L->nSlot;
  L->aOrder[L->nOrder++] = node;
}

/* Write one chunk for the graph whose root is `root`; the chunk regenerates p[0..n). */
static void encWriteChunk(Enc *e, int root, const uint8_t *p, size_t n, Out *o) {
  int nN = e->nNode, nSlotMax = e->nSt + nN + 1;
  Layout L = {0};
  L.aOrder = cairnMalloc(sizeof(int) * (nN + 1));
  L.aBase = cairnMalloc(sizeof(int) * (nN + 1));
  L.aEnd = cairnMalloc(sizeof(int) * (nN + 1));
  L.aSlotRef = cairnMalloc(sizeof(int) * (nSlotMax + 1));
  uint32_t *a = cairnMalloc(sizeof(uint32_t) * (nSlotMax + nN + 1));
  if (!L.aOrder || !L.aBase || !L.aEnd || !L.aSlotRef || !a) {
    o->rc = cairnErr(CAIRN_NOMEM, "zl: out of memory");
    goto done;
  }
  /* reserve the whole chunk at once (streams + a bound on the graph description): growing
  ** the buffer stream by stream copied it over and over */
  size_t need = o->n + 64 + (size_t)nN * 48 + (size_t)e->nSt * 10;
  for (int i = 0; i < e->nSt; i++) need += e->anSt[i];
  if (need > o->cap && !o->rc) {
    uint8_t *q = cairnRealloc(o->p, need);
    if (!q) {
      o->rc = cairnErr(CAIRN_NOMEM, "zl: out of memory");
      goto done;
    }
    o->p = q, o->cap = need;
  }
  size_t start = o->n;
  int nSt;
  if (root < 0) { /* a lone stored stream */
    outVar(o, 1), outVar(o, 1), outVar(o, e->anSt[-root - 2]);
    outPut(o, e->aSt[-root - 2], e->anSt[-root - 2]);
  } else {
    layVisit(e, &L, root);
    L.aSlotRef[L.nSlot] = root; /* final output slot */
    int nSlot = L.nSlot + 1;
    nSt = 0;
    for (int s = 0; s < nSlot; s++) nSt += L.aSlotRef[s] < -1;
    int nD = L.nOrder;
    outVar(o, (uint64_t)nD + 1), outVar(o, (uint64_t)nSt);
    for (int i = 0; i < nD; i++) a[i] = 0;
    outBits(o, a, nD, 1); /* all standard */
    for (int i = 0; i < nD; i++) a[i] = e->aNode[L.aOrder[i]].id;
    outBits(o, a, nD, 7);
    for (int i = 0; i < nD; i++) a[i] = e->aNode[L.aOrder[i]].nh != 0;
    outBits(o, a, nD, 1);
    for (int i = 0; i < nD; i++)
      if (a[i]) outVar(o, e->aNode[L.aOrder[i]].nh - 1u);
    for (int i = 0; i < nD; i++) a[i] = e->aNode[L.aOrder[i]].nVO != 0;
    outBits(o, a, nD, 1);
    for (int i = 0; i < nD; i++)
      if (a[i]) outVar(o, e->aNode[L.aOrder[i]].nVO - 1u);
    for (int i = 0; i < nD; i++) a[i] = 0;
    outBits(o, a, nD, 1); /* one regenerated stream each */
    /* distance of each node's output slot from the end of its inputs */
    int *aSlotOf = L.aBase; /* the input bases are no longer needed: reuse as node -> output slot */
    for (int s = 0; s < nSlot; s++)
      if (L.aSlotRef[s] >= 0) aSlotOf[L.aSlotRef[s]] = s;
    for (int i = 0; i < nD; i++) {
      int node = L.aOrder[i];
      a[i] = (uint32_t)(aSlotOf[node] - L.aEnd[node]);
    }
    outBits(o, a, nD, zlBitsFor((uint64_t)nD + nSt));
    for (int s = 0; s < nSlot; s++)
      if (L.aSlotRef[s] < -1) outVar(o, e->anSt[-L.aSlotRef[s] - 2]);
    for (int i = 0; i < nD; i++) outPut(o, e->aNode[L.aOrder[i]].hdr, e->aNode[L.aOrder[i]].nh);
    for (int s = 0; s < nSlot; s++)
      if (L.aSlotRef[s] < -1) outPut(o, e->aSt[-L.aSlotRef[s] - 2], e->anSt[-L.aSlotRef[s] - 2]);
  }
  uint8_t c4[4];
  cairnPutLE32(c4, (uint32_t)cairnXxh3(p, n));
  outPut(o, c4, 4);
  if (!o->rc) {
    cairnPutLE32(c4, (uint32_t)cairnXxh3(o->p + start, o->n - start));
    outPut(o, c4, 4);
  }
done:
  cairnFree(L.aOrder), cairnFree(L.aBase), cairnFree(L.aEnd), cairnFree(L.aSlotRef), cairnFree(a);
}

static void encFree(Enc *e) {
  cairnZlEncRollback(e, (Mark){0, 0});
  ZSTD_freeCCtx(e->zc);
  cairnFree(e->zbuf);
  cairnFree(e->aNode), cairnFree(e->aSt), cairnFree(e->anSt);
  memset(e, 0, sizeof *e);
}

/* One segment -> one chunk in *o. */
static int encSegment(const ZlOpts *opt, const uint8_t *p, size_t n, Out *o) {
  Enc e = {0};
  int level = opt->level;
  e.level = level;
  /* zstd stages: levels 1-2 use zstd's fast negative levels, 3-5 zstd 1-3 (the typed graph
  ** already did most of the work), 6 and up the same zstd level */
  e.stageLevel = level <= 2 ? level - 3 : level <= 5 ? level - 2 : level;
  /* fast levels decide on a short prefix at zstd level 1; high levels look longer */
  e.trialLevel = level <= 5 ? 1 : 3;
  /* dense byte planes (order-0 entropy >= 4 bits per byte) at levels <= 3: zstd four notches
  ** lower, with Huffman literals kept on (negative levels drop them). Matches there are few and
  ** costly to look for (the match finder mispredicts on such bytes); the literals' entropy
  ** stage does the work. f32_signal level 3: +0.1% bytes, ~15% faster. */
  e.denseLevel = e.stageLevel - 4;
  e.trial = level <= 3 ? ENC_TRIAL / 8 : level <= 5 ? ENC_TRIAL / 4 : ENC_TRIAL;
  size_t start = o->n;
  int root = cairnZlEncRoot(&e, opt, p, n);
  if (!e.rc && (root == -1 || root == ENC_SKIP)) e.rc = cairnErr(CAIRN_ERROR, "zl: encoder built no graph");
  if (!e.rc) encWriteChunk(&e, root, p, n, o);
  if (!e.rc && !o->rc && o->n - start > n + 32 && root >= 0) {
    /* The graph chosen on a prefix expanded the whole segment (tokens of a high-cardinality
    ** tail, say): plain bytes instead, which never exceed n + 20 (cairn_zl_compress_bound). */
    o->n = start;
    cairnZlEncRollback(&e, (Mark){0, 0});
    root = cairnZlEncSerial(&e, p, n);
    if (!e.rc) encWriteChunk(&e, root, p, n, o);
  }
  int rc = e.rc ? e.rc : o->rc;
  encFree(&e);
  return rc;
}

static size_t encHeader(uint8_t *h, uint64_t n) {
  size_t k = 0;
  cairnPutLE32(h, ZL_MAGIC_BASE + ZL_FORMAT), k = 4;
  h[k++] = 3;    /* content + compressed checksums */
  h[k++] = 0x01; /* one output, serial */
  k += zlVarPut(h + k, n + 1);
  h[k] = (uint8_t)cairnXxh3(h, k), k++;
  return k;
}

size_t cairn_zl_compress_bound(size_t n) {
  size_t nSeg = n / ENC_SEGMENT + 1;
  return n + nSeg * 64 + 32;
}

typedef struct {
  const ZlOpts *o;
  const uint8_t *p;
  size_t n, seg;
  Out *aOut;
  int *aRc;
} SegJob;
static void segTask(void *pArg, size_t i, unsigned iWorker) {
  SegJob *j = pArg;
  size_t off = i * j->seg, len = CAIRN_MIN(j->seg, j->n - off);
  j->aRc[i] = encSegment(j->o, j->p + off, len, &j->aOut[i]);
}
/* Segments hold whole units, so every chunk is typed alike; boundaries depend on the input only. */
static size_t segSize(const ZlOpts *o) { return CAIRN_MAX(1, ENC_SEGMENT / o->unit) * o->unit; }

static int optsProfile(ZlOpts *o, int profile, int level) {
  memset(o, 0, sizeof *o);
  if (!cairn_zl_profile_name(profile)) return cairnErr(CAIRN_MISUSE, "zl: unknown profile %d", profile);
  if (level == 0) level = 19;
  if (level < 1 || level > 22) return cairnErr(CAIRN_MISUSE, "zl: level %d outside 1..22", level);
  o->profile = profile, o->level = level, o->unit = kZlWidth[profile];
  return CAIRN_OK;
}
static int optsRecords(ZlOpts *o, const uint32_t *aWidth, int nField, int level) {
  memset(o, 0, sizeof *o);
  if (!aWidth || nField < 1 || nField > CAIRN_ZL_MAX_FIELDS) return cairnErr(CAIRN_MISUSE, "zl: %d fields (1..%d)", nField, CAIRN_ZL_MAX_FIELDS);
  if (level == 0) level = 19;
  if (level < 1 || level > 22) return cairnErr(CAIRN_MISUSE, "zl: level %d outside 1..22", level);
  o->profile = CAIRN_ZL_SERIAL, o->level = level, o->nField = (unsigned)nField;
  for (int i = 0; i < nField; i++) {
    if (aWidth[i] < 1 || aWidth[i] > 4096) return cairnErr(CAIRN_MISUSE, "zl: field %d of %u bytes (1..4096)", i, aWidth[i]);
    o->aField[i] = aWidth[i], o->unit += aWidth[i];
  }
  return CAIRN_OK;
}

static int zlCompressBuf(const ZlOpts *o, const void *pv, size_t n, void *out, size_t nOut, size_t *pnOut) {
  const uint8_t *p = pv;
  if ((!p && n) || (!out && nOut) || !pnOut) return cairnErr(CAIRN_MISUSE, "zl: NULL argument");
  uint8_t h[32];
  size_t k = encHeader(h, n);
  size_t seg = segSize(o), nSeg = n ? (n + seg - 1) / seg : 1;
  Out *aOut = cairnMallocZero(sizeof(Out) * nSeg);
  int *aRc = cairnMallocZero(sizeof(int) * nSeg);
  int rc = CAIRN_OK;
  if (!aOut || !aRc) rc = cairnErr(CAIRN_NOMEM, "zl: out of memory");
  if (!rc) {
    SegJob j = {o, p, n, seg, aOut, aRc};
    rc = cairnParallelFor(nSeg, segTask, &j);
    for (size_t i = 0; i < nSeg && !rc; i++) rc = aRc[i];
  }
  size_t total = k + 1;
  for (size_t i = 0; i < nSeg && !rc; i++) total += aOut[i].n;
  if (!rc && total > nOut) rc = cairnErr(CAIRN_RANGE, "zl: frame of %zu bytes does not fit %zu", total, nOut);
  if (!rc) {
    uint8_t *q = out;
    memcpy(q, h, k);
    for (size_t i = 0; i < nSeg; i++) memcpy(q + k, aOut[i].p, aOut[i].n), k += aOut[i].n;
    q[k++] = 0;
    *pnOut = k;
  }
  for (size_t i = 0; aOut && i < nSeg; i++) cairnFree(aOut[i].p);
  cairnFree(aOut), cairnFree(aRc);
  return rc;
}

int cairn_zl_compress_level(int profile, int level, const void *p, size_t n, void *out, size_t nOut, size_t *pnOut) {
  ZlOpts o;
  if (level == 0) return cairnErr(CAIRN_MISUSE, "zl: level 0 (use 1..22)");
  CAIRN_TRY(optsProfile(&o, profile, level));
  return zlCompressBuf(&o, p, n, out, nOut, pnOut);
}
int cairn_zl_compress_records(const uint32_t *aWidth, int nField, int level, const void *p, size_t n, void *out, size_t nOut,
                              size_t *pnOut) {
  ZlOpts o;
  CAIRN_TRY(optsRecords(&o, aWidth, nField, level));
  return zlCompressBuf(&o, p, n, out, nOut, pnOut);
}

static int optsGraph(ZlOpts *o, int profile, int graph, int level) {
  CAIRN_TRY(optsProfile(o, profile, level));
  if (!cairn_zl_graph_name(graph)) return cairnErr(CAIRN_MISUSE, "zl: unknown graph %d", graph);
  if (graph == CAIRN_ZL_GRAPH_FSE || graph == CAIRN_ZL_GRAPH_FIELD_LZ)
    return cairnErr(CAIRN_UNSUPPORTED, "zl: cairn has no encoder for the %s graph (it decodes its frames)", cairn_zl_graph_name(graph));
  o->graph = graph, o->xGraph = cairnZlEncGraph;
  return CAIRN_OK;
}
int cairn_zl_compress_graph(int profile, int graph, int level, const void *p, size_t n, void *out, size_t nOut, size_t *pnOut) {
  ZlOpts o;
  CAIRN_TRY(optsGraph(&o, profile, graph, level));
  return zlCompressBuf(&o, p, n, out, nOut, pnOut);
}

int cairn_zl_compress(int profile, const void *p, size_t n, void *out, size_t nOut, size_t *pnOut) {
  return cairn_zl_compress_level(profile, 19, p, n, out, nOut, pnOut);
}

/* Streaming compression: groups of segments read, compressed in parallel, written in order. */
static int zlCompressFile(const ZlOpts *o, cairn_file *in, cairn_file *out, cairn_zl_progress_fn xProgress, void *pArg,
                          uint64_t *pnIn, uint64_t *pnOut) {
  uint64_t size = 0, pos = 0, wpos = 0;
  if (!in || !out) return cairnErr(CAIRN_MISUSE, "zl: NULL file");
  CAIRN_TRY(cairn_file_size(in, &size));
  uint8_t h[32];
  size_t k = encHeader(h, size), seg = segSize(o);
  CAIRN_TRY(cairn_file_write(out, h, k, 0));
  wpos = k;
  size_t nGroup = CAIRN_MAX(1, CAIRN_MIN(cairnConcurrency(), 4u));
  uint8_t *buf = cairnMalloc((size_t)CAIRN_MIN(size ? size : 1, (uint64_t)seg * nGroup));
  Out *aOut = cairnMallocZero(sizeof(Out) * nGroup);
  int *aRc = cairnMallocZero(sizeof(int) * nGroup);
  int rc = (!buf || !aOut || !aRc) ? cairnErr(CAIRN_NOMEM, "zl: out of memory") : CAIRN_OK;
  do { /* an empty input still gets its one (empty) chunk */
    size_t len = (size_t)CAIRN_MIN(size - pos, (uint64_t)seg * nGroup);
    if (!rc && len) rc = cairn_file_read_exact(in, buf, len, pos);
    size_t nSeg = len ? (len + seg - 1) / seg : 1;
    if (!rc) {
      SegJob j = {o, buf, len, seg, aOut, aRc};
      for (size_t i = 0; i < nSeg; i++) aOut[i].n = 0, aRc[i] = 0;
      rc = cairnParallelFor(nSeg, segTask, &j);
      for (size_t i = 0; i < nSeg && !rc; i++) rc = aRc[i];
      for (size_t i = 0; i < nSeg && !rc; i++) rc = cairn_file_write(out, aOut[i].p, aOut[i].n, wpos), wpos += aOut[i].n;
    }
    pos += len;
    if (xProgress && !rc) xProgress(pArg, pos, size);
  } while (!rc && pos < size);
  if (!rc) {
    uint8_t z = 0;
    rc = cairn_file_write(out, &z, 1, wpos++);
  }
  if (!rc) rc = cairn_file_truncate(out, wpos);
  for (size_t i = 0; aOut && i < nGroup; i++) cairnFree(aOut[i].p);
  cairnFree(aOut), cairnFree(aRc), cairnFree(buf);
  if (!rc && pnIn) *pnIn = size;
  if (!rc && pnOut) *pnOut = wpos;
  return rc;
}

int cairn_zl_compress_file(int profile, int level, cairn_file *in, cairn_file *out, cairn_zl_progress_fn xProgress,
                           void *pArg, uint64_t *pnIn, uint64_t *pnOut) {
  ZlOpts o;
  CAIRN_TRY(optsProfile(&o, profile, level));
  return zlCompressFile(&o, in, out, xProgress, pArg, pnIn, pnOut);
}
int cairn_zl_compress_graph_file(int profile, int graph, int level, cairn_file *in, cairn_file *out, cairn_zl_progress_fn xProgress,
                                 void *pArg, uint64_t *pnIn, uint64_t *pnOut) {
  ZlOpts o;
  CAIRN_TRY(optsGraph(&o, profile, graph, level));
  return zlCompressFile(&o, in, out, xProgress, pArg, pnIn, pnOut);
}
int cairn_zl_compress_records_file(const uint32_t *aWidth, int nField, int level, cairn_file *in, cairn_file *out,
                                   cairn_zl_progress_fn xProgress, void *pArg, uint64_t *pnIn, uint64_t *pnOut) {
  ZlOpts o;
  CAIRN_TRY(optsRecords(&o, aWidth, nField, level));
  return zlCompressFile(&o, in, out, xProgress, pArg, pnIn, pnOut);
}

