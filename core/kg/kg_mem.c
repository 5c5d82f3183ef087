/*
** 2026-12-02
**
** core/kg/kg_mem.c - the graph kept inside the memory store's own HDF5 file (cairn_kg_open_mem):
** its /graph group is read from the store's file at open and written by the store's checkpoint,
** through the checkpoint's own h5w writer before its one commit (core/mem/mem_hook.h), so the
** graph and the memories land together and a crash leaves both at the last checkpoint. Forgetting
** a memory in the store (cairn_mem_delete) removes the facts only it supported; a forget replayed
** from the store's log at open, or one whose graph side failed, is caught up at attach and at
** the checkpoint's rewrite (every memory id the graph holds is checked against the store). The
** read is lazy: opening decodes nothing; the first graph call (or a rewrite) reads /graph.
*/
#include <string.h>

#include "kg/kg_int.h"

static int kgPending(void *p) { return !((cairn_kg *)p)->bUnread && cairnKgPending(p); }

/* Drop what forgotten memories supported: the ids the store had and forgot. */
static int kgReconcile(cairn_kg *g, cairn_mem *m) {
  if (g->flags & CAIRN_KG_READONLY) return CAIRN_OK;
  for (int pass = 0; pass < 2; pass++) {
    size_t n = pass ? g->nSource : g->nMention;
    for (size_t i = 0; i < n; i++) {
      const KgRow2 *r = pass ? &g->aSource[i] : &g->aMention[i];
      if (r->alive && cairnMemHookIdForgotten(m, r->b)) CAIRN_TRY(cairn_kg_forget_memory(g, r->b, NULL));
    }
  }
  return CAIRN_OK;
}

static int kgSave(void *p, cairn_mem *m, cairn_h5w *w, int bWhole) {
  cairn_kg *g = p;
  if (g->bUnread && !bWhole) return CAIRN_OK; /* never read: nothing changed */
  if (bWhole) CAIRN_TRY(cairnKgNeed(g)); /* a rewrite writes the graph whole: read it from the old file first */
  if (bWhole) CAIRN_TRY(kgReconcile(g, m)); /* a rewrite: the forgotten text must not reach the image */
  if (!bWhole && !cairnKgPending(g)) return CAIRN_OK;
  if (bWhole && g->nEnt == 0 && g->nFact == 0 && g->nPred == 0 && g->nTime == 0 && !(g->h5Have & (1u << 31))) return CAIRN_OK;
  return cairnKgSaveInto(g, w, bWhole);
}
static void kgSaved(void *p, int bWhole, int bOk) {
  (void)bWhole;
  if (bOk && !((cairn_kg *)p)->bUnread) cairnKgMarkSaved(p);
}
static int kgForget(void *p, uint64_t memId) {
  cairn_kg *g = p;
  if (g->flags & CAIRN_KG_READONLY) return CAIRN_OK;
  if (g->bUnread) return CAIRN_OK; /* the read reconciles it (the store marks the memory dead) */
  return cairn_kg_forget_memory(g, memId, NULL);
}
static void kgDetach(void *p) {
  cairn_kg *g = p;
  g->m = NULL, g->fUnread = NULL; /* the store's file closes with it */
  g->flags |= CAIRN_KG_READONLY; /* nothing could save it now */
}

/* The deferred read of an attached graph: its store's file (the same cairn_file across rewrites,
** which fill it in place), then what forgets happened since (the store marks forgotten ids dead). */
int cairnKgAttachRead(cairn_kg *g) {
  int bFound = 0;
  if (!g->fUnread)
    return cairnErr(CAIRN_MISUSE, "graph: its memory store was closed before the graph was read (close the graph first)");
  CAIRN_TRY(cairnKgLoadFile(g, g->fUnread, &bFound));
  if (g->m && cairnMemHookForgetPending(g->m)) CAIRN_TRY(kgReconcile(g, g->m));
  return CAIRN_OK;
}

int cairnKgAttach(cairn_kg *g, cairn_mem *m, cairn_file *fOld) {
  cairn_file *f = cairnMemHookFile(m);
  int bFound = 0;
  if (f && !fOld) g->bUnread = 1, g->fUnread = f; /* lazy: read at the first graph call (cairnKgNeed) */
  else if (f) CAIRN_TRY(cairnKgLoadFile(g, f, &bFound));
  if (!bFound && fOld) {
    /* a graph of before 2026-12-02 in a file of its own: its rows go into the store's file at the
    ** next checkpoint (cairn_kg_commit); the caller may remove the old file after that */
    int bOld = 0;
    CAIRN_TRY(cairnKgLoadFile(g, fOld, &bOld));
    cairnKgMarkUnsaved(g);
  }
  g->hook.pCtx = g;
  g->hook.xPending = kgPending, g->hook.xSave = kgSave, g->hook.xSaved = kgSaved, g->hook.xForget = kgForget;
  g->hook.xDetach = kgDetach;
  if (cairnMemHookReadOnly(m)) g->flags |= CAIRN_KG_READONLY;
  if (!(g->flags & CAIRN_KG_READONLY)) {
    CAIRN_TRY(cairnMemHookSet(m, &g->hook));
    g->m = m;
    if (!g->bUnread && cairnMemHookForgetPending(m)) CAIRN_TRY(kgReconcile(g, m));
  }
  return CAIRN_OK;
}

void cairnKgDetach(cairn_kg *g) {
  if (g->m) (void)cairnMemHookSet(g->m, NULL);
  g->m = NULL;
}

int cairnKgRewriteDetached(cairn_mem *m, cairn_file *fOld, cairn_h5w *w) {
  cairn_kg *g = NULL;
  CAIRN_TRY(cairn_kg_open(NULL, 0, &g));
  int bFound = 0;
  int rc = cairnKgLoadFile(g, fOld, &bFound);
  if (rc == CAIRN_OK && bFound) rc = kgReconcile(g, m);
  if (rc == CAIRN_OK && bFound) rc = cairnKgSaveInto(g, w, 1);
  g->flags |= CAIRN_KG_READONLY; /* in memory: close writes nothing */
  cairn_kg_close(g);
  return rc;
}
