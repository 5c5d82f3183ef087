/* 2026-11-29 - memory module, text: tokenizer (Unicode lowercasing, punctuation, stop words,
** Porter step 1 on the examples of Porter's 1980 paper), the hashing embedder, BM25 scores
** against the formula evaluated here, MaxScore against exhaustive scoring, and the JSON reader. */
#include <math.h>
#include <stdlib.h>

#include "mem/mem_int.h"
#include "tf.h"

typedef struct Toks {
  char z[4096];
  size_t n;
} Toks;
static void tokCat(void *p, const char *z, size_t n) {
  Toks *t = p;
  if (t->n) t->z[t->n++] = '|';
  memcpy(t->z + t->n, z, n);
  t->n += n;
  t->z[t->n] = 0;
}
static const char *toks(const char *z) {
  static Toks t;
  t.n = 0, t.z[0] = 0;
  if (cairn_mem_tokenize(z, strlen(z), tokCat, &t) != CAIRN_OK) return "ERROR";
  return t.z;
}

TEST(memtext, tokenizer_english_chat) {
  CHECK_STR(toks("Hey Mel! Caroline's dogs are running... I'm so happy :)"), "hei|mel|caroline|dog|run|happi");
  CHECK_STR(toks("What did you do on 8 May, 2023?"), "8|mai|2023"); /* Porter 1c: y -> i */
  CHECK_STR(toks("don't won't can't"), "");              /* contraction stems are stop words */
  CHECK_STR(toks("LGBTQ+ support-group, e-mail"), "lgbtq|support|group|e|mail");
  CHECK_STR(toks("the THE The"), "");
  CHECK_STR(toks(""), "");
  CHECK_STR(toks("rock'n'roll"), "rock|n|roll");
  CHECK_STR(toks("it\xe2\x80\x99s Melanie\xe2\x80\x99s"), "melanie"); /* curly apostrophes */
}

TEST(memtext, tokenizer_unicode) {
  CHECK_STR(toks("\xc3\x89" "COLE Stra\xc3\x9f" "e"), "\xc3\xa9" "cole|stra\xc3\x9f" "e");       /* ÉCOLE Straße */
  CHECK_STR(toks("\xce\x91\xce\x98\xce\x97\xce\x9d\xce\x91"), "\xce\xb1\xce\xb8\xce\xb7\xce\xbd\xce\xb1"); /* ΑΘΗΝΑ */
  CHECK_STR(toks("\xd0\x9c\xd0\xbe\xd1\x81\xd0\xba\xd0\xb2\xd0\xb0"), "\xd0\xbc\xd0\xbe\xd1\x81\xd0\xba\xd0\xb2\xd0\xb0"); /* Москва */
  CHECK_STR(toks("\xc5\x81\xc3\xb3\xc5\xba" "d\xc5\xba"), "\xc5\x82\xc3\xb3\xc5\xba" "d\xc5\xba"); /* Łódź -> łódź */
  CHECK_STR(toks("\xd0\x81\xd0\xbb\xd0\xba\xd0\xb0"), "\xd1\x91\xd0\xbb\xd0\xba\xd0\xb0");     /* Ёлка -> ёлка */
  CHECK_STR(toks("\xce\x86\xce\xbd\xce\xbd\xce\xb1"), "\xce\xac\xce\xbd\xce\xbd\xce\xb1");     /* Άννα -> άννα */
  /* emoji, dashes and invalid bytes separate words */
  CHECK_STR(toks("tea\xf0\x9f\x8d\xb5time\xe2\x80\x94now\xff\xfeok"), "tea|time|ok");
  CHECK_EQ(cairnMemLower(0x178), 0xff);  /* Ÿ */
  CHECK_EQ(cairnMemLower(0x130), 'i');   /* İ */
  CHECK_EQ(cairnMemLower(0x3a3), 0x3c3); /* Σ */
  CHECK_EQ(cairnMemLower(0x3c2), 0x3c3); /* final ς folds */
  CHECK_EQ(cairnMemLower(0xd7), 0xd7);   /* × is not a letter */
  /* overlong, surrogate and out-of-range encodings are invalid */
  const uint8_t bad[] = {0xc0, 0xaf, 0xed, 0xa0, 0x80, 0xf4, 0x90, 0x80, 0x80};
  size_t i = 0;
  CHECK_EQ(cairnUtf8Decode(bad, sizeof bad, &i), -1);
  i = 2;
  CHECK_EQ(cairnUtf8Decode(bad, sizeof bad, &i), -1);
  i = 5;
  CHECK_EQ(cairnUtf8Decode(bad, sizeof bad, &i), -1);
  /* a very long word is cut at a character boundary (64 bytes) */
  char big[300];
  for (int k = 0; k < 100; k++) big[2 * k] = (char)0xc3, big[2 * k + 1] = (char)0xa9;
  big[200] = 0;
  CHECK_EQ(strlen(toks(big)), 64);
}

