/*
** 2026-12-02
**
** cli/cmd_kg.c - the knowledge-graph commands (native and WASI). The graph of store FILE lives in
** the store's own HDF5 file (its /graph group, written at the store's checkpoints; --graph G
** keeps it in another file). A FILE.graph of before moves into FILE at the first writing command.
**   cairn mem extract FILE [--graph G]          run the built-in extractor over every memory
**   cairn mem import-facts FILE FACTS.jsonl     one fact per line: {"subject","predicate","object"|
**                                               "literal","validAt","invalidAt","sources":[..]}
**   cairn mem entities FILE [--json]            canonical entities, aliases, mention counts
**   cairn mem facts FILE [--as-of T] [--json]   facts valid at T (ms, a date, "all"; default now)
**   cairn mem graph FILE ENTITY [--depth N] [--as-of T] [--json]
**   cairn eval longmemeval FILE.json [--mode bm25|hybrid|full] [--json]
**       LongMemEval's format (xiaowu0162/LongMemEval): per question a haystack of sessions with
**       dates; ranks the turns and reports turn- and session-level recall_any@1/5/10, MRR and
**       NDCG@10 per question type.
** Also the graph side of `cairn eval locomo --mode full` (cmd_mem.c calls the cliKgEval* hooks).
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#if CAIRN_WITH_KG
#include "cairn/json.h"
#include "cairn/kg.h"

/* ------------------------------------------------------------------ eval hooks */
void *cliKgEvalBegin(void) {
  cairn_kg *g = NULL;
  return cairn_kg_open(NULL, 0, &g) == CAIRN_OK ? g : NULL;
}
int cliKgEvalAdd(void *pKg, uint64_t id, const cairn_mem_record *r) {
  return cairn_kg_extract(pKg, id, r->zText, r->zRole, r->eventMs ? r->eventMs : r->createdMs, NULL, NULL);
}
int cliKgEvalSearch(void *pKg, cairn_mem *m, const cairn_mem_query *q, cairn_mem_hit *aHit, uint32_t *pnHit) {
  cairn_kg_search_opts o;
  memset(&o, 0, sizeof o);
  const char *zW = getenv("CAIRN_KG_WEIGHTS"); /* "graph,time" for tuning runs */
  if (zW) o.wGraph = (float)atof(zW), o.wTime = strchr(zW, ',') ? (float)atof(strchr(zW, ',') + 1) : 0;
  if (getenv("CAIRN_KG_CONTEXT")) o.wContext = (float)atof(getenv("CAIRN_KG_CONTEXT")), o.noContext = o.wContext < 0;
  o.mode = getenv("CAIRN_KG_HYBRID") ? CAIRN_MEM_HYBRID : q->mode, o.k = q->k, o.pFilter = q->pFilter;
  int rc = cairn_kg_search(pKg, m, q->zText, &o, aHit, pnHit);
  if (rc == CAIRN_OK && q->k > 10 && getenv("CAIRN_KG_TRACE")) { /* tuning aid: the question and its top 5 ids */
    fprintf(stderr, "Q\t%s", q->zText);
    for (uint32_t i = 0; i < *pnHit && i < 5; i++) fprintf(stderr, "\t%llu", (unsigned long long)aHit[i].id);
    fprintf(stderr, "\n");
  }
  return rc;
}
void cliKgEvalEnd(void *pKg) { cairn_kg_close(pKg); }

/* ------------------------------------------------------------------ store + graph */
typedef struct KgOpts {
  const char *zFile, *zGraph, *zArg; /* zArg: the positional after FILE */
  int json;
  uint32_t depth;
  int64_t asOf;
} KgOpts;

static int parseAsOf(const char *z, int64_t *p) {
  if (!strcmp(z, "all")) return *p = CAIRN_KG_ANY, 1;
  if (!strcmp(z, "now")) return *p = CAIRN_KG_NOW, 1;
  char *e;
  long long v = strtoll(z, &e, 10);
  if (*e == 0 && e != z) return *p = v, 1;
  cairn_kg_time t;
  uint32_t n = 0;
  const cairn_host *h = cairn_host_get();
  int64_t now = h->xClock ? h->xClock(h->pCtx, 0) / 1000000 : 0;
  if (cairn_kg_time_parse(z, strlen(z), now, &t, 1, &n) || n == 0) return 0;
  *p = t.lo;
  return 1;
}

