/*
** 2026-11-29
**
** cli/cmd_mem.c - the agent-memory commands of the cairn CLI (native and WASI):
**   cairn mem add FILE [TEXT...] [--jsonl MEMORIES.jsonl] [--session S] [--role R] [--tier N] [--importance X] [--meta JSON]
**                 [--time MS] [--embedding v1,v2,...] [--no-checkpoint]
**                 new stores: [--dim N] [--metric cosine|ip|l2] [--disk f32|f16|int8] [--text-only]
**                 (--no-checkpoint: the new memories stay in the log after the HDF5 part, which
**                 h5py sees only after the next checkpoint)
**   cairn mem checkpoint FILE     move the log into the HDF5 datasets (h5py/h5dump then see all)
**   cairn mem search FILE QUERY [--k N] [--mode auto|hybrid|vector|bm25] [--filter JSON]
**                 [--index auto|flat|f16|int8|ivf|ivfpq] [--nprobe N] [--fusion rrf|weighted]
**                 [--recency W] [--json]
**   cairn mem stats FILE
**   cairn mem verify FILE        check every checksum; non-zero exit on damage, with what is lost
**   cairn mem salvage FILE -o NEW  copy every memory that verifies into a new store
**   every mem command: [--busy-timeout MS] (default 5000) how long to wait for another writer
**   cairn mem index FILE --kind ivf|ivfpq [--nlist N] [--m M]
**   cairn mem demo [FILE]     ingest the built-in demo conversation and answer its questions
**   cairn eval locomo FILE.json [--mode auto|bm25|vector|hybrid|all] [--speaker text|role] [--dim N] [--fusion rrf|weighted]
**                 [--wv W (vector weight, BM25 gets 1-W)] [--json]
** The evaluator ranks every turn of each LoCoMo conversation for each question with evidence
** (categories 1-4) and reports turn- and session-level recall_any@1/5/10, recall_all@5, MRR and
** NDCG@10, per category and overall, plus index build time and the median query latency.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#if CAIRN_WITH_MEM
#include "cairn/json.h"

static int64_t nowNs(void) {
  const cairn_host *h = cairn_host_get();
  return h->xClock ? h->xClock(h->pCtx, 1) : 0;
}

static int parseMode(const char *z, int *p) {
  if (!strcmp(z, "auto")) *p = CAIRN_MEM_AUTO;
  else if (!strcmp(z, "hybrid")) *p = CAIRN_MEM_HYBRID;
  else if (!strcmp(z, "vector")) *p = CAIRN_MEM_VECTOR;
  else if (!strcmp(z, "bm25")) *p = CAIRN_MEM_BM25;
  else return 0;
  return 1;
}

static const char *const azIndex[] = {"auto", "flat", "f16", "int8", "ivf", "ivfpq"};

static void printJsonStr(const char *z) {
  putchar('"');
  for (; z && *z; z++) {
    if (*z == '"' || *z == '\\') printf("\\%c", *z);
    else if ((unsigned char)*z < 0x20) printf("\\u%04x", (unsigned char)*z);
    else putchar(*z);
  }
  putchar('"');
}

static void printHit(cairn_mem *m, const cairn_mem_hit *h, int rank, int json) {
  cairn_mem_record r;
  if (h->version ? cairn_mem_get_version(m, h->version, &r) : cairn_mem_get(m, h->id, &r)) return;
  if (json) {
    printf("{\"id\":%llu,\"version\":%llu,\"score\":%.6g,\"session\":", (unsigned long long)h->id, (unsigned long long)r.version, (double)h->score);
    printJsonStr(r.zSession);
    printf(",\"role\":");
    printJsonStr(r.zRole);
    if (r.zUser) printf(",\"user\":"), printJsonStr(r.zUser);
    if (r.zAgent) printf(",\"agent\":"), printJsonStr(r.zAgent);
    printf(",\"text\":");
    printJsonStr(r.zText);
    printf("}\n");
  } else {
    printf("%2d. [%llu] %.4f  (%s%s%s)  %s\n", rank, (unsigned long long)h->id, (double)h->score, r.zSession ? r.zSession : "",
           r.zRole ? "/" : "", r.zRole ? r.zRole : "", r.zText);
  }
}

/* --busy-timeout MS (every mem command): how long an open waits for another writer's lock. */
static int64_t gBusyMs = 5000;
static int memBusyOpt(const char *zCmd, int *pArgc, char **argv) {
  for (int i = 1; i < *pArgc; i++) {
    if (strcmp(argv[i], "--busy-timeout")) continue;
    if (i + 1 >= *pArgc) return cliUsage(zCmd, "--busy-timeout needs a value in ms");
    char *zEnd = NULL;
    gBusyMs = strtoll(argv[i + 1], &zEnd, 10);
    if (!zEnd || *zEnd || gBusyMs < 0) return cliUsage(zCmd, "--busy-timeout must be a number of ms >= 0");
    for (int j = i; j + 2 <= *pArgc; j++) argv[j] = argv[j + 2];
    *pArgc -= 2;
    i--;
  }
  return 0;
}

static int memOpen(const char *zCmd, const char *zPath, const cairn_mem_config *cfg, cairn_mem **pp) {
  cairn_mem_config c;
  if (cfg) c = *cfg;
  else memset(&c, 0, sizeof c);
  c.busyTimeoutMs = gBusyMs ? gBusyMs : -1; /* 0: try once */
  int rc = cairn_mem_open(zPath, &c, pp);
  return rc ? cliFail(zCmd, rc) : 0;
}

/* The whole of an input ("-", pipes and FIFOs read to their end), NUL-terminated; free() it. */
static int readAll(const char *zPath, char **pz, size_t *pn) {
  cairn_file *f;
  *pz = NULL, *pn = 0;
  int rc = cliInput(zPath, &f);
  if (rc) return rc;
  uint64_t size;
  rc = cairn_file_size(f, &size);
  char *z = rc ? NULL : malloc((size_t)size + 1);
  if (!rc && !z) rc = cairn_seterr(CAIRN_NOMEM, "%s: %llu bytes", zPath, (unsigned long long)size);
  if (!rc) rc = cairn_file_read_exact(f, z, (size_t)size, 0);
  cairn_file_close(f);
  if (rc) {
    free(z);
    return rc;
  }
  z[size] = 0;
  *pz = z, *pn = (size_t)size;
  return CAIRN_OK;
}

/* Add every line of a JSONL file ({"text": ..., "session": ..., "embedding": [...], ...});
** commits every 1000 lines. Errors name the line. zPutOpts: the dedup options of cairn_mem_put_json. */
static int addJsonl(cairn_mem *m, const char *zPath, const char *zPutOpts) {
  char *z;
  size_t nz;
  int rc = readAll(zPath, &z, &nz);
  if (rc) return rc;
  long line = 0, nAdded = 0, nDup = 0;
  for (char *p = z; rc == CAIRN_OK && *p;) {
    char *e = strchr(p, '\n');
    if (e) *e = 0;
    line++;
    char *t = p;
    while (*t == ' ' || *t == '\t' || *t == '\r') t++;
    if (*t) {
      char *zRes = NULL;
      rc = cairn_mem_put_json(m, p, zPutOpts, &zRes);
      if (rc) {
        char zMsg[512];
        snprintf(zMsg, sizeof zMsg, "%s", cairn_errmsg());
        rc = cairn_seterr(rc, "%s line %lld: %s", zPath, (long long)line, zMsg);
      } else {
        if (strstr(zRes, "\"version\":0,")) nDup++;
        else nAdded++;
        if ((nAdded + nDup) % 1000 == 0) rc = cairn_mem_commit(m);
      }
      cairn_free(zRes);
    }
    p = e ? e + 1 : p + strlen(p);
  }
  free(z);
  if (rc == CAIRN_OK) {
    if (nDup) cliNote("%ld memories added from %s, %ld duplicates not stored again\n", nAdded, zPath, nDup);
    else cliNote("%ld memories added from %s\n", nAdded, zPath);
  }
  return rc;
}

/* A query or memory vector: a JSON array of numbers, or raw little-endian f32 (FILE or "-"). */
static int readVector(const char *zCmd, const char *zPath, float **pa, uint32_t *pn) {
  char *z;
  size_t n;
  *pa = NULL, *pn = 0;
  int rc = readAll(zPath, &z, &n);
  if (rc) return cliFail(zCmd, rc);
  size_t i = 0;
  while (i < n && (z[i] == ' ' || z[i] == '\n' || z[i] == '\t' || z[i] == '\r')) i++;
  float *a = NULL;
  uint32_t k = 0;
  if (i < n && z[i] == '[') {
    a = malloc((n / 2 + 1) * sizeof(float));
    char *p = z + i + 1;
    for (;;) {
      while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') p++;
      if (*p == ']') break;
      char *e;
      double d = strtod(p, &e);
      if (e == p || !(d == d) || d - d != 0) {
        free(a), free(z);
        return cliUsage(zCmd, "%s: element %u of the vector is not a finite number", zPath, k);
      }
      a[k++] = (float)d;
      p = e;
      while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') p++;
      if (*p == ',') p++;
      else if (*p != ']') {
        free(a), free(z);
        return cliUsage(zCmd, "%s: expected ',' or ']' after element %u", zPath, k - 1);
      }
    }
  } else {
    if (n == 0 || n % 4) {
      free(z);
      return cliUsage(zCmd, "%s: %zu bytes is not a JSON array nor raw f32 (a multiple of 4 bytes)", zPath, n);
    }
    k = (uint32_t)(n / 4);
    a = malloc(n);
    for (uint32_t j = 0; j < k; j++) {
      uint8_t *b = (uint8_t *)z + 4 * j;
      uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
      memcpy(&a[j], &u, 4);
      if (!(a[j] == a[j]) || a[j] - a[j] != 0) {
        free(a), free(z);
        return cliUsage(zCmd, "%s: element %u of the vector is not a finite number", zPath, j);
      }
    }
  }
  free(z);
  if (k == 0) {
    free(a);
    return cliUsage(zCmd, "%s: the vector is empty", zPath);
  }
  *pa = a, *pn = k;
  return 0;
}