TEST(memtext, porter_step1_examples) {
  /* Step 1 examples from M.F. Porter, "An algorithm for suffix stripping", 1980. */
  static const char *const ex[][2] = {
    {"caresses", "caress"}, {"ponies", "poni"},       {"ties", "ti"},        {"caress", "caress"},
    {"cats", "cat"},        {"feed", "feed"},         {"agreed", "agree"},   {"plastered", "plaster"},
    {"bled", "bled"},       {"motoring", "motor"},    {"sing", "sing"},      {"conflated", "conflate"},
    {"troubled", "trouble"}, {"sized", "size"},       {"hopping", "hop"},    {"tanned", "tan"},
    {"falling", "fall"},    {"hissing", "hiss"},      {"fizzed", "fizz"},    {"failing", "fail"},
    {"filing", "file"},     {"happy", "happi"},       {"sky", "sky"},
  };
  for (size_t i = 0; i < CAIRN_ARRAY_SIZE(ex); i++) CHECK_STR(toks(ex[i][0]), ex[i][1]);
}

TEST(memtext, embedder) {
  float a[256], b[256], c[256], z[256];
  const char *t1 = "Caroline went to the LGBTQ support group yesterday";
  CHECK_OK(cairn_mem_embed(t1, strlen(t1), a, 256));
  CHECK_OK(cairn_mem_embed(t1, strlen(t1), b, 256));
  CHECK_MEM(a, b, sizeof a); /* deterministic */
  double sq = 0;
  for (int i = 0; i < 256; i++) sq += (double)a[i] * a[i];
  CHECK(fabs(sq - 1) < 1e-5);
  const char *t2 = "Did Caroline go to a support group?";
  const char *t3 = "Melanie painted a sunrise over the lake";
  CHECK_OK(cairn_mem_embed(t2, strlen(t2), b, 256));
  CHECK_OK(cairn_mem_embed(t3, strlen(t3), c, 256));
  float sab = 0, sac = 0;
  for (int i = 0; i < 256; i++) sab += a[i] * b[i], sac += a[i] * c[i];
  CHECK(sab > 0.3f);  /* shared words */
  CHECK(sab > sac + 0.2f);
  CHECK_OK(cairn_mem_embed("the of and", 10, z, 256)); /* only stop words: zero vector */
  for (int i = 0; i < 256; i++) CHECK(z[i] == 0);
  CHECK_RC(cairn_mem_embed(t1, strlen(t1), a, 0), CAIRN_RANGE);
}

/* ---- BM25 ---- */
static const char *const aDoc[] = {
  "the cat sat on the mat",
  "a dog chased the cat around the garden",
  "dogs and cats living together",
  "the quick brown fox jumps over the lazy dog",
  "cat cat cat",
  "painting a sunrise over the lake",
};

TEST(memtext, bm25_scores_match_formula) {
  MemBm25 b;
  memset(&b, 0, sizeof b);
  for (size_t i = 0; i < CAIRN_ARRAY_SIZE(aDoc); i++) CHECK_OK(cairnBm25Add(&b, aDoc[i], strlen(aDoc[i]), NULL, 0));
  /* Tokens per doc after stop words and stemming (by hand): d0 cat sat mat (3); d1 dog chase cat
  ** around garden (5); d2 dog cat live together (4); d3 quick brown fox jump lazi dog (6);
  ** d4 cat cat cat (3); d5 paint sunris lake (3). avgdl = 24/6 = 4. "cat": df 4. */
  CHECK_EQ(b.nDoc, 6);
  CHECK_EQ(b.nTotLen, 24);
  MemTopK t;
  CHECK_OK(cairnTopKInit(&t, 10));
  CHECK_OK(cairnBm25Search(&b, "cats", 4, 1.2f, 0.75f, NULL, 0, &t));
  cairnTopKSort(&t);
  CHECK_EQ(t.n, 4);
  double N = 6, df = 4, idf = log(1 + (N - df + 0.5) / (df + 0.5)), avg = 4;
  int tf[6] = {1, 1, 1, 0, 3, 0}, len[6] = {3, 5, 4, 6, 3, 3};
  double want[6];
  for (int d = 0; d < 6; d++) want[d] = idf * tf[d] * 2.2 / (tf[d] + 1.2 * (0.25 + 0.75 * len[d] / avg));
  CHECK_EQ(t.aIdx[0], 4); /* tf 3 */
  CHECK_EQ(t.aIdx[1], 0); /* shortest of the tf-1 docs */
  CHECK_EQ(t.aIdx[2], 2);
  CHECK_EQ(t.aIdx[3], 1);
  for (uint32_t i = 0; i < t.n; i++) CHECK(fabs(t.aScore[i] - want[t.aIdx[i]]) < 1e-5);
  /* a query of only unknown words and stop words matches nothing */
  cairnTopKReset(&t);
  CHECK_OK(cairnBm25Search(&b, "the zebra", 9, 1.2f, 0.75f, NULL, 1, &t));
  CHECK_EQ(t.n, 0);
  cairnTopKFree(&t);
  cairnBm25Free(&b);
}

