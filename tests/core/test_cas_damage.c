/* 2026-12-02 - the chunk store under damage and beside other handles: a bit flipped in every
** byte of a small store (never wrong data with success, verify never "ok" on damage, no intact
** committed payload lost by a later write, salvage keeps every payload that verified), damage
** told from a torn tail, a writer refused on damage with the file untouched, salvage and its
** report, a reader beside a writer (its open's state, cairn_cas_refresh for newer commits, never
** a transaction in progress), and the writer lock (a second writer BUSY, naming the file). */
#include <stdio.h>
#include <stdlib.h>

#include "cas/cas_int.h"
#include "tf.h"

#define NPAY 5

typedef struct Fixture {
  uint8_t aData[NPAY][3000];
  size_t anData[NPAY];
  uint8_t aId[NPAY][32];
  uint8_t *img;
  size_t nImg;
  cairn_cas_config cfg;
} Fixture;

static cairn_cas_config dmgCfg(void) {
  cairn_cas_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.chunking.nMin = 256;
  cfg.chunking.nAvg = 1024;
  cfg.chunking.nMax = 4096;
  cfg.chunking.level = 2;
  return cfg;
}

/* Payload i of the fixture: random, so chunks differ; 3 and 4 share a prefix with 0 (dedup). */
static void fixtureData(Fixture *x) {
  static const size_t an[NPAY] = {1400, 600, 1, 1500, 900};
  for (int i = 0; i < NPAY; i++) {
    x->anData[i] = an[i];
    tfFillRandom(x->aData[i], an[i], 40 + (uint64_t)i);
    for (size_t j = an[i] / 2; j < an[i]; j++) x->aData[i][j] = (uint8_t)"cairn store "[j % 12]; /* zstd has work */
  }
  memcpy(x->aData[3], x->aData[0], 1000);
}

/* Three commits: payload 0 named "zero"; a transaction of 1, 2 and 3 named "t"; payload 4. */
static int fixtureBuild(Fixture *x, int codec) {
  memset(x, 0, sizeof(*x));
  fixtureData(x);
  x->cfg = dmgCfg();
  x->cfg.codec = codec;
  cairn_cas *cas;
  int rc = cairn_cas_open_memory(&x->cfg, &cas);
  if (rc) return rc;
  rc = cairn_cas_put(cas, x->aData[0], x->anData[0], x->aId[0]);
  if (!rc) rc = cairn_cas_name_set(cas, "zero", x->aId[0]);
  if (!rc) rc = cairn_cas_begin(cas);
  for (int i = 1; i <= 3 && !rc; i++) rc = cairn_cas_put(cas, x->aData[i], x->anData[i], x->aId[i]);
  if (!rc) rc = cairn_cas_name_set(cas, "t", x->aId[3]);
  if (!rc) rc = cairn_cas_commit(cas);
  if (!rc) rc = cairn_cas_put(cas, x->aData[4], x->anData[4], x->aId[4]);
  const uint8_t *p;
  size_t n;
  if (!rc) rc = cairn_cas_memory_data(cas, &p, &n);
  if (!rc) {
    x->img = malloc(n);
    memcpy(x->img, p, n);
    x->nImg = n;
  }
  cairn_cas_close(cas);
  return rc;
}

/* Open an image (copied) as a store. */
static int openImage(const uint8_t *img, size_t n, const cairn_cas_config *pCfg, int readonly, cairn_cas **pp) {
  cairn_file *f;
  int rc = cairn_memfile_open(img, n, &f);
  if (rc) return rc;
  cairn_cas_config cfg = *pCfg;
  cfg.readonly = readonly;
  return cairn_cas_open_file(f, &cfg, pp);
}

/* Read payload i whole: 1 = the original bytes, 0 = a failure, -1 = WRONG bytes with success. */
static int readBack(cairn_cas *cas, const Fixture *x, int i) {
  uint8_t b[3000];
  size_t nGot = 0;
  int rc = cairn_cas_read(cas, x->aId[i], 0, b, sizeof b, &nGot);
  if (rc) return 0;
  return nGot == x->anData[i] && memcmp(b, x->aData[i], nGot) == 0 ? 1 : -1;
}

