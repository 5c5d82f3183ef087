/* 2026-11-29 - memory module, vectors: every SIMD kernel against the scalar one, f16
** conversion, top-k, exact / quantised / IVF / IVF-PQ search against a brute-force reference
** computed here in double precision, and filters inside the scan. */
#include <math.h>
#include <stdlib.h>

#include "mem/mem_int.h"
#include "tf.h"

static uint64_t rs = 1;
static double urand(void) {
  rs ^= rs << 13;
  rs ^= rs >> 7;
  rs ^= rs << 17;
  return (double)(rs >> 11) / 9007199254740992.0;
}
static float grand(void) { /* rough normal */
  return (float)((urand() + urand() + urand() + urand() - 2.0) * 1.7);
}

/* Tolerance for float kernels (stated in mem_int.h): |a - b| <= 1e-5 * sum|x_i q_i| + 1e-6. */
TEST(memvec, kernels_match_scalar) {
  const MemKernels *aK[8];
  int nK = cairnMemKernelList(aK, 8);
  CHECK(nK >= 1);
  CHECK_STR(aK[0]->zName, "scalar");
  static const uint32_t aDim[] = {1, 3, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 100, 384, 385};
  rs = 42;
  /* batch sizes: 4-row blocks (adjacent rows, or the four stripes of the wasm f32 kernel) with
  ** and without a tail, and batches too small for one block */
  static const size_t aN[] = {1, 3, 4, 6, 13};
  for (size_t di = 0; di < CAIRN_ARRAY_SIZE(aDim) * CAIRN_ARRAY_SIZE(aN); di++) {
    uint32_t d = aDim[di % CAIRN_ARRAY_SIZE(aDim)];
    size_t n = aN[di / CAIRN_ARRAY_SIZE(aDim)];
    /* rows one float off any SIMD alignment: kernels must not assume aligned rows */
    float *xBuf = malloc((n * d + 1) * 4), *x = xBuf + 1, *q = malloc(d * 4), *o0 = malloc(n * 4), *o1 = malloc(n * 4);
    int8_t *xi = malloc(n * d), *qi = malloc(d);
    uint16_t *xh = malloc(n * d * 2);
    int32_t *i0 = malloc(n * 4), *i1 = malloc(n * 4);
    for (size_t i = 0; i < n * d; i++) {
      x[i] = grand();
      xi[i] = (int8_t)(urand() * 255 - 127);
      xh[i] = cairnF32ToF16(x[i]);
    }
    for (uint32_t j = 0; j < d; j++) q[j] = grand(), qi[j] = (int8_t)(urand() * 255 - 127);
    xi[0] = -127, qi[0] = -127; /* extremes */
    aK[0]->xDotF32(x, n, d, q, o0);
    aK[0]->xDotI8(xi, n, d, qi, i0);
    for (int k = 1; k < nK; k++) {
      aK[k]->xDotF32(x, n, d, q, o1);
      for (size_t i = 0; i < n; i++) {
        double mag = 0;
        for (uint32_t j = 0; j < d; j++) mag += fabs((double)x[i * d + j] * q[j]);
        if (!(fabs(o0[i] - o1[i]) <= 1e-5 * mag + 1e-6)) {
          tfFail(__FILE__, __LINE__, "%s f32 dim %u, %zu rows, row %zu: %g vs scalar %g", aK[k]->zName, d, n, i, o1[i], o0[i]);
          return;
        }
      }
      aK[k]->xDotI8(xi, n, d, qi, i1);
      CHECK_MEM(i0, i1, n * 4); /* integer: exact */
      aK[0]->xDotF16(xh, n, d, q, o0);
      aK[k]->xDotF16(xh, n, d, q, o1);
      for (size_t i = 0; i < n; i++) {
        double mag = 0;
        for (uint32_t j = 0; j < d; j++) mag += fabs((double)cairnF16ToF32(xh[i * d + j]) * q[j]);
        if (!(fabs(o0[i] - o1[i]) <= 1e-5 * mag + 1e-6)) {
          tfFail(__FILE__, __LINE__, "%s f16 dim %u, %zu rows, row %zu: %g vs scalar %g", aK[k]->zName, d, n, i, o1[i], o0[i]);
          return;
        }
      }
      aK[0]->xDotF32(x, n, d, q, o0);
    }
    free(xBuf), free(q), free(o0), free(o1), free(xi), free(qi), free(xh), free(i0), free(i1);
  }
  /* the kill switch really selects the scalar table */
  cairn_cpu_disable(~0ull);
  CHECK_STR(cairnMemKernels()->zName, "scalar");
  cairn_cpu_disable(0);
}