int cliMemAdd(int argc, char **argv) {
  if (memBusyOpt("mem add", &argc, argv)) return 1;
  const char *zCmd = "mem add";
  if (argc < 3) return cliUsage(zCmd, "need FILE and TEXT");
  cairn_mem_config cfg = {0, CAIRN_METRIC_COSINE, 0, 0, 0, 0, 0, 0};
  cairn_mem_record r;
  memset(&r, 0, sizeof r);
  const char *zFile = argv[1];
  const char *azText[256];
  const char *zJsonl = NULL; /* a file of JSON objects, one memory per line */
  const char *zModel = NULL;
  int nText = 0, json = 0;
  float *aEmb = NULL;
  uint32_t nEmb = 0;
  cairn_mem_put_opts po;
  memset(&po, 0, sizeof po);
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int isFlag = !strcmp(a, "--text-only") || !strcmp(a, "--no-checkpoint") || !strcmp(a, "--no-dedup") || !strcmp(a, "--json");
    if (a[0] == '-' && a[1] == '-' && !v && !isFlag) return cliUsage(zCmd, "option %s needs a value", a);
    if (!strcmp(a, "--no-checkpoint")) cfg.checkpointEvery = UINT32_MAX;
    else if (!strcmp(a, "--no-dedup")) po.noExact = 1;
    else if (!strcmp(a, "--json")) json = 1;
    else if (!strcmp(a, "--user")) r.zUser = v, i++;
    else if (!strcmp(a, "--model")) zModel = v, i++;
    else if (!strcmp(a, "--agent")) r.zAgent = v, i++;
    else if (!strcmp(a, "--run")) r.zSession = v, i++;
    else if (!strcmp(a, "--near")) {
      char *e;
      po.nearThreshold = strtof(v, &e);
      if (*e || !(po.nearThreshold > 0 && po.nearThreshold <= 1)) return cliUsage(zCmd, "--near must be a similarity in (0, 1]");
      i++;
    } else if (!strcmp(a, "--near-policy")) {
      if (!strcmp(v, "keep")) po.nearPolicy = CAIRN_MEM_NEAR_KEEP;
      else if (!strcmp(v, "skip")) po.nearPolicy = CAIRN_MEM_NEAR_SKIP;
      else if (!strcmp(v, "supersede")) po.nearPolicy = CAIRN_MEM_NEAR_SUPERSEDE;
      else return cliUsage(zCmd, "--near-policy must be keep, skip or supersede");
      i++;
    } else if (!strcmp(a, "--vector")) {
      free(aEmb);
      int e = readVector(zCmd, v, &aEmb, &nEmb);
      if (e) return e;
      i++;
    } else if (!strcmp(a, "--session")) r.zSession = v, i++;
    else if (!strcmp(a, "--role")) r.zRole = v, i++;
    else if (!strcmp(a, "--tier")) r.tier = atoi(v), i++;
    else if (!strcmp(a, "--importance")) r.importance = (float)atof(v), i++;
    else if (!strcmp(a, "--meta")) r.zMeta = v, i++;
    else if (!strcmp(a, "--time")) r.eventMs = strtoll(v, NULL, 10), i++;
    else if (!strcmp(a, "--dim")) cfg.dim = (uint32_t)atoi(v), i++;
    else if (!strcmp(a, "--disk")) {
      if (!strcmp(v, "f32")) cfg.diskVectors = CAIRN_MEM_DISK_F32;
      else if (!strcmp(v, "f16")) cfg.diskVectors = CAIRN_MEM_DISK_F16;
      else if (!strcmp(v, "int8")) cfg.diskVectors = CAIRN_MEM_DISK_INT8;
      else return cliUsage(zCmd, "--disk must be f32, f16 or int8");
      i++;
    } else if (!strcmp(a, "--text-only")) cfg.textOnly = 1;
    else if (!strcmp(a, "--jsonl")) zJsonl = v, i++;
    else if (!strcmp(a, "--metric")) {
      if (!strcmp(v, "cosine")) cfg.metric = CAIRN_METRIC_COSINE;
      else if (!strcmp(v, "ip")) cfg.metric = CAIRN_METRIC_IP;
      else if (!strcmp(v, "l2")) cfg.metric = CAIRN_METRIC_L2;
      else return cliUsage(zCmd, "unknown metric '%s'", v);
      i++;
    } else if (!strcmp(a, "--embedding")) {
      free(aEmb);
      aEmb = malloc((strlen(v) / 2 + 2) * sizeof(float));
      nEmb = 0;
      for (const char *z = v; *z;) {
        char *e;
        aEmb[nEmb++] = strtof(z, &e);
        if (e == z) {
          free(aEmb);
          return cliUsage(zCmd, "bad number in --embedding at '%s'", z);
        }
        z = *e == ',' ? e + 1 : e;
      }
      i++;
    } else if (a[0] == '-' && a[1] == '-') {
      free(aEmb);
      return cliUsage(zCmd, "unknown option '%s'", a);
    } else if (nText < 256) azText[nText++] = a;
  }
  if (nText == 0 && !zJsonl) {
    free(aEmb);
    return cliUsage(zCmd, "need at least one TEXT or --jsonl FILE");
  }
  cairn_mem *m;
  if (memOpen(zCmd, zFile, &cfg, &m)) {
    free(aEmb);
    return 1;
  }
  r.aEmbedding = aEmb, r.nEmbedding = nEmb;
  int rc = zModel ? cairn_mem_model(m, zModel) : CAIRN_OK;
  static const char *const azStatus[] = {"added", "exact", "near_kept", "near_skipped", "superseded"};
  for (int i = 0; i < nText && rc == CAIRN_OK; i++) {
    cairn_mem_put_result res;
    r.zText = azText[i];
    rc = cairn_mem_put(m, &r, &po, &res);
    if (rc) break;
    if (json) {
      printf("{\"id\":%llu,\"version\":%llu,\"status\":\"%s\"", (unsigned long long)res.id, (unsigned long long)res.version, azStatus[res.status]);
      if (res.duplicateOf) printf(",\"duplicateOf\":%llu,\"similarity\":%.6g", (unsigned long long)res.duplicateOf, (double)res.similarity);
      printf("}\n");
    } else {
      printf("%llu\n", (unsigned long long)res.id);
      if (res.status == CAIRN_MEM_PUT_EXACT) cliNote("already stored as %llu (its access counted)\n", (unsigned long long)res.id);
      else if (res.duplicateOf)
        cliNote("near duplicate of %llu (similarity %.3f): %s\n", (unsigned long long)res.duplicateOf, (double)res.similarity,
                res.status == CAIRN_MEM_PUT_NEAR_SKIP ? "not stored" : res.status == CAIRN_MEM_PUT_SUPERSEDED ? "stored as its new version" : "stored");
    }
  }
  char zPutOpts[128];
  snprintf(zPutOpts, sizeof zPutOpts, "{\"dedup\":%s,\"nearThreshold\":%.6g,\"nearPolicy\":\"%s\"}", po.noExact ? "false" : "true",
           (double)po.nearThreshold, po.nearPolicy == CAIRN_MEM_NEAR_SKIP ? "skip" : po.nearPolicy == CAIRN_MEM_NEAR_SUPERSEDE ? "supersede" : "keep");
  if (rc == CAIRN_OK && zJsonl) rc = addJsonl(m, zJsonl, zPutOpts);
  if (rc == CAIRN_OK) rc = cairn_mem_commit(m);
  free(aEmb);
  if (rc) {
    cliFail(zCmd, rc);
    cairn_mem_close(m);
    return 1;
  }
  cairn_mem_close(m);
  return 0;
}

