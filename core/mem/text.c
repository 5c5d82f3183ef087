/*
** 2026-11-29
**
** core/mem/text.c - text tools of the memory store: UTF-8 decoding, lowercasing, the English
** chat tokenizer (stop words, possessives, Porter step-1 stemming), the built-in hashing
** embedder, a 64-bit string hash and CRC-32C.
**
** The tokenizer runs on arbitrary bytes (it is fuzzed): invalid UTF-8 bytes are separators,
** tokens longer than TOK_MAX bytes are cut at a character boundary, and nothing allocates.
** BM25 and the embedder use the same tokens, so the query and the stored text always agree.
*/
#include <math.h>

#include "mem_int.h"

#define TOK_MAX 64

/* ------------------------------------------------------------------ UTF-8 */
int32_t cairnUtf8Decode(const uint8_t *z, size_t n, size_t *pi) {
  size_t i = *pi;
  uint8_t c = z[i];
  if (c < 0x80) {
    *pi = i + 1;
    return c;
  }
  int len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
  if (len == 0 || c > 0xf4 || i + (size_t)len > n) {
    *pi = i + 1;
    return -1;
  }
  int32_t v = c & (0x7f >> len);
  for (int k = 1; k < len; k++) {
    uint8_t d = z[i + (size_t)k];
    if ((d & 0xc0) != 0x80) {
      *pi = i + 1;
      return -1;
    }
    v = (v << 6) | (d & 0x3f);
  }
  /* overlong forms, surrogates and values past U+10FFFF are invalid */
  if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10ffff)) || (v >= 0xd800 && v <= 0xdfff)) {
    *pi = i + 1;
    return -1;
  }
  *pi = i + (size_t)len;
  return v;
}

static size_t utf8Encode(int32_t c, char *z) {
  if (c < 0x80) {
    z[0] = (char)c;
    return 1;
  }
  if (c < 0x800) {
    z[0] = (char)(0xc0 | (c >> 6));
    z[1] = (char)(0x80 | (c & 0x3f));
    return 2;
  }
  if (c < 0x10000) {
    z[0] = (char)(0xe0 | (c >> 12));
    z[1] = (char)(0x80 | ((c >> 6) & 0x3f));
    z[2] = (char)(0x80 | (c & 0x3f));
    return 3;
  }
  z[0] = (char)(0xf0 | (c >> 18));
  z[1] = (char)(0x80 | ((c >> 12) & 0x3f));
  z[2] = (char)(0x80 | ((c >> 6) & 0x3f));
  z[3] = (char)(0x80 | (c & 0x3f));
  return 4;
}

/* Simple (1:1) lowercase mapping of ASCII, Latin-1, Latin Extended-A, Greek and Cyrillic,
** from the Unicode case tables of those blocks. Final sigma folds to sigma so that word
** forms match. */
int32_t cairnMemLower(int32_t c) {
  if (c < 0x80) return (c >= 'A' && c <= 'Z') ? c + 32 : c;
  if (c < 0x100) return (c >= 0xc0 && c <= 0xde && c != 0xd7) ? c + 32 : c;
  if (c < 0x180) {
    if (c == 0x130) return 'i';
    if (c == 0x178) return 0xff;
    if ((c < 0x138 && c != 0x131) || (c >= 0x14a && c < 0x178)) return (c & 1) ? c : c + 1;
    if ((c >= 0x139 && c < 0x149) || (c >= 0x179 && c < 0x17f)) return (c & 1) ? c + 1 : c;
    return c;
  }
  if (c >= 0x370 && c < 0x400) {
    if (c >= 0x391 && c <= 0x3a9 && c != 0x3a2) return c + 32;
    if (c == 0x386) return 0x3ac;
    if (c >= 0x388 && c <= 0x38a) return c + 37;
    if (c == 0x38c) return 0x3cc;
    if (c == 0x38e || c == 0x38f) return c + 63;
    if (c == 0x3c2) return 0x3c3;
    return c;
  }
  if (c >= 0x400 && c < 0x530) {
    if (c < 0x410) return c + 80;
    if (c < 0x430) return c + 32;
    if ((c >= 0x460 && c < 0x482) || (c >= 0x48a && c < 0x4c0) || (c >= 0x4d0 && c < 0x530)) return (c & 1) ? c : c + 1;
    if (c == 0x4c0) return 0x4cf;
    if (c >= 0x4c1 && c < 0x4cf) return (c & 1) ? c + 1 : c;
    return c;
  }
  return c;
}

