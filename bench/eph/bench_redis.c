/*
** 2026-12-02
**
** bench/eph/bench_redis.c HOST PORT [N DIM ROUNDS] - the peer side of the ephemeral tier's
** bench (bench/eph/run.sh): a real Redis server through hiredis, on the shapes `cairn eph bench`
** measures: N keys "key:%06u" (10 bytes) with 64-byte values; SET, GET in a shuffled order,
** GET of absent keys, DEL; SET with a DIM-float embedding (the value then carries the floats as
** bytes: Redis 7.0 has no vector type); and the nearest-10 search, which Redis without the
** RediSearch module cannot do on the server, done the way a client would: fetch every
** embedding (pipelined GETs) and scan them locally.
**
** Each operation is measured twice: one round trip per command (what an agent calling Redis
** per step pays) and pipelined in batches of PIPE commands (Redis's best case). The figures are
** the best of ROUNDS rounds (FLUSHALL between them), one JSON object on stdout with the same
** names as `cairn eph bench --json` (pipelined ones end in _pipe).
*/
#include <hiredis/hiredis.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PIPE 1000

static double nowNs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static redisContext *gC;
static uint32_t gN, gDim;
static char (*gKey)[16], (*gMiss)[16];
static uint32_t *gPerm;
static char *gVal; /* gN values of 64 + 4 * gDim bytes: 64 text bytes, then the embedding */

static void die(const char *zWhat) {
  fprintf(stderr, "bench_redis: %s: %s\n", zWhat, gC && gC->err ? gC->errstr : "unexpected reply");
  exit(1);
}
static void expectReply(redisReply *r, const char *zWhat) {
  if (!r || r->type == REDIS_REPLY_ERROR) die(zWhat);
  freeReplyObject(r);
}
static void command(const char *zWhat, const char *zFmt, ...) {
  va_list ap;
  va_start(ap, zFmt);
  redisReply *r = redisvCommand(gC, zFmt, ap);
  va_end(ap);
  expectReply(r, zWhat);
}

/* kind: 0 SET, 1 GET (hit), 2 GET (miss), 3 DEL. nVal: bytes of each value (SET). Returns ns per op. */
static double runOps(int kind, size_t nVal, int pipelined) {
  size_t stride = 64 + 4 * (size_t)gDim;
  double t0 = nowNs();
  uint32_t nPending = 0, nFound = 0;
  for (uint32_t i = 0; i < gN; i++) {
    uint32_t j = kind == 0 ? i : gPerm[i];
    const char *k = kind == 2 ? gMiss[j] : gKey[j];
    if (!pipelined) {
      redisReply *r = kind == 0 ? redisCommand(gC, "SET %b %b", k, (size_t)10, gVal + (size_t)j * stride, nVal)
                      : kind == 3 ? redisCommand(gC, "DEL %b", k, (size_t)10)
                                  : redisCommand(gC, "GET %b", k, (size_t)10);
      if (!r || r->type == REDIS_REPLY_ERROR) die("command");
      nFound += r->type == REDIS_REPLY_STRING;
      freeReplyObject(r);
      continue;
    }
    if (kind == 0) redisAppendCommand(gC, "SET %b %b", k, (size_t)10, gVal + (size_t)j * stride, nVal);
    else if (kind == 3) redisAppendCommand(gC, "DEL %b", k, (size_t)10);
    else redisAppendCommand(gC, "GET %b", k, (size_t)10);
    if (++nPending == PIPE || i + 1 == gN) {
      for (; nPending; nPending--) {
        void *pr;
        if (redisGetReply(gC, &pr) != REDIS_OK) die("pipelined reply");
        redisReply *r = pr;
        if (r->type == REDIS_REPLY_ERROR) die("pipelined command");
        nFound += r->type == REDIS_REPLY_STRING;
        freeReplyObject(r);
      }
    }
  }
  double ns = (nowNs() - t0) / gN;
  if (kind == 1 && nFound != gN) die("GET found fewer keys than were set");
  if (kind == 2 && nFound != 0) die("GET of absent keys found some");
  return ns;
}

