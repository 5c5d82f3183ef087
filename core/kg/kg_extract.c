/*
** 2026-12-02
**
** core/kg/kg_extract.c - the built-in deterministic extractor: proper-noun spans (runs of
** capitalised words, acronyms; sentence-initial words only when the graph already knows them),
** the speaker behind "I"/"my", kinship coreference ("my sister Ines", "my sister" once named,
** "Maya's brother"), time expressions (kg_time.c) and a few relation patterns (moved to, lives
** in, from, works at, visited, married, "X is my Y"). What it gets and misses, measured, is in
** docs/kg.md. Everything here is a table or a loop over words: no model.
*/
#include <string.h>

#include "kg/kg_int.h"

int cairnKgFactAdd(cairn_kg *g, const cairn_kg_fact *in, uint32_t *pId);
int cairnKgEntityAdd(cairn_kg *g, const char *zName, const char *zType, uint32_t *pId);
int cairnKgMentionAdd(cairn_kg *g, uint32_t id, uint64_t memId);

#define X_MAXTOK 512
#define X_MAXENT 48
#define X_MAXFACT 24
#define X_MAXTIME 24
#define X_NAME 128

typedef struct XTok {
  uint32_t i, n;
  char w[24];     /* lowercased (truncated) */
  int cap, allcap, start, poss; /* capitalised; acronym; sentence start; followed by 's */
  int gap;        /* punctuation (a comma, a dash, a bracket) between it and the word before */
} XTok;
typedef struct XEnt { char z[X_NAME]; const char *zType; } XEnt;
typedef struct XFact { char s[X_NAME], p[32], o[X_NAME]; int64_t validAt; } XFact;
typedef struct Extract {
  XEnt aEnt[X_MAXENT];
  uint32_t nEnt;
  XFact aFact[X_MAXFACT];
  uint32_t nFact;
  cairn_kg_time aTime[X_MAXTIME];
  uint32_t nTime;
} Extract;