static int kgArgs(const char *zCmd, int argc, char **argv, int nPos, KgOpts *o) {
  memset(o, 0, sizeof *o);
  o->depth = 1, o->asOf = CAIRN_KG_NOW;
  int pos = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) o->json = 1;
    else if (!strcmp(argv[i], "--graph") && i + 1 < argc) o->zGraph = argv[++i];
    else if (!strcmp(argv[i], "--depth") && i + 1 < argc) o->depth = (uint32_t)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--as-of") && i + 1 < argc) {
      if (!parseAsOf(argv[++i], &o->asOf)) return cliUsage(zCmd, "--as-of: ms since 1970, a date, 'now' or 'all'");
    } else if (argv[i][0] == '-' && argv[i][1]) return cliUsage(zCmd, "unknown option '%s'", argv[i]);
    else if (pos == 0) o->zFile = argv[i], pos++;
    else if (pos == 1) o->zArg = argv[i], pos++;
    else return cliUsage(zCmd, "too many arguments");
  }
  if (pos < nPos) return cliUsage(zCmd, nPos == 2 ? "need FILE and one more argument" : "need FILE");
  return 0;
}

/* Open FILE's graph: the /graph group inside the store's own file, or the HDF5 file --graph G.
** A store of before with its graph in FILE.graph: a writing command moves the graph into the
** store's file (one checkpoint) and removes FILE.graph; a reading command reads FILE.graph. */
typedef struct KgOpen {
  cairn_file *f; /* --graph G */
  cairn_mem *m;  /* the store */
  cairn_kg *g;
} KgOpen;
static int openGraph(const char *zCmd, const KgOpts *o, int bWrite, KgOpen *p) {
  memset(p, 0, sizeof *p);
  int rc;
  if (o->zGraph) {
    rc = cairn_open(o->zGraph, bWrite ? CAIRN_OPEN_READWRITE | CAIRN_OPEN_CREATE : CAIRN_OPEN_READONLY, &p->f);
    if (rc == CAIRN_OK) {
      rc = cairn_kg_open(p->f, bWrite ? 0 : CAIRN_KG_READONLY, &p->g);
      if (rc) cairn_file_close(p->f), p->f = NULL;
    }
    return rc ? cliFail(zCmd, rc) : 0;
  }
  cairn_mem_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.readOnly = !bWrite;
  rc = cairn_mem_open(o->zFile, &cfg, &p->m);
  if (rc) return cliFail(zCmd, rc);
  size_t n = strlen(o->zFile);
  char *zOld = malloc(n + 8);
  if (!zOld) {
    cairn_mem_close(p->m);
    return cliFail(zCmd, CAIRN_NOMEM);
  }
  memcpy(zOld, o->zFile, n), memcpy(zOld + n, ".graph", 7);
  cairn_file *fOld = NULL;
  if (cairn_open(zOld, CAIRN_OPEN_READONLY, &fOld) != CAIRN_OK) fOld = NULL, cairn_clearerr();
  rc = cairn_kg_open_mem(p->m, fOld, bWrite ? 0 : CAIRN_KG_READONLY, &p->g);
  if (rc == CAIRN_OK && fOld && bWrite) {
    rc = cairn_kg_commit(p->g); /* the old graph is in the store's file now */
    if (rc == CAIRN_OK) remove(zOld);
  }
  if (fOld) cairn_file_close(fOld);
  free(zOld);
  if (rc) {
    cairn_kg_close(p->g);
    cairn_mem_close(p->m);
    return cliFail(zCmd, rc);
  }
  return 0;
}
static int closeGraph(const char *zCmd, KgOpen *p, int rc) {
  int rc2 = cairn_kg_close(p->g); /* before the store: its commit is the store's checkpoint */
  if (!rc) rc = rc2;
  if (p->f) cairn_file_close(p->f);
  if (p->m) {
    rc2 = cairn_mem_close(p->m);
    if (!rc) rc = rc2;
  }
  return rc ? cliFail(zCmd, rc) : 0;
}

static void printTime(int64_t t) {
  if (t == CAIRN_KG_NONE) {
    printf("-");
    return;
  }
  int64_t d = t >= 0 ? t / 86400000 : -((-t + 86399999) / 86400000);
  /* civil from days (H. Hinnant) */
  d += 719468;
  int64_t era = (d >= 0 ? d : d - 146096) / 146097, doe = d - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365, doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153, dd = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
  printf("%04d-%02d-%02d", (int)(yoe + era * 400 + (m <= 2)), (int)m, (int)dd);
}

