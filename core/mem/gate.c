/*
** 2026-12-02
**
** core/mem/gate.c - the decision gate and the save strategies (cairn/gate.h).
**
** The gate is one pass over the text's first scanBytes bytes: words are runs of ASCII letters
** and digits and non-ASCII bytes; each ASCII word of up to 8 bytes is packed, lowercased, into a
** uint64 and looked up in a small open-addressing table of acknowledgements and function words
** (built once, on first use, guarded by an atomic state so that two threads racing to the first
** call build it once). A trivial "ok" is then a trim, one packed word and one probe; a sentence
** is one probe per word. Longer words and non-ASCII words are content words without a lookup:
** none of the listed words is longer than 8 bytes.
**
** The observer keeps the shift strategy's window as a ring of the last `window` exchange
** embeddings and their running sum (recomputed exactly every 8 * window pushes, so that float
** rounding cannot drift), so the distance from the window's centroid costs two dot products, O(dim).
*/
#include "cairn/gate.h"
#include "eph_int.h"
#include "mem_int.h"

/* ------------------------------------------------------------------ word lists */
#define W_ACK 1  /* an acknowledgement, greeting or filler: alone, the text is trivial */
#define W_FUNC 2 /* a function word: neither trivial nor content */

/* Acknowledgements and chat fillers (English, at most 8 bytes each). */
static const char *const azAck[] = {
  "ok", "okay", "okey", "k", "kk", "yes", "yeah", "yea", "yep", "yup", "ya", "no", "nope", "nah", "sure",
  "thanks", "thank", "thankyou", "thx", "ty", "tysm", "cheers", "cool", "nice", "great", "good", "fine",
  "perfect", "awesome", "got", "gotcha", "alright", "right", "hi", "hello", "hey", "bye", "goodbye", "lol",
  "lmao", "haha", "hahaha", "hehe", "hmm", "hm", "um", "uh", "ah", "oh", "wow", "np", "welcome", "please",
  "pls", "plz", "sounds", "agreed", "exactly", "indeed", "true", "noted", "done", "ack", "yay", "ooh",
  "mhm", "sweet", "lovely", "correct", "cya", "later", "morning", "night", "sorry",
  "oops", "word", "bet", "ikr", "omg", "wait", "huh",
};
/* Function words: pronouns, articles, auxiliaries, prepositions, contraction pieces. */
static const char *const azFunc[] = {
  "a", "an", "the", "and", "or", "but", "so", "if", "then", "than", "to", "of", "in", "on", "at", "by",
  "for", "with", "from", "as", "is", "am", "are", "was", "were", "be", "been", "being", "do", "does", "did",
  "have", "has", "had", "i", "me", "my", "mine", "myself", "you", "your", "yours", "he", "him", "his", "she",
  "her", "hers", "it", "its", "itself", "we", "us", "our", "ours", "they", "them", "their", "this", "that",
  "these", "those", "there", "here", "what", "which", "who", "whom", "whose", "when", "where", "why", "how",
  "not", "very", "too", "just", "also", "all", "any", "some", "much", "many", "more", "most", "can",
  "could", "will", "would", "shall", "should", "may", "might", "must", "s", "t", "m", "d", "ll", "re",
  "ve", "don", "doesn", "didn", "isn", "aren", "wasn", "weren", "won", "wouldn", "couldn", "really",
  "about", "into", "over", "again", "still", "well", "now", "let", "lets", "like", "maybe", "actually",
  "anyway", "anyways", "gonna", "wanna", "kind", "kinda", "sort", "thing", "things", "stuff",
  "one", "even", "such", "only", "own", "same", "each", "other", "yourself",
};

#define WT_BITS 10
#define WT_SIZE (1u << WT_BITS)
static uint64_t aWordKey[WT_SIZE];
static uint8_t aWordFlag[WT_SIZE];
/* Per byte: its lowercase form if it belongs to words (ASCII letters and digits, bytes >= 0x80),
** else 0. Built with the word table. */
static uint8_t aWordByte[256];
static int gWordState; /* 0 not built, 1 being built, 2 ready */

static inline uint32_t wordHome(uint64_t k) { return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> (64 - WT_BITS)); }

/* Pack a lowercase ASCII word of 1..8 bytes (0 if it has other bytes). */
static uint64_t packWord(const char *z, size_t n) {
  uint64_t k = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t c = (uint8_t)z[i];
    if (c >= 'A' && c <= 'Z') c |= 0x20;
    k |= (uint64_t)c << (8 * i);
  }
  return k;
}