int cliMemSearch(int argc, char **argv) {
  if (memBusyOpt("mem search", &argc, argv)) return 1;
  const char *zCmd = "mem search";
  if (argc < 3) return cliUsage(zCmd, "need FILE and QUERY");
  cairn_mem_query q;
  memset(&q, 0, sizeof q);
  q.k = 5;
  const char *zFilter = NULL, *zUser = NULL, *zAgent = NULL, *zRun = NULL, *zModel = NULL;
  float *aVec = NULL;
  int json = 0;
  for (int i = 3; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--json")) {
      json = 1;
      continue;
    }
    if (!v) return cliUsage(zCmd, "option %s needs a value", a);
    i++;
    if (!strcmp(a, "--user")) zUser = v;
    else if (!strcmp(a, "--model")) zModel = v;
    else if (!strcmp(a, "--agent")) zAgent = v;
    else if (!strcmp(a, "--run") || !strcmp(a, "--session")) zRun = v;
    else if (!strcmp(a, "--as-of")) {
      char *e;
      q.asOfMs = strtoll(v, &e, 10);
      if (*e || q.asOfMs <= 0) return cliUsage(zCmd, "--as-of must be a time in ms since 1970");
    } else if (!strcmp(a, "--vector")) {
      free(aVec);
      int e = readVector(zCmd, v, &aVec, &q.nEmbedding);
      if (e) return e;
      q.aEmbedding = aVec;
    } else if (!strcmp(a, "--k")) q.k = (uint32_t)atoi(v);
    else if (!strcmp(a, "--mode")) {
      if (!parseMode(v, &q.mode)) return cliUsage(zCmd, "mode must be auto, hybrid, vector or bm25");
    } else if (!strcmp(a, "--filter")) zFilter = v;
    else if (!strcmp(a, "--nprobe")) q.nprobe = (uint32_t)atoi(v);
    else if (!strcmp(a, "--recency")) q.recencyWeight = (float)atof(v);
    else if (!strcmp(a, "--fusion")) {
      if (!strcmp(v, "rrf")) q.fusion = CAIRN_FUSE_RRF;
      else if (!strcmp(v, "weighted")) q.fusion = CAIRN_FUSE_WEIGHTED;
      else return cliUsage(zCmd, "fusion must be rrf or weighted");
    } else if (!strcmp(a, "--index")) {
      int k = -1;
      for (int j = 0; j < 6; j++)
        if (!strcmp(v, azIndex[j])) k = j;
      if (k < 0) return cliUsage(zCmd, "index must be auto, flat, f16, int8, ivf or ivfpq");
      q.vindex = k;
    } else return cliUsage(zCmd, "unknown option '%s'", a);
  }
  if (q.k == 0 || q.k > 1000) {
    free(aVec);
    return cliUsage(zCmd, "--k must be 1..1000");
  }
  cairn_mem_config cfg = {0, 0, 1, 0, 0, 0, 0, 0};
  cairn_mem *m;
  if (memOpen(zCmd, argv[1], &cfg, &m)) {
    free(aVec);
    return 1;
  }
  if (zModel && cairn_mem_model(m, zModel)) {
    free(aVec);
    cliFail(zCmd, CAIRN_MISUSE);
    cairn_mem_close(m);
    return 1;
  }
  cairn_mem_filter f;
  memset(&f, 0, sizeof f);
  char *arena = NULL;
  int rc = CAIRN_OK;
  if (zFilter) rc = cairn_mem_filter_parse(zFilter, &f, &arena);
  if (zUser) f.zUser = zUser;
  if (zAgent) f.zAgent = zAgent;
  if (zRun) f.zSession = zRun;
  if (zFilter || zUser || zAgent || zRun) q.pFilter = &f;
  q.zText = argv[2][0] ? argv[2] : NULL; /* "" with --vector: the vector alone */
  cairn_mem_hit *h = malloc(q.k * sizeof(cairn_mem_hit));
  uint32_t n = 0;
  if (rc == CAIRN_OK) rc = cairn_mem_search(m, &q, h, &n);
  if (rc == CAIRN_OK)
    for (uint32_t i = 0; i < n; i++) printHit(m, &h[i], (int)i + 1, json);
  free(h);
  free(aVec);
  cairn_free(arena);
  if (rc) cliFail(zCmd, rc);
  cairn_mem_close(m);
  return rc ? 1 : 0;
}

/* mem stats --json: one object (docs/memory.md "mem stats --json"); the keys are stable. */
static void memStatsJson(const cairn_mem_stats *s, const char *const *azMetric, const char *const *azDisk) {
  printf("{\"memories\":%llu,\"textOnly\":%s,\"dim\":%u,\"metric\":", (unsigned long long)s->nMemory, s->textOnly ? "true" : "false",
         s->textOnly ? 0 : s->dim);
  cliJsonStr(s->textOnly ? NULL : azMetric[s->metric]);
  printf(",\"diskVectors\":");
  cliJsonStr(s->textOnly ? NULL : azDisk[s->diskVectors]);
  printf(",\"model\":");
  cliJsonStr(s->zModel && s->zModel[0] ? s->zModel : NULL);
  printf(",\"sessions\":%u,\"roles\":%u,\"terms\":%u,\"postings\":%llu,\"textBytes\":%llu,\"fileBytes\":%llu,\"index\":", s->nSession,
         s->nRole, s->nTerm, (unsigned long long)s->nPosting, (unsigned long long)s->nTextBytes, (unsigned long long)s->nFileBytes);
  cliJsonStr(s->ivfKind ? azIndex[s->ivfKind] : "exact");
  printf(",\"nlist\":%u,\"format\":%d,\"checkpointed\":%llu,\"logBytes\":%llu,\"kernel\":", s->ivfKind ? s->ivfNlist : 0, s->format,
         (unsigned long long)s->nCheckpointed, (unsigned long long)s->nLogBytes);
  cliJsonStr(s->zKernel);
  printf(",\"openMs\":%.3f}\n", (double)s->openNs / 1e6);
}

int cliMemStats(int argc, char **argv) {
  if (memBusyOpt("mem stats", &argc, argv)) return 1;
  int json = cliTakeJson(&argc, argv);
  if (argc < 2) return cliUsage("mem stats", "need FILE");
  cairn_mem_config cfg = {0, 0, 1, 0, 0, 0, 0, 0};
  cairn_mem *m;
  if (memOpen("mem stats", argv[1], &cfg, &m)) return 1;
  cairn_mem_stats s;
  cairn_mem_stats_get(m, &s);
  static const char *const azMetric[] = {"cosine", "ip", "l2"};
  static const char *const azDisk[] = {"f32", "f16", "int8"};
  if (json) {
    memStatsJson(&s, azMetric, azDisk);
    cairn_mem_close(m);
    return 0;
  }
  printf("memories    %llu\n", (unsigned long long)s.nMemory);
  if (s.textOnly) printf("vectors     none (text-only store, BM25)\n");
  else printf("vectors     %u dimensions, %s, kept as %s on disk\n", s.dim, azMetric[s.metric], azDisk[s.diskVectors]);
  if (s.zModel && s.zModel[0]) printf("model       %s\n", s.zModel);
  printf("sessions    %u\nroles       %u\n", s.nSession, s.nRole);
  printf("terms       %u (%llu postings)\n", s.nTerm, (unsigned long long)s.nPosting);
  printf("text        %llu bytes\nfile        %llu bytes\n", (unsigned long long)s.nTextBytes, (unsigned long long)s.nFileBytes);
  if (s.ivfKind) printf("index       %s, %u lists%s\n", azIndex[s.ivfKind], s.ivfNlist, s.ivfKind == CAIRN_VINDEX_IVFPQ ? " + PQ" : "");
  else printf("index       exact (flat, f16, int8 scans)\n");
  if (s.format == 2)
    printf("file format HDF5 (/memory) + log: %llu memories in the HDF5 datasets, %llu log bytes after them\n",
           (unsigned long long)s.nCheckpointed, (unsigned long long)s.nLogBytes);
  else printf("file format log-only (format 1, before 2026-11-29; not readable by HDF5 tools)\n");
  printf("kernels     %s\nopen        %.3f ms (HDF5 read + log replay + BM25 rebuild)\n", s.zKernel, (double)s.openNs / 1e6);
  cairn_mem_close(m);
  return 0;
}

int cliMemCheckpoint(int argc, char **argv) {
  if (memBusyOpt("mem checkpoint", &argc, argv)) return 1;
  const char *zCmd = "mem checkpoint";
  if (argc < 2) return cliUsage(zCmd, "need FILE");
  cairn_mem *m;
  if (memOpen(zCmd, argv[1], NULL, &m)) return 1;
  cairn_mem_stats s0, s1;
  cairn_mem_stats_get(m, &s0);
  int rc = cairn_mem_checkpoint(m);
  if (rc) cliFail(zCmd, rc);
  else {
    cairn_mem_stats_get(m, &s1);
    cliNote("%llu memories in the HDF5 datasets (%llu were), %.1f ms\n", (unsigned long long)s1.nCheckpointed,
            (unsigned long long)s0.nCheckpointed, s1.nCheckpoint ? (double)s1.checkpointNs / 1e6 : 0.0);
  }
  cairn_mem_close(m);
  return rc ? 1 : 0;
}

int cliMemIndex(int argc, char **argv) {
  if (memBusyOpt("mem index", &argc, argv)) return 1;
  const char *zCmd = "mem index";
  if (argc < 2) return cliUsage(zCmd, "need FILE");
  cairn_mem_index_config ic;
  memset(&ic, 0, sizeof ic);
  ic.kind = CAIRN_VINDEX_IVF;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--kind")) ic.kind = !strcmp(argv[i + 1], "ivfpq") ? CAIRN_VINDEX_IVFPQ : CAIRN_VINDEX_IVF;
    else if (!strcmp(argv[i], "--nlist")) ic.nlist = (uint32_t)atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--m")) ic.pqM = (uint32_t)atoi(argv[i + 1]);
    else return cliUsage(zCmd, "unknown option '%s'", argv[i]);
  }
  cairn_mem *m;
  if (memOpen(zCmd, argv[1], NULL, &m)) return 1;
  int64_t t0 = nowNs();
  int rc = cairn_mem_build_index(m, &ic);
  if (rc == CAIRN_OK) rc = cairn_mem_commit(m);
  if (rc) cliFail(zCmd, rc);
  else cliNote("index built in %.1f ms\n", (double)(nowNs() - t0) / 1e6);
  cairn_mem_close(m);
  return rc ? 1 : 0;
}

int cliMemVerify(int argc, char **argv) {
  const char *zCmd = "mem verify";
  if (memBusyOpt(zCmd, &argc, argv)) return 1;
  if (argc != 2) return cliUsage(zCmd, "need FILE");
  cairn_file *f = NULL;
  if (cliOpenRead(zCmd, argv[1], &f)) return 1;
  cairn_set_busy_timeout(gBusyMs);
  cairn_mem_verify_info v;
  int rc = cairn_mem_verify(f, &v);
  cairn_file_close(f);
  if (rc && !v.damaged) return cliFail(zCmd, rc);
  if (!v.damaged) {
    printf("ok: %llu memories intact (%llu in the HDF5 datasets)%s\n", (unsigned long long)v.nIntact, (unsigned long long)v.nCheckpointed,
           v.checksums ? ", every byte under a checksum" : "; the HDF5 part predates its checksums (checkpoint to add them)");
    if (v.nTornBytes) printf("note: %llu bytes after the last commit (a commit a crash interrupted; never acknowledged)\n", (unsigned long long)v.nTornBytes);
    return 0;
  }
  printf("DAMAGED: %s\n", v.zDamage);
  if (v.damageOffset) printf("  first damage at offset %llu\n", (unsigned long long)v.damageOffset);
  printf("  memories: %llu, intact %llu, lost %llu\n", (unsigned long long)v.nMemory, (unsigned long long)v.nIntact, (unsigned long long)v.nLost);
  if (v.indexDamaged) printf("  the IVF index is damaged (no memory is lost by it: rebuild with cairn mem index)\n");
  if (v.nTornBytes) printf("  %llu bytes after the last commit\n", (unsigned long long)v.nTornBytes);
  printf("  writers refuse this store; copy what is intact: cairn mem salvage %s -o NEW\n", argv[1]);
  return 1;
}