static const char *const azStop[] = {
  "i", "im", "ive", "ill", "id", "hey", "hi", "hello", "wow", "oh", "yes", "yeah", "yep", "no", "nope", "thanks", "thank", "ok", "okay",
  "sure", "great", "awesome", "cool", "nice", "congrats", "congratulations", "that", "thats", "this", "it", "its", "what", "whats",
  "when", "where", "who", "why", "how", "my", "your", "we", "you", "youre", "youve", "they", "he", "she", "our", "their", "his", "her",
  "the", "a", "an", "and", "but", "so", "if", "just", "also", "well", "lol", "haha", "aw", "aww", "omg", "good", "glad", "sorry", "love",
  "me", "definitely", "absolutely", "totally", "really", "maybe", "sounds", "sound", "let", "lets", "do", "did", "does", "have", "has",
  "is", "are", "was", "were", "can", "could", "would", "will", "not", "any", "all", "some", "mom", "dad", "there", "here", "then",
  "now", "for", "to", "in", "on", "at", "of", "with", "as", "by", "from", "one", "after", "before", "since", "anyway", "btw", "by",
  "happy", "hope", "enjoy", "keep", "take", "see", "look", "looks", "check", "bye", "night", "morning", "ah", "hmm", "exactly", "true",
  "right", "agreed", "same", "even", "still", "plus", "like", "last", "next", "these", "those", "every", "being", "thinking", "speaking",
  "wishing", "take", "things", "yay", "woah", "whoa", "woohoo", "wooo", "yikes", "ooh", "hooray", "hahaha", "ugh", "dear", "super", "pretty", "mine", "yours", "ours", "theyre", "were", "dont",
  "didnt", "cant", "wasnt", "isnt", "doesnt", "wouldnt", "couldnt", "shouldnt", "wont", "havent", "gonna", "gotta", "wanna",
  "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december",
  "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "today", "yesterday", "tomorrow", "christmas", NULL};
static const char *const azKin[] = {"sister", "brother", "mom", "mother", "dad", "father", "wife", "husband", "son", "daughter",
                                    "friend", "partner", "boyfriend", "girlfriend", "cousin", "aunt", "uncle", "grandma",
                                    "grandmother", "grandpa", "grandfather", "niece", "nephew", "kids", "children", "boss",
                                    "colleague", "coworker", "neighbor", "roommate", "fiance", "fiancee", "mentor", "dog", "cat",
                                    "baby", "family", "parents", "sibling", "siblings", "bestie", "bff", NULL};

/* zOut = a + b + c, cut to nOut - 1 bytes (the core has no snprintf) */
static void cat3(char *zOut, size_t nOut, const char *a, const char *b, const char *c) {
  size_t k = 0;
  const char *az[3] = {a, b, c};
  for (int i = 0; i < 3; i++)
    for (const char *p = az[i]; p && *p && k + 1 < nOut; p++) zOut[k++] = *p;
  zOut[k] = 0;
}

static int inList(const char *const *az, const char *w) {
  for (int i = 0; az[i]; i++)
    if (!strcmp(az[i], w)) return 1;
  return 0;
}
static int isKin(const char *w) { return inList(azKin, w); }

static uint32_t xtokenize(const char *z, size_t n, XTok *a, uint32_t nMax) {
  uint32_t k = 0;
  int start = 1, gap = 0;
  size_t i = 0;
  while (i < n && k < nMax) {
    unsigned char c = (unsigned char)z[i];
    int alpha = (c | 32) >= 'a' && (c | 32) <= 'z', digit = c >= '0' && c <= '9';
    if (!alpha && !digit && c < 0x80) {
      if (c == '.' || c == '!' || c == '?' || c == '\n' || c == ':' || c == ';' || c == '"') start = 1;
      if (c != ' ' && c != '\t') gap = 1;
      i++;
      continue;
    }
    XTok t;
    memset(&t, 0, sizeof t);
    t.i = (uint32_t)i, t.start = start, t.cap = c >= 'A' && c <= 'Z', t.gap = gap;
    gap = 0;
    size_t j = i, w = 0;
    int nUpper = 0, nAlpha = 0;
    while (j < n) {
      unsigned char d = (unsigned char)z[j];
      int ok = ((d | 32) >= 'a' && (d | 32) <= 'z') || (d >= '0' && d <= '9') || d >= 0x80 ||
               ((d == '\'' || d == '-' || d == '&') && j + 1 < n && ((unsigned char)z[j + 1] | 32) >= 'a' && ((unsigned char)z[j + 1] | 32) <= 'z');
      if (!ok) break;
      if (d == '\'' && j + 1 < n && (z[j + 1] == 's' || z[j + 1] == 'S') && (j + 2 >= n || !(((unsigned char)z[j + 2] | 32) >= 'a' && ((unsigned char)z[j + 2] | 32) <= 'z'))) {
        t.poss = 1;
        break;
      }
      if (d >= 'A' && d <= 'Z') nUpper++;
      if ((d | 32) >= 'a' && (d | 32) <= 'z') nAlpha++;
      if (d != '\'' && w < sizeof t.w - 1) t.w[w++] = (char)(d >= 'A' && d <= 'Z' ? d | 32 : d);
      j++;
    }
    t.n = (uint32_t)(j - i);
    t.allcap = nUpper >= 2 && nUpper == nAlpha;
    if (t.poss) j += 2;
    a[k++] = t;
    start = 0;
    i = j;
  }
  return k;
}

static int entAdd(Extract *x, const char *z, size_t n, const char *zType) {
  if (n == 0 || n >= X_NAME) return -1;
  for (uint32_t i = 0; i < x->nEnt; i++)
    if (strlen(x->aEnt[i].z) == n && !memcmp(x->aEnt[i].z, z, n)) {
      if (zType && !x->aEnt[i].zType) x->aEnt[i].zType = zType;
      return (int)i;
    }
  if (x->nEnt >= X_MAXENT) return -1;
  memcpy(x->aEnt[x->nEnt].z, z, n);
  x->aEnt[x->nEnt].z[n] = 0;
  x->aEnt[x->nEnt].zType = zType;
  return (int)x->nEnt++;
}
static void factAddX(Extract *x, const char *s, const char *p, const char *o, int64_t validAt) {
  if (x->nFact >= X_MAXFACT || !s[0] || !o[0] || strlen(s) >= X_NAME || strlen(o) >= X_NAME) return;
  XFact *f = &x->aFact[x->nFact++];
  cat3(f->s, sizeof f->s, s, NULL, NULL), cat3(f->p, sizeof f->p, p, NULL, NULL), cat3(f->o, sizeof f->o, o, NULL, NULL);
  f->validAt = validAt;
}

/* A proper-noun span starting at token i: its token count (0 if none). */
static uint32_t nameSpan(const XTok *a, uint32_t n, uint32_t i, cairn_kg *g, const char *zText) {
  if (!a[i].cap || inList(azStop, a[i].w) || a[i].w[0] == 0) return 0;
  uint32_t j = i + 1;
  while (j < n && !a[j].start && !a[j].gap && !a[j - 1].poss) {
    if (a[j].cap && !inList(azStop, a[j].w)) j++;
    else if ((!strcmp(a[j].w, "of") || !strcmp(a[j].w, "de")) && j + 1 < n && a[j + 1].cap && !inList(azStop, a[j + 1].w)) j += 2;
    else break;
  }
  if (a[i].start && j == i + 1 && !a[i].allcap) { /* one capitalised word opening a sentence: known names only */
    if (!g) return 0;
    char zn[64];
    size_t nn = cairn_kg_normalize(a[i].w, zn, sizeof zn);
    uint32_t id;
    if (!nn || cairnKgEntityFind(g, zn, nn, &id)) return 0;
  }
  (void)zText;
  return j - i;
}

static void spanText(const XTok *a, uint32_t i, uint32_t nt, const char *z, char *zOut, size_t nOut) {
  size_t len = a[i + nt - 1].i + a[i + nt - 1].n - a[i].i;
  if (len >= nOut) len = nOut - 1;
  memcpy(zOut, z + a[i].i, len);
  zOut[len] = 0;
}

static void extract(cairn_kg *g, const char *zText, size_t nText, const char *zSpeaker, int64_t refMs, Extract *x) {
  memset(x, 0, sizeof *x);
  XTok a[X_MAXTOK];
  size_t spk = zSpeaker ? strlen(zSpeaker) : 0;
  /* "Caroline: text" as the memory store keeps LoCoMo turns */
  if (spk && nText > spk + 2 && !memcmp(zText, zSpeaker, spk) && zText[spk] == ':') zText += spk + 2, nText -= spk + 2;
  uint32_t n = xtokenize(zText, nText, a, X_MAXTOK);
  int firstPerson = 0;
  for (uint32_t i = 0; i < n; i++)
    if (!strcmp(a[i].w, "i") || !strcmp(a[i].w, "im") || !strcmp(a[i].w, "ive") || !strcmp(a[i].w, "my") || !strcmp(a[i].w, "me") ||
        !strcmp(a[i].w, "id") || !strcmp(a[i].w, "ill") || !strcmp(a[i].w, "mine") || !strcmp(a[i].w, "myself"))
      firstPerson = 1;
  if (spk && spk < X_NAME && firstPerson) entAdd(x, zSpeaker, spk, "person");
  uint32_t nTime = 0;
  (void)cairn_kg_time_parse(zText, nText, refMs, x->aTime, X_MAXTIME, &nTime);
  x->nTime = nTime;
  int64_t validAt = nTime ? x->aTime[0].lo : refMs;
  char zSubj[X_NAME], zName[X_NAME], zKinName[X_NAME + 40];
  cat3(zSubj, sizeof zSubj, spk ? zSpeaker : "", NULL, NULL);
  for (uint32_t i = 0; i < n; i++) {
    /* "my sister (Ines)" / "Maya's sister (Ines)" */
    int owner = !strcmp(a[i].w, "my") ? 1 : a[i].poss && a[i].cap && !inList(azStop, a[i].w) ? 2 : 0;
    if (owner && i + 1 < n && isKin(a[i + 1].w)) {
      char zOwner[X_NAME];
      if (owner == 1) cat3(zOwner, sizeof zOwner, spk ? zSpeaker : "", NULL, NULL);
      else spanText(a, i, 1, zText, zOwner, sizeof zOwner);
      if (zOwner[0]) {
        cat3(zKinName, sizeof zKinName, zOwner, "'s ", a[i + 1].w);
        uint32_t nt = i + 2 < n && !a[i + 2].start ? nameSpan(a, n, i + 2, g, zText) : 0;
        if (nt) {
          spanText(a, i + 2, nt, zText, zName, sizeof zName);
          entAdd(x, zName, strlen(zName), "person");
          char zP[32];
          cat3(zP, sizeof zP, a[i + 1].w, "_of", NULL);
          factAddX(x, zName, zP, zOwner, CAIRN_KG_NONE);
          factAddX(x, zName, "alias", zKinName, CAIRN_KG_NONE); /* applied as an alias, not a fact */
          i += 1 + nt;
        } else {
          int k = strlen(zKinName) < X_NAME ? entAdd(x, zKinName, strlen(zKinName), "person") : -1;
          (void)k;
          i += 1;
        }
        continue;
      }
    }
    uint32_t nt = nameSpan(a, n, i, g, zText);
    if (nt) {
      spanText(a, i, nt, zText, zName, sizeof zName);
      const char *zType = NULL;
      if (i > 0) {
        const char *p = a[i - 1].w;
        if (!strcmp(p, "in") || !strcmp(p, "to") || !strcmp(p, "from") || !strcmp(p, "visited") || !strcmp(p, "near") ||
            !strcmp(p, "around"))
          zType = "place";
        if (!strcmp(p, "dr") || !strcmp(p, "mr") || !strcmp(p, "mrs") || !strcmp(p, "ms") || isKin(p)) zType = "person";
      }
      entAdd(x, zName, strlen(zName), zType);
      /* relation patterns ending just before this name */
      const char *zP = NULL;
      const char *w1 = i > 0 ? a[i - 1].w : "", *w2 = i > 1 ? a[i - 2].w : "", *w3 = i > 2 ? a[i - 3].w : "";
      if (!strcmp(w1, "to") && (!strcmp(w2, "moved") || !strcmp(w2, "relocated") || !strcmp(w2, "move"))) zP = "lives_in";
      else if (!strcmp(w1, "in") && (!strcmp(w2, "live") || !strcmp(w2, "lives") || !strcmp(w2, "living") || !strcmp(w2, "settled")))
        zP = "lives_in";
      else if (!strcmp(w1, "from") && (!strcmp(w2, "moved") || !strcmp(w2, "im") || !strcmp(w2, "am") || !strcmp(w2, "came") ||
                                       !strcmp(w2, "originally")))
        zP = "from";
      else if ((!strcmp(w1, "at") || !strcmp(w1, "for")) && (!strcmp(w2, "work") || !strcmp(w2, "works") || !strcmp(w2, "working") ||
                                                              !strcmp(w2, "job") || !strcmp(w2, "hired")))
        zP = "works_at";
      else if (!strcmp(w1, "visited") || (!strcmp(w1, "to") && (!strcmp(w2, "went") || !strcmp(w2, "trip") || !strcmp(w2, "travelled") ||
                                                                !strcmp(w2, "traveled") || !strcmp(w2, "been"))))
        zP = "visited";
      else if (!strcmp(w1, "married") || (!strcmp(w1, "to") && !strcmp(w2, "married"))) zP = "married_to";
      (void)w3;
      if (zP && zSubj[0] && (firstPerson || zSubj[0])) factAddX(x, zSubj, zP, zName, validAt);
      /* "Ines is my sister" */
      if (i + nt + 2 < n && !strcmp(a[i + nt].w, "is") && !strcmp(a[i + nt + 1].w, "my") && isKin(a[i + nt + 2].w) && spk) {
        char zPk[32];
        cat3(zPk, sizeof zPk, a[i + nt + 2].w, "_of", NULL);
        factAddX(x, zName, zPk, zSpeaker, CAIRN_KG_NONE);
      }
      i += nt - 1;
    }
  }
}

int cairnKgNameSpans(const char *z, size_t n, uint32_t *aSpan, uint32_t nMax, uint32_t *pn) {
  XTok a[X_MAXTOK];
  uint32_t nt = xtokenize(z, n, a, X_MAXTOK), k = 0;
  for (uint32_t i = 0; i < nt && k + 2 <= nMax; i++) {
    uint32_t m = a[i].cap && !inList(azStop, a[i].w) ? 1 : 0;
    if (!m) continue;
    while (i + m < nt && a[i + m].cap && !a[i + m].gap && !a[i + m - 1].poss && !inList(azStop, a[i + m].w)) m++;
    aSpan[k++] = a[i].i, aSpan[k++] = a[i + m - 1].i + a[i + m - 1].n - a[i].i;
    /* "Melanie's kids": the kin entity too */
    if (a[i + m - 1].poss && i + m < nt && isKin(a[i + m].w) && k + 2 <= nMax)
      aSpan[k++] = a[i].i, aSpan[k++] = a[i + m].i + a[i + m].n - a[i].i;
    i += m - 1;
  }
  *pn = k / 2;
  return CAIRN_OK;
}

int cairn_kg_extract(cairn_kg *g, uint64_t memId, const char *zText, const char *zSpeaker, int64_t refMs, uint32_t *pnEntity,
                     uint32_t *pnFact) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g || !zText, CAIRN_MISUSE, "cairn_kg_extract: NULL argument");
  CAIRN_RETURN_ERROR_IF(refMs < CAIRN_KG_TIME_MIN || refMs > CAIRN_KG_TIME_MAX, CAIRN_RANGE, "cairn_kg_extract: reference time out of range");
  Extract *x = cairnMalloc(sizeof *x);
  CAIRN_RETURN_ERROR_IF(!x, CAIRN_NOMEM, "extractor state");
  extract(g, zText, strlen(zText), zSpeaker, refMs, x);
  int rc = cairnKgBegin(g);
  if (rc) {
    cairnFree(x);
    return rc;
  }
  uint32_t nEnt0 = (uint32_t)g->nEnt, nFact0 = (uint32_t)g->nFact;
  for (uint32_t i = 0; i < x->nEnt && !rc; i++) {
    uint32_t id;
    char zn[X_NAME];
    size_t nn = cairn_kg_normalize(x->aEnt[i].z, zn, sizeof zn);
    if (!nn) continue;
    rc = cairnKgEntityAdd(g, x->aEnt[i].z, x->aEnt[i].zType, &id);
    if (!rc) rc = cairnKgMentionAdd(g, id, memId);
  }
  for (uint32_t i = 0; i < x->nFact && !rc; i++) {
    XFact *f = &x->aFact[i];
    if (!strcmp(f->p, "alias")) {
      uint32_t id, other;
      char zn[X_NAME];
      size_t nn = cairn_kg_normalize(f->o, zn, sizeof zn);
      if (cairn_kg_find(g, f->s, &id) == CAIRN_OK && (!nn || cairnKgEntityFind(g, zn, nn, &other) != CAIRN_OK)) {
        g->inTxn++; /* inside this savepoint */
        rc = cairn_kg_alias(g, id, f->o);
        g->inTxn--;
      }
      continue;
    }
    cairn_kg_fact kf;
    memset(&kf, 0, sizeof kf);
    kf.zSubject = f->s, kf.zPredicate = f->p, kf.zObject = f->o;
    kf.validAt = f->validAt, kf.invalidAt = kf.expiredAt = CAIRN_KG_NONE, kf.createdAt = refMs;
    kf.aSource = &memId, kf.nSource = 1;
    rc = cairnKgFactAdd(g, &kf, NULL);
  }
  for (uint32_t i = 0; i < x->nTime && !rc; i++) {
    g->inTxn++;
    rc = cairn_kg_time_add(g, memId, x->aTime[i].lo, x->aTime[i].hi);
    g->inTxn--;
  }
  if (pnEntity) *pnEntity = rc ? 0 : (uint32_t)g->nEnt - nEnt0;
  if (pnFact) *pnFact = rc ? 0 : (uint32_t)g->nFact - nFact0;
  cairnFree(x);
  cairnKgEnd(g, rc);
  return rc;
}