/* Fetch every embedding (pipelined GETs) and keep the 10 best inner products with q. ms. */
static double searchClient(const float *q) {
  double t0 = nowNs();
  float best[10];
  uint32_t nBest = 0;
  float *v = malloc(4 * (size_t)gDim);
  uint32_t nPending = 0, iNext = 0;
  for (uint32_t i = 0; i < gN; i++) {
    redisAppendCommand(gC, "GET %b", gKey[i], (size_t)10);
    if (++nPending < PIPE && i + 1 < gN) continue;
    for (; nPending; nPending--, iNext++) {
      void *pr;
      if (redisGetReply(gC, &pr) != REDIS_OK) die("search reply");
      redisReply *r = pr;
      if (r->type != REDIS_REPLY_STRING || r->len != 64 + 4 * (size_t)gDim) die("search value");
      memcpy(v, r->str + 64, 4 * (size_t)gDim);
      float s = 0;
      for (uint32_t d = 0; d < gDim; d++) s += v[d] * q[d];
      if (nBest < 10) best[nBest++] = s;
      else {
        uint32_t w = 0;
        for (uint32_t b = 1; b < 10; b++)
          if (best[b] < best[w]) w = b;
        if (s > best[w]) best[w] = s;
      }
      freeReplyObject(r);
    }
  }
  free(v);
  return (nowNs() - t0) / 1e6;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: bench_redis HOST PORT [N DIM ROUNDS]\n");
    return 2;
  }
  gN = argc > 3 ? (uint32_t)atoi(argv[3]) : 10000;
  gDim = argc > 4 ? (uint32_t)atoi(argv[4]) : 384;
  uint32_t rounds = argc > 5 ? (uint32_t)atoi(argv[5]) : 5;
  gC = redisConnect(argv[1], atoi(argv[2]));
  if (!gC || gC->err) die("connect");
  size_t stride = 64 + 4 * (size_t)gDim;
  gKey = malloc(sizeof(*gKey) * gN), gMiss = malloc(sizeof(*gMiss) * gN), gPerm = malloc(4 * (size_t)gN);
  gVal = malloc(stride * gN);
  if (!gKey || !gMiss || !gPerm || !gVal) die("out of memory");
  uint64_t s = 0x2545F4914F6CDD1Dull; /* the same generator and seed as `cairn eph bench` */
  for (uint32_t i = 0; i < gN; i++) {
    snprintf(gKey[i], 16, "key:%06u", i);
    snprintf(gMiss[i], 16, "nok:%06u", i);
    gPerm[i] = i;
  }
  for (uint32_t i = gN - 1; i > 0; i--) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    uint32_t j = (uint32_t)(s % (i + 1)), t = gPerm[i];
    gPerm[i] = gPerm[j], gPerm[j] = t;
  }
  for (uint32_t i = 0; i < gN; i++) {
    char *p = gVal + (size_t)i * stride;
    memset(p, 'v', 64);
    for (uint32_t d = 0; d < gDim; d++) {
      s ^= s << 13, s ^= s >> 7, s ^= s << 17;
      float f = (float)(s >> 40) / (float)(1 << 24) - 0.5f;
      memcpy(p + 64 + 4 * d, &f, 4);
    }
  }
  /* [pipelined][SET, GET, miss, DEL, SET with embedding] */
  double best[2][5];
  for (int p = 0; p < 2; p++)
    for (int k = 0; k < 5; k++) best[p][k] = INFINITY;
  double bestSearch = INFINITY;
  for (uint32_t r = 0; r < rounds; r++) {
    for (int p = 0; p < 2; p++) {
      command("FLUSHALL", "FLUSHALL");
      double a[5];
      a[0] = runOps(0, 64, p), a[1] = runOps(1, 0, p), a[2] = runOps(2, 0, p), a[3] = runOps(3, 0, p);
      a[4] = runOps(0, stride, p);
      for (int k = 0; k < 5; k++) best[p][k] = fmin(best[p][k], a[k]);
    }
    float q[8192];
    memcpy(q, gVal + (size_t)((r * 7919) % gN) * stride + 64, 4 * (size_t)gDim);
    bestSearch = fmin(bestSearch, searchClient(q));
  }
  command("FLUSHALL", "FLUSHALL");
  printf("{\"n\":%u,\"dim\":%u,\"rounds\":%u,\"pipe\":%d,\"set_ns\":%.1f,\"get_ns\":%.1f,\"miss_ns\":%.1f,\"delete_ns\":%.1f,"
         "\"set_emb_ns\":%.1f,\"set_ns_pipe\":%.1f,\"get_ns_pipe\":%.1f,\"miss_ns_pipe\":%.1f,\"delete_ns_pipe\":%.1f,"
         "\"set_emb_ns_pipe\":%.1f,\"search_ms_pipe\":%.3f}\n",
         gN, gDim, rounds, PIPE, best[0][0], best[0][1], best[0][2], best[0][3], best[0][4], best[1][0], best[1][1], best[1][2],
         best[1][3], best[1][4], bestSearch);
  redisFree(gC);
  return 0;
}