int cliMemSalvage(int argc, char **argv) {
  const char *zCmd = "mem salvage";
  if (memBusyOpt(zCmd, &argc, argv)) return 1;
  if (argc != 4 || strcmp(argv[2], "-o")) return cliUsage(zCmd, "need FILE -o NEW");
  const char *zIn = argv[1], *zOut = argv[3];
  if (!strcmp(zIn, zOut)) return cliUsage(zCmd, "refusing to write the salvage over its input");
  cairn_file *in = NULL, *out = NULL;
  if (cliOpenRead(zCmd, zIn, &in)) return 1;
  int rc = cairn_open(zOut, CAIRN_OPEN_READWRITE | CAIRN_OPEN_CREATE | CAIRN_OPEN_EXCLUSIVE, &out);
  if (rc) {
    cairn_file_close(in);
    return cliFail(zCmd, rc);
  }
  cairn_set_busy_timeout(gBusyMs);
  cairn_mem_verify_info v;
  rc = cairn_mem_salvage(in, out, &v);
  int rc2 = cairn_file_close(out);
  if (!rc) rc = rc2;
  cairn_file_close(in);
  if (rc) {
    remove(zOut); /* no partial output */
    return cliFail(zCmd, rc);
  }
  cliNote("%llu memories copied to %s, %llu lost%s%s\n", (unsigned long long)v.nIntact, zOut, (unsigned long long)v.nLost,
          v.damaged ? "; first damage: " : " (nothing was damaged)", v.damaged ? v.zDamage : "");
  return 0;
}

int cliMemDemo(int argc, char **argv) {
  const char *zCmd = "mem demo";
  cairn_mem *m;
  if (memOpen(zCmd, argc > 1 ? argv[1] : NULL, NULL, &m)) return 1;
  size_t nTurn, nQ;
  const cairn_mem_demo_turn *aT = cairn_mem_demo_turns(&nTurn);
  const cairn_mem_demo_question *aQ = cairn_mem_demo_questions(&nQ);
  int rc = CAIRN_OK;
  for (size_t i = 0; i < nTurn && rc == CAIRN_OK; i++) {
    cairn_mem_record r;
    memset(&r, 0, sizeof r);
    char zT[512]; /* "Speaker: text", so questions that name a person find their turns */
    snprintf(zT, sizeof zT, "%s: %s", aT[i].zSpeaker, aT[i].zText);
    r.zText = zT, r.zSession = aT[i].zSession, r.zRole = aT[i].zSpeaker;
    r.eventMs = aT[i].eventMs, r.createdMs = aT[i].eventMs;
    rc = cairn_mem_add(m, &r, NULL);
  }
  if (rc == CAIRN_OK) rc = cairn_mem_commit(m);
  if (rc) {
    cliFail(zCmd, rc);
    cairn_mem_close(m);
    return 1;
  }
  printf("ingested %zu turns of a synthetic 5-session conversation (built-in hashing embedder:\n"
         "it matches shared words and spellings, not meaning)\n",
         nTurn);
  int nTop1 = 0, nTop3 = 0;
  for (size_t i = 0; i < nQ; i++) {
    cairn_mem_query q;
    memset(&q, 0, sizeof q);
    q.zText = aQ[i].zQuestion, q.k = 3, q.mode = CAIRN_MEM_HYBRID;
    cairn_mem_hit h[3];
    uint32_t n;
    rc = cairn_mem_search(m, &q, h, &n);
    if (rc) break;
    printf("\nQ: %s\n", aQ[i].zQuestion);
    for (uint32_t j = 0; j < n; j++) printHit(m, &h[j], (int)j + 1, 0);
    if (n && h[0].id == (uint64_t)aQ[i].iTurn + 1) nTop1++;
    for (uint32_t j = 0; j < n; j++) nTop3 += h[j].id == (uint64_t)aQ[i].iTurn + 1;
  }
  if (rc) cliFail(zCmd, rc);
  else printf("\n%d of %zu questions have the answering turn first, %d in the top 3\n", nTop1, nQ, nTop3);
  cairn_mem_close(m);
  return rc ? 1 : 0;
}