int cliMemEntities(int argc, char **argv) {
  const char *zCmd = "mem entities";
  KgOpts o;
  int u = kgArgs(zCmd, argc, argv, 1, &o);
  if (u) return u;
  KgOpen ko;
  if (openGraph(zCmd, &o, 0, &ko)) return 1;
  cairn_kg *g = ko.g;
  int rc = CAIRN_OK;
  if (o.json) {
    char *z;
    rc = cairn_kg_entities_json(g, &z);
    if (!rc) printf("%s\n", z), cairn_free(z);
  } else {
    printf("%6s  %-28s %-8s %8s  aliases\n", "id", "name", "type", "mentions");
    for (uint32_t id = 1; id <= cairn_kg_entity_count(g); id++) {
      cairn_kg_entity e;
      if (cairn_kg_entity_get(g, id, &e) || e.canon != id) continue;
      uint32_t nM = 0;
      cairn_kg_mentions(g, id, NULL, 0, &nM);
      printf("%6u  %-28s %-8s %8u ", id, e.zName, e.zType, nM);
      for (uint32_t i = 0; i < e.nAlias; i++) {
        const char *za;
        if (!cairn_kg_alias_at(g, id, i, &za)) printf(" %s", za);
      }
      printf("\n");
    }
  }
  return closeGraph(zCmd, &ko, rc);
}

static void printFact(cairn_kg *g, uint32_t id) {
  cairn_kg_fact k;
  if (cairn_kg_fact_get(g, id, &k)) return;
  printf("%6u  %s  %s  %s%s%s  valid ", id, k.zSubject, k.zPredicate, k.zObject ? "" : "\"", k.zObject ? k.zObject : k.zLiteral,
         k.zObject ? "" : "\"");
  printTime(k.validAt);
  printf("..");
  printTime(k.invalidAt);
  printf("  sources %u\n", k.nSource);
}

int cliMemFacts(int argc, char **argv) {
  const char *zCmd = "mem facts";
  KgOpts o;
  int u = kgArgs(zCmd, argc, argv, 1, &o);
  if (u) return u;
  KgOpen ko;
  if (openGraph(zCmd, &o, 0, &ko)) return 1;
  cairn_kg *g = ko.g;
  int rc = CAIRN_OK;
  if (o.json) {
    char *z;
    rc = cairn_kg_facts_json(g, o.asOf, &z);
    if (!rc) printf("%s\n", z), cairn_free(z);
  } else
    for (uint32_t id = 1; id <= cairn_kg_fact_count(g); id++)
      if (cairn_kg_fact_valid(g, id, o.asOf)) printFact(g, id);
  return closeGraph(zCmd, &ko, rc);
}

int cliMemGraph(int argc, char **argv) {
  const char *zCmd = "mem graph";
  KgOpts o;
  int u = kgArgs(zCmd, argc, argv, 2, &o);
  if (u) return u;
  KgOpen ko;
  if (openGraph(zCmd, &o, 0, &ko)) return 1;
  cairn_kg *g = ko.g;
  int rc = CAIRN_OK;
  if (o.json) {
    char *z;
    rc = cairn_kg_graph_json(g, o.zArg, o.depth, o.asOf, &z);
    if (!rc) printf("%s\n", z), cairn_free(z);
  } else {
    uint32_t id, n = 0;
    rc = cairn_kg_find(g, o.zArg, &id);
    if (!rc) rc = cairn_kg_bfs(g, id, o.depth, o.asOf, NULL, NULL, 0, &n);
    uint32_t *a = rc ? NULL : malloc((n + 1) * 2 * sizeof(uint32_t));
    if (!rc && !a) rc = CAIRN_NOMEM;
    if (!rc) rc = cairn_kg_bfs(g, id, o.depth, o.asOf, a, a + n + 1, n, &n);
    for (uint32_t i = 0; !rc && i < n; i++) {
      cairn_kg_entity e;
      cairn_kg_entity_get(g, a[i], &e);
      printf("%*s%s (%u)\n", (int)(2 * a[n + 1 + i]), "", e.zName, a[i]);
      cairn_kg_edge aE[64];
      uint32_t nE = 0;
      if (a[n + 1 + i] < o.depth && !cairn_kg_neighbors(g, a[i], o.asOf, aE, 64, &nE))
        for (uint32_t k = 0; k < nE && k < 64; k++)
          if (aE[k].out) printf("%*s  -> ", (int)(2 * a[n + 1 + i]), ""), printFact(g, aE[k].fact);
    }
    free(a);
  }
  return closeGraph(zCmd, &ko, rc);
}

