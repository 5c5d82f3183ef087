/*
** 2026-12-02
**
** tests/core/test_mem_damage.c - damage in a memory store is reported, never spread (issue 16):
** a small store (memories checkpointed into the HDF5 part, then more committed in the log, a
** touch) gets one bit flipped at every byte, and for each flip: (a) a read-only open either
** fails or returns every memory exactly as added (text, names, metadata, times, tier,
** importance, access count, embedding), and search returns only original texts; (b)
** cairn_mem_verify is never OK unless the content is intact; (c) a writer's open either fails
** or, after an add and a commit, every memory still reads back exactly (nothing was cut or
** overwritten). Plus salvage of a damaged store keeps every memory verify calls intact.
*/
#include "tf.h"
#include "../../core/mem/mem_int.h"

#define DIM 4
#define NCK 5  /* memories in the checkpoint */
#define NLOG 3 /* memories after it, one commit each */
static const char *const azText[] = {"I moved to Lisbon in May", "my sister is called Ana", "we adopted a cat named Pixel",
                                     "the meeting moved to Thursday", "I prefer green tea", "Ana visits in June",
                                     "Pixel knocked over the plant", "Thursday works for the dentist"};

typedef struct Want {
  cairn_mem_record r;
  float v[DIM];
} Want;

static int memAdd(cairn_mem *m, int i) {
  cairn_mem_record r;
  memset(&r, 0, sizeof r);
  float v[DIM];
  for (int j = 0; j < DIM; j++) v[j] = (float)((i * 7 + j * 3) % 11) - 5.0f + 0.25f;
  r.zText = azText[i];
  r.aEmbedding = v, r.nEmbedding = DIM;
  r.createdMs = 1700000000000ll + i, r.eventMs = 1600000000000ll + i * 1000;
  r.zSession = i % 2 ? "s1" : "s2";
  r.zRole = i % 3 ? "user" : NULL;
  r.tier = i % 3, r.importance = 0.5f + (float)i;
  r.zMeta = i % 2 ? "{\"topic\": \"home\"}" : NULL;
  return cairn_mem_add(m, &r, NULL);
}

static int strEq(const char *a, const char *b) { return (a ? a : "")[0] == (b ? b : "")[0] && !strcmp(a ? a : "", b ? b : ""); }

/* Does m hold exactly the memories of aWant (n of them)? */
static int sameContent(cairn_mem *m, const Want *aWant, uint64_t n) {
  cairn_mem_stats st;
  if (cairn_mem_stats_get(m, &st) || st.nMemory < n) return 0;
  for (uint64_t id = 1; id <= n; id++) {
    cairn_mem_record r;
    float v[DIM];
    const Want *w = &aWant[id - 1];
    if (cairn_mem_get(m, id, &r) || cairn_mem_embedding(m, id, v)) return 0;
    if (!strEq(r.zText, w->r.zText) || !strEq(r.zSession, w->r.zSession) || !strEq(r.zRole, w->r.zRole) || !strEq(r.zMeta, w->r.zMeta))
      return 0;
    if (r.createdMs != w->r.createdMs || r.eventMs != w->r.eventMs || r.tier != w->r.tier || r.importance != w->r.importance ||
        r.accessCount != w->r.accessCount || memcmp(v, w->v, sizeof v))
      return 0;
  }
  /* search: every hit is an original text */
  cairn_mem_query q;
  memset(&q, 0, sizeof q);
  q.zText = "Ana Lisbon Pixel Thursday tea";
  q.k = 8;
  cairn_mem_hit h[8];
  uint32_t nHit = 0;
  if (cairn_mem_search(m, &q, h, &nHit)) return 0;
  for (uint32_t i = 0; i < nHit; i++) {
    cairn_mem_record r;
    if (h[i].id == 0 || cairn_mem_get(m, h[i].id, &r)) return 0;
    if (h[i].id > n ? strcmp(r.zText, azText[0]) : strcmp(r.zText, aWant[h[i].id - 1].r.zText)) return 0; /* a writer's add: text 0 */
  }
  return 1;
}