/* ------------------------------------------------------------------ LoCoMo evaluation */
/* "1:56 pm on 8 May, 2023" -> ms since 1970 (0 if it does not parse). */
static int64_t parseLocomoDate(const char *z) {
  static const char *const azMon[] = {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"};
  int h = 0, mi = 0, d = 0, y = 0, mon = -1;
  char ampm[3] = {0};
  const char *p = z;
  h = (int)strtol(p, (char **)&p, 10);
  if (*p == ':') mi = (int)strtol(p + 1, (char **)&p, 10);
  while (*p == ' ') p++;
  ampm[0] = (char)(p[0] | 32), ampm[1] = (char)(p[1] | 32);
  if (ampm[0] == 'p' && h < 12) h += 12;
  if (ampm[0] == 'a' && h == 12) h = 0;
  p = strstr(p, "on ");
  if (!p) return 0;
  d = (int)strtol(p + 3, (char **)&p, 10);
  while (*p == ' ') p++;
  for (int i = 0; i < 12; i++)
    if (((p[0] | 32) == azMon[i][0]) && ((p[1] | 32) == azMon[i][1]) && ((p[2] | 32) == azMon[i][2])) mon = i + 1;
  while (*p && *p != ',') p++;
  if (*p == ',') y = (int)strtol(p + 1, NULL, 10);
  if (mon < 0 || y < 1970) return 0;
  /* days from civil (H. Hinnant) */
  int yy = y - (mon <= 2);
  int era = yy / 400, yoe = yy - era * 400, mp = (mon + 9) % 12;
  int doy = (153 * mp + 2) / 5 + d - 1, doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  int64_t days = (int64_t)era * 146097 + doe - 719468;
  return ((days * 24 + h) * 60 + mi) * 60000;
}

typedef struct Metrics {
  double anyAt[3], all5, mrr, ndcg10; /* sums */
  int n;
} Metrics;

/* Metrics of one ranking (aRank: relevance 0/1 per rank position, nRank long; nRel relevant). */
static void addMetrics(Metrics *mt, const uint8_t *aRel, uint32_t nRank, uint32_t nRel) {
  static const uint32_t aK[3] = {1, 5, 10};
  for (int i = 0; i < 3; i++) {
    int any = 0;
    for (uint32_t r = 0; r < nRank && r < aK[i]; r++) any |= aRel[r];
    mt->anyAt[i] += any;
  }
  uint32_t got5 = 0;
  for (uint32_t r = 0; r < nRank && r < 5; r++) got5 += aRel[r];
  mt->all5 += got5 == nRel;
  for (uint32_t r = 0; r < nRank; r++)
    if (aRel[r]) {
      mt->mrr += 1.0 / (r + 1);
      break;
    }
  double dcg = 0, idcg = 0;
  for (uint32_t r = 0; r < nRank && r < 10; r++)
    if (aRel[r]) dcg += 1 / log2(r + 2.0);
  for (uint32_t r = 0; r < nRel && r < 10; r++) idcg += 1 / log2(r + 2.0);
  mt->ndcg10 += idcg > 0 ? dcg / idcg : 0;
  mt->n++;
}

static int cmpI64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* "D12:7" -> session 12, turn 7; 0 if malformed */
static int parseDia(const char *z, size_t n, int *pSess) {
  if (n < 4 || z[0] != 'D') return 0;
  char b[32];
  if (n >= sizeof b) return 0;
  memcpy(b, z, n);
  b[n] = 0;
  char *e;
  long s = strtol(b + 1, &e, 10);
  if (*e != ':' || s <= 0) return 0;
  long t = strtol(e + 1, &e, 10);
  if (*e || t <= 0) return 0;
  *pSess = (int)s;
  return 1;
}

/* The progress total of eval locomo: every turn of every session and every question, as the
** loops below visit them. Maintenance reminder: follows cliEvalLocomo's walk. */
static uint64_t locomoSteps(cairn_json *j) {
  uint64_t n = 0;
  for (uint32_t conv = cairn_json_child(j, 0); conv; conv = cairn_json_next(j, conv)) {
    uint32_t c = cairn_json_get(j, conv, "conversation"), qa = cairn_json_get(j, conv, "qa");
    if (!c || !qa || cairn_json_type(j, qa) != CAIRN_JSON_ARRAY) continue;
    for (int s = 1;; s++) {
      char zKey[48];
      snprintf(zKey, sizeof zKey, "session_%d", s);
      uint32_t sess = cairn_json_get(j, c, zKey);
      if (!sess && s > 60) break;
      if (sess && cairn_json_type(j, sess) == CAIRN_JSON_ARRAY)
        for (uint32_t t = cairn_json_child(j, sess); t; t = cairn_json_next(j, t)) n++;
    }
    for (uint32_t q = cairn_json_child(j, qa); q; q = cairn_json_next(j, q)) n++;
  }
  return n;
}

/* The modes `cairn eval locomo` can compare in one run, in printing order; the first is the
** store's default (cairn/mem.h CAIRN_MEM_AUTO). */
#define EVAL_NMODE 4
static const int aEvalMode[EVAL_NMODE] = {CAIRN_MEM_AUTO, CAIRN_MEM_BM25, CAIRN_MEM_VECTOR, CAIRN_MEM_HYBRID};
static const char *const azEvalMode[EVAL_NMODE] = {"auto", "bm25", "vector", "hybrid"};

int cliEvalLocomo(int argc, char **argv) {
  const char *zCmd = "eval locomo";
  if (argc < 2) return cliUsage(zCmd, "need FILE.json");
  int json = 0, fusion = CAIRN_FUSE_RRF, full = 0, speakerText = 1;
  int aOn[EVAL_NMODE] = {0}, nOn = 0; /* the modes asked for (none: all of them) */
  uint32_t dim = 0;
  float wv = 0, wb = 0;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) json = 1;
    else if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
      const char *z = argv[++i];
      if (CAIRN_WITH_KG && !strcmp(z, "full")) full = 1; /* cli/cmd_kg.c */
      else if (!strcmp(z, "all"))
        for (int x = 0; x < EVAL_NMODE; x++) aOn[x] = 1;
      else {
        int md, x = 0;
        if (!parseMode(z, &md)) return cliUsage(zCmd, "mode must be auto, bm25, vector, hybrid, all or full");
        while (aEvalMode[x] != md) x++;
        aOn[x] = 1;
      }
    } else if (!strcmp(argv[i], "--speaker") && i + 1 < argc) {
      const char *z = argv[++i];
      if (strcmp(z, "text") && strcmp(z, "role")) return cliUsage(zCmd, "speaker must be text or role");
      speakerText = !strcmp(z, "text");
    } else if (!strcmp(argv[i], "--dim") && i + 1 < argc) dim = (uint32_t)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--fusion") && i + 1 < argc) fusion = !strcmp(argv[++i], "weighted") ? CAIRN_FUSE_WEIGHTED : CAIRN_FUSE_RRF;
    else if (!strcmp(argv[i], "--wv") && i + 1 < argc) wv = (float)atof(argv[++i]), wb = 1 - wv;
    else return cliUsage(zCmd, "unknown option '%s'", argv[i]);
  }
  if (full) {
    /* the graph beside a BM25 store, alone */
    memset(aOn, 0, sizeof aOn);
    aOn[1] = 1;
  }
  for (int x = 0; x < EVAL_NMODE; x++) nOn += aOn[x];
  if (nOn == 0)
    for (int x = 0; x < EVAL_NMODE; x++) aOn[x] = 1, nOn++;
  /* BM25 alone needs no vectors: a text-only store, so its build time is BM25's (auto without a
  ** query vector is BM25 too) */
  int textOnly = !aOn[2] && !aOn[3];
  cairn_file *f;
  if (cliOpenRead(zCmd, argv[1], &f)) return 1;
  uint64_t size;
  int rc = cairn_file_size(f, &size);
  char *z = rc ? NULL : malloc((size_t)size + 1);
  if (z) rc = cairn_file_read_exact(f, z, (size_t)size, 0);
  cairn_file_close(f);
  if (rc || !z) {
    free(z);
    return cliFail(zCmd, rc ? rc : CAIRN_NOMEM);
  }
  cairn_json *j = NULL;
  rc = cairn_json_parse(z, (size_t)size, &j);
  free(z);
  if (rc) return cliFail(zCmd, rc);
  if (cairn_json_type(j, 0) != CAIRN_JSON_ARRAY) {
    cairn_json_free(j);
    fprintf(stderr, "cairn: %s: %s: expected a JSON list of conversations\n", zCmd, argv[1]);
    return 1;
  }
  Metrics aTurnM[EVAL_NMODE][6], aSessM[EVAL_NMODE][6]; /* categories 1..4 at [1..4], overall at [0] */
  memset(aTurnM, 0, sizeof aTurnM);
  memset(aSessM, 0, sizeof aSessM);
  int64_t *aLat[EVAL_NMODE] = {NULL}, buildNs = 0;
  size_t nLat = 0, nLatAlloc = 0, nTurnTotal = 0;
  int nConv = 0;
  uint64_t nStep = 0, nSteps = locomoSteps(j); /* progress: turns added and questions asked */
  cliProgressItems(zCmd, 0, nSteps);
  for (uint32_t conv = cairn_json_child(j, 0); conv && rc == CAIRN_OK; conv = cairn_json_next(j, conv)) {
    uint32_t c = cairn_json_get(j, conv, "conversation"), qa = cairn_json_get(j, conv, "qa");
    if (!c || !qa || cairn_json_type(j, qa) != CAIRN_JSON_ARRAY) continue;
    nConv++;
    cairn_mem_config cfg = {dim, CAIRN_METRIC_COSINE, 0, 0, textOnly, 0, 0, 0};
    cairn_mem *m;
    rc = cairn_mem_open(NULL, &cfg, &m);
    if (rc) break;
    void *pKg = full ? cliKgEvalBegin() : NULL; /* --mode full: the graph beside the store */

    /* turns: session_1, session_2, ... until one is missing */
    char **azDia = NULL;
    int *aSessOf = NULL;
    size_t nDia = 0, nDiaAlloc = 0;
    int64_t t0 = nowNs();
    for (int s = 1; rc == CAIRN_OK; s++) {
      char zKey[48];
      snprintf(zKey, sizeof zKey, "session_%d", s);
      uint32_t sess = cairn_json_get(j, c, zKey);
      if (!sess) {
        if (s > 60) break;
        continue; /* sessions may be numbered with gaps */
      }
      if (cairn_json_type(j, sess) != CAIRN_JSON_ARRAY) continue;
      snprintf(zKey, sizeof zKey, "session_%d_date_time", s);
      uint32_t dt = cairn_json_get(j, c, zKey);
      int64_t when = dt && cairn_json_type(j, dt) == CAIRN_JSON_STRING ? parseLocomoDate(cairn_json_str(j, dt, NULL)) : 0;
      char zSess[32];
      snprintf(zSess, sizeof zSess, "session_%d", s);
      int iTurn = 0;
      for (uint32_t t = cairn_json_child(j, sess); t && rc == CAIRN_OK; t = cairn_json_next(j, t), iTurn++) {
        cliProgressItems(zCmd, ++nStep, nSteps);
        uint32_t sp = cairn_json_get(j, t, "speaker"), tx = cairn_json_get(j, t, "text"), di = cairn_json_get(j, t, "dia_id");
        uint32_t cap = cairn_json_get(j, t, "blip_caption");
        if (!tx || cairn_json_type(j, tx) != CAIRN_JSON_STRING || !di || cairn_json_type(j, di) != CAIRN_JSON_STRING) continue;
        const char *zSp = sp && cairn_json_type(j, sp) == CAIRN_JSON_STRING ? cairn_json_str(j, sp, NULL) : "";
        size_t nb = strlen(zSp) + strlen(cairn_json_str(j, tx, NULL)) + (cap && cairn_json_type(j, cap) == CAIRN_JSON_STRING ? strlen(cairn_json_str(j, cap, NULL)) + 32 : 0) + 8;
        char *zT = malloc(nb);
        /* --speaker text: "Speaker: text" (the format of the published figures); role: the text
        ** alone and the speaker in the role, as an agent adds a user's turns */
        size_t k = speakerText ? (size_t)snprintf(zT, nb, "%s: %s", zSp, cairn_json_str(j, tx, NULL))
                               : (size_t)snprintf(zT, nb, "%s", cairn_json_str(j, tx, NULL));
        if (cap && cairn_json_type(j, cap) == CAIRN_JSON_STRING) snprintf(zT + k, nb - k, " [shares %s]", cairn_json_str(j, cap, NULL));
        cairn_mem_record r;
        memset(&r, 0, sizeof r);
        r.zText = zT, r.zSession = zSess, r.zRole = speakerText ? NULL : zSp;
        r.eventMs = when ? when + iTurn * 1000 : 0;
        r.createdMs = r.eventMs ? r.eventMs : 1;
        uint64_t idAdded = 0;
        rc = cairn_mem_add(m, &r, &idAdded);
        if (pKg && rc == CAIRN_OK) rc = cliKgEvalAdd(pKg, idAdded, &r);
        free(zT);
        if (nDia == nDiaAlloc) {
          nDiaAlloc = nDiaAlloc ? 2 * nDiaAlloc : 1024;
          azDia = realloc(azDia, nDiaAlloc * sizeof(char *));
          aSessOf = realloc(aSessOf, nDiaAlloc * sizeof(int));
        }
        azDia[nDia] = (char *)cairn_json_str(j, di, NULL);
        aSessOf[nDia++] = s;
      }
    }
    buildNs += nowNs() - t0;
    nTurnTotal += nDia;
    uint32_t k = (uint32_t)(nDia < 1000 ? nDia : 1000);
    cairn_mem_hit *aHit = malloc((k + 1) * sizeof(cairn_mem_hit));
    uint8_t *aRel = malloc(k + 1), *aSRel = malloc(k + 1);
    int *aSeenSess = calloc(200, sizeof(int));
    for (uint32_t q = cairn_json_child(j, qa); q && rc == CAIRN_OK && k; q = cairn_json_next(j, q)) {
      cliProgressItems(zCmd, ++nStep, nSteps);
      uint32_t qt = cairn_json_get(j, q, "question"), ev = cairn_json_get(j, q, "evidence"), ca = cairn_json_get(j, q, "category");
      if (!qt || cairn_json_type(j, qt) != CAIRN_JSON_STRING || !ev || cairn_json_type(j, ev) != CAIRN_JSON_ARRAY || !ca || cairn_json_type(j, ca) != CAIRN_JSON_NUMBER) continue;
      int cat = (int)cairn_json_num(j, ca);
      if (cat < 1 || cat > 4) continue;
      /* relevant turns (evidence entries may hold several ids separated by ';' or spaces) */
      size_t aRelTurn[64];
      int aRelSess[64];
      uint32_t nRelT = 0, nRelS = 0;
      for (uint32_t e = cairn_json_child(j, ev); e; e = cairn_json_next(j, e)) {
        if (cairn_json_type(j, e) != CAIRN_JSON_STRING) continue;
        const char *p = cairn_json_str(j, e, NULL);
        while (*p) {
          while (*p == ' ' || *p == ';' || *p == ',') p++;
          const char *w = p;
          while (*p && *p != ' ' && *p != ';' && *p != ',') p++;
          int sess;
          if (p > w && parseDia(w, (size_t)(p - w), &sess)) {
            for (size_t d = 0; d < nDia; d++)
              if (strlen(azDia[d]) == (size_t)(p - w) && !memcmp(azDia[d], w, (size_t)(p - w))) {
                int dup = 0;
                for (uint32_t x = 0; x < nRelT; x++) dup |= aRelTurn[x] == d;
                if (!dup && nRelT < 64) aRelTurn[nRelT++] = d;
                dup = 0;
                for (uint32_t x = 0; x < nRelS; x++) dup |= aRelSess[x] == aSessOf[d];
                if (!dup && nRelS < 64) aRelSess[nRelS++] = aSessOf[d];
              }
          }
        }
      }
      if (nRelT == 0) continue;
      if (nLat == nLatAlloc) {
        nLatAlloc = nLatAlloc ? nLatAlloc * 2 : 1024;
        for (int x = 0; x < EVAL_NMODE; x++) aLat[x] = realloc(aLat[x], nLatAlloc * sizeof(int64_t));
      }
      for (int x = 0; x < EVAL_NMODE && rc == CAIRN_OK; x++) {
        if (!aOn[x]) continue;
        cairn_mem_query qq;
        memset(&qq, 0, sizeof qq);
        qq.zText = cairn_json_str(j, qt, NULL), qq.k = k, qq.mode = aEvalMode[x], qq.fusion = fusion, qq.wVector = wv, qq.wBm25 = wb;
        uint32_t nHit;
        /* latency: the top 10, as an agent asks and as the peers are timed */
        qq.k = (k < 10u ? k : 10u);
        int64_t q0 = nowNs();
        rc = pKg ? cliKgEvalSearch(pKg, m, &qq, aHit, &nHit) : cairn_mem_search(m, &qq, aHit, &nHit);
        aLat[x][nLat] = nowNs() - q0;
        /* metrics: the ranking down to 1000 turns (MRR needs the first relevant hit's rank) */
        qq.k = k;
        if (rc == CAIRN_OK) rc = pKg ? cliKgEvalSearch(pKg, m, &qq, aHit, &nHit) : cairn_mem_search(m, &qq, aHit, &nHit);
        if (rc) break;
        uint32_t nS = 0;
        memset(aSeenSess, 0, 200 * sizeof(int));
        for (uint32_t r = 0; r < nHit; r++) {
          size_t d = (size_t)aHit[r].id - 1;
          aRel[r] = 0;
          for (uint32_t y = 0; y < nRelT; y++) aRel[r] |= aRelTurn[y] == d;
          int s = aSessOf[d];
          if (s > 0 && s < 200 && !aSeenSess[s]) {
            aSeenSess[s] = 1;
            aSRel[nS] = 0;
            for (uint32_t y = 0; y < nRelS; y++) aSRel[nS] |= aRelSess[y] == s;
            nS++;
          }
        }
        addMetrics(&aTurnM[x][cat], aRel, nHit, nRelT);
        addMetrics(&aTurnM[x][0], aRel, nHit, nRelT);
        addMetrics(&aSessM[x][cat], aSRel, nS, nRelS);
        addMetrics(&aSessM[x][0], aSRel, nS, nRelS);
      }
      nLat++;
    }
    free(aHit), free(aRel), free(aSRel), free(aSeenSess), free(azDia), free(aSessOf);
    cliKgEvalEnd(pKg);
    cairn_mem_close(m);
  }
  cairn_json_free(j);
  if (rc == CAIRN_OK) cliProgressItems(zCmd, nSteps, nSteps);
  cliProgressEnd();
  double aMedMs[EVAL_NMODE] = {0};
  for (int x = 0; x < EVAL_NMODE; x++) {
    if (aOn[x] && nLat && rc == CAIRN_OK) {
      qsort(aLat[x], nLat, sizeof(int64_t), cmpI64);
      aMedMs[x] = (double)aLat[x][nLat / 2] / 1e6;
    }
    free(aLat[x]);
  }
  if (rc) return cliFail(zCmd, rc);
  static const char *const azCat[] = {"all", "1-multi-hop", "2-temporal", "3-open-domain", "4-single-hop"};
  const char *zSpeaker = speakerText ? "text" : "role";
  for (int x = 0; x < EVAL_NMODE; x++) {
    if (!aOn[x]) continue;
    const char *zMode = full ? "full" : azEvalMode[x];
    if (json) {
      /* one object per mode (one line each) */
      printf("{\"mode\":\"%s\",\"default\":%s,\"speaker\":\"%s\",\"conversations\":%d,\"turns\":%zu,\"questions\":%d,\"build_ms\":%.3f,"
             "\"median_query_ms\":%.4f",
             zMode, x == 0 && !full ? "true" : "false", zSpeaker, nConv, nTurnTotal, aTurnM[x][0].n, (double)buildNs / 1e6, aMedMs[x]);
      for (int lvl = 0; lvl < 2; lvl++) {
        Metrics *M = lvl ? aSessM[x] : aTurnM[x];
        printf(",\"%s\":{", lvl ? "session" : "turn");
        for (int c = 0; c <= 4; c++) {
          double n = M[c].n ? M[c].n : 1;
          printf("%s\"%s\":{\"n\":%d,\"recall_any@1\":%.4f,\"recall_any@5\":%.4f,\"recall_any@10\":%.4f,\"recall_all@5\":%.4f,"
                 "\"mrr\":%.4f,\"ndcg@10\":%.4f}",
                 c ? "," : "", azCat[c], M[c].n, M[c].anyAt[0] / n, M[c].anyAt[1] / n, M[c].anyAt[2] / n, M[c].all5 / n, M[c].mrr / n,
                 M[c].ndcg10 / n);
        }
        printf("}");
      }
      printf("}\n");
      continue;
    }
    printf("%sLoCoMo retrieval, mode %s%s: %d conversations, %zu turns (speaker in the %s), %d questions with evidence\n",
           x && nOn > 1 ? "\n" : "", zMode, x == 0 && !full ? " (the default: bm25 without a query embedding)" : "", nConv, nTurnTotal,
           zSpeaker, aTurnM[x][0].n);
    printf("index build %.1f ms, median query (top 10) %.3f ms\n", (double)buildNs / 1e6, aMedMs[x]);
    for (int lvl = 0; lvl < 2; lvl++) {
      Metrics *M = lvl ? aSessM[x] : aTurnM[x];
      printf("\n%-8s %-14s %5s %8s %8s %8s %8s %8s %8s\n", lvl ? "session" : "turn", "category", "n", "any@1", "any@5", "any@10",
             "all@5", "MRR", "NDCG@10");
      for (int c = 0; c <= 4; c++) {
        double n = M[c].n ? M[c].n : 1;
        printf("%-8s %-14s %5d %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f\n", "", azCat[c], M[c].n, M[c].anyAt[0] / n,
               M[c].anyAt[1] / n, M[c].anyAt[2] / n, M[c].all5 / n, M[c].mrr / n, M[c].ndcg10 / n);
      }
    }
  }
  if (!json && nOn > 1) {
    /* the modes side by side: turn recall_any@5 per category */
    printf("\nturn recall_any@5 by mode (speaker in the %s)\n%-14s", zSpeaker, "category");
    for (int x = 0; x < EVAL_NMODE; x++)
      if (aOn[x]) printf(" %9s%s", azEvalMode[x], x == 0 ? "*" : " ");
    printf("\n");
    for (int c = 0; c <= 4; c++) {
      printf("%-14s", azCat[c]);
      for (int x = 0; x < EVAL_NMODE; x++)
        if (aOn[x]) printf(" %9.4f ", aTurnM[x][c].anyAt[1] / (aTurnM[x][c].n ? aTurnM[x][c].n : 1));
      printf("\n");
    }
    if (aOn[0]) printf("* the default mode (auto)\n");
  }
  return 0;
}
/* ------------------------------------------------------------------ get, list, update, delete, history, export, import, compact */
/* Parse "--json" and the given value options out of argv[2..]: positional arguments are left in
** azPos. Returns 0, or the exit status after reporting. */
typedef struct MemArgs {
  const char *azPos[64];
  int nPos, json, all, embeddings, history, desc;
  const char *zFilter, *zUser, *zAgent, *zRun, *zOrder, *zText, *zMeta, *zSet;
  long long offset, limit, asOf;
} MemArgs;
static int memArgs(const char *zCmd, int argc, char **argv, MemArgs *a) {
  memset(a, 0, sizeof *a);
  a->limit = -1;
  for (int i = 2; i < argc; i++) {
    const char *z = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(z, "--json")) a->json = 1;
    else if (!strcmp(z, "--all")) a->all = 1;
    else if (!strcmp(z, "--embeddings")) a->embeddings = 1;
    else if (!strcmp(z, "--history")) a->history = 1;
    else if (!strcmp(z, "--desc")) a->desc = 1;
    else if (z[0] == '-' && z[1] == '-') {
      if (!v) return cliUsage(zCmd, "option %s needs a value", z);
      i++;
      char *e = NULL;
      if (!strcmp(z, "--filter")) a->zFilter = v;
      else if (!strcmp(z, "--user")) a->zUser = v;
      else if (!strcmp(z, "--agent")) a->zAgent = v;
      else if (!strcmp(z, "--run") || !strcmp(z, "--session")) a->zRun = v;
      else if (!strcmp(z, "--order")) a->zOrder = v;
      else if (!strcmp(z, "--text")) a->zText = v;
      else if (!strcmp(z, "--meta")) a->zMeta = v;
      else if (!strcmp(z, "--set")) a->zSet = v;
      else if (!strcmp(z, "--offset") || !strcmp(z, "--limit") || !strcmp(z, "--as-of")) {
        long long x = strtoll(v, &e, 10);
        if (!e || *e || x < 0) return cliUsage(zCmd, "%s must be a number >= 0", z);
        if (z[2] == 'o') a->offset = x;
        else if (z[2] == 'l') a->limit = x;
        else a->asOf = x;
      } else return cliUsage(zCmd, "unknown option '%s'", z);
    } else if (a->nPos < 64) a->azPos[a->nPos++] = z;
  }
  return 0;
}
/* The JSON filter of --filter, --user, --agent, --run together (malloc'ed; NULL: none). */
static char *memArgsFilter(const MemArgs *a) {
  if (!a->zFilter && !a->zUser && !a->zAgent && !a->zRun) return NULL;
  size_t n = 64 + (a->zFilter ? strlen(a->zFilter) : 0) + 8 * ((a->zUser ? strlen(a->zUser) : 0) + (a->zAgent ? strlen(a->zAgent) : 0) + (a->zRun ? strlen(a->zRun) : 0));
  char *z = malloc(n), *o = z;
  o += sprintf(o, "{\"and\":[%s", a->zFilter ? a->zFilter : "{}");
  const char *azK[3] = {"user", "agent", "session"}, *azV[3] = {a->zUser, a->zAgent, a->zRun};
  for (int k = 0; k < 3; k++) {
    if (!azV[k]) continue;
    o += sprintf(o, ",{\"%s\":\"", azK[k]);
    for (const char *p = azV[k]; *p; p++) {
      if (*p == '"' || *p == '\\') *o++ = '\\', *o++ = *p;
      else if ((unsigned char)*p < 0x20) o += sprintf(o, "\\u%04x", (unsigned char)*p);
      else *o++ = *p;
    }
    o += sprintf(o, "\"}");
  }
  sprintf(o, "]}");
  return z;
}
static int parseId(const char *zCmd, const char *z, uint64_t *pId) {
  char *e;
  unsigned long long v = strtoull(z, &e, 10);
  if (!*z || *e || v == 0) return cliUsage(zCmd, "'%s' is not a memory id (1, 2, ...)", z);
  *pId = v;
  return 0;
}
static void printRecord(const cairn_mem_record *r) {
  printf("id          %llu (version %llu)\n", (unsigned long long)r->id, (unsigned long long)r->version);
  printf("text        %s\n", r->zText);
  if (r->zUser) printf("user        %s\n", r->zUser);
  if (r->zAgent) printf("agent       %s\n", r->zAgent);
  if (r->zSession) printf("session     %s\n", r->zSession);
  if (r->zRole) printf("role        %s\n", r->zRole);
  printf("tier        %d\nimportance  %g\naccesses    %u\n", r->tier, (double)r->importance, r->accessCount);
  printf("created     %lld\nevent       %lld\nvalid       %lld .. %s", (long long)r->createdMs, (long long)r->eventMs, (long long)r->validFromMs,
         r->validToMs ? "" : "now\n");
  if (r->validToMs) printf("%lld\n", (long long)r->validToMs);
  if (r->zMeta) printf("meta        %s\n", r->zMeta);
}
static void printLine(const cairn_mem_record *r) {
  printf("[%llu] %s  (%s%s%s%s%s)\n", (unsigned long long)r->id, r->zText, r->zUser ? r->zUser : "", r->zSession ? "/" : "",
         r->zSession ? r->zSession : "", r->zRole ? "/" : "", r->zRole ? r->zRole : "");
}