/* Letters and digits of every script count as word characters; ASCII punctuation, Latin-1
** symbols, general punctuation, symbols, CJK punctuation, variation selectors and emoji do not. */
int cairnMemIsWordChar(int32_t c) {
  if (c < 0x80) return (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z');
  if (c < 0xc0) return c == 0xaa || c == 0xb5 || c == 0xba;
  if (c == 0xd7 || c == 0xf7) return 0;
  if (c < 0x2000) return 1;
  if (c < 0x2c00) return 0;                  /* punctuation, symbols, arrows, dingbats */
  if (c >= 0x3000 && c < 0x3040) return 0;   /* CJK punctuation */
  if (c >= 0xfe00 && c < 0xfe10) return 0;   /* variation selectors */
  if (c >= 0xff00 && c < 0xff10) return 0;   /* fullwidth punctuation */
  if (c >= 0x1f000 && c < 0x1fb00) return 0; /* emoji and pictographs */
  if (c >= 0xe0000) return 0;                /* tags */
  return 1;
}

uint64_t cairnMemHash(const void *p, size_t n, uint64_t seed) {
  const uint8_t *a = p;
  uint64_t h = 0xcbf29ce484222325ull ^ (seed * 0x9E3779B97F4A7C15ull);
  for (size_t i = 0; i < n; i++) h = (h ^ a[i]) * 0x100000001b3ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

/* ------------------------------------------------------------------ stop words */
/* English stop words (the NLTK list plus contraction stems and chat fillers), sorted. */
static const char *const azStop[] = {
  "a", "about", "above", "after", "again", "against", "ain", "all", "am", "an", "and", "any", "are",
  "aren", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but",
  "by", "can", "couldn", "d", "did", "didn", "do", "does", "doesn", "doing", "don", "down", "during",
  "each", "few", "for", "from", "further", "had", "hadn", "has", "hasn", "have", "haven", "having",
  "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into",
  "is", "isn", "it", "its", "itself", "just", "ll", "m", "ma", "me", "mightn", "more", "most",
  "mustn", "my", "myself", "needn", "no", "nor", "not", "now", "o", "of", "off", "on", "once",
  "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "re", "s", "same", "shan",
  "she", "should", "shouldn", "so", "some", "such", "t", "than", "that", "the", "their", "theirs",
  "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too",
  "under", "until", "up", "ve", "very", "was", "wasn", "we", "were", "weren", "what", "when",
  "where", "which", "while", "who", "whom", "why", "will", "with", "won", "wouldn", "y", "you",
  "your", "yours", "yourself", "yourselves",
};

static int isStop(const char *z, size_t n) {
  int lo = 0, hi = (int)CAIRN_ARRAY_SIZE(azStop) - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    const char *s = azStop[mid];
    size_t ns = strlen(s);
    int c = memcmp(z, s, CAIRN_MIN(n, ns));
    if (c == 0) c = n < ns ? -1 : n > ns ? 1 : 0;
    if (c == 0) return 1;
    if (c < 0) hi = mid - 1;
    else lo = mid + 1;
  }
  return 0;
}

/* ------------------------------------------------------------------ Porter step 1 */
static int isCons(const char *z, int i) {
  switch (z[i]) {
    case 'a': case 'e': case 'i': case 'o': case 'u': return 0;
    case 'y': return i == 0 ? 1 : !isCons(z, i - 1);
    default: return 1;
  }
}
/* m() of z[0..n): the number of vowel-consonant sequences. */
static int measure(const char *z, int n) {
  int m = 0, i = 0;
  while (i < n && isCons(z, i)) i++;
  while (i < n) {
    while (i < n && !isCons(z, i)) i++;
    if (i >= n) break;
    while (i < n && isCons(z, i)) i++;
    m++;
  }
  return m;
}
static int hasVowel(const char *z, int n) {
  for (int i = 0; i < n; i++)
    if (!isCons(z, i)) return 1;
  return 0;
}
static int endsWith(const char *z, int n, const char *s) {
  int ns = (int)strlen(s);
  return n >= ns && memcmp(z + n - ns, s, (size_t)ns) == 0;
}
/* consonant-vowel-consonant ending, the last not w, x or y */
static int cvc(const char *z, int n) {
  if (n < 3 || !isCons(z, n - 1) || isCons(z, n - 2) || !isCons(z, n - 3)) return 0;
  char c = z[n - 1];
  return c != 'w' && c != 'x' && c != 'y';
}

/* Stem z[0..n) in place (ASCII lowercase letters only); returns the new length. */
static int porterStep1(char *z, int n) {
  if (n <= 2) return n;
  /* 1a */
  if (endsWith(z, n, "sses")) n -= 2;
  else if (endsWith(z, n, "ies")) n -= 2;
  else if (endsWith(z, n, "ss")) {
  } else if (z[n - 1] == 's') n -= 1;
  /* 1b */
  int more = 0;
  if (endsWith(z, n, "eed")) {
    if (measure(z, n - 3) > 0) n -= 1;
  } else if (endsWith(z, n, "ed") && hasVowel(z, n - 2)) {
    n -= 2, more = 1;
  } else if (endsWith(z, n, "ing") && hasVowel(z, n - 3)) {
    n -= 3, more = 1;
  }
  if (more) {
    if (endsWith(z, n, "at") || endsWith(z, n, "bl") || endsWith(z, n, "iz")) z[n++] = 'e';
    else if (n >= 2 && z[n - 1] == z[n - 2] && isCons(z, n - 1) && z[n - 1] != 'l' && z[n - 1] != 's' && z[n - 1] != 'z')
      n -= 1;
    else if (measure(z, n) == 1 && cvc(z, n)) z[n++] = 'e';
  }
  /* 1c */
  if (n > 1 && z[n - 1] == 'y' && hasVowel(z, n - 1)) z[n - 1] = 'i';
  return n;
}

/* ------------------------------------------------------------------ tokenizer */
static void emitToken(char *z, size_t n, int ascii, void (*xTok)(void *, const char *, size_t), void *pArg) {
  if (n == 0 || isStop(z, n)) return;
  if (ascii) {
    int allAlpha = 1;
    for (size_t i = 0; i < n; i++)
      if (z[i] < 'a' || z[i] > 'z') allAlpha = 0;
    /* room for the 'e' step 1b may append: z has TOK_MAX + 4 bytes */
    if (allAlpha) n = (size_t)porterStep1(z, (int)n);
  }
  xTok(pArg, z, n);
}

int cairn_mem_tokenize(const char *zText, size_t nText, void (*xTok)(void *pArg, const char *z, size_t n), void *pArg) {
  if (!xTok || (!zText && nText)) return cairnErr(CAIRN_MISUSE, "tokenize: NULL argument");
  const uint8_t *z = (const uint8_t *)zText;
  char aTok[TOK_MAX + 8];
  size_t nTok = 0, i = 0;
  int ascii = 1, full = 0;
  while (i < nText) {
    int32_t c = cairnUtf8Decode(z, nText, &i);
    int isWord = c >= 0 && cairnMemIsWordChar(c);
    if (!isWord && (c == '\'' || c == 0x2019) && nTok > 0 && i < nText) {
      /* An apostrophe inside a word: "Caroline's" -> caroline; "don't" -> don + t (both stop
      ** words); "rock'n'roll" -> rock, n, roll. */
      size_t j = i;
      int32_t d = cairnUtf8Decode(z, nText, &j);
      if (d == 's' || d == 'S') {
        int endOfWord = 1;
        if (j < nText) {
          size_t k = j;
          int32_t e = cairnUtf8Decode(z, nText, &k);
          endOfWord = !(e >= 0 && cairnMemIsWordChar(e));
        }
        if (endOfWord) {
          emitToken(aTok, nTok, ascii, xTok, pArg);
          nTok = 0, ascii = 1, full = 0;
          i = j;
          continue;
        }
      }
    }
    if (!isWord) {
      if (nTok) emitToken(aTok, nTok, ascii, xTok, pArg);
      nTok = 0, ascii = 1, full = 0;
      continue;
    }
    if (full) continue;
    c = cairnMemLower(c);
    char enc[4];
    size_t ne = utf8Encode(c, enc);
    if (nTok + ne > TOK_MAX) {
      full = 1; /* keep the first TOK_MAX bytes, whole characters only */
      continue;
    }
    memcpy(aTok + nTok, enc, ne);
    nTok += ne;
    if (c >= 0x80) ascii = 0;
  }
  if (nTok) emitToken(aTok, nTok, ascii, xTok, pArg);
  return CAIRN_OK;
}

/* ------------------------------------------------------------------ embedder */
typedef struct EmbedCtx {
  float *a;
  uint32_t dim;
  uint32_t nTok;
} EmbedCtx;

static void embedAdd(EmbedCtx *e, uint64_t h, float w) {
  uint32_t i = (uint32_t)((h & 0xffffffffu) % e->dim);
  e->a[i] += (h >> 63) ? -w : w;
}

static void embedTok(void *pArg, const char *z, size_t n) {
  EmbedCtx *e = pArg;
  e->nTok++;
  embedAdd(e, cairnMemHash(z, n, 1), 1.0f);
  /* Character 3- and 4-grams of "^word$" (bytes), so spelling variants and compounds share
  ** part of their features. Weight 1/sqrt(count) per word keeps long words from dominating. */
  char b[TOK_MAX + 16];
  size_t nb = 0;
  b[nb++] = '^';
  memcpy(b + nb, z, n);
  nb += n;
  b[nb++] = '$';
  if (nb < 5) return;
  size_t nGram = (nb - 2) + (nb - 3);
  float w = 1.0f / sqrtf((float)nGram);
  for (size_t i = 0; i + 3 <= nb; i++) embedAdd(e, cairnMemHash(b + i, 3, 3), w);
  for (size_t i = 0; i + 4 <= nb; i++) embedAdd(e, cairnMemHash(b + i, 4, 4), w);
}

int cairn_mem_embed(const char *zText, size_t nText, float *pOut, uint32_t dim) {
  if (!pOut || (!zText && nText)) return cairnErr(CAIRN_MISUSE, "embed: NULL argument");
  if (dim == 0 || dim > CAIRN_MEM_MAX_DIM) return cairnErr(CAIRN_RANGE, "embed: dimension %u not in 1..%u", dim, CAIRN_MEM_MAX_DIM);
  memset(pOut, 0, (size_t)dim * 4);
  EmbedCtx e = {pOut, dim, 0};
  CAIRN_TRY(cairn_mem_tokenize(zText, nText, embedTok, &e));
  double sq = 0;
  for (uint32_t i = 0; i < dim; i++) sq += (double)pOut[i] * pOut[i];
  if (sq > 0) {
    float inv = (float)(1.0 / sqrt(sq));
    for (uint32_t i = 0; i < dim; i++) pOut[i] *= inv;
  }
  return CAIRN_OK;
}