static void copyImage(cairn_cas *cas, uint8_t **pImg, size_t *pn) {
  const uint8_t *p;
  size_t n;
  cairn_file *f = cairn_cas_file(cas);
  cairnCasFlush(cas);
  if (cairn_memfile_data(f, &p, &n) != CAIRN_OK) {
    *pImg = NULL, *pn = 0;
    return;
  }
  *pImg = malloc(n ? n : 1);
  memcpy(*pImg, p, n);
  *pn = n;
}

static void sweep(int codec) {
  Fixture x;
  CHECK_OK(fixtureBuild(&x, codec));
  uint8_t *img = malloc(x.nImg);
  int nOpenFail = 0, nWriteRefused = 0, nVerifyBad = 0, nHarmless = 0;
  for (size_t iByte = 0; iByte < x.nImg && !tfFailed(); iByte++) {
    memcpy(img, x.img, x.nImg);
    img[iByte] ^= (uint8_t)(1u << (iByte % 8));
    /* (a) and (b) on a read-only open. */
    cairn_cas *cas;
    int aOk[NPAY] = {0};
    int rc = openImage(img, x.nImg, &x.cfg, 1, &cas);
    if (rc) {
      nOpenFail++;
      CHECK(CAIRN_PRIMARY(rc) == CAIRN_CORRUPT);
    } else {
      for (int i = 0; i < NPAY; i++) {
        int st = readBack(cas, &x, i);
        if (st < 0) tfFail(__FILE__, __LINE__, "byte %zu: payload %d read back WRONG bytes with success", iByte, i);
        aOk[i] = st == 1 && cairn_cas_check(cas, x.aId[i]) == CAIRN_OK;
      }
      uint64_t nBad = 0;
      rc = cairn_cas_verify(cas, NULL, NULL, NULL, NULL, &nBad);
      int nIntact = 0;
      for (int i = 0; i < NPAY; i++) nIntact += aOk[i];
      if (rc != CAIRN_OK) nVerifyBad++;
      else if (codec != 0 && nIntact == NPAY && cairn_cas_count(cas) == NPAY)
        nHarmless++; /* inside a zstd frame, a bit its decoder ignores: every chunk still matches its SHA-256 */
      else tfFail(__FILE__, __LINE__, "byte %zu (bit %zu): verify says ok on a damaged store", iByte, iByte % 8);
      /* Salvage keeps every payload that verified (every 4th byte: it costs as much as the rest). */
      if (iByte % 4 != 0) {
        cairn_cas_close(cas);
        goto write;
      }
      cairn_cas_config dcfg = x.cfg;
      cairn_cas_stats st;
      cairn_cas *d;
      CHECK_OK(cairn_cas_get_stats(cas, &st));
      dcfg.chunking = st.chunking;
      CHECK_OK(cairn_cas_open_memory(&dcfg, &d));
      cairn_cas_salvage_report rep;
      CHECK_OK(cairn_cas_salvage(cas, d, NULL, NULL, &rep));
      for (int i = 0; i < NPAY; i++)
        if (aOk[i] && readBack(d, &x, i) != 1) tfFail(__FILE__, __LINE__, "byte %zu: salvage lost intact payload %d", iByte, i);
      CHECK_OK(cairn_cas_verify(d, NULL, NULL, NULL, NULL, NULL));
      cairn_cas_close(d);
      cairn_cas_close(cas);
    }
  write: /* (c) a later write loses nothing that verified. */
    rc = openImage(img, x.nImg, &x.cfg, 0, &cas);
    if (rc) {
      nWriteRefused++;
      CHECK(CAIRN_PRIMARY(rc) == CAIRN_CORRUPT);
      continue;
    }
    for (int i = 0; i < NPAY; i++)
      if (readBack(cas, &x, i) < 0) tfFail(__FILE__, __LINE__, "byte %zu: writer read payload %d WRONG", iByte, i);
    uint8_t extra[2000], idE[32];
    tfFillRandom(extra, sizeof extra, 999);
    CHECK_OK(cairn_cas_put(cas, extra, sizeof extra, idE));
    uint8_t *after;
    size_t nAfter;
    copyImage(cas, &after, &nAfter);
    cairn_cas_close(cas);
    CHECK_OK(openImage(after, nAfter, &x.cfg, 1, &cas));
    for (int i = 0; i < NPAY; i++)
      if (aOk[i] && readBack(cas, &x, i) != 1)
        tfFail(__FILE__, __LINE__, "byte %zu: payload %d verified before a write and is gone after it", iByte, i);
    CHECK_OK(cairn_cas_check(cas, idE));
    cairn_cas_close(cas);
    free(after);
  }
  printf("    %zu bytes flipped (codec %d): %d read-only opens refused, %d verify failures, %d harmless (the bytes read back "
         "unchanged), %d writers refused\n", x.nImg, codec, nOpenFail, nVerifyBad, nHarmless, nWriteRefused);
  free(img);
  free(x.img);
}

