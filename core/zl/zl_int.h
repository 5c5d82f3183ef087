/*
** 2026-11-29
**
** core/zl/zl_int.h - what the OpenZL-format codec's files share: the typed stream, the
** transform table, bit/varint helpers, XXH3 and LZ4. Wire facts are those of OpenZL format
** version 26 (magic 0xD7B1A5C0 + version, transposed decoding map, stored streams, footers).
*/
#ifndef CAIRN_ZL_INT_H
#define CAIRN_ZL_INT_H

#include "common/internal.h"
#include "cairn/zl.h"

#define ZL_MAGIC_BASE 0xD7B1A5C0u
#define ZL_FORMAT 26
#define ZL_FORMAT_MIN 21 /* chunked frames: the only layout this codec reads */

/* Stream types, as OpenZL's bit mask (ZL_Type_*). Wire encoding is 0..3 = log2. */
enum { ZT_SERIAL = 1, ZT_STRUCT = 2, ZT_NUMERIC = 4, ZT_STRING = 8 };

/* Standard transform IDs of the wire format (the ones this codec knows). */
enum {
  ZID_DELTA = 1, ZID_TRANSPOSE = 2, ZID_ZIGZAG = 3, ZID_TRANSPOSE_SPLIT = 4, ZID_SERIAL_TO_STRUCT = 5,
  ZID_STRUCT_TO_SERIAL = 6, ZID_STRUCT_TO_NUM = 7, ZID_NUM_TO_STRUCT = 8, ZID_SERIAL_TO_NUM = 9,
  ZID_NUM_TO_SERIAL = 10, ZID_SERIAL_STRING = 11, ZID_SEPARATE_STRING = 12,
  ZID_STRUCT_TO_NUM_BE = 13, ZID_SERIAL_TO_NUM_BE = 14, ZID_SENTINEL = 18, ZID_LZ = 19,
  ZID_ZSTD = 22, ZID_FIELD_LZ = 24, ZID_QUANT_OFFSETS = 25, ZID_QUANT_LENGTHS = 26,
  ZID_BITPACK_SERIAL = 27, ZID_BITPACK_INT = 28, ZID_FLATPACK = 29, ZID_TSPLIT2 = 30,
  ZID_TSPLIT4 = 31, ZID_TSPLIT8 = 32, ZID_FLOAT_DECONSTRUCT = 33, ZID_BITUNPACK = 34, ZID_RANGE_PACK = 35, ZID_TOKENIZE_FIXED = 36,
  ZID_TOKENIZE_NUM = 37, ZID_TOKENIZE_STRING = 38, ZID_SPLITN = 40, ZID_SPLIT_BY_STRUCT = 41, ZID_DISPATCHN_BYTAG = 42, ZID_MERGE_SORTED = 43, ZID_CONST_SERIAL = 44,
  ZID_CONST_FIXED = 45, ZID_PREFIX = 46, ZID_SPLITN_STRUCT = 47, ZID_SPLITN_NUM = 48, ZID_FSE = 49,
  ZID_HUFFMAN = 50, ZID_HUFFMAN_STRUCT = 51, ZID_FSE_NCOUNT = 52, ZID_DIVIDE_BY = 53, ZID_DISPATCH_STRING = 54, ZID_DEDUP_NUM = 56,
  ZID_CONCAT_SERIAL = 55, ZID_CONCAT_NUM = 57, ZID_CONCAT_STRUCT = 58, ZID_CONCAT_STRING = 59, ZID_PARSE_INT = 60,
  ZID_INTERLEAVE_STRING = 61, ZID_LZ4 = 62, ZID_BITSPLIT = 63,
  ZID_PARTITION = 64, ZID_MUX_LENGTHS = 65, ZID_SPARSE_NUM = 66, ZID_END = 128
};

