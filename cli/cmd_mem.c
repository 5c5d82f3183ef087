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
**   cairn mem search FILE QUERY [--k N] [--mode hybrid|vector|bm25] [--filter JSON]
**                 [--index auto|flat|f16|int8|ivf|ivfpq] [--nprobe N] [--fusion rrf|weighted]
**                 [--recency W] [--json]
**   cairn mem stats FILE
**   cairn mem verify FILE        check every checksum; non-zero exit on damage, with what is lost
**   cairn mem salvage FILE -o NEW  copy every memory that verifies into a new store
**   every mem command: [--busy-timeout MS] (default 5000) how long to wait for another writer
**   cairn mem index FILE --kind ivf|ivfpq [--nlist N] [--m M]
**   cairn mem demo [FILE]     ingest the built-in demo conversation and answer its questions
**   cairn eval locomo FILE.json [--mode bm25|vector|hybrid] [--dim N] [--fusion rrf|weighted]
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
  if (!strcmp(z, "hybrid")) *p = CAIRN_MEM_HYBRID;
  else if (!strcmp(z, "vector")) *p = CAIRN_MEM_VECTOR;
  else if (!strcmp(z, "bm25")) *p = CAIRN_MEM_BM25;
  else return 0;
  return 1;
}

static const char *const azIndex[] = {"auto", "flat", "f16", "int8", "ivf", "ivfpq"};