TEST(cas_damage, bitflip_every_byte) { sweep(0); }
TEST(cas_damage, bitflip_every_byte_zstd) { sweep(CAIRN_ZSTD); }

static void onLine(void *pArg, const char *zMsg) {
  char *z = pArg;
  size_t n = strlen(z);
  cairnFormat(z + n, 4000 - n, "%s\n", zMsg);
}

/* Offset of the manifest record of payload id in an image. */
static size_t findManifest(const uint8_t *img, size_t n, const uint8_t *id) {
  for (size_t i = 64; i + 48 <= n; i++)
    if (cairnGetLE32(img + i) == (REC_TAG | REC_MANIFEST) && memcmp(img + i + 16, id, 32) == 0) return i;
  return 0;
}

/* The case: one flipped bit in committed data. Verify fails naming it and what is intact,
** a writer is refused and changes nothing, salvage copies the rest and reports the loss. */
TEST(cas_damage, damage_is_reported_never_cut) {
  Fixture x;
  CHECK_OK(fixtureBuild(&x, 0));
  const char *zPath = tfTmp("cas_damage.cas");
  size_t at = findManifest(x.img, x.nImg, x.aId[1]);
  CHECK(at > 0);
  uint8_t *img = malloc(x.nImg);
  memcpy(img, x.img, x.nImg);
  img[at + 16 + 50] ^= 0x10; /* inside payload 1's manifest: its ID no longer matches */
  CHECK_OK(tfWriteFile(zPath, img, x.nImg));
  cairn_cas *cas;
  int rc = cairn_cas_open(zPath, &x.cfg, &cas);
  CHECK_RC(rc, CAIRN_CORRUPT);
  char zAt[32];
  snprintf(zAt, sizeof zAt, "offset %zu", at);
  CHECK(strstr(cairn_errmsg(), zAt) != NULL);
  CHECK(strstr(cairn_errmsg(), "manifest record") != NULL);
  CHECK(strstr(cairn_errmsg(), zPath) != NULL);
  size_t nNow;
  uint8_t *now = tfReadFile(zPath, &nNow);
  CHECK(now && nNow == x.nImg && memcmp(now, img, nNow) == 0); /* untouched */
  cairn_free(now);
  /* Read-only: everything else is there. */
  cairn_cas_config ro = x.cfg;
  ro.readonly = 1;
  CHECK_OK(cairn_cas_open(zPath, &ro, &cas));
  CHECK_EQ(cairn_cas_count(cas), NPAY - 1);
  for (int i = 0; i < NPAY; i++) CHECK_EQ(readBack(cas, &x, i), i == 1 ? 0 : 1);
  char zLines[4000] = "";
  uint64_t nBad = 0;
  CHECK_RC(cairn_cas_verify(cas, NULL, NULL, onLine, zLines, &nBad), CAIRN_CORRUPT);
  CHECK(nBad >= 1);
  CHECK(strstr(zLines, zAt) != NULL);
  /* Salvage into a new file store. */
  const char *zNew = tfTmp("cas_damage_new.cas");
  remove(zNew);
  cairn_cas_config ncfg = x.cfg;
  cairn_cas *d;
  CHECK_OK(cairn_cas_open(zNew, &ncfg, &d));
  char zDrop[4000] = "";
  cairn_cas_salvage_report rep;
  CHECK_OK(cairn_cas_salvage(cas, d, onLine, zDrop, &rep));
  CHECK_EQ(rep.nPayloadKept, NPAY - 1);
  CHECK_EQ(rep.nPayloadDropped, 0); /* payload 1's manifest is gone: it is not even listed */
  CHECK_EQ(rep.nDamage, 1);
  CHECK_EQ(rep.nNameKept, 2);
  CHECK(strstr(zDrop, "skipped damaged bytes") != NULL);
  cairn_cas_close(d);
  cairn_cas_close(cas);
  CHECK_OK(cairn_cas_open(zNew, &ro, &d));
  CHECK_OK(cairn_cas_verify(d, NULL, NULL, NULL, NULL, NULL));
  for (int i = 0; i < NPAY; i++) CHECK_EQ(readBack(d, &x, i), i == 1 ? 0 : 1);
  uint8_t id[32];
  CHECK_OK(cairn_cas_name_get(d, "t", id));
  CHECK_MEM(id, x.aId[3], 32);
  cairn_cas_close(d);
  /* Different chunking: refused (the IDs would change). */
  CHECK_OK(cairn_cas_open(zPath, &ro, &cas));
  CHECK_OK(cairn_cas_open_memory(NULL, &d));
  CHECK_RC(cairn_cas_salvage(cas, d, NULL, NULL, NULL), CAIRN_MISUSE);
  cairn_cas_close(d);
  cairn_cas_close(cas);
  free(img);
  free(x.img);
}