/* A typed stream. Serial: width 1. String: content bytes + aLen[n] lengths (they always sum to
** nb). Data is owned (own = 1: allocated with ZL_SLACK readable and writable bytes past nb) or
** borrowed (a stored stream in the frame, or the caller's output buffer: no slack). */
#define ZL_SLACK 32
typedef struct ZlStream {
  uint8_t type;
  uint32_t width; /* element width in bytes (1 for serial and string content) */
  size_t n;       /* number of elements (strings for ZT_STRING) */
  size_t nb;      /* content bytes */
  uint8_t *p;
  uint32_t *aLen;
  uint8_t own;
  /* Fused strings (lazy != 0, p NULL; nb, n and aLen as usual): only dispatch_string reads them
  ** (zl_dec.c decides), writing each string straight into its output. 1: parse_int, lzSrc = its
  ** 8-byte integers (aLen their lengths); 2, 3, 4: tokenize_string, lzSrc = 1-, 2- or lzW-byte
  ** indices into the alphabet (string i at address lzOff[i], owned here, lzLen[i] bytes; aLen
  ** NULL; lzSlack: 32 readable bytes past the alphabet). The streams lzSrc, lzOff and lzLen
  ** point into stay alive until the chunk is done. */
  uint8_t lazy, lzW, lzSlack;
  /* unsized (cairnZlFuse 2: dispatch_string writes into the caller's buffer): nb is not known
  ** and dispatch_string checks what was not checked: parse_int's lengths are counted there
  ** (aLen NULL), tokenize's indices checked against its lzN alphabet strings */
  uint8_t lzUnsized;
  size_t lzN;
  const uint8_t *lzSrc;
  const uint32_t *lzLen;
  uint64_t *lzOff;
} ZlStream;

/* Decoder context handed to each transform. */
typedef struct ZlDec ZlDec;
int cairnZlNewStream(ZlDec *d, ZlStream *s, uint8_t type, uint32_t width, size_t n);
int cairnZlNewLens(ZlDec *d, ZlStream *s, size_t n);
void cairnZlFreeStream(ZlDec *d, ZlStream *s);
void cairnZlShrinkStream(ZlDec *d, ZlStream *s, size_t nb); /* content allocated for a bound: nb used */
uint8_t *cairnZlDirectDst(const ZlDec *d); /* caller's buffer a final stream may alias */
size_t cairnZlDirectCap(const ZlDec *d);    /* and its size */
uint64_t cairnZlOffset(const ZlDec *d);
int cairnZlFuse(const ZlDec *d); /* the current decoder's string output may be fused (ZlStream.lazy); 2: unsized too */
int cairnZlNeedLens(const ZlDec *d); /* 0: the current decoder's string output goes to serial_string, which drops the lengths */
void *cairnZlZstdDCtx(ZlDec *d); /* one zstd context per frame decode, magicless format */ /* frame offset of the current decoder's chunk */

/* Decode one frame at b[0..n); *pnFrame = its length. noCheck skips the checksum comparisons
** (fuzzing only: lets mutated frames reach the transform decoders). */
int cairnZlDecodeFrame(const uint8_t *b, size_t n, uint8_t *out, size_t nOut, size_t *pnOut, size_t *pnFrame, int noCheck);

/* zstd contexts whose memory comes from the host's allocator (core/zl/zl_dec.c) */
void *cairnZlZstdCreateCCtx(void);
void *cairnZlZstdCreateDCtx(void);

/* Huffman encoder (huffman_v2, core/zl/zl_ent.c): weights of symbols 0..*pnw-1 into w[256], the
** bitstream into *pOut (cairnMalloc'd), *px4 = four streams. Returns its size; 0 = not for
** Huffman (one symbol), (size_t)-1 = out of memory. */
size_t cairnZlHufEncode(const uint8_t *p, size_t n, uint8_t *w, size_t *pnw, int *px4, uint8_t **pOut);

/* XXH3-64, seed 0 */
uint64_t cairnXxh3(const void *p, size_t n);

