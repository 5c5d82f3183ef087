/*
** 2026-12-02
**
** bindings/em/em_exports.h - the prototypes of every C function the Emscripten binding exports
** to JavaScript (EMSCRIPTEN_KEEPALIVE in bindings/em/em_*.c; the names are also listed in
** bindings/em/exports*.txt for the link). Maintenance reminder: a function added, renamed or
** changed there changes here; the build's -Wmissing-prototypes says when they disagree.
*/
#ifndef CAIRN_EM_EXPORTS_H
#define CAIRN_EM_EXPORTS_H

#include <stddef.h>
#include <stdint.h>
#include "cairn/cairn.h"

/* em_binding.c */
cairn_file *cairn_em_file_open(int id);
void cairn_em_set_error(int rc, const char *zMsg);
int cairn_em_sha256_file(cairn_file *f, uint8_t *out);
int cairn_em_zfile(int compress, int kind, int level, cairn_file *in, cairn_file *out, double *pSizes);
double cairn_em_zstd_content_size(const void *p, size_t n);
/* em_cas.c */
int cairn_em_cas_open(cairn_file *f, int codec, int level, int readonly, int noSync, uint32_t nMin, uint32_t nAvg, uint32_t nMax, int normLevel, double seed, cairn_cas **ppCas);
int cairn_em_cas_stat(cairn_cas *c, const uint8_t *aId, double *pSize);
int cairn_em_cas_read(cairn_cas *c, const uint8_t *aId, double off, void *p, size_t n, size_t *pnRead);
int cairn_em_cas_get_file(cairn_cas *c, const uint8_t *aId, double start, double end, cairn_file *out);
int cairn_em_cas_put_file(cairn_cas *c, cairn_file *in, uint8_t *aId);
int cairn_em_cas_entry(cairn_cas *c, size_t i, uint8_t *aId, double *aNum, const char **pzName);
int cairn_em_cas_stats(cairn_cas *c, double *aNum);
int cairn_em_cas_verify(cairn_cas *c, double *pnBad, char **pz);
/* em_h5.c */
int cairn_em_h5_describe(cairn_h5_obj *o, int flags, char **pz, double *pn);
int cairn_em_h5_read(cairn_h5_obj *o, int rank, const double *aSel, int mtype, void *buf, double nBuf);
int cairn_em_h5_read_json(cairn_h5_obj *o, int rank, const double *aSel, char **pz, double *pn);
int cairn_em_h5_raw_extent(cairn_h5_obj *o, int mtype, double *aOut);
int cairn_em_h5_attrs(cairn_h5_obj *o, char **pz, double *pn);
void cairn_em_h5_stats(cairn_h5 *h, double *pOut);
int cairn_em_h5_cache_budget(cairn_h5 *h, double nBytes);
double cairn_em_h5_read_budget(cairn_h5 *h, double nBytes);
cairn_h5w_type *cairn_em_h5w_type_array(const cairn_h5w_type *base, int rank, const double *aDim);
int cairn_em_h5w_dataset(cairn_h5w *w, const char *zPath, const cairn_h5w_type *t, int rank, const double *aDim, const double *aMax, int layout, const double *aChunk, const char *zFilters, const void *pFill, const void *pData);
int cairn_em_h5w_append(cairn_h5w *w, const char *zPath, double nRows, const void *pData);
int cairn_em_h5w_write(cairn_h5w *w, const char *zPath, double row0, double nRows, const void *pData);
int cairn_em_h5w_resize(cairn_h5w *w, const char *zPath, double nRows);
int cairn_em_h5w_attr(cairn_h5w *w, const char *zObj, const char *zName, const cairn_h5w_type *t, int rank, const double *aDim, const void *pData);
int cairn_em_h5w_shape(cairn_h5w *w, const char *zPath, int *pRank, double *aOut);
/* em_eph.c (the ephemeral tier and the decision gate) */
int cairn_em_eph_open(uint32_t capacity, uint32_t dim, int metric, double defaultTtlMs, cairn_eph **pp);
int cairn_em_eph_set(cairn_eph *e, const void *pKey, uint32_t nKey, const void *pValue, uint32_t nValue, double ttlMs,
                     const float *aEmb, uint32_t nEmb);
