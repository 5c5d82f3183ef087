/*
** 2026-12-02
**
** cli/cmd_cons.c - consolidation, the session tick and explain in the cairn CLI (cairn/consolidate.h):
**   cairn mem consolidate FILE [--capacity N] [--half-life H] [--merge T | --no-merge] [--no-link-merge]
**        [--min-group N] [--now MS] [--dry-run] [--json]
**        one cycle: score, evict the working tier beyond N into the episodic tier, merge what
**        recurs into semantic memories (extractive rule), commit.
**   cairn mem tick FILE [--budget MS] [--capacity N] [--no-consolidate] [--checkpoint-at N] [--json]
**        the maintenance that is due and fits the budget (commit, consolidation, IVF upkeep, checkpoint).
**   cairn mem explain FILE ID [--capacity N] [--half-life H] [--now MS] [--json]
**        why memory ID is where it is: its score's parts, its rank or its merge, its tier history.
** Each builds the JSON options of cairn_mem_consolidate_json / tick_json / explain_opts_json.
*/
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#if CAIRN_WITH_MEM
#include "cairn/consolidate.h"
#include "cairn/json.h"

typedef struct ConsArgs {
  const char *zFile, *zId;
  int json, dry, noConsolidate;
  int64_t busyMs;
  char zOpts[512]; /* the consolidation options as JSON members, without braces */
  size_t nOpts;
  char zTick[128];
} ConsArgs;

static int consAppend(ConsArgs *a, const char *zKey, const char *zVal) {
  size_t n = strlen(zKey) + strlen(zVal) + 8;
  if (a->nOpts + n >= sizeof a->zOpts) return 0;
  a->nOpts += (size_t)snprintf(a->zOpts + a->nOpts, sizeof a->zOpts - a->nOpts, "%s\"%s\":%s", a->nOpts ? "," : "", zKey, zVal);
  return 1;
}
static int consNumArg(const char *z, int bInt) {
  char *zEnd = NULL;
  double d = strtod(z, &zEnd);
  return zEnd && zEnd != z && !*zEnd && d == d && (!bInt || (d >= 0 && d == (double)(long long)d));
}

/* Parse the options the three commands share; zWhich says which ones are allowed ("c", "t", "e"). */
static int consArgs(const char *zCmd, int argc, char **argv, char cWhich, ConsArgs *a) {
  memset(a, 0, sizeof *a);
  a->busyMs = 5000;
  for (int i = 1; i < argc; i++) {
    const char *z = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(z, "--json")) a->json = 1;
    else if (!strcmp(z, "--dry-run") && cWhich == 'c') a->dry = 1, consAppend(a, "dryRun", "true");
    else if (!strcmp(z, "--no-merge") && cWhich == 'c') consAppend(a, "mergeThreshold", "-1");
    else if (!strcmp(z, "--no-link-merge") && cWhich == 'c') consAppend(a, "linkMerge", "false");
    else if (!strcmp(z, "--no-consolidate") && cWhich == 't') a->noConsolidate = 1;
    else if (!strcmp(z, "--capacity") || !strcmp(z, "--half-life") || !strcmp(z, "--now") ||
             ((!strcmp(z, "--merge") || !strcmp(z, "--min-group")) && cWhich == 'c') ||
             ((!strcmp(z, "--budget") || !strcmp(z, "--checkpoint-at")) && cWhich == 't') || !strcmp(z, "--busy-timeout")) {
      int bInt = strcmp(z, "--half-life") && strcmp(z, "--merge");
      if (!v || !consNumArg(v, bInt)) return cliUsage(zCmd, "%s needs %s", z, bInt ? "a whole number >= 0" : "a number");
      i++;
      if (!strcmp(z, "--busy-timeout")) a->busyMs = atoll(v);
      else if (!strcmp(z, "--budget")) {
        size_t n = strlen(a->zTick);
        snprintf(a->zTick + n, sizeof a->zTick - n, "%s\"budgetMs\":%s", n ? "," : "", v);
      } else if (!strcmp(z, "--checkpoint-at")) {
        size_t n = strlen(a->zTick);
        snprintf(a->zTick + n, sizeof a->zTick - n, "%s\"checkpointAt\":%s", n ? "," : "", v);
      } else {
        const char *zKey = !strcmp(z, "--capacity") ? "capacity" : !strcmp(z, "--half-life") ? "halfLifeHours"
                           : !strcmp(z, "--now") ? "now" : !strcmp(z, "--merge") ? "mergeThreshold" : "minGroup";
        if (!consAppend(a, zKey, v)) return cliUsage(zCmd, "too many options");
      }
    } else if (z[0] == '-' && z[1] == '-') return cliUsage(zCmd, "unknown option %s", z);
    else if (!a->zFile) a->zFile = z;
    else if (cWhich == 'e' && !a->zId) a->zId = z;
    else return cliUsage(zCmd, "unexpected argument %s", z);
  }
  if (!a->zFile) return cliUsage(zCmd, "give the store FILE");
  if (cWhich == 'e' && (!a->zId || !consNumArg(a->zId, 1) || atoll(a->zId) < 1)) return cliUsage(zCmd, "give the memory ID (1, 2, ...)");
  return -1;
}