/* Varint (LEB128). Returns bytes used, 0 on truncation or overflow. */
static inline size_t zlVarGet(const uint8_t *p, const uint8_t *e, uint64_t *pv) {
  uint64_t v = 0;
  for (unsigned i = 0; i < 10 && p + i < e; i++) {
    v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
    if (!(p[i] & 0x80)) {
      *pv = v;
      return i + 1;
    }
  }
  return 0;
}
static inline size_t zlVarPut(uint8_t *p, uint64_t v) {
  size_t i = 0;
  while (v >= 128) p[i++] = (uint8_t)(0x80 | (v & 0x7f)), v >>= 7;
  p[i++] = (uint8_t)v;
  return i;
}
static inline int zlBitsFor(uint64_t bound) { /* n so that (1<<n) >= bound */
  return bound <= 1 ? 0 : 64 - __builtin_clzll(bound - 1);
}


/* Transform decoders: ins[] in the decoder's order (fixed inputs first, then variable), outs[]
** the regenerated streams to fill. */
typedef int (*zl_dec_fn)(ZlDec *d, const uint8_t *pHdr, size_t nHdr, ZlStream **ins, size_t nIn,
                         ZlStream **outs, size_t nOut);
typedef struct ZlTransform {
  uint8_t id, nFixed, hasVar, nOut; /* nOut 0 = any */
  uint8_t inTypes[8];               /* types of the fixed inputs; var inputs: inTypes[nFixed] mask */
  uint8_t outType;                  /* 0 = decided by the decoder */
  zl_dec_fn x;
  const char *zName;
} ZlTransform;
const ZlTransform *cairnZlTransform(unsigned id);

/* Defining a transform decoder (zl_tr.c, zl_tr_str.c): the zl_dec_fn signature; BAD raises a
** corrupt-frame error. Small helpers for integers of w = 1, 2, 4 or 8 bytes. */
#define ZL_TRDEC(name) int name(ZlDec *d, const uint8_t *h, size_t nh, ZlStream **in, size_t nIn, ZlStream **out, size_t nOut)
#define BAD(...) cairnErr(CAIRN_CORRUPT, __VA_ARGS__)
/* Plain static, not inline (as they were in each file): the compiler keeps rdN/wrN calls out of
** line where inlining cairnGetLEn's switch would grow the wasm decoder (bench/zl/wasm-size.sh). */
#define ZL_UNUSED __attribute__((unused))
/* Code run once per frame or by rare codecs: built for size by clang (the wasm budget). */
#if defined(__clang__)
#define ZL_MINSIZE __attribute__((minsize))
#else
#define ZL_MINSIZE
#endif
static ZL_UNUSED int isIntWidth(uint32_t w) { return w == 1 || w == 2 || w == 4 || w == 8; }
static ZL_UNUSED uint64_t rdN(const uint8_t *p, uint32_t w) { return cairnGetLEn(p, w); }
static ZL_UNUSED void wrN(uint8_t *p, uint64_t v, uint32_t w) { cairnPutLEn(p, v, w); }
/* zl_tr_str.c: dispatch_string and parse_int. */
ZL_TRDEC(cairnZlDecDispatchString);
ZL_TRDEC(cairnZlDecParseInt);

/* ------------------------------------------------------------------ the encoder
** zl_enc.c (graph building, leaves, integer selection, records, the root), zl_enc_csv.c (CSV
** graphs), zl_enc_frame.c (the writer, segments, the entry points). A graph is a list of nodes
** (wire decoders) and stored streams; refs >= 0 are nodes, refs <= -2 stored stream -(ref+2),
** -1 an error (e->rc set). */
#define ENC_SEGMENT (2u << 20) /* 2 MiB: enough for LZ windows, and 8 MiB = 4 tasks balance on 2 threads */
#define ENC_TRIAL (64u << 10) /* bytes the selector tries candidates on */
#define ENC_SKIP INT_MIN /* a candidate that does not apply */

/* Bytes per integer of each profile (CAIRN_ZL_SERIAL .. CAIRN_ZL_CSV; 1 for bytes and CSV). */
static const unsigned kZlWidth[] = {1, 1, 2, 4, 8, 8, 1};

