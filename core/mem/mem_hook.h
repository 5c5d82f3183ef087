/*
** 2026-12-02
**
** core/mem/mem_hook.h - one companion structure kept inside the memory store's file (today the
** knowledge graph, core/kg): the store calls it at each checkpoint, so that the companion's HDF5
** group is written by the same h5w writer and lands with the same superblock switch (one commit
** for both, crash-safe alike), and when a memory is forgotten. The store knows nothing of the
** companion's data; core/kg includes this header, core/mem does not include core/kg.
** Maintenance reminder: the calls are made in store_ck.c (cairnMemCheckpointRun, cairnMemRewrite),
** store_edit.c (cairn_mem_delete) and store.c (cairn_mem_close); store_hook.c holds the rest.
*/
#ifndef CAIRN_MEM_HOOK_H
#define CAIRN_MEM_HOOK_H

#include "cairn/h5w.h"
#include "cairn/mem.h"

typedef struct cairnMemHook {
  void *pCtx;
  /* unsaved changes: a checkpoint must run even when the store has none */
  int (*xPending)(void *pCtx);
  /* write the group through w before the checkpoint's commit. bWhole: w builds a fresh image of
  ** the whole file (a forget, compaction or migration), so every row is written anew. */
  int (*xSave)(void *pCtx, cairn_mem *m, cairn_h5w *w, int bWhole);
  /* after every checkpoint attempt: bOk the commit is durable (else the file keeps the last
  ** commit and the companion its unsaved rows) */
  void (*xSaved)(void *pCtx, int bWhole, int bOk);
  /* memory id was forgotten (cairn_mem_delete): drop what only it supported */
  int (*xForget)(void *pCtx, uint64_t memId);
  /* the store is closing: forget the store (no later call reaches it) */
  void (*xDetach)(void *pCtx);
} cairnMemHook;

/* Attach p (copied pointer, not the struct: it must outlive the attachment) or detach (NULL).
** One companion at a time: CAIRN_EXISTS if another is attached. */
int cairnMemHookSet(cairn_mem *m, const cairnMemHook *p);
/* The store's file (NULL: an in-memory store), to read the companion's group at attach. */
cairn_file *cairnMemHookFile(cairn_mem *m);
/* Memory id was in the store and is forgotten (an id the store never had is not). */
int cairnMemHookIdForgotten(cairn_mem *m, uint64_t id);
/* A forget since the last checkpoint (one replayed from the log at open among them). */
int cairnMemHookForgetPending(cairn_mem *m);
/* Opened read-only. */
int cairnMemHookReadOnly(cairn_mem *m);

/* core/kg/kg_mem.c (CAIRN_WITH_KG): a rewrite with no graph attached carries the graph of the old
** file fOld into the new image w (forgotten memories' facts dropped on the way), so that a
** process that never opened the graph does not lose it. No /graph in fOld: nothing written. */
int cairnKgRewriteDetached(cairn_mem *m, cairn_file *fOld, cairn_h5w *w);

/* store_hook.c: the calls the store makes (no-ops without a companion) */
int cairnMemHookPending(cairn_mem *m);
int cairnMemHookSave(cairn_mem *m, cairn_h5w *w, int bWhole);
void cairnMemHookSaved(cairn_mem *m, int bWhole, int bOk);

#endif /* CAIRN_MEM_HOOK_H */
