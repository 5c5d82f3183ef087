/*
** 2026-12-02
**
** core/zl/zl_enc_graph.c - one named graph for the whole input (cairn_zl_compress_graph,
** `cairn compress --graph`), as OpenZL's standard graphs: store, zstd, lz4, huffman, entropy,
** bitpack (integers of the profile's width in the fewest bits), flatpack (a sorted alphabet of
** at most 256 bytes + bit-packed indices). fse and field_lz are refused: cairn writes neither
** (its selector reaches their effect with Huffman and zstd stages). Graphs that cannot apply
** (flatpack on more than 256 symbols) fall back to stored bytes, as OpenZL's do.
*/
#include "zl/zl_int.h"
#include "codec/lz4.h"

static const char *const kGraphs[] = {"auto", "store", "zstd", "lz4", "huffman", "fse", "entropy", "field_lz", "flatpack", "bitpack"};

int cairn_zl_graph_from_name(const char *zName) {
  if (!zName) return -1;
  for (int i = 0; i < (int)CAIRN_ARRAY_SIZE(kGraphs); i++)
    if (strcmp(zName, kGraphs[i]) == 0) return i;
  return -1;
}
const char *cairn_zl_graph_name(int graph) {
  return graph >= 0 && graph < (int)CAIRN_ARRAY_SIZE(kGraphs) ? kGraphs[graph] : NULL;
}

/* LSB-first bit writer into a buffer sized by the caller. */
typedef struct {
  uint8_t *p;
  size_t n;
  uint64_t acc;
  unsigned have;
} BitW;
static void bwPut(BitW *w, uint64_t v, unsigned k) { /* k <= 32 */
  w->acc |= v << w->have, w->have += k;
  while (w->have >= 8) w->p[w->n++] = (uint8_t)w->acc, w->acc >>= 8, w->have -= 8;
}
static void bwFlush(BitW *w) {
  if (w->have) w->p[w->n++] = (uint8_t)w->acc;
  w->acc = 0, w->have = 0;
}

static int encLz4(Enc *e, const uint8_t *p, size_t n) {
  size_t cap = cairnLz4Bound(n);
  uint8_t *q = cairnMalloc(cap + 1), h[10];
  if (!q) return cairnZlEncFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
  size_t nq = cairnLz4Compress(p, n, q, cap);
  if (nq == 0 || nq >= n) return cairnFree(q), cairnZlEncStoredCopy(e, p, n);
  return cairnZlEncNode1(e, ZID_LZ4, h, zlVarPut(h, n), cairnZlEncStored(e, q, nq));
}

/* bitpack_int (28) of w-byte integers, then numeric -> serial */
static int encBitpack(Enc *e, const uint8_t *p, size_t n, unsigned w) {
  size_t m = n / w;
  uint64_t all = 0;
  for (size_t i = 0; i < m; i++) all |= cairnGetLEn(p + i * w, w);
  unsigned nb = all ? (unsigned)(64 - __builtin_clzll(all)) : 1;
  size_t nq = (size_t)(((uint64_t)m * nb + 7) / 8);
  uint8_t *q = cairnMalloc(nq + 8);
  if (!q) return cairnZlEncFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
  BitW bw = {q, 0, 0, 0};
  for (size_t i = 0; i < m; i++) {
    uint64_t v = cairnGetLEn(p + i * w, w);
    if (nb <= 32) bwPut(&bw, v, nb);
    else bwPut(&bw, v & 0xffffffffu, 32), bwPut(&bw, v >> 32, nb - 32);
  }
  bwFlush(&bw);
  uint8_t h[2], lw = (uint8_t)__builtin_ctz(w);
  h[0] = (uint8_t)(lw << 6 | (nb - 1));
  size_t extra = nq * 8 / nb - m, nh = 1; /* values the padding bits would also hold */
  if (extra) h[nh++] = (uint8_t)extra;
  int r = cairnZlEncNode1(e, ZID_BITPACK_INT, h, nh, cairnZlEncStored(e, q, nq));
  return cairnZlEncNode1(e, ZID_SERIAL_TO_NUM, NULL, 0, r);
}

/* flatpack (29): (sorted alphabet, indices + a final 1 bit) */
static int encFlatpack(Enc *e, const uint8_t *p, size_t n) {
  uint8_t seen[256] = {0}, ix[256], al[256];
  unsigned na = 0;
  for (size_t i = 0; i < n; i++) seen[p[i]] = 1;
  for (unsigned c = 0; c < 256; c++)
    if (seen[c]) ix[c] = (uint8_t)na, al[na++] = (uint8_t)c;
  unsigned nb = na <= 1 ? 1 : (unsigned)zlBitsFor(na);
  if (nb == 8) return cairnZlEncStoredCopy(e, p, n); /* no gain from 8-bit indices */
  size_t nq = (size_t)(((uint64_t)n * nb + 8) / 8);
  uint8_t *q = cairnMalloc(nq + 8);
  if (!q) return cairnZlEncFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
  BitW bw = {q, 0, 0, 0};
  for (size_t i = 0; i < n; i++) bwPut(&bw, ix[p[i]], nb);
  bwPut(&bw, 1, 1), bwFlush(&bw);
  int a[2];
  a[0] = cairnZlEncStoredCopy(e, al, na);
  a[1] = cairnZlEncStored(e, q, bw.n);
  return cairnZlEncNode(e, ZID_FLATPACK, NULL, 0, a, 2, 0);
}

int cairnZlEncGraph(Enc *e, const ZlOpts *o, const uint8_t *p, size_t n) {
  if (e->rc) return -1;
  unsigned w = o->profile == CAIRN_ZL_CSV || o->nField ? 1 : kZlWidth[o->profile];
  if (n == 0) return cairnZlEncStoredCopy(e, p, 0);
  switch (o->graph) {
    case CAIRN_ZL_GRAPH_STORE: return cairnZlEncStoredCopy(e, p, n);
    case CAIRN_ZL_GRAPH_ZSTD: return cairnZlEncZstdLeaf(e, p, n);
    case CAIRN_ZL_GRAPH_LZ4: return encLz4(e, p, n);
    case CAIRN_ZL_GRAPH_HUFFMAN:
    case CAIRN_ZL_GRAPH_ENTROPY: return cairnZlEncHuffman(e, p, n);
    case CAIRN_ZL_GRAPH_FLATPACK: return encFlatpack(e, p, n);
    case CAIRN_ZL_GRAPH_BITPACK: return encBitpack(e, p, n, w);
    default:
      cairnZlEncFail(e, cairnErr(CAIRN_UNSUPPORTED, "zl: cairn has no encoder for the %s graph (it decodes its frames)", cairn_zl_graph_name(o->graph)));
      return -1;
  }
}