TEST(memvec, f16_conversion) {
  /* IEEE 754 binary16 encodings */
  CHECK_EQ(cairnF32ToF16(1.0f), 0x3c00);
  CHECK_EQ(cairnF32ToF16(-2.0f), 0xc000);
  CHECK_EQ(cairnF32ToF16(65504.0f), 0x7bff);
  CHECK_EQ(cairnF32ToF16(65536.0f), 0x7c00);      /* overflow -> inf */
  CHECK_EQ(cairnF32ToF16(5.9604645e-8f), 0x0001); /* smallest subnormal 2^-24 */
  CHECK_EQ(cairnF32ToF16(6.1035156e-5f), 0x0400); /* smallest normal 2^-14 */
  CHECK_EQ(cairnF32ToF16(0.333333343f), 0x3555);
  CHECK_EQ(cairnF32ToF16(1.00048828125f), 0x3c00); /* halfway: ties to even */
  CHECK_EQ(cairnF32ToF16(1.00146484375f), 0x3c02); /* halfway: ties to even (up) */
  CHECK(cairnF16ToF32(0x3555) == 0.333251953125f);
  CHECK(cairnF16ToF32(0x0001) == 5.9604645e-8f);
  CHECK(isinf(cairnF16ToF32(0xfc00)) && cairnF16ToF32(0xfc00) < 0);
  CHECK(isnan(cairnF16ToF32(cairnF32ToF16(NAN))));
  /* every half value survives f16 -> f32 -> f16 */
  for (uint32_t h = 0; h < 0x10000; h++) {
    if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) continue; /* NaN payloads */
    if (cairnF32ToF16(cairnF16ToF32((uint16_t)h)) != h) {
      tfFail(__FILE__, __LINE__, "f16 0x%x does not round-trip", h);
      return;
    }
  }
}

typedef struct Ref {
  float s;
  uint32_t i;
} Ref;
static int cmpRef(const void *a, const void *b) {
  const Ref *x = a, *y = b;
  if (x->s != y->s) return x->s > y->s ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

TEST(memvec, topk_matches_sort) {
  rs = 7;
  for (int round = 0; round < 20; round++) {
    uint32_t n = 1 + (uint32_t)(urand() * 500), k = 1 + (uint32_t)(urand() * 40);
    Ref *a = malloc(n * sizeof(Ref));
    MemTopK t;
    CHECK_OK(cairnTopKInit(&t, k));
    for (uint32_t i = 0; i < n; i++) {
      a[i].s = (float)(int)(urand() * 50); /* many ties: broken by index */
      a[i].i = i;
      cairnTopKPush(&t, a[i].s, i);
    }
    qsort(a, n, sizeof(Ref), cmpRef);
    cairnTopKSort(&t);
    CHECK_EQ(t.n, CAIRN_MIN(n, k));
    for (uint32_t i = 0; i < t.n; i++) {
      CHECK_EQ(t.aIdx[i], a[i].i);
      CHECK(t.aScore[i] == a[i].s);
    }
    cairnTopKFree(&t);
    free(a);
  }
}

/* Brute-force reference in double precision. */
static void refTopK(const float *x, size_t n, uint32_t d, const float *q, int metric, const MemBits *pb, uint32_t k, Ref *out,
                    uint32_t *pn) {
  Ref *a = malloc(n * sizeof(Ref));
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (!cairnBitTest(pb, i)) continue;
    double s = 0;
    for (uint32_t j = 0; j < d; j++) {
      if (metric == CAIRN_METRIC_L2) s -= ((double)x[i * d + j] - q[j]) * ((double)x[i * d + j] - q[j]);
      else s += (double)x[i * d + j] * q[j];
    }
    a[m].s = (float)s, a[m].i = (uint32_t)i, m++;
  }
  qsort(a, m, sizeof(Ref), cmpRef);
  *pn = (uint32_t)CAIRN_MIN(m, (size_t)k);
  memcpy(out, a, *pn * sizeof(Ref));
  free(a);
}

/* Build a vector set of n rows; clustered (nClus > 0) or isotropic. */
static void makeVecs(MemVecs *v, size_t n, uint32_t d, int metric, int nClus, float *x) {
  memset(v, 0, sizeof(*v));
  v->dim = d, v->metric = metric;
  float *cent = malloc((size_t)(nClus ? nClus : 1) * d * 4);
  for (int c = 0; c < nClus; c++)
    for (uint32_t j = 0; j < d; j++) cent[(size_t)c * d + j] = grand() * 3;
  for (size_t i = 0; i < n; i++) {
    int c = nClus ? (int)(urand() * nClus) : 0;
    double sq = 0;
    for (uint32_t j = 0; j < d; j++) {
      x[i * d + j] = (nClus ? cent[(size_t)c * d + j] : 0) + grand();
      sq += (double)x[i * d + j] * x[i * d + j];
    }
    if (metric == CAIRN_METRIC_COSINE)
      for (uint32_t j = 0; j < d; j++) x[i * d + j] = (float)(x[i * d + j] / sqrt(sq));
    cairnVecsAppend(v, x + i * d);
  }
  free(cent);
}