static void wordAdd(const char *z, uint8_t flag) {
  size_t n = strlen(z);
  if (n > 8 || memchr(z, '\'', n)) return; /* cannot occur as one word ("it's" is two) */
  uint64_t k = packWord(z, n);
  uint32_t i = wordHome(k);
  while (aWordKey[i] && aWordKey[i] != k) i = (i + 1) & (WT_SIZE - 1);
  aWordKey[i] = k;
  aWordFlag[i] |= flag;
}

static void wordsReady(void) {
  if (__atomic_load_n(&gWordState, __ATOMIC_ACQUIRE) == 2) return;
  int expect = 0;
  if (__atomic_compare_exchange_n(&gWordState, &expect, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    for (int c = 0; c < 256; c++)
      aWordByte[c] = (uint8_t)(c >= 'A' && c <= 'Z' ? c | 0x20 : (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c >= 0x80 ? c : 0);
    for (size_t i = 0; i < CAIRN_ARRAY_SIZE(azAck); i++) wordAdd(azAck[i], W_ACK);
    for (size_t i = 0; i < CAIRN_ARRAY_SIZE(azFunc); i++) wordAdd(azFunc[i], W_FUNC);
    __atomic_store_n(&gWordState, 2, __ATOMIC_RELEASE);
    return;
  }
  /* Another thread builds it (a few microseconds, once per process). */
  while (__atomic_load_n(&gWordState, __ATOMIC_ACQUIRE) != 2) {
  }
}

static inline int wordFlags(uint64_t k) {
  uint32_t i = wordHome(k);
  for (;;) {
    uint64_t s = aWordKey[i];
    if (s == k) return aWordFlag[i];
    if (!s) return 0;
    i = (i + 1) & (WT_SIZE - 1);
  }
}

/* ------------------------------------------------------------------ the gate */
typedef struct GateCfg {
  uint32_t minBytes, minContent, trivialMax, maxBytes, scanBytes;
  float minRatio;
  int noGate;
} GateCfg;

static void gateDefaults(const cairn_gate_config *p, GateCfg *g) {
  cairn_gate_config z;
  if (!p) memset(&z, 0, sizeof z), p = &z;
  g->minBytes = p->minBytes ? p->minBytes : 12;
  g->minContent = p->minContentWords ? p->minContentWords : 2;
  g->trivialMax = p->trivialMaxWords ? p->trivialMaxWords : 6;
  g->maxBytes = p->maxBytes ? p->maxBytes : CAIRN_MEM_MAX_TEXT;
  g->scanBytes = p->scanBytes ? p->scanBytes : 65536;
  g->minRatio = p->minContentRatio != 0 ? p->minContentRatio : 0.25f;
  g->noGate = p->noGate;
}

static inline int isSpace(uint8_t c) { return c == ' ' || (c >= 9 && c <= 13); }

static void gateRun(const GateCfg *g, const char *z, size_t n, cairn_gate_result *r) {
  memset(r, 0, sizeof *r);
  size_t i0 = 0, i1 = n;
  while (i0 < i1 && isSpace((uint8_t)z[i0])) i0++;
  while (i1 > i0 && isSpace((uint8_t)z[i1 - 1])) i1--;
  size_t nb = i1 - i0;
  r->nBytes = nb > UINT32_MAX ? UINT32_MAX : (uint32_t)nb;
  const uint8_t *a = (const uint8_t *)z;
  size_t end = i0 + CAIRN_MIN(nb, (size_t)g->scanBytes);
  uint32_t nWords = 0, nContent = 0, nAck = 0;
  for (size_t i = i0; i < end;) {
    if (!aWordByte[a[i]]) {
      i++;
      continue;
    }
    /* One word: pack its first 8 bytes lowercased while finding its end. */
    size_t j = i;
    uint64_t k = 0;
    unsigned hi = 0;
    do {
      uint8_t c = aWordByte[a[j]];
      if (j - i < 8) k |= (uint64_t)c << (8 * (j - i));
      hi |= c;
      j++;
    } while (j < end && aWordByte[a[j]]);
    nWords++;
    int f = !(hi & 0x80) && j - i <= 8 ? wordFlags(k) : 0;
    nAck += (f & W_ACK) != 0;
    nContent += f == 0;
    i = j;
  }
  r->nWords = nWords, r->nContent = nContent, r->nAck = nAck;
  r->ratio = nWords ? (float)nContent / (float)nWords : 0.0f;
  if (nWords == 0) r->reason = CAIRN_GATE_EMPTY;
  else if (nb > g->maxBytes) r->reason = CAIRN_GATE_TOO_LONG;
  else if (g->noGate) r->reason = CAIRN_GATE_PASS;
  else if (nAck > 0 && nContent == 0 && nWords <= g->trivialMax) r->reason = CAIRN_GATE_TRIVIAL;
  else if (nb < g->minBytes || nContent < g->minContent) r->reason = CAIRN_GATE_SHORT;
  else if (g->minRatio >= 0 && r->ratio < g->minRatio) r->reason = CAIRN_GATE_LOW_CONTENT;
  else r->reason = CAIRN_GATE_PASS;
  r->save = r->reason == CAIRN_GATE_PASS;
}

int cairn_gate_check(const cairn_gate_config *pCfg, const char *zText, size_t nText, cairn_gate_result *pOut) {
  CAIRN_RETURN_ERROR_IF(!pOut || (!zText && nText), CAIRN_MISUSE, "gate: NULL argument");
  wordsReady();
  GateCfg g;
  gateDefaults(pCfg, &g);
  gateRun(&g, zText ? zText : "", nText, pOut);
  return CAIRN_OK;
}

const char *cairn_gate_reason_name(int reason) {
  static const char *const az[] = {"pass", "empty", "too long", "trivial", "short", "low content"};
  return reason >= 0 && reason < (int)CAIRN_ARRAY_SIZE(az) ? az[reason] : NULL;
}

const char *cairn_observe_why_name(int why) {
  static const char *const az[] = {"every", "shift", "no shift", "important", "unimportant", "gated"};
  return why >= 0 && why < (int)CAIRN_ARRAY_SIZE(az) ? az[why] : NULL;
}

/* ------------------------------------------------------------------ the observer */
#define GATE_MAX_WINDOW 1024

struct cairn_gate {
  GateCfg g;
  int strategy;
  float shiftThreshold, importanceThreshold;
  uint32_t window, dim;
  float *aWin; /* window * dim: the ring of recent exchange embeddings */
  float *aSum; /* dim: their sum, updated in place and recomputed from the ring every 8 * window
               ** pushes so that float rounding cannot drift */
  uint32_t nWin, iWin, nPush;
  float *aCur, *aTmp; /* dim each */
};

int cairn_gate_open(const cairn_gate_config *pCfg, cairn_gate **ppGate) {
  CAIRN_RETURN_ERROR_IF(!ppGate, CAIRN_MISUSE, "gate_open: NULL argument");
  *ppGate = NULL;
  cairn_gate_config z;
  if (!pCfg) memset(&z, 0, sizeof z), pCfg = &z;
  CAIRN_RETURN_ERROR_IF(pCfg->strategy < CAIRN_SAVE_EVERY || pCfg->strategy > CAIRN_SAVE_ON_IMPORTANCE, CAIRN_MISUSE,
                        "gate_open: unknown strategy %d", pCfg->strategy);
  CAIRN_RETURN_ERROR_IF(pCfg->window > GATE_MAX_WINDOW, CAIRN_RANGE, "gate_open: window %u above %u", pCfg->window,
                        GATE_MAX_WINDOW);
  CAIRN_RETURN_ERROR_IF(pCfg->dim > CAIRN_MEM_MAX_DIM, CAIRN_RANGE, "gate_open: dim %u above %u", pCfg->dim,
                        (unsigned)CAIRN_MEM_MAX_DIM);
  CAIRN_RETURN_ERROR_IF(!isfinite(pCfg->shiftThreshold) || !isfinite(pCfg->importanceThreshold) ||
                            !isfinite(pCfg->minContentRatio),
                        CAIRN_MISUSE, "gate_open: a threshold is NaN or Inf");
  cairn_gate *p = cairnMallocZero(sizeof *p);
  if (!p) return cairnErr(CAIRN_NOMEM, "gate_open: out of memory");
  gateDefaults(pCfg, &p->g);
  p->strategy = pCfg->strategy;
  p->shiftThreshold = pCfg->shiftThreshold != 0 ? pCfg->shiftThreshold : 0.5f;
  p->importanceThreshold = pCfg->importanceThreshold != 0 ? pCfg->importanceThreshold : 0.5f;
  p->window = pCfg->window ? pCfg->window : 8;
  p->dim = pCfg->dim ? pCfg->dim : CAIRN_MEM_DEFAULT_DIM;
  if (p->strategy == CAIRN_SAVE_ON_SHIFT) {
    p->aWin = cairnMallocArray((size_t)p->window * p->dim, sizeof(float));
    p->aSum = cairnMallocArray(p->dim, sizeof(float));
    p->aCur = cairnMallocArray(p->dim, sizeof(float));
    p->aTmp = cairnMallocArray(p->dim, sizeof(float));
    if (!p->aWin || !p->aSum || !p->aCur || !p->aTmp) {
      cairn_gate_close(p);
      return cairnErr(CAIRN_NOMEM, "gate_open: out of memory for a window of %u x %u", p->window, p->dim);
    }
    memset(p->aSum, 0, sizeof(float) * p->dim);
  }
  wordsReady();
  *ppGate = p;
  return CAIRN_OK;
}

void cairn_gate_close(cairn_gate *p) {
  if (!p) return;
  cairnFree(p->aWin), cairnFree(p->aSum), cairnFree(p->aCur), cairnFree(p->aTmp);
  cairnFree(p);
}

/* Add side zText (or its given embedding, whose |v|^2 is sq), normalised, into p->aCur. */
static int addSide(cairn_gate *p, const char *zText, const float *aEmb, float sq) {
  uint32_t d = p->dim;
  const float *v = aEmb;
  if (!v) {
    if (!zText) return CAIRN_OK;
    CAIRN_TRY(cairn_mem_embed(zText, strlen(zText), p->aTmp, d));
    v = p->aTmp;
    sq = cairnMemDot(v, v, d);
  }
  CAIRN_RETURN_ERROR_IF(!isfinite(sq), CAIRN_RANGE, "gate_observe: the norm of an embedding overflows a float");
  float inv = sq > 0 ? 1.0f / sqrtf(sq) : 0.0f;
  for (uint32_t j = 0; j < d; j++) p->aCur[j] += v[j] * inv;
  return CAIRN_OK;
}

/* Embed the exchange into p->aCur (unit length, or zero) and measure its distance from the window. */
static int shiftOf(cairn_gate *p, const cairn_exchange *x, const float aSq[2], float *pShift) {
  uint32_t d = p->dim;
  memset(p->aCur, 0, sizeof(float) * d);
  CAIRN_TRY(addSide(p, x->zUser, x->aUserEmbedding, aSq[0]));
  CAIRN_TRY(addSide(p, x->zAssistant, x->aAssistantEmbedding, aSq[1]));
  float sq = cairnMemDot(p->aCur, p->aCur, d);
  if (sq == 0) {
    *pShift = 0; /* nothing to compare: no topic, no shift */
    return CAIRN_OK;
  }
  float inv = 1.0f / sqrtf(sq);
  for (uint32_t j = 0; j < d; j++) p->aCur[j] *= inv;
  if (p->nWin == 0) {
    *pShift = 1.0f;
    return CAIRN_OK;
  }
  float dot = cairnMemDot(p->aSum, p->aCur, d), sumSq = cairnMemDot(p->aSum, p->aSum, d);
  *pShift = sumSq > 0 ? 1.0f - dot / sqrtf(sumSq) : 1.0f;
  return CAIRN_OK;
}

static void windowPush(cairn_gate *p) {
  uint32_t d = p->dim;
  float *slot = p->aWin + (size_t)p->iWin * d;
  if (p->nWin == p->window) {
    for (uint32_t j = 0; j < d; j++) p->aSum[j] += p->aCur[j] - slot[j];
  } else {
    p->nWin++;
    for (uint32_t j = 0; j < d; j++) p->aSum[j] += p->aCur[j];
  }
  memcpy(slot, p->aCur, sizeof(float) * d);
  p->iWin = (p->iWin + 1) % p->window;
  if (++p->nPush % (8 * p->window) == 0) { /* the exact sum again, in double */
    for (uint32_t j = 0; j < d; j++) {
      double t = 0;
      for (uint32_t w = 0; w < p->nWin; w++) t += p->aWin[(size_t)w * d + j];
      p->aSum[j] = (float)t;
    }
  }
}

/*
** cairn_mem_add with the record's embedding, or, when the store refuses it as misuse (another
** dimension, a text-only store: a failed add changes nothing), without it so that the store
** embeds the text. Trying is cheaper than asking: cairn_mem_stats_get walks every memory.
*/
int cairnMemAddEmbeddingOrText(cairn_mem *m, cairn_mem_record *r, uint64_t *pId) {
  int rc = cairn_mem_add(m, r, pId);
  if (rc == CAIRN_MISUSE && r->aEmbedding) {
    r->aEmbedding = NULL, r->nEmbedding = 0;
    rc = cairn_mem_add(m, r, pId);
  }
  return rc;
}

static int saveSide(cairn_mem *m, const cairn_exchange *x, const char *zText, const float *aEmb, const char *zRole,
                    float importance, uint64_t *pId) {
  cairn_mem_record r;
  memset(&r, 0, sizeof r);
  r.zText = zText, r.zSession = x->zSession, r.zRole = zRole;
  r.importance = importance, r.eventMs = x->eventMs;
  if (aEmb) r.aEmbedding = aEmb, r.nEmbedding = x->nEmbedding;
  return cairnMemAddEmbeddingOrText(m, &r, pId);
}

int cairn_gate_observe(cairn_gate *p, const cairn_exchange *x, cairn_mem *pMem, cairn_observe_result *pOut) {
  CAIRN_RETURN_ERROR_IF(!p || !x || !pOut, CAIRN_MISUSE, "gate_observe: NULL argument");
  memset(pOut, 0, sizeof *pOut);
  pOut->shift = NAN;
  int haveEmb = x->aUserEmbedding || x->aAssistantEmbedding;
  CAIRN_RETURN_ERROR_IF(haveEmb && x->nEmbedding != p->dim, CAIRN_MISUSE,
                        "gate_observe: embeddings of %u floats, the observer has dim %u", x->nEmbedding, p->dim);
  float aSq[2] = {0, 0};
  for (int s = 0; s < 2 && haveEmb; s++) {
    /* NaN or Inf anywhere makes the sum of squares non-finite (one SIMD pass); only then look. */
    const float *a = s ? x->aAssistantEmbedding : x->aUserEmbedding;
    if (!a || isfinite(aSq[s] = cairnMemDot(a, a, p->dim))) continue;
    for (uint32_t j = 0; j < p->dim; j++)
      CAIRN_RETURN_ERROR_IF(!isfinite(a[j]), CAIRN_TYPE, "gate_observe: embedding has a NaN or Inf at %u", j);
    return cairnErr(CAIRN_RANGE, "gate_observe: the norm of an embedding overflows a float");
  }
  if (x->zUser) gateRun(&p->g, x->zUser, strlen(x->zUser), &pOut->user);
  else pOut->user.reason = CAIRN_GATE_EMPTY;
  if (x->zAssistant) gateRun(&p->g, x->zAssistant, strlen(x->zAssistant), &pOut->assistant);
  else pOut->assistant.reason = CAIRN_GATE_EMPTY;

  float imp = x->importance;
  if (!(imp >= 0) || !isfinite(imp)) {
    const cairn_gate_result *a[2] = {&pOut->user, &pOut->assistant};
    imp = 0;
    for (int s = 0; s < 2; s++) {
      float v = a[s]->ratio * CAIRN_MIN(1.0f, (float)a[s]->nContent / 8.0f);
      if (v > imp) imp = v;
    }
  }
  pOut->importance = imp;

  int want;
  if (p->strategy == CAIRN_SAVE_ON_SHIFT) {
    CAIRN_TRY(shiftOf(p, x, aSq, &pOut->shift));
    want = pOut->shift >= p->shiftThreshold;
    pOut->why = want ? CAIRN_OBSERVE_SHIFT : CAIRN_OBSERVE_NO_SHIFT;
  } else if (p->strategy == CAIRN_SAVE_ON_IMPORTANCE) {
    want = imp >= p->importanceThreshold;
    pOut->why = want ? CAIRN_OBSERVE_IMPORTANT : CAIRN_OBSERVE_UNIMPORTANT;
  } else {
    want = 1;
    pOut->why = CAIRN_OBSERVE_EVERY;
  }
  pOut->saveUser = want && pOut->user.save;
  pOut->saveAssistant = want && pOut->assistant.save;
  pOut->save = pOut->saveUser || pOut->saveAssistant;
  if (want && !pOut->save) pOut->why = CAIRN_OBSERVE_GATED;

  if (pMem && pOut->save) {
    if (pOut->saveUser)
      CAIRN_TRY(saveSide(pMem, x, x->zUser, x->aUserEmbedding, x->zUserRole ? x->zUserRole : "user", imp, &pOut->userId));
    if (pOut->saveAssistant)
      CAIRN_TRY(saveSide(pMem, x, x->zAssistant, x->aAssistantEmbedding,
                         x->zAssistantRole ? x->zAssistantRole : "assistant", imp, &pOut->assistantId));
  }
  if (p->strategy == CAIRN_SAVE_ON_SHIFT) windowPush(p);
  return CAIRN_OK;
}