/* The store, its bytes, and what it holds. */
static uint8_t *buildStore(size_t *pn, Want *aWant, char *zText) {
  cairn_file *f;
  if (cairn_memfile_open(NULL, 0, &f)) return NULL;
  cairn_mem_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.dim = DIM, cfg.checkpointEvery = UINT32_MAX;
  cairn_mem *m;
  cairnMemSmallChunks = 1;
  if (cairn_mem_open_file(f, &cfg, &m)) return NULL;
  int rc = CAIRN_OK;
  for (int i = 0; i < NCK && !rc; i++) rc = memAdd(m, i);
  if (!rc) rc = cairn_mem_touch(m, 2);
  if (!rc) rc = cairn_mem_commit(m);
  if (!rc) rc = cairn_mem_checkpoint(m);
  for (int i = NCK; i < NCK + NLOG && !rc; i++) {
    rc = memAdd(m, i);
    if (!rc && i == NCK + 1) rc = cairn_mem_touch(m, 1);
    if (!rc) rc = cairn_mem_commit(m);
  }
  size_t o = 0;
  for (uint64_t id = 1; !rc && id <= NCK + NLOG; id++) { /* deep copies of what it holds */
    cairn_mem_record r;
    rc = cairn_mem_get(m, id, &r);
    if (!rc) rc = cairn_mem_embedding(m, id, aWant[id - 1].v);
    if (rc) break;
    aWant[id - 1].r = r;
    const char **az[4] = {&aWant[id - 1].r.zText, &aWant[id - 1].r.zSession, &aWant[id - 1].r.zRole, &aWant[id - 1].r.zMeta};
    for (int k = 0; k < 4; k++) {
      if (!*az[k]) continue;
      size_t l = strlen(*az[k]) + 1;
      memcpy(zText + o, *az[k], l);
      *az[k] = zText + o, o += l;
    }
  }
  const uint8_t *p;
  size_t n;
  uint8_t *img = NULL;
  if (!rc && !cairn_memfile_data(f, &p, &n) && (img = malloc(n))) memcpy(img, p, n), *pn = n;
  m->ckEvery = UINT32_MAX;
  cairn_mem_close(m);
  cairnMemSmallChunks = 0;
  return rc ? (free(img), NULL) : img;
}

static int openImg(const uint8_t *img, size_t n, int ro, cairn_mem **pm) {
  cairn_file *g;
  int rc = cairn_memfile_open(img, n, &g);
  if (rc) return rc;
  cairn_mem_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.readOnly = ro, cfg.checkpointEvery = UINT32_MAX;
  return cairn_mem_open_file(g, &cfg, pm);
}