/* A chunk's data damaged: the payloads using it are dropped by salvage, named in the report. */
TEST(cas_damage, salvage_drops_what_fails) {
  Fixture x;
  CHECK_OK(fixtureBuild(&x, 0));
  size_t at = findManifest(x.img, x.nImg, x.aId[4]);
  CHECK(at > 0);
  /* The first chunk of payload 4 is the record right before its manifest's transaction. */
  const uint8_t *e = x.img + at + 16 + MANI_FIXED;
  size_t ic = 0;
  for (size_t i = 64; i + 48 <= x.nImg; i++)
    if (cairnGetLE32(x.img + i) == (REC_TAG | REC_CHUNK) && memcmp(x.img + i + 16, e, 32) == 0) ic = i;
  CHECK(ic > 0);
  x.img[ic + 16 + 40 + 3] ^= 1;
  cairn_cas *cas, *d;
  CHECK_OK(openImage(x.img, x.nImg, &x.cfg, 0, &cas)); /* chunk data is not scanned: a writer may open */
  CHECK_EQ(readBack(cas, &x, 4), 0);
  CHECK_RC(cairn_cas_check(cas, x.aId[4]), CAIRN_CHECKSUM);
  CHECK_OK(cairn_cas_open_memory(&x.cfg, &d));
  char zDrop[4000] = "";
  cairn_cas_salvage_report rep;
  CHECK_OK(cairn_cas_salvage(cas, d, onLine, zDrop, &rep));
  CHECK_EQ(rep.nPayloadKept, NPAY - 1);
  CHECK_EQ(rep.nPayloadDropped, 1);
  char zId[65];
  cairn_hex(x.aId[4], 32, zId);
  CHECK(strstr(zDrop, zId) != NULL);
  CHECK_EQ(cairn_cas_count(d), NPAY - 1);
  cairn_cas_close(d);
  cairn_cas_close(cas);
  free(x.img);
}

/* Offset of the n-th (0-based) record of a type in an image, 0 if none. */
static size_t findRecord(const uint8_t *img, size_t nImg, unsigned type, int n) {
  for (size_t i = 64; i + 48 <= nImg; i++)
    if (cairnGetLE32(img + i) == (REC_TAG | type) && cairnGetLE32(img + i + 4) == COMMIT_BODY && cairnGetLE32(img + i + 12) == cairnCrc32c(0, img + i, 12) &&
        n-- == 0)
      return i;
  return 0;
}