static int consOpen(const char *zCmd, const ConsArgs *a, int readOnly, cairn_mem **pp) {
  cairn_mem_config c;
  memset(&c, 0, sizeof c);
  c.readOnly = readOnly;
  c.busyTimeoutMs = a->busyMs ? a->busyMs : -1;
  int rc = cairn_mem_open(a->zFile, &c, pp);
  return rc ? cliFail(zCmd, rc) : 0;
}

/* A number of the report (0 when absent). */
static double jnum(const cairn_json *j, uint32_t o, const char *zKey) {
  uint32_t v = cairn_json_get(j, o, zKey);
  return v ? cairn_json_num(j, v) : 0;
}

int cliMemConsolidate(int argc, char **argv) {
  const char *zCmd = "mem consolidate";
  ConsArgs a;
  int r = consArgs(zCmd, argc, argv, 'c', &a);
  if (r >= 0) return r;
  cairn_mem *m;
  if (consOpen(zCmd, &a, a.dry, &m)) return 1;
  char zOpts[600], *z = NULL;
  snprintf(zOpts, sizeof zOpts, "{%s}", a.zOpts);
  int rc = cairn_mem_consolidate_json(m, zOpts, &z);
  if (rc == CAIRN_OK && !a.dry) rc = cairn_mem_commit(m);
  if (rc) {
    cairn_free(z);
    cairn_mem_close(m);
    return cliFail(zCmd, rc);
  }
  if (a.json) printf("%s\n", z);
  else {
    cairn_json *j = NULL;
    if (cairn_json_parse(z, strlen(z), &j) == CAIRN_OK) {
      printf("%s%.0f memories scored; working %.0f: %.0f evicted to the episodic tier; %.0f semantic memories written "
             "from %.0f episodic (%.0f compared), %.0f dissolved; hot index %.0f, episodic %.0f; %.3f ms\n",
             a.dry ? "(dry run) " : "", jnum(j, 0, "scored"), jnum(j, 0, "working"), jnum(j, 0, "evicted"), jnum(j, 0, "promoted"),
             jnum(j, 0, "merged"), jnum(j, 0, "compared"), jnum(j, 0, "dissolved"), jnum(j, 0, "hot"), jnum(j, 0, "episodic"),
             jnum(j, 0, "ms"));
      cairn_json_free(j);
    }
  }
  cairn_free(z);
  rc = cairn_mem_close(m);
  return rc ? cliFail(zCmd, rc) : 0;
}