TEST(memdamage, bit_flip_every_byte) {
  Want aWant[NCK + NLOG];
  char zText[2048];
  size_t n = 0;
  uint8_t *img = buildStore(&n, aWant, zText);
  CHECK(img != NULL);
  if (!img) return;
  cairn_mem *m;
  CHECK_OK(openImg(img, n, 1, &m));
  CHECK(sameContent(m, aWant, NCK + NLOG));
  cairn_mem_stats st;
  cairn_mem_stats_get(m, &st);
  CHECK_EQ(st.nCheckpointed, NCK);
  CHECK(st.nLogBytes > 0);
  cairn_mem_close(m);
  if (getenv("DBG")) fprintf(stderr, "store of %zu bytes\n", n);
  {
    /* control: a writer on the undamaged store */
    CHECK_OK(openImg(img, n, 0, &m));
    CHECK_OK(memAdd(m, 0));
    CHECK_OK(cairn_mem_commit(m));
    const uint8_t *p;
    size_t n2 = 0;
    CHECK_OK(cairn_memfile_data(m->f, &p, &n2));
    uint8_t *d2 = malloc(n2);
    memcpy(d2, p, n2);
    cairn_mem_close(m);
    CHECK_OK(openImg(d2, n2, 1, &m));
    CHECK(sameContent(m, aWant, NCK + NLOG));
    cairn_mem_close(m);
    free(d2);
  }
  /* thousands of tiny loads: tasks run in order (the pool's wake-ups would dominate) */
  cairn_host hSaved = *cairn_host_get(), hSeq = hSaved;
  hSeq.xParallelFor = NULL;
  cairn_host_set(&hSeq);
  uint8_t *d = malloc(n);
  size_t nCaught = 0, nHarmless = 0, nFail = 0;
  /* every byte natively; every 13th under sanitizers and in wasm (Debug + ASan is 20x slower; 13 is odd, so every bit position is still flipped) */
#if defined(__SANITIZE_ADDRESS__) || defined(__wasm__)
  const size_t nStep = 13;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  const size_t nStep = 13;
#else
  const size_t nStep = 1;
#endif
#else
  const size_t nStep = 1;
#endif
  for (size_t i = 0; i < n && nFail < 5; i += nStep) {
    memcpy(d, img, n);
    d[i] ^= (uint8_t)(1u << (i % 8));
    /* (a) read-only: fails, or everything as added */
    int rcR = openImg(d, n, 1, &m);
    int intact = rcR == CAIRN_OK && sameContent(m, aWant, NCK + NLOG);
    if (rcR == CAIRN_OK) cairn_mem_close(m);
    else cairn_clearerr();
    if (rcR == CAIRN_OK && !intact) {
      tfFail(__FILE__, __LINE__, "flip at byte %zu of %zu: the store opens with altered or missing memories", i, n);
      nFail++;
    }
    /* Flips the store does not read (free space: old logs and superseded chunks, unused B-tree
    ** slots) are nine in ten: verify and a writer run on every 8th of them, on every damage. */
    if (intact && i % 8) {
      nHarmless++;
      continue;
    }
    /* (b) verify is OK only if the content is intact */
    cairn_file *g;
    CHECK_OK(cairn_memfile_open(d, n, &g));
    cairn_mem_verify_info v;
    int rcV = cairn_mem_verify(g, &v);
    cairn_file_close(g);
    if (rcV == CAIRN_OK && !intact) {
      tfFail(__FILE__, __LINE__, "flip at byte %zu: verify says ok on damage", i);
      nFail++;
    }
    if (rcV != CAIRN_OK && rcR == CAIRN_OK) {
      tfFail(__FILE__, __LINE__, "flip at byte %zu: verify fails (%s) but the store opens intact", i, v.zDamage);
      nFail++;
    }
    if (rcV) cairn_clearerr();
    if (rcV == CAIRN_OK && (v.damaged || v.nIntact != NCK + NLOG)) {
      tfFail(__FILE__, __LINE__, "flip at byte %zu: verify OK with %llu intact", i, (unsigned long long)v.nIntact);
      nFail++;
    }
    intact ? nHarmless++ : nCaught++;
    /* (c) a writer: refused, or nothing lost after an add */
    int rcW = openImg(d, n, 0, &m);
    if (rcW == CAIRN_OK) {
      int rc = memAdd(m, 0);
      if (!rc) rc = cairn_mem_commit(m);
      const uint8_t *p;
      size_t n2 = 0;
      uint8_t *d2 = NULL;
      if (!rc && !cairn_memfile_data(m->f, &p, &n2) && (d2 = malloc(n2))) memcpy(d2, p, n2);
      cairn_mem_close(m);
      cairn_mem *m2 = NULL;
      if (rc || !d2 || openImg(d2, n2, 1, &m2) || !sameContent(m2, aWant, NCK + NLOG)) {
        tfFail(__FILE__, __LINE__, "flip at byte %zu: a writer opened the damaged store and memories were lost (%s)", i, cairn_errmsg());
        nFail++;
      }
      cairn_mem_close(m2);
      free(d2);
    } else {
      cairn_clearerr();
      if (intact) {
        tfFail(__FILE__, __LINE__, "flip at byte %zu: the store reads intact but a writer is refused", i);
        nFail++;
      }
    }
  }
  cairn_host_set(&hSaved);
  if (getenv("DBG")) fprintf(stderr, "%zu flips caught, %zu harmless\n", nCaught, nHarmless);
  CHECK(nCaught > 0 && nHarmless > 0);
  free(d);
  free(img);
}