int cairn_em_eph_get(cairn_eph *e, const void *pKey, uint32_t nKey, double *aOut);
int cairn_em_eph_expire(cairn_eph *e, const void *pKey, uint32_t nKey, double ttlMs);
uint32_t cairn_em_eph_hit_size(void);
int cairn_em_eph_search(cairn_eph *e, const float *q, uint32_t nQ, uint32_t k, cairn_eph_hit *aHit, double *aOut, uint32_t *pn);
int cairn_em_eph_stats(cairn_eph *e, double *aOut);
int cairn_em_gate_check(const char *z, uint32_t n, const double *aCfg, double *aOut);
int cairn_em_gate_open(const double *aCfg, cairn_gate **pp);
int cairn_em_gate_observe(cairn_gate *g, const char *zUser, const char *zAssistant, const float *aUser, const float *aAssistant,
                          uint32_t nEmb, double importance, double *aOut);
/* em_mem.c */
int cairn_em_mem_open(cairn_file *f, uint32_t dim, int metric, int readOnly, int noSync, int textOnly, int diskVectors, cairn_mem **ppMem);
int cairn_em_mem_add(cairn_mem *m, const char *zText, const float *aEmb, uint32_t nEmb, double createdMs, double eventMs, const char *zSession, const char *zRole, int tier, double importance, const char *zMeta, double *pId);
int cairn_em_mem_get(cairn_mem *m, double id, double *aNum, const char **azStr);
int cairn_em_mem_embedding(cairn_mem *m, double id, float *pOut);
int cairn_em_mem_touch(cairn_mem *m, double id);
int cairn_em_mem_search(cairn_mem *m, const char *zText, const float *aEmb, uint32_t nEmb, uint32_t k, int mode, int fusion, double rrfK, double wVector, double wBm25, double recencyWeight, double halfLifeH, double nowMs, int vindex, uint32_t nprobe, uint32_t rerank, double bm25K1, double bm25B, const char *zFilter, int touch, double asOfMs, double *aOut, uint32_t *pn);
int cairn_em_mem_build_index(cairn_mem *m, int kind, uint32_t nlist, uint32_t pqM, uint32_t nIter, uint32_t nTrain, double seed);
int cairn_em_mem_stats(cairn_mem *m, double *aNum, const char **pzKernel);
int cairn_em_mem_tokenize(const char *zText, size_t nText, char **pz, size_t *pn);
double cairn_em_mem_demo_count(int questions);
double cairn_em_mem_demo_turn(uint32_t i, const char **azStr);
const char *cairn_em_mem_demo_question(uint32_t i, int *piTurn);
int cairn_em_mem_get_json(cairn_mem *m, double id, int bEmb, int bVersion, char **pz);
int cairn_em_mem_history_json(cairn_mem *m, double id, int bEmb, char **pz);
int cairn_em_mem_update_json(cairn_mem *m, double id, const char *zJson, double *pVersion);
int cairn_em_mem_delete(cairn_mem *m, double id);
int cairn_em_mem_delete_where(cairn_mem *m, const char *zFilter, double *pn);
int cairn_em_mem_import(cairn_mem *m, const char *z, size_t n, double *pn);
int cairn_em_mem_export(cairn_mem *m, const char *zOpts, char **pz);
/* em_services.c */
int cairn_em_host_install(void);
double cairn_em_heap_used(void);
/* em_zl.c */
int cairn_em_zl_size(const void *p, size_t n, double *pSize);
int cairn_em_zl_file(int compress, int profile, int level, cairn_file *in, cairn_file *out, double *pSizes);
int cairn_em_zl_compress_records(const uint32_t *aWidth, int nField, int level, const void *p, size_t n, void *out, size_t nOut, size_t *pnOut);
int cairn_em_zl_records_file(const uint32_t *aWidth, int nField, int level, cairn_file *in, cairn_file *out, double *pSizes);

/* em_kg.c */
struct EmKg;
int cairn_em_kg_open(cairn_file *f, int readOnly, struct EmKg **pp);
int cairn_em_kg_open_mem(cairn_mem *m, int readOnly, struct EmKg **pp);
int cairn_em_kg_close(struct EmKg *h);
int cairn_em_kg_commit(struct EmKg *h);
int cairn_em_kg_functional(struct EmKg *h, const char *zPred, int resolve);
int cairn_em_kg_add_facts(struct EmKg *h, const char *zJson, double *pn);
int cairn_em_kg_extract(struct EmKg *h, double memId, const char *zText, const char *zSpeaker, double refMs);
int cairn_em_kg_entities(struct EmKg *h, char **pz, double *pn);
int cairn_em_kg_facts(struct EmKg *h, int kind, double asOf, char **pz, double *pn);
int cairn_em_kg_graph(struct EmKg *h, const char *zName, uint32_t depth, int kind, double asOf, char **pz, double *pn);
#endif /* CAIRN_EM_EXPORTS_H */
