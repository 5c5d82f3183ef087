/*
** 2026-12-02
**
** core/mem/store_undo.c - all or nothing for the calls that write many rows (cairn_mem_import_jsonl,
** cairn_mem_delete_where, cairn_mem_delete of a memory with versions): a failure half-way (out of
** memory, most often) leaves the store as it was before the call.
**
** Appends: cairnMemSave notes the sizes of everything an append grows; cairnMemRollback cuts
** every structure back to them without allocating (it runs after an allocation failed). Hash
** tables with linear probing (names, BM25 vocabulary) are cut by clearing the slots of the ids
** added since: entries are inserted, and re-inserted when a table grows, in id order, so the
** table left is one that only ever held the older ids. Only appends of new memories are undone
** (an import): the rows before the save are not touched by them.
** The same rollback makes cairn_mem_batch_begin / cairn_mem_batch_end(m, 0) (JS addMany).
** Maintenance reminder: a per-row structure added to cairn_mem must be cut here too.
**
** Forgetting many rows: cairnMemBm25DropRows takes the postings of a set of rows out in one
** pass without allocating, so that a delete can allocate everything it needs first and then
** forget row after row with nothing left that can fail.
*/
#include "mem_int.h"

void cairnMemSave(const cairn_mem *m, MemSave *s) {
  s->n = m->n, s->nText = m->nText, s->nPend = m->nPend, s->nNotLive = m->nNotLive;
  s->nName = m->names.n, s->nDoc = m->bm25.nDoc, s->nTerm = m->bm25.nTerm;
  s->maxEvent = m->maxEvent;
}

static void bm25Truncate(MemBm25 *b, size_t nDoc, uint32_t nTerm) {
  for (uint32_t t = 0; t < b->nTerm; t++) {
    MemPost *p = &b->aPost[t];
    while (p->n && p->aDoc[p->n - 1] >= nDoc) p->n--, b->nPosting--;
  }
  for (size_t r = nDoc; r < b->nDoc; r++) b->nTotLen -= b->aDocLen[r];
  if (b->nDoc > nDoc) b->nDoc = nDoc;
  if (b->nTerm > nTerm) {
    for (uint32_t s = 0; s < b->nSlot; s++)
      if (b->aSlot[s] > nTerm) b->aSlot[s] = 0;
    for (uint32_t t = nTerm; t < b->nTerm; t++) {
      cairnFree(b->aPost[t].aDoc), cairnFree(b->aPost[t].aTf);
      memset(&b->aPost[t], 0, sizeof(MemPost));
    }
    b->nTermBytes = b->aTermOff[nTerm];
    b->nTerm = nTerm;
  }
}

static void namesTruncate(MemNames *t, uint32_t n) {
  if (t->n <= n) return;
  for (uint32_t s = 0; s < t->nSlot; s++)
    if (t->aSlot[s] > n) t->aSlot[s] = 0;
  t->nz = t->aOff[n];
  t->n = n;
}

void cairnMemRollback(cairn_mem *m, const MemSave *s) {
  for (size_t r = m->n; r-- > s->n;) {
    if (memRowLive(m, r)) {
      cairnMemDedupDel(m, r); /* reads row r's text: before the text is cut */
      cairnMemSetLive(m, r, 0);
    }
  }
  bm25Truncate(&m->bm25, s->nDoc, s->nTerm);
  namesTruncate(&m->names, s->nName);
  if (!m->textOnly && m->vecs.n > s->n) m->vecs.n = s->n;
  if (m->ivf.kind && m->ivf.nAssigned > s->n) m->ivf.nAssigned = s->n, m->ivf.dirty = 1;
  cairnMemNearTruncate(m, s->n);
  m->n = s->n, m->nText = s->nText, m->nPend = s->nPend, m->nNotLive = s->nNotLive;
  m->maxEvent = s->maxEvent;
}

void cairnMemBm25DropRows(MemBm25 *b, const uint64_t *aBit, size_t nRow) {
  for (uint32_t t = 0; t < b->nTerm; t++) {
    MemPost *p = &b->aPost[t];
    uint32_t k = 0;
    for (uint32_t i = 0; i < p->n; i++) {
      uint32_t d = p->aDoc[i];
      if (d < nRow && ((aBit[d >> 6] >> (d & 63)) & 1)) continue;
      p->aDoc[k] = d, p->aTf[k] = p->aTf[i], k++;
    }
    b->nPosting -= p->n - k;
    p->n = k;
  }
  for (size_t r = 0; r < nRow && r < b->nDoc; r++)
    if ((aBit[r >> 6] >> (r & 63)) & 1) b->nTotLen -= b->aDocLen[r], b->aDocLen[r] = 0;
}

int cairn_mem_batch_begin(cairn_mem *m) {
  if (!m) return cairnErr(CAIRN_MISUSE, "mem_batch_begin: NULL store");
  if (m->readOnly) return cairnErr(CAIRN_READONLY, "mem_batch_begin: store opened read-only");
  if (m->pBatch) return cairnErr(CAIRN_MISUSE, "mem_batch_begin: a batch is open already (batches do not nest)");
  MemSave *s = cairnMalloc(sizeof *s);
  if (!s) return cairnErr(CAIRN_NOMEM, "mem_batch_begin: out of memory");
  cairnMemSave(m, s);
  m->pBatch = s;
  return CAIRN_OK;
}

int cairn_mem_batch_end(cairn_mem *m, int bKeep) {
  if (!m) return cairnErr(CAIRN_MISUSE, "mem_batch_end: NULL store");
  if (!m->pBatch) return cairnErr(CAIRN_MISUSE, "mem_batch_end: no batch is open");
  if (!bKeep) cairnMemRollback(m, m->pBatch);
  cairnFree(m->pBatch);
  m->pBatch = NULL;
  return CAIRN_OK;
}