TEST(memdamage, salvage_keeps_what_verifies) {
  Want aWant[NCK + NLOG];
  char zText[2048];
  size_t n = 0;
  uint8_t *img = buildStore(&n, aWant, zText);
  CHECK(img != NULL);
  if (!img) return;
  /* damage the text of memory 2 in the checkpoint (the copy of its text the store reads: the
  ** others are the old log, free space now) */
  const char *z = aWant[1].r.zText;
  size_t at = 0, nz = 8; /* one chunk of text_bytes (small chunks: 8 bytes; text 2 starts one) */
  cairn_mem *m;
  for (size_t i = 0; !at && i + nz <= n; i++) {
    if (memcmp(img + i, z, nz)) continue;
    img[i] ^= 0x20;
    if (openImg(img, n, 1, &m) == CAIRN_CHECKSUM) at = i;
    else cairn_mem_close(m), img[i] ^= 0x20;
  }
  CHECK(at > 0);
  cairn_clearerr();
  CHECK_RC(openImg(img, n, 0, &m), CAIRN_CHECKSUM);
  cairn_file *in, *out;
  CHECK_OK(cairn_memfile_open(img, n, &in));
  CHECK_OK(cairn_memfile_open(NULL, 0, &out));
  cairn_mem_verify_info v;
  CHECK_RC(cairn_mem_verify(in, &v), CAIRN_CORRUPT);
  CHECK(v.damaged);
  CHECK_EQ(v.nMemory, NCK + NLOG);
  CHECK(v.nLost >= 1 && v.nIntact + v.nLost == NCK + NLOG);
  CHECK(v.damageOffset > 0);
  CHECK_OK(cairn_mem_salvage(in, out, &v));
  cairn_mem_config cfg;
  memset(&cfg, 0, sizeof cfg);
  CHECK_OK(cairn_mem_open_file(out, &cfg, &m));
  cairn_mem_stats st;
  cairn_mem_stats_get(m, &st);
  CHECK_EQ(st.nMemory, v.nIntact);
  /* every memory in the salvage is one of the originals, in order, with its fields */
  uint64_t k = 0;
  for (uint64_t id = 1; id <= st.nMemory; id++) {
    cairn_mem_record r;
    CHECK_OK(cairn_mem_get(m, id, &r));
    while (k < NCK + NLOG && strcmp(aWant[k].r.zText, r.zText)) k++;
    CHECK(k < NCK + NLOG);
    if (k >= NCK + NLOG) break;
    CHECK(strEq(r.zSession, aWant[k].r.zSession) && strEq(r.zMeta, aWant[k].r.zMeta));
    CHECK_EQ(r.accessCount, aWant[k].r.accessCount);
    k++;
  }
  /* the log memories all survive (only the checkpoint was hit) */
  cairn_mem_record r;
  CHECK_OK(cairn_mem_get(m, st.nMemory, &r));
  CHECK(!strcmp(r.zText, aWant[NCK + NLOG - 1].r.zText));
  cairn_mem_close(m);
  cairn_file_close(in);
  free(img);
}

/* ------------------------------------------------------------------ readers beside a writer */
/* A read-only file that, at its Nth read, lets the writer commit and checkpoint (four times: the
** later checkpoints reuse the space the earlier ones freed, which the reader may be reading). */
typedef struct HookFile {
  cairn_file base;
  cairn_file *inner;
  int nRead, nAt;
  cairn_mem *w; /* the writer */
  int next;     /* next text to add */
} HookFile;
static int hkRead(cairn_file *pF, void *p, size_t n, uint64_t iOff, size_t *pnRead) {
  HookFile *h = (HookFile *)pF;
  if (++h->nRead == h->nAt && h->w)
    for (int k = 0; k < 4; k++) {
      for (int j = 0; j < 3; j++) memAdd(h->w, h->next++ % 8);
      cairn_mem_touch(h->w, 1 + (uint64_t)k); /* access counts rewritten in place (copy-on-write) */
      cairn_mem_checkpoint(h->w); /* commits, then moves the log into the datasets */
    }
  return h->inner->pMethods->xRead(h->inner, p, n, iOff, pnRead);
}
static int hkWrite(cairn_file *pF, const void *p, size_t n, uint64_t iOff) { return ((HookFile *)pF)->inner->pMethods->xWrite(((HookFile *)pF)->inner, p, n, iOff); }
static int hkSize(cairn_file *pF, uint64_t *pn) { return ((HookFile *)pF)->inner->pMethods->xSize(((HookFile *)pF)->inner, pn); }
static int hkTruncate(cairn_file *pF, uint64_t n) { return ((HookFile *)pF)->inner->pMethods->xTruncate(((HookFile *)pF)->inner, n); }
static int hkSync(cairn_file *pF) { return ((HookFile *)pF)->inner->pMethods->xSync(((HookFile *)pF)->inner); }
static int hkClose(cairn_file *pF) {
  HookFile *h = (HookFile *)pF;
  int rc = cairn_file_close(h->inner);
  free(h);
  return rc;
}
static int hkLock(cairn_file *pF, int e) { return cairn_file_lock(((HookFile *)pF)->inner, e, 0); }
static int hkUnlock(cairn_file *pF, int e) { return cairn_file_unlock(((HookFile *)pF)->inner, e); }
static const cairn_file_methods hkMethods = {2, hkRead, hkWrite, hkSize, hkTruncate, hkSync, hkClose, NULL, hkLock, hkUnlock, NULL};