TEST(memvec, flat_exact_all_metrics) {
  size_t n = 3000;
  uint32_t d = 48, k = 10;
  float *x = malloc(n * d * 4), q[48];
  Ref ref[10];
  for (int metric = 0; metric <= 2; metric++) {
    rs = 100 + (uint64_t)metric;
    MemVecs v;
    makeVecs(&v, n, d, metric, 0, x);
    CHECK_EQ(v.n, n);
    /* rows start on a cache line (the scans rely on it for speed, not correctness) */
    CHECK_EQ((uintptr_t)v.aF32 % 64, 0);
    CHECK_EQ((uintptr_t)v.aI8 % 64, 0);
    CHECK_EQ((uintptr_t)v.aF16 % 64, 0);
    for (int qi = 0; qi < 5; qi++) {
      for (uint32_t j = 0; j < d; j++) q[j] = grand();
      if (metric == CAIRN_METRIC_COSINE) {
        double sq = 0;
        for (uint32_t j = 0; j < d; j++) sq += (double)q[j] * q[j];
        for (uint32_t j = 0; j < d; j++) q[j] = (float)(q[j] / sqrt(sq));
      }
      uint32_t nRef;
      refTopK(x, n, d, q, metric, NULL, k, ref, &nRef);
      for (int forceScalar = 0; forceScalar <= 1; forceScalar++) {
        cairn_cpu_disable(forceScalar ? ~0ull : 0);
        MemTopK t;
        CHECK_OK(cairnTopKInit(&t, k));
        CHECK_OK(cairnVecSearch(&v, q, CAIRN_VINDEX_FLAT, 0, NULL, &t));
        cairnTopKSort(&t);
        CHECK_EQ(t.n, k);
        for (uint32_t i = 0; i < k; i++) {
          /* ids equal unless two reference scores are within float noise of each other */
          if (t.aIdx[i] != ref[i].i) CHECK(fabsf(t.aScore[i] - ref[i].s) < 1e-4f * (1 + fabsf(ref[i].s)));
          CHECK(fabsf(t.aScore[i] - ref[i].s) < 1e-4f * (1 + fabsf(ref[i].s)));
        }
        cairnTopKFree(&t);
      }
      cairn_cpu_disable(0);
    }
    cairnVecsFree(&v);
  }
  free(x);
}

static double recallAt(const MemTopK *t, const Ref *ref, uint32_t k) {
  uint32_t hit = 0;
  for (uint32_t i = 0; i < k; i++)
    for (uint32_t j = 0; j < t->n && j < k; j++)
      if (t->aIdx[j] == ref[i].i) hit++;
  return (double)hit / k;
}

TEST(memvec, quantised_scans_rerank) {
  size_t n = 6000;
  uint32_t d = 64, k = 10;
  float *x = malloc(n * d * 4), q[64];
  Ref ref[10];
  rs = 9;
  MemVecs v;
  makeVecs(&v, n, d, CAIRN_METRIC_COSINE, 0, x);
  double rI8 = 0, rF16 = 0;
  int nq = 20;
  for (int qi = 0; qi < nq; qi++) {
    /* queries near a stored row (the agent-memory case: the answer is close) */
    size_t base = (size_t)(urand() * n);
    double sq = 0;
    for (uint32_t j = 0; j < d; j++) q[j] = x[base * d + j] + grand() * 0.05f, sq += (double)q[j] * q[j];
    for (uint32_t j = 0; j < d; j++) q[j] = (float)(q[j] / sqrt(sq));
    uint32_t nRef;
    refTopK(x, n, d, q, CAIRN_METRIC_COSINE, NULL, k, ref, &nRef);
    MemTopK t;
    CHECK_OK(cairnTopKInit(&t, k));
    CHECK_OK(cairnVecSearch(&v, q, CAIRN_VINDEX_INT8, 100, NULL, &t));
    cairnTopKSort(&t);
    rI8 += recallAt(&t, ref, k);
    /* re-ranked scores are the exact ones */
    for (uint32_t i = 0; i < t.n; i++) CHECK(fabsf(t.aScore[i] - cairnVecScore(&v, t.aIdx[i], q, 1)) < 1e-6f);
    cairnTopKReset(&t);
    CHECK_OK(cairnVecSearch(&v, q, CAIRN_VINDEX_F16, 50, NULL, &t));
    cairnTopKSort(&t);
    rF16 += recallAt(&t, ref, k);
    cairnTopKFree(&t);
  }
  CHECK(rI8 / nq >= 0.99);
  CHECK(rF16 / nq >= 0.99);
  cairnVecsFree(&v);
  free(x);
}

