/*
** 2026-12-02
**
** cli/progress.c - the progress line every long command draws on stderr: done/total (MiB or
** items), percent, rate and time left, fed by the core's cairn_progress_fn callbacks (repack,
** store put/get/verify, zstd/gzip, zl) or by a command's own loop (eval). Drawn when stderr is
** a terminal (one line redrawn in place at most 10 times a second, cleared at the end), or with
** -v on any stderr (a line every second, kept); never with -q. stdout is never touched, so
** --json output stays clean. The core has no clock for this: the CLI reads the host's.
*/
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static struct {
  int bOn;            /* a line is being drawn for this operation */
  int bItems;         /* counts are items, not bytes */
  const char *zLabel;
  int64_t t0, tLast;  /* ns: the first call, the last line drawn */
  uint64_t nLast;     /* nDone of the last line drawn (what is shown never goes back) */
  int bShown;         /* something is on the terminal's line */
  int bDone;          /* the 100% line was drawn */
} gProg;

static int64_t progNow(void) {
  const cairn_host *h = cairn_host_get();
  return h->xClock ? h->xClock(h->pCtx, 1) : 0;
}

/* "12.5 MiB" or "1234" */
static void progAmount(char *z, size_t n, uint64_t v, int bItems) {
  if (bItems) snprintf(z, n, "%llu", (unsigned long long)v);
  else snprintf(z, n, "%.1f MiB", (double)v / 1048576.0);
}

static void progDraw(uint64_t nDone, uint64_t nTotal, int64_t now, int bTty) {
  char zDone[32], zTotal[32], zRate[40] = "", zEta[32] = "";
  progAmount(zDone, sizeof zDone, nDone, gProg.bItems);
  progAmount(zTotal, sizeof zTotal, nTotal, gProg.bItems);
  double secs = (double)(now - gProg.t0) / 1e9;
  if (secs > 0.05 && nDone > 0) {
    double rate = (double)nDone / secs;
    if (gProg.bItems) snprintf(zRate, sizeof zRate, ", %.1f/s", rate);
    else snprintf(zRate, sizeof zRate, ", %.1f MiB/s", rate / 1048576.0);
    if (nDone < nTotal) snprintf(zEta, sizeof zEta, ", ETA %.0f s", (double)(nTotal - nDone) / rate + 0.5);
  }
  int pct = nTotal ? (int)(nDone * 100 / nTotal) : 100;
  fprintf(stderr, "%scairn %s: %3d%% %s/%s%s%s%s", bTty ? "\r\033[K" : "", gProg.zLabel, pct, zDone, zTotal, zRate, zEta,
          bTty ? "" : "\n");
  fflush(stderr);
  gProg.bShown = bTty;
}

static void progUpdate(const char *zLabel, int bItems, uint64_t nDone, uint64_t nTotal) {
  if (cliVerbosity < 1) return;
  int bTty = isatty(2);
  if (!bTty && cliVerbosity < 2) return;
  int64_t now = progNow();
  if (!gProg.bOn) {
    /* a small byte job on a terminal stays quiet (it ends before a line helps); -v shows all */
    if (!bItems && nTotal < (8u << 20) && cliVerbosity < 2) return;
    memset(&gProg, 0, sizeof gProg);
    gProg.bOn = 1, gProg.bItems = bItems, gProg.zLabel = zLabel ? zLabel : "";
    gProg.t0 = now, gProg.tLast = now - 1000000000;
  }
  if (nDone > nTotal) nDone = nTotal;
  if (nDone < gProg.nLast || gProg.bDone) return; /* never backwards, one 100% line */
  int bEnd = nDone == nTotal;
  int64_t gap = bTty ? 100000000 : 1000000000;
  if (!bEnd && now - gProg.tLast < gap) return;
  gProg.tLast = now, gProg.nLast = nDone, gProg.bDone = bEnd;
  progDraw(nDone, nTotal, now, bTty);
}

void cliProgress(void *pArg, uint64_t nDone, uint64_t nTotal) { progUpdate((const char *)pArg, 0, nDone, nTotal); }
void cliProgressItems(const char *zLabel, uint64_t nDone, uint64_t nTotal) { progUpdate(zLabel, 1, nDone, nTotal); }

void cliProgressEnd(void) {
  if (gProg.bShown) fprintf(stderr, "\r\033[K");
  memset(&gProg, 0, sizeof gProg);
}

/* An informational note on stderr ("3 memories imported"): dropped with -q. Errors and damage
** reports do not go through here. */
void cliNote(const char *zFmt, ...) {
  if (cliVerbosity < 1) return;
  cliProgressEnd();
  va_list ap;
  va_start(ap, zFmt);
  vfprintf(stderr, zFmt, ap);
  va_end(ap);
}