static uint64_t rs2 = 3;
static uint32_t rnd(uint32_t n) {
  rs2 ^= rs2 << 13;
  rs2 ^= rs2 >> 7;
  rs2 ^= rs2 << 17;
  return (uint32_t)(rs2 % n);
}

TEST(memtext, maxscore_equals_exhaustive) {
  /* Zipf-ish vocabulary so lists have very different lengths and bounds */
  static const char *const w[] = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
                                  "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo",
                                  "sierra", "tango", "uniform", "victor", "whiskey", "xray", "yankee", "zulu"};
  MemBm25 b;
  memset(&b, 0, sizeof b);
  char z[1024];
  size_t nDoc = 3000;
  for (size_t d = 0; d < nDoc; d++) {
    size_t n = 0, nw = 1 + rnd(30);
    for (size_t k = 0; k < nw; k++) {
      uint32_t r = rnd(26);
      r = r * rnd(26) / 26; /* skew toward the first words */
      n += (size_t)cairnFormat(z + n, sizeof z - n, "%s ", w[r]);
    }
    CHECK_OK(cairnBm25Add(&b, z, n, NULL, 0));
  }
  MemBits bits = {calloc((nDoc + 63) / 64, 8), nDoc};
  for (size_t d = 0; d < nDoc; d++)
    if (rnd(3)) bits.a[d >> 6] |= 1ull << (d & 63);
  for (int qi = 0; qi < 200; qi++) {
    size_t n = 0, nw = 1 + rnd(6);
    for (size_t k = 0; k < nw; k++) n += (size_t)cairnFormat(z + n, sizeof z - n, "%s ", w[rnd(26)]);
    uint32_t k = 1 + rnd(20);
    for (int filt = 0; filt <= 1; filt++) {
      MemTopK t0, t1;
      CHECK_OK(cairnTopKInit(&t0, k));
      CHECK_OK(cairnTopKInit(&t1, k));
      CHECK_OK(cairnBm25Search(&b, z, n, 1.2f, 0.75f, filt ? &bits : NULL, 0, &t0));
      CHECK_OK(cairnBm25Search(&b, z, n, 1.2f, 0.75f, filt ? &bits : NULL, 1, &t1));
      cairnTopKSort(&t0);
      cairnTopKSort(&t1);
      CHECK_EQ(t0.n, t1.n);
      for (uint32_t i = 0; i < t0.n; i++) {
        CHECK_EQ(t0.aIdx[i], t1.aIdx[i]);
        CHECK(t0.aScore[i] == t1.aScore[i]); /* identical, not just close */
        if (filt) CHECK(cairnBitTest(&bits, t1.aIdx[i]));
      }
      cairnTopKFree(&t0);
      cairnTopKFree(&t1);
    }
  }
  free(bits.a);
  cairnBm25Free(&b);
}

/* ---- JSON ---- */
TEST(memtext, json_reader) {
  Json j;
  const char *z = "{\"a\": [1, -2.5e3, true, false, null], \"b\": {\"c\": \"x\\u00e9\\ud83d\\ude00\\n\"}, \"d\": \"\"}";
  CHECK_OK(cairnJsonParse(&j, z, strlen(z)));
  uint32_t a = cairnJsonGet(&j, 0, "a");
  CHECK(a && j.a[a].type == JSON_ARR && j.a[a].n == 5);
  uint32_t x = cairnJsonChild(&j, a);
  CHECK(j.a[x].num == 1);
  x = j.a[x].next;
  CHECK(j.a[x].num == -2500);
  uint32_t bb = cairnJsonGet(&j, 0, "b"), c = cairnJsonGet(&j, bb, "c");
  CHECK_STR(j.a[c].z, "x\xc3\xa9\xf0\x9f\x98\x80\n");
  CHECK_EQ(cairnJsonGet(&j, 0, "zz"), 0);
  cairnJsonFree(&j);
  static const char *const bad[] = {"", "{", "[1,]", "{\"a\" 1}", "01", "1.", "\"abc", "[1] x", "{\"a\":tru}", "\"\\x\"",
                                    "\"a\x01\"", "-", "[\"\\u12\"]"};
  for (size_t i = 0; i < CAIRN_ARRAY_SIZE(bad); i++) {
    int rc = cairnJsonParse(&j, bad[i], strlen(bad[i]));
    if (rc == CAIRN_OK) {
      tfFail(__FILE__, __LINE__, "bad json '%s' accepted", bad[i]);
      cairnJsonFree(&j);
      return;
    }
    CHECK(strstr(cairn_errmsg(), "offset") != NULL);
  }
  /* nesting is capped, not a stack overflow */
  char deep[200];
  memset(deep, '[', sizeof deep);
  CHECK_RC(cairnJsonParse(&j, deep, sizeof deep), CAIRN_RANGE);
}