TEST(memvec, filter_inside_scan) {
  size_t n = 2500;
  uint32_t d = 32, k = 7;
  float *x = malloc(n * d * 4), q[32];
  Ref ref[7];
  rs = 77;
  MemVecs v;
  makeVecs(&v, n, d, CAIRN_METRIC_IP, 0, x);
  MemBits b = {calloc((n + 63) / 64, 8), n};
  for (size_t i = 0; i < n; i++)
    if (i % 3 == 1 || (i > 1000 && i < 1400)) b.a[i >> 6] |= 1ull << (i & 63);
  for (uint32_t j = 0; j < d; j++) q[j] = grand();
  uint32_t nRef;
  refTopK(x, n, d, q, CAIRN_METRIC_IP, &b, k, ref, &nRef);
  for (int kind = CAIRN_VINDEX_FLAT; kind <= CAIRN_VINDEX_INT8; kind++) {
    MemTopK t;
    CHECK_OK(cairnTopKInit(&t, k));
    CHECK_OK(cairnVecSearch(&v, q, kind, 200, &b, &t));
    cairnTopKSort(&t);
    CHECK_EQ(t.n, k);
    for (uint32_t i = 0; i < t.n; i++) CHECK(cairnBitTest(&b, t.aIdx[i])); /* only allowed rows */
    CHECK(recallAt(&t, ref, k) >= (kind == CAIRN_VINDEX_FLAT ? 1.0 : 0.85));
    cairnTopKFree(&t);
  }
  /* a filter that admits nothing returns nothing */
  memset(b.a, 0, (n + 63) / 64 * 8);
  MemTopK t;
  CHECK_OK(cairnTopKInit(&t, k));
  CHECK_OK(cairnVecSearch(&v, q, CAIRN_VINDEX_FLAT, 0, &b, &t));
  CHECK_EQ(t.n, 0);
  cairnTopKFree(&t);
  free(b.a);
  cairnVecsFree(&v);
  free(x);
}

static void ivfCase(int kind, int metric) {
  size_t n = 8000;
  uint32_t d = 32, k = 10;
  float *x = malloc(n * d * 4), q[32];
  Ref ref[10];
  rs = 1234 + (uint64_t)kind * 10 + (uint64_t)metric;
  MemVecs v;
  makeVecs(&v, n, d, metric, 40, x);
  MemIvf ix;
  memset(&ix, 0, sizeof ix);
  cairn_mem_index_config cfg = {kind, 64, 8, 8, 0, 99};
  CHECK_OK(cairnIvfTrain(&ix, &v, &cfg));
  CHECK_EQ(ix.nAssigned, n);
  double rec = 0;
  int nq = 20;
  for (int qi = 0; qi < nq; qi++) {
    size_t base = (size_t)(urand() * n);
    for (uint32_t j = 0; j < d; j++) q[j] = x[base * d + j] + grand() * 0.3f;
    if (metric == CAIRN_METRIC_COSINE) {
      double sq = 0;
      for (uint32_t j = 0; j < d; j++) sq += (double)q[j] * q[j];
      for (uint32_t j = 0; j < d; j++) q[j] = (float)(q[j] / sqrt(sq));
    }
    uint32_t nRef;
    refTopK(x, n, d, q, metric, NULL, k, ref, &nRef);
    MemTopK t;
    CHECK_OK(cairnTopKInit(&t, k));
    CHECK_OK(cairnIvfSearch(&ix, &v, q, 8, 200, NULL, &t));
    cairnTopKSort(&t);
    rec += recallAt(&t, ref, k);
    cairnTopKFree(&t);
  }
  CHECK(rec / nq >= 0.95);
  /* rows added after training join the lists and are found */
  float y[32];
  for (uint32_t j = 0; j < d; j++) y[j] = x[j] * 1.0f;
  CHECK_OK(cairnVecsAppend(&v, y));
  MemTopK t;
  CHECK_OK(cairnTopKInit(&t, 2));
  CHECK_OK(cairnIvfSearch(&ix, &v, y, 4, 50, NULL, &t));
  CHECK_EQ(ix.nAssigned, n + 1);
  cairnTopKSort(&t);
  CHECK(t.aIdx[0] == 0 || t.aIdx[0] == n); /* the copy or its original */
  CHECK(t.aIdx[1] == 0 || t.aIdx[1] == n);
  cairnTopKFree(&t);
  cairnIvfFree(&ix);
  cairnVecsFree(&v);
  free(x);
}
TEST(memvec, ivf_recall) {
  ivfCase(CAIRN_VINDEX_IVF, CAIRN_METRIC_COSINE);
  ivfCase(CAIRN_VINDEX_IVF, CAIRN_METRIC_L2);
}
TEST(memvec, ivfpq_recall) {
  ivfCase(CAIRN_VINDEX_IVFPQ, CAIRN_METRIC_COSINE);
  ivfCase(CAIRN_VINDEX_IVFPQ, CAIRN_METRIC_L2);
}