/* Damage in a commit record whose copy is intact: nothing is lost, read-only verify fails
** naming it, a writer rewrites the commit from its copy (the image is the original again). Both
** copies damaged, with later commits: damage, a writer is refused. Garbage after the last commit
** is a torn tail. */
TEST(cas_damage, torn_tail_or_damage) {
  Fixture x;
  CHECK_OK(fixtureBuild(&x, 0));
  size_t iC = findRecord(x.img, x.nImg, REC_COMMIT, 0), iK = findRecord(x.img, x.nImg, REC_COMMIT_COPY, 0);
  CHECK(iC > 0);
  CHECK_EQ(iK, iC + 48); /* format version 2: the copy right behind it */
  uint8_t *img = malloc(x.nImg + 100);
  memcpy(img, x.img, x.nImg);
  img[iC + 16 + 30] ^= 4; /* the commit's time: only its checksum notices */
  cairn_cas *cas;
  char zLines[4000] = "";
  CHECK_OK(openImage(img, x.nImg, &x.cfg, 1, &cas));
  CHECK_EQ(cairn_cas_count(cas), NPAY);
  CHECK_RC(cairn_cas_verify(cas, NULL, NULL, onLine, zLines, NULL), CAIRN_CORRUPT);
  CHECK(strstr(zLines, "is intact: nothing is lost") != NULL);
  cairn_cas_close(cas);
  {
    cairn_file *f;
    CHECK_OK(cairn_memfile_open(img, x.nImg, &f));
    CHECK_OK(cairn_cas_open_file(f, &x.cfg, &cas)); /* a writer: the commit is rewritten from its copy */
    CHECK_EQ(cairn_cas_count(cas), NPAY);
    const uint8_t *p;
    size_t n;
    CHECK_OK(cairn_memfile_data(f, &p, &n));
    CHECK_EQ(n, x.nImg);
    CHECK_MEM(p, x.img, n);
    CHECK_OK(cairn_cas_verify(cas, NULL, NULL, NULL, NULL, NULL));
    cairn_cas_close(cas);
  }
  /* The commit and its copy both damaged: later commits follow, so it is damage. */
  memcpy(img, x.img, x.nImg);
  img[iC + 16 + 30] ^= 4;
  img[iK + 16 + 30] ^= 4;
  CHECK_RC(openImage(img, x.nImg, &x.cfg, 0, &cas), CAIRN_CORRUPT);
  CHECK(strstr(cairn_errmsg(), "commit") != NULL);
  CHECK_OK(openImage(img, x.nImg, &x.cfg, 1, &cas));
  CHECK_EQ(cairn_cas_count(cas), NPAY);
  CHECK_RC(cairn_cas_verify(cas, NULL, NULL, NULL, NULL, NULL), CAIRN_CORRUPT);
  cairn_cas_close(cas);
  /* A torn tail: half a record after the last commit, zeros, then garbage. */
  memcpy(img, x.img, x.nImg);
  memcpy(img + x.nImg, x.img + 64, 40);
  memset(img + x.nImg + 40, 0, 30);
  tfFillRandom(img + x.nImg + 70, 30, 5);
  CHECK_OK(openImage(img, x.nImg + 100, &x.cfg, 1, &cas));
  CHECK_EQ(cairn_cas_count(cas), NPAY);
  CHECK_OK(cairn_cas_verify(cas, NULL, NULL, NULL, NULL, NULL));
  cairn_cas_close(cas);
  CHECK_OK(openImage(img, x.nImg + 100, &x.cfg, 0, &cas));
  cairn_cas_stats st;
  CHECK_OK(cairn_cas_get_stats(cas, &st));
  CHECK_EQ(st.nFileBytes, x.nImg);
  cairn_cas_close(cas);
  free(img);
  free(x.img);
}

/* The last commit, where a flipped bit used to read as a torn tail (and the next writer cut an
** acknowledged put): every bit of the last commit record and of its copy, one at a time. The
** last payload stays committed for readers and writers; read-only verify fails until a writer
** has rewritten the damaged copy from the intact one; afterwards the store verifies. */
TEST(cas_damage, last_commit_flips) {
  Fixture x;
  CHECK_OK(fixtureBuild(&x, 0));
  size_t iC = 0;
  for (int k = 0; findRecord(x.img, x.nImg, REC_COMMIT, k); k++) iC = findRecord(x.img, x.nImg, REC_COMMIT, k);
  CHECK(iC > 0);
  CHECK_EQ(iC + 96, x.nImg); /* the last commit and its copy end the file */
  uint8_t *img = malloc(x.nImg);
  int nBits = 0;
  for (size_t iByte = iC; iByte < x.nImg; iByte++)
    for (int bit = 0; bit < 8; bit++) {
      memcpy(img, x.img, x.nImg);
      img[iByte] ^= (uint8_t)(1u << bit);
      cairn_cas *cas;
      CHECK_OK(openImage(img, x.nImg, &x.cfg, 1, &cas));
      if (cairn_cas_count(cas) != NPAY || readBack(cas, &x, 4) != 1)
        tfFail(__FILE__, __LINE__, "flip at byte %zu bit %d: the last payload is not there for a reader", iByte, bit);
      if (cairn_cas_verify(cas, NULL, NULL, NULL, NULL, NULL) == CAIRN_OK)
        tfFail(__FILE__, __LINE__, "flip at byte %zu bit %d: read-only verify passes", iByte, bit);
      cairn_clearerr();
      cairn_cas_close(cas);
      cairn_file *f;
      CHECK_OK(cairn_memfile_open(img, x.nImg, &f));
      CHECK_OK(cairn_cas_open_file(f, &x.cfg, &cas));
      if (cairn_cas_count(cas) != NPAY || readBack(cas, &x, 4) != 1)
        tfFail(__FILE__, __LINE__, "flip at byte %zu bit %d: a writer lost the last payload", iByte, bit);
      const uint8_t *p;
      size_t n;
      CHECK_OK(cairn_memfile_data(f, &p, &n));
      if (n != x.nImg || memcmp(p, x.img, n) != 0) tfFail(__FILE__, __LINE__, "flip at byte %zu bit %d: not rewritten from its twin", iByte, bit);
      CHECK_OK(cairn_cas_verify(cas, NULL, NULL, NULL, NULL, NULL));
      cairn_cas_close(cas);
      nBits++;
    }
  CHECK_EQ(nBits, 96 * 8);
  free(img);
  free(x.img);
}