static void printHit(cairn_mem *m, const cairn_mem_hit *h, int rank, int json) {
  cairn_mem_record r;
  if (cairn_mem_get(m, h->id, &r)) return;
  if (json) {
    printf("{\"id\":%llu,\"score\":%.6g,\"session\":\"%s\",\"role\":\"%s\",\"text\":\"", (unsigned long long)h->id,
           (double)h->score, r.zSession ? r.zSession : "", r.zRole ? r.zRole : "");
    for (const char *z = r.zText; *z; z++) {
      if (*z == '"' || *z == '\\') printf("\\%c", *z);
      else if ((unsigned char)*z < 0x20) printf("\\u%04x", (unsigned char)*z);
      else putchar(*z);
    }
    printf("\"}\n");
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

/* Add every line of a JSONL file ({"text": ..., "session": ..., "embedding": [...], ...});
** commits every 1000 lines. Errors name the line. */
static int addJsonl(cairn_mem *m, const char *zPath) {
  cairn_file *f;
  int rc = cliInput(zPath, &f); /* "-", pipes and FIFOs: read to their end */
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
  long line = 0, nAdded = 0;
  for (char *p = z; rc == CAIRN_OK && *p;) {
    char *e = strchr(p, '\n');
    if (e) *e = 0;
    line++;
    char *t = p;
    while (*t == ' ' || *t == '\t' || *t == '\r') t++;
    if (*t) {
      uint64_t id;
      rc = cairn_mem_add_json(m, p, &id);
      if (rc) {
        char zMsg[512];
        snprintf(zMsg, sizeof zMsg, "%s", cairn_errmsg());
        rc = cairn_seterr(rc, "%s line %lld: %s", zPath, (long long)line, zMsg);
      } else if (++nAdded % 1000 == 0) rc = cairn_mem_commit(m);
    }
    p = e ? e + 1 : p + strlen(p);
  }
  free(z);
  if (rc == CAIRN_OK) fprintf(stderr, "%ld memories added from %s\n", nAdded, zPath);
  return rc;
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
  int nText = 0;
  float *aEmb = NULL;
  uint32_t nEmb = 0;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (a[0] == '-' && a[1] == '-' && !v && strcmp(a, "--text-only") && strcmp(a, "--no-checkpoint"))
      return cliUsage(zCmd, "option %s needs a value", a);
    if (!strcmp(a, "--no-checkpoint")) cfg.checkpointEvery = UINT32_MAX;
    else if (!strcmp(a, "--session")) r.zSession = v, i++;
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
  int rc = CAIRN_OK;
  for (int i = 0; i < nText && rc == CAIRN_OK; i++) {
    uint64_t id;
    r.zText = azText[i];
    rc = cairn_mem_add(m, &r, &id);
    if (rc == CAIRN_OK) printf("%llu\n", (unsigned long long)id);
  }
  if (rc == CAIRN_OK && zJsonl) rc = addJsonl(m, zJsonl);
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
  const char *zFilter = NULL;
  int json = 0;
  for (int i = 3; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--json")) {
      json = 1;
      continue;
    }
    if (!v) return cliUsage(zCmd, "option %s needs a value", a);
    i++;
    if (!strcmp(a, "--k")) q.k = (uint32_t)atoi(v);
    else if (!strcmp(a, "--mode")) {
      if (!parseMode(v, &q.mode)) return cliUsage(zCmd, "mode must be hybrid, vector or bm25");
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
  if (q.k == 0 || q.k > 1000) return cliUsage(zCmd, "--k must be 1..1000");
  cairn_mem_config cfg = {0, 0, 1, 0, 0, 0, 0, 0};
  cairn_mem *m;
  if (memOpen(zCmd, argv[1], &cfg, &m)) return 1;
  cairn_mem_filter f;
  char *arena = NULL;
  int rc = CAIRN_OK;
  if (zFilter) {
    rc = cairn_mem_filter_parse(zFilter, &f, &arena);
    q.pFilter = &f;
  }
  q.zText = argv[2];
  cairn_mem_hit *h = malloc(q.k * sizeof(cairn_mem_hit));
  uint32_t n = 0;
  if (rc == CAIRN_OK) rc = cairn_mem_search(m, &q, h, &n);
  if (rc == CAIRN_OK)
    for (uint32_t i = 0; i < n; i++) printHit(m, &h[i], (int)i + 1, json);
  free(h);
  cairn_free(arena);
  if (rc) cliFail(zCmd, rc);
  cairn_mem_close(m);
  return rc ? 1 : 0;
}

int cliMemStats(int argc, char **argv) {
  if (memBusyOpt("mem stats", &argc, argv)) return 1;
  if (argc < 2) return cliUsage("mem stats", "need FILE");
  cairn_mem_config cfg = {0, 0, 1, 0, 0, 0, 0, 0};
  cairn_mem *m;
  if (memOpen("mem stats", argv[1], &cfg, &m)) return 1;
  cairn_mem_stats s;
  cairn_mem_stats_get(m, &s);
  static const char *const azMetric[] = {"cosine", "ip", "l2"};
  printf("memories    %llu\n", (unsigned long long)s.nMemory);
  static const char *const azDisk[] = {"f32", "f16", "int8"};
  if (s.textOnly) printf("vectors     none (text-only store, BM25)\n");
  else printf("vectors     %u dimensions, %s, kept as %s on disk\n", s.dim, azMetric[s.metric], azDisk[s.diskVectors]);
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
    fprintf(stderr, "%llu memories in the HDF5 datasets (%llu were), %.1f ms\n", (unsigned long long)s1.nCheckpointed,
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
  else fprintf(stderr, "index built in %.1f ms\n", (double)(nowNs() - t0) / 1e6);
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
  fprintf(stderr, "%llu memories copied to %s, %llu lost%s%s\n", (unsigned long long)v.nIntact, zOut, (unsigned long long)v.nLost,
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

int cliEvalLocomo(int argc, char **argv) {
  const char *zCmd = "eval locomo";
  if (argc < 2) return cliUsage(zCmd, "need FILE.json");
  int mode = CAIRN_MEM_BM25, json = 0, fusion = CAIRN_FUSE_RRF, full = 0;
  uint32_t dim = 0;
  float wv = 0, wb = 0;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) json = 1;
    else if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
      if (CAIRN_WITH_KG && !strcmp(argv[i + 1], "full")) full = 1, mode = CAIRN_MEM_BM25, i++; /* cli/cmd_kg.c */
      else if (!parseMode(argv[++i], &mode)) return cliUsage(zCmd, "mode must be bm25, vector, hybrid or full");
    } else if (!strcmp(argv[i], "--dim") && i + 1 < argc) dim = (uint32_t)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--fusion") && i + 1 < argc) fusion = !strcmp(argv[++i], "weighted") ? CAIRN_FUSE_WEIGHTED : CAIRN_FUSE_RRF;
    else if (!strcmp(argv[i], "--wv") && i + 1 < argc) wv = (float)atof(argv[++i]), wb = 1 - wv;
    else return cliUsage(zCmd, "unknown option '%s'", argv[i]);
  }
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
  Metrics aTurnM[6], aSessM[6]; /* categories 1..4 at [1..4], overall at [0] */
  memset(aTurnM, 0, sizeof aTurnM);
  memset(aSessM, 0, sizeof aSessM);
  int64_t *aLat = NULL, buildNs = 0;
  size_t nLat = 0, nLatAlloc = 0, nTurnTotal = 0;
  int nConv = 0;
  for (uint32_t conv = cairn_json_child(j, 0); conv && rc == CAIRN_OK; conv = cairn_json_next(j, conv)) {
    uint32_t c = cairn_json_get(j, conv, "conversation"), qa = cairn_json_get(j, conv, "qa");
    if (!c || !qa || cairn_json_type(j, qa) != CAIRN_JSON_ARRAY) continue;
    nConv++;
    /* BM25 alone needs no vectors: a text-only store, so its build time is BM25's */
    cairn_mem_config cfg = {dim, CAIRN_METRIC_COSINE, 0, 0, mode == CAIRN_MEM_BM25, 0, 0, 0};
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
        uint32_t sp = cairn_json_get(j, t, "speaker"), tx = cairn_json_get(j, t, "text"), di = cairn_json_get(j, t, "dia_id");
        uint32_t cap = cairn_json_get(j, t, "blip_caption");
        if (!tx || cairn_json_type(j, tx) != CAIRN_JSON_STRING || !di || cairn_json_type(j, di) != CAIRN_JSON_STRING) continue;
        const char *zSp = sp && cairn_json_type(j, sp) == CAIRN_JSON_STRING ? cairn_json_str(j, sp, NULL) : "";
        size_t nb = strlen(zSp) + strlen(cairn_json_str(j, tx, NULL)) + (cap && cairn_json_type(j, cap) == CAIRN_JSON_STRING ? strlen(cairn_json_str(j, cap, NULL)) + 32 : 0) + 8;
        char *zT = malloc(nb);
        size_t k = (size_t)snprintf(zT, nb, "%s: %s", zSp, cairn_json_str(j, tx, NULL));
        if (cap && cairn_json_type(j, cap) == CAIRN_JSON_STRING) snprintf(zT + k, nb - k, " [shares %s]", cairn_json_str(j, cap, NULL));
        cairn_mem_record r;
        memset(&r, 0, sizeof r);
        r.zText = zT, r.zSession = zSess, r.zRole = zSp;
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
      cairn_mem_query qq;
      memset(&qq, 0, sizeof qq);
      qq.zText = cairn_json_str(j, qt, NULL), qq.k = k, qq.mode = mode, qq.fusion = fusion, qq.wVector = wv, qq.wBm25 = wb;
      uint32_t nHit;
      /* latency: the top 10, as an agent asks and as the peers are timed */
      qq.k = (k < 10u ? k : 10u);
      int64_t q0 = nowNs();
      rc = pKg ? cliKgEvalSearch(pKg, m, &qq, aHit, &nHit) : cairn_mem_search(m, &qq, aHit, &nHit);
      int64_t dq = nowNs() - q0;
      /* metrics: the ranking down to 1000 turns (MRR needs the first relevant hit's rank) */
      qq.k = k;
      if (rc == CAIRN_OK) rc = pKg ? cliKgEvalSearch(pKg, m, &qq, aHit, &nHit) : cairn_mem_search(m, &qq, aHit, &nHit);
      if (rc) break;
      if (nLat == nLatAlloc) {
        nLatAlloc = nLatAlloc ? nLatAlloc * 2 : 1024;
        aLat = realloc(aLat, nLatAlloc * sizeof(int64_t));
      }
      aLat[nLat++] = dq;
      uint32_t nS = 0;
      memset(aSeenSess, 0, 200 * sizeof(int));
      for (uint32_t r = 0; r < nHit; r++) {
        size_t d = (size_t)aHit[r].id - 1;
        aRel[r] = 0;
        for (uint32_t x = 0; x < nRelT; x++) aRel[r] |= aRelTurn[x] == d;
        int s = aSessOf[d];
        if (s > 0 && s < 200 && !aSeenSess[s]) {
          aSeenSess[s] = 1;
          aSRel[nS] = 0;
          for (uint32_t x = 0; x < nRelS; x++) aSRel[nS] |= aRelSess[x] == s;
          nS++;
        }
      }
      addMetrics(&aTurnM[cat], aRel, nHit, nRelT);
      addMetrics(&aTurnM[0], aRel, nHit, nRelT);
      addMetrics(&aSessM[cat], aSRel, nS, nRelS);
      addMetrics(&aSessM[0], aSRel, nS, nRelS);
    }
    free(aHit), free(aRel), free(aSRel), free(aSeenSess), free(azDia), free(aSessOf);
    cliKgEvalEnd(pKg);
    cairn_mem_close(m);
  }
  cairn_json_free(j);
  if (rc) {
    free(aLat);
    return cliFail(zCmd, rc);
  }
  double medMs = 0;
  if (nLat) {
    qsort(aLat, nLat, sizeof(int64_t), cmpI64);
    medMs = (double)aLat[nLat / 2] / 1e6;
  }
  free(aLat);
  static const char *const azMode[] = {"hybrid", "vector", "bm25", "full"};
  if (full) mode = 3;
  static const char *const azCat[] = {"all", "1-multi-hop", "2-temporal", "3-open-domain", "4-single-hop"};
  if (json) {
    printf("{\"mode\":\"%s\",\"conversations\":%d,\"turns\":%zu,\"questions\":%d,\"build_ms\":%.3f,\"median_query_ms\":%.4f", azMode[mode],
           nConv, nTurnTotal, aTurnM[0].n, (double)buildNs / 1e6, medMs);
    for (int lvl = 0; lvl < 2; lvl++) {
      Metrics *M = lvl ? aSessM : aTurnM;
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
  } else {
    printf("LoCoMo retrieval, mode %s: %d conversations, %zu turns, %d questions with evidence\n", azMode[mode], nConv,
           nTurnTotal, aTurnM[0].n);
    printf("index build %.1f ms, median query (top 10) %.3f ms\n", (double)buildNs / 1e6, medMs);
    for (int lvl = 0; lvl < 2; lvl++) {
      Metrics *M = lvl ? aSessM : aTurnM;
      printf("\n%-8s %-14s %5s %8s %8s %8s %8s %8s %8s\n", lvl ? "session" : "turn", "category", "n", "any@1", "any@5", "any@10",
             "all@5", "MRR", "NDCG@10");
      for (int c = 0; c <= 4; c++) {
        double n = M[c].n ? M[c].n : 1;
        printf("%-8s %-14s %5d %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f\n", "", azCat[c], M[c].n, M[c].anyAt[0] / n,
               M[c].anyAt[1] / n, M[c].anyAt[2] / n, M[c].all5 / n, M[c].mrr / n, M[c].ndcg10 / n);
      }
    }
  }
  return 0;
}
#endif