TEST(memconc, reader_beside_commits_and_checkpoints) {
  const char *zPath = tfTmp("memconc.mem");
  remove(zPath);
  cairn_mem_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.dim = DIM, cfg.noSync = 1, cfg.checkpointEvery = UINT32_MAX;
  cairn_mem *w;
  cairnMemSmallChunks = 1; /* many chunks, so checkpoints rewrite and reuse many places */
  CHECK_OK(cairn_mem_open(zPath, &cfg, &w));
  for (int i = 0; i < 200; i++) CHECK_OK(memAdd(w, i % 8));
  CHECK_OK(cairn_mem_checkpoint(w));
  CHECK_OK(memAdd(w, 200 % 8));
  CHECK_OK(cairn_mem_commit(w));
  /* the hook runs the writer inside a read: reads must come from this thread only */
  cairn_host hSaved = *cairn_host_get(), hSeq = hSaved;
  hSeq.xParallelFor = NULL;
  cairn_host_set(&hSeq);
  int nLoads = 0;
  for (int at = 1; at < 160; at++) {
    cairn_mem_stats s0;
    cairn_mem_stats_get(w, &s0);
    HookFile *h = calloc(1, sizeof *h);
    h->base.pMethods = &hkMethods;
    h->nAt = at, h->w = w, h->next = (int)s0.nMemory;
    CHECK_OK(cairn_open(zPath, CAIRN_OPEN_READONLY, &h->inner));
    cairn_mem_config rc;
    memset(&rc, 0, sizeof rc);
    rc.readOnly = 1;
    cairn_mem *r = NULL;
    int rcOpen = cairn_mem_open_file(&h->base, &rc, &r);
    if (rcOpen) {
      tfFail(__FILE__, __LINE__, "reader interrupted at read %d: %s", at, cairn_errmsg());
      break;
    }
    /* a whole committed state: s0.nMemory memories (from before) or more, each as added */
    cairn_mem_stats s;
    cairn_mem_stats_get(r, &s);
    CHECK(s.nMemory >= s0.nMemory && s.nMemory <= s0.nMemory + 12 && (s.nMemory - s0.nMemory) % 3 == 0);
    for (uint64_t id = 1; id <= s.nMemory; id++) {
      cairn_mem_record rec;
      CHECK_OK(cairn_mem_get(r, id, &rec));
      CHECK(!strcmp(rec.zText, azText[(id - 1) % 8]));
    }
    int hit = h->nRead >= at; /* the writer ran during this load */
    cairn_mem_close(r);
    if (!hit) break; /* the load needs fewer reads than `at`: every point was tried */
    nLoads++;
  }
  cairn_host_set(&hSaved);
  if (getenv("DBG")) fprintf(stderr, "%d interrupted loads\n", nLoads);
  CHECK(nLoads >= 8);
  cairnMemSmallChunks = 0;
  cairn_mem_close(w);
  cairn_mem_verify_info v;
  cairn_file *f;
  CHECK_OK(cairn_open(zPath, CAIRN_OPEN_READONLY, &f));
  CHECK_OK(cairn_mem_verify(f, &v));
  cairn_file_close(f);
}

TEST(memconc, second_writer_busy) {
  const char *zPath = tfTmp("membusy.mem");
  remove(zPath);
  cairn_mem_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.dim = DIM, cfg.noSync = 1, cfg.busyTimeoutMs = -1;
  cairn_mem *a, *b = NULL;
  CHECK_OK(cairn_mem_open(zPath, &cfg, &a));
  CHECK_OK(memAdd(a, 0));
  CHECK_OK(cairn_mem_commit(a));
  cairn_file *probe;
  CHECK_OK(cairn_open(zPath, CAIRN_OPEN_READONLY, &probe));
  int canLock = cairn_file_can_lock(probe);
  cairn_file_close(probe);
#if defined(__wasi__) || defined(__EMSCRIPTEN__)
  canLock = 0; /* no writer locks: WASI's host only honours other runtimes' lock files, Emscripten's POSIX host has reader markers only (host.h) */
#endif
  if (canLock) {
    CHECK_RC(cairn_mem_open(zPath, &cfg, &b), CAIRN_BUSY);
    CHECK(strstr(cairn_errmsg(), "membusy.mem") != NULL);
    cfg.busyTimeoutMs = 30; /* waits, then still BUSY */
    CHECK_RC(cairn_mem_open(zPath, &cfg, &b), CAIRN_BUSY);
  }
  /* a reader beside the writer */
  cairn_mem_config ro;
  memset(&ro, 0, sizeof ro);
  ro.readOnly = 1;
  cairn_mem *r;
  CHECK_OK(cairn_mem_open(zPath, &ro, &r));
  cairn_mem_stats s;
  cairn_mem_stats_get(r, &s);
  CHECK_EQ(s.nMemory, 1);
  cairn_mem_close(r);
  CHECK_OK(cairn_mem_close(a));
  cfg.busyTimeoutMs = -1;
  CHECK_OK(cairn_mem_open(zPath, &cfg, &b));
  cairn_mem_close(b);
}