/* A store of format version 1 (no commit copies, as cairn wrote before) opens, reads, and is
** appended to in version 1. */
TEST(cas_damage, version1_store) {
  Fixture x;
  CHECK_OK(fixtureBuild(&x, 0));
  /* Make it version 1: drop every copy record (moving each commit's transaction start, its
  ** body CRC and header CRC with it), set the version, fix the header CRC. */
  uint8_t *v1 = malloc(x.nImg);
  size_t n1 = 0, nDropped = 0, iTxOld = 64;
  memcpy(v1, x.img, 64);
  n1 = 64;
  for (size_t i = 64; i < x.nImg;) {
    uint32_t nBody = cairnGetLE32(x.img + i + 4);
    size_t nRec = 16 + nBody;
    uint32_t tag = cairnGetLE32(x.img + i);
    if (tag != (REC_TAG | REC_COMMIT_COPY)) {
      memcpy(v1 + n1, x.img + i, nRec);
      if (tag == (REC_TAG | REC_COMMIT)) {
        CHECK_EQ(cairnGetLE64(v1 + n1 + 16 + 8), (uint64_t)iTxOld);
        cairnPutLE64(v1 + n1 + 16 + 8, iTxOld - nDropped);
        cairnCasRecHeader(v1 + n1, REC_COMMIT, COMMIT_BODY, cairnCrc32c(0, v1 + n1 + 16, COMMIT_BODY));
      }
      n1 += nRec;
    } else {
      nDropped += nRec;
      iTxOld = i + nRec;
    }
    i += nRec;
  }
  int nCommit = 0;
  while (findRecord(x.img, x.nImg, REC_COMMIT, nCommit)) nCommit++;
  CHECK(nCommit >= 3);
  CHECK_EQ(n1, x.nImg - (size_t)nCommit * 48);
  cairnPutLE32(v1 + 8, 1);
  cairnPutLE32(v1 + 60, cairnCrc32c(0, v1, 60));
  cairn_cas *cas;
  CHECK_OK(openImage(v1, n1, &x.cfg, 1, &cas));
  CHECK_EQ(cairn_cas_count(cas), NPAY);
  for (int i = 0; i < NPAY; i++) CHECK_EQ(readBack(cas, &x, i), 1);
  CHECK_OK(cairn_cas_verify(cas, NULL, NULL, NULL, NULL, NULL));
  cairn_cas_close(cas);
  cairn_file *f;
  CHECK_OK(cairn_memfile_open(v1, n1, &f));
  CHECK_OK(cairn_cas_open_file(f, &x.cfg, &cas));
  uint8_t extra[500], idE[32];
  tfFillRandom(extra, sizeof extra, 77);
  CHECK_OK(cairn_cas_put(cas, extra, sizeof extra, idE));
  cairnCasFlush(cas);
  const uint8_t *p;
  size_t n;
  CHECK_OK(cairn_memfile_data(f, &p, &n));
  CHECK_EQ(cairnGetLE32(p + 8), 1u);
  CHECK_EQ(findRecord(p, n, REC_COMMIT_COPY, 0), 0); /* still no copies */
  CHECK_OK(cairn_cas_check(cas, idE));
  cairn_cas_close(cas);
  /* A version the reader does not know: refused, naming both. */
  memcpy(v1, x.img, 64);
  cairnPutLE32(v1 + 8, 3);
  cairnPutLE32(v1 + 60, cairnCrc32c(0, v1, 60));
  CHECK_RC(openImage(v1, 64, &x.cfg, 1, &cas), CAIRN_UNSUPPORTED);
  CHECK(strstr(cairn_errmsg(), "version 3") != NULL);
  free(v1);
  free(x.img);
}