/* Call x for each top-level object of the JSON array z (as cairn_mem_*_json return them). */
static void jsonEach(const char *z, void (*x)(const char *zObj, size_t n, void *pArg), void *pArg) {
  int depth = 0, inStr = 0;
  const char *start = NULL;
  for (const char *p = z + 1; *p; p++) {
    char c = *p;
    if (inStr) {
      if (c == '\\' && p[1]) p++;
      else if (c == '"') inStr = 0;
      continue;
    }
    if (c == '"') inStr = 1;
    else if (c == '{' || c == '[') {
      if (depth++ == 0) start = p;
    } else if ((c == '}' || c == ']') && depth > 0 && --depth == 0) x(start, (size_t)(p - start + 1), pArg);
  }
}
typedef struct EachCtx {
  cairn_mem *m;
  int json, history;
} EachCtx;
static void eachPrint(const char *zObj, size_t n, void *pArg) {
  EachCtx *c = pArg;
  if (c->json) {
    printf("%.*s\n", (int)n, zObj);
    return;
  }
  const char *q = strstr(zObj, "\"version\":");
  unsigned long long ver = q ? strtoull(q + 10, NULL, 10) : 0;
  cairn_mem_record r;
  if (!ver || cairn_mem_get_version(c->m, ver, &r) != CAIRN_OK) return;
  if (c->history) printf("v%llu ", ver);
  printLine(&r);
}