int cliMemExtract(int argc, char **argv) {
  const char *zCmd = "mem extract";
  KgOpts o;
  int u = kgArgs(zCmd, argc, argv, 1, &o);
  if (u) return u;
  cairn_mem *m = NULL;
  KgOpen ko;
  if (o.zGraph) { /* the store read-only, the graph in G */
    cairn_mem_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.readOnly = 1;
    int rc = cairn_mem_open(o.zFile, &cfg, &m);
    if (rc) return cliFail(zCmd, rc);
  }
  if (openGraph(zCmd, &o, 1, &ko)) {
    cairn_mem_close(m);
    return 1;
  }
  cairn_kg *g = ko.g;
  if (!m) m = ko.m;
  cairn_mem_stats st;
  int rc = cairn_mem_stats_get(m, &st);
  uint64_t nE = 0, nF = 0;
  for (uint64_t id = 1; !rc && id <= st.nMemory; id++) {
    cairn_mem_record r;
    uint32_t e = 0, k = 0;
    if (cairn_mem_get(m, id, &r)) continue;
    rc = cairn_kg_extract(g, id, r.zText, r.zRole, r.eventMs ? r.eventMs : r.createdMs, &e, &k);
    nE += e, nF += k;
  }
  if (!rc) printf("%llu memories: %llu new entities, %llu new facts\n", (unsigned long long)st.nMemory, (unsigned long long)nE,
                  (unsigned long long)nF);
  if (m != ko.m) cairn_mem_close(m);
  return closeGraph(zCmd, &ko, rc);
}

int cliMemImportFacts(int argc, char **argv) {
  const char *zCmd = "mem import-facts";
  KgOpts o;
  int u = kgArgs(zCmd, argc, argv, 2, &o);
  if (u) return u;
  cairn_file *in;
  if (cliOpenRead(zCmd, o.zArg, &in)) return 1;
  uint64_t size = 0;
  int rc = cairn_file_size(in, &size);
  char *z = rc ? NULL : malloc((size_t)size + 1);
  if (!rc && !z) rc = CAIRN_NOMEM;
  if (!rc) rc = cairn_file_read_exact(in, z, (size_t)size, 0);
  cairn_file_close(in);
  if (rc) {
    free(z);
    return cliFail(zCmd, rc);
  }
  z[size] = 0;
  /* JSONL -> one JSON list, so the whole file is added or nothing */
  char *zList = malloc((size_t)size * 2 + 4);
  size_t n = 0;
  int first = 1;
  zList[n++] = '[';
  for (char *p = z; *p;) {
    char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    size_t a = 0;
    while (a < len && (p[a] == ' ' || p[a] == '\r' || p[a] == '\t')) a++;
    if (a < len) {
      if (!first) zList[n++] = ',';
      first = 0;
      memcpy(zList + n, p + a, len - a), n += len - a;
    }
    p += len + (e ? 1 : 0);
  }
  zList[n++] = ']', zList[n] = 0;
  free(z);
  KgOpen ko;
  if (openGraph(zCmd, &o, 1, &ko)) {
    free(zList);
    return 1;
  }
  cairn_kg *g = ko.g;
  uint32_t nAdded = 0;
  rc = cairn_kg_add_facts_json(g, zList, &nAdded);
  free(zList);
  if (!rc) printf("%u facts\n", nAdded);
  return closeGraph(zCmd, &ko, rc);
}