int cairn_kg_extract_json(const char *zText, const char *zSpeaker, int64_t refMs, char **pzJson) {
  CAIRN_RETURN_ERROR_IF(!zText || !pzJson, CAIRN_MISUSE, "cairn_kg_extract_json: NULL argument");
  CAIRN_RETURN_ERROR_IF(refMs < CAIRN_KG_TIME_MIN || refMs > CAIRN_KG_TIME_MAX, CAIRN_RANGE, "cairn_kg_extract_json: reference time out of range");
  Extract *x = cairnMalloc(sizeof *x);
  CAIRN_RETURN_ERROR_IF(!x, CAIRN_NOMEM, "extractor state");
  size_t nText = strlen(zText);
  extract(NULL, zText, nText, zSpeaker, refMs, x);
  size_t spk = zSpeaker ? strlen(zSpeaker) : 0;
  const char *zBody = zText;
  if (spk && nText > spk + 2 && !memcmp(zText, zSpeaker, spk) && zText[spk] == ':') zBody += spk + 2;
  CairnSb s = {0};
  cairnSbStr(&s, "{\"entities\":[");
  for (uint32_t i = 0; i < x->nEnt; i++) {
    cairnSbStr(&s, i ? ",{\"name\":" : "{\"name\":");
    cairnSbJsonStr(&s, x->aEnt[i].z, strlen(x->aEnt[i].z), 0);
    cairnSbStr(&s, ",\"type\":");
    cairnSbJsonStr(&s, x->aEnt[i].zType ? x->aEnt[i].zType : "", x->aEnt[i].zType ? strlen(x->aEnt[i].zType) : 0, 0);
    cairnSbStr(&s, "}");
  }
  cairnSbStr(&s, "],\"facts\":[");
  for (uint32_t i = 0; i < x->nFact; i++) {
    cairnSbStr(&s, i ? ",{\"s\":" : "{\"s\":");
    cairnSbJsonStr(&s, x->aFact[i].s, strlen(x->aFact[i].s), 0);
    cairnSbStr(&s, ",\"p\":");
    cairnSbJsonStr(&s, x->aFact[i].p, strlen(x->aFact[i].p), 0);
    cairnSbStr(&s, ",\"o\":");
    cairnSbJsonStr(&s, x->aFact[i].o, strlen(x->aFact[i].o), 0);
    cairnSbStr(&s, "}");
  }
  cairnSbStr(&s, "],\"times\":[");
  for (uint32_t i = 0; i < x->nTime; i++) {
    cairnSbStr(&s, i ? ",{\"text\":" : "{\"text\":");
    cairnSbJsonStr(&s, zBody + x->aTime[i].iStart, x->aTime[i].nLen, 0);
    cairnSbStr(&s, ",\"lo\":");
    cairnSbI64(&s, x->aTime[i].lo);
    cairnSbStr(&s, ",\"hi\":");
    cairnSbI64(&s, x->aTime[i].hi);
    cairnSbStr(&s, "}");
  }
  cairnSbStr(&s, "]}");
  cairnFree(x);
  size_t n;
  return cairnSbDone(&s, CAIRN_OK, "extraction JSON", pzJson, &n);
}