int cliMemGet(int argc, char **argv) {
  const char *zCmd = "mem get";
  if (memBusyOpt(zCmd, &argc, argv)) return 1;
  MemArgs a;
  if (memArgs(zCmd, argc, argv, &a)) return 2;
  if (argc < 2 || a.nPos < 1) return cliUsage(zCmd, "need FILE and ID...");
  cairn_mem_config cfg = {0, 0, 1, 0, 0, 0, 0, 0};
  cairn_mem *m;
  if (memOpen(zCmd, argv[1], &cfg, &m)) return 1;
  int rc = CAIRN_OK, bad = 0;
  for (int i = 0; i < a.nPos && rc == CAIRN_OK; i++) {
    uint64_t id = 0;
    if ((bad = parseId(zCmd, a.azPos[i], &id)) != 0) break;
    if (a.json) {
      char *z = NULL;
      rc = cairn_mem_get_json(m, id, a.embeddings, &z);
      if (rc == CAIRN_OK) printf("%s\n", z);
      cairn_free(z);
    } else {
      cairn_mem_record r;
      rc = cairn_mem_get(m, id, &r);
      if (rc == CAIRN_OK) printRecord(&r), printf(i + 1 < a.nPos ? "\n" : "");
    }
  }
  if (rc) cliFail(zCmd, rc);
  cairn_mem_close(m);
  return bad ? bad : rc ? 1 : 0;
}

int cliMemList(int argc, char **argv) {
  const char *zCmd = "mem list";
  if (memBusyOpt(zCmd, &argc, argv)) return 1;
  MemArgs a;
  if (memArgs(zCmd, argc, argv, &a)) return 2;
  if (argc < 2 || a.nPos) return cliUsage(zCmd, "need FILE (and options only)");
  char *zF = memArgsFilter(&a);
  char zOpts[512];
  int n = snprintf(zOpts, sizeof zOpts, "{\"desc\":%s,\"history\":%s,\"embeddings\":%s,\"offset\":%lld", a.desc ? "true" : "false",
                   a.history ? "true" : "false", a.embeddings ? "true" : "false", a.offset);
  if (a.limit >= 0) n += snprintf(zOpts + n, sizeof zOpts - (size_t)n, ",\"limit\":%lld", a.limit);
  if (a.asOf) n += snprintf(zOpts + n, sizeof zOpts - (size_t)n, ",\"asOf\":%lld", a.asOf);
  if (a.zOrder) n += snprintf(zOpts + n, sizeof zOpts - (size_t)n, ",\"order\":\"%s\"", a.zOrder);
  char *zAll = malloc(strlen(zOpts) + (zF ? strlen(zF) : 0) + 16);
  sprintf(zAll, "%s%s%s}", zOpts, zF ? ",\"filter\":" : "", zF ? zF : "");
  free(zF);
  cairn_mem_config cfg = {0, 0, 1, 0, 0, 0, 0, 0};
  cairn_mem *m;
  if (memOpen(zCmd, argv[1], &cfg, &m)) {
    free(zAll);
    return 1;
  }
  char *z = NULL;
  int rc = cairn_mem_list_json(m, zAll, &z);
  free(zAll);
  EachCtx ec = {m, a.json, a.history};
  if (rc == CAIRN_OK) jsonEach(z, eachPrint, &ec);
  cairn_free(z);
  if (rc) cliFail(zCmd, rc);
  cairn_mem_close(m);
  return rc ? 1 : 0;
}