/* cairn mem extract-json TEXT [--speaker S] [--time T]: what the extractor finds, without a store */
int cliMemExtractJson(int argc, char **argv) {
  const char *zCmd = "mem extract-json", *zText = NULL, *zSpk = NULL;
  int64_t ref = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--speaker") && i + 1 < argc) zSpk = argv[++i];
    else if (!strcmp(argv[i], "--time") && i + 1 < argc) {
      if (!parseAsOf(argv[++i], &ref) || ref == CAIRN_KG_NOW || ref == CAIRN_KG_ANY) return cliUsage(zCmd, "--time: ms or a date");
    } else if (!zText) zText = argv[i];
    else return cliUsage(zCmd, "one TEXT");
  }
  if (!zText) return cliUsage(zCmd, "need TEXT");
  char *z;
  int rc = cairn_kg_extract_json(zText, zSpk, ref, &z);
  if (rc) return cliFail(zCmd, rc);
  printf("%s\n", z);
  cairn_free(z);
  return 0;
}

/* ------------------------------------------------------------------ LongMemEval */
typedef struct LmMetrics { double at[3], mrr, ndcg; int n; } LmMetrics;
static void lmAdd(LmMetrics *m, const uint8_t *aRel, uint32_t nRank, uint32_t nRel) {
  static const uint32_t aK[3] = {1, 5, 10};
  int first = -1;
  for (uint32_t r = 0; r < nRank && first < 0; r++)
    if (aRel[r]) first = (int)r;
  for (int i = 0; i < 3; i++) m->at[i] += first >= 0 && (uint32_t)first < aK[i];
  m->mrr += first >= 0 ? 1.0 / (first + 1) : 0;
  double dcg = 0, idcg = 0;
  for (uint32_t r = 0; r < nRank && r < 10; r++) dcg += aRel[r] / log2(r + 2.0);
  for (uint32_t r = 0; r < nRel && r < 10; r++) idcg += 1 / log2(r + 2.0);
  m->ndcg += idcg > 0 ? dcg / idcg : 0;
  m->n++;
}

/* "2023/05/20 (Sat) 02:21" -> ms (0 if it does not parse) */
static int64_t lmDate(const char *z) {
  int y, mo, d, h = 0, mi = 0;
  char *e;
  y = (int)strtol(z, &e, 10);
  if (*e != '/') return 0;
  mo = (int)strtol(e + 1, &e, 10);
  if (*e != '/') return 0;
  d = (int)strtol(e + 1, &e, 10);
  const char *c = strchr(e, ':');
  if (c && c - 2 >= z) h = atoi(c - 2), mi = atoi(c + 1);
  if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31) return 0;
  int yy = y - (mo <= 2), era = yy / 400, yoe = yy - era * 400, mp = (mo + 9) % 12;
  int64_t days = (int64_t)era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + (153 * mp + 2) / 5 + d - 1 - 719468;
  return ((days * 24 + h) * 60 + mi) * 60000;
}

