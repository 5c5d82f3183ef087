/*
** 2026-12-02
**
** core/mem/store_hook.c - the companion attached to a store (mem_hook.h): attach and detach,
** and the calls the checkpoint makes. A companion's failure fails the checkpoint (the file keeps
** the last commit), never the store's own state.
*/
#include "mem_int.h"
#include "mem_hook.h"

int cairnMemHookSet(cairn_mem *m, const cairnMemHook *p) {
  if (!m) return cairnErr(CAIRN_MISUSE, "mem hook: NULL store");
  if (p && m->pHook && m->pHook != p) return cairnErr(CAIRN_EXISTS, "mem hook: the store has a graph attached already");
  m->pHook = p;
  return CAIRN_OK;
}
cairn_file *cairnMemHookFile(cairn_mem *m) { return m->f; }
int cairnMemHookIdForgotten(cairn_mem *m, uint64_t id) {
  return id >= 1 && id <= m->n && m->aHead[id - 1] == id && (m->aFlags[id - 1] & MEM_ROW_DEAD);
}
int cairnMemHookForgetPending(cairn_mem *m) { return m->forgetPending; }
int cairnMemHookReadOnly(cairn_mem *m) { return m->readOnly; }

int cairnMemHookPending(cairn_mem *m) { return m->pHook && m->pHook->xPending(m->pHook->pCtx); }
int cairnMemHookSave(cairn_mem *m, cairn_h5w *w, int bWhole) {
  if (!m->pHook) return CAIRN_OK;
  int rc = m->pHook->xSave(m->pHook->pCtx, m, w, bWhole);
  if (rc == CAIRN_OK) return CAIRN_OK;
  char zErr[256];
  cairnFormat(zErr, sizeof zErr, "%s", cairn_errmsg());
  return cairnErr(rc, "checkpoint: the graph: %s", zErr);
}
void cairnMemHookSaved(cairn_mem *m, int bWhole, int bOk) {
  if (m->pHook) m->pHook->xSaved(m->pHook->pCtx, bWhole, bOk);
}