/* A reader beside a writer on one path: its open's state, refresh for newer commits, never a
** transaction in progress; a second writer is BUSY and named. */
TEST(cas_damage, reader_beside_writer) {
  const char *zPath = tfTmp("cas_rw.cas");
  remove(zPath);
  Fixture x;
  memset(&x, 0, sizeof x);
  fixtureData(&x);
  cairn_cas_config cfg = dmgCfg(), ro = dmgCfg();
  ro.readonly = 1;
  cairn_cas *w, *r, *w2;
  CHECK_OK(cairn_cas_open(zPath, &cfg, &w));
  CHECK_OK(cairn_cas_put(w, x.aData[0], x.anData[0], x.aId[0]));
  CHECK_OK(cairn_cas_open(zPath, &ro, &r));
  CHECK_EQ(cairn_cas_count(r), 1);
  CHECK_OK(cairn_cas_put(w, x.aData[1], x.anData[1], x.aId[1]));
  CHECK_OK(cairn_cas_name_set(w, "one", x.aId[1]));
  CHECK_EQ(cairn_cas_count(r), 1); /* the state as of its open */
  CHECK_EQ(readBack(r, &x, 0), 1);
  CHECK_OK(cairn_cas_refresh(r));
  CHECK_EQ(cairn_cas_count(r), 2);
  CHECK_EQ(readBack(r, &x, 1), 1);
  uint8_t id[32];
  CHECK_OK(cairn_cas_name_get(r, "one", id));
  /* A transaction in progress, its records on the file: a reader neither sees it nor calls it damage. */
  CHECK_OK(cairn_cas_begin(w));
  for (int i = 2; i < NPAY; i++) CHECK_OK(cairn_cas_put(w, x.aData[i], x.anData[i], x.aId[i]));
  CHECK_OK(cairnCasFlush(w));
  cairn_cas *r2;
  CHECK_OK(cairn_cas_open(zPath, &ro, &r2));
  CHECK_EQ(cairn_cas_count(r2), 2);
  CHECK_OK(cairn_cas_verify(r2, NULL, NULL, NULL, NULL, NULL));
  CHECK_OK(cairn_cas_refresh(r));
  CHECK_EQ(cairn_cas_count(r), 2);
  CHECK_OK(cairn_cas_commit(w));
  CHECK_OK(cairn_cas_refresh(r));
  CHECK_OK(cairn_cas_refresh(r2));
  CHECK_EQ(cairn_cas_count(r), NPAY);
  CHECK_EQ(cairn_cas_count(r2), NPAY);
  for (int i = 0; i < NPAY; i++) CHECK_EQ(readBack(r2, &x, i), 1);
  CHECK_OK(cairn_cas_verify(r, NULL, NULL, NULL, NULL, NULL));
  CHECK_OK(cairn_cas_refresh(w)); /* a writer: nothing to pick up */
  /* A rolled-back transaction: readers never see it. */
  CHECK_OK(cairn_cas_begin(w));
  CHECK_OK(cairn_cas_put(w, "rolled back", 11, id));
  CHECK_OK(cairn_cas_rollback(w));
  CHECK_OK(cairn_cas_refresh(r));
  CHECK_EQ(cairn_cas_count(r), NPAY);
  /* A second writer. */
#if !defined(__wasi__) && !defined(__EMSCRIPTEN__) && defined(__linux__)
  cairn_cas_config c2 = dmgCfg();
  c2.iVersion = 2;
  c2.busyTimeoutMs = 30;
  CHECK_RC(cairn_cas_open(zPath, &c2, &w2), CAIRN_BUSY);
  CHECK(strstr(cairn_errmsg(), zPath) != NULL);
  CHECK(w2 == NULL);
#endif
  cairn_cas_close(r);
  cairn_cas_close(r2);
  CHECK_OK(cairn_cas_close(w));
  CHECK_OK(cairn_cas_open(zPath, &cfg, &w2)); /* free again */
  CHECK_EQ(cairn_cas_count(w2), NPAY);
  cairn_cas_close(w2);
}