#define LM_TYPES 16
int cliEvalLongmemeval(int argc, char **argv) {
  const char *zCmd = "eval longmemeval";
  if (argc < 2) return cliUsage(zCmd, "need FILE.json");
  int mode = CAIRN_MEM_BM25, full = 0, json = 0;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) json = 1;
    else if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
      const char *z = argv[++i];
      if (!strcmp(z, "bm25")) mode = CAIRN_MEM_BM25;
      else if (!strcmp(z, "hybrid")) mode = CAIRN_MEM_HYBRID;
      else if (!strcmp(z, "full")) mode = CAIRN_MEM_BM25, full = 1;
      else return cliUsage(zCmd, "mode must be bm25, hybrid or full");
    } else return cliUsage(zCmd, "unknown option '%s'", argv[i]);
  }
  cairn_file *f;
  if (cliOpenRead(zCmd, argv[1], &f)) return 1;
  uint64_t size = 0;
  int rc = cairn_file_size(f, &size);
  char *z = rc ? NULL : malloc((size_t)size + 1);
  if (!rc && !z) rc = CAIRN_NOMEM;
  if (!rc) rc = cairn_file_read_exact(f, z, (size_t)size, 0);
  cairn_file_close(f);
  cairn_json *j = NULL;
  if (!rc) rc = cairn_json_parse(z, (size_t)size, &j);
  free(z);
  if (rc) return cliFail(zCmd, rc);
  if (cairn_json_type(j, 0) != CAIRN_JSON_ARRAY) {
    cairn_json_free(j);
    fprintf(stderr, "cairn: %s: %s: expected a JSON list of questions\n", zCmd, argv[1]);
    return 1;
  }
  char azType[LM_TYPES][48];
  int nType = 1;
  strcpy(azType[0], "all");
  LmMetrics aT[LM_TYPES], aS[LM_TYPES];
  memset(aT, 0, sizeof aT), memset(aS, 0, sizeof aS);
  int nSkipped = 0;
  for (uint32_t q = cairn_json_child(j, 0); q && !rc; q = cairn_json_next(j, q)) {
    uint32_t qt = cairn_json_get(j, q, "question"), ty = cairn_json_get(j, q, "question_type"), qid = cairn_json_get(j, q, "question_id");
    uint32_t hs = cairn_json_get(j, q, "haystack_sessions"), hid = cairn_json_get(j, q, "haystack_session_ids");
    uint32_t hd = cairn_json_get(j, q, "haystack_dates"), ans = cairn_json_get(j, q, "answer_session_ids");
    uint32_t qd = cairn_json_get(j, q, "question_date");
    if (!qt || !hs || cairn_json_type(j, hs) != CAIRN_JSON_ARRAY || cairn_json_type(j, qt) != CAIRN_JSON_STRING) {
      nSkipped++;
      continue;
    }
    const char *zQid = qid && cairn_json_type(j, qid) == CAIRN_JSON_STRING ? cairn_json_str(j, qid, NULL) : "";
    if (strlen(zQid) > 4 && !strcmp(zQid + strlen(zQid) - 4, "_abs")) { /* abstention: no evidence */
      nSkipped++;
      continue;
    }
    const char *zType = ty && cairn_json_type(j, ty) == CAIRN_JSON_STRING ? cairn_json_str(j, ty, NULL) : "unknown";
    int it = 1;
    while (it < nType && strcmp(azType[it], zType)) it++;
    if (it == nType && nType < LM_TYPES) snprintf(azType[nType++], sizeof azType[0], "%s", zType);
    if (it >= LM_TYPES) it = LM_TYPES - 1;
    cairn_mem_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.textOnly = mode == CAIRN_MEM_BM25;
    cairn_mem *m;
    rc = cairn_mem_open(NULL, &cfg, &m);
    if (rc) break;
    void *pKg = full ? cliKgEvalBegin() : NULL;
    uint8_t *aRelT = NULL, *aSessAns = NULL;
    uint32_t *aSessOf = NULL, nTurn = 0, nCap = 0, nSess = 0, nRelT = 0, nRelS = 0;
    uint32_t sid = cairn_json_child(j, hid), sd = cairn_json_child(j, hd);
    for (uint32_t s = cairn_json_child(j, hs); s && !rc; s = cairn_json_next(j, s), nSess++) {
      const char *zSid = sid && cairn_json_type(j, sid) == CAIRN_JSON_STRING ? cairn_json_str(j, sid, NULL) : "";
      int64_t when = sd && cairn_json_type(j, sd) == CAIRN_JSON_STRING ? lmDate(cairn_json_str(j, sd, NULL)) : 0;
      int isAns = 0;
      for (uint32_t a = cairn_json_child(j, ans); a; a = cairn_json_next(j, a))
        if (cairn_json_type(j, a) == CAIRN_JSON_STRING && !strcmp(cairn_json_str(j, a, NULL), zSid)) isAns = 1;
      aSessAns = realloc(aSessAns, nSess + 1);
      aSessAns[nSess] = (uint8_t)isAns;
      nRelS += isAns;
      uint32_t iTurn = 0;
      for (uint32_t t = cairn_json_child(j, s); t && !rc; t = cairn_json_next(j, t), iTurn++) {
        uint32_t ro = cairn_json_get(j, t, "role"), co = cairn_json_get(j, t, "content"), ha = cairn_json_get(j, t, "has_answer");
        if (!co || cairn_json_type(j, co) != CAIRN_JSON_STRING) continue;
        cairn_mem_record r;
        memset(&r, 0, sizeof r);
        r.zText = cairn_json_str(j, co, NULL);
        if (!r.zText[0]) continue;
        r.zRole = ro && cairn_json_type(j, ro) == CAIRN_JSON_STRING ? cairn_json_str(j, ro, NULL) : "";
        r.zSession = zSid;
        r.eventMs = when ? when + iTurn * 1000 : 0;
        r.createdMs = r.eventMs ? r.eventMs : 1;
        uint64_t id;
        rc = cairn_mem_add(m, &r, &id);
        if (!rc && pKg) rc = cliKgEvalAdd(pKg, id, &r);
        if (nTurn == nCap) {
          nCap = nCap ? nCap * 2 : 256;
          aRelT = realloc(aRelT, nCap), aSessOf = realloc(aSessOf, nCap * sizeof(uint32_t));
        }
        aRelT[nTurn] = ha && cairn_json_type(j, ha) == CAIRN_JSON_TRUE;
        nRelT += aRelT[nTurn];
        aSessOf[nTurn++] = nSess;
      }
      if (sid) sid = cairn_json_next(j, sid);
      if (sd) sd = cairn_json_next(j, sd);
    }
    if (!rc && nTurn) {
      uint32_t k = nTurn < 1000 ? nTurn : 1000, nHit = 0;
      cairn_mem_hit *aHit = malloc(k * sizeof *aHit);
      uint8_t *aR = malloc(k), *aRS = malloc(k), *aSeen = calloc(nSess + 1, 1);
      cairn_mem_query qq;
      memset(&qq, 0, sizeof qq);
      qq.zText = cairn_json_str(j, qt, NULL), qq.k = k, qq.mode = mode;
      if (pKg) {
        cairn_kg_search_opts o;
        memset(&o, 0, sizeof o);
        o.k = k, o.mode = mode;
        o.nowMs = qd && cairn_json_type(j, qd) == CAIRN_JSON_STRING ? lmDate(cairn_json_str(j, qd, NULL)) : 0;
        rc = cairn_kg_search(pKg, m, qq.zText, &o, aHit, &nHit);
      } else rc = cairn_mem_search(m, &qq, aHit, &nHit);
      uint32_t nS = 0;
      for (uint32_t r = 0; !rc && r < nHit; r++) {
        uint32_t d = (uint32_t)aHit[r].id - 1;
        aR[r] = d < nTurn && aRelT[d];
        uint32_t s = d < nTurn ? aSessOf[d] : 0;
        if (d < nTurn && !aSeen[s]) aSeen[s] = 1, aRS[nS++] = aSessAns[s];
      }
      if (!rc && nRelT) lmAdd(&aT[it], aR, nHit, nRelT), lmAdd(&aT[0], aR, nHit, nRelT);
      if (!rc && nRelS) lmAdd(&aS[it], aRS, nS, nRelS), lmAdd(&aS[0], aRS, nS, nRelS);
      free(aHit), free(aR), free(aRS), free(aSeen);
    }
    free(aRelT), free(aSessAns), free(aSessOf);
    cliKgEvalEnd(pKg);
    cairn_mem_close(m);
  }
  cairn_json_free(j);
  if (rc) return cliFail(zCmd, rc);
  const char *zMode = full ? "full" : mode == CAIRN_MEM_BM25 ? "bm25" : "hybrid";
  if (json) printf("{\"mode\":\"%s\",\"skipped\":%d", zMode, nSkipped);
  else printf("LongMemEval retrieval, mode %s: %d questions with evidence (%d skipped)\n", zMode, aS[0].n, nSkipped);
  for (int lvl = 0; lvl < 2; lvl++) {
    LmMetrics *M = lvl ? aS : aT;
    if (json) printf(",\"%s\":{", lvl ? "session" : "turn");
    else printf("\n%-8s %-28s %5s %8s %8s %8s %8s %8s\n", lvl ? "session" : "turn", "type", "n", "R@1", "R@5", "R@10", "MRR", "NDCG@10");
    for (int t = 0; t < nType; t++) {
      double n = M[t].n ? M[t].n : 1;
      if (json)
        printf("%s\"%s\":{\"n\":%d,\"recall@1\":%.4f,\"recall@5\":%.4f,\"recall@10\":%.4f,\"mrr\":%.4f,\"ndcg@10\":%.4f}", t ? "," : "",
               azType[t], M[t].n, M[t].at[0] / n, M[t].at[1] / n, M[t].at[2] / n, M[t].mrr / n, M[t].ndcg / n);
      else
        printf("%-8s %-28s %5d %8.4f %8.4f %8.4f %8.4f %8.4f\n", "", azType[t], M[t].n, M[t].at[0] / n, M[t].at[1] / n, M[t].at[2] / n,
               M[t].mrr / n, M[t].ndcg / n);
    }
    if (json) printf("}");
  }
  if (json) printf("}\n");
  return 0;
}
#endif