TEST(memvec, ivf_bad_config) {
  MemVecs v;
  float x[16 * 8];
  rs = 5;
  makeVecs(&v, 16, 8, CAIRN_METRIC_IP, 0, x);
  MemIvf ix;
  memset(&ix, 0, sizeof ix);
  cairn_mem_index_config c1 = {CAIRN_VINDEX_IVF, 17, 0, 0, 0, 0};
  CHECK_RC(cairnIvfTrain(&ix, &v, &c1), CAIRN_RANGE); /* more lists than rows */
  cairn_mem_index_config c2 = {CAIRN_VINDEX_IVFPQ, 4, 3, 0, 0, 0};
  CHECK_RC(cairnIvfTrain(&ix, &v, &c2), CAIRN_RANGE); /* 3 does not divide 8 */
  cairn_mem_index_config c3 = {CAIRN_VINDEX_FLAT, 4, 0, 0, 0, 0};
  CHECK_RC(cairnIvfTrain(&ix, &v, &c3), CAIRN_MISUSE);
  CHECK(strstr(cairn_errmsg(), "kind") != NULL);
  cairn_mem_index_config c4 = {CAIRN_VINDEX_IVFPQ, 4, 2, 0, 0, 0}; /* fewer rows than 256 PQ centroids */
  CHECK_OK(cairnIvfTrain(&ix, &v, &c4));
  MemTopK t;
  CHECK_OK(cairnTopKInit(&t, 3));
  CHECK_OK(cairnIvfSearch(&ix, &v, x, 4, 16, NULL, &t));
  cairnTopKSort(&t);
  CHECK_EQ(t.n, 3);
  cairnTopKFree(&t);
  cairnIvfFree(&ix);
  cairnVecsFree(&v);
}

TEST(memvec, f16_row_and_crc32c) {
  /* the row conversion (F16C when present) rounds exactly like the portable one */
  float x[1000];
  uint16_t h[1000];
  rs = 31;
  for (int i = 0; i < 1000; i++) x[i] = (float)(grand() * pow(10, (int)(urand() * 12) - 6));
  x[0] = 65504.0f, x[1] = 65520.0f, x[2] = 1.00048828125f, x[3] = -5.9604645e-8f, x[4] = 3e-8f, x[5] = INFINITY, x[6] = -0.0f;
  cairnF32ToF16Row(x, h, 1000);
  for (int i = 0; i < 1000; i++)
    if (h[i] != cairnF32ToF16(x[i])) {
      tfFail(__FILE__, __LINE__, "f16 of %g: row 0x%x, portable 0x%x", x[i], h[i], cairnF32ToF16(x[i]));
      return;
    }
  /* CRC-32C check value (RFC 3720 / the Castagnoli catalogue): "123456789" -> 0xE3069283;
  ** the hardware path and the table (forced by the kill switch) agree on every length */
  CHECK_EQ(cairnCrc32c(0, "123456789", 9), 0xE3069283u);
  uint8_t b[300];
  tfFillRandom(b, sizeof b, 5);
  for (size_t n = 0; n <= sizeof b; n += 7) {
    uint32_t c1 = cairnCrc32c(0, b, n);
    cairn_cpu_disable(~0ull);
    uint32_t c2 = cairnCrc32c(0, b, n);
    cairn_cpu_disable(0);
    CHECK_EQ(c1, c2);
    CHECK_EQ(cairnCrc32c(cairnCrc32c(0, b, n / 3), b + n / 3, n - n / 3), c1); /* incremental */
  }
  cairn_cpu_disable(~0ull);
  CHECK_EQ(cairnCrc32c(0, "123456789", 9), 0xE3069283u);
  cairn_cpu_disable(0);
}