int cliMemTick(int argc, char **argv) {
  const char *zCmd = "mem tick";
  ConsArgs a;
  int r = consArgs(zCmd, argc, argv, 't', &a);
  if (r >= 0) return r;
  cairn_mem *m;
  if (consOpen(zCmd, &a, 0, &m)) return 1;
  char zOpts[800], *z = NULL;
  if (a.noConsolidate) snprintf(zOpts, sizeof zOpts, "{%s%s\"consolidate\":false}", a.zTick, a.zTick[0] ? "," : "");
  else snprintf(zOpts, sizeof zOpts, "{%s%s\"consolidate\":{%s}}", a.zTick, a.zTick[0] ? "," : "", a.zOpts);
  int rc = cairn_mem_tick_json(m, zOpts, &z);
  if (rc) {
    cairn_mem_close(m);
    return cliFail(zCmd, rc);
  }
  if (a.json) printf("%s\n", z);
  else {
    cairn_json *j = NULL;
    if (cairn_json_parse(z, strlen(z), &j) == CAIRN_OK) {
      static const char *const az[3] = {"due", "done", "skipped"};
      for (int k = 0; k < 3; k++) {
        printf("%s%s:", k ? "; " : "", az[k]);
        uint32_t v = cairn_json_get(j, 0, az[k]);
        int n = 0;
        for (uint32_t c = v ? cairn_json_child(j, v) : 0; c; c = cairn_json_next(j, c), n++) printf(" %s", cairn_json_str(j, c, NULL));
        if (!n) printf(" nothing");
      }
      printf("; %.3f ms of %.0f ms\n", jnum(j, 0, "ms"), jnum(j, 0, "budgetMs"));
      uint32_t c = cairn_json_get(j, 0, "consolidate");
      if (c) printf("consolidate: %.0f evicted, %.0f semantic written, hot index %.0f\n", jnum(j, c, "evicted"), jnum(j, c, "promoted"), jnum(j, c, "hot"));
      cairn_json_free(j);
    }
  }
  cairn_free(z);
  rc = cairn_mem_close(m);
  return rc ? cliFail(zCmd, rc) : 0;
}

int cliMemExplain(int argc, char **argv) {
  const char *zCmd = "mem explain";
  ConsArgs a;
  int r = consArgs(zCmd, argc, argv, 'e', &a);
  if (r >= 0) return r;
  cairn_mem *m;
  if (consOpen(zCmd, &a, 1, &m)) return 1;
  char zOpts[600], *z = NULL;
  snprintf(zOpts, sizeof zOpts, "{%s}", a.zOpts);
  int rc = cairn_mem_explain_opts_json(m, (uint64_t)atoll(a.zId), zOpts, &z);
  cairn_mem_close(m);
  if (rc) return cliFail(zCmd, rc);
  if (a.json) printf("%s\n", z);
  else {
    cairn_json *j = NULL;
    if (cairn_json_parse(z, strlen(z), &j) == CAIRN_OK) {
      uint32_t s = cairn_json_get(j, 0, "score"), in = cairn_json_get(j, 0, "inputs"), h = cairn_json_get(j, 0, "history");
      printf("memory %s: %s (%s)\n", a.zId, cairn_json_str(j, cairn_json_get(j, 0, "decision"), NULL), cairn_json_str(j, cairn_json_get(j, 0, "why"), NULL));
      printf("score %.4f = value %.3f, access %.3f, recency %.3f, links %.3f (importance %.3g, %.0f accesses, %.0f links)\n",
             jnum(j, s, "score"), jnum(j, s, "value"), jnum(j, s, "access"), jnum(j, s, "recency"), jnum(j, s, "links"),
             jnum(j, in, "importance"), jnum(j, in, "accessCount"), jnum(j, in, "links"));
      for (uint32_t c = h ? cairn_json_child(j, h) : 0; c; c = cairn_json_next(j, c))
        printf("  version %.0f: %s from %.0f%s\n", jnum(j, c, "version"), cairn_json_str(j, cairn_json_get(j, c, "tierName"), NULL),
               jnum(j, c, "validFromMs"), jnum(j, c, "validToMs") ? " (superseded)" : " (current)");
      cairn_json_free(j);
    }
  }
  cairn_free(z);
  return 0;
}
#endif