int cliMemUpdate(int argc, char **argv) {
  const char *zCmd = "mem update";
  if (memBusyOpt(zCmd, &argc, argv)) return 1;
  MemArgs a;
  if (memArgs(zCmd, argc, argv, &a)) return 2;
  uint64_t id = 0;
  if (argc < 2 || a.nPos != 1) return cliUsage(zCmd, "need FILE ID and --text T, --meta JSON or --set JSON");
  if (parseId(zCmd, a.azPos[0], &id)) return 2;
  if (!a.zText && !a.zMeta && !a.zSet && !a.zUser && !a.zAgent && !a.zRun) return cliUsage(zCmd, "nothing to change (--text, --meta, --user, --agent, --run, --set JSON)");
  /* the change as JSON: --set holds any fields; --text/--meta/... are merged into it */
  size_t n = 64 + (a.zSet ? strlen(a.zSet) : 0) + (a.zMeta ? strlen(a.zMeta) : 0) +
             8 * ((a.zText ? strlen(a.zText) : 0) + (a.zUser ? strlen(a.zUser) : 0) + (a.zAgent ? strlen(a.zAgent) : 0) + (a.zRun ? strlen(a.zRun) : 0));
  char *z = malloc(n), *o = z;
  if (a.zSet) {
    const char *p = a.zSet;
    while (*p == ' ') p++;
    const char *e = a.zSet + strlen(a.zSet);
    while (e > p && (e[-1] == ' ' || e[-1] == '\n')) e--;
    if (*p != '{' || e[-1] != '}') {
      free(z);
      return cliUsage(zCmd, "--set must be a JSON object of the fields to change");
    }
    o += sprintf(o, "%.*s", (int)(e - p - 1), p);
  } else *o++ = '{';
  int first = !a.zSet || strspn(a.zSet + 1, " \t\n}") == strlen(a.zSet + 1);
  const char *azK[4] = {"text", "user", "agent", "session"}, *azV[4] = {a.zText, a.zUser, a.zAgent, a.zRun};
  for (int k = 0; k < 4; k++) {
    if (!azV[k]) continue;
    o += sprintf(o, "%s\"%s\":\"", first ? "" : ",", azK[k]);
    first = 0;
    for (const char *p = azV[k]; *p; p++) {
      if (*p == '"' || *p == '\\') *o++ = '\\', *o++ = *p;
      else if ((unsigned char)*p < 0x20) o += sprintf(o, "\\u%04x", (unsigned char)*p);
      else *o++ = *p;
    }
    *o++ = '"';
  }
  if (a.zMeta) o += sprintf(o, "%s\"meta\":%s", first ? "" : ",", a.zMeta);
  sprintf(o, "}");
  cairn_mem *m;
  if (memOpen(zCmd, argv[1], NULL, &m)) {
    free(z);
    return 1;
  }
  uint64_t ver = 0;
  int rc = cairn_mem_update_json(m, id, z, &ver);
  free(z);
  if (rc == CAIRN_OK) rc = cairn_mem_commit(m);
  if (rc == CAIRN_OK) {
    if (a.json) printf("{\"id\":%llu,\"version\":%llu}\n", (unsigned long long)id, (unsigned long long)ver);
    else printf("%llu (version %llu)\n", (unsigned long long)id, (unsigned long long)ver);
  } else cliFail(zCmd, rc);
  cairn_mem_close(m);
  return rc ? 1 : 0;
}

int cliMemDelete(int argc, char **argv) {
  const char *zCmd = "mem delete";
  if (memBusyOpt(zCmd, &argc, argv)) return 1;
  MemArgs a;
  if (memArgs(zCmd, argc, argv, &a)) return 2;
  char *zF = memArgsFilter(&a);
  if (argc < 2 || (!a.nPos && !zF && !a.all) || (a.nPos && (zF || a.all)) || (zF && a.all)) {
    free(zF);
    return cliUsage(zCmd, "need FILE and one of: ID..., --filter JSON (or --user/--agent/--run), --all");
  }
  uint64_t aId[64];
  for (int i = 0; i < a.nPos; i++)
    if (parseId(zCmd, a.azPos[i], &aId[i])) {
      free(zF);
      return 2;
    }
  cairn_mem *m;
  if (memOpen(zCmd, argv[1], NULL, &m)) {
    free(zF);
    return 1;
  }
  uint64_t nDel = 0;
  int rc = CAIRN_OK;
  for (int i = 0; i < a.nPos && rc == CAIRN_OK; i++) rc = cairn_mem_delete(m, aId[i]), nDel += rc == CAIRN_OK;
  if (rc == CAIRN_OK && (zF || a.all)) rc = cairn_mem_delete_where(m, zF ? zF : "{}", &nDel);
  free(zF);
  /* committed, then checkpointed: the bytes are gone from the file when the command returns */
  if (rc == CAIRN_OK) rc = cairn_mem_checkpoint(m);
  if (rc == CAIRN_OK) {
    if (a.json) printf("{\"deleted\":%llu}\n", (unsigned long long)nDel);
    else cliNote("%llu memories forgotten (gone from the file)\n", (unsigned long long)nDel);
  } else cliFail(zCmd, rc);
  cairn_mem_close(m);
  return rc ? 1 : 0;
}

int cliMemHistory(int argc, char **argv) {
  const char *zCmd = "mem history";
  if (memBusyOpt(zCmd, &argc, argv)) return 1;
  MemArgs a;
  if (memArgs(zCmd, argc, argv, &a)) return 2;
  uint64_t id = 0;
  if (argc < 2 || a.nPos != 1) return cliUsage(zCmd, "need FILE ID");
  if (parseId(zCmd, a.azPos[0], &id)) return 2;
  cairn_mem_config cfg = {0, 0, 1, 0, 0, 0, 0, 0};
  cairn_mem *m;
  if (memOpen(zCmd, argv[1], &cfg, &m)) return 1;
  int rc = CAIRN_OK;
  if (a.json) {
    char *z = NULL;
    rc = cairn_mem_history_json(m, id, a.embeddings, &z);
    EachCtx ec = {m, 1, 0};
    if (rc == CAIRN_OK) jsonEach(z, eachPrint, &ec);
    cairn_free(z);
  } else {
    uint32_t n = 0;
    rc = cairn_mem_history(m, id, NULL, 0, &n);
    cairn_mem_record *aR = rc ? NULL : calloc(n ? n : 1, sizeof *aR);
    if (rc == CAIRN_OK) rc = cairn_mem_history(m, id, aR, n, &n);
    for (uint32_t i = 0; rc == CAIRN_OK && i < n; i++) {
      printf("v%llu  %lld .. ", (unsigned long long)aR[i].version, (long long)aR[i].validFromMs);
      if (aR[i].validToMs) printf("%lld", (long long)aR[i].validToMs);
      else printf("now");
      printf("  %s\n", aR[i].zText);
    }
    free(aR);
  }
  if (rc) cliFail(zCmd, rc);
  cairn_mem_close(m);
  return rc ? 1 : 0;
}

static int exportLine(void *pArg, const char *z, size_t n) {
  FILE *f = pArg;
  if (fwrite(z, 1, n, f) != n || fputc('\n', f) == EOF) return cairn_seterr(CAIRN_IOERR, "export: write failed");
  return CAIRN_OK;
}
int cliMemExport(int argc, char **argv) {
  const char *zCmd = "mem export";
  if (memBusyOpt(zCmd, &argc, argv)) return 1;
  MemArgs a;
  if (memArgs(zCmd, argc, argv, &a)) return 2;
  if (argc < 2 || a.nPos) return cliUsage(zCmd, "need FILE (JSONL goes to stdout)");
  char *zF = memArgsFilter(&a);
  char *zOpts = malloc(64 + (zF ? strlen(zF) : 0));
  sprintf(zOpts, "{\"embeddings\":%s%s%s}", a.embeddings ? "true" : "false", zF ? ",\"filter\":" : "", zF ? zF : "");
  free(zF);
  cairn_mem_config cfg = {0, 0, 1, 0, 0, 0, 0, 0};
  cairn_mem *m;
  if (memOpen(zCmd, argv[1], &cfg, &m)) {
    free(zOpts);
    return 1;
  }
  int rc = cairn_mem_export(m, zOpts, exportLine, stdout);
  free(zOpts);
  if (rc == CAIRN_OK && fflush(stdout)) rc = cairn_seterr(CAIRN_IOERR, "export: write failed");
  if (rc) cliFail(zCmd, rc);
  cairn_mem_close(m);
  return rc ? 1 : 0;
}

int cliMemImport(int argc, char **argv) {
  const char *zCmd = "mem import";
  if (memBusyOpt(zCmd, &argc, argv)) return 1;
  MemArgs a;
  if (memArgs(zCmd, argc, argv, &a)) return 2;
  if (argc < 2 || a.nPos != 1) return cliUsage(zCmd, "need FILE and MEMORIES.jsonl (or -)");
  char *z;
  size_t n;
  int rc = readAll(a.azPos[0], &z, &n);
  if (rc) return cliFail(zCmd, rc);
  cairn_mem *m;
  if (memOpen(zCmd, argv[1], NULL, &m)) {
    free(z);
    return 1;
  }
  uint64_t nImp = 0;
  rc = cairn_mem_import_jsonl(m, z, n, &nImp);
  free(z);
  if (rc == CAIRN_OK) rc = cairn_mem_commit(m);
  if (rc == CAIRN_OK) {
    if (a.json) printf("{\"imported\":%llu}\n", (unsigned long long)nImp);
    else cliNote("%llu memories imported\n", (unsigned long long)nImp);
  } else cliFail(zCmd, rc);
  cairn_mem_close(m);
  return rc ? 1 : 0;
}

int cliMemCompact(int argc, char **argv) {
  const char *zCmd = "mem compact";
  if (memBusyOpt(zCmd, &argc, argv)) return 1;
  MemArgs a;
  if (memArgs(zCmd, argc, argv, &a)) return 2;
  if (argc < 2 || a.nPos) return cliUsage(zCmd, "need FILE");
  cairn_mem *m;
  if (memOpen(zCmd, argv[1], NULL, &m)) return 1;
  cairn_mem_stats s0, s1;
  cairn_mem_stats_get(m, &s0);
  uint64_t before = s0.nFileBytes;
  int rc = cairn_mem_compact(m);
  cairn_mem_stats_get(m, &s1);
  if (rc == CAIRN_OK) {
    if (a.json) printf("{\"before\":%llu,\"after\":%llu}\n", (unsigned long long)before, (unsigned long long)s1.nFileBytes);
    else cliNote("%llu bytes -> %llu bytes\n", (unsigned long long)before, (unsigned long long)s1.nFileBytes);
  } else cliFail(zCmd, rc);
  cairn_mem_close(m);
  return rc ? 1 : 0;
}
#endif
