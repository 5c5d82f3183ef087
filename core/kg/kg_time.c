/*
** 2026-12-02
**
** core/kg/kg_time.c - time expressions in English text, resolved against a reference time: dates
** ("8 May 2023", "May 8, 2023", "2023-05-08", "May 2023", "in 2022"), named days and parts
** ("yesterday", "last night", "this morning"), relative spans ("last week", "next month",
** "last May", "two weeks ago", "a few days ago", "the day before", "the week after"), weekdays
** ("on Friday", "last Saturday"), seasons ("last summer"). Each becomes an interval [lo, hi) in
** ms since 1970 (UTC days). Deliberately small: a tokenizer over words and numbers and a handful
** of patterns tried at each word, longest first; no model, no locale.
*/
#include <string.h>

#include "kg/kg_int.h"

#define DAY_MS 86400000LL

int64_t cairnKgDaysFromCivil(int y, int m, int d) { /* H. Hinnant's algorithm */
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400, mp = (m + 9) % 12;
  int64_t doy = (153 * mp + 2) / 5 + d - 1, doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}
void cairnKgCivil(int64_t z, int *py, int *pm, int *pd) {
  z += 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097, doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365, doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153, d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
  *py = (int)(yoe + era * 400 + (m <= 2)), *pm = (int)m, *pd = (int)d;
}
static int64_t floorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

typedef struct Tok {
  uint32_t i, n;   /* bytes in the text */
  char w[16];      /* lowercased word (truncated) or digits */
  int num;         /* value if a number (digits or a number word), else -1 */
  int cap;         /* first letter upper case */
  int digits;      /* written in digits */
} Tok;

static const char *const azMon[] = {"january", "february", "march", "april", "may", "june", "july", "august", "september",
                                    "october", "november", "december"};