typedef struct ENode {
  uint8_t id, nh;
  uint8_t hdr[24];
  int nIn, nVO; /* inputs; the last nVO are variable */
  int *aIn;     /* ref >= 0 node, ref <= -2 stored stream -(ref+2) */
} ENode;

typedef struct Enc {
  ENode *aNode;
  int nNode, nNodeAlloc;
  uint8_t **aSt;
  size_t *anSt;
  int nSt, nStAlloc;
  int level, fast; /* cairn level; fast = selection pass */
  int stageLevel;   /* zstd level of the final zstd stages (cairn levels <= 5 map below themselves) */
  int denseLevel;   /* zstd level of dense byte planes at levels <= 3 (see encSegment) */
  int dense;        /* the stream being coded is such a plane */
  int trialLevel;   /* zstd level of the selection pass */
  size_t trial;     /* bytes the selector tries candidates on */
  size_t noLz;      /* streams of at most this many bytes: Huffman or stored, no zstd stage */
  struct ZSTD_CCtx_s *zc; /* reused by every zstd stage of the segment */
  uint8_t *zbuf;    /* zstd output scratch, reused */
  size_t nZbuf;
  int rc;
} Enc;

/* Checkpoint / rollback for trying candidates. */
typedef struct {
  int nNode, nSt;
} Mark;
/* What to compress: a profile, or fixed-width records (nField > 0). */
typedef struct ZlOpts {
  int profile, level;
  unsigned nField;
  uint32_t aField[CAIRN_ZL_MAX_FIELDS];
  size_t unit; /* integer width or record size (a shorter tail is stored beside) */
  int graph;   /* 0: the profile's own selection, else CAIRN_ZL_GRAPH_* (one named graph) */
  /* cairnZlEncGraph when graph != 0: a pointer, so programs that never name a graph do not link
  ** the named graphs' encoders (lz4's among them; bench/zl/wasm-size.sh) */
  int (*xGraph)(struct Enc *, const struct ZlOpts *, const uint8_t *, size_t);
} ZlOpts;


void cairnZlEncFail(Enc *e, int rc); /* zl_enc.c */
int cairnZlEncNode(Enc *e, int id, const uint8_t *hdr, size_t nh, const int *aIn, int nIn, int nVO); /* zl_enc.c */
int cairnZlEncNode1(Enc *e, int id, const uint8_t *hdr, size_t nh, int in); /* zl_enc.c */
void cairnZlEncRollback(Enc *e, Mark m); /* zl_enc.c */
int cairnZlEncConstRun(Enc *e, const uint8_t *p, size_t width, size_t nRep); /* zl_enc.c */
int cairnZlEncSerial(Enc *e, const uint8_t *p, size_t n); /* zl_enc.c */
int cairnZlEncNumBytes(Enc *e, const uint8_t *p, size_t n, unsigned w, int planes); /* zl_enc.c */
int cairnZlEncNumeric(Enc *e, const uint8_t *p, size_t n, unsigned w, int depth); /* zl_enc.c */
int cairnZlEncRoot(Enc *e, const ZlOpts *o, const uint8_t *p, size_t n); /* zl_enc.c */
int cairnZlEncCsv(Enc *e, const uint8_t *p, size_t n); /* zl_enc_csv.c */
int cairnZlEncGraph(Enc *e, const ZlOpts *o, const uint8_t *p, size_t n); /* zl_enc_graph.c */
int cairnZlEncStoredCopy(Enc *e, const void *p, size_t n); /* zl_enc.c */
int cairnZlEncStored(Enc *e, uint8_t *p, size_t n);         /* zl_enc.c: takes ownership of p */
int cairnZlEncZstdLeaf(Enc *e, const uint8_t *p, size_t n); /* zl_enc.c: zstd, else stored */
int cairnZlEncHuffman(Enc *e, const uint8_t *p, size_t n);  /* zl_enc.c: Huffman, else stored */

#endif