static const char *const azDay[] = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"};
static const char *const azNum[] = {"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                                    "eleven", "twelve"};

static int monthOf(const Tok *t) {
  for (int i = 0; i < 12; i++) {
    size_t n = strlen(t->w);
    if (!strcmp(t->w, azMon[i]) || (n == 3 && !memcmp(t->w, azMon[i], 3) && i != 4) || (!strcmp(t->w, "sept") && i == 8)) return i + 1;
  }
  return 0;
}
static int weekdayOf(const Tok *t) {
  for (int i = 0; i < 7; i++) {
    size_t n = strlen(azDay[i]);
    if (!strncmp(t->w, azDay[i], n) && (t->w[n] == 0 || !strcmp(t->w + n, "s"))) return i; /* 0 = Monday */
  }
  return -1;
}
static int unitOf(const char *w) { /* 0 day, 1 week, 2 month, 3 year, 4 weekend */
  static const char *const az[] = {"day", "week", "month", "year", "weekend"};
  for (int i = 0; i < 5; i++) {
    size_t n = strlen(az[i]);
    if (!strncmp(w, az[i], n) && (w[n] == 0 || !strcmp(w + n, "s"))) return i;
  }
  return -1;
}
static int seasonOf(const char *w) { /* month where it starts (northern hemisphere), or 0 */
  if (!strcmp(w, "spring")) return 3;
  if (!strcmp(w, "summer")) return 6;
  if (!strcmp(w, "fall") || !strcmp(w, "autumn")) return 9;
  if (!strcmp(w, "winter")) return 12;
  return 0;
}

static uint32_t tokenize(const char *z, size_t n, Tok *a, uint32_t nMax) {
  uint32_t k = 0;
  size_t i = 0;
  while (i < n && k < nMax) {
    unsigned char c = (unsigned char)z[i];
    int alpha = (c | 32) >= 'a' && (c | 32) <= 'z', digit = c >= '0' && c <= '9';
    if (!alpha && !digit) {
      i++;
      continue;
    }
    Tok t;
    memset(&t, 0, sizeof t);
    t.i = (uint32_t)i, t.num = -1, t.cap = c >= 'A' && c <= 'Z';
    size_t j = i, w = 0;
    if (digit) {
      while (j < n && z[j] >= '0' && z[j] <= '9') {
        if (w < sizeof t.w - 1) t.w[w++] = z[j];
        j++;
      }
      t.digits = 1;
      t.num = w <= 6 ? 0 : -1;
      for (size_t q = 0; q < w && t.num >= 0; q++) t.num = t.num * 10 + (t.w[q] - '0');
      /* ordinal suffix 8th, 1st, 22nd, 3rd */
      if (j + 1 < n && (((z[j] | 32) == 't' && (z[j + 1] | 32) == 'h') || ((z[j] | 32) == 's' && (z[j + 1] | 32) == 't') ||
                        ((z[j] | 32) == 'n' && (z[j + 1] | 32) == 'd') || ((z[j] | 32) == 'r' && (z[j + 1] | 32) == 'd')))
        j += 2;
    } else {
      while (j < n && ((((unsigned char)z[j] | 32) >= 'a' && ((unsigned char)z[j] | 32) <= 'z') || z[j] == '-')) {
        if (w < sizeof t.w - 1) t.w[w++] = (char)(z[j] | 32);
        j++;
      }
      for (int q = 0; q <= 12; q++)
        if (!strcmp(t.w, azNum[q])) t.num = q;
      if (!strcmp(t.w, "a") || !strcmp(t.w, "an")) t.num = 1;
    }
    t.n = (uint32_t)(j - i);
    a[k++] = t;
    i = j;
  }
  return k;
}

static int is(const Tok *a, uint32_t n, uint32_t i, const char *w) { return i < n && !strcmp(a[i].w, w); }

typedef struct Res { int64_t lo, hi; int grain; uint32_t nTok; int rel; } Res;

static Res daySpan(int64_t day, uint32_t nTok, int rel) { return (Res){day * DAY_MS, (day + 1) * DAY_MS, CAIRN_KG_GRAIN_DAY, nTok, rel}; }
static Res monthSpan(int y, int m, uint32_t nTok, int rel) {
  int y2 = m == 12 ? y + 1 : y, m2 = m == 12 ? 1 : m + 1;
  return (Res){cairnKgDaysFromCivil(y, m, 1) * DAY_MS, cairnKgDaysFromCivil(y2, m2, 1) * DAY_MS, CAIRN_KG_GRAIN_MONTH, nTok, rel};
}
static Res yearSpan(int y, uint32_t nTok, int rel) {
  return (Res){cairnKgDaysFromCivil(y, 1, 1) * DAY_MS, cairnKgDaysFromCivil(y + 1, 1, 1) * DAY_MS, CAIRN_KG_GRAIN_YEAR, nTok, rel};
}
static int plausibleYear(int v) { return v >= 1900 && v <= 2100; }

/* Try every pattern at token i; the longest match wins. */
static Res matchAt(const Tok *a, uint32_t n, uint32_t i, int64_t ref, const char *zText) {
  Res best = {0, 0, 0, 0, 0};
  int64_t refDay = floorDiv(ref, DAY_MS);
  int ry, rm, rd;
  cairnKgCivil(refDay, &ry, &rm, &rd);
  int refWd = (int)((refDay % 7 + 7 + 3) % 7); /* 1970-01-01 was a Thursday (3) */
#define TAKE(r)                                                                                                        \
  do {                                                                                                                 \
    Res r_ = (r);                                                                                                      \
    if (r_.nTok > best.nTok) best = r_;                                                                                \
  } while (0)
  const Tok *t = &a[i];
  /* ISO 2023-05-08 */
  if (t->digits && strlen(t->w) == 4 && i + 2 < n && a[i + 1].digits && a[i + 2].digits && zText[t->i + 4] == '-' &&
      a[i + 1].i == t->i + 5 && zText[a[i + 1].i + a[i + 1].n] == '-') {
    int y = t->num, m = a[i + 1].num, d = a[i + 2].num;
    if (plausibleYear(y) && m >= 1 && m <= 12 && d >= 1 && d <= 31) TAKE(daySpan(cairnKgDaysFromCivil(y, m, d), 3, 0));
  }
  /* D Month [YYYY] */
  if (t->digits && t->num >= 1 && t->num <= 31 && i + 1 < n) {
    uint32_t j = i + 1 + is(a, n, i + 1, "of");
    int m = j < n ? monthOf(&a[j]) : 0;
    if (m) {
      if (j + 1 < n && a[j + 1].digits && plausibleYear(a[j + 1].num))
        TAKE(daySpan(cairnKgDaysFromCivil(a[j + 1].num, m, t->num), j + 2 - i, 0));
      else {
        int y = ry - (m > rm || (m == rm && t->num > rd));
        TAKE(daySpan(cairnKgDaysFromCivil(y, m, t->num), j + 1 - i, 1));
      }
    }
  }
  int m = monthOf(t);
  if (m && (t->cap || m != 5)) { /* "may" only when written May */
    if (i + 1 < n && a[i + 1].digits && a[i + 1].num >= 1 && a[i + 1].num <= 31) {
      if (i + 2 < n && a[i + 2].digits && plausibleYear(a[i + 2].num))
        TAKE(daySpan(cairnKgDaysFromCivil(a[i + 2].num, m, a[i + 1].num), 3, 0));
      else if (!plausibleYear(a[i + 1].num)) {
        int y = ry - (m > rm || (m == rm && a[i + 1].num > rd));
        TAKE(daySpan(cairnKgDaysFromCivil(y, m, a[i + 1].num), 2, 1));
      }
    }
    if (i + 1 < n && a[i + 1].digits && plausibleYear(a[i + 1].num)) TAKE(monthSpan(a[i + 1].num, m, 2, 0));
    else if (i + 2 < n && is(a, n, i + 1, "of") && a[i + 2].digits && plausibleYear(a[i + 2].num))
      TAKE(monthSpan(a[i + 2].num, m, 3, 0));
    else if (t->cap && !(m == 5 && i > 0 && (is(a, n, i - 1, "i") || is(a, n, i - 1, "you") || is(a, n, i - 1, "we")))) {
      /* a bare month: the latest one not after the reference month */
      TAKE(monthSpan(m > rm ? ry - 1 : ry, m, 1, 1));
    }
  }
  /* a year */
  if (t->digits && strlen(t->w) == 4 && plausibleYear(t->num) && t->num <= ry + 10) TAKE(yearSpan(t->num, 1, 0));
  /* named days */
  if (!strcmp(t->w, "yesterday")) TAKE(daySpan(refDay - 1, 1, 1));
  if (!strcmp(t->w, "today") || !strcmp(t->w, "tonight")) TAKE(daySpan(refDay, 1, 1));
  if (!strcmp(t->w, "tomorrow")) TAKE(daySpan(refDay + 1, 1, 1));
  if (is(a, n, i, "the") && is(a, n, i + 1, "other") && is(a, n, i + 2, "day"))
    TAKE(((Res){(refDay - 7) * DAY_MS, refDay * DAY_MS, CAIRN_KG_GRAIN_WEEK, 3, 1}));
  if ((is(a, n, i, "this") || is(a, n, i, "earlier")) &&
      (is(a, n, i + 1, "morning") || is(a, n, i + 1, "afternoon") || is(a, n, i + 1, "evening") || is(a, n, i + 1, "today")))
    TAKE(((Res){refDay * DAY_MS, (refDay + 1) * DAY_MS, CAIRN_KG_GRAIN_PART, 2, 1}));
  if (is(a, n, i, "last") && is(a, n, i + 1, "night"))
    TAKE(((Res){(refDay - 1) * DAY_MS, (refDay + 1) * DAY_MS, CAIRN_KG_GRAIN_PART, 2, 1}));
  /* last / this / next / past + unit, weekday, month, season */
  int dir = !strcmp(t->w, "last") || !strcmp(t->w, "past") || !strcmp(t->w, "previous") ? -1
            : !strcmp(t->w, "next") || !strcmp(t->w, "coming")                        ? 1
            : !strcmp(t->w, "this")                                                     ? 0
                                                                                        : 2;
  if (dir != 2 && i + 1 < n) {
    const Tok *u = &a[i + 1];
    int un = unitOf(u->w), wd = weekdayOf(u), mo = monthOf(u), se = seasonOf(u->w);
    int64_t weekStart = refDay - refWd; /* Monday */
    if (un == 0) TAKE(daySpan(refDay + (dir ? dir : 0), 2, 1));
    if (un == 1) TAKE(((Res){(weekStart + 7 * dir) * DAY_MS, (weekStart + 7 * dir + 7) * DAY_MS, CAIRN_KG_GRAIN_WEEK, 2, 1}));
    if (un == 4) {
      int64_t sat = weekStart + 5 + 7 * dir;
      if (dir == -1 && refWd >= 5) sat = weekStart + 5 - 7; /* said on a weekend: the one before */
      TAKE(((Res){sat * DAY_MS, (sat + 2) * DAY_MS, CAIRN_KG_GRAIN_WEEK, 2, 1}));
    }
    if (un == 2) {
      int y = ry, mm = rm + dir;
      if (mm < 1) mm += 12, y--;
      if (mm > 12) mm -= 12, y++;
      TAKE(monthSpan(y, mm, 2, 1));
    }
    if (un == 3) TAKE(yearSpan(ry + dir, 2, 1));
    if (wd >= 0) {
      int64_t d;
      if (dir == -1) d = refDay - ((refWd - wd + 7) % 7 ? (refWd - wd + 7) % 7 : 7);
      else if (dir == 1) d = refDay + ((wd - refWd + 7) % 7 ? (wd - refWd + 7) % 7 : 7);
      else d = weekStart + wd;
      TAKE(daySpan(d, 2, 1));
    }
    if (mo) {
      int y = dir == -1 ? (mo >= rm ? ry - 1 : ry) : dir == 1 ? (mo <= rm ? ry + 1 : ry) : ry;
      TAKE(monthSpan(y, mo, 2, 1));
    }
    if (se) {
      int y = dir == -1 ? ((rm >= se && rm < se + 3) || (se == 12 && rm < 3) ? ry - 1 : ry - (se > rm && se != 12 ? 1 : 0)) : dir == 1 ? ry + (se <= rm) : ry;
      if (se == 12 && dir == -1 && rm >= 3) y = ry - 1;
      int m2 = se + 3 > 12 ? se + 3 - 12 : se + 3, y2 = se + 3 > 12 ? y + 1 : y;
      TAKE(((Res){cairnKgDaysFromCivil(y, se, 1) * DAY_MS, cairnKgDaysFromCivil(y2, m2, 1) * DAY_MS, CAIRN_KG_GRAIN_MONTH, 2, 1}));
    }
  }
  /* N units ago / a few days ago / a couple of weeks ago */
  {
    uint32_t j = i;
    int num = -1;
    if (a[j].num >= 0 && !(a[j].digits && a[j].num > 100)) num = a[j].num, j++;
    else if (is(a, n, j, "a") && is(a, n, j + 1, "few")) num = 3, j += 2;
    else if (is(a, n, j, "a") && is(a, n, j + 1, "couple")) num = 2, j += 2 + is(a, n, j + 2, "of");
    else if (is(a, n, j, "few") || is(a, n, j, "several")) num = 3, j++;
    if (num >= 0 && j < n) {
      int un = unitOf(a[j].w);
      if (un >= 0 && is(a, n, j + 1, "ago")) {
        uint32_t nt = j + 2 - i;
        if (un == 0) TAKE(daySpan(refDay - num, nt, 1));
        if (un == 1 || un == 4) {
          int64_t c = refDay - 7LL * num;
          TAKE(((Res){(c - 3) * DAY_MS, (c + 4) * DAY_MS, CAIRN_KG_GRAIN_WEEK, nt, 1}));
        }
        if (un == 2) {
          int y = ry, mm = rm - num;
          while (mm < 1) mm += 12, y--;
          TAKE(monthSpan(y, mm, nt, 1));
        }
        if (un == 3) TAKE(yearSpan(ry - num, nt, 1));
      }
      if (un >= 0 && i > 0 && is(a, n, i - 1, "in") && un <= 1 && num > 0) { /* "in two weeks" */
        int64_t c = refDay + (un ? 7LL : 1LL) * num;
        TAKE(((Res){(c - (un ? 3 : 0)) * DAY_MS, (c + (un ? 4 : 1)) * DAY_MS, un ? CAIRN_KG_GRAIN_WEEK : CAIRN_KG_GRAIN_DAY, j + 1 - i, 1}));
      }
    }
  }
  /* durations up to the reference: "for 4 years", "3 years now", "since 2016" */
  {
    uint32_t j = i + is(a, n, i, "for");
    int num = j < n ? a[j].num : -1;
    if (j < n && is(a, n, j, "a") && is(a, n, j + 1, "few")) num = 3, j++;
    if (num > 0 && num <= 100 && j + 1 < n) {
      int un = unitOf(a[j + 1].w);
      int tail = is(a, n, j + 2, "now") || is(a, n, j + 2, "already") || is(a, n, j + 2, "straight");
      if (un >= 0 && un <= 3 && (j > i || tail) && !is(a, n, j + 2, "ago")) {
        static const int64_t aDays[4] = {1, 7, 30, 365};
        int64_t span = aDays[un] * num;
        TAKE(((Res){(refDay - span) * DAY_MS, (refDay + 1) * DAY_MS, un == 3 ? CAIRN_KG_GRAIN_YEAR : CAIRN_KG_GRAIN_MONTH,
                    j + 2 - i + (uint32_t)tail, 1}));
      }
    }
    if (is(a, n, i, "since") && i + 1 < n && a[i + 1].digits && plausibleYear(a[i + 1].num) &&
        cairnKgDaysFromCivil(a[i + 1].num, 1, 1) <= refDay)
      TAKE(((Res){cairnKgDaysFromCivil(a[i + 1].num, 1, 1) * DAY_MS, (refDay + 1) * DAY_MS, CAIRN_KG_GRAIN_YEAR, 2, 0}));
  }
  /* the day / week / month / year before / after (the reference is the memory's time) */
  if (is(a, n, i, "the") && i + 2 < n && (is(a, n, i + 2, "before") || is(a, n, i + 2, "after"))) {
    int un = unitOf(a[i + 1].w), d = is(a, n, i + 2, "after") ? 1 : -1;
    if (un == 0) TAKE(daySpan(refDay + d, 3, 1));
    if (un == 1) TAKE(((Res){(refDay + 7 * d - 3) * DAY_MS, (refDay + 7 * d + 4) * DAY_MS, CAIRN_KG_GRAIN_WEEK, 3, 1}));
  }
  /* on Friday / bare capitalised weekday: the latest one before the reference (conversation is
  ** mostly about the past), the same day counts */
  {
    int wd = weekdayOf(t);
    if (wd >= 0 && (t->cap || (i > 0 && is(a, n, i - 1, "on")))) {
      int back = (refWd - wd + 7) % 7;
      TAKE(daySpan(refDay - back, 1, 1));
    }
  }
  /* seasons: "in the summer", "summer 2022" */
  {
    uint32_t j = i + is(a, n, i, "the");
    int se = j < n ? seasonOf(a[j].w) : 0;
    if (se && (j > i || (i > 0 && is(a, n, i - 1, "in")) || (j + 1 < n && a[j + 1].digits))) {
      int y = j + 1 < n && a[j + 1].digits && plausibleYear(a[j + 1].num) ? a[j + 1].num : (se > rm && se != 12 ? ry - 1 : ry);
      int m2 = se + 3 > 12 ? se + 3 - 12 : se + 3, y2 = se + 3 > 12 ? y + 1 : y;
      uint32_t nt = j + 1 - i + (j + 1 < n && a[j + 1].digits && plausibleYear(a[j + 1].num));
      TAKE(((Res){cairnKgDaysFromCivil(y, se, 1) * DAY_MS, cairnKgDaysFromCivil(y2, m2, 1) * DAY_MS, CAIRN_KG_GRAIN_MONTH, nt, 1}));
    }
  }
#undef TAKE
  return best;
}

int cairn_kg_time_parse(const char *zText, size_t nText, int64_t refMs, cairn_kg_time *aOut, uint32_t nMax, uint32_t *pn) {
  CAIRN_RETURN_ERROR_IF(!pn || (nMax && !aOut) || (nText && !zText), CAIRN_MISUSE, "cairn_kg_time_parse: NULL argument");
  CAIRN_RETURN_ERROR_IF(refMs < CAIRN_KG_TIME_MIN || refMs > CAIRN_KG_TIME_MAX, CAIRN_RANGE,
                        "cairn_kg_time_parse: reference time %lld outside years 1..9999", (long long)refMs);
  *pn = 0;
  uint32_t nOut = 0;
  size_t at = 0;
  Tok aTok[256];
  while (at < nText && nOut < nMax) { /* windows of 256 tokens, restarted at the last whole token */
    uint32_t nTok = tokenize(zText + at, nText - at, aTok, 256);
    if (!nTok) break;
    uint32_t iLimit = nTok == 256 ? nTok - 8 : nTok;
    uint32_t i = 0;
    while (i < iLimit && nOut < nMax) {
      Res r = matchAt(aTok, nTok, i, refMs, zText + at);
      if (!r.nTok) {
        i++;
        continue;
      }
      if (r.lo < CAIRN_KG_TIME_MIN || r.hi > CAIRN_KG_TIME_MAX) {
        i += r.nTok;
        continue;
      }
      const Tok *e = &aTok[i + r.nTok - 1];
      aOut[nOut++] = (cairn_kg_time){(uint32_t)(at + aTok[i].i), e->i + e->n - aTok[i].i, r.lo, r.hi, r.grain, r.rel};
      i += r.nTok;
    }
    if (nTok < 256) break;
    at += aTok[i < nTok ? i : nTok - 1].i;
  }
  *pn = nOut;
  return CAIRN_OK;
}
